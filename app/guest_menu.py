"""The context menu of a guest tile: relocate, log on or off, workload, detail, pause actions."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from ssisim.engine import VERBS, Command

from .commands import (
    cancel_command,
    force_command,
    guest_cp_command,
    indicate_user_command,
    linux_command,
    logon_command,
    query_workload_command,
)

#: Pausing a guest: (menu text, the command for a user ID, verb the engine must know). CP STOP
#: and BEGIN are the guest's own commands, so the operator issues them through SEND CP.
PAUSE_ACTIONS: tuple[tuple[str, Callable[[str], Command], str], ...] = (
    ("Suspend (Linux hibernates)", lambda u: linux_command(u, "SUSPEND"), "LINUX"),
    ("Resume (Linux)", lambda u: linux_command(u, "RESUME"), "LINUX"),
    ("STOP (CP)", lambda u: guest_cp_command(u, "STOP"), "STOP"),
    ("BEGIN (CP)", lambda u: guest_cp_command(u, "BEGIN"), "BEGIN"),
)
NOT_MODELLED_TIP = "not yet modelled: this engine has no {verb} command"


def engine_knows(verb: str) -> bool:
    """True when the engine accepts ``verb`` (``ssisim.engine.VERBS``)."""
    return any(v == verb for v, _ in VERBS)


def build_guest_menu(parent: QWidget, userid: str, member: str | None, state: str,
                     members: list[str], relocating: bool, issue: Callable[[Command], object],
                     relocate: Callable[[str, str, bool], object],
                     edit_workload: Callable[[str], object],
                     show_detail: Callable[[str], object]) -> QMenu:
    """The menu for one guest; each action issues a command through ``issue`` or a dialog.

    Parameters
    ----------
    userid, member, state : str
        The guest, the member it runs on (None: logged off) and its displayed state.
    members : list of str
        Members of the cluster.
    relocating : bool
        True while a relocation of the guest is under way.
    issue : callable
        ``issue(command)`` issues a typed command (the console shows its text).
    relocate : callable
        ``relocate(userid, member, ask_options)``.
    edit_workload, show_detail : callable
        Open the workload dialog, show the guest in the detail panel.
    """
    menu = QMenu(f"{userid}", parent)
    menu.setToolTipsVisible(True)
    title = menu.addAction(f"{userid}" + (f" on {member}" if member else " (logged off)"))
    title.setEnabled(False)
    menu.addSeparator()
    menu.addAction("Show details", lambda: show_detail(userid))
    if member is None:
        menu.addAction(f"Log on (XAUTOLOG {userid})", lambda: issue(logon_command(userid)))
        for m in members:
            menu.addAction(f"Log on at {m}", partial(issue, logon_command(userid, m)))
        return menu
    reloc = menu.addMenu("Relocate to")
    for m in members:
        if m == member:
            continue
        reloc.addAction(m, partial(relocate, userid, m, False))
        reloc.addAction(f"{m} with options...", partial(relocate, userid, m, True))
    reloc.setEnabled(not relocating and len(members) > 1)
    cancel = menu.addAction("Cancel relocation", lambda: issue(cancel_command(userid)))
    cancel.setEnabled(relocating)
    menu.addAction("Change workload...", lambda: edit_workload(userid))
    menu.addSeparator()
    menu.addAction(f"Query workload (Q WORK {userid})",
                   lambda: issue(query_workload_command(userid)))
    menu.addAction(f"Indicate user (IND USER {userid})",
                   lambda: issue(indicate_user_command(userid)))
    menu.addSeparator()
    for label, make, verb in PAUSE_ACTIONS:
        command = make(userid)
        act: QAction = menu.addAction(f"{label}: {command}", partial(issue, command))
        if not engine_knows(verb):
            # shown, so the user knows where it will be, but honest about it
            act.setEnabled(False)
            act.setText(f"{label} - not yet modelled")
            act.setToolTip(NOT_MODELLED_TIP.format(verb=verb))
        else:
            act.setToolTip(f"Issues {command}; CP's answer shows in the console")
    menu.addSeparator()
    menu.addAction(f"Log off (FORCE {userid})", lambda: issue(force_command(userid)))
    return menu

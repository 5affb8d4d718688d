"""The commands that window gestures produce (drags, menus, dialogs), as typed values. No Qt here.

Every change the window makes to the simulated world is one of these frozen command objects
(``ssisim.engine.Command``): the window shows its canonical text (``str(cmd)``) in the console
and hands the object itself to the worker, so a recorded session, which keeps that text,
replays it headless to the same command (``parse_command(str(cmd)) == cmd``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ssisim.engine import (
    COMMAND_TYPES,
    Command,
    VmrelocateCancel,
    VmrelocateMove,
    VmrelocateTest,
)

#: Every command class of the engine by its name. The engine exports the relocation commands by
#: name; the others are reached through ``COMMAND_TYPES``, its public list of command classes.
_TYPES: dict[str, type[Command]] = {c.__name__: c for c in COMMAND_TYPES}


def _make(name: str, **values: Any) -> Command:
    return _TYPES[name](**values)


@dataclass(frozen=True)
class RelocateOptions:
    """Options of ``VMRELOCATE``; ``None`` leaves an option at CP's default.

    ``maxquiesce_s`` and ``maxtotal_s`` take seconds or the string ``"NOLIMIT"``.
    """

    test: bool = False
    sync: bool | None = None
    immediate: bool = False
    maxquiesce_s: float | str | None = None
    maxtotal_s: float | str | None = None
    force_storage: bool = False


def _limit(value: float | str | None, default: float | None) -> float | None:
    """Seconds, ``"NOLIMIT"`` (None in a command) or ``None`` (CP's default)."""
    if value is None:
        return default
    if isinstance(value, str):
        if value.upper() != "NOLIMIT":
            raise ValueError(f"a limit is seconds or NOLIMIT, not {value!r}")
        return None
    return float(value)


def relocate_command(userid: str, member: str,
                     opts: RelocateOptions | None = None) -> VmrelocateMove | VmrelocateTest:
    """``VMRELOCATE MOVE`` (or ``TEST``) of ``userid`` to ``member``, for a drop or the dialog.

    IMMEDIATE without a MAXQUIESCE of its own means MAXQUIESCE NOLIMIT, as CP has it.
    """
    o = opts or RelocateOptions()
    userid, member = userid.upper(), member.upper()
    if o.test:
        return VmrelocateTest(userid=userid, dest=member, force_storage=o.force_storage)
    default_quiesce = None if o.immediate else VmrelocateMove.maxquiesce_s
    return VmrelocateMove(userid=userid, dest=member,
                          sync=True if o.sync is None else o.sync,
                          immediate=o.immediate,
                          maxquiesce_s=_limit(o.maxquiesce_s, default_quiesce),
                          maxtotal_s=_limit(o.maxtotal_s, VmrelocateMove.maxtotal_s),
                          force_storage=o.force_storage)


def cancel_command(userid: str) -> VmrelocateCancel:
    """Cancel a guest's relocation."""
    return VmrelocateCancel(userid=userid.upper())


def force_command(userid: str) -> Command:
    """Log a guest off (the operator forces it)."""
    return _make("Force", userid=userid.upper())


def logon_command(userid: str, member: str | None = None) -> Command:
    """Log a guest on (``XAUTOLOG``), at its home member or at ``member``."""
    return _make("Xautolog", userid=userid.upper(), at=member.upper() if member else None)


def query_workload_command(userid: str) -> Command:
    """``QUERY WORKLOAD userid``: what the guest runs."""
    return _make("QueryWorkload", userid=userid.upper())


def indicate_user_command(userid: str) -> Command:
    """``INDICATE USER userid``: the guest's resources."""
    return _make("IndicateUser", userid=userid.upper())


def linux_command(userid: str, action: str) -> Command:
    """``LINUX userid SUSPEND|RESUME``: Linux hibernates to swap, or resumes."""
    return _make("Linux", userid=userid.upper(), action=action.upper())


def guest_cp_command(userid: str, verb: str) -> Command:
    """``SEND CP userid STOP|BEGIN``: a command the guest issues itself (CP STOP and BEGIN are
    a guest's own commands, so the operator sends them)."""
    inner = _make("Stop") if verb.upper() == "STOP" else _make("Begin")
    return _make("Send", userid=userid.upper(), command=inner)


def hint_command() -> Command:
    """``HINT``: the lesson's next hint."""
    return _make("Hint")


def lesson_command(action: str = "STATUS") -> Command:
    """``LESSON STATUS|BRIEFING|END``."""
    return _make("Lesson", action=action.upper())


def workload_command(userid: str, kind: str, values: dict[str, float],
                     params: dict[str, Any]) -> Command:
    """``WORKLOAD userid START type [PARAM value]...`` with the values that differ from defaults.

    ``params`` is the type's parameter table (``WORKLOAD_TYPES[kind]["params"]``): each entry
    has a ``default``.
    """
    changed = tuple((name.lower(), float(values[name])) for name, spec in params.items()
                    if name in values and float(values[name]) != float(spec.default))
    return _make("WorkloadStart", userid=userid.upper(), type=kind.upper(), params=changed)


def only_asks(command: Command) -> bool:
    """True for a command that only asks (``QUERY``, ``INDICATE``, ``HELP``, ``VMRELOCATE
    TEST`` and the ``STATUS`` forms, also after ``AT member CMD``): it changes nothing a
    recording would keep."""
    if command.VERB == "AT":
        inner = getattr(command, "command", None)
        return isinstance(inner, Command) and only_asks(inner)
    if command.VERB in ("QUERY", "INDICATE", "HELP") or isinstance(command, VmrelocateTest):
        return True
    # VMRELOCATE STATUS, VMOTION STATUS, LPM STATUS: their canonical text says so
    words = str(command).split()
    return len(words) >= 2 and words[1] == "STATUS"


__all__ = ["RelocateOptions", "cancel_command", "force_command", "guest_cp_command",
           "hint_command", "indicate_user_command", "lesson_command", "linux_command",
           "logon_command", "only_asks", "query_workload_command", "relocate_command",
           "workload_command"]

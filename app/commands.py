"""The command text that window gestures produce (drags, menus, dialogs). No Qt here.

Every change the window makes to the simulated world is one of these commands, sent to the
console like typed text, so a recorded session replays it headless.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RelocateOptions:
    """Options of ``VMRELOCATE``; ``None`` leaves an option at CP's default (omitted).

    ``maxquiesce_s`` and ``maxtotal_s`` take seconds or the string ``"NOLIMIT"``.
    """

    test: bool = False
    sync: bool | None = None
    immediate: bool = False
    maxquiesce_s: float | str | None = None
    maxtotal_s: float | str | None = None
    force_storage: bool = False


def _limit(value: float | str) -> str:
    if isinstance(value, str):
        return value.upper()
    return f"{value:g}"


def relocate_command(userid: str, member: str, opts: RelocateOptions | None = None) -> str:
    """``VMRELOCATE TEST|MOVE USER userid TO member [options]`` for a drop or the dialog."""
    o = opts or RelocateOptions()
    words = ["VMRELOCATE", "TEST" if o.test else "MOVE", "USER", userid.upper(), "TO",
             member.upper()]
    if not o.test:
        if o.sync is not None:
            words.append("SYNC" if o.sync else "ASYNC")
        if o.immediate:
            words.append("IMMEDIATE")
        if o.maxquiesce_s is not None:
            words += ["MAXQUIESCE", _limit(o.maxquiesce_s)]
        if o.maxtotal_s is not None:
            words += ["MAXTOTAL", _limit(o.maxtotal_s)]
    if o.force_storage:
        words += ["FORCE", "STORAGE"]
    return " ".join(words)


def cancel_command(userid: str) -> str:
    """Cancel a guest's relocation."""
    return f"VMRELOCATE CANCEL USER {userid.upper()}"


def force_command(userid: str) -> str:
    """Log a guest off (the operator forces it)."""
    return f"FORCE {userid.upper()}"


def logon_command(userid: str, member: str | None = None) -> str:
    """Log a guest on, at its home member or at ``member``."""
    return f"XAUTOLOG {userid.upper()}" + (f" AT {member.upper()}" if member else "")


def _number(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e15 else f"{v:.0f}"


def workload_command(userid: str, kind: str, values: dict[str, float],
                     params: dict[str, Any]) -> str:
    """``WORKLOAD userid START type [PARAM value]...`` with the values that differ from defaults.

    ``params`` is the type's parameter table (``WORKLOAD_TYPES[kind]["params"]``): each entry
    has a ``default``.
    """
    words = ["WORKLOAD", userid.upper(), "START", kind.upper()]
    for name, spec in params.items():
        if name in values and float(values[name]) != float(spec.default):
            words += [name.upper(), _number(float(values[name]))]
    return " ".join(words)


def _abbrev(word: str, full: str, least: int) -> bool:
    """``word`` is ``full`` cut to at least ``least`` letters (CP's abbreviations)."""
    return len(word) >= least and full.startswith(word)


def only_asks(command: str) -> bool:
    """True for a command that only asks (``QUERY``, ``INDICATE``, ``VMRELOCATE TEST`` or
    ``STATUS``, also after ``AT member CMD``): it changes nothing a recording would keep."""
    words = command.upper().split()
    if len(words) >= 3 and _abbrev(words[0], "AT", 2) and _abbrev(words[2], "CMD", 3):
        words = words[3:]
    if not words:
        return True
    verb = words[0]
    if _abbrev(verb, "QUERY", 1) or _abbrev(verb, "INDICATE", 3):
        return True
    return _abbrev(verb, "VMRELOCATE", 5) and len(words) > 1 and \
        (_abbrev(words[1], "TEST", 4) or _abbrev(words[1], "STATUS", 4))

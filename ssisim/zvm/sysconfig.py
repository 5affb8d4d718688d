"""Read a z/VM ``SYSTEM CONFIG``: the SSI cluster's members, the CP-owned volumes each member
uses, and the ISFC links between members."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .directory import logical_lines
from .notes import NAME, Notes, Where, clean, read_text

_QUALIFIED = re.compile(r"^([A-Za-z0-9$#@_]{1,8})\s*:\s*(.*)$")
_RDEV = re.compile(r"^[0-9A-F]{1,5}$")


@dataclass(frozen=True)
class Volume:
    """A ``CP_OWNED SLOT n volid`` statement; ``member`` None when it applies to every member."""

    member: str | None
    slot: int
    volid: str
    where: Where


@dataclass(frozen=True)
class IsLink:
    """An ``ACTIVATE ISLINK`` statement: CTC devices from one member to another."""

    member: str
    node: str
    ctcs: int
    where: Where


@dataclass
class SystemConfig:
    """What ssisim takes from a SYSTEM CONFIG file."""

    file: str
    cluster: str = ""
    members: list[tuple[str, Where]] = field(default_factory=list)
    volumes: list[Volume] = field(default_factory=list)
    islinks: list[IsLink] = field(default_factory=list)

    def member_names(self) -> list[str]:
        """Member names in slot order."""
        return [name for name, _ in self.members]


def _strip_comments(text: str, file: str, notes: Notes) -> str:
    """``/* ... */`` comments, also over several lines, blanked out; line numbers kept."""
    out: list[str] = []
    i = 0
    start_line = 0
    inside = False
    line = 1
    while i < len(text):
        if not inside and text.startswith("/*", i):
            inside, start_line = True, line
            out.append("  ")
            i += 2
            continue
        if inside and text.startswith("*/", i):
            inside = False
            out.append("  ")
            i += 2
            continue
        ch = text[i]
        if ch == "\n":
            line += 1
            out.append(ch)
        else:
            out.append(" " if inside else ch)
        i += 1
    if inside:
        notes.problem(Where(file, start_line), "a /* comment is never closed; the rest of the "
                      "file is read as comment")
    return "".join(out)


def _count_ctcs(words: list[str]) -> int | None:
    n = 0
    for w in words:
        lo, _, hi = w.upper().partition("-")
        if not _RDEV.match(lo) or (hi and not _RDEV.match(hi)):
            return None
        a, b = int(lo, 16), int(hi or lo, 16)
        if b < a:
            return None
        n += b - a + 1
    return n or None


def read_system_config(path: Path, shown: str, notes: Notes) -> SystemConfig:
    """Read a SYSTEM CONFIG file.

    Raises ``InputError`` when it cannot be read; statements that cannot be used are reported
    in ``notes`` and skipped.
    """
    cfg = SystemConfig(shown)
    text = _strip_comments(read_text(path, shown, notes), shown, notes)
    block: str | None = None
    for n, stmt in logical_lines(text, shown, notes, comment_star=False):
        member = block
        m = _QUALIFIED.match(stmt)
        if m and m.group(2):
            member, stmt = m.group(1).upper(), m.group(2)
        words = stmt.replace(",", " ").split()
        if not words:
            continue
        kw = words[0].upper()
        at = Where(shown, n, clean(" ".join(words)))
        if kw == "BEGIN":
            if len(words) < 2:
                notes.problem(at, "BEGIN needs a member name")
            else:
                block = words[1].upper()
            continue
        if kw == "END":
            block = None
            continue
        if kw == "SSI":
            _ssi(cfg, words, at, notes)
        elif kw == "CP_OWNED":
            _cp_owned(cfg, member, words, at, notes)
        elif kw == "ACTIVATE" and len(words) > 1 and words[1].upper() == "ISLINK":
            _islink(cfg, member, words, at, notes)
        else:
            notes.ignore(kw, Where(shown, n))
    return cfg


def _ssi(cfg: SystemConfig, words: list[str], at: Where, notes: Notes) -> None:
    if cfg.members:
        notes.problem(at, "a second SSI statement; the first is used")
        return
    if len(words) < 2:
        notes.problem(at, "SSI needs the cluster name")
        return
    cfg.cluster = words[1].upper()
    up = [w.upper() for w in words]
    slots: dict[int, str] = {}
    i = 2
    while i < len(up):
        if up[i] == "PDR_VOLUME":
            i += 2
        elif up[i] == "SLOT" and i + 2 < len(up):
            slot, name = up[i + 1], up[i + 2]
            if not slot.isdigit() or not 1 <= int(slot) <= 4:
                notes.problem(at, f"SLOT {slot}: an SSI cluster has slots 1 to 4")
            elif not NAME.match(name):
                notes.problem(at, f"SLOT {slot} {name}: not a member name ssisim takes "
                              "(1 to 8 of A-Z 0-9 $ # @ _)")
            elif name in slots.values() or int(slot) in slots:
                notes.problem(at, f"SLOT {slot} {name}: slot or member given twice")
            else:
                slots[int(slot)] = name
            i += 3
        else:
            notes.problem(at, f"{words[i]}: not understood in the SSI statement (PDR_VOLUME "
                          "volid, SLOT n member)")
            i += 1
    if not slots:
        notes.problem(at, "the SSI statement names no members (SLOT n member)")
    cfg.members = [(slots[s], Where(at.file, at.line, f"SSI {cfg.cluster} SLOT {s} {slots[s]}"))
                   for s in sorted(slots)]


def _cp_owned(cfg: SystemConfig, member: str | None, words: list[str], at: Where,
              notes: Notes) -> None:
    up = [w.upper() for w in words]
    if len(up) < 4 or up[1] != "SLOT" or not up[2].isdigit():
        notes.problem(at, "write CP_OWNED SLOT n volid")
        return
    volid = up[3]
    if volid in ("RESERVED", "FREE"):
        return
    if not 1 <= len(volid) <= 6:
        notes.problem(at, f"{volid}: a volume label has 1 to 6 characters")
        return
    cfg.volumes.append(Volume(member, int(up[2]), volid, at))


def _islink(cfg: SystemConfig, member: str | None, words: list[str], at: Where,
            notes: Notes) -> None:
    up = [w.upper() for w in words]
    if "NODE" not in up or up.index("NODE") + 1 >= len(up):
        notes.problem(at, "write ACTIVATE ISLINK rdev ... NODE member")
        return
    k = up.index("NODE")
    if member is None:
        notes.problem(at, "ACTIVATE ISLINK without a member qualifier (MEMB1: ... or a BEGIN "
                      "block): the link's own end is unknown; skipped")
        return
    ctcs = _count_ctcs(up[2:k])
    if ctcs is None:
        notes.problem(at, f"{' '.join(up[2:k]) or '(nothing)'}: not CTC device numbers")
        return
    cfg.islinks.append(IsLink(member, up[k + 1], ctcs, at))

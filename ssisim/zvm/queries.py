"""Read saved CP responses, one file per member (or guest) and command, from a folder.

A file is named ``NAME.COMMAND`` or ``NAME.COMMAND.txt``: ``NAME`` is a member (or, for
``QUERY VIRTUAL STORAGE``, a user ID) and ``COMMAND`` the command with its words joined by
``-`` or ``_`` (``MEMB1.QUERY-STORAGE.txt``, ``memb1.q-alloc-page``, ``LNXDB1.Q-V-STOR.txt``).
Case does not matter, and the command may be abbreviated as CP allows (``Q``, ``IND``,
``STOR``, ``XSTOR``, ``N``, ``V``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .notes import NAME, Notes, Where, clean, read_text, size_pages

#: the commands read, as the report names them
COMMANDS = ("QUERY STORAGE", "QUERY XSTORE", "QUERY ALLOC PAGE", "INDICATE LOAD",
            "QUERY NAMES", "QUERY VIRTUAL STORAGE")
_ALLOC = re.compile(r"^\s*(\S{1,6})\s+([0-9A-F]{4,5})\s+(\d+)\s+(\d+)\s+(\d+[KMG]?)\s+"
                    r"(\d+[KMG]?)\s+(\d+[KMG]?)\s+(\d+)%", re.IGNORECASE)
_NAMES_ENTRY = re.compile(r"^\s*(\S+)\s*-\s*(\S+)(?:\s+AT\s+(\S+))?\s*$", re.IGNORECASE)
_COUNT = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


@dataclass(frozen=True)
class PageVolume:
    """A volume's PAGE extents as ``QUERY ALLOC PAGE`` lists them."""

    volid: str
    rdev: str
    slots: int
    in_use: int
    where: Where


@dataclass
class MemberFacts:
    """What the saved responses of one member say; None where no response was given."""

    central: tuple[int, Where] | None = None
    xstor: tuple[int, Where] | None = None
    cpus: tuple[int, Where] | None = None
    volumes: list[PageVolume] | None = None
    #: QUERY NAMES: user ID, the member an ``AT member`` suffix names (else None), where
    names: list[tuple[str, str | None, Where]] | None = None


@dataclass
class GuestFacts:
    """``QUERY VIRTUAL STORAGE`` of one guest: storage, standby and reserved, in pages."""

    storage: tuple[int, Where] | None = None
    standby: tuple[int, Where] | None = None
    reserved: tuple[int, Where] | None = None


@dataclass
class Queries:
    """The saved responses found in a folder, by member and by guest."""

    members: dict[str, MemberFacts] = field(default_factory=dict)
    guests: dict[str, GuestFacts] = field(default_factory=dict)


def _prefix(word: str, full: str, least: int) -> bool:
    return least <= len(word) <= len(full) and full.startswith(word)


def command_of(filename: str) -> tuple[str, str] | None:
    """``(NAME, command)`` of a file named by the scheme, or None."""
    parts = filename.upper().split(".")
    if len(parts) < 2 or len(parts) > 3 or not parts[0] or not NAME.match(parts[0]):
        return None
    w = [x for x in re.split(r"[-_\s]+", parts[1]) if x]
    if not w:
        return None
    if _prefix(w[0], "INDICATE", 3) and w[1:] in ([], ["LOAD"]):
        return parts[0], "INDICATE LOAD"
    if not _prefix(w[0], "QUERY", 1) or len(w) < 2:
        return None
    rest = w[1:]
    if len(rest) == 1 and _prefix(rest[0], "STORAGE", 4):
        return parts[0], "QUERY STORAGE"
    if len(rest) == 1 and _prefix(rest[0], "XSTORE", 5):
        return parts[0], "QUERY XSTORE"
    if rest == ["ALLOC", "PAGE"]:
        return parts[0], "QUERY ALLOC PAGE"
    if len(rest) == 1 and _prefix(rest[0], "NAMES", 1):
        return parts[0], "QUERY NAMES"
    if len(rest) == 2 and _prefix(rest[0], "VIRTUAL", 1) and _prefix(rest[1], "STORAGE", 4):
        return parts[0], "QUERY VIRTUAL STORAGE"
    return None


def _count(text: str) -> int:
    m = re.match(r"^(\d+)([KMG]?)$", text.upper())
    assert m is not None
    return int(m.group(1)) * _COUNT[m.group(2)]


def _size(text: str) -> int | None:
    return 0 if text.strip() == "0" else size_pages(text)


def _first(pattern: str, lines: list[str], file: str) -> tuple[str, Where] | None:
    rx = re.compile(pattern, re.IGNORECASE)
    for n, line in enumerate(lines, 1):
        m = rx.search(line)
        if m:
            return m.group(1), Where(file, n, clean(line))
    return None


def read_queries(folder: Path, shown: str, notes: Notes) -> Queries:
    """Read every response file in ``folder`` named by the scheme; report the others.

    Raises ``InputError`` when the folder cannot be listed or a file cannot be read.
    """
    from .notes import InputError

    q = Queries()
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file())
    except OSError as e:
        raise InputError(f"{shown}: cannot read the folder ({e.strerror})") from None
    for p in files:
        file = f"{shown.rstrip('/')}/{p.name}"
        named = command_of(p.name)
        if named is None:
            notes.ignore("query file not named NAME.COMMAND.txt", Where(file))
            continue
        name, command = named
        lines = read_text(p, file, notes).splitlines()
        if command == "QUERY VIRTUAL STORAGE":
            _virtual_storage(q.guests.setdefault(name, GuestFacts()), lines, file, notes)
            continue
        facts = q.members.setdefault(name, MemberFacts())
        if command == "QUERY STORAGE":
            _storage(facts, lines, file, notes)
        elif command == "QUERY XSTORE":
            _xstore(facts, lines, file, notes)
        elif command == "QUERY ALLOC PAGE":
            _alloc_page(facts, lines, file, notes)
        elif command == "INDICATE LOAD":
            _indicate_load(facts, lines, file, notes)
        else:
            _names(facts, lines, file, notes)
    return q


def _storage(f: MemberFacts, lines: list[str], file: str, notes: Notes) -> None:
    hit = _first(r"^\s*STORAGE\s*=\s*(\S+)", lines, file)
    pages = _size(hit[0]) if hit else None
    if hit is None or not pages:
        notes.problem(Where(file, hit[1].line if hit else 0),
                      "no 'STORAGE = size' found (the QUERY STORAGE response)")
        return
    f.central = (pages, hit[1])


def _xstore(f: MemberFacts, lines: list[str], file: str, notes: Notes) -> None:
    hit = _first(r"XSTORE\s*=\s*\S+\s+online\s*=\s*(\S+)", lines, file)
    if hit is not None:
        pages = _size(hit[0])
        if pages is not None:
            f.xstor = (pages, hit[1])
            return
    none = _first(r"(no expanded storage|not configured|not available)", lines, file)
    if none is not None:
        f.xstor = (0, none[1])
        return
    notes.problem(Where(file), "no 'XSTORE= size online= size' found (the QUERY XSTORE "
                  "response)")


def _indicate_load(f: MemberFacts, lines: list[str], file: str, notes: Notes) -> None:
    hit = _first(r"AVGPROC-\s*\d+%\s+(\d+)", lines, file)
    if hit is not None and int(hit[0]) > 0:
        f.cpus = (int(hit[0]), hit[1])
        return
    procs: set[str] = set()
    first: Where | None = None
    for n, line in enumerate(lines, 1):
        found = re.findall(r"\bPROC\s+([0-9A-F]{4})\s*-", line, re.IGNORECASE)
        if found and first is None:
            first = Where(file, n, clean(line))
        procs.update(found)
    if procs and first is not None:
        f.cpus = (len(procs), first)
        return
    notes.problem(Where(file), "no 'AVGPROC-nnn% nn' or 'PROC nnnn-' lines found (the "
                  "INDICATE LOAD response)")


def _alloc_page(f: MemberFacts, lines: list[str], file: str, notes: Notes) -> None:
    vols: dict[str, PageVolume] = {}
    for n, line in enumerate(lines, 1):
        m = _ALLOC.match(line)
        if not m:
            continue
        volid, rdev = m.group(1).upper(), m.group(2).upper()
        slots, used = _count(m.group(5)), _count(m.group(6))
        old = vols.get(volid)
        if old is not None:  # a second PAGE extent on the same volume
            slots, used = slots + old.slots, used + old.in_use
        vols[volid] = PageVolume(volid, rdev, slots, used,
                                 old.where if old else Where(file, n, clean(line)))
    if not vols and not any("no paging space" in x.lower() for x in lines):
        notes.problem(Where(file), "no volume lines found (VOLID RDEV START END TOTAL "
                      "IN-USE HIGH %, the QUERY ALLOC PAGE response)")
        return
    f.volumes = list(vols.values())


def _names(f: MemberFacts, lines: list[str], file: str, notes: Notes) -> None:
    out: list[tuple[str, str | None, Where]] = []
    for n, line in enumerate(lines, 1):
        if line.strip().upper().startswith("HCP"):
            continue
        for entry in line.split(","):
            if not entry.strip():
                continue
            m = _NAMES_ENTRY.match(entry)
            if not m:
                notes.problem(Where(file, n), f"{clean(entry)!r}: not a 'userid - terminal' "
                              "entry of QUERY NAMES")
                continue
            userid = m.group(1)
            if userid.upper() == "VSM":  # a virtual system manager's line, not a user
                continue
            if userid != userid.upper():
                # lower case: logged off, its storage still being released
                continue
            at = m.group(3).upper() if m.group(3) else None
            out.append((userid.upper(), at, Where(file, n, clean(entry))))
    f.names = out


def _virtual_storage(g: GuestFacts, lines: list[str], file: str, notes: Notes) -> None:
    for key, pattern in (("storage", r"^\s*STORAGE\s*=\s*(\S+)"),
                         ("standby", r"STANDBY\s*=\s*(\S+)"),
                         ("reserved", r"RESERVED\s*=\s*(\S+)")):
        hit = _first(pattern, lines, file)
        if hit is None:
            continue
        pages = _size(hit[0])
        if pages is None:
            notes.problem(hit[1], f"{key.upper()} = {hit[0]}: not a size")
            continue
        setattr(g, key, (pages, hit[1]))
    if g.storage is None:
        notes.problem(Where(file), "no 'STORAGE = size' found (the QUERY VIRTUAL STORAGE "
                      "response)")

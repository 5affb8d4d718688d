"""Read a z/VM user directory in source form (``USER DIRECT``): the entries and the few
statements the simulation models (storage, virtual CPUs, share, reserved pages, placement)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .notes import NAME, Notes, Where, clean, read_text, size_pages

ENTRY_KINDS = ("USER", "IDENTITY", "PROFILE", "SUBCONFIG")
# Statements that describe the directory itself, not a virtual machine.
_GLOBAL = ("DIRECTORY", "GLOBALOPTS", "GLOBALDEFS", "POOL")
# The password operand of USER and IDENTITY may be one of these keywords; anything else is a
# password and is never copied into the scenario or printed.
_NOT_PASSWORDS = ("NOLOG", "NOPASS", "AUTOONLY", "LBYONLY")
_MACHINES = ("ESA", "XA", "XC", "Z")
#: columns 73-80 of a directory card: a sequence field (digits, or letters and digits); of a
#: SYSTEM CONFIG record only digits are taken for one
_SEQUENCE = re.compile(r"^\s*[A-Za-z0-9$#@]*\s*$")
_SEQUENCE_DIGITS = re.compile(r"^\s*\d*\s*$")
_HEX = re.compile(r"^[0-9A-F]{1,2}$")


@dataclass
class Entry:
    """One directory entry (USER, IDENTITY, PROFILE or SUBCONFIG) and what it says."""

    kind: str
    name: str
    where: Where
    nolog: bool = False
    #: modelled values, each with the statement it came from: storage, maxstorage, machine,
    #: maxcpus, share, share_absolute, set_reserved, standby, reserved
    values: dict[str, tuple[Any, Where]] = field(default_factory=dict)
    cpus: dict[int, Where] = field(default_factory=dict)
    #: CPUs its ``COMMAND DEFINE CPU`` adds when it logs on, beside the CPU statements' (or
    #: beside CPU 00, which a virtual machine without CPU statements has)
    defined_cpus: dict[int, Where] = field(default_factory=dict)
    includes: list[tuple[str, Where]] = field(default_factory=list)
    builds: list[tuple[str, str, Where]] = field(default_factory=list)


@dataclass
class Directory:
    """The entries of a user directory, in file order."""

    file: str
    guests: list[Entry] = field(default_factory=list)
    profiles: dict[str, Entry] = field(default_factory=dict)
    subconfigs: dict[str, Entry] = field(default_factory=dict)

    def members_named(self) -> list[str]:
        """Members named on BUILD ON statements, in order of first mention."""
        seen: list[str] = []
        for e in self.guests:
            for member, _, _ in e.builds:
                if member not in seen:
                    seen.append(member)
        return seen


def logical_lines(text: str, file: str, notes: Notes,
                  comment_star: bool = True) -> list[tuple[int, str]]:
    """The statements of a card-image file: ``(first line number, text)``.

    A line with ``*`` in column 1 is a comment (``*DVHOPT`` lines, the directory manager's
    options, are counted as ignored). Columns 73-80 holding a sequence field (a number, or
    letters and digits such as ``LNXA0040``) are dropped.
    A statement whose last non-blank character is a comma continues on the next line; the
    comma is dropped and the lines are joined with a blank. In a directory (``comment_star``)
    a statement continues on the very next card: a comment, a blank card or the start of
    another entry there ends it, with a problem noted (it would swallow what follows).
    """
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None

    def cut(n: int, what: str) -> None:
        nonlocal pending
        if pending is not None and comment_star:
            notes.problem(Where(file, pending[0]), f"the statement ends with a comma (continued) "
                          f"but line {n} is {what}: taken as ended there")
            out.append(pending)
            pending = None

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.expandtabs(8)
        if len(line) > 72 and (_SEQUENCE if comment_star else _SEQUENCE_DIGITS).match(line[72:]):
            line = line[:72]
        if comment_star and line.startswith("*"):
            cut(n, "a comment")
            if line[:7].upper() == "*DVHOPT":
                notes.ignore("*DVHOPT", Where(file, n))
            continue
        body = line.strip()
        if not body:
            cut(n, "blank")
            continue
        if pending is not None and comment_star and \
                body.split()[0].upper() in ("USER", "IDENTITY", "PROFILE", "SUBCONFIG"):
            cut(n, f"another entry ({body.split()[0].upper()})")
        if pending is not None:
            start, so_far = pending
            body = f"{so_far} {body}"
        else:
            start = n
        if body.endswith(","):
            pending = (start, body[:-1].rstrip())
            continue
        pending = None
        out.append((start, body))
    if pending is not None:
        out.append(pending)
    return out


def _mask(words: list[str]) -> str:
    """A USER or IDENTITY statement as text, its password replaced by asterisks."""
    shown = list(words)
    if len(shown) > 2 and shown[2].upper() not in _NOT_PASSWORDS:
        shown[2] = "********"
    return " ".join(shown)


def _cpu_addresses(words: list[str]) -> list[int] | None:
    """CPU addresses of ``DEFINE CPU 01 02`` or ``DEFINE CPUS 01-03``; None if malformed."""
    out: list[int] = []
    for w in words:
        lo, _, hi = w.upper().partition("-")
        if not _HEX.match(lo) or (hi and not _HEX.match(hi)):
            return None
        a, b = int(lo, 16), int(hi or lo, 16)
        if b < a or b > 63:
            return None
        out.extend(range(a, b + 1))
    return out or None


class _Reader:
    """Walks the statements of one directory file and fills a ``Directory``."""

    def __init__(self, file: str, notes: Notes) -> None:
        self.d = Directory(file)
        self.notes = notes
        self.entry: Entry | None = None
        self.in_global = False

    def where(self, n: int, text: str) -> Where:
        return Where(self.d.file, n, clean(text))

    def statement(self, n: int, text: str) -> None:
        words = text.split()
        kw = words[0].upper()
        if kw in ("USER", "IDENTITY"):
            self.start_guest(n, kw, words)
            return
        if kw in ("PROFILE", "SUBCONFIG"):
            self.start_named(n, kw, words)
            return
        if kw in _GLOBAL:
            self.notes.ignore(kw, Where(self.d.file, n))
            self.in_global = kw == "GLOBALDEFS" or kw == "POOL"
            if kw == "POOL":
                self.notes.problem(Where(self.d.file, n),
                                   "POOL entries are not imported; define the guests with USER")
                self.entry = None
            return
        at = self.where(n, text)
        if self.entry is not None and self.entry.kind in ("PROFILE", "SUBCONFIG"):
            at = Where(at.file, at.line, f"{at.text} ({self.entry.kind} {self.entry.name})")
        if self.entry is None:
            self.notes.ignore(kw if self.in_global else f"{kw} (outside an entry)",
                              Where(self.d.file, n))
            return
        handler = getattr(self, f"s_{kw}", None)
        if handler is None:
            self.notes.ignore(kw, Where(self.d.file, n))
            return
        handler(self.entry, words[1:], at)

    # -- entries ------------------------------------------------------------------------------
    def start_guest(self, n: int, kw: str, words: list[str]) -> None:
        at = self.where(n, _mask(words))
        self.in_global = False
        self.entry = None
        if len(words) < 3:
            self.notes.problem(at, f"{kw} needs a user ID and a password; entry skipped")
            return
        name = words[1].upper()
        if not NAME.match(name):
            self.notes.problem(at, f"{words[1]!r} is not a user ID ssisim takes (1 to 8 of "
                               "A-Z 0-9 $ # @ _); entry skipped")
            return
        if any(g.name == name for g in self.d.guests):
            self.notes.problem(at, f"{name} is defined again; the first entry is kept")
            return
        e = Entry(kw, name, at, nolog=words[2].upper() == "NOLOG")
        for i, what in ((3, "storage"), (4, "maxstorage")):
            if len(words) > i:
                pages = size_pages(words[i])
                if pages is None:
                    self.notes.problem(at, f"{kw} {name}: {what} {words[i]}: not a size "
                                       "(use e.g. 512M, 4G)")
                else:
                    e.values[what] = (pages, at)
        self.d.guests.append(e)
        self.entry = e

    def start_named(self, n: int, kw: str, words: list[str]) -> None:
        at = self.where(n, " ".join(words))
        self.in_global = False
        self.entry = None
        if len(words) < 2:
            self.notes.problem(at, f"{kw} needs a name; entry skipped")
            return
        e = Entry(kw, words[1].upper(), at)
        table = self.d.profiles if kw == "PROFILE" else self.d.subconfigs
        if e.name in table:
            self.notes.problem(at, f"{kw} {e.name} is defined again; the first is kept")
            return
        table[e.name] = e
        self.entry = e

    # -- statements the simulation models -----------------------------------------------------
    def size(self, e: Entry, what: str, words: list[str], at: Where, key: str) -> None:
        if len(words) < 1:
            self.notes.problem(at, f"{what}: a size is missing (use e.g. 512M, 4G)")
            return
        pages = size_pages(words[0])
        if pages is None:
            self.notes.problem(at, f"{what} {words[0]}: not a size (use e.g. 512M, 4G)")
            return
        e.values[key] = (pages, at)

    def s_STORAGE(self, e: Entry, words: list[str], at: Where) -> None:
        self.size(e, "STORAGE", words, at, "storage")

    def s_MAXSTORAGE(self, e: Entry, words: list[str], at: Where) -> None:
        self.size(e, "MAXSTORAGE", words, at, "maxstorage")

    def s_INCLUDE(self, e: Entry, words: list[str], at: Where) -> None:
        if not words:
            self.notes.problem(at, "INCLUDE needs a profile name")
            return
        e.includes.append((words[0].upper(), at))

    def s_MACHINE(self, e: Entry, words: list[str], at: Where) -> None:
        mode = words[0].upper() if words else ""
        if mode not in _MACHINES:
            self.notes.problem(at, f"MACHINE {mode or '(nothing)'}: not a machine mode "
                               f"({', '.join(_MACHINES)})")
            return
        e.values["machine"] = (mode, at)
        if len(words) > 1:
            if not words[1].isdigit() or not 1 <= int(words[1]) <= 64:
                self.notes.problem(at, f"MACHINE {mode} {words[1]}: the most virtual CPUs must "
                                   "be 1 to 64")
                return
            e.values["maxcpus"] = (int(words[1]), at)

    def s_CPU(self, e: Entry, words: list[str], at: Where) -> None:
        addr = _cpu_addresses(words[:1]) if words else None
        if addr is None:
            shown = f"CPU {words[0]}" if words else "CPU"
            self.notes.problem(at, f"{shown}: not a CPU address (00 to 3F)")
            return
        if addr[0] in e.cpus:
            self.notes.problem(at, f"CPU {addr[0]:02X} is defined twice in {e.name}")
            return
        e.cpus[addr[0]] = at

    def s_SHARE(self, e: Entry, words: list[str], at: Where) -> None:
        scale = words[0].upper() if words else ""
        value = words[1] if len(words) > 1 else ""
        if scale and "RELATIVE".startswith(scale) and len(scale) >= 3:
            ok = value.isdigit() and 1 <= int(value) <= 10000
            if not ok:
                self.notes.problem(at, f"SHARE RELATIVE {value}: must be 1 to 10000")
                return
            e.values["share"] = ((float(value), False), at)
        elif scale and "ABSOLUTE".startswith(scale) and len(scale) >= 3:
            m = re.match(r"^(\d+(?:\.\d+)?)%$", value)
            if not m or not 0.1 <= float(m.group(1)) <= 100:
                self.notes.problem(at, f"SHARE ABSOLUTE {value}: must be 0.1% to 100%")
                return
            e.values["share"] = ((float(m.group(1)), True), at)
        else:
            self.notes.problem(at, f"SHARE {scale}: write SHARE RELATIVE n or SHARE ABSOLUTE n%")
            return
        if len(words) > 2:
            self.notes.say(f"{at}: the maximum share and limit "
                           f"({' '.join(words[2:])}) are not modelled")

    def s_BUILD(self, e: Entry, words: list[str], at: Where) -> None:
        up = [w.upper() for w in words]
        if e.kind != "IDENTITY":
            self.notes.problem(at, "BUILD belongs in an IDENTITY entry")
            return
        if len(up) != 5 or up[0] != "ON" or up[2] != "USING" or up[3] != "SUBCONFIG":
            self.notes.problem(at, "write BUILD ON member USING SUBCONFIG name")
            return
        if not NAME.match(up[1]):
            self.notes.problem(at, f"{words[1]!r} is not a member name")
            return
        e.builds.append((up[1], up[4], at))

    def s_COMMAND(self, e: Entry, words: list[str], at: Where) -> None:
        up = [w.upper() for w in words]
        own = (e.name, "&USERID")
        if len(up) >= 3 and "DEFINE".startswith(up[0]) and len(up[0]) >= 3 \
                and up[1] in ("CPU", "CPUS"):
            addr = _cpu_addresses(up[2:])
            if addr is None:
                self.notes.problem(at, f"COMMAND DEFINE {up[1]} {' '.join(up[2:])}: not CPU "
                                   "addresses (00 to 3F, or a range 01-03)")
                return
            for a in addr:
                e.defined_cpus.setdefault(a, at)
            return
        if len(up) >= 3 and "DEFINE".startswith(up[0]) and len(up[0]) >= 3 \
                and "STORAGE".startswith(up[1]) and len(up[1]) >= 4:
            self.define_storage(e, words[2:], at)
            return
        if len(up) >= 3 and up[0] == "SET" and "RESERVED".startswith(up[1]) and len(up[1]) >= 3:
            rest = up[2:]
            if rest and rest[0] == "USER":
                rest = rest[1:]
            if rest and rest[0] == "SYSMAX":
                self.notes.ignore("COMMAND SET RESERVED SYSMAX", Where(at.file, at.line))
                return
            if len(rest) != 2 or rest[0] not in own:
                self.notes.problem(at, "only SET RESERVED of the entry's own user ID is "
                                   f"imported (SET RESERVED {e.name} amount)")
                return
            amount = rest[1]
            pages = int(amount) if amount.isdigit() else (0 if amount == "OFF"
                                                          else size_pages(amount))
            if pages is None:
                self.notes.problem(at, f"SET RESERVED {amount}: not a page count or a size "
                                   "(e.g. 262144 or 1G)")
                return
            e.values["set_reserved"] = (pages, at)
            return
        self.notes.ignore(" ".join(["COMMAND", *up[:2]]), Where(at.file, at.line))

    def define_storage(self, e: Entry, words: list[str], at: Where) -> None:
        up = [w.upper() for w in words]
        pages = size_pages(up[0])
        if pages is None:
            self.notes.problem(at, f"DEFINE STORAGE {words[0]}: not a size (use e.g. 512M, 4G)")
            return
        e.values["storage"] = (pages, at)
        i = 1
        while i + 1 < len(up):
            key = {"STANDBY": "standby", "RESERVED": "reserved"}.get(up[i])
            more = size_pages(up[i + 1])
            if key is None or more is None:
                self.notes.problem(at, f"DEFINE STORAGE ... {up[i]} {up[i + 1]}: only STANDBY "
                                   "size and RESERVED size are understood")
                return
            e.values[key] = (more, at)
            i += 2


def read_directory(path: Path, shown: str, notes: Notes) -> Directory:
    """Read a user directory source file.

    Raises ``InputError`` when the file cannot be read; every statement that cannot be used is
    reported in ``notes`` and skipped.
    """
    r = _Reader(shown, notes)
    for n, text in logical_lines(read_text(path, shown, notes), shown, notes):
        r.statement(n, text)
    return r.d


@dataclass
class Guest:
    """A guest as the directory defines it once its profile (and subconfiguration) apply."""

    userid: str
    kind: str
    where: Where
    storage: tuple[int, Where] | None
    vcpus: int
    vcpus_where: Where | None
    values: dict[str, tuple[Any, Where]]
    builds: list[tuple[str, str, Where]]
    nolog: bool


def resolve(d: Directory, e: Entry, notes: Notes, member: str | None = None) -> Guest:
    """The guest ``e`` defines: its PROFILE's statements first, its own over them, then the
    SUBCONFIG that ``BUILD ON member`` names (for an IDENTITY placed on ``member``)."""
    values: dict[str, tuple[Any, Where]] = {}
    cpus: dict[int, Where] = {}
    defined: dict[int, Where] = {}
    layers: list[Entry] = []
    for name, at in e.includes:
        prof = d.profiles.get(name)
        if prof is None:
            notes.problem(at, f"INCLUDE {name}: no PROFILE {name} in {d.file}")
        else:
            layers.append(prof)
    layers.append(e)
    if member is not None:
        for m, sub, at in e.builds:
            if m == member:
                s = d.subconfigs.get(sub)
                if s is None:
                    notes.problem(at, f"BUILD ON {m} USING SUBCONFIG {sub}: no SUBCONFIG {sub}")
                else:
                    layers.append(s)
    for layer in layers:
        values.update(layer.values)
        cpus.update(layer.cpus)
        defined.update(layer.defined_cpus)
    if defined:
        # the CPUs it logs on with (CPU 00 without CPU statements), and those it defines then
        cpus = {**(cpus or {0: min(defined.values(), key=lambda w: w.line)}), **{
            a: w for a, w in defined.items() if a not in cpus}}
    n = len(cpus) or 1
    where = None
    if cpus:
        lines = sorted({w.line for w in cpus.values()})
        first = min(cpus.values(), key=lambda w: w.line)
        where = Where(first.file, first.line,
                      f"CPU {' '.join(f'{a:02X}' for a in sorted(cpus))} "
                      f"(lines {', '.join(map(str, lines))})")
    most = values.get("maxcpus")
    if most is not None and n > most[0]:
        notes.problem(most[1], f"{e.name} defines {n} "
                      f"CPUs but MACHINE allows {most[0]}; {most[0]} imported")
        n = most[0]
    if n > 64:
        notes.problem(where or e.where, f"{e.name} defines {n} CPUs; ssisim models at most 64")
        n = 64
    return Guest(e.name, e.kind, e.where, values.get("storage"), n, where, values, e.builds,
                 e.nolog)

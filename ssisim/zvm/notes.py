"""What an import noticed: problems with file and line, assumptions, statements it ignored."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# The characters of a user ID or member name, as the scenario format takes them.
NAME = re.compile(r"^[A-Z0-9$#@_]{1,8}$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTPE])$", re.IGNORECASE)
_FACTOR_MB = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3,
              "E": 1024.0**4}
PAGES_PER_MB = 256
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class InputError(Exception):
    """An input that cannot be used at all (unreadable, or nothing to import): exit 1."""


@dataclass(frozen=True)
class Where:
    """A place in the planner's input: file name as shown, line (0: the whole file) and the
    statement's text (passwords already masked)."""

    file: str
    line: int = 0
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def cite(self) -> str:
        """``file:line text``, for a comment in the scenario written."""
        return f"{self}{' ' + self.text if self.text else ''}"


@dataclass
class Notes:
    """Everything an import has to tell the planner, in the order it was noticed."""

    problems: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)
    ignored_first: dict[str, str] = field(default_factory=dict)

    def problem(self, where: Where | str, message: str) -> None:
        """A statement that could not be used; it was skipped."""
        self.problems.append(f"{where}: {message}")

    def assume(self, message: str) -> None:
        """A value the input did not give; the import chose it."""
        self.assumed.append(message)

    def say(self, message: str) -> None:
        """Something worth knowing that is neither a problem nor an assumption."""
        self.info.append(message)

    def ignore(self, what: str, where: Where | str) -> None:
        """A statement of a kind the simulation does not model: counted by kind."""
        self.ignored[what] += 1
        self.ignored_first.setdefault(what, str(where))

    def ignored_lines(self) -> list[str]:
        """One line per kind of ignored statement: kind, count and where it first occurs."""
        return [f"{what}: {n} (first at {self.ignored_first[what]})"
                for what, n in sorted(self.ignored.items(), key=lambda kv: (-kv[1], kv[0]))]


def clean(text: str) -> str:
    """A line of input made safe for a TOML comment and a terminal: no control characters."""
    return _CONTROL.sub("?", text).strip()


def size_pages(text: str) -> int | None:
    """A z/VM storage size (``512M``, ``4G``, ``1.5T``, ``2048K``) in 4 KiB pages, rounded up;
    None when the text is not one. The unit letter is required, as in directory statements."""
    m = _SIZE.match(text.strip())
    if not m:
        return None
    mb = float(m.group(1)) * _FACTOR_MB[m.group(2).upper()]
    pages = mb * PAGES_PER_MB
    return int(pages) if pages == int(pages) else int(pages) + 1


def read_text(path: Path, shown: str, notes: Notes) -> str:
    """A planner's file as text: UTF-8, or Latin-1 (with a note) when it is not UTF-8.

    Raises ``InputError`` when the file cannot be read.
    """
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{shown}: is a folder, not a file") from None
    except OSError as e:
        raise InputError(f"{shown}: cannot read the file ({e.strerror})") from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        notes.say(f"{shown}: not UTF-8; read as Latin-1")
        return raw.decode("latin-1")

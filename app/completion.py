"""Console helpers with no Qt: command history and completion of the word at the cursor.

Completion offers the verbs (``ssisim.engine.VERBS``) for the first word, then user IDs, member
names and the keywords of the command being typed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

#: Keywords worth completing after each verb (the full spelling; CP accepts abbreviations).
KEYWORDS: dict[str, tuple[str, ...]] = {
    "VMRELOCATE": ("MOVE", "TEST", "STATUS", "CANCEL", "USER", "TO", "SYNC", "ASYNC",
                   "IMMEDIATE", "MAXQUIESCE", "MAXTOTAL", "NOLIMIT", "FORCE", "STORAGE"),
    "QUERY": ("ALLOC", "PAGE", "NAMES", "SSI", "STORAGE", "XSTORE", "WORKLOAD"),
    "INDICATE": ("LOAD", "USER"),
    "SET": ("RESERVED", "SHARE", "RELATIVE", "ABSOLUTE", "OFF"),
    "AT": ("CMD",),
    "SEND": ("CP",),
    "XAUTOLOG": ("AT",),
    "LINUX": ("SUSPEND", "HIBERNATE", "RESUME"),
    "STOP": ("CPU", "ALL"),
    "LOGON": ("AT",),
}


@dataclass(frozen=True)
class Completion:
    """Candidates for the word ``text[start:end]`` (upper case, sorted)."""

    start: int
    end: int
    candidates: tuple[str, ...]

    def common_prefix(self) -> str:
        """The longest prefix all candidates share."""
        return os.path.commonprefix(list(self.candidates)) if self.candidates else ""


def _full_verb(word: str, verbs: Iterable[tuple[str, int]]) -> str | None:
    w = word.upper()
    for verb, minimum in verbs:
        if len(w) >= minimum and verb.startswith(w):
            return verb
    return None


def complete(text: str, cursor: int, verbs: Iterable[tuple[str, int]], userids: Iterable[str],
             members: Iterable[str], extra: Iterable[str] = ()) -> Completion:
    """What the word ending at ``cursor`` may become.

    Parameters
    ----------
    text, cursor : str, int
        The command line and the cursor position in it.
    verbs : iterable of (verb, minimum abbreviation length)
        ``ssisim.engine.VERBS``.
    userids, members : iterable of str
        The guests and members of the running scenario.
    extra : iterable of str
        Further words to offer after the first (workload types, for instance).
    """
    verbs = list(verbs)
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    prefix = text[start:cursor].upper()
    before = text[:start].split()
    if not before:
        pool: set[str] = {v for v, _ in verbs}
    else:
        pool = {u.upper() for u in userids} | {m.upper() for m in members}
        # the keywords of every verb on the line (AT m CMD Q ... completes QUERY's keywords)
        for word in before:
            verb = _full_verb(word, verbs)
            if verb is not None:
                pool |= set(KEYWORDS.get(verb, ()))
        pool |= {e.upper() for e in extra}
        words = [w.upper() for w in before]
        if words[-1] == "CMD" or words[-3:-1] == ["SEND", "CP"]:
            pool |= {v for v, _ in verbs}  # a command inside AT ... CMD or SEND CP userid
    cands = tuple(sorted(w for w in pool if w.startswith(prefix)))
    end = cursor
    while end < len(text) and not text[end].isspace():
        end += 1
    return Completion(start, end, cands)


class CommandHistory:
    """Commands typed before, walked with up and down like a shell's history.

    Parameters
    ----------
    limit : int
        How many commands to keep.
    """

    def __init__(self, items: Iterable[str] = (), limit: int = 200) -> None:
        self.limit = limit
        self.items: list[str] = [i for i in items if i][-limit:]
        self._pos = len(self.items)
        self._draft = ""

    def add(self, command: str) -> None:
        """Remember a command that was issued (repeats of the last one are kept once)."""
        command = command.strip()
        if command and (not self.items or self.items[-1] != command):
            self.items.append(command)
            del self.items[: -self.limit]
        self._pos = len(self.items)
        self._draft = ""

    def previous(self, current: str) -> str:
        """The command before the one shown (``current`` is kept as a draft at the end)."""
        if self._pos == len(self.items):
            self._draft = current
        if self._pos > 0:
            self._pos -= 1
        return self.items[self._pos] if self.items else current

    def next(self, current: str) -> str:
        """The command after the one shown, and finally the draft being typed."""
        if self._pos < len(self.items):
            self._pos += 1
        if self._pos == len(self.items):
            return self._draft
        return self.items[self._pos]

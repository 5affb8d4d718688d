"""The CP command language: tokens, minimum abbreviations and CP-style error messages.

One parser serves scenarios, the console, GUI gestures and recorded sessions. A command that
cannot be parsed raises ``CPError`` carrying CP's message; nothing is changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class CPError(Exception):
    """A command CP refuses. ``msgid`` and ``text`` form the message CP would print."""

    def __init__(self, msgid: str, text: str, rc: int = 1) -> None:
        super().__init__(f"{msgid} {text}")
        self.msgid = msgid
        self.text = text
        self.rc = rc

    @property
    def line(self) -> str:
        """The message as CP prints it."""
        return f"{self.msgid} {self.text}"


def abbrev(token: str, word: str, minimum: int) -> bool:
    """True when ``token`` is ``word`` shortened to no fewer than ``minimum`` letters.

    >>> abbrev("Q", "QUERY", 1), abbrev("IND", "INDICATE", 3), abbrev("IN", "INDICATE", 3)
    (True, True, False)
    """
    t = token.upper()
    return minimum <= len(t) <= len(word) and word.startswith(t)


@dataclass
class Tokens:
    """The words of a command, consumed left to right."""

    words: list[str]
    pos: int = 0
    verb: str = ""

    @classmethod
    def of(cls, text: str) -> Tokens:
        """Split command text into words (CP is case-insensitive; values keep their case)."""
        return cls(text.split())

    def peek(self) -> str | None:
        """The next word, or None at the end."""
        return self.words[self.pos] if self.pos < len(self.words) else None

    def take(self, what: str = "operand") -> str:
        """The next word; a missing one is CP's 'operand missing' error."""
        w = self.peek()
        if w is None:
            raise CPError(f"HCP{self.verb[:3]}026E", f"Operand missing or invalid ({what})")
        self.pos += 1
        return w

    def accept(self, word: str, minimum: int) -> bool:
        """Consume the next word if it abbreviates ``word``."""
        w = self.peek()
        if w is not None and abbrev(w, word, minimum):
            self.pos += 1
            return True
        return False

    def rest(self) -> list[str]:
        """All remaining words."""
        r = self.words[self.pos:]
        self.pos = len(self.words)
        return r

    def end(self) -> None:
        """No more words may follow."""
        w = self.peek()
        if w is not None:
            raise CPError(f"HCP{self.verb[:3]}003E", f"Invalid option - {shown(w.upper())}")

    def invalid(self, word: str | None = None) -> CPError:
        """CP's error for an operand it does not know."""
        w = word if word is not None else (self.peek() or "")
        if not w:
            return CPError(f"HCP{self.verb[:3]}026E", "Operand missing or invalid")
        return CPError(f"HCP{self.verb[:3]}003E", f"Invalid option - {shown(w.upper())}")


def parse_number(text: str, what: str, verb: str, lo: float = 0.0,
                 hi: float = math.inf) -> float:
    """A finite number operand from ``lo`` to ``hi``, or CP's 'invalid operand' error naming it.

    Only ASCII decimal notation is a number here (``1.5``, ``2e3``): ``inf``, ``nan``,
    ``1e400`` and digits of other scripts are refused, as are values out of the range.
    """
    try:
        v = float(text) if text.isascii() else math.nan
    except ValueError:
        v = math.nan
    if not math.isfinite(v) or not lo <= v <= hi:
        raise CPError(f"HCP{verb[:3]}009E", f"An invalid operand was supplied for {what} - "
                      f"{shown(text)}" + (f" ({number_text(lo)} to {number_text(hi)})"
                                             if hi < math.inf else ""))
    return v


def number_text(x: float) -> str:
    """A limit as people read it: ``99,999,999``, ``0.5``."""
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def shown(text: str, limit: int = 40) -> str:
    """Text from a user, shortened and with control characters escaped, for a message."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return out if len(out) <= limit else out[: limit - 3] + "..."

"""The CP command language's smallest parts: minimum abbreviations, number operands and
CP-style error messages (the grammar of each verb is in ``cp.grammar``)."""

from __future__ import annotations

import math


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

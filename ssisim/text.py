"""Text from files and databases, made safe to show: on a terminal, and in a spreadsheet.

Scenario names, student names and typed commands are other people's text: an ESC sequence must
not clear the user's screen, and ``=HYPERLINK(...)`` must not become a formula.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: Characters a terminal would act on instead of showing: C0 controls, DEL, C1 controls, and the
#: bidirectional overrides and isolates that reorder what a reader sees.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEP_NL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                             "\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def terminal_text(text: object, keep_newlines: bool = False) -> str:
    """``text`` with every control character written as a visible escape (``\\x1b``, ``\\n``).

    For whatever the CLI prints that came from a file or a database (scenario names, student
    names, commands, messages that quote them): an ESC sequence in a scenario name must not
    clear the user's screen or set the window title. ``keep_newlines`` keeps line breaks, for
    multi-line blocks such as the run summary.
    """
    return (_UNSAFE_KEEP_NL if keep_newlines else _UNSAFE).sub(_escape, str(text))


#: A cell a spreadsheet would read as a formula (or as something that turns into one).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as the text it is.

    Strings that start with ``= + - @`` (or a tab or carriage return) get a leading ``'`` so
    that ``=HYPERLINK(...)`` in a student's name is not a formula (plain numbers such as ``-5``
    stay numbers); control characters other than line breaks are written as escapes. Values
    that are not strings are returned as they are.
    """
    if not isinstance(value, str):
        return value
    if value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        value = "'" + value
    return _UNSAFE_KEEP_NL.sub(lambda m: "\t" if m.group() == "\t" else _escape(m), value)


def csv_row(row: Iterable[Any]) -> list[Any]:
    """``csv_cell`` of every value of a row (``None`` as an empty cell)."""
    return ["" if v is None else csv_cell(v) for v in row]

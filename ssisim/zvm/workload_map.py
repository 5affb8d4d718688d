"""Read the planner's map from user ID patterns to workloads (a small TOML file)::

    [workloads]
    "LNXDB*"  = "database"
    "LNXWAS*" = { type = "appserver", wss_mb = 2048 }

Patterns match user IDs without regard to case; ``*`` stands for any characters, ``?`` and
``%`` for one. The first pattern in the file that matches a guest decides its workload;
a guest that no pattern matches runs ``idle``.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssisim.engine import WORKLOAD_TYPES, workload_names

from .notes import InputError, Notes, Where, read_text

_PATTERN = re.compile(r"^[A-Z0-9$#@_*?%]{1,8}$")


@dataclass
class Rule:
    """One line of the map: a pattern and the workload of the guests it matches."""

    pattern: str
    kind: str
    params: dict[str, float]
    where: Where
    regex: re.Pattern[str] = field(init=False, repr=False)
    used: int = 0

    def __post_init__(self) -> None:
        rx = "".join(".*" if c == "*" else "." if c in "?%" else re.escape(c)
                     for c in self.pattern)
        self.regex = re.compile(f"^{rx}$")

    def matches(self, userid: str) -> bool:
        """Whether the pattern matches this user ID (upper case)."""
        return self.regex.match(userid) is not None


def _line_of(lines: list[str], key: str) -> int:
    for n, line in enumerate(lines, 1):
        if f'"{key}"' in line or f"'{key}'" in line or line.strip().startswith(key):
            return n
    return 0


def read_workload_map(path: Path, shown: str, notes: Notes) -> list[Rule]:
    """The rules of a workload map, in file order; bad entries are reported and skipped.

    Raises ``InputError`` when the file cannot be read or is not TOML.
    """
    text = read_text(path, shown, notes)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{shown}: not valid TOML: {e}") from None
    lines = text.splitlines()
    for key in doc:
        if key != "workloads":
            notes.ignore(f"workload map key {key!r}", Where(shown, _line_of(lines, key)))
    table = doc.get("workloads")
    if not isinstance(table, dict):
        notes.problem(Where(shown), "no [workloads] table; every guest runs idle")
        return []
    names = workload_names()
    rules: list[Rule] = []
    for pattern, value in table.items():
        at = Where(shown, _line_of(lines, pattern), "")
        rule = _rule(pattern, value, at, names, notes)
        if rule is not None:
            rules.append(rule)
    return rules


def _rule(pattern: str, value: Any, at: Where, names: list[str], notes: Notes) -> Rule | None:
    pat = pattern.upper()
    if not _PATTERN.match(pat):
        notes.problem(at, f"{pattern!r}: not a user ID pattern (1 to 8 of A-Z 0-9 $ # @ _, "
                      "with * ? %); skipped")
        return None
    if isinstance(value, str):
        kind, given = value, {}
    elif isinstance(value, dict) and isinstance(value.get("type"), str):
        kind = value["type"]
        given = {k: v for k, v in value.items() if k != "type"}
    else:
        notes.problem(at, f"{pattern}: give a workload type (\"database\") or a table "
                      "{ type = \"database\", ... }; skipped")
        return None
    kind = kind.lower()
    if kind not in names:
        notes.problem(at, f"{pattern}: unknown workload type {kind!r}; valid: "
                      f"{', '.join(names)}; skipped")
        return None
    spec = WORKLOAD_TYPES[kind]["params"]
    params: dict[str, float] = {}
    for key, v in given.items():
        k = key.lower()
        if k not in spec:
            notes.problem(at, f"{pattern}: {kind} has no parameter {key!r}; valid: "
                          f"{', '.join(spec) or 'none'}; skipped")
            return None
        num = float(v) if isinstance(v, (int, float)) else math.nan
        lo, hi = float(spec[k].lo), float(spec[k].hi)
        if not math.isfinite(num) or not lo <= num <= hi:
            notes.problem(at, f"{pattern}: {kind} parameter {k}={v!r} is out of range "
                          f"{lo:g} to {hi:g}; skipped")
            return None
        params[k] = int(num) if num == int(num) else num
    return Rule(pat, kind, params, Where(at.file, at.line, f"{pattern} = {kind}"))


def workload_for(rules: list[Rule], userid: str) -> Rule | None:
    """The first rule whose pattern matches ``userid``, or None (the guest runs idle)."""
    for r in rules:
        if r.matches(userid):
            r.used += 1
            return r
    return None

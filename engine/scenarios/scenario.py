"""Scenario files: versioned TOML describing a cluster, its guests and a timeline of commands.

``load_scenario`` returns a ``ScenarioConfig`` or raises ``ScenarioError`` naming the file, the
line and the field, and what would be valid. One loader per format version.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..basics.config import (
    DEVICE_KINDS,
    MAX_LINK_CTCS,
    ChpidConfig,
    DatastoreConfig,
    DiskConfig,
    GuestConfig,
    HintConfig,
    LessonConfig,
    LinkConfig,
    MemberConfig,
    ObjectiveConfig,
    ScenarioConfig,
    TimelineEntry,
    VolumeConfig,
    WorkloadSpec,
)
from ..basics.cp import CPError, shown
from ..basics.limits import (
    MAX_DEPTH,
    MAX_DURATION_S,
    MAX_FILE_BYTES,
    MAX_GUESTS,
    MAX_QUIET_STEP_S,
    MAX_SEED,
    MAX_STEP_S,
    MAX_TIMELINE,
    MIN_STEP_S,
    steps_problem,
)
from ..basics.units import (
    MAX_PAGES,
    MAX_SIZE_TEXT,
    PAGES_PER_MB,
    SizeError,
    format_size,
    pages_or_size,
    size_to_pages,
)
from ..basics.workloads import WorkloadError, resolve_params
from ..cp.grammar import VERBS, VmrelocateMove, known_verb, parse_command
from ..lessons.objectives import GUEST_STATES, KINDS, METHODS, default_text
from ..migrations.models import problem as model_problem

FORMAT = "ssisim-scenario"
CURRENT_VERSION = 1
_NAME = re.compile(r"^[A-Z0-9$#@_]{1,8}$")


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names file, line and field."""

    def __init__(self, path: str, line: int | None, field: str, message: str) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")
        self.path = path
        self.line = line
        self.field = field


def _show(v: Any, limit: int = 60) -> str:
    """A value from the file for a message: repr'd (control characters escaped), shortened."""
    if isinstance(v, (dict, list)):
        text = "a table" if isinstance(v, dict) else f"a list of {len(v)}"
        return text
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 4] + "...'"


def _few(names: list[str], limit: int = 12) -> str:
    """Names for a message: all of a few, or the first ones and how many more."""
    if not names:
        return "(none)"
    more = f" and {len(names) - limit:,} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _between(lo: float, hi: float, unit: str = "") -> Callable[[float], str | None]:
    """A check that a number lies from ``lo`` to ``hi`` (both included)."""
    u = f" {unit}" if unit else ""
    return lambda v: None if lo <= v <= hi else f"must be {lo:g} to {hi:g}{u}, not {v:g}"


def _at_least(lo: float, hi: float, unit: str = "") -> Callable[[float], str | None]:
    """A check that a number is more than ``lo`` and at most ``hi``."""
    u = f" {unit}" if unit else ""
    return lambda v: None if lo < v <= hi else \
        f"must be greater than {lo:g} and at most {hi:g}{u}, not {v:g}"


# What the nesting scan looks at: strings and comments (skipped whole), brackets and line ends.
_SCAN = re.compile("|".join([
    r'"""(?:[^\\]|\\.)*?"""',  # a multi-line basic string
    r"'''[\s\S]*?'''",  # a multi-line literal string
    r'"(?:[^"\\\n]|\\.)*"',  # a basic string
    r"'[^'\n]*'",  # a literal string
    r"#[^\n]*",  # a comment
    r"[\[\]{}]",
    r"\n",
]))
# a table header or a dotted key, with its dotted name
_DOTTED = re.compile(r"^[ \t]*(?:\[\[?([^\]\n]*)\]|([A-Za-z0-9_\-. \t\"']*?)=)", re.MULTILINE)


def _shape_problem(text: str) -> tuple[int | None, str] | None:
    """A file too large or nested too deeply for the TOML reader, found before it runs.

    Python's TOML reader is quadratic in the parts of a dotted key and recursive in nested
    arrays and inline tables, so a small hostile file could stall or crash it. Returns the line
    and the problem, or None.
    """
    if len(text) > MAX_FILE_BYTES:
        return None, (f"is {len(text):,} characters long; scenario and session files may have at "
                      f"most {MAX_FILE_BYTES:,}")
    for m in _DOTTED.finditer(text):
        name = m.group(1) if m.group(1) is not None else m.group(2)
        if name.count(".") >= MAX_DEPTH:
            no = text.count("\n", 0, m.start()) + 1
            return no, f"a key of more than {MAX_DEPTH} dotted parts is nested too deeply"
    depth = 0
    no = 1
    for m in _SCAN.finditer(text):
        c = m.group()
        if c == "\n":
            no += 1
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return no, (f"is nested too deeply: more than {MAX_DEPTH} levels of lists or "
                            "inline tables")
        elif c in "]}":
            depth = max(0, depth - 1)
        else:
            no += c.count("\n")
    return None


class _Lines:
    """Maps a field path such as ``("guest", 2, "storage")`` to its line in the TOML text."""

    _HDR_ARRAY = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.\-]+)\s*\]\]")
    _HDR = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")

    def __init__(self, text: str) -> None:
        self.where: dict[tuple[Any, ...], int] = {}
        counters: dict[tuple[Any, ...], int] = {}
        current: tuple[Any, ...] = ()
        for no, line in enumerate(text.splitlines(), 1):
            m = self._HDR_ARRAY.match(line)
            if m:
                current = self._path(m.group(1), current, counters, array=True)
                self.where.setdefault(current, no)
                self.where.setdefault(current[:-1], no)  # the array itself, where it starts
                continue
            m = self._HDR.match(line)
            if m:
                current = self._path(m.group(1), current, counters, array=False)
                self.where.setdefault(current, no)
                continue
            m = self._KEY.match(line)
            if m:
                self.where.setdefault(current + (m.group(1),), no)

    @staticmethod
    def _path(dotted: str, current: tuple[Any, ...], counters: dict[tuple[Any, ...], int],
              array: bool) -> tuple[Any, ...]:
        parts = dotted.split(".")
        path: tuple[Any, ...] = ()
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            path = path + (part,)
            if last and array:
                idx = counters.get(path, -1) + 1
                counters[path] = idx
                # a new parent element restarts the numbering of its children
                for k in list(counters):
                    if len(k) > len(path) and k[: len(path)] == path:
                        del counters[k]
                path = path + (idx,)
            elif not last and path in counters:
                path = path + (counters[path],)
        return path

    def line(self, path: tuple[Any, ...]) -> int | None:
        """Line of ``path`` or of its nearest enclosing table."""
        p = path
        while p:
            if p in self.where:
                return self.where[p]
            p = p[:-1]
        return None


class _Reader:
    """Reads one table, checking keys and types, and turns mistakes into ScenarioErrors."""

    def __init__(self, ctx: _Context, table: Any, path: tuple[Any, ...], label: str):
        self.ctx = ctx
        self.table = table
        self.path = path
        self.label = label
        self.used: set[str] = set()
        if not isinstance(table, dict):
            hdr = ".".join(str(p) for p in path if isinstance(p, str))
            raise ScenarioError(ctx.path, ctx.lines.line(path), label,
                                f"must be a table ([[{hdr}]] or {{ key = value }}), "
                                f"not {_show(table)}")

    def fail(self, key: str | None, message: str) -> ScenarioError:
        """An error for ``key`` of this table (or the table itself)."""
        p = self.path + ((key,) if key else ())
        field = f"{self.label}.{key}" if key else self.label
        return ScenarioError(self.ctx.path, self.ctx.lines.line(p), field, message)

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ..., *,
            check: Callable[[Any], str | None] | None = None) -> Any:
        """A value of the given type; ``...`` as default makes the key required."""
        self.used.add(key)
        if key not in self.table:
            if default is ...:
                typo = difflib.get_close_matches(key, [k for k in self.table if k not in self.used],
                                                 n=1)
                if typo:
                    raise self.fail(typo[0], f"unknown field; did you mean {key!r} "
                                    f"(which is required)?")
                raise self.fail(key, "is required")
            return default
        v = self.table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if float in kinds and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if isinstance(v, bool) and bool not in kinds:
            raise self.fail(key, f"must be {self._kind_name(kinds)}, not {_show(v)}")
        if not isinstance(v, kinds):
            raise self.fail(key, f"must be {self._kind_name(kinds)}, not {_show(v)}")
        if isinstance(v, float) and not math.isfinite(v):
            raise self.fail(key, f"must be a finite number, not {v!r}")
        if check is not None:
            problem = check(v)
            if problem:
                raise self.fail(key, problem)
        return v

    def size(self, key: str, default: Any = ...) -> int:
        """A CP-style storage size, in pages."""
        v = self.get(key, (str, int, float), default)
        try:
            return size_to_pages(v)
        except SizeError as e:
            raise self.fail(key, str(e)) from None

    def done(self, allowed_extra: tuple[str, ...] = ()) -> None:
        """Refuse keys nobody asked for (a typo must not pass silently)."""
        extra = [k for k in self.table if k not in self.used and k not in allowed_extra]
        if extra:
            valid = ", ".join(sorted(self.used | set(allowed_extra)))
            raise self.fail(extra[0], f"unknown field; valid fields here: {valid}")

    @staticmethod
    def _kind_name(kinds: tuple[type, ...]) -> str:
        names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
                 list: "a list", dict: "a table"}
        return " or ".join(names.get(k, k.__name__) for k in kinds)


class _Context:
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = _Lines(text)


def _name_check(v: str) -> str | None:
    return None if _NAME.match(v.upper()) else "must be 1 to 8 letters, digits or $#@_"


#: A member whose guests define this many times its central storage, or more, is almost surely
#: a size typed without its unit (a number alone is MB): the heaviest overcommit of the
#: published cases is an I/R ratio of 1.3, and shops rarely go past a few.
IMPLAUSIBLE_OVERCOMMIT = 1000


def scenario_warnings(sc: ScenarioConfig) -> list[str]:
    """What in a valid scenario is very likely a mistake, one line each (``ssisim check`` and
    ``ssisim run`` show them; the scenario runs as written)."""
    out = []
    for m in sc.members:
        defined = sum(g.storage_pages for g in sc.guests if g.member.upper() == m.name.upper())
        if defined < IMPLAUSIBLE_OVERCOMMIT * m.central_pages:
            continue
        mb = m.central_pages / PAGES_PER_MB
        hint = f' (a size without a unit is MB: "{mb:g}G" or "{mb:g}T"?)' \
            if mb == int(mb) and mb < 1024 else ""
        out.append(
            f"{sc.path}: member {m.name}: central = {format_size(m.central_pages)} for the "
            f"{format_size(defined)} its guests define ({defined / m.central_pages:,.0f} times "
            f"as much): nearly every reference will page, and each simulated second may take "
            f"many seconds{hint}")
    return out


def load_scenario(path: str | Path) -> ScenarioConfig:
    """Read and check a scenario file.

    Raises
    ------
    ScenarioError
        When the file is missing, is not TOML, has an unknown version, or any field is wrong.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScenarioError(str(p), None, "", f"cannot read the file ({e.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(str(p), None, "", "is not UTF-8 text") from None
    return loads_scenario(text, str(p), hashlib.sha256(raw).hexdigest())


def parse_toml(text: str, path: str, what: str = "",
               hint: Callable[[str, str], str] | None = None) -> dict[str, Any]:
    """TOML text as a table, or a ``ScenarioError`` naming the file and line.

    A leading byte-order mark (as some Windows editors write) is skipped; files too large or
    nested too deeply (``basics.limits``) are refused before the TOML reader sees them. ``what``
    starts every message (``"not a valid session file: "``); ``hint(text, error)`` may add
    advice to the TOML reader's error.
    """
    text = text.removeprefix("\ufeff")
    shape = _shape_problem(text)
    if shape is not None:
        raise ScenarioError(path, shape[0], "", what + shape[1])
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        extra = hint(text, msg) if hint is not None else ""
        raise ScenarioError(path, line, "", f"{what or 'not valid TOML: '}{msg}{extra}") from None
    except RecursionError:
        raise ScenarioError(path, None, "", f"{what}is nested too deeply to read") from None


#: Characters written as escapes in a TOML basic string: the quote, the backslash, the control
#: characters TOML forbids raw (C0 but tab, DEL), C1, the bidi controls and line separators
#: that would make the file read differently than it is, and lone surrogates (no UTF-8).
_TOML_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029'
                          '\u202a-\u202e\u2066-\u2069\ud800-\udfff]')
_TOML_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
               "\f": "\\f", "\r": "\\r"}


def _toml_escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _TOML_SHORT:
        return _TOML_SHORT[c]
    if 0xD800 <= ord(c) <= 0xDFFF:  # half a surrogate pair: no character TOML can hold
        return "\\uFFFD"
    return f"\\u{ord(c):04X}"


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (``"..."``) that reads back as the same text.

    Other characters, emoji included, stay as they are: the file is UTF-8. (``json.dumps``
    is not TOML: it writes an emoji as the surrogate pair ``\\ud83d\\ude00``, which TOML
    refuses, so the file could not be loaded again.) A lone surrogate, which no UTF-8 file
    can hold, becomes U+FFFD.
    """
    return f'"{_TOML_ESCAPE.sub(_toml_escape, text)}"'


def toml_block(text: str) -> str:
    """``text`` as a TOML string that keeps its lines: a multi-line literal string when the text
    allows one (no three single quotes, no character ``toml_string`` would escape but quotes,
    backslashes, tabs and newlines), else a basic string with escapes (``toml_string``)."""
    plain = text.replace("\n", "").replace("\t", "").replace('"', "").replace("\\", "")
    if "'''" not in text and not _TOML_ESCAPE.search(plain):
        return "'''\n" + text + "'''"
    return toml_string(text)


#: A session file (``scenarios.session``): the commands a person issued in a scenario or lesson
SESSION_FORMAT = "ssisim-session"


def _session_as_scenario(doc: dict[str, Any], path: str) -> str:
    """The scenario text of a session that holds its scenario: the scenario with the session's
    commands added to its timeline (a command CP could not read is kept as a note)."""
    text = doc.get("scenario")
    if not isinstance(text, str):
        lesson = doc.get("lesson")
        raise ScenarioError(path, None, "scenario",
                            f"is a session of {lesson!r} and holds no scenario of its own: run "
                            f"that scenario or lesson with it (ssisim run {lesson} --session "
                            f"{path})")
    if re.search(r"(?m)^\s*format\s*=\s*[\"']ssisim-session", text):
        raise ScenarioError(path, None, "scenario", "holds a session, not a scenario: a "
                            "session's scenario is the scenario it was recorded in")
    out = [text.rstrip("\n"), "", f"# The commands of the session {path}.", ""]
    for i, c in enumerate(doc.get("command", [])):
        if not isinstance(c, dict) or not isinstance(c.get("command"), str) \
                or not isinstance(c.get("at_s"), int | float) or isinstance(c.get("at_s"), bool):
            raise ScenarioError(path, None, f"command[{i}]", "needs at_s and command")
        try:
            parse_command(c["command"])
        except CPError as e:
            out += [f"# at {c['at_s']!r} s, not replayed ({e.msgid}): {toml_string(c['command'])}",
                    ""]
            continue
        out += ["[[timeline]]", f"at_s = {c['at_s']!r}", f"command = {toml_string(c['command'])}",
                ""]
    return "\n".join(out)


def loads_scenario(text: str, path: str = "<scenario>",
                   digest: str | None = None) -> ScenarioConfig:
    """Read a scenario from TOML text (see ``load_scenario``)."""
    doc = parse_toml(text, path)
    if doc.get("format") == SESSION_FORMAT:  # a recorded session: its scenario, replayed
        return loads_scenario(_session_as_scenario(doc, path), path)
    text = text.removeprefix("\ufeff")
    ctx = _Context(path, text)
    top = _Reader(ctx, doc, (), "scenario")
    fmt = top.get("format", str, FORMAT)
    if fmt != FORMAT:
        raise top.fail("format", f"must be {FORMAT!r}")
    version = top.get("version", int, ...)
    loader = _LOADERS.get(version)
    if loader is None:
        raise top.fail("version", f"{version} is not supported; this release reads version(s) "
                       f"{', '.join(map(str, sorted(_LOADERS)))}")
    cfg = loader(ctx, top)
    cfg.path = path
    cfg.source_hash = digest or hashlib.sha256(text.encode()).hexdigest()
    cfg.source_text = text
    return cfg


def _load_v1(ctx: _Context, top: _Reader) -> ScenarioConfig:
    name = top.get("name", str, "unnamed")
    description = top.get("description", str, "")
    run = top.get("run", dict, {})
    rr = _Reader(ctx, run, ("run",), "run")
    seed = rr.get("seed", int, 1, check=lambda v: None if 0 <= v <= MAX_SEED
                  else "must be 0 to 2^63-1")
    duration = rr.get("duration_s", float, 600.0, check=_at_least(0, MAX_DURATION_S, "s"))
    step = rr.get("step_s", float, 1.0, check=_between(MIN_STEP_S, MAX_STEP_S, "s"))
    sample = rr.get("sample_s", float, 10.0, check=_between(MIN_STEP_S, MAX_DURATION_S, "s"))
    quiet = rr.get("quiet_step_s", float, 0.0, check=lambda v: None if 0 <= v <= MAX_QUIET_STEP_S
                   else f"must be 0 (off) to {MAX_QUIET_STEP_S:g} s, not {v:g}")
    too_many = steps_problem(duration, step)
    if too_many:
        raise rr.fail("step_s", too_many)
    if quiet and (quiet < step or abs(quiet / step - round(quiet / step)) > 1e-6):
        raise rr.fail("quiet_step_s", f"{quiet:g} is not a whole multiple of step_s "
                      f"({step:g} s): write 0 (off) or {step:g}, {2 * step:g}, ... up to "
                      f"{MAX_QUIET_STEP_S:g} s")
    rr.done()

    members: list[MemberConfig] = []
    for i, t in enumerate(top.get("member", list, ...)):
        members.append(_member(ctx, t, i))
    if not 1 <= len(members) <= 4:
        raise ScenarioError(ctx.path, ctx.lines.line(("member", min(len(members) - 1, 4))),
                            "member", f"an SSI cluster has 1 to 4 members, not {len(members)}")
    names = [m.name for m in members]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ScenarioError(ctx.path, ctx.lines.line(("member", i, "name")),
                                f"member[{i}].name", f"{n} is defined twice")

    links = [_link(ctx, t, i, names) for i, t in enumerate(top.get("link", list, []))]
    for i, link in enumerate(links):
        if any(set(x.members) == set(link.members) for x in links[:i]):
            raise ScenarioError(ctx.path, ctx.lines.line(("link", i, "members")),
                                f"link[{i}].members", f"{' and '.join(link.members)} already "
                                "have a link; give all CHPIDs of the pair in one [[link]]")
    datastores: list[DatastoreConfig] = []
    for i, t in enumerate(top.get("datastore", list, [])):
        d = _datastore(ctx, t, i)
        if any(x.name == d.name for x in datastores):
            raise ScenarioError(ctx.path, ctx.lines.line(("datastore", i, "name")),
                                f"datastore[{i}].name", f"{d.name} is defined twice")
        datastores.append(d)
    ds_names = [d.name for d in datastores]
    guests: list[GuestConfig] = []
    guest_tables = top.get("guest", list, [])
    if len(guest_tables) > MAX_GUESTS:
        raise top.fail("guest", f"{len(guest_tables):,} guests; a scenario may have at most "
                       f"{MAX_GUESTS:,}")
    userids: set[str] = set()
    for i, t in enumerate(guest_tables):
        g = _guest(ctx, t, i, names, ds_names)
        if g.userid in userids:
            raise ScenarioError(ctx.path, ctx.lines.line(("guest", i, "userid")),
                                f"guest[{i}].userid", f"{g.userid} is defined twice")
        userids.add(g.userid)
        guests.append(g)

    timeline: list[TimelineEntry] = []
    timeline_tables = top.get("timeline", list, [])
    if len(timeline_tables) > MAX_TIMELINE:
        raise top.fail("timeline", f"{len(timeline_tables):,} entries; a timeline may have at "
                       f"most {MAX_TIMELINE:,}")
    for i, t in enumerate(timeline_tables):
        r = _Reader(ctx, t, ("timeline", i), f"timeline[{i}]")
        at = r.get("at_s", float, ..., check=_between(0, MAX_DURATION_S, "s"))
        cmd = r.get("command", str, ..., check=lambda v: None if v.split() else "is empty")
        repeat = r.get("repeat", str, "", check=lambda v: None if v in ("", "back_and_forth")
                       else "must be 'back_and_forth' (or left out)")
        until = r.get("until_s", float, None, check=_between(0, MAX_DURATION_S, "s"))
        r.done()
        if until is not None and not repeat:
            raise r.fail("until_s", "belongs to a repeated command (repeat = 'back_and_forth')")
        if until is not None and until < at:
            raise r.fail("until_s", f"{until:g} s is before at_s ({at:g} s)")
        verb = cmd.split()[0]
        if not known_verb(verb):
            valid = ", ".join(w for w, _ in VERBS)
            raise r.fail("command", f"unknown command {_show(verb.upper())}; valid commands: "
                         f"{valid}")
        try:
            typed = parse_command(cmd)  # the operands and options too, not only the verb
        except CPError as e:
            raise r.fail("command", f"{_show(cmd)} is not a valid command: {e.line}") from None
        if repeat and not isinstance(typed, VmrelocateMove):
            raise r.fail("repeat", "only a VMRELOCATE MOVE command can be repeated back and "
                         "forth")
        timeline.append(TimelineEntry(at, cmd, ctx.lines.line(("timeline", i, "command")) or 0,
                                      repeat, until))
    lesson = _lesson(ctx, top.get("lesson", dict)) if "lesson" in top.table else None
    top.used.add("lesson")
    objectives: list[ObjectiveConfig] = []
    guest_names = [g.userid for g in guests]
    for i, o in enumerate(top.get("objective", list, [])):
        obj = _objective(ctx, o, i, names, guest_names, ds_names)
        if any(x.id == obj.id for x in objectives):
            raise ScenarioError(ctx.path, ctx.lines.line(("objective", i, "id")),
                                f"objective[{i}].id", f"{obj.id!r} is used twice")
        objectives.append(obj)
    if lesson is not None and not objectives:
        raise ScenarioError(ctx.path, ctx.lines.line(("lesson",)), "lesson",
                            "a lesson needs at least one [[objective]]")
    if lesson is not None and lesson.pass_score > sum(o.points for o in objectives):
        raise ScenarioError(ctx.path, ctx.lines.line(("lesson", "pass_score")),
                            "lesson.pass_score", f"{lesson.pass_score:g} is more than the "
                            f"objectives' {sum(o.points for o in objectives):g} points")
    model = _model(ctx, top.get("model", dict, {}))
    top.done()
    return ScenarioConfig(name=name, members=members, guests=guests, links=links,
                          datastores=datastores, timeline=timeline, objectives=objectives,
                          lesson=lesson, description=description, seed=seed,
                          duration_s=duration, step_s=step, sample_s=sample, model=model,
                          quiet_step_s=quiet)


def _model(ctx: _Context, t: Any) -> dict[str, dict[str, float]]:
    """The ``[model.SECTION]`` tables: parameter values that replace the model's for this run."""
    r = _Reader(ctx, t, ("model",), "model")
    out: dict[str, dict[str, float]] = {}
    for section in list(r.table):
        bad = model_problem(section)
        if bad:
            raise r.fail(section, bad)
        sr = _Reader(ctx, r.get(section, dict), ("model", section), f"model.{section}")
        values: dict[str, float] = {}
        for name in list(sr.table):
            v = sr.get(name, (int, float, str, bool, list, dict))
            bad = model_problem(section, name, v)
            if bad:
                raise sr.fail(name, bad)
            values[name] = v
        sr.done()
        out[section] = values
    r.done()
    return out


def _lesson(ctx: _Context, t: Any) -> LessonConfig:
    r = _Reader(ctx, t, ("lesson",), "lesson")

    def text(v: str) -> str | None:
        return None if v.strip() else "is empty"

    lid = r.get("id", str, ..., check=lambda v: None if re.fullmatch(r"[a-z0-9][a-z0-9\-]*", v)
                else "must be lower-case letters, digits and '-'")
    hints = []
    for j, h in enumerate(r.get("hint", list, [])):
        hr = _Reader(ctx, h, ("lesson", "hint", j), f"lesson.hint[{j}]")
        hints.append(HintConfig(hr.get("text", str, ..., check=text),
                                hr.get("cost", float, 5.0, check=_between(0, 1e6, "points"))))
        hr.done()
    les = LessonConfig(
        id=lid, title=r.get("title", str, ..., check=text),
        goal=r.get("goal", str, ..., check=text),
        briefing=r.get("briefing", str, ..., check=text),
        debrief=r.get("debrief", str, "", ),
        pass_score=r.get("pass_score", float, 0.0, check=_between(0, 1e9, "points")),
        hints=tuple(hints), level=r.get("level", str, ""),
        settle_s=r.get("settle_s", float, 30.0, check=_between(0, MAX_DURATION_S, "s")),
        forbid=tuple(v.upper() for v in r.get(
            "forbid", list, ["WORKLOAD"], check=lambda xs: None if all(
                isinstance(x, str) and known_verb(x) for x in xs)
            else "must list command names (" + ", ".join(w for w, _ in VERBS) + ")")))
    r.done()
    return les


def _objective(ctx: _Context, t: Any, i: int, members: list[str], userids: list[str],
               datastores: list[str]) -> ObjectiveConfig:
    r = _Reader(ctx, t, ("objective", i), f"objective[{i}]")
    kind = r.get("kind", str, ...)
    if kind not in KINDS:
        raise r.fail("kind", f"unknown objective {_show(kind)}; valid kinds: {', '.join(KINDS)}")
    oid = r.get("id", str, f"obj{i + 1}", check=lambda v: None if v.strip() else "is empty")
    r.label = f"objective[{i}] ({oid})"
    _family, specs, _what = KINDS[kind]

    def one_of(names: list[str], what: str) -> Callable[[str], str | None]:
        return lambda v: None if v.upper() in names else \
            f"{_show(v)} is not a {what} of this scenario; {what}s: {_few(names)}"

    params: dict[str, Any] = {}
    for f in specs:
        if f.name not in r.table:
            if f.required:
                r.get(f.name, str, ...)  # raises "is required"
            continue
        if f.type == "guest":
            v = r.get(f.name, str, check=one_of(userids, "guest")).upper()
        elif f.type == "member":
            v = r.get(f.name, str, check=one_of(members, "member")).upper()
        elif f.type == "target":
            v = r.get(f.name, str).upper()
        elif f.type == "method":
            v = r.get(f.name, str, check=lambda x: None if x in METHODS
                      else f"must be one of {', '.join(METHODS)}")
        elif f.type == "state":
            v = r.get(f.name, str, check=lambda x: None if x in GUEST_STATES
                      else f"must be one of {', '.join(GUEST_STATES)}")
        elif f.type == "command":
            v = r.get(f.name, str, check=lambda x: None if x.split() and known_verb(x.split()[0])
                      else "must start with a command (" + ", ".join(w for w, _ in VERBS) + ")")
        elif f.type == "guests":
            v = r.get(f.name, list, check=lambda xs: None if xs and all(
                isinstance(x, str) and x.upper() in userids for x in xs)
                else f"must list guests of this scenario ({_few(userids)})")
            v = [x.upper() for x in v]
        elif f.type == "integer":
            v = r.get(f.name, int, check=_between(1, 1_000_000))
        elif f.type == "seconds":
            v = r.get(f.name, float, check=_between(0, MAX_DURATION_S, "s"))
        else:  # number
            v = r.get(f.name, float, check=_between(0, 1e15))
        params[f.name] = v
    if kind == "relocated" and "to" in params:
        valid = datastores if params.get("method") == "vmotion" else members
        what = "datastore" if params.get("method") == "vmotion" else "member"
        if params["to"] not in valid:
            raise r.fail("to", f"{_show(params['to'])} is not a {what} of this scenario; {what}s: "
                         f"{', '.join(valid) or '(none)'}")
    text = r.get("text", str, "") or default_text(kind, params)
    points = r.get("points", float, 10.0, check=_between(0, 1e6))
    r.done()
    return ObjectiveConfig(oid, kind, text, points, params,
                           ctx.lines.line(("objective", i)) or 0)


_LOADERS: dict[int, Callable[[_Context, _Reader], ScenarioConfig]] = {1: _load_v1}


def _member(ctx: _Context, t: Any, i: int) -> MemberConfig:
    r = _Reader(ctx, t, ("member", i), f"member[{i}]")
    name = r.get("name", str, ..., check=_name_check).upper()
    r.label = f"member[{i}] ({name})"
    cpus = r.get("cpus", int, 4, check=lambda v: None if 1 <= v <= 256 else "must be 1 to 256")
    speed = r.get("cpu_speed", float, 1.0, check=_at_least(0, 100))
    central = r.size("central")
    if central <= 0:
        raise r.fail("central", "must be greater than 0")
    xstor = r.size("xstor", 0)
    storbuf = r.get("storbuf_pct", float, 300.0, check=_at_least(0, 10000, "%"))
    cleanup = r.get("logoff_cleanup", str, "background",
                    check=lambda v: None if v in ("background", "inline")
                    else "must be 'background' or 'inline'")
    cp_pages = r.size("cp_storage", -1) if "cp_storage" in t else -1
    r.used.add("cp_storage")
    if cp_pages >= central:
        raise r.fail("cp_storage", "must be less than central storage")
    msps = r.get("msps", int, 2, check=lambda v: None if 1 <= v <= 4 else "must be 1 to 4")
    msp_gbps = r.get("msp_gbps", float, 10.0,
                     check=lambda v: None if 1 <= v <= 400 else "must be 1 to 400 Gbit/s")
    firmware = r.get("firmware", str, "newer",
                     check=lambda v: None if v in ("newer", "older")
                     else "must be 'newer' or 'older'")
    vols: list[VolumeConfig] = []
    for j, vt in enumerate(r.get("volume", list, [])):
        vr = _Reader(ctx, vt, ("member", i, "volume", j), f"{r.label}.volume[{j}]")
        volid = vr.get("volid", str, f"PAG{j + 1:03d}",
                       check=lambda v: None if 1 <= len(v) <= 6 else "must be 1 to 6 characters")
        vr.used.update(("slots", "size"))
        if "slots" in vt and "size" in vt:
            raise vr.fail("slots", "give either slots or size, not both")
        slots = vr.get("slots", int, 0) if "slots" in vt else vr.size("size", ...)
        if not 0 < slots <= MAX_PAGES:
            raise vr.fail("slots" if "slots" in vt else "size",
                          f"must be more than 0 and at most {MAX_PAGES:,} slots "
                          f"({MAX_SIZE_TEXT})")
        if any(v.volid == volid.upper() for v in vols):
            raise vr.fail("volid", f"{volid.upper()} is defined twice on {name}")
        kind = vr.get("kind", str, "eckd",
                      check=lambda v: None if v in DEVICE_KINDS
                      else f"must be one of {', '.join(sorted(DEVICE_KINDS))}")
        dk = DEVICE_KINDS[kind]
        vol = VolumeConfig(
            volid=volid.upper(), slots=slots,
            service_ms=vr.get("service_ms", float, dk.service_ms,
                              check=_at_least(0, 10_000, "ms")),
            queue_depth=vr.get("queue_depth", int, dk.queue_depth,
                               check=lambda v: None if 1 <= v <= 256 else "must be 1 to 256"),
            rdev=vr.get("rdev", str, f"{0x200 + j:04X}"), kind=kind,
            mb_s=vr.get("mb_s", float, dk.mb_s, check=_between(1, 100_000, "MB/s")),
            device=vr.get("device", str, "",
                          check=lambda v: None if 1 <= len(v) <= 32
                          else "must be 1 to 32 characters"),
        )
        same = next((v for v in vols if vol.device and v.device == vol.device), None)
        if same is not None:
            for fld in ("kind", "service_ms", "queue_depth", "mb_s"):
                if getattr(same, fld) != getattr(vol, fld):
                    raise vr.fail(fld, f"volumes on device {vol.device!r} share it, so they "
                                  f"must agree: {same.volid} has {getattr(same, fld)!r}, "
                                  f"this one {getattr(vol, fld)!r}")
        vols.append(vol)
        vr.done()
    r.done()
    return MemberConfig(name=name, cpus=cpus, cpu_speed=speed, central_pages=central,
                        xstor_pages=xstor, volumes=tuple(vols), cp_pages=cp_pages,
                        storbuf_pct=storbuf, logoff_cleanup=cleanup, msps=msps,
                        msp_gbps=msp_gbps, firmware=firmware)


def _link(ctx: _Context, t: Any, i: int, names: list[str]) -> LinkConfig:
    r = _Reader(ctx, t, ("link", i), f"link[{i}]")
    mem = r.get("members", list, ...)
    if len(mem) != 2 or not all(isinstance(x, str) for x in mem):
        raise r.fail("members", "must name two members, e.g. [\"MEMB1\", \"MEMB2\"]")
    mem_u = (mem[0].upper(), mem[1].upper())
    for x in mem_u:
        if x not in names:
            raise r.fail("members", f"{shown(x)} is not a member; members: {', '.join(names)}")
    if mem_u[0] == mem_u[1]:
        raise r.fail("members", "a link joins two different members")
    chpids = []
    for j, c in enumerate(r.get("chpids", list, [])):
        if not isinstance(c, dict):
            raise r.fail("chpids", "each CHPID is a table like {gbps = 8, ctcs = 4}")
        cr = _Reader(ctx, c, ("link", i, "chpids"), f"link[{i}].chpids[{j}]")
        gbps = cr.get("gbps", int, ..., check=lambda v: None if v in (2, 4, 8)
                      else "FICON CHPIDs run at 2, 4 or 8 Gbit/s")
        ctcs = cr.get("ctcs", int, 4, check=lambda v: None if 1 <= v <= 16 else "must be 1 to 16")
        cr.done()
        chpids.append(ChpidConfig(gbps, ctcs))
    total = sum(c.ctcs for c in chpids)
    if total > MAX_LINK_CTCS:
        raise r.fail("chpids", f"an ISFC logical link takes at most {MAX_LINK_CTCS} CTC devices; "
                     f"these CHPIDs have {total}")
    r.done()
    return LinkConfig(mem_u, tuple(chpids))


def _datastore(ctx: _Context, t: Any, i: int) -> DatastoreConfig:
    r = _Reader(ctx, t, ("datastore", i), f"datastore[{i}]")
    name = r.get("name", str, ..., check=_name_check).upper()
    r.label = f"datastore[{i}] ({name})"
    d = DatastoreConfig(
        name=name,
        mb_s=r.get("mb_s", float, 400.0, check=_at_least(0, 1e6, "MB/s")),
        iops=r.get("iops", float, 1200.0, check=_at_least(0, 1e8, "I/Os per second")),
        latency_ms=r.get("latency_ms", float, 8.0, check=_at_least(0, 10_000, "ms")),
        size_gb=r.get("size_gb", float, 4096.0, check=_at_least(0, 1e7, "GB")),
    )
    r.done()
    return d


def _disk(ctx: _Context, t: Any, i: int, label: str, datastores: list[str]) -> DiskConfig:
    r = _Reader(ctx, t, ("guest", i, "disk"), f"{label}.disk")
    size = r.get("size_gb", float, ..., check=_at_least(0, 1e7, "GB"))
    ds = r.get("datastore", str, ...).upper()
    if ds not in datastores:
        raise r.fail("datastore", f"{shown(ds)} is not a datastore; datastores: "
                     f"{', '.join(datastores) or '(none defined)'}")

    def frac(v: float) -> str | None:
        return None if 0 <= v <= 1 else "must be 0 to 1"

    d = DiskConfig(
        size_gb=size, datastore=ds,
        read_iops=r.get("read_iops", float, 0.0, check=_between(0, 1e8, "I/Os per second")),
        write_iops=r.get("write_iops", float, 0.0, check=_between(0, 1e8, "I/Os per second")),
        pattern=r.get("pattern", str, "random", check=lambda v: None if v in ("random", "mail")
                      else "must be 'random' or 'mail'"),
        hot_fraction=r.get("hot_fraction", float, 0.001, check=frac),
        hot_share=r.get("hot_share", float, 0.45, check=frac),
    )
    r.done()
    return d


def _guest(ctx: _Context, t: Any, i: int, names: list[str],
           datastores: list[str] | None = None) -> GuestConfig:
    r = _Reader(ctx, t, ("guest", i), f"guest[{i}]")
    userid = r.get("userid", str, ..., check=_name_check).upper()
    r.label = f"guest[{i}] ({userid})"
    member = r.get("member", str, ...).upper()
    if member not in names:
        raise r.fail("member", f"{shown(member)} is not a member; members: "
                     f"{', '.join(names)}")
    storage = r.size("storage")
    if storage <= 0:
        raise r.fail("storage", "must be greater than 0")
    vdisks = r.get("vdisks", list, [])
    vdisk_pages = []
    for v in vdisks:
        try:
            vdisk_pages.append(size_to_pages(v))
        except SizeError as e:
            raise r.fail("vdisks", str(e)) from None
    set_res = r.get("set_reserved", (str, int), 0)
    try:
        # a bare number is a page count, as for the SET RESERVED command
        set_reserved = pages_or_size(set_res)
    except SizeError as e:
        raise r.fail("set_reserved", f"{e} (or a page count)") from None
    if not 0 <= set_reserved <= MAX_PAGES:
        raise r.fail("set_reserved", f"must be 0 to {MAX_PAGES:,} pages ({MAX_SIZE_TEXT})")
    wl_table = r.get("workload", dict, {"type": "idle"})
    wr = _Reader(ctx, wl_table, ("guest", i, "workload"), f"{r.label}.workload")
    kind = wr.get("type", str, ...)
    params = {k: v for k, v in wl_table.items() if k != "type"}
    try:
        resolve_params(kind, params)
    except WorkloadError as e:
        raise wr.fail(e.param or "type", str(e)) from None
    wr.done(allowed_extra=tuple(params))
    g = GuestConfig(
        userid=userid, member=member, storage_pages=storage,
        standby_pages=r.size("standby", 0), reserved_storage_pages=r.size("reserved", 0),
        vcpus=r.get("vcpus", int, 1, check=lambda v: None if 1 <= v <= 64 else "must be 1 to 64"),
        share=r.get("share", float, 100.0, check=lambda v: None if 1 <= v <= 10000
                    else "RELATIVE share must be 1 to 10000"),
        set_reserved_pages=set_reserved,
        vdisk_pages=tuple(vdisk_pages),
        workload=WorkloadSpec(kind.lower(), params),
        logged_on=r.get("logged_on", bool, True),
        swap_pages=r.size("swap", 0),
        swap_mb_s=r.get("swap_mb_s", float, 100.0, check=_at_least(0, 1e6, "MB/s")),
        disk=_disk(ctx, r.get("disk", dict), i, r.label, datastores or [])
        if "disk" in t else None,
    )
    r.used.add("disk")
    r.done()
    return g

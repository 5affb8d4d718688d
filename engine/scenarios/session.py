"""Recorded sessions: a scenario plus the commands a person issued, replayable headless."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..basics.config import ScenarioConfig, TimelineEntry
from ..basics.cp import CPError
from ..core.sim import Simulation
from ..cp.grammar import parse_command
from .scenario import ScenarioError, _Context, _Reader, parse_toml

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


def record_session(sim: Simulation) -> str:
    """The scenario's own text followed by every command issued outside its timeline.

    Each command becomes a ``[[timeline]]`` entry at the simulated time it was issued, so
    ``ssisim run`` on the result repeats the session exactly (same seed, same results).
    """
    typed = [(t, c) for t, c, _rc, line, _resp in sim.command_log if line == 0]
    out = [sim.scenario.source_text.rstrip("\n"), "",
           (f"# Session recorded at simulated time {sim.t:g} s: {len(typed)} commands issued "
            "interactively."), ""]
    for t, c in typed:
        try:
            parse_command(c)
        except CPError as e:
            # not a command at all: it changed nothing, and a timeline may not hold it
            out += [f"# at {t!r} s, not replayed ({e.msgid}): {toml_string(c)}", ""]
            continue
        out += ["[[timeline]]", f"at_s = {t!r}", f"command = {toml_string(c)}", ""]
    return "\n".join(out)


# -- session files: a student's commands, for replay and grading --------------------------------
SESSION_FORMAT = "ssisim-session"


@dataclass(frozen=True)
class Session:
    """A recorded session: the commands one person issued in one scenario or lesson."""

    path: str
    lesson: str  # the lesson's id (or the scenario's name when it has no lesson)
    scenario_sha256: str
    student: str
    commands: tuple[TimelineEntry, ...]
    ended_s: float | None = None
    lesson_line: int | None = None  # where the file names its lesson


def session_key(scenario: ScenarioConfig) -> str:
    """What a session file names its scenario by: the lesson id, else the scenario name."""
    return scenario.lesson.id if scenario.lesson is not None else scenario.name


def session_text(sim: Simulation, student: str = "") -> str:
    """A session file for the commands issued interactively so far (see ``load_session``)."""
    sc = sim.scenario
    typed = [(t, c) for t, c, _rc, line, _resp in sim.command_log if line == 0]
    ended = sim.lesson.ended_s if sim.lesson is not None and sim.lesson.ended else None
    out = [f'format = "{SESSION_FORMAT}"', "version = 1",
           f"lesson = {toml_string(session_key(sc))}",
           f"scenario_sha256 = {toml_string(sc.source_hash)}",
           f"student = {toml_string(student)}",
           f"recorded_to_s = {sim.t!r}"]
    if ended is not None:
        out.append(f"ended_s = {ended!r}")
    out.append("")
    for t, c in typed:
        out += ["[[command]]", f"at_s = {t!r}", f"command = {toml_string(c)}", ""]
    return "\n".join(out)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _surrogate_hint(text: str, error: str) -> str:
    """What to do about a file an older ssisim wrote with ``\\ud83d\\ude00``-style escapes."""
    m = _SURROGATE_ESCAPE.search(text) if "scalar value" in error else None
    if m is None:
        return ""
    return (f" ({m.group()} is half of a UTF-16 surrogate pair, as older ssisim releases wrote "
            "emoji; replace each pair such as \\ud83d\\ude00 with the character itself)")


def load_session(path: str | Path) -> Session:
    """Read a session file; a ``ScenarioError`` names the file, line and field when it is bad."""

    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as e:
        raise ScenarioError(str(p), None, "", f"cannot read the session ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ScenarioError(str(p), None, "", "is not a session file (not UTF-8 text)") from None
    doc = parse_toml(text, str(p), "not a valid session file: ", _surrogate_hint)
    ctx = _Context(str(p), text)
    top = _Reader(ctx, doc, (), "session")
    if top.get("format", str, "") != SESSION_FORMAT:
        raise top.fail("format", f"must be {SESSION_FORMAT!r}: this is not a session file "
                       "(save one from the app's training mode, File > Save session)")
    if top.get("version", int, ...) != 1:
        raise top.fail("version", "this release reads session files of version 1")
    lesson = top.get("lesson", str, ...)
    sha = top.get("scenario_sha256", str, "")
    student = top.get("student", str, "")
    top.get("recorded_to_s", float, 0.0)
    ended = top.get("ended_s", float, None)
    cmds: list[TimelineEntry] = []
    for i, t in enumerate(top.get("command", list, [])):
        r = _Reader(ctx, t, ("command", i), f"command[{i}]")
        at = r.get("at_s", float, ..., check=lambda v: None if v >= 0 else "must be 0 or more")
        c = r.get("command", str, ..., check=lambda v: None if v.split() else "is empty")
        r.done()
        if cmds and at < cmds[-1].at_s:
            raise r.fail("at_s", f"{at:g} s is before the previous command's "
                         f"{cmds[-1].at_s:g} s; commands must be in time order")
        cmds.append(TimelineEntry(at, c, 0))
    top.done()
    return Session(str(p), lesson, sha, student, tuple(cmds), ended,
                   ctx.lines.line(("lesson",)))


def apply_session(sim: Simulation, session: Session) -> None:
    """Queue a session's commands as if typed at their times (the scenario must match)."""
    want = session_key(sim.scenario)
    if session.lesson != want:
        what = "lesson" if sim.scenario.lesson is not None else "scenario"
        raise ScenarioError(session.path, session.lesson_line, "lesson",
                            f"this session was recorded in {session.lesson!r}, not in the "
                            f"{what} {want!r}")
    for c in session.commands:
        sim.schedule(c)


def grade_session(scenario: ScenarioConfig, session: Session) -> dict[str, Any]:
    """Replay a session in its lesson to the lesson's end; the debrief with its score."""
    if scenario.lesson is None and not scenario.objectives:
        raise ScenarioError(scenario.path, None, "", "has no objectives to grade against")
    sim = Simulation(scenario)
    apply_session(sim, session)
    sim.run_until(scenario.duration_s)
    assert sim.lesson is not None
    sim.lesson.end("time is up")  # no-op when it ended before
    return sim.lesson.debrief()

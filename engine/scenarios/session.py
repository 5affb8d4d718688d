"""Recorded sessions: a scenario plus the commands a person issued, replayable headless."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..basics.config import ScenarioConfig, TimelineEntry
from ..core.sim import Simulation
from .scenario import (
    SESSION_FORMAT,
    ScenarioError,
    _Context,
    _Reader,
    parse_toml,
    toml_block,
    toml_string,
)


def record_session(sim: Simulation) -> str:
    """The session so far, with its scenario: one file that replays it on its own.

    It is a session file (``session_text``) holding the scenario's own text besides the
    commands issued outside its timeline, so ``ssisim run`` and File > Open load it as that
    scenario with the commands in its timeline (same seed, same results), and it reads as a
    session everywhere a session does.
    """
    return session_text(sim, with_scenario=True)


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
    #: the scenario's own text, in a session recorded outside a lesson (``record_session``)
    scenario_text: str | None = None


def session_key(scenario: ScenarioConfig) -> str:
    """What a session file names its scenario by: the lesson id, else the scenario name."""
    return scenario.lesson.id if scenario.lesson is not None else scenario.name


def session_text(sim: Simulation, student: str = "", with_scenario: bool = False) -> str:
    """A session file for the commands issued interactively so far (see ``load_session``);
    ``with_scenario`` holds the scenario's own text in it too (``record_session``)."""
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
    if with_scenario:
        out.append(f"# the scenario the commands were issued in: `ssisim run` on this file "
                   f"replays them in it\nscenario = {toml_block(sc.source_text)}")
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
    scenario_text = top.get("scenario", str, None)
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
                   ctx.lines.line(("lesson",)), scenario_text)


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

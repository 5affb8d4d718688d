"""Recorded sessions: a scenario plus the commands a person issued, replayable headless."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._config import ScenarioConfig, TimelineEntry
from ._scenario import ScenarioError

if TYPE_CHECKING:
    from ._sim import Simulation


def record_session(sim: Simulation) -> str:
    """The scenario's own text followed by every command issued outside its timeline.

    Each command becomes a ``[[timeline]]`` entry at the simulated time it was issued, so
    ``ssisim run`` on the result repeats the session exactly (same seed, same results).
    """
    typed = [(t, c) for t, c, _rc, line, _resp in sim.command_log if line == 0]
    out = [sim.scenario.source_text.rstrip("\n"), "",
           f"# Session recorded at simulated time {sim.t:g} s: {len(typed)} commands issued "
           "interactively.", ""]
    for t, c in typed:
        out += ["[[timeline]]", f"at_s = {t!r}", f"command = {json.dumps(c)}", ""]
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
           f"lesson = {json.dumps(session_key(sc))}",
           f"scenario_sha256 = {json.dumps(sc.source_hash)}",
           f"student = {json.dumps(student)}",
           f"recorded_to_s = {sim.t!r}"]
    if ended is not None:
        out.append(f"ended_s = {ended!r}")
    out.append("")
    for t, c in typed:
        out += ["[[command]]", f"at_s = {t!r}", f"command = {json.dumps(c)}", ""]
    return "\n".join(out)


def load_session(path: str | Path) -> Session:
    """Read a session file; a ``ScenarioError`` names the file, line and field when it is bad."""
    from ._scenario import _Context, _Reader

    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as e:
        raise ScenarioError(str(p), None, "", f"cannot read the session ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ScenarioError(str(p), None, "", "is not a session file (not UTF-8 text)") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise ScenarioError(str(p), int(m.group(1)) if m else None, "",
                            f"not a valid session file: {msg}") from None
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
    cmds = []
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
    from ._sim import Simulation

    if scenario.lesson is None and not scenario.objectives:
        raise ScenarioError(scenario.path, None, "", "has no objectives to grade against")
    sim = Simulation(scenario)
    apply_session(sim, session)
    sim.run_until(scenario.duration_s)
    assert sim.lesson is not None
    sim.lesson.end("time is up")  # no-op when it ended before
    return sim.lesson.debrief()

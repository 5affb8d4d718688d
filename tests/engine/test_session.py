"""A session recorded as a scenario replays headless to the same results."""

from __future__ import annotations

import json

import pytest

from ssisim.cli import resolve_scenario
from ssisim.engine import Simulation, build_summary, load_scenario, loads_scenario, record_session


def test_recorded_session_replays_to_the_same_results():
    sc = load_scenario(resolve_scenario("demo"))
    live = Simulation(sc)
    live.run_until(120)
    live.execute("VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC")
    live.run_until(180)
    live.execute('WORKLOAD LNXWEB1 SET REQUESTS_PER_S 300')
    live.execute("Q ALLOC PAGE")
    live.run_until(400)
    text = record_session(live)
    replay = Simulation(loads_scenario(text, "session.toml"))
    replay.run_until(400)
    a, b = build_summary(live), build_summary(replay)
    for s in (a, b):
        s.pop("scenario_hash")
        for c in s["commands"]:
            c.pop("line")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["relocations"][0]["result"] == "relocated"


def test_one_session_format_for_recordings_and_lessons(tmp_path):
    """A recording is a session file that also holds its scenario: it reads as a session
    (lesson key, commands) and loads as its scenario; a lesson's session holds no lesson, and
    loading it as a scenario says how to replay it."""
    from ssisim.engine import (
        ScenarioError,
        apply_session,
        find_lesson,
        load_session,
        session_text,
    )

    sc = load_scenario(resolve_scenario("demo"))
    live = Simulation(sc)
    live.run_until(30)
    live.execute("VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC")
    live.run_until(60)
    path = tmp_path / "rec.toml"
    path.write_text(record_session(live), encoding="utf-8")
    session = load_session(path)
    assert session.lesson == sc.name and session.scenario_text == sc.source_text
    assert [(c.at_s, c.command) for c in session.commands] == [
        (30.0, "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC")]
    # the same commands applied to the scenario, or the file loaded as a scenario: one result
    a = Simulation(sc)
    apply_session(a, session)
    a.run_until(60)
    b = Simulation(load_scenario(path))
    b.run_until(60)
    ra, rb = build_summary(a)["relocations"], build_summary(b)["relocations"]
    assert ra == rb and ra[0]["guest"] == "LNXIDL1"
    # a lesson's session: no lesson in it
    lesson = Simulation(load_scenario(find_lesson("first-relocation")))
    lesson.run_until(5)
    lesson.execute("QUERY NAMES")
    ses = tmp_path / "s.session.toml"
    ses.write_text(session_text(lesson, "ann"), encoding="utf-8")
    assert load_session(ses).scenario_text is None
    with pytest.raises(ScenarioError, match="holds no scenario") as e:
        load_scenario(ses)
    assert "--session" in str(e.value)


def test_a_session_that_holds_a_session_is_refused_with_one_line():
    from ssisim.engine import ScenarioError
    from ssisim.engine.scenarios.scenario import toml_string

    inner = 'format = "ssisim-session"\nversion = 1\nlesson = "x"\nscenario = "hello"\n'
    outer = ('format = "ssisim-session"\nversion = 1\nlesson = "x"\n'
             f"scenario = {toml_string(inner)}\n")
    with pytest.raises(ScenarioError, match="holds a session, not a scenario"):
        loads_scenario(outer, "nested.toml")

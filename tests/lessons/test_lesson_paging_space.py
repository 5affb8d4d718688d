"""Lesson 9, paging space: QUERY ALLOC PAGE, the 50 % rule and slots that stay taken."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ssisim.cli import bundled_dir
from ssisim.engine import (
    Session,
    Simulation,
    TimelineEntry,
    grade_session,
    load_scenario,
    load_session,
)

LESSON = bundled_dir() / "lessons" / "09-paging-space.toml"
SOLUTIONS = Path(__file__).parent / "solutions"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(LESSON)


def session(*commands: tuple[float, str]) -> Session:
    return Session("test", "paging-space", "", "test",
                   tuple(TimelineEntry(at, c, 0) for at, c in commands))


def objectives(d: dict) -> dict[str, dict]:
    return {o["id"]: o for o in d["objectives"]}


def used_pct(sim: Simulation, member: str = "MEMB1") -> float:
    """The fullest volume's % USED, as QUERY ALLOC PAGE shows it."""
    return max(100.0 * used / total for _v, _r, total, used in sim.members[member].volume_use())


def free_world(scenario, *commands: tuple[float, str]) -> Simulation:
    sim = Simulation(dataclasses.replace(scenario, objectives=[], lesson=None))
    for at, c in commands:
        sim.schedule(TimelineEntry(at, c, 0))
    return sim


def test_reference_moves_the_growing_guest_before_it_pages(scenario):
    d = grade_session(scenario, load_session(SOLUTIONS / "09-paging-space.session.toml"))
    assert d["passed"] and d["score"] == d["max_score"]
    moved = objectives(d)["moved"]
    assert "4 passes" in moved["detail"]
    assert not any("throttle" in e["text"] for e in d["decisive_events"]), \
        "a guest that does not page yet moves without throttles"


def test_left_alone_the_volumes_pass_half_full(scenario):
    sim = Simulation(scenario)
    sim.run_until(scenario.duration_s)
    o = objectives(sim.lesson.debrief())["half-full"]
    assert o["status"] == "failed" and 205 < o["t_s"] < 230
    text = sim.execute("QUERY ALLOC PAGE").text
    assert "M1PG01" in text and "SUMMARY" in text


def test_moving_too_late_breaks_the_rule(scenario):
    """The wrong approach: the move reads the paged-out pages back from the busy volumes."""
    d = grade_session(scenario, load_session(SOLUTIONS / "09-paging-space.wrong.session.toml"))
    o = objectives(d)
    assert o["half-full"]["status"] == "failed" and "M1PG0" in o["half-full"]["detail"]
    assert o["moved"]["status"] == "met" and o["look"]["status"] == "met"
    assert o["half-full"]["t_s"] < o["moved"]["t_s"], "the rule broke while the move ran"
    assert any("paging volumes" in e["text"] and "throttle" in e["text"]
               for e in d["decisive_events"])
    assert not d["passed"] and d["score"] == 60


@pytest.mark.parametrize("command", ["SEND CP TEST1 STOP", "LOGOFF TEST1", "FORCE PROD1"])
def test_stopping_a_guest_is_not_an_answer(scenario, command):
    d = grade_session(scenario, session((30, "QUERY ALLOC PAGE"), (100, command)))
    o = objectives(d)
    assert o["running"]["status"] == "failed"
    assert not d["passed"]


def test_slots_stay_taken_after_the_pages_left(scenario):
    """Production's stolen pages keep their slots after TEST1 has moved away (TEST1's own
    slots come back with it)."""
    sim = free_world(scenario, (140, "VMRELOCATE MOVE TEST1 TO MEMB2 ASYNC"))
    peak = 0.0
    for t in range(140, 241, 2):
        sim.run_until(t)
        peak = max(peak, used_pct(sim))
    after = used_pct(sim)
    assert sim.guests["TEST1"].member == "MEMB2"
    # (the debrief: 10 % left of a peak of 17 %)
    assert 5 < after < peak - 5
    assert sum(sim.guests[u].n_slot for u in ("PROD1", "PROD2")) > 0
    assert sim.members["MEMB2"].slots_used == 0, "MEMB2 has room: nothing pages there"

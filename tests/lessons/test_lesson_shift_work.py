"""Lesson 7, shift work: what Linux suspend and CP STOP do, and do not do, to central storage."""

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
from ssisim.engine.basics.units import PAGES_PER_GB

LESSON = bundled_dir() / "lessons" / "07-shift-work.toml"
SOLUTIONS = Path(__file__).parent / "solutions"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(LESSON)


def session(*commands: tuple[float, str]) -> Session:
    """A session of ``(at_s, command)`` pairs, as a student would type them."""
    return Session("test", "shift-work", "", "test",
                   tuple(TimelineEntry(at, c, 0) for at, c in commands))


def status(d: dict) -> dict[str, str]:
    return {o["id"]: o["status"] for o in d["objectives"]}


def free_world(scenario, *commands: tuple[float, str]) -> Simulation:
    """The lesson's world without its objectives: it runs on after the lesson would end."""
    sim = Simulation(dataclasses.replace(scenario, objectives=[], lesson=None))
    for at, c in commands:
        sim.schedule(TimelineEntry(at, c, 0))
    return sim


def test_reference_suspends_then_logs_off(scenario):
    d = grade_session(scenario, load_session(SOLUTIONS / "07-shift-work.session.toml"))
    assert d["passed"] and d["score"] == d["max_score"]
    room = next(o for o in d["objectives"] if o["id"] == "room")
    # both images written (25 s each), logoff at 45 s, cleanup returns 2.5 GB each at once
    assert room["t_s"] < 70 and "6.8 GB free" in room["detail"]
    last = max(o["t_s"] for o in d["objectives"] if o["kind"] != "keep_running")
    assert d["ended_s"] == last + scenario.lesson.settle_s, \
        "the lesson ends soon after every task is decided"


def test_suspending_alone_frees_no_storage(scenario):
    """The wrong approach: suspended guests keep their frames until CP needs them."""
    d = grade_session(scenario, load_session(SOLUTIONS / "07-shift-work.wrong.session.toml"))
    st = status(d)
    assert st == {"room": "failed", "was01": "met", "was02": "met", "production": "met"}
    room = next(o for o in d["objectives"] if o["id"] == "room")
    assert "at most 1.8 GB" in room["detail"]
    assert not d["passed"] and d["score"] == 75

    sim = free_world(scenario, (10, "LINUX WAS01 SUSPEND"), (10, "LINUX WAS02 SUSPEND"))
    sim.run_until(170)
    for uid in ("WAS01", "WAS02"):
        g = sim.guests[uid]
        assert g.linux == "suspended"
        assert g.n_cen / PAGES_PER_GB > 2.4, f"{uid} still holds its frames"
    assert sim.members["MEMB1"].free_frames / PAGES_PER_GB < 2.0


def test_stop_then_logoff_frees_storage_but_loses_the_memory(scenario):
    d = grade_session(scenario, session((10, "SEND CP WAS01 STOP"), (10, "SEND CP WAS02 STOP"),
                                        (20, "LOGOFF WAS01"), (20, "LOGOFF WAS02")))
    st = status(d)
    assert st["room"] == "met" and st["production"] == "met"
    assert st["was01"] == st["was02"] == "failed"
    assert not d["passed"] and d["score"] == 50
    was01 = next(o for o in d["objectives"] if o["id"] == "was01")
    assert "logged off" in was01["detail"]


def test_logoff_before_the_halt_loses_the_image(scenario):
    """Suspend takes 43 s (freezing, 544 MB swapped out, the 1536 MB image at 200 MB/s); a
    LOGOFF before then is a loss."""
    sim = free_world(scenario, (10, "LINUX WAS01 SUSPEND"), (20, "LOGOFF WAS01"),
                     (30, "XAUTOLOG WAS01"))
    sim.run_until(31)
    assert sim.guests["WAS01"].linux == "running", "booted afresh: no image to resume from"


def test_the_image_survives_logoff_and_resumes(scenario):
    sim = free_world(scenario, (10, "LINUX WAS01 SUSPEND"), (60, "LOGOFF WAS01"),
                     (75, "XAUTOLOG WAS01"), (82, "LINUX WAS01 RESUME"))
    sim.run_until(120)
    halted = next(e for e in sim.events if e.kind == "SUSPENDED")
    assert halted.t_s == pytest.approx(52, abs=1.5)
    assert halted.t_s == pytest.approx(10 + halted.data["seconds"], abs=1e-3), \
        "the event carries the time the guest halted"
    serving = next(e for e in sim.events if e.kind == "SERVING")
    assert 15 < serving.data["seconds"] < 25
    assert sim.guests["WAS01"].linux == "running"


def test_a_stopped_server_is_still_dispatched_for_its_interrupts(scenario):
    sim = free_world(scenario, (10, "SEND CP WAS01 STOP"))
    sim.run_until(110)
    g = sim.guests["WAS01"]
    assert 15 < g.scheduled / 100 < 25, "about 20 network interrupts a second"
    assert g.n_cen / PAGES_PER_GB > 2.4, "and its memory stays where it was"


def test_under_demand_paused_guests_pay_first(scenario):
    """Had NIGHT01 started on paused guests, CP would have taken their pages, not production's."""
    paused = free_world(scenario, (10, "LINUX WAS01 SUSPEND"), (10, "LINUX WAS02 SUSPEND"))
    paused.run_until(270)
    running = free_world(scenario)
    running.run_until(270)
    prod = ("WEB01", "WEB02", "DB01")
    assert sum(paused.guests[u].n_dsd for u in prod) == 0
    assert sum(paused.guests[u].n_dsd for u in ("WAS01", "WAS02")) / PAGES_PER_GB > 4
    lost = [running.guests[u].n_dsd / PAGES_PER_GB for u in prod]
    assert sum(lost) > 1.0 and min(lost) > 0.25, "left running, production pays too"
    assert running.guests["NIGHT01"].n_dsd > 0


def test_free_storage_before_the_guests_warm_up_does_not_count(scenario, tmp_path):
    # a command at t = 0 evaluates the objectives while the guests have touched nothing yet;
    # with the suspends alone, MEMB1 never has 6 GB free once they have
    early = tmp_path / "early.session.toml"
    early.write_text('format = "ssisim-session"\nversion = 1\nlesson = "shift-work"\n'
                     '[[command]]\nat_s = 0.0\ncommand = "QUERY NAMES"\n'
                     '[[command]]\nat_s = 10.0\ncommand = "LINUX WAS01 SUSPEND"\n'
                     '[[command]]\nat_s = 10.0\ncommand = "LINUX WAS02 SUSPEND"\n')
    d = grade_session(scenario, load_session(early))
    room = next(o for o in d["objectives"] if o["id"] == "room")
    assert room["status"] == "failed" and not d["passed"]

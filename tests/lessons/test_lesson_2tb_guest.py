"""Lesson 8, the 2 TB guest: overcommit, the logoff cleanup state, and why a restart beats LGR."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ssisim.cli import bundled_dir
from ssisim.engine import (
    Simulation,
    TimelineEntry,
    apply_session,
    load_scenario,
    load_session,
    loads_scenario,
)
from ssisim.engine.basics.units import PAGES_PER_GB

LESSON = bundled_dir() / "lessons" / "08-2tb-guest.toml"
SOLUTIONS = Path(__file__).parent / "solutions"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(LESSON)


def replay(scenario, name: str) -> Simulation:
    """The lesson with a recorded session, run to its end."""
    sim = Simulation(scenario)
    apply_session(sim, load_session(SOLUTIONS / name))
    sim.run_until(scenario.duration_s)
    return sim


def responses(sim: Simulation) -> dict[tuple[float, str], tuple[int, str]]:
    return {(t, c): (rc, "\n".join(r)) for t, c, rc, line, r in sim.command_log if line == 0}


def free_world(scenario, *commands: tuple[float, str]) -> Simulation:
    """The lesson's world without its objectives: it runs on after the lesson would end."""
    sim = Simulation(dataclasses.replace(scenario, objectives=[], lesson=None))
    for at, c in commands:
        sim.schedule(TimelineEntry(at, c, 0))
    return sim


def test_reference_restarts_it_where_it_fits(scenario):
    sim = replay(scenario, "08-2tb-guest.session.toml")
    d = sim.lesson.debrief()
    assert d["passed"] and d["score"] == d["max_score"]
    up = max(o["t_s"] for o in d["objectives"] if o["kind"] == "guest_state")
    assert up == pytest.approx(30), "LNX2TB is up on Z16A 10 s after its logoff"
    assert d["ended_s"] == pytest.approx(up + scenario.lesson.settle_s)
    r = responses(sim)
    # the user ID of a 2 TB guest is held for 10 s (5 s per TB) while CP lets go of it
    rc, text = r[(25.0, "XAUTOLOG LNX2TB AT Z16A")]
    assert rc == 1 and "HCPXAU2912E" in text and "5 s to go" in text
    # then the departing guest shows in lower case: its storage is still being reset
    rc, text = r[(30.0, "AT Z16B CMD QUERY NAMES")]
    assert rc == 0 and "lnx2tb" in text and "LNX2TB" not in text
    assert r[(30.0, "XAUTOLOG LNX2TB AT Z16A")][0] == 0


def test_on_z16a_it_never_pages_and_z16b_gets_its_storage_back_slowly(scenario):
    sim = free_world(scenario, (20, "LOGOFF LNX2TB"), (30, "XAUTOLOG LNX2TB AT Z16A"))
    sim.run_until(60)
    g = sim.guests["LNX2TB"]
    assert g.member == "Z16A"
    assert g.n_cen / PAGES_PER_GB == pytest.approx(2002, abs=1) and g.n_dsd == 0
    assert sim.members["Z16A"].slots_used == 0
    # the cleanup resets 0.28 s per GB: about 3.5 GB of Z16B's frames come back each second
    freed = sim.members["Z16B"].free_frames / PAGES_PER_GB
    assert 100 < freed < 150
    assert any(c.t_end is None for c in sim.pause.cleaning("Z16B"))


def test_relocating_2tb_is_too_slow(scenario):
    """The wrong approach: LGR sends 2002 GB over the ISFC link while the guest keeps paging."""
    sim = replay(scenario, "08-2tb-guest.wrong.session.toml")
    d = sim.lesson.debrief()
    st = {o["id"]: o for o in d["objectives"]}
    assert st["placed"]["status"] == "failed"
    assert st["half-full"]["status"] == "failed" and "Z16B" in st["half-full"]["detail"]
    assert 60 < st["half-full"]["t_s"] < 90
    assert st["production"]["status"] == "met"
    assert not d["passed"] and d["score"] == 20
    rc, text = responses(sim)[(100.0, "VMRELOCATE STATUS")]
    assert rc == 0 and "LNX2TB" in text and text.rstrip().endswith("1"), "still in pass 1"


def test_before_the_cleanup_state_the_user_id_is_held_for_minutes(scenario):
    text = scenario.source_text.replace('central = "1.5T"',
                                        'central = "1.5T"\nlogoff_cleanup = "inline"')
    sc = dataclasses.replace(loads_scenario(text, "inline.toml"), objectives=[], lesson=None)
    sim = Simulation(sc)
    for at, c in ((20, "LOGOFF LNX2TB"), (30, "XAUTOLOG LNX2TB AT Z16A")):
        sim.schedule(TimelineEntry(at, c, 0))
    sim.run_until(30)
    rc, text = responses(sim)[(30.0, "XAUTOLOG LNX2TB AT Z16A")]
    assert rc == 1 and "keeps the user ID until cleanup ends" in text
    left = int(text.split(" s to go")[0].rsplit(" ", 1)[1])
    assert 400 < left < 480, "0.28 s per GB of the 1.5 TB it had instantiated"


def test_restarting_at_its_directory_member_runs_into_the_cleanup(scenario):
    """XAUTOLOG without AT goes back to Z16B, where the old storage is still being reset."""
    sim = free_world(scenario, (20, "LOGOFF LNX2TB"), (30, "XAUTOLOG LNX2TB"))
    sim.run_until(45)  # Linux booted (6 s), its touchers have been at work for some 9 s
    g = sim.guests["LNX2TB"]
    assert g.member == "Z16B"
    # frames come back only as fast as the cleanup resets them: the rest goes to DASD
    assert g.n_cen / PAGES_PER_GB < 120 and g.n_dsd / PAGES_PER_GB > 30
    assert sum(c.central for c in sim.pause.cleaning("Z16B")) / PAGES_PER_GB > 1000

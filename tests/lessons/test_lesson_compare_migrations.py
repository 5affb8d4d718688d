"""Lesson 10, LGR compared with LPM and Storage vMotion: only the right options meet each limit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ssisim.cli import bundled_dir
from ssisim.engine import Simulation, TimelineEntry, grade_session, load_scenario, load_session

LESSON = bundled_dir() / "lessons" / "10-compare-migrations.toml"
SOLUTIONS = Path(__file__).parent / "solutions"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(LESSON)


def objectives(d: dict) -> dict[str, dict]:
    return {o["id"]: o for o in d["objectives"]}


def move(scenario, guest: str, command: str, kind: str, until: float = 300) -> dict:
    """One move of ``guest`` in the lesson's world (with only that guest), as the summary has it."""
    sc = dataclasses.replace(scenario, objectives=[], lesson=None,
                             guests=[g for g in scenario.guests if g.userid == guest])
    sim = Simulation(sc)
    sim.schedule(TimelineEntry(5, command, 0))
    engine = {"lgr": sim.reloc, "lpm": sim.lpm, "vmotion": sim.svm}[kind]
    while sim.t < until and not (engine.all and not engine.all[-1].active):
        sim.run_until(sim.t + 10)
    (m,) = engine.all
    assert not m.active, f"{command} did not end by {until} s"
    return m.to_dict()


def test_reference_meets_every_limit(scenario):
    d = grade_session(scenario, load_session(SOLUTIONS / "10-compare-migrations.session.toml"))
    assert d["passed"] and d["score"] == d["max_score"]
    o = objectives(d)
    assert "3 passes" in o["lgr"]["detail"]
    assert "quiesce 0.2 s" in o["vmotion"]["detail"]
    assert max(x["t_s"] for x in d["objectives"]) < 230


def test_defaults_miss_three_limits(scenario):
    """The wrong approach: defaults everywhere, both LPMs through the same MSPs at once."""
    wrong = SOLUTIONS / "10-compare-migrations.wrong.session.toml"
    d = grade_session(scenario, load_session(wrong))
    o = objectives(d)
    assert o["lgr"]["status"] == "failed" and "4 passes" in o["lgr"]["detail"]
    assert "in all (at most 15 s)" in o["lgr"]["detail"]
    assert o["lpm-pdb"]["status"] == "failed" and "(at most 150 s)" in o["lpm-pdb"]["detail"]
    # ZAPP's trip back shared the MSPs' links with PDB's migration
    assert o["lpm-back"]["status"] == "failed" and "(at most 100 s)" in o["lpm-back"]["detail"]
    assert o["vmotion"]["status"] == "met", "the default Storage vMotion method is IO mirroring"
    assert not d["passed"] and d["score"] == 25


def test_lgr_immediate_is_the_shortest_relocation(scenario):
    default = move(scenario, "ZAPP", "VMRELOCATE MOVE ZAPP TO HOST2", "lgr", 60)
    immediate = move(scenario, "ZAPP", "VMRELOCATE MOVE ZAPP TO HOST2 IMMEDIATE", "lgr", 60)
    assert default["passes"] == 4 and immediate["passes"] == 3
    assert immediate["relocation_s"] < 15 < default["relocation_s"]
    assert default["quiesce_s"] < 6 and immediate["quiesce_s"] < 6


def test_lpm_on_slow_links_needs_compression_and_threads(scenario):
    t = {opts: move(scenario, "PDB", f"LPM PDB TO HOST2 {opts}".strip(), "lpm")["relocation_s"]
         for opts in ("", "THREADS 4", "COMPRESS", "THREADS 4 COMPRESS")}
    assert t["THREADS 4"] == pytest.approx(t[""], rel=0.01), "the 10 Gb links are the limit"
    assert t["COMPRESS"] < t[""] - 50
    assert t["THREADS 4 COMPRESS"] < 150 < t["COMPRESS"]


@pytest.mark.parametrize("method", ["MIRROR", "DBT", "INCDBT", "SNAPSHOT"])
def test_only_io_mirroring_switches_in_under_a_second(scenario, method):
    d = move(scenario, "MAIL", f"VMOTION MAIL TO DSNEW METHOD {method}", "vmotion")
    assert d["result"] == "moved"
    assert (d["quiesce_s"] <= 1) == (method == "MIRROR")
    if method == "SNAPSHOT":
        assert d["cost"]["space_peak_x"] > 2

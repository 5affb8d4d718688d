"""Every bundled scenario loads, runs to its end and keeps every invariant."""

from __future__ import annotations

import pytest
from physical_bounds import physical_bounds_broken

from ssisim.cli import bundled_dir, bundled_scenarios
from ssisim.engine import Simulation, build_summary, load_scenario

SCENARIOS = bundled_scenarios()


def test_the_bundle_has_the_demo_and_an_overcommit_scenario():
    names = {p.stem for p in SCENARIOS}
    assert {"demo", "overcommit"} <= names


# the pausing, 2 TB and 1,000-guest scenarios take seconds each: `make test-fast` skips them
SLOW = ("pause", "large", "shop-1000")
RUNS = [pytest.param(p, marks=pytest.mark.slow) if {p.parent.name, p.stem} & set(SLOW) else p
        for p in SCENARIOS]


@pytest.mark.parametrize("path", RUNS, ids=lambda p: str(p.relative_to(bundled_dir())))
def test_bundled_scenario_runs(path):
    sc = load_scenario(path)
    sim = Simulation(sc)
    sim.run_until(sc.duration_s)
    # a lesson's clock stops when the lesson ends (every task decided), otherwise at the end
    end = sim.lesson.ended_s if sim.lesson is not None and sim.lesson.ended else sc.duration_s
    assert sim.t == pytest.approx(end)
    assert sim.verify() == []
    summary = build_summary(sim)
    failed = [c for c in summary["commands"] if c["rc"] != 0]
    assert not failed, f"timeline commands refused: {failed}"
    assert len(summary["commands"]) == len(sc.timeline)
    assert physical_bounds_broken(sim) == []


def test_overcommit_idle_guests_pay_before_active_ones():
    sc = load_scenario(bundled_dir() / "overcommit.toml")
    sim = Simulation(sc)
    sim.run_until(sc.duration_s)
    s = build_summary(sim)
    idle = [g for g in s["guests"] if g["userid"].startswith("IDLE")]
    active = [g for g in s["guests"] if g["userid"].startswith("ACTIVE")]
    paid = [g for g in idle if g["paged_out"] > 0]
    assert paid and all("xstor" in g["first_pageout_s"] for g in paid)
    assert all(g["first_pageout_s"]["xstor"] <= g["first_pageout_s"].get("dasd", 1e9)
               for g in paid)  # XSTOR first, then on to DASD
    assert any("dasd" in g["first_pageout_s"] for g in paid)
    assert all(g["paged_out"] == 0 for g in active)
    assert all(g["pages"]["central"] >= 0.95 * 4 * 262144 for g in active), \
        "the active guests grew to their full working sets"

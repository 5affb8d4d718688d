"""A random workload's walk carries the gap to its next reference from one step to the next:
a gap drawn in a step of one length holds for a step of another only scaled to its chance per
page (engine/core/driver.py, ``carried_gap``)."""

from __future__ import annotations

import pytest

from ssisim.engine import Simulation, loads_scenario
from ssisim.engine.core.driver import carried_gap

SCENARIO = '''
format = "ssisim-scenario"
version = 1
name = "changer"
[run]
seed = 8
duration_s = 60
step_s = 1
[[member]]
name = "M1"
cpus = 4
central = "8G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[guest]]
userid = "CHG"
member = "M1"
storage = "4G"
vcpus = 2
workload = { type = "randchange", fraction = 0.5, rate_pages_s = 200000 }
'''


def rate(sim: Simulation, seconds: float) -> float:
    g = sim.guests["CHG"]
    u0, t0 = g.units_total, sim.t
    sim.run_until(t0 + seconds)
    return (g.units_total - u0) / (sim.t - t0)


def test_a_pass_that_ends_a_sliver_into_a_step_does_not_stop_the_guest() -> None:
    """A relocation's pass that ends just after a step began runs the guest for that sliver
    alone (``Simulation.run_guest_until``): its walk draws the gap to its next reference with
    a sliver's chance per page, some billions of pages. Carried unscaled into the next steps,
    that gap held the guest still for the rest of the run."""
    sim = Simulation(loads_scenario(SCENARIO))
    sim.defer_touches = False  # every reference walked, as a relocating guest's are
    g = sim.guests["CHG"]
    sim.run_until(20)
    before = rate(sim, 5)
    assert before == pytest.approx(200_000, rel=0.01)
    sim.run_guest_until(g, sim.t + 2e-9)
    after = rate(sim, 5)
    assert after == pytest.approx(before, rel=0.05)


@pytest.mark.parametrize("gap, drawn, now, want", [
    (1000, -0.01, -0.01, 1000),      # the same chance: the same gap
    (1000, -0.01, -0.02, 500),       # twice the chance per page: half the pages
    (10**12, -1e-9, -0.005, 200_000),   # drawn in a sliver: scaled to the step's chance
    (1000, -0.01, 0.0, 0),           # a walk that selects every page skips none
    (10**12, -1.0, -1e-20, 4 * 10**18),  # no further than a walk's longest gap (int64)
])
def test_a_carried_gap_scales_with_the_chance_per_page(gap, drawn, now, want) -> None:
    assert carried_gap(gap, drawn, now) == want

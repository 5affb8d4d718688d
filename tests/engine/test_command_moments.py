"""A command due within a step runs at its moment in it, and so does the end of a timed phase
(a logon's Linux boot): the guests run up to it first, and what it changes holds from then on,
at any step length."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssisim.engine import Simulation, loads_scenario

# Two busy application servers of 4 GB on MEMB1.
BASE = (Path(__file__).parents[1] / "cases" / "busy-pair.toml").read_text()


def served(step_s: float, stop_at: float | None) -> tuple[float, list[float]]:
    """Requests the guest served from 8 s to 12 s with a CP STOP at ``stop_at`` (None: none),
    and the times of the STOPPED events."""
    text = BASE.replace("step_s = 1", f"step_s = {step_s}")
    if stop_at is not None:
        text += f'\n[[timeline]]\nat_s = {stop_at}\ncommand = "SEND CP APP1 STOP"\n'
    sim = Simulation(loads_scenario(text))
    sim.run_until(8)
    before = sim.guests["APP1"].units_total
    sim.run_until(12)
    return (sim.guests["APP1"].units_total - before,
            [e.t_s for e in sim.events if e.kind == "STOPPED"])


@pytest.mark.parametrize("step_s", [1.0, 4.0])
def test_a_stop_due_within_a_step_stops_the_guest_at_its_moment(step_s: float) -> None:
    """CP STOP due at 10 s, half-way through a step of 4 s from 8 s: the guest serves its
    requests up to 10 s and none after, as with steps of 1 s (run at the next step, at 12 s, it
    let the guest serve the whole step)."""
    whole, _ = served(step_s, None)
    half, stopped = served(step_s, 10.0)
    assert stopped == [10.0]
    assert whole > 150  # 50 requests a second
    assert half == pytest.approx(whole / 2, rel=0.1)


def test_a_logons_application_starts_the_moment_linux_has_booted() -> None:
    """A guest forced off and logged on again: Linux boots for a fixed time, then its
    application starts up (6 CPU seconds) and touches its storage. The boot ends within a step;
    the application starts then, not at the next step, so the guest is initialised and active
    at the same moments at steps of 0.25 and 2 s (begun at the next step, active 11.75 s after
    logon at 0.25 s steps and 12.0 s at 2 s; and 20 s at 5 s steps)."""
    base = BASE.replace('requests_per_s = 50 }', 'requests_per_s = 50, startup_cpu_s = 6 }', 1)
    found = []
    for step in (0.25, 2.0):
        sim = Simulation(loads_scenario(base.replace("step_s = 1", f"step_s = {step}") + '''
[[timeline]]
at_s = 10
command = "FORCE APP1"
[[timeline]]
at_s = 20
command = "XAUTOLOG APP1"
'''))
        sim.run_until(60)
        ev = {e.kind: e for e in sim.events if e.userid == "APP1" and e.t_s > 20}
        assert ev["WORKLOAD"].data["startup_s"] > 6.0
        found.append((ev["WORKLOAD"].t_s, ev["ACTIVE"].data["seconds"]))
    (ready_a, active_a), (ready_b, active_b) = found
    assert ready_b == pytest.approx(ready_a, abs=0.01)
    assert active_b == pytest.approx(active_a, abs=0.05)


@pytest.mark.parametrize("step_s", [1.0, 4.0])
def test_a_guest_begun_within_a_step_runs_from_that_moment_only(step_s: float) -> None:
    """CP STOP at 4 s, BEGIN at 10 s, half-way through a step of 4 s from 8 s: from 8 s to
    12 s the guest serves its requests of the last two seconds only (run from the start of
    the step, as if it had not been stopped, it served all four)."""
    text = BASE.replace("step_s = 1", f"step_s = {step_s}") + '''
[[timeline]]
at_s = 4
command = "SEND CP APP1 STOP"
[[timeline]]
at_s = 10
command = "SEND CP APP1 BEGIN"
'''
    sim = Simulation(loads_scenario(text))
    sim.run_until(8)
    before = sim.guests["APP1"].units_total
    sim.run_until(12)
    whole, _ = served(step_s, None)
    assert sim.guests["APP1"].units_total - before == pytest.approx(whole / 2, rel=0.1)


def test_a_guest_logged_on_at_a_step_runs_the_whole_step_whatever_came_before() -> None:
    """Forced off within a step, and commands run within later steps while it was away: logged
    on again at the start of a step, the guest runs the whole of that step, as one forced off
    on a step boundary does (the part of a step before a command's moment, kept from a step
    while it was logged off, cost it the start of its first step)."""
    def pages_at_24(force_at: float, more: str) -> int:
        text = BASE.replace("step_s = 1", "step_s = 4") + f'''
[[timeline]]
at_s = {force_at}
command = "FORCE APP1"
[[timeline]]
at_s = 20
command = "XAUTOLOG APP1"
''' + more
        sim = Simulation(loads_scenario(text))
        sim.run_until(24)
        return sim.guests["APP1"].instantiated

    plain = pages_at_24(12.0, "")
    later = pages_at_24(12.5, '[[timeline]]\nat_s = 14.5\ncommand = "QUERY TIME"\n')
    assert plain > 0
    assert later == plain

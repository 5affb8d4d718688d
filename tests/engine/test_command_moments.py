"""A command due within a step runs at its moment in it, and so does the end of a timed phase
(a logon's Linux boot): the guests run up to it first, and what it changes holds from then on,
at any step length."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssisim.engine import Simulation, loads_scenario

# Two busy application servers of 4 GB on MEMB1.
BASE = (Path(__file__).parents[1] / "cases" / "busy-pair.toml").read_text()


def with_commands(step_s: float, *commands: tuple[float, str], base: str = BASE) -> str:
    """``base`` at steps of ``step_s`` with a timeline of ``(at_s, command)``."""
    text = base.replace("step_s = 1", f"step_s = {step_s}")
    for at, command in commands:
        text += f'\n[[timeline]]\nat_s = {at}\ncommand = "{command}"\n'
    return text


def served(step_s: float, *commands: tuple[float, str]) -> tuple[float, list[float]]:
    """Requests APP1 served from 8 s to 12 s with ``commands`` on the timeline, and the times of
    the STOPPED events."""
    sim = Simulation(loads_scenario(with_commands(step_s, *commands)))
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
    whole, _ = served(step_s)
    half, stopped = served(step_s, (10.0, "SEND CP APP1 STOP"))
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
        sim = Simulation(loads_scenario(with_commands(step, (10, "FORCE APP1"),
                                                      (20, "XAUTOLOG APP1"), base=base)))
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
    whole, _ = served(step_s)
    begun, _ = served(step_s, (4, "SEND CP APP1 STOP"), (10, "SEND CP APP1 BEGIN"))
    assert begun == pytest.approx(whole / 2, rel=0.1)


def test_a_guest_logged_on_at_a_step_runs_the_whole_step_whatever_came_before() -> None:
    """Forced off within a step, and commands run within later steps while it was away: logged
    on again at the start of a step, the guest runs the whole of that step, as one forced off
    on a step boundary does (the part of a step before a command's moment, kept from a step
    while it was logged off, cost it the start of its first step)."""
    def pages_at_24(force_at: float, *more: tuple[float, str]) -> int:
        sim = Simulation(loads_scenario(with_commands(4.0, (force_at, "FORCE APP1"),
                                                      (20, "XAUTOLOG APP1"), *more)))
        sim.run_until(24)
        return sim.guests["APP1"].instantiated

    plain = pages_at_24(12.0)
    later = pages_at_24(12.5, (14.5, "QUERY TIME"))
    assert plain > 0
    assert later == plain

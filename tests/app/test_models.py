"""The Qt-free parts: pacing, history and the frames the worker publishes."""

from __future__ import annotations

import math

from ssisim.app.history import History
from ssisim.app.mailbox import Mailbox
from ssisim.app.pacing import Pacer
from ssisim.cli import resolve_scenario
from ssisim.engine import Simulation, load_scenario


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_pacer_holds_the_simulated_clock_to_the_wall_clock():
    clock = FakeClock()
    p = Pacer(10.0, clock)
    p.restart(0.0)
    assert p.allowed(0.0) == 0.0
    assert p.wait_s(0.0, 1.0) == 0.1  # a 1 s step is due after 0.1 wall seconds at 10x
    clock.t += 0.25
    assert p.allowed(0.0) == 2.5
    clock.t += 10.0  # the machine fell far behind: no burst to catch up
    assert p.allowed(2.0) == 2.0 + 0.5 * 10
    p.set_factor(None, 7.0)
    assert math.isinf(p.allowed(7.0)) and p.wait_s(7.0, 1.0) == 0.0


def test_at_1x_a_step_longer_than_the_lag_still_comes_due():
    clock = FakeClock()
    p = Pacer(1.0, clock)
    p.restart(0.0)
    for _ in range(9):  # looked at every 0.1 s of wall time, as the worker does
        clock.t += 0.1
        assert p.allowed(0.0, 1.0) < 1.0  # the 1 s step is not due yet
    clock.t += 0.1
    assert p.allowed(0.0, 1.0) >= 1.0 - 1e-9  # after a wall second it is


def test_samples_history_and_mailbox_keep_every_step():
    sim = Simulation(load_scenario(resolve_scenario("demo")))
    feed = sim.sample_feed()  # one sample now, then one after every step
    box = Mailbox()
    for _ in range(5):
        sim.step()
        box.put(1, sim.snapshot(), feed.take_new(), [], [], True)
    frame = box.take()
    assert box.take() is None  # taken once
    assert frame.snapshot.t_s == 5.0 and len(frame.samples) == 6
    h = History([m.name for m in frame.snapshot.members], [g.userid for g in frame.snapshot.guests])
    h.extend(frame.samples)
    assert list(h.t) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    m1 = frame.snapshot.members[0]
    assert h.member("MEMB1", "central_used")[-1] == m1.resident
    g = frame.snapshot.guests[0]
    assert h.guest(g.userid, "central")[-1] == g.central
    snap = sim.snapshot()
    sim.step()
    box.put(1, snap, feed.take_new(), [], [], False)
    box.put(2, snap, [], [], [], False)  # a new simulation drops the old rows
    sim.step()
    box.put(1, snap, feed.take_new(), [], [], True)  # and the old one's late frames
    frame = box.take()
    assert frame.generation == 2 and frame.samples == () and not frame.running

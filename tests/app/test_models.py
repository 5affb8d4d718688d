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


def test_a_thousand_guests_history_keeps_to_its_room(monkeypatch):
    """A thousand guests' rows are 5,000 numbers: the history is thinned before it outgrows
    its budget, and its room is taken once (never grown by copying tens of MB, which stopped
    the window); a dozen guests' keep their 200,000 rows."""
    from ssisim.app import history
    from ssisim.engine import GuestSample, MemberSample, SampleSet

    assert History(["M1"], [f"G{i}" for i in range(12)]).max_rows == history.MAX_ROWS
    assert History(["M1"], [f"G{i}" for i in range(1000)]).max_rows == 3200
    monkeypatch.setattr(history, "MAX_GUEST_CELLS", 1000 * len(history.GUEST_COLUMNS) * 300)
    guests = tuple(GuestSample(0.0, f"G{i:04d}", "M1", "dispatch", i, 0, 0, 1.0, 0)
                   for i in range(1000))
    member = (MemberSample(0.0, "M1", 1, 2, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0),)
    h = History(["M1"], [g.userid for g in guests])
    assert h.max_rows == 300
    room = h._g._data
    for t in range(0, 1000, 5):
        h.extend([SampleSet(float(t + i), member, guests) for i in range(5)])
        assert len(h) <= h.max_rows
    assert h._g._data is room  # the same room throughout
    ts = list(h.t)
    assert ts == sorted(ts) and ts[0] == 0.0 and ts[-1] >= 990.0  # the whole run, thinned
    assert list(h.guest("G0007", "central")) == [7.0] * len(ts)

"""Quiet members are stepped several steps at a time (``[run] quiet_step_s``), and an uncontended
guest is served whatever work a step brings: results must not depend on the length of the step.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from ssisim.engine import ScenarioError, Simulation, loads_scenario

CLUSTER = '''
format = "ssisim-scenario"
version = 1
name = "quiet"
[run]
seed = {seed}
duration_s = {duration}
step_s = {step}
sample_s = 20
quiet_step_s = {quiet}
[[member]]
name = "A"
cpus = 8
central = "{central}"
xstor = "512M"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[member]]
name = "B"
cpus = 8
central = "16G"
  [[member.volume]]
  volid = "PAG002"
  size = "16G"
[[link]]
members = ["A", "B"]
chpids = [{{ gbps = 2, ctcs = 1 }}]  # a slow link: a relocation takes a while
'''

GUESTS = '''
[[guest]]
userid = "WEB{i}"
member = "{member}"
storage = "1G"
vcpus = 2
workload = {{ type = "webserver", wss_mb = 700, requests_per_s = 100 }}
[[guest]]
userid = "DB{i}"
member = "{member}"
storage = "1G"
workload = {{ type = "database", wss_mb = 600, requests_per_s = 40, pages_per_request = 100 }}
[[guest]]
userid = "IDL{i}"
member = "{member}"
storage = "512M"
workload = {{ type = "idle" }}
'''


def scenario(seed: int = 5, step: float = 1.0, quiet: float = 0.0, central: str = "16G",
             duration: float = 120.0, extra: str = "") -> str:
    text = CLUSTER.format(seed=seed, step=step, quiet=quiet, central=central, duration=duration)
    for i in range(4):
        text += GUESTS.format(i=i, member="A" if i < 2 else "B")
    return text + extra


def counting(sim: Simulation) -> dict[str, list[float]]:
    """The steps each member was given (their lengths), as the simulation steps them."""
    calls: dict[str, list[float]] = {}
    step_member = sim._step_member

    def counted(m, dt, end):
        calls.setdefault(m.name, []).append(dt)
        return step_member(m, dt, end)

    sim._step_member = counted  # type: ignore[method-assign]
    return calls


def totals(sim: Simulation) -> tuple[float, int]:
    return (sum(g.units_total for g in sim.guests.values()),
            sum(m.resident for m in sim.members.values()))


def test_a_quiet_member_takes_ten_seconds_at_a_time_and_gives_the_same_results():
    fine, coarse = [], []
    for seed in (5, 6, 7):
        sim = Simulation(loads_scenario(scenario(seed=seed), "<fine>"))
        sim.run_until(120)
        fine.append(totals(sim))
        samples = [s.t_s for s in sim.samples_member]
        sim = Simulation(loads_scenario(scenario(seed=seed, quiet=10), "<coarse>"))
        calls = counting(sim)
        sim.run_until(120)
        coarse.append(totals(sim))
        # every simulated second is stepped once, most of them ten at a time (the members
        # take turns; a run's sample, every 20 s here, brings each up to date)
        for name in ("A", "B"):
            assert sum(calls[name]) == pytest.approx(120.0)
            assert len(calls[name]) <= 20
        assert not sim.verify()
        # the samples are taken at the same times, with every member up to date
        assert [s.t_s for s in sim.samples_member] == samples
    # throughput and storage as with every step (three seeds: an idle guest's few references
    # spread by about 1 % from seed to seed)
    for i in (0, 1):
        assert sum(c[i] for c in coarse) == pytest.approx(sum(f[i] for f in fine), rel=0.006)


def test_a_command_sees_every_member_as_of_its_time():
    sim = Simulation(loads_scenario(scenario(quiet=10), "<coarse>"))
    sim.run_until(15)
    assert any(m.lag for m in sim.members.values())  # quiet members are behind the clock
    resp = sim.execute("INDICATE LOAD")
    assert resp.rc == 0
    # (and its free-frame marks were set over the time it really ran: a member stepped ten
    # seconds at a time, or brought up to date for a command, ends its long step at the
    # moment it has got to, never later; a later one made the next pace look like none)
    for m in sim.members.values():
        assert m.marks_at[0] <= sim.t + 1e-9
    assert not any(m.lag for m in sim.members.values())
    web = sim.guests["WEB0"]
    # 100 requests a second for the 15 seconds so far
    assert web.units_total == pytest.approx(1500, rel=0.05)


def test_a_relocation_makes_the_members_step_every_step_until_it_ends():
    extra = '''
[[timeline]]
at_s = 25
command = "VMRELOCATE MOVE USER WEB0 TO B"
'''
    sim = Simulation(loads_scenario(scenario(quiet=10, extra=extra), "<reloc>"))
    calls = counting(sim)
    sim.run_until(120)
    ended = [e.t_s for e in sim.events if e.kind == "RELOCATION_DONE"]
    assert ended, "the relocation ended"
    # from the command to the end of the relocation, both members took steps of 1 s (a step
    # runs the relocation's part of it first, so the step it ended in may be a quiet one)
    steps_a = calls["A"]
    t, during = 0.0, []
    for dt in steps_a:
        if 25 <= t and t + 1.0 < ended[0]:
            during.append(dt)
        t += dt
    assert during and all(dt == pytest.approx(1.0) for dt in during)
    assert sim.guests["WEB0"].member == "B"


def test_a_member_without_room_for_its_working_sets_is_stepped_every_step():
    # member A holds 768M for working sets of about 2.7G: it will page, and which pages go
    # depends on when the demand scan runs
    sim = Simulation(loads_scenario(scenario(quiet=10, central="768M"), "<short>"))
    calls = counting(sim)
    sim.run_until(60)
    assert not sim.members["A"].roomy
    assert len(calls["A"]) == 60 and all(dt == pytest.approx(1.0) for dt in calls["A"])
    assert len(calls["B"]) <= 10


@pytest.mark.parametrize("step", [0.1, 1.0, 5.0])
def test_an_uncontended_guest_serves_what_its_workload_brings_at_any_step(step):
    # the step's random references may run above their average: with CPU to spare the guest
    # serves them, so 100 requests a second come out as 100 a second whatever the step
    runs = []
    for seed in range(3):
        sim = Simulation(loads_scenario(scenario(seed=seed, step=step), "<web>"))
        sim.run_until(120)
        runs.append(sim.guests["WEB1"].units_total)
    assert sum(runs) / len(runs) == pytest.approx(100 * 120, rel=0.01)


@pytest.mark.parametrize("value,says", [
    ("2.5", "not a whole multiple of step_s"),
    ("0.5", "not a whole multiple of step_s"),
    ("-1", "must be 0 (off) to 600 s"),
    ("601", "must be 0 (off) to 600 s"),
])
def test_a_quiet_step_that_is_not_a_multiple_of_the_step_is_refused(value, says):
    text = scenario(quiet=0).replace("quiet_step_s = 0", f"quiet_step_s = {value}")
    with pytest.raises(ScenarioError) as e:
        loads_scenario(text, "shop.toml")
    msg = str(e.value)
    assert "shop.toml" in msg and "quiet_step_s" in msg and says in msg


def test_a_run_beyond_the_scenarios_end_keeps_stepping_quiet_members_together():
    sim = Simulation(loads_scenario(scenario(quiet=10, duration=60), "<short>"))
    calls = counting(sim)
    sim.run_until(180)
    for name in ("A", "B"):
        assert sum(calls[name]) == pytest.approx(180.0)
        assert len(calls[name]) <= 30


def test_a_viewers_feed_shows_quiet_members_with_steady_rates():
    sim = Simulation(loads_scenario(scenario(quiet=10), "<coarse>"))
    feed = sim.sample_feed()  # asks for a sample after every step
    sim.run_until(60)
    sets = feed.take_new()[1:]  # (the first is of the start)
    # while members skip steps (each on its own turn), a sample comes every ten seconds: each
    # member has been stepped once since the one before; when all are up to date (the run's
    # samples, every 20 s here) at once
    times = [s.t_s for s in sets]
    assert times[-5:] == [20.0, 30.0, 40.0, 50.0, 60.0] and len(times) <= 8
    assert all(b - a <= 10.0 + 1e-9 for a, b in pairwise(times))
    # a member shows as of its last step, and its guests' rates cover the time between its
    # steps: a web server's 100 requests a second come out as about 100 in every sample,
    # never as nothing for nine seconds and a thousand in the tenth, nor as half and one
    # and a half where a member's turn and a run's sample split its ten seconds
    for s in sets[-5:]:
        for uid in ("WEB0", "WEB1"):
            (web,) = [g for g in s.guests if g.userid == uid]
            assert web.throughput == pytest.approx(100.0, rel=0.1)


def test_quiet_members_take_turns_at_their_long_steps():
    sim = Simulation(loads_scenario(scenario(quiet=10), "<coarse>"))
    sim.run_until(20)
    stepped: dict[int, list[str]] = {}
    step_member = sim._step_member

    def counted(m, dt, end):
        stepped.setdefault(sim.steps, []).append(m.name)
        return step_member(m, dt, end)

    sim._step_member = counted  # type: ignore[method-assign]
    sim.run_until(39)  # no run sample falls in between (every 20 s)
    # each member ten seconds at a time, but on its own step: no step of a viewer carries
    # every member's ten seconds at once
    # (A at 30 s, for 20 to 30; B, five seconds later in its turn, at 25 and 35 s)
    assert sorted(n for names in stepped.values() for n in names) == ["A", "B", "B"]
    assert all(len(names) == 1 for names in stepped.values())


def test_a_guest_stopped_on_a_quiet_member_makes_it_step_every_step():
    sim = Simulation(loads_scenario(scenario(quiet=10), "<coarse>"))
    sim.run_until(25)
    calls = counting(sim)
    sim.run_until(40)
    assert len(calls["A"]) <= 3  # quiet: ten seconds at a time
    assert sim.execute("SEND CP WEB0 STOP").ok
    calls.clear()
    sim.run_until(50)
    # a stopped guest's interrupts are served every step: its member no longer skips any
    assert calls["A"] == [1.0] * 10
    # the other member's guests all run: it still skips steps (on its own turn, 5 s later)
    assert calls["B"] == [5.0]


def test_a_snapshot_gives_a_guest_a_new_picture_only_when_what_it_shows_changed():
    """A window's frames of a large cluster are mostly quiet guests: their pictures are the
    same objects from frame to frame (the views skip them), and any change gives a new one."""
    sim = Simulation(loads_scenario(scenario(quiet=10), "<coarse>"))
    sim.run_until(21)
    before = {g.userid: g for g in sim.snapshot().guests}
    stepped = {n for n, m in sim.members.items() if m.lag == 0}
    sim.step()  # one member takes its ten seconds, the other waits for its turn
    after = {g.userid: g for g in sim.snapshot().guests}
    member = {uid: g.member for uid, g in after.items()}
    # the guests of the member that waited: the very same pictures
    waited = [uid for uid in after if member[uid] not in stepped and member[uid] is not None]
    assert waited and all(after[uid] is before[uid] for uid in waited)
    # a command changes a guest: its next picture shows it
    assert sim.execute("FORCE IDL3").ok
    changed = {g.userid: g for g in sim.snapshot().guests}["IDL3"]
    assert changed is not after["IDL3"]
    assert (changed.member, changed.state) == (None, "logged off") != \
        (after["IDL3"].member, after["IDL3"].state)
    # and the pictures always tell what the guests are now
    for g in sim.snapshot().guests:
        live = sim.guests[g.userid]
        assert (g.member, g.state, g.central, g.xstor, g.dasd) == \
            (live.member, live.state, live.n_cen, live.n_xst, live.n_dsd)

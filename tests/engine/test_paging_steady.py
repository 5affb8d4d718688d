"""A member that pages as fast as its devices allow pages at that pace every step: the guests'
page reads and the demand scan's writes share the devices within a step, and a fault's wait does
not hang on how busy the devices were the step before. (The step is a way to compute, not a
rhythm of the system: a throughput that alternates between a flood and a standstill from one step
to the next is the model's, and a chart or an average over a short interval shows it.)"""

from __future__ import annotations

import statistics

import pytest

from ssisim.engine import Simulation, loads_scenario

SCENARIO = '''
format = "ssisim-scenario"
version = 1
name = "paging-bound"
[run]
seed = {seed}
duration_s = 200
step_s = {step}
sample_s = 10
[[member]]
name = "A"
cpus = 8
central = "4G"
  [[member.volume]]
  volid = "PAG001"
  size = "24G"
  [[member.volume]]
  volid = "PAG002"
  size = "24G"
[[guest]]
userid = "BUSY"
member = "A"
storage = "8G"
vcpus = 6
workload = {{ type = "randchange", fraction = 0.25, rate_pages_s = 150000 }}
[[guest]]
userid = "DB"
member = "A"
storage = "2G"
vcpus = 2
workload = {{ type = "database", wss_mb = 1536, requests_per_s = 100, pages_per_request = 200 }}
[[timeline]]
at_s = 20
command = "WORKLOAD BUSY SET FRACTION 1"
'''


def per_step(seed: int, step: float, t0: float, t1: float) -> dict[str, list[float]]:
    """Per step from ``t0`` to ``t1``: BUSY's and DB's work, the member's page reads and the
    use of its paging devices."""
    sim = Simulation(loads_scenario(SCENARIO.format(seed=seed, step=step)))
    m = sim.members["A"]
    busy, db = sim.guests["BUSY"], sim.guests["DB"]
    sim.run_until(t0)
    got: dict[str, list[float]] = {"busy": [], "db": [], "reads": [], "io": []}
    before = (busy.units_total, db.units_total, m.counters.dasd_in)
    t = t0
    while t < t1 - 1e-9:
        t += step
        sim.run_until(t)
        now = (busy.units_total, db.units_total, m.counters.dasd_in)
        for k, a, b in zip(("busy", "db", "reads"), now, before):
            got[k].append(a - b)
        got["io"].append(m.io_util)
        before = now
    assert m.slots_used > 0 and max(got["io"]) > 0.95, "the member pages at its devices' pace"
    return got


def lag1(xs: list[float]) -> float:
    mean = statistics.fmean(xs)
    d = [x - mean for x in xs]
    return sum(a * b for a, b in zip(d, d[1:])) / sum(a * a for a in d)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_paging_bound_guest_works_at_a_steady_pace(seed):
    got = per_step(seed, 1.0, 80, 140)
    units = got["busy"]
    mean = statistics.fmean(units)
    assert mean > 0
    assert min(units) > 0.4 * mean, f"a step where the guest stood still: {units}"
    assert lag1(units) > -0.5, f"throughput alternates from step to step: {units}"
    assert min(got["reads"]) > 0.3 * statistics.fmean(got["reads"]), \
        f"page reads stopped for a step: {got['reads']}"


def test_a_small_guest_is_not_starved_by_a_big_faulter():
    """DB's faults queue beside BUSY's: it keeps serving every step, whichever runs first."""
    db = per_step(1, 1.0, 80, 140)["db"]
    assert min(db) > 0.5 * statistics.fmean(db), f"DB stood still in some steps: {db}"


def test_the_paging_pace_does_not_hang_on_the_step():
    """Halving the step leaves the work done over a minute of paging within a tenth."""
    whole = sum(per_step(1, 1.0, 80, 140)["busy"])
    half = sum(per_step(1, 0.5, 80, 140)["busy"])
    assert half == pytest.approx(whole, rel=0.1)


TOUCHERS = '''
format = "ssisim-scenario"
version = 1
name = "eight touchers"
[run]
seed = 5
duration_s = 60
step_s = 1
sample_s = 10
[[member]]
name = "M1"
cpus = 8
central = "1G"
  [[member.volume]]
  volid = "PG0001"
  size = "8G"
  kind = "eckd"
[[guest]]
userid = "LNX1"
member = "M1"
storage = "4G"
vcpus = 8
workload = { type = "seqtouch", buffer_mb = 2048, instances = 8 }
'''


def test_each_toucher_of_a_guest_gets_its_part_of_the_paging_io() -> None:
    """Eight touchers, one per virtual CPU, fault at the same time and their reads share the
    devices' queue: none of them waits for the others to be served first. (Walked one after
    another within a step, the first touchers took the guest's whole paging I/O and the last
    three never got a page in.) Which keep their slice resident and which lose it is the
    demand scan's (the slices touched longest ago give first); every one of them walks on."""
    sim = Simulation(loads_scenario(TOUCHERS))
    part = 2048 * 256 // 8
    g = sim.guests["LNX1"]
    sim.run_until(5)
    stood: list[tuple[int, int]] = []  # (second, toucher) that walked no page in it
    at = [c[0] for c in g.cursors[:8]]
    for t in range(5, 60):
        sim.step()
        for i, c in enumerate(g.cursors[:8]):
            if (c[0] - at[i]) % part == 0:
                stood.append((t, i))
            at[i] = c[0]
    assert g.counters.dasd_in > 0  # the touchers page
    # every toucher walks on in every second, through pages brought back from DASD (a
    # walk that paid with its paging I/O for the frames the demand scan freed had none left
    # for its own read, and the frames went to the touchers after it: the first stood still
    # from the first second to the 52nd)
    assert not stood, stood[:10]


def idle_guests_with_pages_out() -> str:
    """TOUCH walks 3 GB on a 3 GB member; eight guests touched 512 MB each, then went idle:
    the demand scan took their pages first, and they stay on DASD."""
    text = '''
format = "ssisim-scenario"
version = 1
name = "idle guests with pages out"
[run]
seed = 4
duration_s = 300
step_s = 1
[[member]]
name = "M1"
cpus = 8
central = "3G"
  [[member.volume]]
  volid = "PG0001"
  size = "16G"
  kind = "eckd"
[[guest]]
userid = "TOUCH"
member = "M1"
storage = "4G"
vcpus = 1
workload = { type = "seqtouch", buffer_mb = 3072 }
'''
    for i in range(8):
        text += f'''
[[guest]]
userid = "IDLE{i}"
member = "M1"
storage = "1G"
vcpus = 2
workload = {{ type = "seqtouch", buffer_mb = 512, rate_pages_s = 20000 }}
[[timeline]]
at_s = 30
command = "WORKLOAD IDLE{i} START IDLE WSS_MB 1"
'''
    return text


def test_idle_guests_with_pages_on_dasd_do_not_make_a_fault_wait() -> None:
    """A read waits its turn behind the reads the devices already hold: the places the guests'
    reads held in the member's last step (reads a second times their wait). Eight idle guests
    with 16 virtual CPUs and pages on DASD hold none, so TOUCH's reads wait the volume's
    service time, not 17 / 4 of it (as when every virtual CPU of a guest with a page on DASD
    counted as waiting, and TOUCH walked ten times slower)."""
    sim = Simulation(loads_scenario(idle_guests_with_pages_out()))
    m = sim.members["M1"]
    sim.run_until(300)
    assert all(sim.guests[f"IDLE{i}"].n_dsd > 0 for i in range(8))
    assert sim.guests["TOUCH"].counters.dasd_in > 0  # TOUCH pages
    assert sim.dasd_wait_s(m) == pytest.approx(m.cfg.volumes[0].service_ms / 1000)


def test_a_guest_waiting_for_frames_that_wait_for_writes_holds_its_places() -> None:
    """A guest still touching pages for the first time needs no reads, but on a member whose
    paging device cannot write out pages as fast as it takes frames, its virtual CPUs wait for
    frames, and the frames for writes in the device's queue: they hold its places as faults
    do, so a relocation from the member reads with what is left (they counted none). Its
    three touchers wait on three virtual CPUs; one toucher would hold one place."""
    text = '''
format = "ssisim-scenario"
version = 1
name = "frames wait for writes"
[run]
seed = 3
duration_s = 60
step_s = 1
[[member]]
name = "M1"
cpus = 4
central = "2G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
  service_ms = 20
  queue_depth = 1
[[guest]]
userid = "GROW"
member = "M1"
storage = "8G"
vcpus = 3
workload = { type = "seqtouch", buffer_mb = 6000, rate_pages_s = 200000, instances = 3 }
'''
    sim = Simulation(loads_scenario(text))
    sim.run_until(20)
    m = sim.members["M1"]
    assert m.free_frames < m.free_low  # the device cannot keep up
    assert m.fault_places == pytest.approx(3.0)


CHANGER = '''
format = "ssisim-scenario"
version = 1
name = "a random changer a little larger than memory"
[run]
seed = 1
duration_s = 200
step_s = {step}
[[member]]
name = "A"
cpus = 4
central = "1800M"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
  service_ms = 0.5
  queue_depth = 8
[[guest]]
userid = "CHG"
member = "A"
storage = "4G"
vcpus = 2
workload = {{ type = "seqtouch", buffer_mb = 512, rate_pages_s = 400000 }}
[[timeline]]
at_s = 5
command = "WORKLOAD CHG START RANDCHANGE FRACTION 0.5 RATE_PAGES_S 300000"
'''


def changer_per_second(step: float) -> list[float]:
    """CHG's work in each second from 60 s to 120 s (its faults hold it far below its plan)."""
    sim = Simulation(loads_scenario(CHANGER.format(step=step)))
    g = sim.guests["CHG"]
    sim.run_until(60)
    got, before = [], g.units_total
    while sim.t < 120 - 1e-9:
        sim.run_until(sim.t + 1.0)
        got.append(g.units_total - before)
        before = g.units_total
    assert g.n_dsd > 50_000, "part of its pages are on DASD"
    return got


def test_a_random_changer_held_back_by_its_faults_changes_pages_at_a_steady_pace() -> None:
    # (its walk of a step was the plan's lap cut short where the faults ended it: a stretch of
    # addresses, whose share of pages on DASD hung on where the demand scan had last taken
    # pages; its work went up and down by a third from one second to the next, and a
    # relocation's changed sets with it)
    per_s = changer_per_second(1.0)
    mean = statistics.fmean(per_s)
    assert mean < 0.2 * 300_000, "held far below its plan"
    assert statistics.pstdev(per_s) < 0.05 * mean, per_s
    assert statistics.fmean(changer_per_second(0.25)) == pytest.approx(mean, rel=0.05)

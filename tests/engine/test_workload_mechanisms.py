"""An application's start-up phase and a guest's disk I/O, as a user of the workloads sees them
(docs/model.md, "Workloads"; docs/scenario-format.md, the server workload types)."""

from __future__ import annotations

import numpy as np
import pytest

from ssisim.engine import Simulation, loads_scenario
from ssisim.engine.kernels.pages import CEN


def scenario(guests: list[str], cpus: int = 4, central: str = "16G", step_s: float = 0.5,
             model: str = "") -> str:
    return f"""
format = "ssisim-scenario"
version = 1
name = "workload mechanisms"
[run]
seed = 7
duration_s = 600
step_s = {step_s}
sample_s = 5
[[member]]
name = "M1"
cpus = {cpus}
central = "{central}"
xstor = "0"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
{"".join(guests)}
{model}
"""


def guest(userid: str, workload: str, vcpus: int = 2, storage: str = "1G",
          logged_on: bool = True, extra: str = "") -> str:
    return f"""
[[guest]]
userid = "{userid}"
member = "M1"
storage = "{storage}"
vcpus = {vcpus}
logged_on = {str(logged_on).lower()}
workload = {workload}
{extra}
"""


def sim_of(text: str) -> Simulation:
    return Simulation(loads_scenario(text, "mechanisms.toml"))


def first_served_s(sim: Simulation, userid: str, limit_s: float = 600.0) -> float:
    """Simulated time of the end of the first step in which ``userid`` served work (its
    application's work: Linux's boot walk ends within a step, and the application runs the
    rest of it)."""
    g = sim.guests[userid]
    while sim.t < limit_s:
        before = dict(g.units_by_unit)
        sim.step()
        w = g.workload
        if w.kind in ("appserver", "database", "webserver") and \
                g.units_by_unit.get(w.unit, 0.0) > before.get(w.unit, 0.0):
            return sim.t
    raise AssertionError(f"{userid} never served")


def served(sim: Simulation, userid: str, unit: str = "requests/s") -> float:
    """Work ``userid`` has served for its users so far (its application's unit)."""
    return sim.guests[userid].units_by_unit.get(unit, 0.0)


def startup_events(sim: Simulation, userid: str) -> list[float]:
    return [e.data["startup_s"] for e in sim.events
            if e.kind == "WORKLOAD" and e.userid == userid and "startup_s" in e.data]


APP = '{ type = "appserver", wss_mb = 512, requests_per_s = 20, startup_cpu_s = 20 }'


# -- start-up ----------------------------------------------------------------------------------
def test_a_starting_application_uses_its_cpus_and_serves_nothing_until_initialised() -> None:
    sim = sim_of(scenario([guest("APP1", APP)]))
    g = sim.guests["APP1"]
    m = sim.members["M1"]
    sim.run_until(8)
    assert served(sim, "APP1") == 0  # initialising: not one request served
    assert g.state == "dispatch"
    assert m.cpu_util == pytest.approx(2 / 4, rel=0.02)  # both virtual CPUs busy
    # the heap is being touched: pages instantiated and changed as it goes
    assert 0 < g.n_cen < 512 * 256
    t_served = first_served_s(sim, "APP1")
    # 20 CPU seconds on two virtual CPUs, plus CP's first touch of each page
    (startup,) = startup_events(sim, "APP1")
    assert 10.0 <= startup <= 11.0
    assert t_served == pytest.approx(startup, abs=1.0)
    assert g.n_cen >= 512 * 256  # the whole working set was initialised
    sim.run_until(sim.t + 10)
    assert g.units_step == pytest.approx(20, rel=0.05)  # then it serves the offered rate


def test_without_a_startup_phase_the_application_serves_at_once() -> None:
    sim = sim_of(scenario([guest("APP1", '{ type = "appserver", wss_mb = 512 }')]))
    assert first_served_s(sim, "APP1") <= 0.5
    assert startup_events(sim, "APP1") == []


def test_fewer_virtual_cpus_or_a_busy_member_make_the_startup_longer() -> None:
    def startup_s(vcpus: int, hogs: int, cpus: int) -> float:
        hog = '{ type = "randchange", fraction = 0.05 }'
        guests = [guest("APP1", APP, vcpus=vcpus)]
        guests += [guest(f"HOG{i}", hog, vcpus=4) for i in range(hogs)]
        sim = sim_of(scenario(guests, cpus=cpus))
        first_served_s(sim, "APP1")
        (s,) = startup_events(sim, "APP1")
        return s

    two = startup_s(vcpus=2, hogs=0, cpus=4)
    one = startup_s(vcpus=1, hogs=0, cpus=4)
    busy = startup_s(vcpus=2, hogs=3, cpus=2)
    assert one == pytest.approx(2 * two, rel=0.05)
    # on two CPUs shared with three busy guests of equal SHARE it gets a quarter of the member
    assert busy == pytest.approx(4 * two, rel=0.1)


@pytest.mark.parametrize("step_s", [1.0, 5.0])
def test_an_application_started_after_a_logon_gets_its_cpu_from_the_first_step(
        step_s: float) -> None:
    """Logged on beside two busy guests, the application starts up once Linux has booted: from
    its first step it asks for its start-up's CPU, not for what Linux used while it booted
    (its first step of 5 s got a tenth of a processor, and its start-up took 29 s at 5 s
    steps against 24 s at 0.5 s)."""
    hog = '{ type = "randchange", fraction = 0.1, rate_pages_s = 1000000, cpu_us_per_page = 10 }'
    app = '{ type = "appserver", wss_mb = 512, requests_per_s = 20, startup_cpu_s = 30 }'

    def startup_s(step: float) -> float:
        guests = [guest("APP1", app, vcpus=2, logged_on=False)]
        guests += [guest(f"HOG{i}", hog, vcpus=2) for i in range(2)]
        text = scenario(guests, cpus=4, step_s=step) + \
            '\n[[timeline]]\nat_s = 0\ncommand = "XAUTOLOG APP1"\n'
        sim = sim_of(text)
        first_served_s(sim, "APP1")
        (s,) = startup_events(sim, "APP1")
        return s

    assert startup_s(step_s) == pytest.approx(startup_s(0.5), rel=0.05)


def test_faster_processors_do_more_work_for_a_guest_held_by_its_virtual_cpus() -> None:
    """A guest's work is counted in CPU seconds at speed 1: on processors twice as fast a
    guest held only by its virtual CPUs does twice the work in the same time, and an
    application initialises in half the time, as CP's own work does."""
    def run(speed: float) -> tuple[float, float]:
        text = scenario([guest("CHG", '{ type = "randchange", fraction = 0.1, '
                                      'rate_pages_s = 1e8 }', storage="4G"),
                         guest("APP1", APP)])
        text = text.replace('cpus = 4\n', f'cpus = 4\ncpu_speed = {speed}\n', 1)
        sim = sim_of(text)
        first_served_s(sim, "APP1")
        (startup,) = startup_events(sim, "APP1")
        g = sim.guests["CHG"]
        before, t0 = g.units_total, sim.t
        sim.run_until(t0 + 30)
        return (g.units_total - before) / (sim.t - t0), startup

    (slow, slow_up), (one, one_up), (fast, fast_up) = run(0.5), run(1.0), run(2.0)
    assert slow == pytest.approx(one / 2, rel=0.02)
    assert fast == pytest.approx(2 * one, rel=0.02)
    assert fast_up == pytest.approx(one_up / 2, rel=0.1)
    assert slow_up == pytest.approx(2 * one_up, rel=0.1)


def test_touching_the_heap_on_a_short_member_pages_and_takes_longer() -> None:
    big = '{ type = "appserver", wss_mb = 3000, startup_cpu_s = 20 }'

    def run(central: str) -> tuple[float, Simulation]:
        sim = sim_of(scenario([guest("APP1", big, storage="4G")], central=central))
        first_served_s(sim, "APP1")
        (s,) = startup_events(sim, "APP1")
        return s, sim

    roomy, sim_roomy = run("16G")
    short, sim_short = run("2G")
    assert sim_roomy.members["M1"].counters.dasd_out == 0
    assert sim_short.members["M1"].counters.dasd_out > 100_000  # the heap does not fit
    assert short > 1.5 * roomy
    assert sim_short.verify() == []


def test_six_servers_started_one_after_another_take_longer_than_resuming_one_guest() -> None:
    app = '{ type = "appserver", wss_mb = 512, startup_cpu_s = 60 }'
    six = [guest(f"APP{i}", app, storage="768M", logged_on=False) for i in range(1, 7)]
    sim = sim_of(scenario(six))
    for i in range(1, 7):
        sim.execute(f"XAUTOLOG APP{i}")
        first_served_s(sim, f"APP{i}")
    six_s = sim.t

    # one guest that holds all six: started once, then hibernated and resumed
    all_six = ('{ type = "appserver", wss_mb = 3072, requests_per_s = 120, '
               'startup_cpu_s = 360 }')
    sim = sim_of(scenario([guest("BIG", all_six, storage="4G", extra='swap = "4G"')]))
    first_served_s(sim, "BIG")
    sim.run_until(sim.t + 10)
    sim.execute("LINUX BIG SUSPEND")
    while sim.guests["BIG"].linux != "suspended":
        sim.step()
    t_resume = sim.t
    sim.execute("LINUX BIG RESUME")
    g = sim.guests["BIG"]
    while not (g.linux == "running" and g.workload.kind == "appserver" and g.units_step > 0):
        sim.step()
    resume_s = sim.t - t_resume
    # the resumed applications were initialised before the image was written: no start-up
    assert len(startup_events(sim, "BIG")) == 1
    assert resume_s < six_s / 2


def test_a_logon_starts_the_application_again_and_workload_set_does_not() -> None:
    sim = sim_of(scenario([guest("APP1", APP)]))
    first_served_s(sim, "APP1")
    sim.execute("WORKLOAD APP1 SET REQUESTS_PER_S 40")  # new parameters, same application
    sim.run_until(sim.t + 5)
    assert sim.guests["APP1"].units_step == pytest.approx(40, rel=0.05)
    assert len(startup_events(sim, "APP1")) == 1
    sim.execute("WORKLOAD APP1 START APPSERVER WSS_MB 512 STARTUP_CPU_S 20")  # a new start
    before = served(sim, "APP1")
    sim.run_until(sim.t + 3)
    assert served(sim, "APP1") == before
    first_served_s(sim, "APP1")
    assert len(startup_events(sim, "APP1")) == 2
    sim.execute("LOGOFF APP1")
    sim.run_until(sim.t + 2)
    sim.execute("XAUTOLOG APP1")
    t_logon = sim.t
    before = served(sim, "APP1")
    sim.run_until(sim.t + 5)
    assert served(sim, "APP1") == before  # a new logon: the application starts again
    t_served = first_served_s(sim, "APP1")
    assert len(startup_events(sim, "APP1")) == 3
    assert t_served - t_logon >= startup_events(sim, "APP1")[-1] - 0.5


def test_a_startup_interrupted_by_workload_set_goes_on_where_it_stood() -> None:
    sim = sim_of(scenario([guest("APP1", APP)]))
    sim.run_until(5)
    sim.execute("WORKLOAD APP1 SET REQUESTS_PER_S 40")
    t_served = first_served_s(sim, "APP1")
    (startup,) = startup_events(sim, "APP1")
    assert 10.0 <= startup <= 11.0  # counted from the start at t = 0
    assert t_served <= 11.5  # not started over at t = 5


# -- guest disk I/O ------------------------------------------------------------------------------
def database(ios: float, rate: float = 2000, extra: str = "") -> str:
    return (f'{{ type = "database", requests_per_s = {rate:g}, cpu_ms_per_request = 0.5, '
            f'ios_per_unit = {ios:g}{extra} }}')


def throughput(workload: str, seconds: float = 20.0, model: str = "") -> tuple[float, Simulation]:
    sim = sim_of(scenario([guest("DB1", workload)], model=model))
    sim.run_until(5)
    before = sim.guests["DB1"].units_total
    sim.run_until(5 + seconds)
    return (sim.guests["DB1"].units_total - before) / seconds, sim


def test_an_io_bound_database_is_limited_by_its_disk() -> None:
    free, _ = throughput(database(0))
    assert free == pytest.approx(2000, rel=0.02)  # CPU allows the offered rate
    # the default guest disk serves 4 I/Os at once in 0.5 ms: 8,000 I/Os per second
    five, sim5 = throughput(database(5))
    ten, sim10 = throughput(database(10))
    assert five == pytest.approx(8000 / 5, rel=0.02)
    assert ten == pytest.approx(five / 2, rel=0.02)  # twice the I/Os, half the transactions
    for sim in (sim5, sim10):  # the disk, not the CPU, holds it back: CPUs stay idle
        assert sim.members["M1"].cpu_util < 0.25


def test_the_disk_figures_set_the_limit() -> None:
    base, _ = throughput(database(10))
    deeper, _ = throughput(database(10, extra=", disk_queue_depth = 8"))
    slower, _ = throughput(database(10, extra=", disk_service_ms = 2"))
    assert deeper == pytest.approx(2 * base, rel=0.02)
    assert slower == pytest.approx(base / 4, rel=0.02)


def test_guest_io_costs_cp_cpu_on_the_member() -> None:
    # 500 tx/s with 5 I/Os each is 2,500 I/Os per second: within the disk's reach
    plain, sim0 = throughput(database(0, rate=500))
    io, sim5 = throughput(database(5, rate=500))
    assert io == pytest.approx(plain, rel=0.01)
    m0, m5 = sim0.members["M1"], sim5.members["M1"]
    # 2,500 I/Os per second at 10 us of CP CPU each: 0.025 CPU seconds per second of 4 CPUs
    assert m5.cpu_util - m0.cpu_util == pytest.approx(2500 * 10e-6 / 4, rel=0.05)
    assert sim5.guests["DB1"].ios_total == pytest.approx(io * 5 * 25, rel=0.05)  # 25 s run
    # the per-I/O cost is a model parameter a scenario may set
    _, free = throughput(database(5, rate=500), model="[model.vio]\ncp_cpu_per_io_s = 0\n")
    assert free.members["M1"].cpu_util == pytest.approx(m0.cpu_util, rel=0.01)


def test_cp_io_work_is_charged_to_the_guest_that_does_the_io() -> None:
    hog = '{ type = "randchange", fraction = 0.05 }'

    def run(cost: float) -> tuple[float, float, list[float], Simulation]:
        model = f"[model.vio]\ncp_cpu_per_io_s = {cost}\n"
        db = database(2, rate=4000, extra=", disk_queue_depth = 64")
        sim = sim_of(scenario([guest("DB1", db), guest("HOG1", hog, vcpus=2)], cpus=1,
                              model=model))
        sim.run_until(10)
        per_step = []
        for _ in range(10):
            sim.step()
            per_step.append(sim.guests["DB1"].units_step)
            assert sim.members["M1"].cpu_util <= 1.0 + 1e-9
        return sim.guests["HOG1"].cpu_s_total, sim.guests["DB1"].units_total, per_step, sim

    hog0, db0, _, _ = run(0.0)
    hog1, db1, steps, sim = run(100e-6)
    # CP's path for DB1's I/O runs on DB1's virtual CPU and counts against DB1's share: the
    # other guest keeps its half of the processor, and DB1 does less work with its own half
    assert hog1 == pytest.approx(hog0, rel=0.02)
    # of each transaction's 0.5 ms + 2 x 0.1 ms, CP takes 0.2 / 0.7 of DB1's CPU
    assert db1 == pytest.approx(db0 * 0.5 / 0.7, rel=0.03)
    # and every step alike: CP's work is not kept back from the next step's CPU, which made
    # an I/O-heavy member alternate between overload and standstill
    assert max(steps) < 1.05 * min(steps)
    db = sim.guests["DB1"]
    assert db.ios_total == pytest.approx(2 * db.units_total, rel=1e-9)


def test_cp_paging_work_comes_before_the_guests_cpu() -> None:
    """CP's own paging (demand scan, page writes) is system work: on a member whose processors
    the guests keep busy, a paging neighbour costs a CPU-bound guest the processors CP's paging
    takes, and the guests and CP never use more processors than the member has."""
    hog = '{ type = "randchange", fraction = 0.05 }'
    thrash = '{ type = "randchange", fraction = 0.9, rate_pages_s = 2000000 }'

    def run(cost: float) -> tuple[float, Simulation]:
        model = f"[model.paging]\ncp_cpu_per_page_s = {cost}\n"
        sim = sim_of(scenario([guest("HOG1", hog, vcpus=2, storage="256M"),
                               guest("THRASH", thrash, vcpus=8, storage="6G")],
                              cpus=2, central="2G", step_s=1.0, model=model))
        sim.run_until(60)
        m = sim.members["M1"]
        hog_s = sim.guests["HOG1"].cpu_s_total
        for _ in range(20):
            paging = m.cp_paging_cpus  # CP's paging of the step before, served first
            sim.step()
            guests = sum(g.cpu_rate for g in sim.guests.values())
            assert guests + min(paging, 2.0) <= 2.0 + 1e-6
        return sim.guests["HOG1"].cpu_s_total - hog_s, sim

    free, _ = run(0.0)
    hog, sim = run(20e-6)
    paging = sim.members["M1"].cp_paging_cpus
    assert paging > 0.1  # the neighbour keeps CP's paging busy
    # the hog keeps its half of what CP leaves (0.92 of a processor, not 1): less than with
    # paging that costs nothing
    assert hog < free * 0.95


def toucher(vcpus: int, instances: int, central: str) -> Simulation:
    """A guest whose sequential touchers walk 16 GB between them (on one NVMe volume when
    central storage is short), run 60 s."""
    text = f'''
format = "ssisim-scenario"
version = 1
[run]
seed = 5
duration_s = 60
step_s = 1
[[member]]
name = "M1"
cpus = 8
central = "{central}"
  [[member.volume]]
  size = "32G"
  kind = "nvme"
[[guest]]
userid = "G1"
member = "M1"
storage = "20G"
vcpus = {vcpus}
workload = {{ type = "seqtouch", buffer_mb = 16384, instances = {instances} }}
'''
    sim = Simulation(loads_scenario(text))
    sim.run_until(60)
    return sim


def test_a_sequential_toucher_is_one_thread_on_one_virtual_cpu():
    """A toucher is one thread: a guest's eight virtual CPUs walk no faster for one toucher
    than one does, but eight touchers use them all (one toucher walked as fast as eight)."""
    one = toucher(1, 1, "32G").guests["G1"].units_step
    assert toucher(8, 1, "32G").guests["G1"].units_step == pytest.approx(one, rel=0.01)
    assert toucher(8, 8, "32G").guests["G1"].units_step > 7 * one


def test_a_sequential_toucher_waits_for_one_page_fault_at_a_time():
    """Paging, one toucher has one read outstanding: eight virtual CPUs do not bring its pages
    in faster (it read eight at a time), eight touchers do."""
    def reads(vcpus: int, instances: int) -> float:
        sim = toucher(vcpus, instances, "12G")
        g = sim.guests["G1"]
        before = g.counters.dasd_in
        sim.run_until(90)
        return (g.counters.dasd_in - before) / 30

    one = reads(1, 1)
    assert one > 0
    assert reads(8, 1) == pytest.approx(one, rel=0.1)
    assert reads(8, 8) > 4 * one


def busy_database(hot_share: float, step_s: float = 1.0) -> str:
    """DB: a 4 GB buffer pool, 500 transactions a second of 200 pages each, ``hot_share`` of
    them in its hottest tenth, on 2 GB of central storage and one volume of 5 ms serving one
    I/O at a time (200 a second)."""
    workload = ('type = "database", wss_mb = 4096, requests_per_s = 500, '
                f'pages_per_request = 200, hot_fraction = 0.1, hot_share = {hot_share}')
    return f'''
format = "ssisim-scenario"
version = 1
[run]
seed = 1
duration_s = 900
step_s = {step_s}
[[member]]
name = "M1"
cpus = 8
central = "2G"
  [[member.volume]]
  size = "32G"
  service_ms = 5.0
  queue_depth = 1
[[guest]]
userid = "DB"
member = "M1"
storage = "4G"
vcpus = 4
workload = {{ {workload} }}
'''


def test_a_transaction_waits_for_the_faults_of_all_its_references() -> None:
    """Each transaction references pages of its hot part and of the rest: it is served when
    the faults of both are, so the transactions a second times the faults each makes (its
    references to each part times the share of that part not resident) are the page reads
    and first touches the paging volume allows. (The two parts were walked each with its
    own share of the time: the hot part served its share of the transactions at memory speed
    while the rest waited, 251 transactions a second at a hot share of 0.5, which would have
    needed 14,000 faults a second of a volume that did 165.)"""
    served = {}
    for hot_share in (0.9, 0.5):
        sim = Simulation(loads_scenario(busy_database(hot_share)))
        g = sim.guests["DB"]
        sim.run_until(600)
        before = (g.units_total, g.counters.dasd_in + g.counters.new)
        sim.run_until(700)
        tx = (g.units_total - before[0]) / 100
        faults = (g.counters.dasd_in + g.counters.new - before[1]) / 100
        g.flush_pending()
        cen = np.unpackbits(np.ascontiguousarray(g.planes[:, CEN]).view(np.uint8),
                            bitorder="little")
        hot = 1048576 // 10
        out_hot, out_rest = 1.0 - cen[:hot].mean(), 1.0 - cen[hot:1048576].mean()
        needed = tx * 200 * (hot_share * out_hot + (1 - hot_share) * out_rest)
        assert faults > 100  # the volume is busy
        assert needed == pytest.approx(faults, rel=0.3), (hot_share, tx, needed, faults)
        served[hot_share] = tx
    assert served[0.5] < served[0.9] < 0.1 * 500

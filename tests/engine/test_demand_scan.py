"""CP's demand scan walks its lists in order: the guest dormant longest gives its pages first,
all of them, before the next; a few idle guests give most frames, never an even spread."""

from __future__ import annotations

import numpy as np
import pytest

from ssisim.engine import Simulation, build_summary, find_scenario, load_scenario, loads_scenario
from ssisim.engine.kernels.pages import CEN


def scenario() -> str:
    """Four 1G guests touch 700 MB each and go idle at t = 10, 20, 30 and 40 s; at 60 s a
    big guest starts touching 2000 MB on a 4G member, and CP must take frames from them."""
    guests = "".join(f'''
[[guest]]
userid = "IDLE{i}"
member = "VMA"
storage = "1G"
workload = {{ type = "seqtouch", buffer_mb = 700, rate_pages_s = 100000, write = 0 }}

[[timeline]]
at_s = {10 * i}
command = "WORKLOAD IDLE{i} STOP"
''' for i in (3, 1, 4, 2))  # file order is not the order they went idle
    return f'''
format = "ssisim-scenario"
version = 1
name = "demand scan order"
[run]
seed = 5
duration_s = 150
step_s = 1
[[member]]
name = "VMA"
cpus = 4
central = "4G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[guest]]
userid = "BIG"
member = "VMA"
storage = "4G"
workload = {{ type = "idle" }}
{guests}
[[timeline]]
at_s = 60
command = "WORKLOAD BIG START SEQTOUCH BUFFER_MB 2000 RATE_PAGES_S 50000"
'''


def test_the_guest_dormant_longest_gives_its_pages_first() -> None:
    sim = Simulation(loads_scenario(scenario()))
    sim.run_until(150)
    out = {g["userid"]: g["paged_out"] for g in build_summary(sim)["guests"]}
    have = {g["userid"]: g["pages"]["instantiated"] for g in build_summary(sim)["guests"]}
    assert out["BIG"] == 0
    # IDLE1 went idle first: it gives (nearly) everything before IDLE2 gives anything much
    assert out["IDLE1"] >= 0.95 * have["IDLE1"]
    assert 0 < out["IDLE2"] < 0.5 * have["IDLE2"]
    # the two that went idle last keep all their pages: no even spread
    assert out["IDLE3"] == out["IDLE4"] == 0


def test_a_slice_found_empty_gives_pages_again_once_they_are_touched_there() -> None:
    """The demand scan does not go round a slice of a guest again while it is known to hold no
    resident page; pages the guest touches there later are found and taken as before."""
    sim = Simulation(loads_scenario('''
format = "ssisim-scenario"
version = 1
name = "slices found empty"
[run]
seed = 5
duration_s = 60
step_s = 1
[[member]]
name = "VMA"
cpus = 4
central = "8G"
xstor = "8G"
[[guest]]
userid = "LNX1"
member = "VMA"
storage = "4G"
workload = { type = "seqtouch", buffer_mb = 200, rate_pages_s = 200000 }
''', "slices.toml"))
    sim.run_until(3)
    g, m = sim.guests["LNX1"], sim.members["VMA"]
    assert len(g.steal_cursors) == 16  # one hand per 256 MB
    io = [1e9]

    def take_all() -> int:
        took = 0
        while g.n_cen:  # a steal takes a share from each slice a round: several rounds
            got, _ = sim.pager.steal_from(m, g, g.n_cen, True, io)
            assert got > 0
            took += got
        return took

    assert take_all() > 0
    assert g.slice_clear[1:].all()  # went round every slice the walk never reached
    # the walk now covers the whole guest: its pages come back in every slice
    sim.execute("WORKLOAD LNX1 START SEQTOUCH BUFFER_MB 4000 RATE_PAGES_S 400000")
    sim.run_until(8)
    assert not g.slice_clear.any()
    resident = g.n_cen
    assert resident > 3 * 262144  # more than 3 GB: in the slices found empty before
    assert take_all() == resident  # found wherever the walk left them
    assert sim.verify() == []


def test_guests_at_work_give_pages_alike_at_any_step_length() -> None:
    """Lesson 9's member: two production guests and a growing test take turns in the devices'
    queue while the demand scan writes their pages out at the devices' pace, a piece at a time.
    A visit of the dispatch list resumes after the guest the last one left off at, so which
    guest gives its pages does not depend on how long the simulation's step is; a step longer
    than a second runs the guests in rounds of a second, the free frames refilled between
    them. (Each piece began with PROD1, the first by name, until the devices' queue was full:
    at 0.1 s steps PROD1 kept 70,000 of its 786,000 pages at 280 s, at 1 s steps 241,000;
    and at 4 s steps, whole, 597,000.)"""
    text = find_scenario("lessons/09-paging-space").read_text(encoding="utf-8")
    kept = []
    for step in (0.1, 1.0, 4.0):
        sim = Simulation(loads_scenario(text.replace("step_s = 1\n", f"step_s = {step}\n", 1)))
        sim.run_until(280)
        assert sim.members["MEMB1"].counters.dasd_out > 1_000_000  # it pages hard
        kept.append({u: g.n_cen for u, g in sim.guests.items() if g.member == "MEMB1"})
    short, one, long_ = kept
    for userid in ("PROD1", "PROD2", "TEST1"):
        assert short[userid] == pytest.approx(one[userid], rel=0.15), userid
        assert long_[userid] == pytest.approx(one[userid], rel=0.15), userid


def test_guests_alike_at_work_give_alike() -> None:
    """Four identical application servers on a member short of storage: the demand scan's
    visits of the dispatch list resume where the last one left off, so none of them gives more
    pages for its name. (Every visit began with APP1, and the visits were done before their
    last guests' shares: APP1 wrote out 387,000 pages and APP4 243,000.)"""
    app = ('{ type = "appserver", wss_mb = 1800, requests_per_s = 50, '
           'pages_per_request = 2000, hot_fraction = 0.5, hot_share = 0.6 }')
    guests = "".join(f'''
[[guest]]
userid = "APP{i}"
member = "M1"
storage = "2G"
workload = {app}
''' for i in range(1, 5))
    sim = Simulation(loads_scenario(f'''
format = "ssisim-scenario"
version = 1
name = "four alike"
[run]
seed = 5
duration_s = 300
step_s = 1
[[member]]
name = "M1"
cpus = 4
central = "6G"
  [[member.volume]]
  volid = "M1PG01"
  size = "16G"
{guests}'''))
    sim.run_until(300)
    out = [sim.guests[f"APP{i}"].counters.dasd_out for i in range(1, 5)]
    assert min(out) > 200_000  # they page hard
    assert max(out) < min(out) * 1.05


def test_a_members_guests_take_turns_whatever_else_the_cluster_holds() -> None:
    """Two identical guests thrash on one member. The order they run in within a step turns
    with the member's own steps: an idle second member changes nothing for them. (It turned
    with every member stepped, so with two members the same guest always ran first: LNXA was
    13 % behind LNXB with one member and 15 % ahead with two.)"""
    guest = '''
[[guest]]
userid = "{u}"
member = "MEMB1"
storage = "4G"
vcpus = 2
workload = {{ type = "randchange", fraction = 0.6, rate_pages_s = 200000 }}
'''
    member = '''
[[member]]
name = "{m}"
cpus = 4
central = "4G"
  [[member.volume]]
  size = "16G"
  service_ms = 0.5
  queue_depth = 1
'''
    head = ('format = "ssisim-scenario"\nversion = 1\nname = "turns"\n'
            '[run]\nseed = 5\nduration_s = 120\nstep_s = 1\n')
    done = []
    for members in (["MEMB1"], ["MEMB1", "MEMB2"]):
        text = head + "".join(member.format(m=m) for m in members) + \
            guest.format(u="LNXA") + guest.format(u="LNXB")
        sim = Simulation(loads_scenario(text))
        sim.run_until(120)
        done.append({u: g.units_total for u, g in sim.guests.items()})
    alone, beside = done
    assert alone == beside


def test_guests_paused_at_the_same_moment_give_their_pages_alike() -> None:
    """The pause experiment with CP STOP: WAS01 and WAS02, two alike application servers, are
    stopped by commands due at the same second, as are DB01 and DB02. Dormant equally long,
    none comes before the other on the demand scan's list or XSTOR's way to DASD. (The first
    by user ID gave all it could first: only WAS01 had pages on DASD, and it answered 13.1 s
    after BEGIN where WAS02 answered after 3.0 s; renamed WAS09, it was the one that answered
    after 3.0 s.)"""
    text = find_scenario("pause/pause-stop").read_text(encoding="utf-8")
    sim = Simulation(loads_scenario(text))
    sim.run_until(930)
    serving = {e.userid: e.data["serving_s"] for e in sim.events if e.kind == "BEGIN"}
    assert serving["WAS01"] == pytest.approx(serving["WAS02"], abs=1.0)
    assert serving["DB01"] == pytest.approx(serving["DB02"], abs=1.0)
    # both databases lost pages all the way to DASD, alike
    dasd = {u: sim.guests[u].n_dsd for u in ("DB01", "DB02")}
    assert min(dasd.values()) > 0.8 * max(dasd.values())


@pytest.mark.slow
def test_a_huge_guests_sequential_touchers_page_alike_at_any_step() -> None:
    # The bundled 2 TB guest on 1.5 TB, its eight NVMe volumes ten times slower (1 ms). With
    # at most 64 hands, a slice of the 2 TB guest straddled its touchers' regions, and which
    # of them gave pages hung on where the hand stood: at 1 s steps some touchers came upon
    # long resident stretches from about 1,050 s and ran at memory speed (22 million pages a
    # second), at 0.5 s steps none did (50,000)
    text = find_scenario("large/guest-2tb-1536g").read_text(encoding="utf-8")
    text = text.replace("service_ms = 0.1", "service_ms = 1.0")
    assert text.count("service_ms = 1.0") == 8
    rates = []
    for step in (0.5, 1.0):
        sim = Simulation(loads_scenario(text.replace("step_s = 1\n", f"step_s = {step}\n")))
        sim.run_until(1100)
        g = sim.guests["LNX2TB"]
        before = g.units_total
        sim.run_until(1300)
        rates.append((g.units_total - before) / 200)
    slow, fast = sorted(rates)
    assert fast <= 1.25 * slow, rates
    # and the touchers stay at the paging volumes' pace: a few page reads a page touched
    assert fast < 1_000_000, rates


def test_a_guests_touchers_share_the_last_free_frames_at_any_step() -> None:
    """A tenth of the bundled 2 TB guest on 1.5 TB (204.8 GB on 153.6 GB, the same 50
    touchers and NVMe volumes). Its touchers run at the same time: when the free frames run
    out, each has filled as much of its slice as the others. (Walked one after another within
    a step, the first 22 filled their whole slices in the step the frames ran out at 1 s steps
    and then ran resident at memory speed, 86 million pages a second, while at 0.5 and 2 s
    steps all of them paged, at half a million.)"""
    text = find_scenario("large/guest-2tb-1536g").read_text(encoding="utf-8")
    for old, new in (('central = "1.5T"', 'central = "153.6G"'),
                     ('storage = "2T"', 'storage = "204.8G"'),
                     ("buffer_mb = 2050048", "buffer_mb = 205004")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    rates, resident = [], []
    for step in (0.5, 1.0, 2.0):
        sim = Simulation(loads_scenario(text.replace("step_s = 1\n", f"step_s = {step}\n")))
        g = sim.guests["LNX2TB"]
        sim.run_until(2)
        g.flush_pending()
        per = 205004 * 256 // 50
        cen = np.unpackbits(np.ascontiguousarray(g.planes[:, CEN]).view(np.uint8),
                            bitorder="little")
        resident.append([cen[i * per:(i + 1) * per].mean() for i in range(50)])
        sim.run_until(60)
        before = g.units_total
        sim.run_until(90)
        rates.append((g.units_total - before) / 30)
    assert max(rates) <= 1.05 * min(rates), rates
    assert max(rates) < 1_000_000, rates  # all of them page
    # when the frames ran out, no toucher had its whole slice resident and none was far behind
    for shares in resident:
        assert max(shares) < 0.95 and min(shares) > 0.8 * max(shares), shares


def test_a_sequential_walk_over_more_than_its_frames_faults_on_every_page() -> None:
    """The slices a walk touched longest ago give first: they are the ones it touches next,
    so a toucher over a little more storage than the member has frames finds none of its next
    pages resident and runs at the paging device's pace (domain.md section 5), not at memory
    speed with a few faults. (Each slice giving its share whatever its age, the pages ahead
    were taken no more than those just behind: 13 % of the touches faulted at I/R 1.04.)"""
    text = '''
format = "ssisim-scenario"
version = 1
[run]
seed = 5
duration_s = 400
step_s = 1
[[member]]
name = "M1"
cpus = 8
central = "3.875G"
  [[member.volume]]
  size = "16G"
  kind = "nvme"
[[guest]]
userid = "G1"
member = "M1"
storage = "4G"
vcpus = 1
workload = { type = "seqtouch", instances = 1 }
'''
    sim = Simulation(loads_scenario(text))
    g = sim.guests["G1"]
    sim.run_until(200)
    units, reads = g.units_total, g.counters.dasd_in
    sim.run_until(400)
    touched, faulted = g.units_total - units, g.counters.dasd_in - reads
    assert faulted > 0
    # (within a slice its hand, not the walk, sets the order: some pages ahead stay a while)
    assert faulted > 0.8 * touched, (touched, faulted)


def test_a_member_whose_walks_run_out_of_frames_writes_ahead_at_its_devices_pace() -> None:
    """The list ran empty: CP raises its thresholds (to their ceilings, 0.5 and 1 % of the
    frames for guests), so the demand scan writes ahead with what the paging devices have
    left. (Marks that followed only the pace frames were taken at kept almost none free, the
    scan wrote only what the walks asked for piece by piece, and a third of the devices' time
    went unused: lesson 7's paused servers gave a third fewer pages.)"""
    text = '''
format = "ssisim-scenario"
version = 1
[run]
seed = 5
duration_s = 120
step_s = 1
[[member]]
name = "M1"
cpus = 4
central = "2G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[guest]]
userid = "IDLE1"
member = "M1"
storage = "2G"
workload = { type = "seqtouch", buffer_mb = 1500, rate_pages_s = 200000, write = 0 }
[[guest]]
userid = "BATCH"
member = "M1"
storage = "2G"
workload = { type = "idle" }
[[timeline]]
at_s = 20
command = "WORKLOAD IDLE1 STOP"
[[timeline]]
at_s = 30
command = "WORKLOAD BATCH START SEQTOUCH BUFFER_MB 1500 RATE_PAGES_S 200000"
'''
    sim = Simulation(loads_scenario(text))
    m = sim.members["M1"]
    sim.run_until(40)
    out = m.counters.dasd_out
    sim.run_until(50)
    # the batch takes the idle guest's frames as fast as the volume writes them
    assert (m.free_low, m.free_high) == (int(0.005 * m.frames), int(0.01 * m.frames))
    assert m.io_util > 0.95
    assert (m.counters.dasd_out - out) / 10 > 0.9 * m.io_capacity_s
    assert sim.verify() == []


def test_a_page_that_went_to_xstor_and_on_to_dasd_left_central_storage_once() -> None:
    """A guest's pages out count the pages that left its central storage: one stolen to XSTOR
    and later migrated on to DASD counts once. The idle guests of overcommit.toml, which never
    touch their pages again, have out exactly what they hold in XSTOR and on DASD. (Migrations
    counted again: 336,516 out of a guest that held 192,477 outside central storage.)"""
    sim = Simulation(load_scenario(find_scenario("overcommit")))
    sim.run_until(sim.scenario.duration_s)
    idle = [g for g in build_summary(sim)["guests"] if g["userid"].startswith("IDLE")]
    assert idle and all(g["paged_in"] == 0 for g in idle)
    assert sum(sim.guests[g["userid"]].counters.migrated for g in idle) > 0
    for g in idle:
        assert g["paged_out"] == g["pages"]["xstor"] + g["pages"]["dasd"] > 0

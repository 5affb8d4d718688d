"""The mechanisms behind Linux suspend/resume, logoff cleanup and logon of a huge guest.

Suspend: freeze, swap out what does not fit in half of memory, then write the image at the
swap disk's speed. Resume: boot, read the image back, bring devices up again. Logoff: every
frame is cleared, slots and XSTOR blocks are only released. Logon: Linux boots, then the
guest touches its storage again as fast as its CPUs and the member's free frames allow.
"""

from __future__ import annotations

import dataclasses

import pytest

from ssisim.engine import (
    GuestConfig,
    MemberConfig,
    ScenarioConfig,
    Simulation,
    VolumeConfig,
    WorkloadSpec,
    find_scenario,
    load_scenario,
    loads_scenario,
    size_to_pages,
)
from ssisim.engine.migrations.pause import PauseModel
from ssisim.engine.migrations.relocation import LGRModel

MODEL = PauseModel()


def member(central="4G", cpus=4, paging="64G", xstor="0", cleanup="background"):
    return MemberConfig(name="LPAR1", cpus=cpus, central_pages=size_to_pages(central),
                        xstor_pages=size_to_pages(xstor), cp_pages=0, logoff_cleanup=cleanup,
                        volumes=(VolumeConfig("PAG001", size_to_pages(paging), 0.1, 32),))


def linux(userid, storage, used_mb, swap_mb_s=40.0, logged_on=True):
    """An idle Linux guest that uses ``used_mb`` (its kernel included) and has touched it."""
    return GuestConfig(userid=userid, member="LPAR1", storage_pages=size_to_pages(storage),
                       vcpus=2, swap_pages=size_to_pages(storage), swap_mb_s=swap_mb_s,
                       logged_on=logged_on,
                       workload=WorkloadSpec("seqtouch", {"buffer_mb": used_mb,
                                                          "rate_pages_s": 400000}))


def world(guests, step_s=0.1, **m):
    return Simulation(ScenarioConfig(name="mechanisms", members=[member(**m)], guests=guests,
                                     seed=11, step_s=step_s, duration_s=3600))


def seconds(sim, kind, userid):
    (e,) = [e for e in sim.events if e.kind == kind and e.userid == userid]
    return e.data["seconds"]


def hibernate_and_resume(guests):
    """Touch, go idle, suspend every guest, resume each: (suspend s, resume s) by user ID."""
    sim = world(guests)
    sim.run_until(5)
    for g in guests:
        used = g.workload.params["buffer_mb"] - MODEL.kernel_mb
        sim.execute(f"WORKLOAD {g.userid} START IDLE WSS_MB {used:g}")
    sim.run_until(6)
    for g in guests:
        assert sim.execute(f"LINUX {g.userid} SUSPEND").ok
    sim.run_until(120)
    for g in guests:
        assert sim.execute(f"LINUX {g.userid} RESUME").ok
    sim.run_until(240)
    return {g.userid: (seconds(sim, "SUSPENDED", g.userid), seconds(sim, "SERVING", g.userid))
            for g in guests}


def test_a_larger_image_takes_longer_by_the_swap_disks_speed_and_the_fixed_part_stays():
    t = hibernate_and_resume([linux("SMALL", "2G", 300), linux("LARGE", "2G", 700)])
    (s_small, r_small), (s_large, r_large) = t["SMALL"], t["LARGE"]
    # 400 MB more to write and to read back at 40 MB/s: 10 s more each way
    assert s_large - s_small == pytest.approx(400 / 40, abs=0.3)
    assert r_large - r_small == pytest.approx(400 / 40, abs=0.3)
    # what does not grow with the image is the same for both
    assert s_small - 300 / 40 == pytest.approx(s_large - 700 / 40, abs=0.3)
    assert s_small - 300 / 40 == pytest.approx(MODEL.freeze_s, abs=0.3)
    fixed = MODEL.boot_s + MODEL.reinit_s + MODEL.request_s
    assert r_small - 300 / 40 == pytest.approx(fixed, abs=0.3)
    assert r_large - 700 / 40 == pytest.approx(fixed, abs=0.3)


def test_a_faster_swap_disk_shortens_only_the_image_part():
    t = hibernate_and_resume([linux("SLOW", "2G", 600, swap_mb_s=40),
                              linux("FAST", "2G", 600, swap_mb_s=160)])
    (s_slow, r_slow), (s_fast, r_fast) = t["SLOW"], t["FAST"]
    saved = 600 / 40 - 600 / 160
    assert s_slow - s_fast == pytest.approx(saved, abs=0.3)
    assert r_slow - r_fast == pytest.approx(saved, abs=0.3)
    assert r_fast > MODEL.boot_s + MODEL.reinit_s, "booting and re-initialising stay"


def test_a_guest_using_more_than_half_its_memory_swaps_out_first_and_suspends_slower():
    """Linux copies the image in memory before writing it: a 768 MB guest using 600 MB writes
    384 MB as its image and must first swap the rest out, cluster by cluster; a 1.5 GB guest
    using the same 600 MB writes it all in one stream."""
    t = hibernate_and_resume([linux("TIGHT", "768M", 600), linux("ROOMY", "1536M", 600)])
    (s_tight, r_tight), (s_roomy, r_roomy) = t["TIGHT"], t["ROOMY"]
    assert s_roomy == pytest.approx(MODEL.freeze_s + 600 / 40, abs=0.3)
    reclaim = 216 / MODEL.reclaim_mb_s(40.0)
    assert s_tight == pytest.approx(MODEL.freeze_s + reclaim + 384 / 40, abs=0.3)
    assert s_tight > s_roomy + 5
    # the swapped-out pages are its least used: they are not read back before it answers
    assert r_tight == pytest.approx(r_roomy - (600 - 384) / 40, abs=0.3)


#: a cleanup's walk of the DAT tables of 6 GB of defined storage, seconds (at cpu_speed 1)
WALK_6G = 6 * LGRModel().dat_scan_s_per_gb


def cleanup_seconds(central: str, storage="6G", touched_mb=6144) -> tuple[float, float]:
    """Log off a guest that touched ``touched_mb``; (cleanup s, share of its pages that were in
    central storage)."""
    g = GuestConfig(userid="BIG", member="LPAR1", storage_pages=size_to_pages(storage), vcpus=4,
                    workload=WorkloadSpec("seqtouch", {"buffer_mb": touched_mb, "write": 1,
                                                       "rate_pages_s": 1_000_000}))
    sim = world([g], central=central)
    sim.run_until(30)
    guest = sim.guests["BIG"]
    share = guest.n_cen / guest.instantiated
    sim.execute("FORCE BIG")
    sim.run_until(60)
    assert not sim.verify()
    return seconds(sim, "CLEANUP_DONE", "BIG"), share


def test_pages_on_dasd_are_released_faster_than_frames_are_cleared():
    in_central, share_c = cleanup_seconds("8G")
    paged, share_p = cleanup_seconds("2G")
    assert share_c == 1.0 and share_p < 0.4
    frames = 6144 * 256
    assert in_central == pytest.approx(frames * MODEL.clear_frame_s + WALK_6G, rel=0.05)
    # most pages only give back a slot: far less work
    assert paged < 0.5 * in_central


def test_a_cleanup_walks_the_whole_defined_storage_touched_or_not():
    """CP resets a guest by walking its DAT tables over its whole defined storage: of two
    guests that touched the same gigabyte, the one defined 64 times larger takes the longer
    by that walk, at the relocation's scan rate. (Only the pages were counted: both took
    0.25 s, and so did one of 8 TB.)"""
    small, _ = cleanup_seconds("8G", storage="2G", touched_mb=1024)
    large, _ = cleanup_seconds("8G", storage="128G", touched_mb=1024)
    walk = (128 - 2) * LGRModel().dat_scan_s_per_gb
    assert large - small == pytest.approx(walk, rel=0.02)
    assert large > 4 * small


def test_inline_cleanup_holds_the_user_id_for_the_work_its_pages_need():
    """Before the cleanup state, a guest whose pages were paged out comes back sooner."""
    waits = {}
    for central in ("8G", "2G"):
        g = GuestConfig(userid="BIG", member="LPAR1", storage_pages=size_to_pages("6G"),
                        vcpus=4, workload=WorkloadSpec("seqtouch", {"buffer_mb": 6144,
                                                                    "rate_pages_s": 1_000_000}))
        sim = world([g], central=central, cleanup="inline")
        sim.run_until(30)
        sim.execute("FORCE BIG")
        t0 = sim.t
        while not sim.execute("XAUTOLOG BIG").ok:
            sim.step()
        waits[central] = sim.t - t0
    assert waits["8G"] == pytest.approx(6144 * 256 * MODEL.clear_frame_s + WALK_6G, abs=0.15)
    assert waits["2G"] < 0.5 * waits["8G"]


def huge_logon(after_cleanup: bool) -> tuple[float, float, Simulation]:
    """OLD (160 GB, all touched) logs off from a 176 GB member; NEW (160 GB) logs on as soon as
    OLD's user ID is free, or only once OLD's storage has been reset. (seconds until NEW is
    active, GB a cleanup held at its logon)."""
    old = GuestConfig(userid="OLD", member="LPAR1", storage_pages=size_to_pages("160G"), vcpus=8,
                      workload=WorkloadSpec("seqtouch", {"buffer_mb": 160 * 1024,
                                                         "instances": 8}))
    new = GuestConfig(userid="NEW", member="LPAR1", storage_pages=size_to_pages("160G"), vcpus=8,
                      logged_on=False,
                      workload=WorkloadSpec("seqtouch", {"buffer_mb": 150 * 1024,
                                                         "instances": 8}))
    sim = world([old, new], step_s=0.5, central="176G", cpus=16, paging="512G")
    sim.run_until(20)
    assert sim.guests["OLD"].n_cen == size_to_pages("160G")
    sim.execute("WORKLOAD OLD START IDLE")
    sim.run_until(21)
    sim.execute("FORCE OLD")
    sim.run_until(21 + (60 if after_cleanup else 1))
    assert bool(sim.pause.cleaning("LPAR1")) != after_cleanup
    assert sim.execute("XAUTOLOG NEW").ok
    t_logon = sim.t
    sim.run_until(t_logon + 90)
    assert not sim.verify()
    (active,) = [e for e in sim.events if e.kind == "ACTIVE" and e.userid == "NEW"]
    return active.data["seconds"], active.data["cleanup_gb"], sim


def test_a_huge_guest_logging_on_during_a_cleanup_waits_for_frames():
    alone_s, alone_gb, _ = huge_logon(after_cleanup=True)
    busy_s, busy_gb, sim = huge_logon(after_cleanup=False)
    assert alone_gb == 0 and busy_gb > 150
    # Linux boots first either way
    assert alone_s >= MODEL.boot_s and busy_s >= MODEL.boot_s
    # 150 GB of first touches by 8 virtual CPUs take seconds on an idle member; behind a
    # cleanup handing back about 3.6 GB of frames a second, far longer
    assert alone_s < MODEL.boot_s + 12
    assert busy_s > alone_s + 10
    (e,) = [e for e in sim.events if e.kind == "ACTIVE" and e.userid == "NEW"]
    assert "logoff cleanup" in e.message


def test_a_logged_on_guest_boots_before_its_workload_runs():
    g = linux("LATE", "1G", 256, logged_on=False)
    sim = world([g])
    assert sim.execute("XAUTOLOG LATE").ok
    sim.run_until(MODEL.boot_s - 1)
    guest = sim.guests["LATE"]
    # only the kernel is touched while Linux boots
    assert guest.instantiated <= MODEL.kernel_mb * 256
    assert sim.pause.own_workload(guest).kind == "seqtouch"
    sim.run_until(MODEL.boot_s + 5)
    active = seconds(sim, "ACTIVE", "LATE")
    assert MODEL.boot_s <= active < MODEL.boot_s + 2


def test_a_cleanup_is_cp_work_on_one_processor_before_the_guests() -> None:
    """Resetting a departed guest's storage is CP's work on one processor: faster processors
    clear its frames sooner, and while it runs the guests share one processor less."""
    def run(cpu_speed: float) -> tuple[float, list[float]]:
        big = GuestConfig(userid="BIG", member="LPAR1", storage_pages=size_to_pages("6G"),
                          vcpus=4, workload=WorkloadSpec("seqtouch", {
                              "buffer_mb": 6144, "write": 1, "rate_pages_s": 1_000_000}))
        # a guest that wants every processor of the member
        hog = GuestConfig(userid="HOG", member="LPAR1", storage_pages=size_to_pages("256M"),
                          vcpus=4, workload=WorkloadSpec("randchange", {"fraction": 0.05}))
        m = member(central="8G")
        m = MemberConfig(**{**m.__dict__, "cpu_speed": cpu_speed})
        sim = Simulation(ScenarioConfig(name="cleanup cpu", members=[m], guests=[big, hog],
                                        seed=11, step_s=0.1, duration_s=3600))
        sim.run_until(30)
        sim.execute("FORCE BIG")
        rates = []
        for _ in range(5):  # while the reset goes on
            sim.step()
            rates.append(sim.guests["HOG"].cpu_rate)
        sim.run_until(60)
        return seconds(sim, "CLEANUP_DONE", "BIG"), rates

    slow, during = run(1.0)
    fast, _ = run(2.0)
    assert slow == pytest.approx(6144 * 256 * MODEL.clear_frame_s + WALK_6G, rel=0.05)
    assert fast == pytest.approx(slow / 2, rel=0.05)
    # the hog asks for all 4 processors and gets the 3 the reset leaves
    assert max(during) == pytest.approx(3.0, abs=0.01)


@pytest.mark.parametrize("step_s", [0.3, 1.0, 2.0])
def test_a_suspend_and_a_resume_take_as_long_at_any_step_length(step_s: float) -> None:
    """Each phase of a suspend or resume ends inside a step, and the next begins then. (Each
    began with the next step: at 2 s steps the database's 8 s suspend took 10 s.)"""
    def timings(step: float) -> dict[tuple[str, str], float]:
        sc = load_scenario(find_scenario("reference/pause-timings"))
        sc = dataclasses.replace(sc, step_s=step, sample_s=max(step, sc.sample_s))
        sim = Simulation(sc)
        sim.run_until(sc.duration_s)
        return {(e.kind, e.userid or ""): e.data["seconds"] for e in sim.events
                if e.kind in ("SUSPENDED", "SERVING")}

    fine, coarse = timings(0.1), timings(step_s)
    assert len(fine) >= 8
    assert coarse.keys() == fine.keys()
    for key, seconds in fine.items():
        assert coarse[key] == pytest.approx(seconds, abs=0.02), key


def two_logoffs(both: bool, step_s: float = 1.0) -> str:
    """BIGA (and BIGB if ``both``), 16 GB each held in central storage, are forced off at 15 s
    on a member of one processor, cleaned up inline."""
    text = f'''
format = "ssisim-scenario"
version = 1
name = "two cleanups on one processor"
[run]
seed = 1
duration_s = 40
step_s = {step_s}
[[member]]
name = "M1"
cpus = 1
central = "40G"
logoff_cleanup = "inline"
  [[member.volume]]
  size = "64G"
'''
    for u in ("BIGA", "BIGB"):
        text += f'''[[guest]]
userid = "{u}"
member = "M1"
storage = "16G"
workload = {{ type = "seqtouch", buffer_mb = 16000 }}
[[timeline]]
at_s = 12
command = "WORKLOAD {u} START IDLE"
'''
    for u in ("BIGA", "BIGB") if both else ("BIGA",):
        text += f'''[[timeline]]
at_s = 15
command = "FORCE {u}"
'''
    return text


def test_storage_resets_share_the_members_processors() -> None:
    # (each reset ran as if it had a processor of its own: two on one processor ended after
    # 3.7 s, as one alone did)
    def took(text: str) -> list[float]:
        sim = Simulation(loads_scenario(text))
        sim.run_until(40)
        return [c.t_end - c.t_start for c in sim.pause.cleanups]

    (alone,) = took(two_logoffs(False))
    both = took(two_logoffs(True))
    assert len(both) == 2
    for t in both:
        assert t == pytest.approx(2 * alone, rel=0.02)


def test_an_inline_reset_sharing_the_processor_holds_the_user_id_until_it_is_done() -> None:
    """Inline, the user ID stays taken until every page is reset, also where two resets share
    one processor and each takes twice as long. (It was freed when a whole processor would
    have finished: BIGA logged on again at 18.8 s with 1.7 million frames still to clear.)"""
    sim = Simulation(loads_scenario(two_logoffs(True, 0.1)))
    sim.run_until(15.05)
    while not sim.execute("XAUTOLOG BIGA").ok:
        sim.step()
    (done,) = [c.t_end for c in sim.pause.cleanups if c.userid == "BIGA"]
    assert done is not None and done <= sim.t + 1e-9
    assert done - 15 == pytest.approx(2 * cleanup_alone(), rel=0.02)


def cleanup_alone() -> float:
    """Seconds BIGA's inline reset takes alone on the member of ``two_logoffs``."""
    sim = Simulation(loads_scenario(two_logoffs(False)))
    sim.run_until(40)
    (c,) = sim.pause.cleanups
    assert c.t_end is not None
    return c.t_end - c.t_start


def force_then_logon(step_s: float) -> str:
    """BIG (34 GB, all in central storage) is forced off at 15 s and logged on again at 16 s;
    in the cleanup state its user ID is free 0.17 s after the FORCE."""
    return f'''
format = "ssisim-scenario"
version = 1
name = "logon after a force"
[run]
seed = 1
duration_s = 40
step_s = {step_s}
[[member]]
name = "M1"
cpus = 8
central = "40G"
logoff_cleanup = "background"
  [[member.volume]]
  size = "64G"
  kind = "nvme"
  service_ms = 0.1
  queue_depth = 32
[[guest]]
userid = "BIG"
member = "M1"
storage = "34G"
vcpus = 8
workload = {{ type = "seqtouch", buffer_mb = 34000 }}
[[timeline]]
at_s = 15
command = "FORCE BIG"
[[timeline]]
at_s = 16
command = "XAUTOLOG BIG"
'''


@pytest.mark.parametrize("step_s", [0.5, 2.0])
def test_what_a_command_starts_begins_when_the_command_was_due(step_s: float) -> None:
    # (a command due within a step ran as the step began, and what it started began then: at
    # 2 s steps the FORCE due at 15 s ran with the XAUTOLOG at 16 s, whose user ID was still
    # taken, and BIG never logged on again)
    sim = Simulation(loads_scenario(force_then_logon(step_s)))
    sim.run_until(40)
    (c,) = sim.pause.cleanups
    assert c.t_start == pytest.approx(15.0)
    (logon,) = sim.pause.logons
    assert logon.t_start == pytest.approx(16.0)
    assert sim.guests["BIG"].logged_on
    # and the log says so: the events of the commands carry the times they were due, those of
    # the cleanup the time it ended
    logs = {e.kind: e.t_s for e in sim.events if e.userid == "BIG"}
    assert logs["LOGOFF"] == pytest.approx(15.0)
    assert logs["LOGON"] == pytest.approx(16.0)
    assert logs["CLEANUP_DONE"] == pytest.approx(c.t_end, abs=1e-6)


def test_a_reset_takes_what_a_relocation_beside_it_leaves_of_the_processor() -> None:
    """CP's storage reset and a relocation are both system work, served before the guests: on
    a one-processor member the reset takes what the relocation leaves, and the guests get
    nothing until it is done, as without the relocation (the reset got half the processor
    whatever the relocation used, and WORKER ran on the rest)."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "cases" / "cleanup-beside-relocation.toml").read_text()
    alone = text.replace('command = "VMRELOCATE MOVE SMALL TO DST ASYNC"',
                         'command = "QUERY NAMES"')
    assert alone != text

    sim = Simulation(loads_scenario(text))
    sim.run_until(100)
    worker = sim.guests["WORKER"]
    before = worker.units_total
    sim.run_until(112)
    # the reset and the relocation have the processor (WORKER changes a million pages in a
    # second of it; ten is a rounding's worth of a piece of a step)
    assert worker.units_total - before < 10
    sim.run_until(160)
    assert sim.reloc.all[-1].result == "relocated"
    beside = next(e.t_s for e in sim.events if e.kind == "CLEANUP_DONE")
    sim = Simulation(loads_scenario(alone))
    sim.run_until(160)
    solo = next(e.t_s for e in sim.events if e.kind == "CLEANUP_DONE")
    assert solo < beside < solo + 5.0  # later by about the relocation's CPU

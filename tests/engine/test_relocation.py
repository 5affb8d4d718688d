"""Live Guest Relocation as a planner meets it: passes, quiesce, checks, throttles, limits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ssisim.engine import (
    ChpidConfig,
    LinkConfig,
    MemberConfig,
    ScenarioConfig,
    Simulation,
    VolumeConfig,
    size_to_pages,
)
from ssisim.engine.basics.config import GuestConfig, WorkloadSpec
from ssisim.engine.kernels import pages as K
from ssisim.engine.migrations.relocation import LGRModel

LINK18 = (ChpidConfig(2, 4), ChpidConfig(4, 4), ChpidConfig(4, 4), ChpidConfig(8, 4))


def cluster(guests, central="24G", paging="64G", xstor="0", link=LINK18, names=("SRC", "DST"),
            step_s=1.0):
    members = [MemberConfig(name=n, cpus=4, central_pages=size_to_pages(central),
                            xstor_pages=size_to_pages(xstor),
                            volumes=(VolumeConfig("PAG001", size_to_pages(paging), 0.5, 8),))
               for n in names]
    links = [LinkConfig((names[0], names[1]), link)] if link else []
    return Simulation(ScenarioConfig(name="lgr", members=members, guests=guests, links=links,
                                     seed=3, step_s=step_s, duration_s=600))


def linux(userid, storage="8G", kind="idle", member="SRC", **params):
    return GuestConfig(userid=userid, member=member, storage_pages=size_to_pages(storage),
                       vcpus=2, workload=WorkloadSpec(kind, params))


def warm(sim, userid, touched_mb, then="IDLE", seconds=10):
    """The guest touches ``touched_mb`` (boot and page cache), then runs ``then``."""
    sim.execute(f"WORKLOAD {userid} START SEQTOUCH BUFFER_MB {touched_mb} RATE_PAGES_S 400000")
    sim.run_until(sim.t + seconds)
    sim.execute(f"WORKLOAD {userid} START {then}")
    sim.step()


def relocate(sim, command, limit_s=3600):
    resp = sim.execute(command)
    assert resp.ok, resp.text
    where = []
    end = sim.t + limit_s
    while sim.reloc.active and sim.t < end:
        sim.step()
        where.append(sorted(m for m in (sim.guests[r.guest.userid].member
                                        for r in sim.reloc.all) if m))
        assert sim.verify() == []
    assert not sim.reloc.active, "relocation did not finish"
    return sim.reloc.all[-1].to_dict()


def test_idle_guest_moves_in_four_passes(make=None):
    sim = cluster([linux("LNX1")])
    warm(sim, "LNX1", 1024)
    before = sim.guests["LNX1"].instantiated
    r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST")
    assert r["result"] == "relocated" and r["passes"] == 4
    assert r["pass_list"][0]["pages"] == before, "pass 1 sends every instantiated page"
    assert r["pages_moved"] == sum(p["pages"] for p in r["pass_list"])
    g = sim.guests["LNX1"]
    assert g.member == "DST" and g.instantiated == before, "no page lost or duplicated"
    assert sim.members["SRC"].resident == 0
    assert sim.members["DST"].resident == g.n_cen
    kinds = [p["kind"] for p in r["pass_list"]]
    assert kinds == ["first", "intermediate", "penultimate", "final"]
    # quiesce is the last two passes, with the guest stopped
    assert r["quiesce_s"] == pytest.approx(sum(p["seconds"] for p in r["pass_list"][2:]), abs=0.01)


def test_immediate_gives_three_passes():
    sim = cluster([linux("LNX1")])
    warm(sim, "LNX1", 1024, then="RANDCHANGE FRACTION 0.1 RATE_PAGES_S 50000")
    r = relocate(sim, "VMREL MOVE LNX1 DST IMMED")
    assert r["passes"] == 3 and r["result"] == "relocated"
    assert "MAXQUIESCE NOLIMIT" in r["options"], "IMMEDIATE implies MAXQUIESCE NOLIMIT"


def test_a_changed_set_that_does_not_shrink_ends_in_eight_passes():
    sim = cluster([linux("LNX1", "16G")])
    warm(sim, "LNX1", 4096, then="RANDCHANGE FRACTION 0.25 RATE_PAGES_S 1500000", seconds=12)
    r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE NOLIMIT")
    assert r["passes"] == 8 and r["result"] == "relocated"
    sizes = [p["pages"] for p in r["pass_list"][1:6]]
    assert max(sizes) < 1.1 * min(sizes), "the changed set stays about the same"


def test_a_changed_set_that_keeps_shrinking_goes_to_eighteen_passes():
    # a changer that re-changes its whole set every pass while the set shrinks 2 % a second
    sim = cluster([linux("LNX1", "64G")], central="40G", paging="128G")
    frac = 0.0625  # a million pages
    warm(sim, "LNX1", 4096, then=f"RANDCHANGE FRACTION {frac} RATE_PAGES_S 2000000", seconds=12)
    sim.run_until(sim.t + 10)
    assert sim.execute("VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE NOLIMIT ASYNC").ok
    while sim.reloc.active:
        frac *= 0.98
        sim.execute(f"WORKLOAD LNX1 SET FRACTION {frac:.6f}")
        sim.step()
    r = sim.reloc.all[0].to_dict()
    assert r["result"] == "relocated" and r["passes"] == 18
    sizes = [p["pages"] for p in r["pass_list"][1:16]]
    assert all(b < 0.96 * a for a, b in zip(sizes, sizes[1:])), "each pass sends fewer pages"


def test_maxquiesce_cancels_and_the_guest_keeps_running_on_the_source():
    sim = cluster([linux("LNX1", "16G")])
    warm(sim, "LNX1", 4096, then="RANDCHANGE FRACTION 0.25 RATE_PAGES_S 1500000", seconds=12)
    src = sim.members["SRC"]
    before = (sim.guests["LNX1"].instantiated, src.resident)
    r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE 3")
    assert r["result"] == "MAXQUIESCE exceeded"
    assert "MAXQUIESCE 3" in r["message"]
    g = sim.guests["LNX1"]
    assert g.member == "SRC" and not g.stopped_by and g.state == "dispatch"
    assert sim.members["DST"].resident == 0, "the destination let go of every page"
    assert g.instantiated == before[0]
    done = g.units_total
    sim.run_until(sim.t + 5)
    assert g.units_total > done, "the guest goes on working"
    assert any(e.kind == "RELOCATION_CANCELLED" for e in sim.events)


def test_maxtotal_cancels_cleanly():
    sim = cluster([linux("LNX1", "16G")])
    warm(sim, "LNX1", 4096)
    r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST MAXTOTAL 5 MAXQ NOLIMIT")
    assert r["result"] == "MAXTOTAL exceeded" and r["relocation_s"] == pytest.approx(5, abs=0.01)
    assert sim.guests["LNX1"].member == "SRC"


def test_storage_check_failure_names_size_and_capacity():
    sim = cluster([linux("BIG", "48G")], central="16G", paging="20G")
    resp = sim.execute("VMRELOCATE TEST USER BIG TO DST")
    assert not resp.ok
    text = resp.text
    assert "BIG is not eligible for relocation to DST" in text
    assert "48" in text and "DST" in text and "G" in text  # size and capacity
    assert "central" in text and "paging" in text
    # FORCE STORAGE bypasses only the optional checks: the mandatory one still refuses
    assert "exceeds the storage available" in sim.execute(
        "VMRELOCATE TEST USER BIG TO DST FORCE STORAGE").text


def test_force_storage_bypasses_the_paging_space_check():
    sim = cluster([linux("MID", "24G")], central="48G", paging="16G")
    msg = sim.execute("VMRELOCATE TEST USER MID TO DST").text
    assert "paging space" in msg and "FORCE STORAGE" in msg
    assert sim.execute("VMRELOCATE TEST USER MID TO DST FORCE STORAGE").ok


def test_test_moves_nothing():
    sim = cluster([linux("LNX1")])
    warm(sim, "LNX1", 512)
    resp = sim.execute("VMRELOCATE TEST LNX1 TO DST")
    assert resp.ok and resp.lines == ["User LNX1 is eligible for relocation to DST"]
    assert not sim.reloc.all and sim.guests["LNX1"].member == "SRC"


@pytest.mark.parametrize("command, words", [
    ("VMRELOCATE MOVE USER NOSUCH TO DST", "not in CP directory"),
    ("VMRELOCATE MOVE USER LNX1 TO SRC", "already running there"),
    ("VMRELOCATE MOVE USER LNX1 TO MEMB9", "not a member"),
    ("VMRELOCATE MOVE USER LNX1 TO DST SYNC ASYNC", "conflict"),
    ("VMRELOCATE MOVE USER LNX1 TO DST IMMEDIATE IMMEDIATE", "more than once"),
    ("VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE", "missing"),
    ("VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE -3", "invalid operand"),
    ("VMRELOCATE MOVE USER LNX1 TO DST MAXTOTAL 5 MAXQUIESCE 10", "less than MAXQUIESCE"),
    ("VMRELOCATE TEST USER LNX1 TO DST ASYNC", "conflicts with TEST"),
    ("VMRELOCATE MOVE USER LNX1 TO DST FORCE ARCHITECTURE", "FORCE STORAGE"),
    ("VMRELOCATE JUMP USER LNX1 TO DST", "Invalid option"),
    ("VMRELOCATE CANCEL USER LNX1", "No relocation of LNX1 is in progress"),
    ("VMRELOCATE MOVE USER OFFLN TO DST", "not logged on"),
])
def test_refused_relocations_change_nothing(command, words):
    off = linux("OFFLN")
    off.logged_on = False
    sim = cluster([linux("LNX1"), off])
    warm(sim, "LNX1", 256)
    before = replace(sim.snapshot(), events=0)
    resp = sim.execute(command)
    assert not resp.ok and len(resp.lines) == 1 and resp.lines[0].startswith("HCP")
    assert words in resp.text
    assert replace(sim.snapshot(), events=0) == before and not sim.reloc.all


def test_no_isfc_link_refuses():
    sim = cluster([linux("LNX1")], link=None)
    assert "no ISFC link" in sim.execute("VMRELOCATE MOVE USER LNX1 TO DST").text


def test_already_relocating_and_status_and_cancel():
    sim = cluster([linux("LNX1", "16G")])
    warm(sim, "LNX1", 4096)
    assert sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC").ok
    sim.step()
    again = sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC")
    assert "already in progress" in again.text
    status = sim.execute("VMREL STATUS")
    assert status.ok and "LNX1" in status.lines[1] and "Moving Memory" in status.lines[1]
    cancel = sim.execute("VMRELOCATE CANCEL USER LNX1")
    assert cancel.ok and "continues to run on SRC" in cancel.text
    assert sim.guests["LNX1"].member == "SRC" and sim.members["DST"].resident == 0
    assert sim.verify() == []
    assert "No relocations in progress" in sim.execute("VMRELOCATE STATUS").text


def test_destination_short_of_frames_throttles_and_pages():
    dst_hog = linux("HOG", "22G", member="DST")
    sim = cluster([linux("LNX1", "16G"), dst_hog], central="24G", paging="64G")
    warm(sim, "HOG", 21000, seconds=15)
    warm(sim, "LNX1", 8192)
    assert sim.members["DST"].free_frames < 8192 * 256, "the guest does not fit in free frames"
    r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE NOLIMIT")
    assert r["result"] == "relocated"
    assert r["throttle_s"].get("destination:frames", 0) > 0
    assert r["throttle_s"].get("source:dest_backlog", 0) > 0
    reasons = {e.data["reason"] for e in sim.events if e.kind == "THROTTLE_START"}
    assert "frames" in reasons
    ends = [e for e in sim.events if e.kind == "THROTTLE_END"]
    assert all(e.data["seconds"] >= 0 and "start_s" in e.data for e in ends)
    dst = sim.members["DST"]
    assert dst.counters.xstor_out + dst.counters.dasd_out + dst.counters.dasd_clean > 0
    g = sim.guests["LNX1"]
    assert g.member == "DST" and g.instantiated >= 8192 * 256


def test_a_destination_that_makes_room_in_time_shows_no_throttle():
    """Room made to XSTOR as the pages come in costs the relocation nothing, so no throttle
    is shown for it: a planner sees throttles only where the relocation waited."""
    times = []
    for hog_mb in (0, 19000):
        guests = [linux("LNX1", "16G")] + ([linux("HOG", "22G", member="DST")] if hog_mb else [])
        sim = cluster(guests, xstor="12G")
        if hog_mb:
            warm(sim, "HOG", hog_mb, seconds=15)
        warm(sim, "LNX1", 8192)
        r = relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST MAXQUIESCE NOLIMIT")
        assert r["result"] == "relocated"
        times.append(r["relocation_s"])
        dst = sim.members["DST"]
        if hog_mb:
            assert dst.counters.xstor_out > 1024 * 256  # GBs went to XSTOR to make room
            assert dst.counters.dasd_out == 0
        assert not [k for k in r["throttle_s"] if k.startswith("destination:")]
        assert "source:dest_backlog" not in r["throttle_s"]
    assert times[1] == pytest.approx(times[0], rel=0.02)


def test_async_relocations_share_the_link_and_sync_ones_wait():
    def run(mode):
        sim = cluster([linux("A", "8G"), linux("B", "8G")])
        for u in ("A", "B"):
            sim.execute(f"WORKLOAD {u} START SEQTOUCH BUFFER_MB 2048 RATE_PAGES_S 400000")
        sim.run_until(10)
        for u in ("A", "B"):
            sim.execute(f"WORKLOAD {u} START IDLE")
        for u in ("A", "B"):
            sim.schedule(__import__("ssisim.engine", fromlist=["TimelineEntry"]).TimelineEntry(
                sim.t, f"VMRELOCATE MOVE USER {u} TO DST {mode}"))
        overlap = False
        for _ in range(300):
            sim.step()
            overlap |= len(sim.reloc.active) > 1
            if len(sim.reloc.all) == 2 and not sim.reloc.active:
                break
        return sim, overlap

    sim, overlap = run("SYNC")
    assert not overlap, "SYNC relocations run one after the other"
    a, b = (r.to_dict() for r in sim.reloc.all)
    assert b["start_s"] >= a["start_s"] + a["relocation_s"] - 1.0
    sim, overlap = run("ASYNC")
    assert overlap
    assert any("link_queue" in k for r in sim.reloc.all for k in r.throttle_s)


def test_reserved_is_not_carried_and_share_is_flagged():
    sim = cluster([linux("LNX1")])
    warm(sim, "LNX1", 512)
    sim.execute("SET RESERVED LNX1 1000")
    relocate(sim, "VMRELOCATE MOVE USER LNX1 TO DST")
    warnings = [e.message for e in sim.events if e.kind == "RELOCATION_WARNING"]
    assert any("SET RESERVED" in w for w in warnings)
    assert any("SHARE" in w and "review" in w for w in warnings)
    assert sim.guests["LNX1"].set_reserved == 0


def test_relocation_takes_cpu_from_other_guests():
    def busy_neighbour(with_relocation):
        sim = cluster([linux("LNX1", "16G"), linux("WORK", "4G")])
        members = sim.scenario.members
        assert members[0].cpus == 4
        warm(sim, "LNX1", 6144)
        # the neighbour wants all four CPUs: four touchers, one on each of its virtual CPUs
        assert sim.execute("WORKLOAD WORK START SEQTOUCH BUFFER_MB 64 INSTANCES 4").ok
        sim.guests["WORK"].cfg.vcpus = 4
        if with_relocation:
            sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC MAXQ NOLIMIT")
        before = sim.guests["WORK"].units_total
        sim.run_until(sim.t + 10)
        return sim.guests["WORK"].units_total - before

    assert busy_neighbour(True) < 0.95 * busy_neighbour(False)


def test_guest_is_on_exactly_one_member_throughout_and_pages_arrive_once():
    sim = cluster([linux("LNX1", "8G")])
    warm(sim, "LNX1", 2048, then="RANDCHANGE FRACTION 0.2 RATE_PAGES_S 100000")
    g = sim.guests["LNX1"]
    sim.execute("VMRELOCATE MOVE USER LNX1 TO DST MAXQ NOLIMIT ASYNC")
    while sim.reloc.active:
        sim.step()
        names = [n for n in sim.members if g in sim.guests_on(n)]
        assert len(names) == 1
        r = sim.reloc.all[0]
        if r.incoming is not None:
            # the destination never holds a page the source does not have
            assert r.incoming.n_cen + r.incoming.n_xst + r.incoming.n_dsd <= g.instantiated
    assert g.member == "DST"
    counts = __import__("numpy").zeros(K.NPLANES, dtype="int64")
    K.count_planes(g.planes, counts)
    assert counts[K.CEN] + counts[K.XST] + counts[K.DSD] == g.instantiated
    assert counts[K.SEND] == 0 and counts[K.LGR] == 0


def test_snapshot_shows_the_relocation_in_progress():
    sim = cluster([linux("LNX1", "16G")])
    warm(sim, "LNX1", 4096)
    sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC")
    sim.run_until(sim.t + 5)
    snap = sim.snapshot()
    (r,) = snap.relocations
    assert r.userid == "LNX1" and r.state == "moving" and r.passes[0].kind == "first"
    assert 0 < r.pages_left < 4096 * 256 and r.link_pages_per_s > 0
    while sim.reloc.active:
        sim.step()
    (r,) = sim.snapshot().relocations
    assert r.state == "done" and r.quiesce_s > 0 and r.end_s is not None
    assert sum(p.pages for p in r.passes) == r.pages_moved


def test_the_snapshot_gives_the_pace_the_pages_really_go_at() -> None:
    """A window's estimate of a relocation's remaining time reads the pace its pages go at:
    where the source's processor is slower than the link (a live pass on slow processors),
    the processor's pace, which the pass then keeps; the link's part where it is the slower
    (a quiesced pass stages nothing)."""
    sim = cluster([linux("LNX1", "8G")])
    warm(sim, "LNX1", 6144)
    src = sim.members["SRC"]
    src.cfg = replace(src.cfg, cpu_speed=0.5)
    sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC MAXQUIESCE NOLIMIT")
    sim.run_until(sim.t + 3)
    (r,) = sim.snapshot().relocations
    assert r.state == "moving" and r.passes[0].kind == "first"
    md = LGRModel()
    building = (md.stage_s_per_page + md.send_cpu_s_per_page) / 0.5
    assert r.pace_pages_per_s == pytest.approx(1 / building, rel=1e-3)
    assert r.pace_pages_per_s < 0.6 * r.link_pages_per_s
    while sim.reloc.active:
        sim.step()
    (done,) = sim.snapshot().relocations
    first = done.passes[0]
    scan_s = 8 * md.dat_scan_s_per_gb / 0.5
    took = first.end_s - first.start_s - scan_s
    assert first.pages / took == pytest.approx(r.pace_pages_per_s, rel=0.02)
    assert done.pace_pages_per_s == 0.0


def test_a_relocations_events_carry_the_times_of_its_passes_not_of_the_steps() -> None:
    # (an event was stamped with the time its step began: at 2 s steps every pass seemed to
    # end on an even second, and the relocation to end up to 2 s before it did)
    sim = cluster([linux("LINUX1", storage="8G")], step_s=2.0)
    warm(sim, "LINUX1", 3000)
    relocate(sim, "VMRELOCATE MOVE USER LINUX1 TO DST")
    (r,) = sim.reloc.all
    ends = [e.t_s for e in sim.events if e.kind == "PASS_END"]
    assert ends == pytest.approx([p.end_s for p in r.passes], abs=1e-6)
    assert any(abs(t / 2 - round(t / 2)) > 0.01 for t in ends)
    (done,) = [e for e in sim.events if e.kind == "RELOCATION_DONE"]
    assert done.t_s == pytest.approx(r.t_end, abs=1e-6)
    (quiesce,) = [e for e in sim.events if e.kind == "QUIESCE_START"]
    assert quiesce.t_s == pytest.approx(r.t_quiesce, abs=1e-6)


def test_a_quiesce_that_can_never_fit_maxquiesce_does_not_stop_the_guest() -> None:
    # (an idle guest whose two DAT scans alone passed MAXQUIESCE was stopped anyway, and
    # cancelled when the limit ran out: an outage for nothing)
    sim = cluster([linux("LINUX1", storage="64G")], paging="128G")
    warm(sim, "LINUX1", 3000)
    r = relocate(sim, "VMRELOCATE MOVE USER LINUX1 TO DST MAXQUIESCE 2")
    assert r["result"] == "MAXQUIESCE exceeded"
    assert r["quiesce_s"] == 0.0, "the guest never stopped"
    assert not any(e.kind == "QUIESCE_START" for e in sim.events)
    assert r["passes"] == 2, "CP saw it after the first pass it judges"
    assert sim.guests["LINUX1"].member == "SRC"
    # with room for the scans it moves
    sim2 = cluster([linux("LINUX1", storage="64G")], paging="128G")
    warm(sim2, "LINUX1", 3000)
    assert relocate(sim2, "VMRELOCATE MOVE USER LINUX1 TO DST MAXQUIESCE 10")["result"] == \
        "relocated"


def test_a_pass_under_way_reports_the_time_it_has_run() -> None:
    sim = cluster([linux("LINUX1", storage="8G")])
    warm(sim, "LINUX1", 3000)
    assert sim.execute("VMRELOCATE MOVE USER LINUX1 TO DST ASYNC").ok
    sim.step()
    sim.step()
    (r,) = sim.reloc.all
    d = r.to_dict(now=sim.t)
    assert d["pass_list"], "a pass is under way"
    assert all(p["seconds"] >= 0 for p in d["pass_list"])
    assert d["pass_list"][-1]["seconds"] == pytest.approx(
        sim.t - d["pass_list"][-1]["start_s"], abs=1e-3)


def test_a_chpid_is_used_best_with_four_or_five_ctc_devices():
    """A CTC device carries one message at a time and turns around off the CHPID between
    messages: one device leaves its CHPID idle for most of the time, more keep it busier, and
    past four or five there is little left to gain (domain.md, the ISFC link)."""
    times = []
    for ctcs in (1, 2, 3, 4, 5, 8):
        sim = cluster([linux("LNX1", "8G")], link=(ChpidConfig(8, ctcs),))
        warm(sim, "LNX1", 6144)
        times.append(relocate(sim, "VMRELOCATE MOVE LNX1 TO DST")["relocation_s"])
    assert times == sorted(times, reverse=True) and len(set(times)) == len(times)
    one, four, eight = times[0], times[3], times[-1]
    assert one > 1.8 * four  # the single device's CHPID idles while it turns around
    assert four < 1.1 * eight and times[4] < 1.05 * eight  # four or five nearly as eight


def test_a_fast_chpid_needs_more_ctc_devices_than_a_slow_one():
    """A CTC's turn-around between messages takes as long on any CHPID, while a message goes
    four times as fast on 8 Gbit/s as on 2: a single device leaves a fast CHPID idle most of
    the time and a slow one far less. (With the turn-around a fixed multiple of the transfer,
    one device cost every CHPID as much: 2.4 times as long as four.)"""
    def first_pass(gbps: int, ctcs: int) -> float:
        sim = cluster([linux("LNX1", "8G")], link=(ChpidConfig(gbps, ctcs),))
        warm(sim, "LNX1", 6144)
        return relocate(sim, "VMRELOCATE MOVE LNX1 TO DST")["pass_list"][0]["seconds"]

    slow = first_pass(2, 1) / first_pass(2, 4)
    fast = first_pass(8, 1) / first_pass(8, 4)
    assert slow < 1.6 < 2.2 < fast


def test_a_destination_with_slow_processors_takes_the_pages_at_its_own_pace():
    """The destination's CP receives and places every page on its own processors, beside the
    source's sending: when it is the slower, the pages go at its pace, and the inbound messages
    that queue for it are the memory-move socket throttle."""
    def move(speed):
        sim = cluster([linux("LNX1", "8G")])
        dst = sim.members["DST"]
        dst.cfg = replace(dst.cfg, cpus=1, cpu_speed=speed)
        warm(sim, "LNX1", 6144)
        return relocate(sim, "VMRELOCATE MOVE LNX1 TO DST")

    fast, slow = move(1.0), move(0.02)
    assert "destination:socket" not in fast["throttle_s"]
    # 0.3 us a page at speed 1 is 15 us on one processor at 0.02: at most 67,000 pages/s
    assert slow["pages_moved"] / slow["relocation_s"] < 67_000
    assert slow["relocation_s"] > 3 * fast["relocation_s"]
    assert slow["throttle_s"]["destination:socket"] > 0.8 * slow["relocation_s"]


def test_a_slow_destination_hidden_behind_the_scan_shows_no_throttle():
    """What costs the relocation nothing shows no throttle: the idle reference guest's pages go
    beside its DAT scan, which takes longer than a destination of a tenth of the processors'
    speed takes to receive them, so the relocation takes as long, and no inbound messages are
    reported queueing on the memory-move socket. (It showed 21 s of that throttle.)"""
    from ssisim.engine import build_summary, find_scenario, loads_scenario

    text = find_scenario("reference/lgr-idle").read_text(encoding="utf-8")

    def move(dst_speed: float) -> dict:
        head, _, tail = text.partition('name = "DST"')
        sim = Simulation(loads_scenario(
            head + f'name = "DST"\ncpu_speed = {dst_speed}' + tail))
        sim.run_until(sim.scenario.duration_s)
        (r,) = build_summary(sim)["relocations"]
        return r

    fast, slow = move(1.0), move(0.1)
    assert slow["relocation_s"] == pytest.approx(fast["relocation_s"], rel=1e-3)
    assert "destination:socket" not in slow["throttle_s"]
    # ten times slower still, the destination sets the pace, and the throttle says so
    slower = move(0.01)
    assert slower["relocation_s"] > 2 * fast["relocation_s"]
    assert slower["throttle_s"]["destination:socket"] > 0.5 * slower["relocation_s"]


def test_a_source_with_slow_processors_sends_at_the_pace_its_processor_allows():
    """The source's relocation task stages each page of a live pass and builds its message on
    one processor: on slow processors that work, not the link, sets the pace, and the task
    never uses more of the processor than there is."""
    def move(speed):
        sim = cluster([linux("LNX1", "8G")])
        warm(sim, "LNX1", 6144)
        src = sim.members["SRC"]
        src.cfg = replace(src.cfg, cpus=1, cpu_speed=speed)
        return relocate(sim, "VMRELOCATE MOVE LNX1 TO DST MAXQUIESCE NOLIMIT")

    fast, slow = move(1.0), move(0.02)
    first = slow["pass_list"][0]
    scan_s = 8 * LGRModel().dat_scan_s_per_gb / 0.02
    # (2.43 us staging + 0.3 us building) / 0.02 = 136.5 us a page on its one processor
    per_page = (LGRModel().stage_s_per_page + LGRModel().send_cpu_s_per_page) / 0.02
    assert per_page == pytest.approx(136.5e-6)
    assert first["pages"] / (first["seconds"] - scan_s) < 1 / per_page * 1.01
    assert slow["relocation_s"] > 10 * fast["relocation_s"]
    receive_s = slow["pages_moved"] * LGRModel().receive_cpu_s_per_page
    assert slow["cpu_s"] - receive_s <= slow["relocation_s"] * 1.001
    # the link did not set the pace, so reordering on it cost nothing
    assert slow["throttle_s"].get("link:ordering", 0.0) == 0.0


def test_a_cancelled_relocation_reports_what_reordering_cost_not_how_long_it_ran():
    """Reordering on a link of mixed CHPIDs slows the sending by a few per cent all along: a
    relocation cancelled in the middle of a pass says what it cost, as a finished pass does.
    (A link of 2 and 4 Gbit/s sets the pace: over capacity 18 the source's processor staging
    the pages of a running guest does.)"""
    sim = cluster([linux("LNX1", "16G", kind="randchange", rate_pages_s=200000)],
                  link=(ChpidConfig(2, 4), ChpidConfig(4, 4)))
    warm(sim, "LNX1", 12288, then="RANDCHANGE RATE_PAGES_S 200000")
    assert sim.execute("VMRELOCATE MOVE USER LNX1 TO DST ASYNC").ok
    sim.run_until(sim.t + 6)
    assert sim.reloc.active
    assert sim.execute("VMRELOCATE CANCEL USER LNX1").ok
    sim.step()
    (r,) = [x.to_dict() for x in sim.reloc.all]
    assert r["result"] == "cancelled"
    assert 0 < r["throttle_s"]["link:ordering"] < 0.05 * r["relocation_s"]


def test_a_pass_takes_the_slower_of_its_processor_and_the_link():
    """The relocation task scans the guest's DAT tables, stages each page of a live pass and
    builds its message on one processor of the source, while the link carries the messages it
    has queued: a pass lasts as long as the slower of the two, then the scan's status records.
    The link carries Fibre Channel's payload, 100 MB/s per Gbit/s of a CHPID, never more. (With
    the scan and the pages counted one after the other, the published busy quiesce needed a
    link of 2.14 GB/s over capacity 18, more than its 1.8 GB/s.)"""
    from ssisim.engine.basics.units import PAGES_PER_GB
    from ssisim.engine.migrations.relocation import link_pages_per_s, ordering_fraction

    md = LGRModel()

    def move(speed):
        sim = cluster([linux("LNX1", "16G", kind="randchange", fraction=0.25,
                             rate_pages_s=400000)])
        warm(sim, "LNX1", 4096, then="RANDCHANGE FRACTION 0.25 RATE_PAGES_S 400000")
        src = sim.members["SRC"]
        src.cfg = replace(src.cfg, cpu_speed=speed)
        r = relocate(sim, "VMRELOCATE MOVE LNX1 TO DST IMMEDIATE")
        assert r["result"] == "relocated"
        return r["pass_list"]

    link = LinkConfig(("SRC", "DST"), LINK18)
    per_link = 1 / (link_pages_per_s(link) * (1 - ordering_fraction(link)))
    npages = size_to_pages("16G")
    status = npages * md.scan_bytes_per_page / (link_pages_per_s(link) * 4096)
    scan_cpu = npages / PAGES_PER_GB * md.dat_scan_s_per_gb
    assert link_pages_per_s(link) * 4096 < 18 * 100e6  # within the CHPIDs' payload

    slow, fast, faster = move(1.0), move(2.0), move(4.0)
    # the quiesced pass stages nothing: its pages go at the link's pace while its scan runs
    first, penultimate = slow[0], slow[1]
    assert penultimate["pages"] > 500_000 and scan_cpu > 0.5
    assert penultimate["seconds"] == pytest.approx(penultimate["pages"] * per_link + status,
                                                   rel=0.01)
    # a live pass on the reference processor: the processor's work sets the pace
    live = md.stage_s_per_page + md.send_cpu_s_per_page
    assert live > per_link
    assert first["seconds"] == pytest.approx(scan_cpu + first["pages"] * live + status,
                                             rel=0.01)
    # on twice as fast a processor the link does, and a faster one gains nothing more
    assert fast[0]["seconds"] == pytest.approx(fast[0]["pages"] * per_link + status, rel=0.01)
    assert faster[0]["seconds"] == pytest.approx(fast[0]["seconds"], rel=1e-3)
    assert first["seconds"] > 1.3 * fast[0]["seconds"]

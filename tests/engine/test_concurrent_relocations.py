"""Relocations at the same time: they share the link and the members' frames and paging I/O as
they run, so none takes a whole step's worth before the next, and the order they were issued in
decides nothing (docs/relocation.md, "Link, CPU and concurrency"). CP cancels a relocation the
moment it passes its MAXQUIESCE or MAXTOTAL, within a step too."""

from __future__ import annotations

import pytest

from ssisim.engine import Simulation, build_summary, find_scenario, loads_scenario


def two_to_a_short_destination(first: str, second: str, step_s: float = 1.0) -> str:
    """LNXA and LNXB (16 GB each, alike) move ASYNC together to MEMB2, nearly full of LNXHOG's
    pages: both wait for MEMB2's demand scan, which writes at its paging volume's pace."""
    return f'''
format = "ssisim-scenario"
version = 1
name = "two at once"
[run]
seed = 7
duration_s = 200
step_s = {step_s}
[[member]]
name = "MEMB1"
cpus = 4
central = "48G"
  [[member.volume]]
  size = "64G"
  service_ms = 0.5
  queue_depth = 8
[[member]]
name = "MEMB2"
cpus = 4
central = "30G"
  [[member.volume]]
  size = "64G"
  service_ms = 0.5
  queue_depth = 8
[[link]]
members = ["MEMB1", "MEMB2"]
chpids = [{{gbps = 2, ctcs = 4}}, {{gbps = 4, ctcs = 4}},
          {{gbps = 4, ctcs = 4}}, {{gbps = 8, ctcs = 4}}]
[[guest]]
userid = "LNXA"
member = "MEMB1"
storage = "16G"
workload = {{ type = "randchange", fraction = 0.25, rate_pages_s = 50000 }}
[[guest]]
userid = "LNXB"
member = "MEMB1"
storage = "16G"
workload = {{ type = "randchange", fraction = 0.25, rate_pages_s = 50000 }}
[[guest]]
userid = "LNXHOG"
member = "MEMB2"
storage = "28G"
workload = {{ type = "seqtouch", buffer_mb = 27000, rate_pages_s = 400000 }}
[[timeline]]
at_s = 20
command = "WORKLOAD LNXHOG START IDLE"
[[timeline]]
at_s = 30
command = "VMRELOCATE MOVE USER {first} TO MEMB2 ASYNC MAXQUIESCE NOLIMIT"
[[timeline]]
at_s = 30
command = "VMRELOCATE MOVE USER {second} TO MEMB2 ASYNC MAXQUIESCE NOLIMIT"
'''


def moved(text: str, until: float = 150) -> dict[str, int]:
    sim = Simulation(loads_scenario(text))
    sim.run_until(until)
    return {r.guest.userid: r.pages_moved for r in sim.reloc.all}


@pytest.mark.parametrize("step_s", [0.25, 1.0])
def test_relocations_to_one_short_destination_share_its_paging(step_s: float) -> None:
    # (each relocation took the destination's frames and paging I/O for a whole step in turn,
    # in the order they were issued: the first moved 2.11 million pages by 150 s and the
    # second 2.44 million, whichever guest was first)
    ab = moved(two_to_a_short_destination("LNXA", "LNXB", step_s))
    ba = moved(two_to_a_short_destination("LNXB", "LNXA", step_s))
    for got in (ab, ba):
        assert got["LNXA"] > 500_000
        assert got["LNXA"] == pytest.approx(got["LNXB"], rel=0.05)
    # whichever was issued first
    assert ab["LNXA"] == pytest.approx(ba["LNXA"], rel=0.05)


def with_a_big_idle_guest(also: bool) -> str:
    """BUSY (8 GB, changing pages) moves at 10 s over one 8 Gb CHPID; at 12 s, if ``also``, so
    does IDLE, a 512 GB guest that touched little: its setup and first DAT scan take 22 s."""
    text = '''
format = "ssisim-scenario"
version = 1
name = "a scan beside a move"
[run]
seed = 3
duration_s = 120
step_s = 1
[[member]]
name = "MEMB1"
cpus = 8
central = "64G"
  [[member.volume]]
  size = "1T"
[[member]]
name = "MEMB2"
cpus = 8
central = "64G"
  [[member.volume]]
  size = "1T"
[[link]]
members = ["MEMB1", "MEMB2"]
chpids = [{gbps = 8, ctcs = 4}]
[[guest]]
userid = "BUSY"
member = "MEMB1"
storage = "8G"
workload = { type = "randchange", fraction = 0.5, rate_pages_s = 20000 }
[[guest]]
userid = "IDLE"
member = "MEMB1"
storage = "512G"
workload = { type = "idle", wss_mb = 64 }
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE USER BUSY TO MEMB2 ASYNC MAXQUIESCE NOLIMIT"
'''
    if also:
        text += '''[[timeline]]
at_s = 12
command = "VMRELOCATE MOVE USER IDLE TO MEMB2 ASYNC MAXQUIESCE NOLIMIT"
'''
    return text


def test_a_relocation_scanning_its_dat_tables_leaves_the_link_to_one_sending() -> None:
    # (every relocation under way had its equal part of the link, one still setting up or
    # scanning its guest's DAT tables too: BUSY took 5.9 s beside IDLE, 4.4 s alone)
    def busy(text: str) -> dict:
        sim = Simulation(loads_scenario(text))
        sim.run_until(120)
        return next(r for r in build_summary(sim)["relocations"] if r["guest"] == "BUSY")

    alone, beside = busy(with_a_big_idle_guest(False)), busy(with_a_big_idle_guest(True))
    assert alone["result"] == beside["result"] == "relocated"
    assert beside["relocation_s"] == pytest.approx(alone["relocation_s"], rel=0.05)


def relocation_under(text: str, limit: str, until: float) -> dict:
    """The one relocation of scenario ``text``, which says MAXQUIESCE NOLIMIT, with ``limit``
    in its place, run until ``until``: its summary."""
    sim = Simulation(loads_scenario(text.replace("MAXQUIESCE NOLIMIT", limit)))
    sim.run_until(until)
    (r,) = build_summary(sim)["relocations"]
    return r


@pytest.mark.parametrize("step_s", [0.1, 1.0, 5.0])
def test_the_limits_cancel_the_moment_they_are_passed(step_s: float) -> None:
    """The busy reference relocation with a MAXTOTAL that runs out in mid-pass (MAXQUIESCE
    is checked in the same way). (Only a relocation still under way at the end of a step was
    checked: at 1 s and 5 s steps one that ended inside the step after its limit relocated.)
    A MAXTOTAL a little under what it takes is known before the quiesce: CP cancels then,
    the guest never stopped; a little over, it relocates."""
    text = find_scenario("reference/lgr-busy").read_text(encoding="utf-8")
    text = text.replace("step_s = 1\n", f"step_s = {step_s}\n", 1)
    text = text.replace("sample_s = 5\n", f"sample_s = {max(step_s, 5)}\n", 1)

    def result(limit: str) -> dict:
        return relocation_under(text, limit, 260)

    free = result("MAXQUIESCE NOLIMIT")
    assert free["result"] == "relocated"
    total = free["relocation_s"]
    mid = result("MAXQUIESCE NOLIMIT MAXTOTAL 100.003")
    assert mid["result"] == "MAXTOTAL exceeded" and mid["quiesce_s"] == 0.0
    assert mid["relocation_s"] == pytest.approx(100.003, abs=2e-3)
    over = result(f"MAXQUIESCE NOLIMIT MAXTOTAL {total - 0.02:.3f}")
    assert over["result"] == "MAXTOTAL exceeded" and over["quiesce_s"] == 0.0
    assert over["relocation_s"] < total - free["quiesce_s"] + 0.01
    # (CP's estimate of the quiesce is within a few tenths of a second of what it takes)
    assert result(f"MAXQUIESCE NOLIMIT MAXTOTAL {total + 0.5:.3f}")["result"] == "relocated"


def two_busy_guests(both: bool) -> str:
    """LNXA (and, if ``both``, LNXB beside it), 8 GB each changing 80,000 pages a second,
    move ASYNC with MAXQUIESCE NOLIMIT over the reference link (417,000 pages a second)."""
    text = '''
format = "ssisim-scenario"
version = 1
name = "two busy guests"
[run]
seed = 7
duration_s = 60
step_s = 0.5
[[member]]
name = "MEMB1"
cpus = 4
central = "40G"
  [[member.volume]]
  size = "64G"
[[member]]
name = "MEMB2"
cpus = 4
central = "40G"
  [[member.volume]]
  size = "64G"
[[link]]
members = ["MEMB1", "MEMB2"]
chpids = [{gbps = 2, ctcs = 4}, {gbps = 4, ctcs = 4}, {gbps = 4, ctcs = 4}, {gbps = 8, ctcs = 4}]
'''
    for userid in ("LNXA", "LNXB"):
        text += f'''[[guest]]
userid = "{userid}"
member = "MEMB1"
storage = "8G"
workload = {{ type = "randchange", fraction = 0.25, rate_pages_s = 80000 }}
'''
    for userid in ("LNXA", "LNXB") if both else ("LNXA",):
        text += f'''[[timeline]]
at_s = 20
command = "VMRELOCATE MOVE USER {userid} TO MEMB2 ASYNC MAXQUIESCE NOLIMIT"
'''
    return text


def test_cp_judges_a_changed_set_by_the_part_of_the_link_the_relocation_gets() -> None:
    # (the quiesce threshold took the whole link's rate whoever shared it: each of the two
    # guests was stopped after pass 2 with 121,000 changed pages, which its half of the link
    # sends in 0.46 s, not the 0.25 s of the threshold; over the whole link's threshold they
    # would now stop after pass 3 with 92,000)
    from ssisim.engine.migrations.relocation import MODEL, link_pages_per_s

    def passes(both: bool) -> list[list[int]]:
        sim = Simulation(loads_scenario(two_busy_guests(both)))
        sim.run_until(60)
        assert all(r.result == "relocated" for r in sim.reloc.all)
        return [[p.pages for p in r.passes] for r in sim.reloc.all]

    (alone,) = passes(False)
    assert len(alone) == 4  # its changed set after pass 2 is under the threshold
    half = link_pages_per_s(next(iter(loads_scenario(two_busy_guests(True)).links)),
                            MODEL) / 2
    for moved in passes(True):
        assert len(moved) > 4
        assert moved[-2] <= MODEL.quiesce_threshold_s * half * 1.05  # the penultimate pass


REFERENCE_LINK = "[{gbps = 2, ctcs = 4}, {gbps = 4, ctcs = 4}, {gbps = 4, ctcs = 4}, " \
    "{gbps = 8, ctcs = 4}]"


def two_members(name: str, step_s: float, cpus: int, cpu_speed: float = 1.0,
                chpids: str = "[{gbps = 8, ctcs = 4}]") -> str:
    """A scenario's start: MEMB1 and MEMB2 of ``cpus`` processors (of ``cpu_speed``) and 64 GB
    each, a link of ``chpids`` (one 8 Gb CHPID) between them, steps of ``step_s``."""
    text = f'''
format = "ssisim-scenario"
version = 1
name = "{name}"
[run]
seed = 11
duration_s = 200
step_s = {step_s}
'''
    for n in (1, 2):
        text += f'''
[[member]]
name = "MEMB{n}"
cpus = {cpus}
cpu_speed = {cpu_speed}
central = "64G"
  [[member.volume]]
  volid = "PAG00{n}"
  size = "64G"
'''
    return text + f'''
[[link]]
members = ["MEMB1", "MEMB2"]
chpids = {chpids}
'''


def joined_within_a_step(step_s: float, b: str = "6G", ta: float = 125.2, tb: float = 131.5,
                         tc: float | None = None) -> str:
    """LNXA (16 GB, all of it touched) relocates ASYNC from ``ta``; LNXB (``b``) from ``tb``,
    within a step of 10 s beside LNXA, which had that step's whole link; LNXC (6 GB) from
    ``tc`` too, when given."""
    text = two_members("joined within a step", step_s, 4)
    for userid, size, at in (("LNXA", "16G", ta), ("LNXB", b, tb), ("LNXC", "6G", tc)):
        if at is None:
            continue
        mb = int(size[:-1]) * 1024
        text += f'''
[[guest]]
userid = "{userid}"
member = "MEMB1"
storage = "{size}"
workload = {{ type = "idle", wss_mb = {mb}, refs_per_s = 1000000, changes_per_s = 0 }}
[[timeline]]
at_s = {at}
command = "VMRELOCATE MOVE {userid} TO MEMB2 ASYNC"
'''
    return text


@pytest.mark.parametrize("case", [
    {},  # LNXA 30.0 s at 10 s steps against 33.2 s at 0.5 s; the link carried 1.15 times
    {"b": "1G"},  # LNXB done within its step: LNXA charged to the step's end, 28.4 / 27.2 s
    {"ta": 129.5},  # LNXA sending from part-way through the step: 31.5 / 33.2 s
    {"ta": 121.0, "tb": 121.5},  # both begun within one step: 6 % fast
    {"tc": 132.0},  # two joined within one step, the first's part charged twice: 41.7 / 40.4 s
])
def test_a_relocation_joined_within_a_step_takes_its_share_of_the_link_from_the_others(
        case: dict) -> None:
    # (joined within a step of 10 s, a relocation sent beside those that had already had the
    # whole step's link; the times in the cases are of the code without, or with a first
    # draft of, what they owe)
    def times(step_s: float) -> dict[str, float]:
        sim = Simulation(loads_scenario(joined_within_a_step(step_s, **case)))
        sim.run_until(190)
        rels = build_summary(sim)["relocations"]
        assert all(r["result"] == "relocated" for r in rels)
        return {r["guest"]: r["relocation_s"] for r in rels}

    fine, coarse = times(0.5), times(10.0)
    assert set(coarse) == set(fine)
    for guest, took in fine.items():
        assert coarse[guest] == pytest.approx(took, rel=0.01), guest
    # LNXA shared the link with LNXB for as long as they both sent
    assert fine["LNXA"] > fine["LNXA"] - fine["LNXB"] + 0.5 * fine["LNXB"]


def ten_at_once(step_s: float, at_s: float = 20, count: int = 10,
                back_and_forth_until: float | None = None) -> str:
    """Ten (``count``) guests of 4 GB, each changing 2,000 pages a second, relocated ASYNC
    IMMEDIATE at once (at ``at_s``) from a member of 2 processors: their DAT scans share those
    two (with ``back_and_forth_until``, each relocated back and forth until then)."""
    text = two_members("ten at once", step_s, 2)
    again = "" if back_and_forth_until is None else \
        f'repeat = "back_and_forth"\nuntil_s = {back_and_forth_until}\n'
    for i in range(count):
        text += f'''
[[guest]]
userid = "LNX{i:02d}"
member = "MEMB1"
storage = "4G"
workload = {{ type = "randchange", fraction = 0.05, rate_pages_s = 2000 }}
[[timeline]]
at_s = {at_s}
command = "VMRELOCATE MOVE LNX{i:02d} TO MEMB2 ASYNC IMMEDIATE"
{again}'''
    return text


@pytest.mark.parametrize(("step_s", "at_s"), [(1.0, 20), (2.0, 20), (1.0, 20.5), (2.0, 20.5),
                                            (2.0, 22.3), (5.0, 22.3)])
def test_relocations_at_once_share_the_processors_as_they_go_from_set_up_to_scanning(
        step_s: float, at_s: float) -> None:
    # (the share was set as the step began: at steps of 1 s the ten set up then, and their
    # scans, begun within the step, ran side by side as if each had a processor: all ten
    # relocated in 6.2 s against 9.0 s at steps of 0.1 s, quiescing 2.4 s against 4.1 s.
    # Begun within a step, the first in turn to finish its set-up scanned as if alone on the
    # link, and a set-up left of a rounding error asked for no processor: quiesced 5.0 s
    # against 4.1 s. Begun within a step longer than their set-up, each did the rest of the
    # step alone, one after another: begun 2.3 s into a step of 5 s, all ten relocated in
    # 24.6 s against 28.6 s at steps of 0.1 s, quiescing 0.39 s against 1.95 s)
    # (which of the ten quiesce while the others still send their first passes turns on
    # hundredths of a second: at 0.1 s steps alone their mean quiesce goes from 1.87 to 2.42 s
    # as the start moves by 0.05 s; so each result is the mean of five starts 0.05 s apart)
    def done(step: float) -> tuple[float, float]:
        ends, quiesces = [], []
        for shift in (-0.1, -0.05, 0.0, 0.05, 0.1):
            sim = Simulation(loads_scenario(ten_at_once(step, at_s + shift)))
            sim.run_until(100)
            rels = build_summary(sim)["relocations"]
            assert len(rels) == 10 and all(r["result"] == "relocated" for r in rels)
            ends.append(max(r["start_s"] + r["relocation_s"] for r in rels) - shift)
            quiesces.append(sum(r["quiesce_s"] for r in rels) / 10)
        return sum(ends) / 5, sum(quiesces) / 5

    (fine_end, fine_q), (end, q) = done(0.1), done(step_s)
    assert end == pytest.approx(fine_end, rel=0.03)
    assert q == pytest.approx(fine_q, rel=0.06)


def test_guests_change_as_few_pages_while_the_scans_hold_the_processors_at_any_step() -> None:
    """Ten relocations at once from a member of 2 processors: while their DAT scans hold both
    processors, the guests (changing pages as they run, on the CPU they get) get none, and
    change no page; the pages their second passes send are those changed while the
    processors were free. The guests' CPU follows the relocations' through the step, so the
    step's length does not change them. (Shared out over the whole step, at steps of 1 s the
    guests ran through the scans at the step's mean: 46,547 pages in the second passes
    against 33,282 at 0.1 s steps.)"""
    def second_passes(step: float) -> int:
        sim = Simulation(loads_scenario(ten_at_once(step)))
        sim.run_until(100)
        rels = build_summary(sim)["relocations"]
        assert len(rels) == 10 and all(r["result"] == "relocated" for r in rels)
        return sum(r["pass_list"][1]["pages"] for r in rels)

    fine = second_passes(0.1)
    # (at 5 s steps the first passes begin and end within one step's relocation work: the
    # guests ran up to the pass boundaries at the last step's share, 46,493 pages)
    for step in (1.0, 2.0, 5.0):
        assert second_passes(step) == pytest.approx(fine, rel=0.05), step


def test_relocations_going_back_and_forth_freed_at_one_moment_go_side_by_side() -> None:
    """Four guests relocated back and forth (ASYNC IMMEDIATE) wait for the console a SYNC
    relocation of a 24 GB guest holds; when it frees the console all four start at that
    moment, within a step, and share the link and processors from there as at any step.
    (Each did the rest of a step of 5 s alone, one after another: they ended 1.2 s sooner,
    quiescing 0.39 s against 0.80 to 0.93 s at steps of 0.1 to 2 s.)"""
    def first_round(step: float) -> tuple[float, float]:
        text = ten_at_once(step, 20, count=4, back_and_forth_until=45) + '''
[[guest]]
userid = "BIG"
member = "MEMB1"
storage = "24G"
workload = { type = "randchange", fraction = 0.5, rate_pages_s = 2000 }
[[timeline]]
at_s = 20
command = "VMRELOCATE MOVE BIG TO MEMB2 SYNC"
'''
        sim = Simulation(loads_scenario(text))
        sim.run_until(40)
        # (the first four began at 20 s, with the console free; their next ones wait for it)
        rels = [r for r in build_summary(sim)["relocations"]
                if r["guest"] != "BIG" and r["start_s"] > 21][:4]
        assert len(rels) == 4 and len({r["start_s"] for r in rels}) == 1  # at one moment
        return (max(r["start_s"] + r["relocation_s"] for r in rels),
                sum(r["quiesce_s"] for r in rels) / 4)

    (fine_end, fine_q), (end, q) = first_round(0.1), first_round(5.0)
    assert end == pytest.approx(fine_end, rel=0.01)
    assert q == pytest.approx(fine_q, rel=0.1)


def test_a_guest_released_within_a_step_gets_no_processor_the_scans_hold() -> None:
    """A CPU-bound guest stopped before ten relocations from a member of 2 processors and
    released (BEGIN) while their DAT scans hold both processors: up to a command later in the
    step it gets its part of what the scans leave, as at short steps. (At the pace it ran at
    before it stopped it took a processor through the scans: 0.8 CPU seconds more at 5 s
    steps than at 0.1 s.)"""
    def hog_cpu(step: float) -> float:
        text = ten_at_once(step, 20) + '''
[[guest]]
userid = "HOG"
member = "MEMB1"
storage = "4G"
workload = { type = "randchange", fraction = 0.05, rate_pages_s = 1000000 }
[[timeline]]
at_s = 17
command = "SEND CP HOG STOP"
[[timeline]]
at_s = 20.3
command = "SEND CP HOG BEGIN"
[[timeline]]
at_s = 23.9
command = "QUERY NAMES"
'''
        sim = Simulation(loads_scenario(text))
        sim.run_until(25)
        return sim.guests["HOG"].cpu_s_total

    fine = hog_cpu(0.1)
    assert 19.5 < fine < 21  # 17 s of a processor before it stopped; less than 4.7 after
    for step in (1.0, 5.0):
        assert hog_cpu(step) == pytest.approx(fine, abs=0.1), step


def test_a_relocation_scanning_its_guests_dat_tables_leaves_the_link_to_the_others() -> None:
    """While a relocation's processor scans its guest's DAT tables it sends only the scan's
    status records; the pages the scan finds go after it. So a small relocation whose first
    pass runs while a 48 GB guest's relocation scans (on processors of half speed) has the
    link but for those records: its pass 1 takes about as long as alone. (With the link
    shared as if the scan sent its pass's pages meanwhile, it took 52 % longer while the
    link stood half idle, beside a 32 GB guest's scan.)"""
    def first_pass(beside_big: bool) -> float:
        text = two_members("beside a scan", 1.0, 4, cpu_speed=0.5, chpids=REFERENCE_LINK)
        for userid, size, on in (("SMALL", "2G", True), ("BIG", "48G", beside_big)):
            if on:
                text += f'''
[[guest]]
userid = "{userid}"
member = "MEMB1"
storage = "{size}"
workload = {{ type = "seqtouch", rate_pages_s = 1000000, write = 0 }}
[[timeline]]
at_s = 30
command = "VMRELOCATE MOVE USER {userid} TO MEMB2 ASYNC"
'''
        sim = Simulation(loads_scenario(text))
        sim.run_until(40)
        small = sim.reloc.all[0]
        assert small.guest.userid == "SMALL" and len(small.passes) > 1
        if beside_big:  # (both passes begin at once)
            assert sim.reloc.all[1].passes[0].start_s == small.passes[0].start_s
        return small.passes[0].seconds

    from ssisim.engine.migrations.relocation import MODEL
    alone = first_pass(False)
    # (the big guest's first scan lasts beyond the small one's first pass)
    assert 48 * MODEL.dat_scan_s_per_gb / 0.5 > alone
    assert first_pass(True) == pytest.approx(alone, rel=0.1)


@pytest.mark.parametrize("scenario, until", [
    ("reference/lgr-25-guests-async-immediate", 75.0),  # 25 begun at once, scans side by side
    ("reference/lgr-busy", 205.0),  # alone: live passes at the processor's pace, quiesced at
])                                  # the link's, while their scans run
def test_the_relocations_on_a_link_never_carry_more_than_it_does(scenario: str,
                                                                 until: float) -> None:
    """A relocation whose link is slower than its processor sends its pages while it scans,
    at its part of the link; summed over every relocation on the link, the pages of each
    tenth of a second never exceed what the link carries in it. (Its pages sent at the
    processor's pace after the scan, to make up for the scan's time, went at three times the
    link's rate for a moment; scans begun within a round each sent as if alone on the link.)"""
    from ssisim.engine.migrations.relocation import link_pages_per_s

    text = find_scenario(scenario).read_text(encoding="utf-8")
    text = text.replace("step_s = 1\n", "step_s = 0.1\n", 1)
    sim = Simulation(loads_scenario(text))
    cap = link_pages_per_s(sim.scenario.links[0])
    before: dict[int, int] = {}
    fastest = 0.0
    while sim.t < until:
        sim.step()
        sent = sum(r.pages_moved - before.get(id(r), 0) for r in sim.reloc.all)
        before = {id(r): r.pages_moved for r in sim.reloc.all}
        fastest = max(fastest, sent / 0.1)
    assert sim.reloc.all and fastest > 0.9 * cap  # the link was busy
    assert fastest <= cap * 1.001


def test_cp_expects_the_quiesce_where_the_destinations_processor_sets_the_pace():
    """Where the destination's one slow processor takes the pages more slowly than the link
    carries them, the penultimate pass sends them at its pace while the source's processor
    scans, and CP's estimate says so: it does not stop the guest for a quiesce that cannot fit
    (an estimate at the link's pace alone expected 19.1 s where the quiesce took 26.4 s, with
    the scan before the pages, and stopped the guest under MAXQUIESCE 21 only to cancel it)."""
    text = find_scenario("reference/lgr-busy").read_text(encoding="utf-8")
    slow = text.replace('name = "DST"\ncpus = 4\n', 'name = "DST"\ncpus = 1\ncpu_speed = 0.1\n', 1)
    slow = slow.replace("duration_s = 260", "duration_s = 400", 1)
    assert slow != text

    free = relocation_under(slow, "MAXQUIESCE NOLIMIT", 400)
    assert free["result"] == "relocated"
    # (in the live passes the scan beside the pages, with their staging, takes longer than
    # receiving them: the socket holds back only the quiesced ones)
    assert 0.75 * free["quiesce_s"] < free["throttle_s"]["destination:socket"] \
        <= free["quiesce_s"] * 1.001
    # (its pass 7: the changed pages at the receiving's 3 us each, the scan beside them)
    assert free["quiesce_s"] < 23
    limit = free["quiesce_s"] - 5
    capped = relocation_under(slow, f"MAXQUIESCE {limit:.0f}", 400)
    assert capped["result"] == "MAXQUIESCE exceeded" and capped["quiesce_s"] == 0.0
    assert capped["message"].endswith(f"(expected {free['quiesce_s']:.1f} s)")


def swap(directions: tuple[str, ...], step_s: float = 1.0, speed_b: float = 4.0,
         at_b: float = 20.0, size_a: int = 16) -> list[dict]:
    """LNXA on MEMB1 (``size_a`` GB) and LNXB (16 GB) on MEMB2, all of their storage touched,
    then idle, relocated IMMEDIATE, each as ``directions`` says ("A" MEMB1 to MEMB2 at 20 s;
    "B" LNXB back at ``at_b``; "A2" LNXB also from MEMB1 to MEMB2); processors of speed 4
    (MEMB2's of ``speed_b``), so that the link sets the pace."""
    memb2 = 'name = "MEMB2"\ncpus = 4\ncpu_speed = '
    text = two_members("both ways", step_s, 4, 4.0, REFERENCE_LINK).replace(
        memb2 + "4.0", memb2 + str(speed_b))
    home = {"LNXA": "MEMB1", "LNXB": "MEMB2" if "B" in directions else "MEMB1"}
    for userid, member in home.items():
        gb = size_a if userid == "LNXA" else 16
        text += f'''
[[guest]]
userid = "{userid}"
member = "{member}"
storage = "{gb}G"
workload = {{ type = "seqtouch", buffer_mb = {gb * 1024}, rate_pages_s = 4000000 }}
'''
    for userid in ("LNXA", "LNXB")[:len(directions)]:
        to = "MEMB1" if home[userid] == "MEMB2" else "MEMB2"
        text += f'''
[[timeline]]
at_s = {20 if userid == "LNXA" else at_b}
command = "VMRELOCATE MOVE USER {userid} TO {to} ASYNC IMMEDIATE"
'''
    sim = Simulation(loads_scenario(text))
    sim.run_until(200)
    out = build_summary(sim)["relocations"]
    assert [r["result"] for r in out] == ["relocated"] * len(directions)
    return out


def pace(r: dict) -> float:
    """Pages a second of a relocation's first pass."""
    first = r["pass_list"][0]
    return first["pages"] / first["seconds"]


def test_relocations_the_other_way_have_the_links_other_direction() -> None:
    """FICON is full duplex, and z/VM writes each CTC device from one side at a time: two
    guests swapped between two members each have a direction of the link, with half of its
    CTC devices, and go faster than two sent the same way, which share one direction. (The
    link was one, shared by every relocation on it whichever way it went: a swap took as
    long as sending both the same way.)"""
    from ssisim.engine.migrations.relocation import link_pages_per_s

    link = next(iter(loads_scenario(two_members("x", 1.0, 4, 4.0, REFERENCE_LINK)).links))
    one_way = link_pages_per_s(link)
    both_ways = link_pages_per_s(link, devices=0.5)
    # half of each CHPID's four devices per direction: more than half the link each way
    assert one_way / 2 < both_ways < one_way

    (alone,) = swap(("A",))
    same = swap(("A", "A2"))
    apart = swap(("A", "B"))
    assert pace(alone) == pytest.approx(one_way, rel=0.05)
    for r in same:
        assert pace(r) == pytest.approx(one_way / 2, rel=0.05)
    for r in apart:
        assert pace(r) == pytest.approx(both_ways, rel=0.05)
        assert r["relocation_s"] < 0.85 * min(x["relocation_s"] for x in same)
        assert "source:link_queue" in r["throttle_s"]  # the messages queue for fewer devices


def test_a_relocation_the_other_way_takes_the_devices_it_keeps_busy() -> None:
    """Each side writes on the CTC devices from its own end, so a relocation the other way
    that sends slowly (its destination's processors of a twentieth of the speed) holds few of
    them: the one going this way keeps nearly all of the link, and the two carry more than
    the link does one way. (Any relocation the other way halved the devices: beside one
    sending 67,000 pages a second, LNXA's 410,000 fell to 312,000.)"""
    from ssisim.engine.migrations.relocation import link_pages_per_s

    link = next(iter(loads_scenario(two_members("x", 1.0, 4, 4.0, REFERENCE_LINK)).links))
    (alone,) = swap(("A",), speed_b=0.2)
    a, b = swap(("A", "B"), speed_b=0.2)
    assert pace(b) < 0.25 * link_pages_per_s(link, devices=0.5)  # its processor's pace
    assert pace(a) > 0.95 * pace(alone)
    assert pace(a) + pace(b) > 1.05 * link_pages_per_s(link)


def test_a_relocation_begun_the_other_way_within_a_step_costs_as_at_short_steps() -> None:
    """A relocation begun the other way 3.3 s into a step takes its devices from the one
    under way from that moment, whatever the step: LNXA's first pass as long at steps of 10 s
    as of 0.5 s (without paying for the devices it had had, it was 1.7 s shorter at 10 s)."""
    def first(step_s: float) -> float:
        a, _ = swap(("A", "B"), step_s=step_s, at_b=23.3, size_a=32)
        return a["pass_list"][0]["seconds"]

    assert first(10.0) == pytest.approx(first(0.5), rel=0.01)

"""The guests' DAT tables take central storage: a page management block (8 KiB, two frames) for
every megabyte of a guest's storage that holds a page (docs/model.md, "Paging")."""

from __future__ import annotations

from ssisim.engine import Simulation, build_summary, loads_scenario
from ssisim.engine.basics.units import PAGES_PER_MB

ONE = """
format = "ssisim-scenario"
version = 1
name = "DAT tables"
[run]
seed = 5
duration_s = 120
step_s = 1
[[member]]
name = "M1"
cpus = 4
central = "{central}"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[member]]
name = "M2"
cpus = 4
central = "16G"
  [[member.volume]]
  volid = "PAG002"
  size = "16G"
[[link]]
members = ["M1", "M2"]
chpids = [{{gbps = 8, ctcs = 4}}]
[[guest]]
userid = "LNX1"
member = "M1"
storage = "6G"
vcpus = 2
workload = {{ type = "seqtouch", buffer_mb = {mb}, rate_pages_s = {rate} }}
"""


def run(central: str, mb: int, until: float = 60.0, model: str = "") -> Simulation:
    sim = Simulation(loads_scenario(ONE.format(central=central, mb=mb, rate=400000) + model))
    sim.run_until(until)
    assert sim.verify() == []
    return sim


def test_a_guest_holds_two_frames_of_dat_tables_per_megabyte_it_touched() -> None:
    sim = run("8G", 2048)
    g, m = sim.guests["LNX1"], sim.members["M1"]
    assert g.instantiated == 2048 * PAGES_PER_MB
    assert g.n_seg == 2048 and m.dat_frames == 2 * 2048
    # the member's storage in use is the guest's pages and its tables, and so is what it shows
    assert m.used_frames == m.resident + 4096
    assert m.free_frames == m.frames - m.resident - 4096
    (mem,) = [x for x in build_summary(sim)["members"] if x["name"] == "M1"]
    assert mem["central"]["final_used"] == m.resident + 4096


def test_a_guest_that_just_fits_its_pages_pages_once_its_tables_count() -> None:
    # 4 GB of central storage: 4,055 MB for guests; 4,030 MB of pages leave 25 MB free, but
    # their 31.5 MB of tables leave none: the walk pages for as long as it runs
    tables = run("4G", 4030)
    m = tables.members["M1"]
    assert tables.guests["LNX1"].n_dsd > 0
    without = run("4G", 4030, model="\n[model.paging]\npgmbk_kib = 0\n")
    # (without them the free-frame marks hold back a few frames while it instantiates its
    # pages, and it reads those back, then runs in central storage)
    assert without.guests["LNX1"].n_dsd == 0
    assert m.counters.dasd_out > 10 * without.members["M1"].counters.dasd_out


def test_the_free_frame_marks_follow_the_pace_frames_are_taken_at() -> None:
    """CP's available-list thresholds adjust themselves (z/VM 7.3 THRESHOL): a member whose
    guest takes frames keeps a tenth of a second of them free, and once the guest takes none
    it keeps few and the guest has the rest. Here 4,010 MB of pages and their 31 MB of tables
    leave 14 MB of a 4 GB member's frames for guests: under fixed marks of 0.5 and 1 % of
    them (20 and 40 MB) the walk paged for as long as it ran."""
    sim = Simulation(loads_scenario(ONE.format(central="4G", mb=4010, rate=20000)))
    m, g = sim.members["M1"], sim.guests["LNX1"]
    sim.step()
    # instantiating 20,000 pages a second (and their DAT tables): 0.1 s of them
    assert 2_000 <= m.free_low <= 2_050 < 0.005 * m.frames
    assert abs(m.free_high - 2 * m.free_low) <= 1
    sim.run_until(60)
    out = m.counters.dasd_out
    sim.run_until(120)
    assert m.counters.dasd_out == out and g.n_dsd == 0 and g.n_xst == 0
    assert (m.free_low, m.free_high) == (64, 128)
    assert 0 <= m.free_frames < 0.005 * m.frames
    assert sim.verify() == []


def test_relocation_builds_the_tables_on_the_destination_and_frees_them_on_the_source() -> None:
    sim = run("8G", 1024, until=20)
    g = sim.guests["LNX1"]
    assert sim.execute("WORKLOAD LNX1 START IDLE").ok
    assert sim.execute("VMRELOCATE MOVE USER LNX1 TO M2").ok
    src, dst = sim.members["M1"], sim.members["M2"]
    grew = []
    while sim.reloc.active:
        sim.step()
        assert sim.verify() == []  # every megabyte with a page has its table, counted once
        grew.append(dst.dat_segs)
    assert g.member == "M2"
    assert src.dat_segs == 0 and dst.dat_segs == g.n_seg == 1024
    assert grew[0] < grew[-1]  # built as the pages came, not all at once


def test_a_logoff_cleanup_lets_the_tables_go_with_the_storage() -> None:
    sim = run("8G", 2048, until=10)
    m = sim.members["M1"]
    assert m.dat_segs == 2048
    assert sim.execute("FORCE LNX1").ok
    assert sim.guests["LNX1"].member is None and sim.pause.cleaning("M1")
    assert m.dat_segs == 2048  # the cleanup holds them until it has reset the storage
    assert sim.verify() == []
    sim.run_until(sim.t + 30)
    assert not sim.pause.cleaning("M1")
    assert m.dat_segs == 0 and m.used_frames == 0
    assert sim.verify() == []


def test_the_storage_check_counts_the_tables_on_the_destination() -> None:
    text = ONE.format(central="8G", mb=64, rate=400000).replace('storage = "6G"', 'storage = "48G"')
    sim = Simulation(loads_scenario(text))
    sim.run_until(5)
    out = sim.execute("VMRELOCATE MOVE USER LNX1 TO M2").text
    # 48 GB and two frames per megabyte of it: 48.375 GB
    assert "48.4G" in out and "CP structures" in out

"""The CP command language: abbreviations, CP-style answers, and refusals that change nothing."""

from __future__ import annotations

import pytest

from ssisim.engine import Simulation, load_scenario


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory):
    from ssisim.cli import resolve_scenario

    return resolve_scenario("demo")


@pytest.fixture
def sim(demo_path):
    s = Simulation(load_scenario(demo_path))
    s.run_until(30)
    return s


def state(sim):
    snap = sim.snapshot()
    return (snap.members, snap.guests,
            {u: (g.set_reserved, g.share) for u, g in sim.guests.items()})


@pytest.mark.parametrize("text", ["Q ALLOC PAGE", "QUERY ALLOC PAGE", "q alloc page"])
def test_query_alloc_page_abbreviations(sim, text):
    r = sim.execute(text)
    assert r.ok
    assert r.lines[0].split() == ["EXTENT", "EXTENT", "TOTAL", "PAGES", "HIGH", "%"]
    assert any(line.startswith("M1PG01") for line in r.lines)
    assert r.lines[-1].startswith("USABLE")


def test_query_alloc_page_reports_slots_in_use(sim):
    m = sim.members["MEMB2"]
    sim.run_until(1200)  # MEMB2 pages after its random changer widens
    r = sim.execute("AT MEMB2 CMD Q ALLOC PAGE")
    summary = next(line for line in r.lines if line.startswith("SUMMARY")).split()
    assert int(summary[1]) == m.cfg.slots
    assert int(summary[2]) == m.slots_used > 0


def test_query_names_lists_the_members_guests(sim):
    r = sim.execute("Q N")
    text = r.text
    assert "LNXWEB1  - DSC" in text and "LNXPF1" not in text  # LNXPF1 is on MEMB2
    assert "LNXPF1" in sim.execute("AT MEMB2 CMD QUERY NAMES").text


def test_indicate_user_and_load(sim):
    r = sim.execute("IND USER LNXDB1")
    assert r.ok and r.lines[0].startswith("USERID=LNXDB1")
    g = sim.guests["LNXDB1"]
    assert f"RES={g.n_cen:08d}" in r.text
    load = sim.execute("IND")
    assert load.ok and load.lines[0].startswith("AVGPROC-")
    assert sim.execute("INDICATE LOAD").lines[0] == load.lines[0]


@pytest.mark.parametrize("text, msgid", [
    ("FROBNICATE", "HCPCMD001E"),
    ("Q ALLOC", "026E"),
    ("Q ALLOC PAGE EXTRA", "003E"),
    ("IND USER NOSUCH", "053E"),
    ("IN USER LNXDB1", "HCPCMD001E"),  # IND is the shortest INDICATE
    ("XAUTOLOG LNXDB1", "054E"),  # already logged on
    ("XAUTOLOG NOSUCH", "053E"),
    ("FORCE NOSUCH", "053E"),
    ("SET RESERVED LNXDB1 LOTS", "009E"),
    ("SET SHARE LNXDB1 ABSOLUTE 150%", "009E"),
    ("SET SHARE LNXDB1 0", "009E"),
    ("WORKLOAD LNXDB1 START TURBO", "003E"),
    ("WORKLOAD LNXDB1 START SEQTOUCH SPEED 9", "003E"),
    ("WORKLOAD LNXDB1 START RANDCHANGE FRACTION 2", "003E"),
    ("WORKLOAD LNXDB1 START RANDCHANGE FRACTION", "026E"),
    ("AT MEMB9 CMD Q N", "2900E"),
    ("SEND CP LNXDB1 FORCE LNXWEB1", "002E"),
])
def test_refused_commands_answer_like_cp_and_change_nothing(sim, text, msgid):
    before = state(sim)
    r = sim.execute(text)
    assert not r.ok
    assert len(r.lines) == 1 and r.lines[0].startswith("HCP") and msgid in r.lines[0]
    assert state(sim) == before
    sim.step()  # and the world goes on


def test_logoff_and_xautolog(sim):
    m = sim.members["MEMB1"]
    held = sim.guests["LNXIDL1"].n_cen
    assert held > 0
    before = m.resident
    r = sim.execute("SEND CP LNXIDL1 LOGOFF")
    assert r.ok and "LOGOFF AS  LNXIDL1" in r.text
    assert m.resident == before, "CP resets the departing guest's storage before reuse"
    assert not sim.guests["LNXIDL1"].logged_on
    sim.step()
    done = [e for e in sim.events if e.kind == "CLEANUP_DONE" and e.userid == "LNXIDL1"]
    assert done and done[0].data["seconds"] <= 1.0, "a small guest's frames are back at once"
    assert sim.verify() == []
    assert "not logged on" in sim.execute("IND USER LNXIDL1").text
    r = sim.execute("XAUTO LNXIDL1 AT MEMB2")
    assert r.ok and sim.guests["LNXIDL1"].member == "MEMB2"
    assert sim.verify() == []


def test_set_share_and_reserved(sim):
    assert sim.execute("SET SHARE LNXDB1 REL 300").ok
    assert sim.guests["LNXDB1"].share == 300
    assert sim.execute("SET RESERVED LNXDB1 1G").ok
    assert sim.guests["LNXDB1"].set_reserved == 262144
    assert sim.execute("SET RESERVED USER LNXDB1 OFF").ok
    assert sim.guests["LNXDB1"].set_reserved == 0


def test_workload_commands_change_what_the_guest_does(sim):
    r = sim.execute("WORKLOAD LNXWEB1 START RANDCHANGE FRACTION 0.5 RATE_PAGES_S 1000")
    assert r.ok and "RANDCHANGE" in r.text
    assert sim.guests["LNXWEB1"].workload.params["fraction"] == 0.5
    assert sim.execute("WORK LNXWEB1 SET FRACTION 0.1").ok
    assert sim.guests["LNXWEB1"].workload.params["rate_pages_s"] == 1000
    assert sim.execute("WORKLOAD LNXWEB1 STOP").ok
    sim.step()
    assert sim.guests["LNXWEB1"].state == "dormant"
    assert "NONE" in sim.execute("Q WORKLOAD LNXWEB1").text


def test_commands_are_recorded_as_events(sim):
    sim.execute("Q N")
    ev = sim.events[-1]
    assert ev.kind == "COMMAND" and ev.message == "Q N" and ev.data["rc"] == 0

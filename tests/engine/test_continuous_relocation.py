"""Continuous relocation: a guest relocated back and forth, the next move issued when the last
one ends, so that relocations per hour under load can be measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssisim.engine import (
    ScenarioError,
    Simulation,
    build_summary,
    find_scenario,
    loads_scenario,
)

BASE = '''
format = "ssisim-scenario"
version = 1
name = "back and forth"
[run]
seed = 11
duration_s = 400
step_s = 1
[[member]]
name = "MEMB1"
cpus = 4
central = "16G"
  [[member.volume]]
  volid = "PAG001"
  size = "32G"
[[member]]
name = "MEMB2"
cpus = 4
central = "16G"
  [[member.volume]]
  volid = "PAG002"
  size = "32G"
[[link]]
members = ["MEMB1", "MEMB2"]
chpids = [{gbps = 8, ctcs = 4}]
[[guest]]
userid = "LNXAPP1"
member = "MEMB1"
storage = "4G"
workload = { type = "appserver", wss_mb = 1024, requests_per_s = 50 }
'''


def run(timeline: str) -> dict:
    sim = Simulation(loads_scenario(BASE + timeline))
    sim.run_until(400)
    return build_summary(sim)


def back_and_forth(step_s: float, options: str = "") -> Simulation:
    """LNXAPP1 relocated back and forth from 10 s to 200 s, at steps of ``step_s``."""
    return Simulation(loads_scenario(BASE.replace("step_s = 1", f"step_s = {step_s}") + f'''
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2{options}"
repeat = "back_and_forth"
until_s = 200
'''))


def test_the_guest_goes_back_and_forth_until_the_end_time() -> None:
    s = run('''
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2 ASYNC"
repeat = "back_and_forth"
until_s = 300
''')
    rels = s["relocations"]
    assert len(rels) >= 4
    assert all(r["result"] == "relocated" for r in rels)
    # each starts where the one before ended, in turn to the other member
    assert [r["destination"] for r in rels[:4]] == ["MEMB2", "MEMB1", "MEMB2", "MEMB1"]
    for a, b in zip(rels, rels[1:]):
        assert b["source"] == a["destination"]
        # the next once the last ended (times in the summary are rounded to the millisecond)
        assert b["start_s"] >= a["start_s"] + a["relocation_s"] - 0.002
    assert max(r["start_s"] for r in rels) <= 301
    guest = s["guests"][0]
    assert guest["member"] == rels[-1]["destination"]


def test_a_busier_link_means_fewer_relocations_per_hour() -> None:
    fast = run('''
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2"
repeat = "back_and_forth"
''')
    slow_base = BASE.replace('chpids = [{gbps = 8, ctcs = 4}]', 'chpids = [{gbps = 2, ctcs = 1}]')
    sim = Simulation(loads_scenario(slow_base + '''
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2"
repeat = "back_and_forth"
'''))
    sim.run_until(400)
    slow = build_summary(sim)
    assert len(slow["relocations"]) < len(fast["relocations"])


@pytest.mark.parametrize("step_s", [1.0, 0.25])
def test_the_next_relocation_goes_when_the_last_ends_not_at_the_next_step(step_s: float) -> None:
    """Each relocation of the guest goes as soon as the one before has ended, within a step:
    the relocations follow one another without gaps, and as many fit in the time at any step
    length. (The next one used to wait for the next step: at 1 s steps a gap of up to a second
    after every relocation of a few seconds.)"""
    sim = back_and_forth(step_s)
    sim.run_until(400)
    rels = build_summary(sim)["relocations"]
    assert len(rels) > 10
    for a, b in zip(rels, rels[1:]):
        assert b["start_s"] == pytest.approx(a["start_s"] + a["relocation_s"], abs=0.002)


def test_a_chain_of_sync_relocations_takes_the_sum_of_its_relocations() -> None:
    """Commands that wait for the operator's console run when a SYNC relocation frees it:
    the published 25 guests relocated one after another with SYNC take, from the first start to
    the last end, the sum of their relocation times, at any step length (at 1 s steps they
    used to take 99.5 s for 88.4 s of relocations, at 0.25 s steps 93.5 s; and at 5 s steps,
    longer than each relocation of 3.4 s, 118.4 s, each begun at the next step in time its
    guest had already run)."""
    text = find_scenario("reference/lgr-25-guests-sync").read_text(encoding="utf-8")
    totals = []
    for step in (1.0, 0.25, 5.0):
        sim = Simulation(loads_scenario(text.replace("step_s = 1\n", f"step_s = {step}\n", 1)))
        sim.run_until(300)
        rels = build_summary(sim)["relocations"]
        assert len(rels) == 25 and all(r["result"] == "relocated" for r in rels)
        span = max(r["start_s"] + r["relocation_s"] for r in rels) - min(r["start_s"] for r in rels)
        assert span == pytest.approx(sum(r["relocation_s"] for r in rels), abs=0.05)
        totals.append(span)
    assert totals[1] == pytest.approx(totals[0], abs=0.05)
    assert totals[2] == pytest.approx(totals[0], abs=0.05)


def test_relocations_shorter_than_a_step_count_the_changes_made_while_they_run() -> None:
    """A relocation that begins and ends within one step still counts the pages its guest
    changes during its passes: the next relocation of a guest going back and forth begins
    within the step, when the last one ended, and does the rest of the step before the guest
    runs it. So at 5 s steps, longer than each relocation of 3.4 s, the guest goes back and
    forth as often as at 1 s steps and each relocation's second pass sends as many pages (begun
    at the next step in time the guest had already run, its passes after the first found
    nothing changed, and each waited for the step to end: 198 relocations from 10 s to 1,000 s
    at 5 s steps against 287 at 1 s)."""
    found = {}
    for step in (1.0, 5.0):
        sim = back_and_forth(step, " ASYNC")
        sim.run_until(200)
        rels = [r for r in build_summary(sim)["relocations"] if r["ended"]]
        second = [r["pass_list"][1]["pages"] for r in rels]
        assert min(second) > 500  # every one found the pages its guest changed
        found[step] = (len(rels), sum(second) / len(second))
    assert found[5.0][0] == pytest.approx(found[1.0][0], rel=0.03)
    assert found[5.0][1] == pytest.approx(found[1.0][1], rel=0.1)


@pytest.mark.parametrize("entry, field, words", [
    ('command = "QUERY NAMES"\nrepeat = "back_and_forth"', "repeat", "VMRELOCATE MOVE"),
    ('command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2"\nrepeat = "forever"', "repeat",
     "back_and_forth"),
    ('command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2"\nuntil_s = 100', "until_s", "repeat"),
    ('command = "VMRELOCATE MOVE LNXAPP1 TO MEMB2"\nrepeat = "back_and_forth"\nuntil_s = 5',
     "until_s", "before at_s"),
])
def test_a_repeat_that_cannot_be_is_refused(entry: str, field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        loads_scenario(BASE + f"\n[[timeline]]\nat_s = 10\n{entry}\n", "bf.toml")
    assert f"timeline[0].{field}" in str(e.value) and words in str(e.value)


def test_the_next_relocation_back_and_forth_waits_for_the_console_a_sync_relocation_holds() \
        -> None:
    """A guest goes back and forth; meanwhile the operator relocates another guest with SYNC,
    which holds the console: the next relocation back and forth goes when that one has ended,
    not when the guest's own last relocation ended (started then, it began before the
    console was free, ahead of the commands that waited for it)."""
    text = (Path(__file__).parents[1] / "cases" / "busy-pair.toml").read_text() + '''
[[timeline]]
at_s = 10
command = "VMRELOCATE MOVE APP1 TO MEMB2 ASYNC"
repeat = "back_and_forth"
until_s = 40
[[timeline]]
at_s = 12
command = "VMRELOCATE MOVE APP2 TO MEMB2 SYNC"
'''
    sim = Simulation(loads_scenario(text))
    sim.run_until(40)
    sync = next(r for r in sim.reloc.all if r.guest.userid == "APP2")
    app1 = [r for r in sim.reloc.all if r.guest.userid == "APP1"]
    assert sync.t_end is not None and app1[0].t_end is not None
    assert app1[0].t_end < sync.t_end  # its first ended while the console was held
    assert app1[1].t_start == pytest.approx(sync.t_end, abs=1e-6)

"""Continuous relocation: a guest relocated back and forth, the next move issued when the last
one ends, so that relocations per hour under load can be measured."""

from __future__ import annotations

import pytest

from ssisim.engine import ScenarioError, Simulation, build_summary, loads_scenario

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
        assert b["start_s"] >= a["start_s"] + a["relocation_s"]  # the next once the last ended
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

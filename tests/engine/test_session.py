"""A session recorded as a scenario replays headless to the same results."""

from __future__ import annotations

import json

from ssisim.cli import resolve_scenario
from ssisim.engine import Simulation, build_summary, load_scenario, loads_scenario, record_session


def test_recorded_session_replays_to_the_same_results():
    sc = load_scenario(resolve_scenario("demo"))
    live = Simulation(sc)
    live.run_until(120)
    live.execute("VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC")
    live.run_until(180)
    live.execute('WORKLOAD LNXWEB1 SET REQUESTS_PER_S 300')
    live.execute("Q ALLOC PAGE")
    live.run_until(400)
    text = record_session(live)
    replay = Simulation(loads_scenario(text, "session.toml"))
    replay.run_until(400)
    a, b = build_summary(live), build_summary(replay)
    for s in (a, b):
        s.pop("scenario_hash")
        for c in s["commands"]:
            c.pop("line")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["relocations"][0]["result"] == "relocated"

"""Every bundled scenario's results over several seeds: the band a change of the model's
implementation must stay within.

``python tests/scenarios/seed_spread.py MADE_WITH > tests/scenarios/seed_spread.json`` runs
each bundled scenario with its own seed and the next seven, and stores for every number of its
summary (a member's paging counters and peaks, a guest's pages and throughput, a relocation's
time, passes and pages) the lowest and highest value seen. test_seed_spread.py runs the
scenarios once more, with their own seeds, and checks that every number lies within that band,
widened by the band's own width: a faster way of computing the same model must give results
that one cannot tell from another seed's. The band is made with every first touch walked page
by page and every member stepped every ``step_s`` (``exact``); the test runs the scenarios as
they are (first touches held back, quiet members stepped ``quiet_step_s`` at a time). Three
seeds proved too few: some results fall in two clusters (which idle guest the demand scan
empties first), and three seeds can miss one of them.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SEEDS = 8
#: scenarios whose results fall in clusters that eight seeds may miss: of 25 relocations at
#: once, which of the middle ones quiesce while many still share the link, and so take long,
#: comes in cascades (14 to 22 of the 25, in six runs); and in lesson 9 the pages the demand
#: scan drops without a write (their slot copy still valid) spread from 2,500 to 4,200 over
#: sixteen seeds, of which the first eight gave 2,500 to 3,400
SEEDS_FOR = {"reference/lgr-25-guests-async.toml": 32,
             "reference/lgr-25-guests-async-immediate.toml": 16,
             "lessons/09-paging-space.toml": 16}
#: numbers of a summary that are not results: identities, times of commands, event counts
SKIP = {"t_s", "seed", "version", "scenario_hash", "line", "rc", "events", "commands",
        "start_s", "at_s"}


def numbers(summary: dict[str, Any]) -> dict[str, float]:
    """The summary's numbers by path (members and guests by name, relocations by number)."""
    out: dict[str, float] = {}

    def walk(o: Any, path: str) -> None:
        if isinstance(o, bool):
            return
        if isinstance(o, (int, float)):
            out[path] = float(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                if k not in SKIP:
                    walk(v, f"{path}.{k}" if path else str(k))
        elif isinstance(o, list):
            for i, v in enumerate(o):
                name = v.get("name") or v.get("userid") or v.get("volid") \
                    if isinstance(v, dict) else None
                walk(v, f"{path}[{name or i}]")

    walk(summary, "")
    return out


def run(path: Any, seed: int | None = None, exact: bool = False) -> dict[str, float]:
    """One run of a bundled scenario to its end: its summary's numbers. ``exact``: every first
    touch walked page by page and every member stepped every step (the band is made so)."""
    from ssisim.engine import Simulation, build_summary, load_scenario

    sc = load_scenario(path)
    if exact:
        sc.quiet_step_s = 0.0
    sim = Simulation(sc, seed=seed)
    if exact:
        sim.defer_first_touches = False
    sim.run_until(sc.duration_s)
    return numbers(build_summary(sim))


def spread() -> dict[str, Any]:
    """Lowest and highest of every number over ``SEEDS`` seeds, per bundled scenario."""
    from ssisim.cli import bundled_dir, bundled_scenarios

    out: dict[str, Any] = {}
    for path in bundled_scenarios():
        key = path.relative_to(bundled_dir()).as_posix()
        print(f"spread: {key}", file=sys.stderr)
        from ssisim.engine import load_scenario

        base = load_scenario(path).seed
        runs = [run(path, base + i, exact=True) for i in range(SEEDS_FOR.get(key, SEEDS))]
        common = set(runs[0]).intersection(*runs[1:])
        out[key] = {k: [min(r[k] for r in runs), max(r[k] for r in runs)]
                    for k in sorted(common)}
    return out


if __name__ == "__main__":
    json.dump({"made_with": sys.argv[1] if len(sys.argv) > 1 else "", "seeds": SEEDS,
               "scenarios": spread()}, sys.stdout, indent=0, sort_keys=True)
    print()

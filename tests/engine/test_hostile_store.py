"""The run store when several ssisim processes open the same NEW database at the same moment.

Reproducer D13 (``D13-fresh-db-race.sh``): two ``ssisim run`` started together on a new
``--db``; one of them failed with "is not a usable run database: table runs already exists"
(or "duplicate column name: scheduled") and its run was lost. Here real processes are lined up
behind a file barrier so that they all create the database within a millisecond or so.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from ssisim.engine import RunStore
from ssisim.engine.store.store import SCHEMA_VERSION

WORKER = r"""
import sys, time
from pathlib import Path
from ssisim import engine

db, go, ready = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
sc = engine.loads_scenario('''
version = 1
[run]
duration_s = 2
[[member]]
name = "MEMB1"
central = "1G"
[[guest]]
userid = "LNX1"
member = "MEMB1"
storage = "256M"
''', "race.toml")
sim = engine.Simulation(sc)
sim.run_until(2)
summary = engine.build_summary(sim, "test")
ready.touch()
while not go.exists():
    time.sleep(0.0005)
try:
    store = engine.RunStore(db)
    run_id = store.save(sim, summary, "start", "end", "test")
    store.close()
except engine.StoreError as e:
    print(f"ssisim: {e}", file=sys.stderr)
    sys.exit(1)
print(run_id)
"""

PROCESSES = 4
TRIALS = 5


def _race(tmp_path: Path, trial: int) -> tuple[Path, list[subprocess.CompletedProcess[str]]]:
    """Start the workers, wait until each has its run ready, then release them all at once."""
    db = tmp_path / f"race{trial}.sqlite"
    go = tmp_path / f"go{trial}"
    readies = [tmp_path / f"ready{trial}-{i}" for i in range(PROCESSES)]
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(db), str(go), str(r)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in readies]
    deadline = time.monotonic() + 120
    while not all(r.exists() for r in readies):
        assert time.monotonic() < deadline, "the workers did not get ready"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    go.touch()
    done = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    return db, done


def test_processes_creating_the_same_new_database_all_store_their_runs(tmp_path: Path) -> None:
    """Every process stores its run, every time; the schema is created once, at its version."""
    for trial in range(TRIALS):
        db, done = _race(tmp_path, trial)
        failed = [d.stderr.strip() for d in done if d.returncode != 0]
        assert not failed, f"trial {trial}: {failed}"
        ids = sorted(int(d.stdout) for d in done)
        assert ids == list(range(1, PROCESSES + 1)), f"trial {trial}: run ids {ids}"
        with RunStore(db) as store:
            assert sorted(r["id"] for r in store.runs()) == ids
            assert all(store.guest_series(i) for i in ids)
        con = sqlite3.connect(db)
        try:
            assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            con.close()

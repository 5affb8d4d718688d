"""A run database written by an older release is migrated in place, its runs kept."""

from __future__ import annotations

import sqlite3

from ssisim.engine import RunStore
from ssisim.engine.store.store import _MIGRATIONS, SCHEMA_VERSION


def test_version_1_database_is_migrated_and_keeps_its_runs(tmp_path):
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(_MIGRATIONS[1])
    con.execute("INSERT INTO runs (scenario_name, scenario_path, scenario_hash, seed, "
                "program_version, started_at, finished_at, sim_end_s, summary_json) VALUES "
                "('old', 'old.toml', 'abc', 1, '0.0.1', 's', 'f', 10, '{\"scenario\": \"old\"}')")
    con.execute("INSERT INTO guest_samples (run_id, t_s, userid, member, state, central, xstor, "
                "dasd, throughput) VALUES (1, 0, 'LNX1', 'M1', 'dormant', 1, 0, 0, 0)")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    with RunStore(db) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.run(1)["summary"] == {"scenario": "old"}
        (row,) = store.guest_series(1)
        assert row["userid"] == "LNX1" and row["scheduled"] == 0

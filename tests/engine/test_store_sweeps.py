"""Sweeps in the run store: stored whole with their points, read back as they were, and a
database of an older schema keeps its runs when it learns to hold sweeps."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ssisim.engine import RunStore
from ssisim.engine.store.store import _MIGRATIONS, SCHEMA_VERSION

SUMMARY = {"scenario": "old", "relocations": [{"guest": "LNX1", "relocation_s": 12.5}]}


def schema_2_database(path: Path) -> None:
    """A run database as release with schema 2 wrote it: one run with samples and an event."""
    con = sqlite3.connect(path)
    con.executescript(_MIGRATIONS[1])
    con.executescript(_MIGRATIONS[2])
    con.execute("INSERT INTO runs (scenario_name, scenario_path, scenario_hash, seed, "
                "program_version, started_at, finished_at, sim_end_s, summary_json) VALUES "
                "('old', 'old.toml', 'abc', 1, '0.0.2', 's', 'f', 10, ?)",
                (json.dumps(SUMMARY),))
    con.execute("INSERT INTO guest_samples (run_id, t_s, userid, member, state, central, xstor, "
                "dasd, throughput, scheduled) VALUES (1, 0, 'LNX1', 'M1', 'dormant', 1, 0, 0, "
                "0, 3)")
    con.execute("INSERT INTO events (run_id, seq, t_s, kind, member, userid, message, "
                "data_json) VALUES (1, 0, 0.0, 'COMMAND', 'M1', 'LNX1', 'XAUTOLOG LNX1', '{}')")
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()


def a_sweep(store: RunStore, **kw) -> int:
    points = [
        {"values": (("guest.LNX1.storage", "4G"),), "seed": 7,
         "measures": {"relocation_s": 3.5, "quiesce_s": None}, "summary": SUMMARY},
        {"values": (("guest.LNX1.storage", "8G"),), "seed": 7,
         "measures": {"relocation_s": 6.25, "quiesce_s": 0.5}},
    ]
    args = dict(scenario_name="idle", scenario_path="idle.toml", scenario_hash="f00",
                scenario_text="name = 'idle'\n", varies=[("guest.LNX1.storage", ["4G", "8G"])],
                seeds=1, measures=["relocation_s", "quiesce_s"], until_s=None, points=points,
                started_at="a", finished_at="b", version="9.9")
    args.update(kw)
    return store.save_sweep(**args)


def test_a_schema_2_database_keeps_its_runs_and_can_store_a_sweep(tmp_path: Path):
    db = tmp_path / "old.sqlite"
    schema_2_database(db)
    with RunStore(db) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        (run,) = store.runs()
        assert run["id"] == 1 and run["scenario_name"] == "old"
        assert store.run(1)["summary"] == SUMMARY
        (row,) = store.guest_series(1)
        assert row["scheduled"] == 3
        assert [e["message"] for e in store.events(1)] == ["XAUTOLOG LNX1"]
        assert store.sweeps() == []
        sweep_id = a_sweep(store)
    with RunStore(db) as store:  # opened again: nothing migrates twice, both are there
        assert [r["id"] for r in store.runs()] == [1]
        (listed,) = store.sweeps()
        assert listed["id"] == sweep_id and listed["points"] == 2
        assert listed["varies"] == [("guest.LNX1.storage", ["4G", "8G"])]
        assert listed["measures"] == ["relocation_s", "quiesce_s"]


def test_points_are_read_back_as_they_were_stored(tmp_path: Path):
    with RunStore(tmp_path / "runs.sqlite") as store:
        sweep_id = a_sweep(store, until_s=60.0)
        rec = store.sweep(sweep_id)
        assert rec["scenario_text"] == "name = 'idle'\n" and rec["until_s"] == 60.0
        assert rec["program_version"] == "9.9" and rec["seeds"] == 1
        first, second = store.sweep_points(sweep_id)
        assert first["values"] == (("guest.LNX1.storage", "4G"),) and first["seed"] == 7
        # a measure a run did not have stays None (shown as '-')
        assert first["measures"] == {"relocation_s": 3.5, "quiesce_s": None}
        assert second["measures"]["relocation_s"] == 6.25 and second["run_id"] is None
        assert store.sweep_summary(sweep_id, 0) == SUMMARY
        assert store.sweep_summary(sweep_id, 1) is None  # not kept for that point
        assert store.sweep(sweep_id + 1) is None and store.sweep_points(sweep_id + 1) == []


def test_a_point_links_to_its_stored_run_until_the_run_is_deleted(tmp_path: Path):
    db = tmp_path / "runs.sqlite"
    schema_2_database(db)
    with RunStore(db) as store:
        sweep_id = a_sweep(store, points=[{"values": (), "seed": 1, "measures": {},
                                           "run_id": 1}])
        assert store.sweep_points(sweep_id)[0]["run_id"] == 1
        store.db.execute("DELETE FROM runs WHERE id = 1")
        assert store.sweep_points(sweep_id)[0]["run_id"] is None
        # deleting a sweep takes its points with it
        store.db.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,))
        assert store.db.execute("SELECT COUNT(*) FROM sweep_points").fetchone()[0] == 0


def test_a_sweep_that_cannot_be_stored_leaves_nothing_behind(tmp_path: Path):
    with RunStore(tmp_path / "runs.sqlite") as store:
        bad = [{"values": (), "seed": 1, "measures": {"x": 1.0}},
               {"values": (), "seed": 2, "measures": {"x": object()}}]  # not JSON
        with pytest.raises(TypeError):
            a_sweep(store, points=bad)
        assert store.sweeps() == []
        assert store.db.execute("SELECT COUNT(*) FROM sweep_points").fetchone()[0] == 0
        assert a_sweep(store) == 1  # and the store goes on working

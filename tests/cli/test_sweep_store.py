"""Sweeps in the run store from the command line: ``ssisim sweep`` stores what it printed,
``sweeps`` lists, ``show-sweep`` prints the same table again, ``report --sweep`` writes it."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

import pytest

from ssisim.cli import main
from ssisim.engine import RunStore, find_scenario
from ssisim.engine.store.store import _MIGRATIONS

IDLE = find_scenario("reference/lgr-idle")
SWEEP = ["sweep", str(IDLE), "--vary", "guest.LNX100.storage=2G,4G", "--seeds", "2",
         "--measure", "relocation_s", "--measure", "passes", "-q", "--workers", "1"]


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def table_of(out: str) -> list[str]:
    """The table's lines: from its header to the first line that is not a row of it."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if "relocation_s mean" in ln)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()
                or lines[i].lstrip()[0].isalpha()), len(lines))
    return lines[start:end]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A database holding one sweep; and what the sweep printed."""
    db = tmp_path_factory.mktemp("sweeps") / "runs.sqlite"
    out = io.StringIO()  # capsys is a test's own: the module's sweep is captured by hand
    with contextlib.redirect_stdout(out):
        assert main([*SWEEP, "--db", str(db)]) == 0
    return db, out.getvalue()


def test_a_sweep_is_stored_with_its_points_and_their_summaries(stored):
    db, out = stored
    assert f"Stored as sweep 1 in {db} (ssisim show-sweep 1 --db {db})" in out
    with RunStore(db) as store:
        rec = store.sweep(1)
        assert rec["varies"] == [("guest.LNX100.storage", ["2G", "4G"])]
        assert rec["seeds"] == 2 and rec["points"] == 4 and rec["until_s"] is None
        assert rec["scenario_text"] == IDLE.read_text(encoding="utf-8")
        points = store.sweep_points(1)
        assert [p["values"][0][1] for p in points] == ["2G", "2G", "4G", "4G"]
        assert points[0]["seed"] + 1 == points[1]["seed"]
        # the point's summary is its run's: the measure is taken from it
        (rel,) = store.sweep_summary(1, 2)["relocations"]
        assert rel["relocation_s"] == pytest.approx(points[2]["measures"]["relocation_s"])


def test_show_sweep_prints_the_table_the_sweep_printed(stored, capsys):
    db, out = stored
    rc, shown, err = call(capsys, "show-sweep", "1", "--db", str(db))
    assert rc == 0, err
    assert table_of(shown) == table_of(out)
    assert "--vary guest.LNX100.storage=2G,4G" in shown and "2 seed(s) per point" in shown
    rc, js, err = call(capsys, "show-sweep", "1", "--db", str(db), "--json", "-")
    assert rc == 0, err
    data = json.loads(js)
    assert [r["guest.LNX100.storage"] for r in data["rows"]] == ["2G", "4G"]
    assert all(r["runs"] == 2 for r in data["rows"])


def test_sweeps_lists_the_stored_sweeps(stored, capsys):
    db, _ = stored
    rc, out, err = call(capsys, "sweeps", "--db", str(db))
    assert rc == 0, err
    (row,) = out.splitlines()[1:]
    assert row.split()[0] == "1" and "guest.LNX100.storage (2)" in row and "LGR reference" in row
    rc, out, _ = call(capsys, "sweeps", "--db", str(db.parent / "none.sqlite"))
    assert rc == 0 and "No sweeps stored yet" in out


def test_no_store_and_the_default_database(capsys, own_data_dir: Path):
    rc, out, err = call(capsys, *SWEEP[:4], "--no-store", "-q", "--workers", "1")
    assert rc == 0, err
    assert "Stored" not in out and not own_data_dir.exists()
    rc, out, err = call(capsys, *SWEEP[:4], "-q", "--workers", "1")
    assert rc == 0, err
    db = own_data_dir / "ssisim" / "runs.sqlite"
    assert f"Stored as sweep 1 in {db} (ssisim show-sweep 1)" in out
    rc, out, err = call(capsys, "show-sweep", "1")
    assert rc == 0 and "guest.LNX100.storage" in out, err


def test_a_bad_sweep_id_is_one_line(stored, capsys, tmp_path: Path):
    db, _ = stored
    rc, out, err = call(capsys, "show-sweep", "9", "--db", str(db))
    assert rc == 1 and out == ""
    assert err.strip().splitlines() == [f"ssisim: sweep 9 is not in {db} (stored sweeps: 1)"]
    rc, _, err = call(capsys, "show-sweep", "1", "--db", str(tmp_path / "nothing.sqlite"))
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "does not exist" in err
    rc, _, err = call(capsys, "show-sweep", "0", "--db", str(db))
    assert rc == 1 and "SWEEP_ID must be 1 to" in err and "Traceback" not in err


def test_a_run_id_given_to_show_sweep_says_it_is_a_run(capsys, tmp_path: Path):
    db = tmp_path / "runs.sqlite"
    rc, _, err = call(capsys, "run", str(IDLE), "--until", "5", "--db", str(db), "-q")
    assert rc == 0, err
    rc, out, err = call(capsys, "show-sweep", "1", "--db", str(db))
    assert rc == 1 and out == ""
    (line,) = err.strip().splitlines()
    assert "no sweeps stored; run 1 is a run: ssisim show 1" in line


def test_report_of_a_sweep(stored, capsys, tmp_path: Path):
    db, _ = stored
    out_dir = tmp_path / "rep"
    rc, out, err = call(capsys, "report", "--sweep", "1", "--out", str(out_dir), "--db", str(db))
    assert rc == 0, err
    assert "Report of sweep 1" in out and "(2 charts, 2 data files)" in out
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "ssisim sweep report, sweep 1" in page
    assert 'src="sweep-relocation_s.png"' in page and 'src="sweep-passes.png"' in page
    for png in ("sweep-relocation_s.png", "sweep-passes.png"):
        assert (out_dir / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (out_dir / "sweep.csv").read_text(encoding="utf-8").splitlines()
    assert table[0].startswith("guest.LNX100.storage,runs,relocation_s mean") and len(table) == 3
    assert len((out_dir / "points.csv").read_text(encoding="utf-8").splitlines()) == 5


def test_report_names_a_run_or_a_sweep(stored, capsys, tmp_path: Path):
    db, _ = stored
    for argv in (["report", "--out", str(tmp_path)],
                 ["report", "1", "--sweep", "1", "--out", str(tmp_path)]):
        rc, _, err = call(capsys, *argv, "--db", str(db))
        assert rc == 1 and "one of the two" in err and len(err.strip().splitlines()) == 1
    # the sweep's id given as a run's: the line says how to ask for the sweep
    rc, _, err = call(capsys, "report", "1", "--out", str(tmp_path), "--db", str(db))
    assert rc == 1 and "1 is a sweep: ssisim report --sweep 1" in err
    rc, _, err = call(capsys, "report", "--sweep", "5", "--out", str(tmp_path), "--db", str(db))
    assert rc == 1 and "sweep 5 is not in" in err and len(err.strip().splitlines()) == 1


def test_a_schema_2_database_still_shows_its_runs_and_takes_a_sweep(capsys, tmp_path: Path):
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(_MIGRATIONS[1])
    con.executescript(_MIGRATIONS[2])
    con.execute("INSERT INTO runs (scenario_name, scenario_path, scenario_hash, seed, "
                "program_version, started_at, finished_at, sim_end_s, summary_json) VALUES "
                "('kept', 'kept.toml', 'abc', 1, '0.0.2', 's', 'f', 10, ?)",
                (json.dumps({"scenario": "kept", "t_s": 10.0, "seed": 1, "members": [],
                             "guests": [], "relocations": [], "events": {}}),))
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    rc, out, err = call(capsys, "runs", "--db", str(db))
    assert rc == 0 and "kept (kept.toml)" in out, err
    rc, out, err = call(capsys, "show", "1", "--db", str(db), "--json", "-")
    assert rc == 0 and json.loads(out)["scenario"] == "kept", err
    rc, out, err = call(capsys, *SWEEP[:4], "-q", "--workers", "1", "--db", str(db))
    assert rc == 0 and "Stored as sweep 1" in out, err
    rc, out, _ = call(capsys, "runs", "--db", str(db))
    assert "kept (kept.toml)" in out

"""The ``ssisim`` command as a user meets it: output, stored runs, exit codes and messages.

Every call passes ``--db`` inside ``tmp_path``: the user's real run database is never touched.
Runs are cut short with ``--until`` except the one check of the overcommit scenario's promise.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ssisim.cli import main

MINIMAL = """\
version = 1

[[member]]
name = "MEMB1"
central = "1G"

[[guest]]
userid = "LNX1"
member = "MEMB1"
storage = "512M"
"""


class Cli:
    """Runs ``main`` in-process and hands back exit code, stdout and stderr."""

    def __init__(self, capsys: pytest.CaptureFixture[str], db: Path) -> None:
        self.capsys = capsys
        self.db = db

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()  # drop anything printed before
        rc = main(list(argv))
        out, err = self.capsys.readouterr()
        return rc, out, err

    def run_json(self, *argv: str) -> tuple[str, dict[str, Any]]:
        rc, out, err = self("run", *argv, "--db", str(self.db), "--json", "-")
        assert rc == 0, err
        return out, json.loads(out)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "runs.sqlite"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], db: Path) -> Cli:
    return Cli(capsys, db)


def assert_user_error(rc: int, err: str, *needles: str) -> str:
    """Exit code 1, one ``ssisim: ...`` line on stderr, no traceback; returns that line."""
    assert rc == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ssisim: "), err
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"
    return lines[0]


# --- run, runs, show ------------------------------------------------------------------------

def test_run_prints_summary_and_stores_the_run(cli: Cli, db: Path) -> None:
    rc, out, err = cli("run", "demo", "--until", "120", "--db", str(db))
    assert rc == 0, err
    assert "Scenario 'Demo cluster', seed 42, 120 simulated seconds" in out
    for name in ("MEMB1", "MEMB2", "LNXWEB1", "LNXDB2", "LNXIDL3"):
        assert name in out
    assert f"Stored as run 1 in {db}" in out
    assert db.is_file()

    rc, out, err = cli("runs", "--db", str(db))
    assert rc == 0, err
    rows = [line.split() for line in out.splitlines()[1:]]
    assert len(rows) == 1
    assert rows[0][0] == "1"  # ID
    assert rows[0][2:4] == ["42", "120"]  # SEED, SIM s
    assert "Demo cluster" in out

    rc, out, err = cli("show", "1", "--db", str(db))
    assert rc == 0, err
    assert out.startswith("Run 1: ")
    assert "seed 42" in out
    assert "Scenario 'Demo cluster', seed 42, 120 simulated seconds" in out
    assert "LNXWEB1" in out


def test_runs_on_an_empty_database(cli: Cli, db: Path) -> None:
    rc, out, err = cli("runs", "--db", str(db))
    assert rc == 0, err
    assert "No runs stored yet" in out


def test_show_json_is_the_summary_that_run_printed(cli: Cli, db: Path) -> None:
    run_out, _ = cli.run_json("overcommit", "--until", "120")
    rc, show_out, err = cli("show", "1", "--db", str(db), "--json", "-")
    assert rc == 0, err
    assert json.loads(show_out) == json.loads(run_out)
    assert show_out == run_out


def test_show_events_lists_the_timeline(cli: Cli, db: Path) -> None:
    cli.run_json("overcommit", "--until", "120")
    rc, out, err = cli("show", "1", "--db", str(db), "--events")
    assert rc == 0, err
    assert "IDLE01" in out and "WORKLOAD" in out


def test_run_json_shape(cli: Cli) -> None:
    out, s = cli.run_json("demo", "--until", "120")
    assert out.endswith("\n") and "Stored as run" not in out  # only JSON on stdout
    assert s["scenario"] == "Demo cluster"
    assert s["seed"] == 42
    assert s["t_s"] == 120
    assert [m["name"] for m in s["members"]] == ["MEMB1", "MEMB2"]
    assert len(s["guests"]) == 12
    assert {g["userid"] for g in s["guests"]} >= {"LNXWEB1", "LNXIDL1", "LNXPF1"}
    assert s["relocations"] == []


def test_json_to_a_file(cli: Cli, db: Path, tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    rc, out, err = cli("run", "demo", "--until", "30", "--db", str(db), "--json", str(target))
    assert rc == 0, err
    assert "Scenario 'Demo cluster'" in out  # the text summary still goes to stdout
    assert json.loads(target.read_text())["t_s"] == 30


def test_same_seed_twice_gives_identical_json(cli: Cli) -> None:
    first, _ = cli.run_json("overcommit", "--until", "120", "--seed", "5")
    second, _ = cli.run_json("overcommit", "--until", "120", "--seed", "5")
    assert first == second


def test_a_different_seed_gives_different_results(cli: Cli) -> None:
    # By 700 s the member is overcommitted (page-out starts near 560 s), so paging is in play.
    _, a = cli.run_json("overcommit", "--until", "700", "--seed", "1")
    _, b = cli.run_json("overcommit", "--until", "700", "--seed", "2")
    assert (a["seed"], b["seed"]) == (1, 2)
    # The seed field alone would make the JSON differ; the simulated results must differ too.
    assert a["guests"] != b["guests"]
    assert any(g["paged_out"] > 0 for g in a["guests"])
    def without_seed(d):
        return {k: v for k, v in d.items() if k != "seed"}

    assert without_seed(a) != without_seed(b)


def test_seed_defaults_to_the_scenarios(cli: Cli) -> None:
    _, s = cli.run_json("overcommit", "--until", "10")
    assert s["seed"] == 2011


def test_csv_files(cli: Cli, db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "out" / "csv"
    rc, _out, err = cli("run", "overcommit", "--until", "120", "--db", str(db), "--csv",
                        str(folder), "-q")
    assert rc == 0, err
    tables = {}
    for name in ("members.csv", "guests.csv", "events.csv"):
        with open(folder / name, newline="") as f:
            tables[name] = list(csv.reader(f))
    members, guests, events = tables["members.csv"], tables["guests.csv"], tables["events.csv"]
    assert members[0][:3] == ["t_s", "member", "central_used"]
    assert guests[0][:4] == ["t_s", "userid", "member", "state"]
    assert events[0] == ["seq", "t_s", "kind", "member", "userid", "message"]
    assert len(members) > 1 and {r[1] for r in members[1:]} == {"MEMB1"}
    assert {r[1] for r in guests[1:]} == {f"IDLE0{i}" for i in range(1, 6)} | {"ACTIVE1", "ACTIVE2"}
    assert any(r[4] == "IDLE01" for r in events[1:])  # the WORKLOAD IDLE01 START IDLE at 60 s


def test_quiet_prints_nothing(cli: Cli, db: Path) -> None:
    rc, out, err = cli("run", "demo", "--until", "10", "--db", str(db), "-q")
    assert rc == 0, err
    assert out == ""


def test_no_store_stores_nothing(cli: Cli, db: Path) -> None:
    rc, out, err = cli("run", "demo", "--until", "10", "--db", str(db), "--no-store")
    assert rc == 0, err
    assert "Stored as run" not in out
    rc, out, _ = cli("runs", "--db", str(db))
    assert "No runs stored yet" in out


# --- check and scenarios ---------------------------------------------------------------------

def test_check_bundled_scenarios(cli: Cli) -> None:
    rc, out, err = cli("check", "demo", "overcommit")
    assert rc == 0, err
    assert "demo: OK (2 members, 12 guests" in out
    assert "overcommit: OK (1 members, 7 guests" in out


def test_check_a_scenario_file(cli: Cli, tmp_path: Path) -> None:
    p = tmp_path / "mine.toml"
    p.write_text(MINIMAL)
    rc, out, err = cli("check", str(p))
    assert rc == 0, err
    assert f"{p}: OK (1 members, 1 guests" in out


def test_check_reports_a_bad_field_with_file_and_line(cli: Cli, tmp_path: Path) -> None:
    p = tmp_path / "mine.toml"
    p.write_text(MINIMAL.replace('storage = "512M"', 'storage = "4X"'))
    rc, _out, err = cli("check", str(p))
    assert_user_error(rc, err, f"{p}:10:", "storage", "4X")


def test_scenarios_lists_the_bundled_ones(cli: Cli) -> None:
    rc, out, err = cli("scenarios")
    assert rc == 0, err
    first_words = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert {"demo", "overcommit", "lgr-short-destination"} <= set(first_words)
    assert "reference/lgr-idle" in first_words
    assert "Demo cluster" in out and "Overcommit: idle guests pay first" in out


# --- user errors: exit 1, one line, no traceback --------------------------------------------

def test_missing_scenario_file(cli: Cli, db: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    rc, _out, err = cli("run", str(missing), "--db", str(db))
    assert_user_error(rc, err, str(missing), "no such scenario", "bundled: demo,", "overcommit")


def test_malformed_toml_names_file_and_line(cli: Cli, db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(MINIMAL.replace('member = "MEMB1"', 'member = "MEMB1'))
    rc, _out, err = cli("run", str(bad), "--db", str(db))
    assert_user_error(rc, err, f"{bad}:9:", "not valid TOML")


def test_unknown_option(cli: Cli, db: Path) -> None:
    rc, _out, err = cli("run", "demo", "--frobnicate", "--db", str(db))
    assert_user_error(rc, err, "--frobnicate")


def test_unknown_command(cli: Cli) -> None:
    rc, _out, err = cli("fly")
    assert_user_error(rc, err, "fly")


def test_no_command(cli: Cli) -> None:
    rc, _out, err = cli()
    assert_user_error(rc, err, "required")


def test_seed_that_is_not_a_number(cli: Cli, db: Path) -> None:
    rc, _out, err = cli("run", "demo", "--seed", "abc", "--db", str(db))
    assert_user_error(rc, err, "--seed", "abc")


def test_show_a_run_that_does_not_exist(cli: Cli, db: Path) -> None:
    rc, _out, err = cli("show", "42", "--db", str(db))
    assert_user_error(rc, err, "run 42", "no runs stored")
    assert not db.exists(), "looking for a run must not create a database"
    cli("run", "demo", "--until", "5", "--db", str(db), "-q")
    rc, _out, err = cli("show", "42", "--db", str(db))
    assert_user_error(rc, err, "run 42", "stored runs: 1")


@pytest.mark.parametrize("argv", [["--until", "-5"], ["--until=-5"]])
def test_negative_until(cli: Cli, db: Path, argv: list[str]) -> None:
    rc, _out, err = cli("run", "demo", *argv, "--db", str(db))
    assert_user_error(rc, err, "--until", "-5", "0 to 31,536,000")
    rc, out, _err = cli("runs", "--db", str(db))
    assert "No runs stored yet" in out


@pytest.mark.parametrize("command", [["run", "demo", "--until", "5"], ["runs"], ["show", "1"]])
def test_database_path_that_is_a_directory(cli: Cli, tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    rc, _out, err = cli(*command, "--db", str(folder))
    assert_user_error(rc, err, str(folder), "database")


def test_a_file_that_is_not_a_database(cli: Cli, tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not SQLite\n" * 100)
    rc, _out, err = cli("runs", "--db", str(junk))
    assert_user_error(rc, err, str(junk))


def test_unwritable_outputs(cli: Cli, db: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    rc, _out, err = cli("run", "demo", "--until", "5", "--db", str(db), "--csv", str(a_file))
    assert_user_error(rc, err, str(a_file), "CSV")
    nowhere = tmp_path / "no-such-dir" / "x.json"
    rc, _out, err = cli("run", "demo", "--until", "5", "--db", str(db), "--json", str(nowhere))
    assert_user_error(rc, err, str(nowhere), "JSON")


def test_a_run_that_fails_with_exit_1_stores_nothing(cli: Cli, db: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    rc, _out, err = cli("run", "demo", "--until", "5", "--db", str(db), "--csv", str(a_file))
    assert rc == 1, err
    rc, out, _err = cli("runs", "--db", str(db))
    assert "No runs stored yet" in out


# --- an interrupted run -------------------------------------------------------------------

def test_interrupted_run_stores_nothing_and_keeps_earlier_runs(
        cli: Cli, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    earlier, _ = cli.run_json("demo", "--until", "30")
    from ssisim import engine

    real_run_until = engine.Simulation.run_until
    reached = []

    def interrupted(self: Any, t_s: float, *args: Any, **kwargs: Any) -> None:
        real_run_until(self, t_s / 2, *args, **kwargs)  # get halfway, then Ctrl-C
        reached.append(self.t)
        raise KeyboardInterrupt

    monkeypatch.setattr("ssisim.engine.Simulation.run_until", interrupted)
    rc, out, err = cli("run", "overcommit", "--until", "120", "--db", str(db))
    assert reached == [60]
    assert rc not in (0, 1, 2)
    assert "Traceback" not in err
    assert "interrupted" in err and "nothing was stored" in err
    assert "Stored as run" not in out
    monkeypatch.undo()

    rc, out, err = cli("runs", "--db", str(db))
    assert rc == 0, err
    assert len(out.splitlines()) == 2  # header and the one earlier run
    assert "Demo cluster" in out and "Overcommit" not in out
    rc, shown, err = cli("show", "1", "--db", str(db), "--json", "-")
    assert rc == 0, err
    assert shown == earlier
    rc, _out, err = cli("show", "2", "--db", str(db))
    assert_user_error(rc, err, "run 2", "stored runs: 1")


# --- the real console entry ---------------------------------------------------------------

def test_console_entry_end_to_end(tmp_path: Path, db: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ssisim.cli", "run", "overcommit", "--until", "60", "--db",
         str(db), "--json", "-"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert s["t_s"] == 60 and s["relocations"] == []

    proc = subprocess.run(
        [sys.executable, "-m", "ssisim.cli", "show", "1", "--db", str(db), "--json", "-"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == s


def test_console_entry_user_error(tmp_path: Path, db: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ssisim.cli", "run", str(tmp_path / "nope.toml"), "--db", str(db)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert_user_error(proc.returncode, proc.stderr, "nope.toml")
    assert proc.stdout == ""


# --- the overcommit scenario keeps its promise ------------------------------------------------

def test_overcommit_idle_guests_pay_first(cli: Cli) -> None:
    _, s = cli.run_json("overcommit")
    assert s["t_s"] == 1800
    guests = {g["userid"]: g for g in s["guests"]}
    idle = [guests[u] for u in sorted(guests) if u.startswith("IDLE")]
    active = [guests[u] for u in sorted(guests) if u.startswith("ACTIVE")]
    assert len(idle) == 5 and len(active) == 2

    paid = [g for g in idle if g["paged_out"] > 0]
    assert paid  # the demand scan takes the idle guests' pages, the longest idle first
    for g in paid:
        first = g["first_pageout_s"]
        assert "xstor" in first, (g["userid"], first)
        if "dasd" in first:
            assert first["xstor"] <= first["dasd"], (g["userid"], first)  # XSTOR, then DASD
    # XSTOR's oldest blocks go on to DASD: those of the guests idle longest
    assert any("dasd" in g["first_pageout_s"] for g in idle)
    for g in active:
        assert g["paged_out"] == 0, (g["userid"], g["paged_out"])

    last_idle_first_out = max(min(g["first_pageout_s"].values()) for g in paid)
    active_outs = [t for g in active for t in g["first_pageout_s"].values()]
    first_active_out = min(active_outs, default=float("inf"))
    assert last_idle_first_out < first_active_out


def test_check_and_run_warn_about_central_storage_typed_without_its_unit(
        cli: Cli, tmp_path: Path) -> None:
    """A size without a unit is MB: ``central = 2`` under a 2T guest runs as written (every
    reference pages, each simulated second slow), and check and run say so first."""
    text = MINIMAL.replace('central = "1G"', "central = 2").replace('storage = "512M"',
                                                                     'storage = "2T"')
    path = tmp_path / "typo.toml"
    path.write_text(text)
    rc, out, err = cli("check", str(path))
    assert rc == 0 and "OK" in out
    assert err.count("warning:") == 1, err
    assert "member MEMB1: central = 2M" in err and '"2G" or "2T"?' in err and str(path) in err
    rc, out, err = cli("run", str(path), "--until", "0", "--db", str(cli.db), "-q")
    assert rc == 0 and err.count("warning:") == 1, err
    # a member with room for its guests, or overcommitted as shops are, gets no warning
    path.write_text(MINIMAL.replace('storage = "512M"', 'storage = "8G"'))
    rc, out, err = cli("check", str(path))
    assert rc == 0 and "warning" not in err

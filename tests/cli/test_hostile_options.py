"""Numeric options out of their range: one clear message and exit 1 before anything runs.

Reproducer D11: ``ssisim run demo --seed -1`` ended in a numpy ValueError (exit 2), and
``--seed 9223372036854775808 --db X`` ran the whole scenario, then lost the run to an
OverflowError when storing it. ``--until inf`` / ``nan`` crashed, ``--until 1e308`` never
ended. Every numeric option has a documented range (``--help``) and is checked up front.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ssisim.cli import build_parser, main


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def user_error(rc: int, err: str) -> str:
    """Exit 1 with one ``ssisim: ...`` line and no traceback; returns that line."""
    assert rc == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssisim: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("seed", ["-1", "9223372036854775808", "1e3", "abc", "99" * 20])
def test_a_seed_out_of_range_is_refused_before_the_run(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path, seed: str) -> None:
    db = tmp_path / "runs.sqlite"
    rc, out, err = call(capsys, "run", "demo", "--seed", seed, "--db", str(db))
    line = user_error(rc, err)
    assert f"--seed must be 0 to 2^63-1, not {seed!r}" in line
    assert "see ssisim run --help" in line
    assert out == "" and not db.exists()  # nothing ran, nothing was stored


def test_the_largest_seed_is_run_and_stored(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    rc, _out, err = call(capsys, "run", "demo", "--seed", str(2**63 - 1), "--until", "2", "-q",
                         "--db", str(db))
    assert rc == 0, err
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT seed FROM runs").fetchall() == [(2**63 - 1,)]
    finally:
        con.close()


@pytest.mark.parametrize("until", ["inf", "nan", "-inf", "-5", "1e400", "soon"])
def test_until_must_be_a_finite_time(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     until: str) -> None:
    db = tmp_path / "runs.sqlite"
    rc, _out, err = call(capsys, "run", "demo", f"--until={until}", "--db", str(db))
    line = user_error(rc, err)
    assert f"--until must be a finite number of seconds, 0 to 31,536,000, not {until!r}" in line
    assert not db.exists()


@pytest.mark.parametrize("until", ["1e308", "31536001"])
def test_a_time_beyond_a_year_is_refused_with_the_range(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, until: str) -> None:
    db = tmp_path / "runs.sqlite"
    rc, _out, err = call(capsys, "run", "demo", "--until", until, "--db", str(db))
    line = user_error(rc, err)
    assert "--until must be a finite number of seconds, 0 to 31,536,000" in line
    assert not db.exists()


def test_a_run_of_absurdly_many_steps_is_refused_with_the_limit(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Steps of 1 ms: 10^8 steps is the most, so 200,000 s is too far."""
    scenario = tmp_path / "fine.toml"
    scenario.write_text('format = "ssisim-scenario"\nversion = 1\n[run]\nstep_s = 0.001\n'
                        'duration_s = 60\n[[member]]\nname = "VMA"\ncentral = "1G"\n',
                        encoding="utf-8")
    db = tmp_path / "runs.sqlite"
    rc, _out, err = call(capsys, "run", str(scenario), "--until", "200000", "--db", str(db))
    line = user_error(rc, err)
    assert "--until 200000 s is" in line
    assert "a run is limited to 100,000,000 steps, that is at most 100,000 s" in line
    assert not db.exists()


def test_the_step_limit_follows_the_scenarios_step(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """With steps of 1 ms, 10^8 steps are 100,000 s: a day and a half is refused, 1 s is not."""
    sc = tmp_path / "ms-steps.toml"
    sc.write_text('version = 1\n[run]\nduration_s = 10\nstep_s = 0.001\n'
                  '[[member]]\nname = "MEMB1"\ncentral = "1G"\n'
                  '[[guest]]\nuserid = "LNX1"\nmember = "MEMB1"\nstorage = "512M"\n')
    rc, _out, err = call(capsys, "run", str(sc), "--no-store", "--until", "130000")
    line = user_error(rc, err)
    assert "--until 130000 s is 1.3e+08 steps of 0.001 s" in line
    assert "at most 100,000 s with this scenario's step_s" in line
    rc, _out, err = call(capsys, "run", str(sc), "--no-store", "--until", "1", "-q")
    assert rc == 0, err


@pytest.mark.parametrize("command", ["show", "report"])
@pytest.mark.parametrize("run_id", ["0", "-3", "99999999999999999999"])
def test_a_run_id_out_of_range_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          command: str, run_id: str) -> None:
    db = tmp_path / "runs.sqlite"
    rc, _out, err = call(capsys, "run", "demo", "--until", "1", "-q", "--db", str(db))
    assert rc == 0, err
    extra = ["--out", str(tmp_path / "rep")] if command == "report" else []
    rc, _out, err = call(capsys, command, run_id, "--db", str(db), *extra)
    line = user_error(rc, err)
    assert f"RUN_ID must be 1 to 2^63-1, not {run_id!r}" in line


@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_gui_run_until_is_checked_like_until(capsys: pytest.CaptureFixture[str],
                                             value: str) -> None:
    rc, _out, err = call(capsys, "gui", "demo", "--run-until", value)
    line = user_error(rc, err)
    assert f"--run-until must be a finite number of seconds, 0 to 31,536,000, not {value!r}" in line


def test_every_numeric_option_documents_its_range() -> None:
    """``--help`` of each command states the range the parser enforces."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    assert isinstance(sub, dict)
    helps = {name: " ".join(p.format_help().split()) for name, p in sub.items()}
    assert "0 to 2^63-1" in helps["run"] and "at most 100,000,000 steps" in helps["run"]
    assert "finite number 0 or more" in helps["run"]
    assert "1 to 2^63-1" in helps["show"] and "1 to 2^63-1" in helps["report"]
    assert "finite number 0 or more" in helps["gui"] and "200 to 10000" in helps["gui"]

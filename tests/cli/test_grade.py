"""Lessons on the command line: list, replay a student's session, grade a class."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ssisim.cli import main

SOLUTIONS = Path(__file__).parents[1] / "lessons" / "solutions"
GOOD = SOLUTIONS / "01-first-relocation.session.toml"


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def session(tmp_path: Path, name: str, body: str, lesson: str = "first-relocation") -> Path:
    p = tmp_path / name
    p.write_text(f'format = "ssisim-session"\nversion = 1\nlesson = "{lesson}"\n'
                 f'student = "{name.split(".")[0]}"\n' + body)
    return p


def test_lessons_are_listed_in_order(capsys):
    rc, out, _ = call(capsys, "lessons")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("01-first-relocation") and "Your first relocation" in lines[0]
    assert [ln[:2] for ln in lines] == sorted(ln[:2] for ln in lines)


def test_run_with_a_session_gives_the_grade_score(capsys, tmp_path):
    rc, out, err = call(capsys, "run", "first-relocation", "--session", str(GOOD), "--db",
                        str(tmp_path / "r.sqlite"), "--json", "-")
    assert rc == 0, err
    d = json.loads(out)["objectives"]
    assert d["score"] == 100 and d["passed"] and d["lesson"]["id"] == "first-relocation"
    rc, out, err = call(capsys, "grade", "first-relocation", str(GOOD), "--json", "-")
    assert rc == 0, err
    graded = json.loads(out[out.index("{"):])[str(GOOD)]
    assert graded["score"] == d["score"] and graded["objectives"] == d["objectives"]


def test_grading_a_class_goes_on_past_bad_sessions(capsys, tmp_path):
    hint = session(tmp_path, "bob.session.toml", '[[command]]\nat_s = 15\ncommand = "HINT"\n'
                   '[[command]]\nat_s = 20\ncommand = "VMRELOCATE MOVE USER LNX01 TO MEMB2"\n')
    idle = session(tmp_path, "cy.session.toml", "")
    other = session(tmp_path, "dee.session.toml", "", lesson="slow-link")
    broken = tmp_path / "eve.session.toml"
    broken.write_text("[[command]\nat_s = 1\n")
    table = tmp_path / "grades.csv"
    rc, out, err = call(capsys, "grade", "first-relocation", str(GOOD), str(hint), str(idle),
                        str(other), str(broken), "--csv", str(table))
    assert rc == 1  # some sessions could not be graded; the others were
    assert "recorded in 'slow-link', not in the lesson 'first-relocation'" in err
    assert f"{broken}:1: not a valid session file" in err
    assert "2 of 5 sessions could not be graded" in err
    with table.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["student"] for r in rows] == ["reference", "bob", "cy", "", ""]
    assert [r["score"] for r in rows[:3]] == ["100", "75", "20"]
    assert [r["passed"] for r in rows] == ["yes", "yes", "no", "error", "error"]
    assert "-5 hint 1 used at 15 s" in rows[1]["lost"]
    assert "-20 test:" in rows[1]["lost"]  # bob skipped VMRELOCATE TEST
    assert "LNX01 was not moved to MEMB2" in rows[2]["lost"]
    assert "slow-link" in rows[3]["lost"]
    assert "bob" in out and "75" in out


def test_grading_a_scenario_without_objectives_is_refused(capsys):
    rc, _out, err = call(capsys, "grade", "demo", str(GOOD))
    assert rc == 1 and "has no objectives" in err and "Traceback" not in err


def test_check_names_a_bad_objective(capsys, tmp_path):
    src = (Path(__file__).parents[2] / "scenarios" / "lessons" / "01-first-relocation.toml")
    text = src.read_text().replace('guest = "LNX01"\nto = "MEMB2"', 'guest = "LNX99"\nto = "MEMB2"')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    rc, _out, err = call(capsys, "check", str(bad))
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if 'guest = "LNX99"' in ln)
    assert rc == 1
    assert f"{bad}:{line}: objective[1] (moved).guest: 'LNX99' is not a guest of this scenario; " \
           "guests: LNX01, LNXWEB" in err

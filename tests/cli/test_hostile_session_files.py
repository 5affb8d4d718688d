"""Session files with emoji: new ones grade; old broken ones get one clear message.

Reproducer D09 (tests/cli/repro/D09-session-emoji.session.toml, D09b-recorded-session.toml):
written by the old ``session_text`` / ``record_session`` after ``Q N 😀`` by student "Zoë 🎓",
with surrogate-pair escapes that TOML refuses. Files written now load and grade; the old ones
cannot be read, and the message says where and why (and, for a session, what to change).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ssisim.cli import main, resolve_lesson
from ssisim.engine import Simulation, load_scenario, record_session, session_text

REPRO = Path(__file__).parent / "repro"
OLD_SESSION = REPRO / "D09-session-emoji.session.toml"
OLD_RECORDED = REPRO / "D09b-recorded-session.toml"


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def one_line(rc: int, err: str) -> str:
    assert rc == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssisim: "), err
    return lines[0]


def the_same_work_saved_now(tmp_path: Path) -> tuple[Path, Path]:
    """What the app saves today for the reproducer's session: Save session, Record session."""
    sim = Simulation(load_scenario(resolve_lesson("first-relocation")))
    sim.run_until(10)
    sim.execute("Q N 😀")
    sim.run_until(20)
    sim.execute("VMRELOCATE MOVE USER LNX01 TO MEMB2")
    session = tmp_path / "zoe.session.toml"
    session.write_text(session_text(sim, "Zoë 🎓"), encoding="utf-8")
    recorded = tmp_path / "zoe-recorded.toml"
    recorded.write_text(record_session(sim), encoding="utf-8")
    return session, recorded


def test_a_session_saved_now_with_emoji_is_graded(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    session, recorded = the_same_work_saved_now(tmp_path)
    table = tmp_path / "g.csv"
    rc, out, err = call(capsys, "grade", "first-relocation", str(session), "--csv", str(table))
    assert rc == 0, err
    with table.open(encoding="utf-8", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert row["student"] == "Zoë 🎓" and row["passed"] in ("yes", "no") and row["score"]
    assert "Zoë 🎓" in out
    rc, out, err = call(capsys, "check", str(recorded))
    assert rc == 0, err
    rc, out, err = call(capsys, "run", str(recorded), "--no-store", "--until", "30", "--json", "-")
    assert rc == 0, err
    # "Q N 😀" is no command (CP refused it, nothing changed): the recording keeps it as typed;
    # its replay notes it and does not issue it
    assert 'command = "Q N 😀"' in recorded.read_text("utf-8")
    replayed = load_scenario(recorded).source_text
    assert "# at 10.0 s, not replayed (HCPQUE003E): \"Q N 😀\"" in replayed
    assert '"command": "Q N 😀"' not in out
    assert '"command": "VMRELOCATE MOVE USER LNX01 TO MEMB2"' in out


def test_an_old_session_with_surrogate_escapes_gets_one_clear_message(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _out, err = call(capsys, "run", "first-relocation", "--session", str(OLD_SESSION),
                         "--no-store", "-q")
    line = one_line(rc, err)
    assert f"{OLD_SESSION}:5: not a valid session file" in line
    assert "surrogate pair" in line and "replace each pair" in line
    table = tmp_path / "g.csv"
    rc, _out, err = call(capsys, "grade", "first-relocation", str(OLD_SESSION), "--csv",
                         str(table))
    assert rc == 1 and "1 of 1 sessions could not be graded" in err
    assert f"error: {OLD_SESSION}:5: not a valid session file" in table.read_text("utf-8")


def test_an_old_recorded_session_gets_one_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _out, err = call(capsys, "check", str(OLD_RECORDED))
    line = one_line(rc, err)
    assert f"{OLD_RECORDED}:" in line and "Unicode scalar value" in line

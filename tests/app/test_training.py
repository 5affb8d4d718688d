"""Training mode: a lesson played in the window, saved as a session and graded headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from ssisim.cli import main as cli_main
from ssisim.cli import resolve_lesson
from ssisim.engine import grade_session, load_scenario, load_session

LESSON = "lessons/01-first-relocation"
SOLUTION = Path(__file__).parents[1] / "lessons" / "solutions" / "01-first-relocation.session.toml"


def _type(qtbot, win, text: str) -> None:
    """Type a command in the console and press Enter, as the student does."""
    win.console.line.setFocus()
    qtbot.keyClicks(win.console.line, text)
    qtbot.keyClick(win.console.line, Qt.Key.Key_Return)


def _lesson(win):
    return win.model.snapshot.lesson


def _click(box: QMessageBox, text: str) -> None:
    [button] = [b for b in box.buttons() if b.text() == text]
    button.click()


def _lesson_window(make_window, qtbot):
    """A window on lesson 1 with its briefing closed, clock paused."""
    win = make_window(LESSON)
    qtbot.waitUntil(lambda: win.training.briefing_dialog is not None, timeout=5000)
    win.training.briefing_dialog.reject()
    return win


def test_opening_a_lesson_shows_the_briefing_and_its_objectives(make_window, qtbot):
    win = make_window("demo")
    assert win.docks["lesson"].isHidden()
    picker = win.training.open_lesson_picker()
    # the bundled lessons, read from their folder, in order; the first is selected
    first = picker.entries[0]
    assert first.id == "first-relocation" and first.objectives == 3
    assert picker.tree.topLevelItemCount() == len(picker.entries) >= 1
    assert picker.tree.topLevelItem(0).text(0) == "1. Your first relocation"
    assert "VMRELOCATE TEST" in picker.goal.text()
    picker.open_button.click()

    qtbot.waitUntil(lambda: win.model.snapshot.lesson is not None, timeout=10_000)
    assert win.windowTitle() == "ssisim - Lesson 1: your first relocation"
    brief = win.training.briefing_dialog
    assert brief is not None and brief.isVisible()
    text = brief.text.toPlainText()
    assert "Goal: Check that a guest can move with VMRELOCATE TEST" in text
    assert "MEMB1 goes down for maintenance tonight." in text
    assert "Pass mark 70 points" in text
    assert not win.docks["lesson"].isHidden()
    panel = win.training.panel
    assert panel.title.text() == "Your first relocation"
    qtbot.waitUntil(lambda: len(panel.row_widgets) == 3)
    assert [w.text.text() for w in panel.row_widgets] == [
        "Check LNX01's eligibility with VMRELOCATE TEST first",
        "Relocate LNX01 to MEMB2 with a quiesce under 10 s",
        "Keep LNX01 and LNXWEB running (no STOP, no logoff)"]
    assert set(panel.statuses().values()) == {"pending"}
    assert "relocated:" in panel.row_widgets[1].toolTip()  # what the kind means
    assert panel.score.text() == "Score 0 of 100"
    assert panel.clock.text().startswith("Time left 10:00")

    # Start closes the briefing and starts the clock
    win.set_speed("1x")
    brief.start_button.click()
    assert not brief.isVisible()
    qtbot.waitUntil(lambda: win.model.running and win.model.snapshot.t_s > 0, timeout=10_000)
    win.toggle_run()
    # the briefing again, from the panel
    panel.briefing_button.click()
    assert win.training.briefing_dialog.isVisible()


def test_a_lesson_played_in_the_window_grades_the_same_headless(
        make_window, qtbot, run_to, wait_console, tmp_path, monkeypatch, settings, capsys):
    win = _lesson_window(make_window, qtbot)
    panel = win.training.panel
    run_to(win, 10)
    _type(qtbot, win, "VMRELOCATE TEST USER LNX01 TO MEMB2")
    wait_console(win, "User LNX01 is eligible for relocation to MEMB2")
    qtbot.waitUntil(lambda: panel.statuses()["test"] == "met")
    assert panel.score.text() == "Score 20 of 100"
    run_to(win, 15)
    _type(qtbot, win, "VMRELOCATE MOVE USER LNX01 TO MEMB2")
    wait_console(win, "Relocation of LNX01 from MEMB1 to MEMB2 started")
    run_to(win, 40)
    # marked met as the lesson runs; it runs on a little for the effects of the move to show
    assert panel.statuses() == {"test": "met", "moved": "met", "running": "pending"}
    assert not _lesson(win).ended and panel.score.text() == "Score 80 of 100"
    assert panel.clock.text().startswith("Every task is decided")
    with qtbot.waitSignal(win.worker.paused, timeout=60_000,
                          check_params_cb=lambda _t, reason: reason == "lesson"):
        win.toggle_run()
    qtbot.waitUntil(lambda: _lesson(win).ended)
    les = _lesson(win)
    assert les.passed and les.score == 100
    assert win.model.snapshot.t_s == les.ended_s  # the clock stopped at the lesson's end
    assert not win.act_run.isEnabled()
    win.worker.run_clock()  # even asked to, it does not move on
    qtbot.wait(200)
    assert win.model.snapshot.t_s == les.ended_s
    assert panel.statuses() == {"test": "met", "moved": "met", "running": "met"}
    assert panel.score.text() == "Score 100 of 100"
    assert "PASSED" in panel.verdict.text()

    # the debrief, with what decided each objective
    qtbot.waitUntil(lambda: win.training.debrief_dialog is not None, timeout=10_000)
    dlg = win.training.debrief_dialog
    assert dlg.isVisible()
    assert "score 100 of 100" in dlg.verdict.text()
    body = dlg.text.toPlainText()
    assert "LNX01 moved to MEMB2" in body and "What decided it" in body
    assert "An idle guest changes few pages" in body  # the lesson's own debrief text

    # a time in "What decided it" shows that moment in the event log
    t_decisive = win.training.debrief["decisive_events"][-1]["t_s"]
    dlg.text.anchorClicked.emit(QUrl(f"t:{t_decisive}"))
    assert not win.docks["events"].isHidden()
    log = win.events
    [row] = log.table.selectionModel().selectedRows()
    shown = log.table_model.events[log.proxy.mapToSource(row).row()]
    assert t_decisive - 1e-6 <= shown.t_s and not log.follow.isChecked()

    # saved: the student's name is asked once, and the default file name carries it
    asked: list[str] = []
    monkeypatch.setattr(QInputDialog, "getText",
                        lambda *a, **k: (asked.append("name"), ("Ann Smith", True))[1])
    chosen: list[str] = []
    target = tmp_path / "ann.session.toml"

    def save_as(_parent, _title, default, _filter):
        chosen.append(default)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as)
    dlg.save_button.click()
    assert target.exists() and asked == ["name"]
    assert Path(chosen[0]).name == "first-relocation-ann-smith.session.toml"
    assert settings.value("training/student") == "Ann Smith"
    again = win.training.save_session_dialog(str(tmp_path / "again.session.toml"))
    assert again is not None and asked == ["name"]  # remembered

    # graded headless: the same score as the window showed
    scenario = load_scenario(resolve_lesson("first-relocation"))
    session = load_session(target)
    assert session.student == "Ann Smith"
    d = grade_session(scenario, session)
    assert d["score"] == les.score == win.training.debrief["score"]
    assert [o["status"] for o in d["objectives"]] == [o.status for o in les.objectives]
    assert d["ended_s"] == les.ended_s
    out = tmp_path / "grades.json"
    capsys.readouterr()
    assert cli_main(["grade", "first-relocation", str(target), "--json", str(out)]) == 0
    assert json.loads(out.read_text())[str(target)]["score"] == les.score
    assert "Ann Smith" in capsys.readouterr().out


def test_a_hint_costs_its_points_in_the_window_and_in_the_grade(make_window, qtbot, run_to,
                                                                 wait_console, tmp_path):
    win = _lesson_window(make_window, qtbot)
    panel = win.training.panel
    run_to(win, 10)
    _type(qtbot, win, "VMREL TEST USER LNX01 TO MEMB2")
    qtbot.waitUntil(lambda: _lesson(win).score == 20)

    assert panel.hint_button.text() == "Hint 1/2 (-5)"
    panel.hint_button.click()  # asks first: a hint costs points
    box = win.training.confirm_box
    assert box is not None and "costs 5 points" in box.text() and "would become 15" in box.text()
    _click(box, "Show the hint")
    wait_console(win, "Type VMRELOCATE TEST USER LNX01 TO MEMB2 in the CP console")
    qtbot.waitUntil(lambda: _lesson(win).score == 15)
    qtbot.waitUntil(lambda: "VMREL is enough" in panel.hints.text())
    assert panel.score.text() == "Score 15 of 100"
    assert panel.hint_button.text() == "Hint 2/2 (-10)"

    # the student ends the lesson: the move was never made
    panel.end_button.click()
    box = win.training.confirm_box
    assert box is not None and "2 objectives are still open" in box.text()
    _click(box, "End the lesson")
    qtbot.waitUntil(lambda: _lesson(win).ended)
    les = _lesson(win)
    assert les.score == 20 + 20 - 5 and not les.passed and les.hint_cost == 5
    assert panel.statuses() == {"test": "met", "moved": "failed", "running": "met"}
    assert "NOT PASSED" in panel.verdict.text()
    qtbot.waitUntil(lambda: win.training.debrief is not None, timeout=10_000)
    assert any(x["reason"] == "hint 1 used at 10 s" for x in win.training.debrief["lost"])

    win.prefs.student = "Bo"  # known already: not asked
    path = win.training.save_session_dialog(str(tmp_path / "s.session.toml"))
    assert path is not None
    text = path.read_text()
    assert 'command = "HINT"' in text and 'command = "LESSON END"' in text
    d = grade_session(load_scenario(resolve_lesson("first-relocation")), load_session(path))
    assert d["score"] == les.score == 35 and d["hint_cost"] == 5


def test_no_confirmation_when_the_preference_says_so(make_window, qtbot, wait_console):
    win = _lesson_window(make_window, qtbot)
    win.prefs.confirm_hints = False
    win.training.panel.hint_button.click()
    assert win.training.confirm_box is None
    wait_console(win, "Hint 1 of 2 (costs 5 points):")


def test_a_scenario_without_a_lesson_shows_no_lesson_panel(make_window, qtbot, tmp_path):
    win = make_window("demo")
    assert win.model.snapshot.lesson is None
    assert win.docks["lesson"].isHidden()
    assert not win.docks["lesson"].toggleViewAction().isVisible()
    assert not win.training.act_hint.isEnabled() and not win.training.act_end.isEnabled()
    assert win.training.briefing_dialog is None

    # objectives without a [lesson] table: the objectives, no briefing and no hints
    text = resolve_lesson("first-relocation").read_text()
    start, end = text.index("[lesson]"), text.index("[run]")
    plain = tmp_path / "objectives.toml"
    plain.write_text(text[:start] + text[end:])
    assert win.load_scenario_file(str(plain))
    qtbot.waitUntil(lambda: win.model.snapshot.lesson is not None, timeout=10_000)
    panel = win.training.panel
    assert not win.docks["lesson"].isHidden()
    qtbot.waitUntil(lambda: len(panel.row_widgets) == 3)
    assert panel.briefing_button.isHidden() and panel.hint_button.isHidden()
    assert win.training.briefing_dialog is None

    # and back to a plain scenario: the panel goes away
    assert win.load_scenario_file(str(resolve_lesson("demo")))
    qtbot.waitUntil(lambda: win.model.snapshot.lesson is None
                    and win.docks["lesson"].isHidden(), timeout=10_000)


def test_gui_plays_a_recorded_session_in_a_lesson(tmp_path):
    out = tmp_path / "lesson.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    code = "import sys; from ssisim.cli import main; sys.exit(main(sys.argv[1:]))"
    res = subprocess.run(
        [sys.executable, "-c", code, "gui", "first-relocation", "--session", str(SOLUTION),
         "--run-until", "600", "--screenshot", str(out), "--size", "1200x800"],
        check=False, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert QImage(str(out)).width() == 1200


def test_gui_refuses_a_session_of_another_lesson(tmp_path, capsys):
    other = tmp_path / "other.session.toml"
    other.write_text(SOLUTION.read_text().replace('"first-relocation"', '"busy-guest"'))
    assert cli_main(["gui", "first-relocation", "--session", str(other)]) == 1
    assert "recorded in 'busy-guest', not in 'first-relocation'" in capsys.readouterr().err


def _commands_run(win) -> list[str]:
    """Every command the simulation has run so far, as its command log has it."""
    return [c[1] for c in win.worker.call(lambda sim: list(sim.command_log)).result(timeout=20)]


def test_end_lesson_from_the_menu_asks_as_the_button_does(make_window, qtbot):
    win = _lesson_window(make_window, qtbot)
    act = win.training.act_end
    lesson_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Lesson")
    assert act in lesson_menu.actions() and act.isEnabled()
    act.trigger()  # Lesson > End lesson...: the menu passes checked=False to its slot
    box = win.training.confirm_box
    assert box is not None and "objectives are still open" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()  # the student says no
    assert win.training.confirm_box is None
    assert "LESSON END" not in _commands_run(win)
    assert not _lesson(win).ended and act.isEnabled()
    act.trigger()
    _click(win.training.confirm_box, "End the lesson")  # and now yes
    qtbot.waitUntil(lambda: _lesson(win).ended, timeout=10_000)
    assert "LESSON END" in _commands_run(win)


def test_the_hint_shortcut_asks_what_it_costs(make_window, qtbot, wait_console):
    win = _lesson_window(make_window, qtbot)
    assert win.prefs.confirm_hints
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    qtbot.keyClick(win, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)  # Ctrl+H
    box = win.training.confirm_box
    assert box is not None and "costs 5 points" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert "HINT" not in _commands_run(win)
    assert _lesson(win).hints_used == 0 and _lesson(win).hint_cost == 0
    win.training.act_hint.trigger()  # the menu's Hint asks too
    _click(win.training.confirm_box, "Show the hint")
    wait_console(win, "Hint 1 of 2 (costs 5 points):")
    qtbot.waitUntil(lambda: _lesson(win).hints_used == 1)
    assert _commands_run(win).count("HINT") == 1

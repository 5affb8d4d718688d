"""File dialogs open where the user keeps files, and work is not thrown away without a word."""

from __future__ import annotations

import locale
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ssisim.app.commands import only_asks, relocate_command
from ssisim.app.main_window import MainWindow
from ssisim.cli import resolve_scenario
from ssisim.engine import load_scenario, load_session, parse_command


def _options(args: tuple, kwargs: dict) -> QFileDialog.Option:
    """The options a static QFileDialog call was given (none: the defaults)."""
    opts = kwargs.get("options")
    for a in args:
        if isinstance(a, QFileDialog.Option):
            opts = a
    return opts if opts is not None else QFileDialog.Option(0)


def test_file_dialogs_open_at_home_then_where_the_user_saved_last(
        make_window, qtbot, monkeypatch, tmp_path, settings):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    program = tmp_path / "program"  # where the program was started from
    program.mkdir()
    monkeypatch.chdir(program)
    win = make_window("demo")
    asked: list[tuple[str, str, QFileDialog.Option]] = []
    answer = {"path": ""}

    def dialog(_parent, caption, folder, *args, **kwargs):
        asked.append((caption, folder, _options(args, kwargs)))
        return (answer["path"], "") if "Directory" not in caption else answer["path"]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda p, caption, folder, *a, **k: dialog(p, caption + " Directory",
                                                                   folder, *a, **k))
    # the first time: the user's home, not the program's folder
    new_folder = home / "ssi runs"
    new_folder.mkdir()  # made in the dialog ("Create New Folder")
    answer["path"] = str(new_folder / "rec.toml")
    win.record_session_dialog()
    assert asked[-1][1] == str(home) != str(program)
    assert (new_folder / "rec.toml").exists()
    # no option that takes away "Create New Folder"
    assert not asked[-1][2] & QFileDialog.Option.ReadOnly
    # the folder is remembered in the settings at once, not only when the window closes
    settings.sync()
    assert settings.value("prefs/last_dir") == str(new_folder)

    answer["path"] = ""  # the user cancels: nothing is written
    win.export_report()
    assert asked[-1][1] == str(new_folder)
    assert not asked[-1][2] & QFileDialog.Option.ReadOnly
    win.save_scenario()
    assert asked[-1][1] == str(new_folder)
    win.prefs.student = "Bo"
    win.training.save_session_dialog()
    assert Path(asked[-1][1]).parent == new_folder  # the default file name, in that folder

    # a bundled lesson opened from the picker does not make the program's folder the place
    # to save to
    win.training.interactive = False
    picker = win.training.open_lesson_picker()
    picker.open_button.click()
    qtbot.waitUntil(lambda: win.model.snapshot.lesson is not None, timeout=10_000)
    assert win._dir() == str(new_folder)

    # next time the program starts, the same folder; gone, the home again
    again = MainWindow(load_scenario(resolve_scenario("demo")), settings, start_worker=False)
    qtbot.addWidget(again)
    try:
        assert again._dir() == str(new_folder)
        (new_folder / "rec.toml").unlink()
        new_folder.rmdir()
        assert again._dir() == str(home)
    finally:
        again.shutdown()


def _answer(monkeypatch, button: QMessageBox.StandardButton) -> list[str]:
    """Answer every question with ``button``; the questions asked are listed."""
    asked: list[str] = []

    def question(_parent, _title, text, *args, **kwargs):
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def test_a_lesson_in_progress_is_not_discarded_without_asking(make_window, qtbot, run_to,
                                                            monkeypatch):
    win = make_window("lessons/01-first-relocation")
    qtbot.waitUntil(lambda: win.training.briefing_dialog is not None, timeout=5000)
    win.training.briefing_dialog.reject()
    # opened, not started: nothing to lose, nothing asked (the autouse fixture fails if asked)
    assert win.unsaved_work() is None
    run_to(win, 5)
    title, gen = win.windowTitle(), win.model.generation

    asked = _answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    assert not win.load_scenario_file(str(resolve_scenario("demo")))  # Ctrl+O
    assert len(asked) == 1 and "The lesson is in progress" in asked[0]
    assert "open \u201cDemo cluster\u201d" in asked[0]
    qtbot.wait(200)
    assert win.windowTitle() == title and win.model.generation == gen
    assert win.model.snapshot.lesson is not None and win.model.snapshot.t_s == 5
    win.close()  # Ctrl+Q: asked too, and the window stays
    assert len(asked) == 2 and "quit" in asked[1]
    assert win.isVisible() and win.worker.isRunning()

    asked = _answer(monkeypatch, QMessageBox.StandardButton.Discard)
    assert win.load_scenario_file(str(resolve_scenario("demo")))
    assert len(asked) == 1
    qtbot.waitUntil(lambda: win.model.snapshot.lesson is None and win.model.generation > gen,
                    timeout=10_000)
    assert win.unsaved_work() is None  # demo at t = 0: nothing of its own yet


def test_commands_not_recorded_are_not_discarded_without_asking(make_window, qtbot, monkeypatch,
                                                               tmp_path, wait_console):
    win = make_window("demo")
    win.issue_text("Q N")
    win.issue_text("IND LOAD")
    assert win.unsaved_work() is None  # questions change nothing worth keeping
    win.issue(relocate_command("LNXIDL1", "MEMB2"), "drag")
    wait_console(win, "Relocation of LNXIDL1 from MEMB1 to MEMB2 started")
    assert "1 command issued here is not recorded" in win.unsaved_work()
    asked = _answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    win.close()
    assert len(asked) == 1 and win.isVisible()
    # recorded: quitting asks nothing more (the autouse fixture fails on any question)
    monkeypatch.undo()
    target = tmp_path / "session.toml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: (_ for _ in ()).throw(
        AssertionError("asked after recording")))
    win.record_session_dialog()
    assert "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2" in target.read_text()
    assert win.unsaved_work() is None
    win.close()
    assert not win.isVisible() and not win.worker.isRunning()


def test_only_asks_knows_cps_questions():
    for text in ("Q N", "query names", "IND LOAD", "AT MEMB2 CMD Q ALLOC PAGE",
                 "VMRELOCATE TEST USER LNX01 TO MEMB2", "VMREL STATUS"):
        assert only_asks(parse_command(text)), text
    for text in ("VMRELOCATE MOVE USER LNX01 TO MEMB2", "FORCE LNX01", "XAUTOLOG LNX01",
                 "AT MEMB1 CMD FORCE LNX01", "WORKLOAD LNX01 START IDLE"):
        assert not only_asks(parse_command(text)), text


@pytest.fixture
def ascii_locale():
    """A locale whose encoding is not UTF-8 (as Windows' cp1252 is): files written with the
    locale's encoding could not hold an emoji. Qt switches a C locale to UTF-8 when it starts,
    so the test sets it back for its own duration."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    assert locale.getpreferredencoding(False).lower() not in ("utf-8", "utf8")
    yield
    locale.setlocale(locale.LC_CTYPE, old)


def test_files_the_window_writes_are_utf8_whatever_the_locale(make_window, qtbot, monkeypatch,
                                                              tmp_path, ascii_locale):
    source = resolve_scenario("demo").read_text(encoding="utf-8").replace(
        'name = "Demo cluster"', 'name = "Demo cluster \U0001F680 Zo\u00eb"', 1)
    scenario = tmp_path / "emoji.toml"
    scenario.write_text(source, encoding="utf-8")
    win = make_window("demo")
    assert win.load_scenario_file(str(scenario))
    qtbot.waitUntil(lambda: win.model.generation >= 2, timeout=20_000)
    win.prefs.student = "Zo\u00eb \U0001F642"
    win.issue(relocate_command("LNXIDL1", "MEMB2"), "drag")
    qtbot.waitUntil(lambda: bool(win.model.snapshot.relocations), timeout=10_000)
    answers = iter([str(tmp_path / "saved.toml"), str(tmp_path / "recorded.toml")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (next(answers), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: pytest.fail(text))

    win.save_scenario()
    assert (tmp_path / "saved.toml").read_text(encoding="utf-8") == source
    win.record_session_dialog()
    recorded = load_scenario(tmp_path / "recorded.toml")
    assert recorded.name == "Demo cluster \U0001F680 Zo\u00eb"
    assert recorded.timeline[-1].command == "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2"
    saved = win.training.save_session_dialog(str(tmp_path / "lesson.session.toml"))
    assert saved is not None
    session = load_session(saved)
    assert session.student == "Zo\u00eb \U0001F642"
    assert session.lesson == "Demo cluster \U0001F680 Zo\u00eb"
    assert [c.command for c in session.commands] == ["VMRELOCATE MOVE USER LNXIDL1 TO MEMB2"]


def test_a_scenario_that_is_likely_mistyped_opens_with_a_warning(make_window, qtbot, tmp_path):
    """``central = 2`` is 2 MB: the scenario runs as written, and the status bar says why it
    will crawl (as ``ssisim check`` does); a plausible one opens without a word."""
    source = resolve_scenario("demo").read_text(encoding="utf-8")
    typo = tmp_path / "typo.toml"
    typo.write_text(source.replace('central = "', 'central = 2  # "', 1), encoding="utf-8")
    win = make_window("demo")
    assert win.load_scenario_file(str(typo))
    message = win.statusBar().currentMessage()
    assert message.startswith("Warning: member ") and "central = 2M" in message, message
    assert '"2G" or "2T"?' in message and str(typo) not in message
    win.statusBar().clearMessage()
    assert win.load_scenario_file(str(resolve_scenario("demo")))
    assert not win.statusBar().currentMessage().startswith("Warning")

"""Training mode: lessons in the window (picker, briefing, Lesson panel, hints, debrief, sessions).

The window owns one ``Training``; it adds the Lesson dock, the Lesson menu and the File menu's
lesson actions. Everything it does to the simulation is a typed command issued through the
window (``HINT``, ``LESSON END``), so a session recorded here replays and grades headless to the
same score; questions (the debrief, the session file) go to the worker with ``worker.call``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMenuBar,
    QMessageBox,
)

from ssisim.engine import ScenarioConfig, Simulation, session_text

from . import preferences as prefs_io
from .commands import hint_command, lesson_command
from .frames import Frame
from .futures import when_done
from .lesson_dialogs import BriefingDialog, DebriefDialog, LessonPicker, lesson_entries
from .lesson_panel import LessonPanel


class TrainingHost(Protocol):
    """What training mode uses of its window (``MainWindow`` is one): its model, worker,
    preferences and settings, its docks and actions, and a few of its services. Training mode
    is written against this, so the window can own it without an import circle."""

    model: Any
    worker: Any
    prefs: Any
    settings: Any
    docks: dict[str, Any]
    scenario: Any
    events: Any

    def issue(self, command: Any, source: str = "") -> int | None: ...
    def toggle_run(self) -> None: ...
    def load_scenario_file(self, *args: Any, **kwargs: Any) -> Any: ...
    def mark_saved(self, *args: Any, **kwargs: Any) -> Any: ...
    def remember_dir(self, folder: str | Path) -> None: ...
    def statusBar(self) -> Any: ...
    def resizeDocks(self, *args: Any) -> None: ...
    def width(self) -> int: ...
    def _dock(self, name: str, title: str, widget: Any, area: Any) -> None: ...
    def _action(self, text: str, slot: Any, shortcut: str | None = None,
                tip: str | None = None) -> Any: ...
    def _keep(self, w: Any) -> None: ...
    def _dir(self) -> str: ...


def session_key(scenario: ScenarioConfig) -> str:
    """What a session file names its scenario by: the lesson's id, else the scenario's name."""
    return scenario.lesson.id if scenario.lesson is not None else scenario.name


def default_session_name(scenario: ScenarioConfig, student: str) -> str:
    """``<lesson id>-<student>.session.toml``, in letters, digits and dashes."""
    def slug(s: str) -> str:
        return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()

    who = slug(student)
    return f"{slug(session_key(scenario)) or 'session'}{'-' + who if who else ''}.session.toml"


class Training(QObject):
    """Training mode of one window.

    Parameters
    ----------
    win : TrainingHost
        The window; its docks must exist and its layout must not be restored yet (the Lesson
        dock takes part in the saved layout).
    """

    def __init__(self, win: TrainingHost) -> None:
        super().__init__(win)
        self.win = win
        #: Show the briefing and the debrief by themselves (off for screenshots).
        self.interactive = True
        self.panel = LessonPanel()
        win._dock("lesson", "Lesson", self.panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.dock = win.docks["lesson"]
        self.dock.hide()
        self.dock.toggleViewAction().setVisible(False)
        #: The latest debrief (``LessonTracker.debrief()``), once the lesson has ended.
        self.debrief: dict[str, Any] | None = None
        self.briefing_dialog: BriefingDialog | None = None
        self.debrief_dialog: DebriefDialog | None = None
        self.picker: LessonPicker | None = None
        #: The confirmation asked last (hint or end), while it is open.
        self.confirm_box: QMessageBox | None = None
        self._scenario_shown: ScenarioConfig | None = None
        self._debrief_asked = False
        self._ended = False

        a = win._action
        self.act_open_lesson = a("Open &lesson...", self.open_lesson_picker, "Ctrl+Shift+L",
                                 "Choose a lesson: briefing, objectives, hints and a score")
        self.act_save_session = a("Save lesson sess&ion...", lambda: self.save_session_dialog(),
                                  None,
                                  "Save the commands you issued in this lesson as a session "
                                  "file for the trainer to grade (`ssisim grade`); not a "
                                  "scenario (for that: Record a replayable scenario)")
        self.act_briefing = a("&Briefing...", self.show_briefing, None,
                              "Read the lesson's briefing again")
        self.act_hint = a("&Hint", self.request_hint, "Ctrl+H",
                          "Show the lesson's next hint (it costs points)")
        self.act_status = a("Objectives in the &console",
                            lambda: win.issue(lesson_command("STATUS"), "menu"), None,
                            "LESSON STATUS: the objectives and the score as a table")
        self.act_end = a("&End lesson...", self.request_end, None,
                         "End the lesson now; objectives not met yet fail")
        self.act_debrief = a("&Debrief...", self.show_debrief, None,
                             "The lesson's debrief: score, objectives and why")
        self._lesson_actions = (self.act_briefing, self.act_hint, self.act_status, self.act_end,
                                self.act_debrief)
        for act in self._lesson_actions:
            act.setEnabled(False)

        self.panel.hint_requested.connect(self.request_hint)
        self.panel.end_requested.connect(self.request_end)
        self.panel.briefing_requested.connect(self.show_briefing)
        self.panel.debrief_requested.connect(self.show_debrief)
        win.model.reset.connect(self._on_reset)
        win.model.updated.connect(self._on_frame)
        win.worker.paused.connect(self._on_paused)

    # -- menus and layout ----------------------------------------------------------------------
    def add_menu(self, mb: QMenuBar) -> QMenu:
        """The Lesson menu."""
        m = mb.addMenu("&Lesson")
        m.addAction(self.act_open_lesson)
        m.addAction(self.act_briefing)
        m.addSeparator()
        for act in (self.act_hint, self.act_status, self.act_end, self.act_debrief):
            m.addAction(act)
        m.addSeparator()
        m.addAction(self.act_save_session)
        return m

    def default_layout(self) -> None:
        """The Lesson dock on the left, about a fifth of the window wide (a little more in a
        small window, where its text would wrap to many lines, but never more than 330 px
        there: the cluster needs the room)."""
        if self.dock.isHidden():
            return
        w = self.win.width()
        self.win.resizeDocks([self.dock], [max(min(330, int(w * 0.29)), int(w * 0.21))],
                             Qt.Orientation.Horizontal)

    # -- following the simulation --------------------------------------------------------------
    def _scenario(self) -> ScenarioConfig:
        return self.win.scenario

    def _on_reset(self) -> None:
        """A new simulation: set the panel up for its scenario (and brief a new lesson)."""
        sc = self._scenario()
        self.panel.set_scenario(sc)
        has = bool(sc.objectives)
        self.dock.toggleViewAction().setVisible(has)
        self.debrief = None
        self._debrief_asked = False
        self._ended = False
        if self.debrief_dialog is not None:
            self.debrief_dialog.close()
        self.act_open_lesson.setEnabled(True)
        self.act_briefing.setEnabled(sc.lesson is not None)
        self.act_hint.setEnabled(bool(sc.lesson is not None and sc.lesson.hints))
        self.act_status.setEnabled(has)
        self.act_end.setEnabled(has)
        self.act_debrief.setEnabled(False)
        self._set_clock_enabled(True)
        if sc is self._scenario_shown:
            return  # the same lesson from the beginning: no new briefing
        self._scenario_shown = sc
        if has:
            first = self.dock.isHidden()
            self.dock.show()
            self.dock.raise_()
            if first:
                self.default_layout()
        else:
            self.dock.hide()
        if sc.lesson is not None and self.interactive:
            self.show_briefing()

    def _on_frame(self, frame: Frame) -> None:
        les = frame.snapshot.lesson
        if les is None:
            return
        self.panel.show_lesson(les, frame.snapshot.t_s)
        self.act_hint.setEnabled(not les.ended and les.hints_used < les.hints_total)
        self.act_end.setEnabled(not les.ended)
        if les.ended and not self._ended:
            self._ended = True
            self._set_clock_enabled(False)
            self._ask_debrief()

    def _set_clock_enabled(self, on: bool) -> None:
        """Run and Step do nothing once the lesson has ended: say so on them."""
        w = self.win
        for act, tip in ((w.act_run, "Run or pause the simulated clock"),
                         (w.act_step, "Advance one step and pause")):
            act.setEnabled(on)
            act.setToolTip(tip if on else "The lesson has ended: its clock stays stopped. "
                           "Reset (Ctrl+R) starts the lesson again.")

    def _on_paused(self, t: float, reason: str) -> None:
        if reason != "lesson":
            return
        self.win.model.running = False
        self.win.statusBar().showMessage(
            f"The lesson has ended at t = {t:,.0f} s: the clock stays stopped. Reset (Ctrl+R) "
            "starts it again.", 10000)

    def _ask_debrief(self) -> None:
        if self._debrief_asked:
            return
        self._debrief_asked = True
        gen = self.win.model.generation

        def debrief(sim: Simulation) -> dict[str, Any] | None:
            return sim.lesson.debrief() if sim.lesson is not None else None

        when_done(self, self.win.worker.call(debrief),
                  lambda d: self._debrief_ready(gen, d))

    def _debrief_ready(self, generation: int, d: dict[str, Any] | None) -> None:
        if d is None or generation != self.win.model.generation:
            return  # another simulation began meanwhile
        self.debrief = d
        self.act_debrief.setEnabled(True)
        if self.interactive:
            self.show_debrief()

    # -- the lesson ----------------------------------------------------------------------------
    def open_lesson_picker(self) -> LessonPicker:
        """The bundled lessons (read from their folder now) and a way to open a file."""
        dlg = LessonPicker(lesson_entries(), self.win._dir(), self.win)
        sc = self._scenario()
        if sc.lesson is not None:
            dlg.select(sc.lesson.id)
        dlg.chosen.connect(self.open_lesson)
        self.picker = dlg
        self.win._keep(dlg)
        dlg.open()
        return dlg

    def open_lesson(self, path: str) -> bool:
        """Load a lesson file like a scenario; training mode follows from its objectives."""
        return self.win.load_scenario_file(path)

    def show_briefing(self) -> BriefingDialog | None:
        """The lesson's briefing; its Start button starts the clock."""
        sc = self._scenario()
        if sc.lesson is None:
            return None
        if self.briefing_dialog is not None:
            self.briefing_dialog.close()
        dlg = BriefingDialog(sc, self.win)
        dlg.start_requested.connect(self.start)
        dlg.finished.connect(lambda _r: setattr(self, "briefing_dialog", None)
                             if self.briefing_dialog is dlg else None)
        self.briefing_dialog = dlg
        self.win._keep(dlg)
        dlg.open()
        return dlg

    def start(self) -> None:
        """Start the clock (unless it runs, or the lesson is over)."""
        if not self.win.model.running and not self._ended:
            self.win.toggle_run()

    def request_hint(self, *, confirm: bool | None = None) -> None:
        """Issue ``HINT``, after saying what it costs (unless the preference says not to)."""
        les = self.win.model.snapshot.lesson if self.win.model.snapshot is not None else None
        costs = self.panel.hint_costs
        if les is None or les.ended or les.hints_used >= len(costs):
            return
        n = les.hints_used
        ask = self.win.prefs.confirm_hints if confirm is None else confirm
        if not ask:
            self.win.issue(hint_command(), "hint button")
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Hint",
                          f"Hint {n + 1} of {len(costs)} costs {costs[n]:g} points: your score "
                          f"so far, {les.score:g}, would become {max(0.0, les.score - costs[n]):g}"
                          f" (pass mark {les.pass_score:g}). Show it?",
                          QMessageBox.StandardButton.NoButton, self.win)
        yes = box.addButton("Show the hint", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        again = QCheckBox("Do not ask again (Preferences can bring this back)")
        box.setCheckBox(again)

        def done() -> None:
            if box.clickedButton() is yes:
                if again.isChecked():
                    self.win.prefs.confirm_hints = False
                    self._save_prefs()
                self.win.issue(hint_command(), "hint button")

        self._confirm(box, done)

    def request_end(self, *, confirm: bool = True) -> None:
        """Issue ``LESSON END`` (after a confirmation): the score becomes final."""
        les = self.win.model.snapshot.lesson if self.win.model.snapshot is not None else None
        if les is None or les.ended:
            return
        if not confirm:
            self.win.issue(lesson_command("END"), "lesson panel")
            return
        open_ = sum(1 for o in les.objectives if o.status == "pending")
        box = QMessageBox(QMessageBox.Icon.Warning, "End the lesson",
                          f"End the lesson now? {open_} objectives are still open: those to "
                          "achieve fail, those to keep are met. The score is final "
                          f"({les.score:g} of {les.max_score:g} so far).",
                          QMessageBox.StandardButton.NoButton, self.win)
        yes = box.addButton("End the lesson", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        self._confirm(box, lambda: self.win.issue(lesson_command("END"), "lesson panel")
                      if box.clickedButton() is yes else None)

    def _confirm(self, box: QMessageBox, done: Callable[[], object]) -> None:
        def finished(_r: int) -> None:
            if self.confirm_box is box:
                self.confirm_box = None
            done()

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    def show_debrief(self) -> DebriefDialog | None:
        """The debrief of the lesson that has ended."""
        if self.debrief is None:
            return None
        if self.debrief_dialog is not None:
            self.debrief_dialog.close()
        dlg = DebriefDialog(self.debrief, self.win)
        dlg.save_requested.connect(lambda: self.save_session_dialog())
        dlg.time_clicked.connect(self.show_time)
        dlg.finished.connect(lambda _r: setattr(self, "debrief_dialog", None)
                             if self.debrief_dialog is dlg else None)
        self.debrief_dialog = dlg
        self.win._keep(dlg)
        dlg.setWindowModality(Qt.WindowModality.NonModal)
        dlg.show()
        return dlg

    def show_time(self, t_s: float) -> None:
        """Show the events of simulated time ``t_s`` in the event log."""
        self.win.docks["events"].show()
        self.win.docks["events"].raise_()
        self.win.events.select_time(t_s)

    # -- sessions ------------------------------------------------------------------------------
    def student_name(self, ask: bool = True) -> str:
        """The student's name: the one kept in the preferences, or asked once."""
        name = self.win.prefs.student.strip()
        if name or not ask:
            return name
        name, ok = QInputDialog.getText(self.win, "Save lesson session",
                                        "Your name, saved in the session file for the trainer:")
        name = name.strip() if ok else ""
        if name:
            self.win.prefs.student = name
            self._save_prefs()
        return name

    def session_file_text(self, student: str, timeout_s: float = 10.0) -> str:
        """The session file's text (``session_text``, on the worker thread)."""
        return str(self.win.worker.call(lambda sim: session_text(sim, student))
                   .result(timeout=timeout_s))

    def save_session_dialog(self, path: str | None = None) -> Path | None:
        """Save the commands issued so far as a session file; returns where, or None."""
        student = self.student_name()
        if not student:
            return None
        try:
            text = self.session_file_text(student)
        except FutureTimeout:
            QMessageBox.warning(self.win, "Session not saved",
                                "The simulation did not answer in time.")
            return None
        if path is None:
            default = str(Path(self.win._dir()) / default_session_name(self._scenario(), student))
            path, _ = QFileDialog.getSaveFileName(self.win, "Save lesson session", default,
                                                  "Session files (*.session.toml);;"
                                                  "All files (*)")
            if not path:
                return None
        p = Path(path)
        try:
            p.write_text(text, encoding="utf-8")
        except OSError as e:
            QMessageBox.warning(self.win, "Session not saved", f"{p}: {e.strerror}")
            return None
        self.win.remember_dir(p.parent)
        self.win.mark_saved()
        sc = self._scenario()
        what = f"ssisim grade {sc.lesson.id} {p.name}" if sc.lesson is not None \
            else f"ssisim run SCENARIO --session {p.name}"
        self.win.statusBar().showMessage(f"Session saved to {p}; `{what}` replays it.", 10000)
        return p

    def _save_prefs(self) -> None:
        if self.win.settings is not None:
            prefs_io.save(self.win.settings, self.win.prefs)


__all__ = ["Training", "default_session_name", "session_key"]

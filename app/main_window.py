"""The main window: the cluster in the middle, relocation, console, plots and events in docks.

It owns the simulation worker and the redraw timer. Every gesture becomes a typed command
(``ssisim.engine.Command``): the console shows its canonical text and the worker gets the object;
what is typed in the console is parsed here first. Nothing here touches the ``Simulation`` itself.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QEvent,
    QObject,
    QPoint,
    QSettings,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QToolBar,
    QWidget,
)

from ssisim.engine import (
    Command,
    CPError,
    ScenarioConfig,
    ScenarioError,
    load_scenario,
    parse_command,
    record_session,
    scenario_warnings,
)

from . import gc_guard
from . import preferences as prefs_io
from .cluster_editor import ClusterEditor
from .cluster_view import MODES, ClusterView
from .commands import only_asks, relocate_command
from .completion import CommandHistory
from .console import Console
from .evacuate_dialog import EvacuateDialog
from .event_log import EventLog
from .frames import Frame
from .futures import when_done
from .guest_detail import GuestDetail
from .guest_menu import build_guest_menu
from .guest_table import GuestTable
from .lazy_panel import LazyPanel
from .mailbox import Mailbox
from .member_plots import MemberPlots
from .model import SessionModel
from .moves_panel import MovesPanel
from .pacing import SPEEDS, Watch
from .preferences import Preferences
from .preferences_dialog import PreferencesDialog
from .relocate_dialog import RelocateDialog
from .relocation_panel import RelocationPanel
from .sweep_dialog import SweepDialog
from .theme import apply_theme
from .training import Training
from .worker import SimWorker
from .workload_dialog import WorkloadDialog

#: Redraw period (ms): 40 redraws a second at most, whatever the simulation's speed.
REDRAW_MS = 25

SHORTCUTS = (
    ("Space", "run / pause the simulated clock"),
    ("F10", "one step, then pause"),
    ("Ctrl+1 ... Ctrl+4", "speed 1x, 10x, 100x, as fast as possible"),
    ("Ctrl+L", "type a command in the console"),
    ("Ctrl+R", "start the scenario again from the beginning"),
    ("Ctrl+O / Ctrl+S", "open a scenario / save it"),
    ("Ctrl+Shift+S", "record a replayable scenario (the scenario and the commands issued)"),
    ("Ctrl+Shift+L", "open a lesson (training mode)"),
    ("Ctrl+H", "the lesson's next hint (it costs points)"),
    ("Ctrl+T", "compact or detailed cluster view"),
    ("Shift while dropping", "ask for the relocation options"),
)


def _bundled(path: Path) -> bool:
    """True for a file shipped with the program (a bundled scenario or lesson)."""
    from ssisim.engine import bundled_dir

    root = bundled_dir().resolve()
    return root in path.resolve().parents


def _fmt_clock(t: float) -> str:
    s = int(t)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


#: Posted after a frame is applied, at the priority of Qt's paint requests (``UpdateRequest``,
#: low): delivered once what the frame changed is painted.
PAINTED = QEvent.Type(QEvent.registerEventType())


class _AfterPaint(QObject):
    """Sets ``done`` when the ``PAINTED`` event posted to it arrives."""

    def __init__(self, done: threading.Event, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.done = done

    def event(self, e: QEvent) -> bool:
        """The frame is painted: the worker may step again."""
        if e.type() == PAINTED:
            self.done.set()
            return True
        return super().event(e)


class MainWindow(QMainWindow):
    """The desktop app's window for one scenario at a time.

    Parameters
    ----------
    scenario : ScenarioConfig
        The scenario to simulate.
    settings : QSettings, optional
        Where preferences and the window layout are kept; None keeps nothing (screenshots).
    start_worker : bool
        Start the simulation thread now (tests may want to connect to it first).
    db_path : Path, optional
        The run database where runs are stored (File > Export report); None: the default one
        in the user data dir (``ssisim gui --db``).
    """

    def __init__(self, scenario: ScenarioConfig, settings: QSettings | None = None,
                 start_worker: bool = True, db_path: Path | None = None) -> None:
        super().__init__()
        self.scenario = scenario
        #: Where runs are stored (None: the run store's default, in the user data dir).
        self.db_path = db_path
        self.settings = settings
        self.prefs: Preferences = prefs_io.load(settings) if settings is not None \
            else Preferences()
        apply_theme(self.prefs.theme)
        self.model = SessionModel()
        self.mailbox = Mailbox()
        self.worker = SimWorker(scenario, self.mailbox)
        self.worker.pause_at_end = self.prefs.pause_at_end
        self.worker.watch_moves = self.prefs.watch_moves
        self.history = CommandHistory(self.prefs.console_history)
        self._speed_marks: list[tuple[float, float]] = []
        self._dialogs: list[QDialog] = []
        self._closed = False
        #: Ask before a lesson in progress or commands not recorded are discarded (opening
        #: another scenario or lesson, quitting); off where nobody is there to answer.
        self.ask_before_discarding = True
        #: Commands issued here since the simulation began or was last saved.
        self._unsaved: list[Command] = []
        self.setWindowTitle(f"ssisim - {scenario.name}")

        self.cluster = ClusterView(self.model)
        self.setCentralWidget(self.cluster)
        self.relocation = RelocationPanel(self.model)
        self.moves = MovesPanel(self.model)
        self.console = Console(self.model, self.history)
        self.events = EventLog(self.model)
        self.members = MemberPlots(self.model)
        self.detail = GuestDetail(self.model)
        self.table = GuestTable(self.model)
        self.cluster.filter_changed.connect(self.table.set_filter)
        self.docks: dict[str, QDockWidget] = {}
        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        self.setCorner(Qt.Corner.BottomRightCorner, right)
        self.setCorner(Qt.Corner.TopRightCorner, right)
        self._dock("relocation", "Relocation", self.relocation, right)
        self._dock("moves", "Migrations and pauses", self.moves, right)
        self._dock("console", "CP console", self.console, right)
        self._dock("events", "Events", self.events, right)
        self._dock("members", "Members over time", self.members, bottom)
        self._dock("guest", "Guest detail", self.detail, bottom)
        self._dock("guests", "Guests", self.table, bottom)
        self.tabifyDockWidget(self.docks["relocation"], self.docks["moves"])
        self.tabifyDockWidget(self.docks["console"], self.docks["events"])
        self.docks["relocation"].raise_()
        self.tabifyDockWidget(self.docks["members"], self.docks["guest"])
        self.tabifyDockWidget(self.docks["guest"], self.docks["guests"])
        self.docks["console"].raise_()
        self.docks["members"].raise_()
        self.training = Training(self)  # the Lesson dock and actions, before the layout
        #: Work off the GUI thread that is not the simulation's (drawing a report's charts).
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ssisim-bg")
        self._build_actions()
        self.statusBar()
        self.compile_label = QLabel("")
        self.speed_label = QLabel("")
        #: Watch mode at work: what is watched and at what speed (hidden otherwise).
        self.watch_label = QLabel("")
        self.watch_label.setToolTip(
            "Watch mode slows the clock while a guest moves, so that its passes can be "
            "followed; the speed you chose returns when it ends. Pick a speed to keep it, or "
            "turn watch mode off in the preferences.")
        # it changes the speed the user chose: it must be seen
        self.watch_label.setStyleSheet("QLabel { font-weight: bold; padding: 0 6px; "
                                       "border-radius: 3px; background: palette(highlight); "
                                       "color: palette(highlighted-text); }")
        self.watch_label.hide()
        self.watch: Watch | None = None
        self.statusBar().addPermanentWidget(self.watch_label)
        self.statusBar().addPermanentWidget(self.speed_label)
        self.statusBar().addPermanentWidget(self.compile_label)

        self.cluster.relocate_requested.connect(self.relocate)
        self.cluster.menu_requested.connect(self.show_guest_menu)
        self.console.command_entered.connect(lambda text: self.issue_text(text))
        self.worker.warmup_started.connect(self._compiling)
        self.worker.warmup_finished.connect(self._compiled)
        self.worker.paused.connect(self._paused)
        self.worker.failed.connect(self._failed)
        self._redrawn_at = -1e9  # when a frame was last applied (monotonic seconds)
        self.worker.published.connect(self._published)
        self.model.selection_changed.connect(self._selected)
        self._single_layout = False
        self._reloc_was_visible = True
        self.model.reset.connect(self._fit_docks_to_scenario)
        # the new simulation and its views are built: leave them out of the timed collections
        # (a collection walking a thousand guests' objects is a pause the user sees)
        self.model.reset.connect(lambda: QTimer.singleShot(0, gc_guard.settle))
        self._large: bool | None = None  # the scenario shown has many guests
        self.model.events_added.connect(self._raise_moves)

        self.resize(1600, 1000)
        self._laid_out = self._restore_layout()
        self.set_speed(self.prefs.speed)

        self._after_paint = _AfterPaint(self.worker.gui_idle, self)
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()
        self._gc_held = False
        if start_worker:
            gc_guard.hold()  # no garbage collection on the simulation thread (gc_guard.py)
            self._gc_held = True
            self.worker.start()

    # -- building ------------------------------------------------------------------------------
    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        if isinstance(widget, LazyPanel):
            # behind another dock's tab a panel skips its redraws: choosing the tab shows the
            # latest (Qt moves a dock behind a tab out of the window rather than hiding it)
            dock.visibilityChanged.connect(
                lambda visible, w=widget: QTimer.singleShot(0, w.catch_up) if visible else None)

    def _action(self, text: str, slot: Any, shortcut: str | None = None,
                tip: str | None = None) -> QAction:
        act = QAction(text, self)
        # ``triggered`` carries ``checked`` (False for a plain action); passed on, it would
        # land in the slot's first parameter (``confirm`` of End lesson and Hint, which then
        # skipped their questions): every action's slot is called without arguments
        act.triggered.connect(lambda _checked=False: slot())
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            act.setToolTip(tip + (f" ({shortcut})" if shortcut else ""))
            act.setStatusTip(tip)
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        a = self._action
        self.act_open = a("&Open scenario...", self.open_scenario, "Ctrl+O",
                          "Open a scenario file")
        self.act_save = a("&Save scenario as...", self.save_scenario, "Ctrl+S",
                          "Save the scenario as it was loaded")
        self.act_record = a("&Record a replayable scenario...", self.record_session_dialog,
                            "Ctrl+Shift+S",
                            "Save a new scenario file: this scenario plus every command issued "
                            "here, at its simulated time; `ssisim run` replays it to the same "
                            "results (a lesson's work for grading: Save lesson session)")
        self.act_record.setIconText("Record scenario")
        self.act_report = a("&Export report...", lambda: self.export_report(), None,
                            "Store the run so far and write its report into a folder: HTML "
                            "with charts, and the data as CSV")
        self.act_quit = a("&Quit", lambda: self.close(), "Ctrl+Q")
        self.act_cluster = a("&Cluster...", self.edit_cluster, None,
                             "Edit the members, paging volumes, links and guests of the "
                             "scenario's file; Apply restarts the scenario with them")
        self.act_run = a("Run", self.toggle_run, "Space", "Run or pause the simulated clock")
        self.act_step = a("Step", self.step, "F10", "Advance one step and pause")
        self.act_reset = a("Reset", self.reset, "Ctrl+R",
                           "Start the scenario again from the beginning (paused)")
        self.act_console = a("Focus console", self.focus_console, "Ctrl+L",
                             "Type a CP command")
        self.act_prefs = a("Preferences...", self.edit_preferences, None)
        self.act_evacuate = a("&Evacuate member...", self.plan_evacuation, None,
                              "Search, run and rank plans to empty a member of this scenario; "
                              "play the one you choose")
        self.act_sweep = a("S&weep...", self.plan_sweep, None,
                           "Run this scenario over varied fields and seeds, and chart the "
                           "measures")
        self.act_keys = a("Keyboard shortcuts", self.show_shortcuts, None)
        self.act_about = a("About ssisim", self.show_about, None)

        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setToolTip("Simulated seconds per wall second; max runs as fast as the "
                              "machine allows")
        self.speed.currentTextChanged.connect(self.set_speed)
        self.speed_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for i, label in enumerate(SPEEDS):
            act = a(f"Speed {label}", lambda _c=False, lab=label: self.set_speed(lab),
                    f"Ctrl+{i + 1}")
            act.setCheckable(True)
            group.addAction(act)
            self.speed_actions[label] = act
        self.clock = QLabel("t = 0 s")
        self.clock.setToolTip("Simulated time since the scenario started")
        self.clock.setMinimumWidth(210)

        tb = QToolBar("Simulation")
        tb.setObjectName("toolbar_sim")
        for act in (self.act_open, self.act_save, self.act_record):
            tb.addAction(act)
        tb.addSeparator()
        for act in (self.act_run, self.act_step):
            tb.addAction(act)
        tb.addWidget(QLabel(" Speed "))
        tb.addWidget(self.speed)
        tb.addAction(self.act_reset)
        tb.addSeparator()
        tb.addWidget(self.clock)
        self.addToolBar(tb)

        mb = self.menuBar()
        m = mb.addMenu("&File")
        for act in (self.act_open, self.training.act_open_lesson, self.act_save,
                    self.act_record, self.training.act_save_session, self.act_report):
            m.addAction(act)
        m.addSeparator()
        m.addAction(self.act_quit)
        m = mb.addMenu("&Edit")
        m.addAction(self.act_cluster)
        m = mb.addMenu("&Simulation")
        for act in (self.act_run, self.act_step, self.act_reset):
            m.addAction(act)
        sm = m.addMenu("Speed")
        for act in self.speed_actions.values():
            sm.addAction(act)
        self.training.add_menu(mb)
        m = mb.addMenu("&Plan")
        m.addAction(self.act_evacuate)
        m.addAction(self.act_sweep)
        m = mb.addMenu("&View")
        cm = m.addMenu("&Cluster view")
        self.cluster_view_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for mode, label in MODES.items():
            act = QAction(label, self)
            act.setCheckable(True)
            act.triggered.connect(lambda _c=False, md=mode: self.set_cluster_view(md))
            group.addAction(act)
            cm.addAction(act)
            self.cluster_view_actions[mode] = act
        self.act_compact = a("Compact cluster view", self.toggle_compact, "Ctrl+T",
                             "Switch the cluster between a small square per guest and a tile "
                             "per guest")
        self.act_compact.setCheckable(True)
        self.cluster.mode_changed.connect(self.act_compact.setChecked)
        cm.addSeparator()
        cm.addAction(self.act_compact)
        self.set_cluster_view(self.prefs.cluster_view)
        m.addSeparator()
        for dock in self.docks.values():
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        m.addAction(self.act_console)
        m.addAction(self.act_prefs)
        m = mb.addMenu("&Help")
        m.addAction(self.act_keys)
        m.addAction(self.act_about)

    def set_cluster_view(self, mode: str) -> None:
        """View > Cluster view: ``auto`` (compact for a large cluster), ``compact`` or
        ``detailed``; kept as a preference."""
        if mode not in MODES:
            mode = "auto"
        self.prefs.cluster_view = mode
        self.cluster_view_actions[mode].setChecked(True)
        self.cluster.set_mode(mode)
        self.act_compact.setChecked(self.cluster.is_compact())

    def toggle_compact(self) -> None:
        """Switch between the compact and the detailed cluster view (Ctrl+T)."""
        self.set_cluster_view("detailed" if self.cluster.is_compact() else "compact")

    # -- layout and preferences ----------------------------------------------------------------
    def _restore_layout(self) -> bool:
        """The layout saved last time; False when there is none."""
        if self.settings is None:
            return False
        geo = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geo, QByteArray | bytes):
            self.restoreGeometry(geo)
        if isinstance(state, QByteArray | bytes):
            return bool(self.restoreState(state))
        return False

    def default_layout(self) -> None:
        """Dock sizes in proportion to the window: relocation and console on the right, the
        plots below the cluster."""
        w, h = self.width(), self.height()
        lesson = not self.training.dock.isHidden()
        # with the Lesson dock on the left, the right docks give the cluster some of their room
        share = 0.36 if lesson and w < 1500 else 0.42
        self.resizeDocks([self.docks["relocation"]], [int(w * share)], Qt.Orientation.Horizontal)
        # a small window gives the relocation's charts the larger share (at 1024x775 they need
        # about 540 pixels not to be cut)
        top = 0.6 if h >= 900 else 0.72
        self.resizeDocks([self.docks["relocation"], self.docks["console"]],
                         [int(h * top), int(h * (1 - top))], Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["members"]], [int(h * 0.4)], Qt.Orientation.Vertical)
        self.training.default_layout()

    def showEvent(self, event: QShowEvent) -> None:
        """Lay the docks out for the window's size the first time it is shown."""
        super().showEvent(event)
        if not self._laid_out:
            self._laid_out = True
            self.default_layout()

    def save_settings(self) -> None:
        """Keep the layout and the preferences for next time."""
        if self.settings is None:
            return
        self.prefs.console_history = list(self.history.items)
        prefs_io.save(self.settings, self.prefs)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    def edit_preferences(self) -> None:
        """Open the preferences dialog."""
        dlg = PreferencesDialog(self.prefs, self)
        dlg.accepted.connect(lambda: self.apply_preferences(dlg.result_preferences()))
        self._keep(dlg)
        dlg.open()

    def apply_preferences(self, p: Preferences) -> None:
        """Use new preferences now (theme, options on drop, pause at end)."""
        theme_changed = p.theme != self.prefs.theme
        self.prefs = p
        self.worker.pause_at_end = p.pause_at_end
        self.worker.watch_moves = p.watch_moves
        if theme_changed:
            apply_theme(p.theme)
            self.restyle()
        self.save_settings()

    def restyle(self) -> None:
        """Redraw the plots in the colours of the current palette."""
        self.relocation.restyle()
        self.members.restyle()
        self.detail.restyle()

    def _keep(self, w: QDialog) -> None:
        # non-modal dialogs must outlive this call; forget them once closed
        self._dialogs.append(w)
        w.finished.connect(lambda _r: self._dialogs.remove(w) if w in self._dialogs else None)

    # -- the clock -----------------------------------------------------------------------------
    def toggle_run(self) -> None:
        """Run if paused, pause if running."""
        if self.model.running:
            self.worker.pause_clock()
            self.model.running = False
        else:
            self.worker.run_clock()
            self.model.running = True
        self._show_running()

    def step(self) -> None:
        """One step of simulated time, then pause."""
        self.worker.step_clock()
        self.model.running = False
        self._show_running()

    def set_speed(self, label: str) -> None:
        """``1x``, ``10x``, ``100x`` or ``max``."""
        if label not in SPEEDS:
            return
        self.prefs.speed = label
        self.worker.set_speed(SPEEDS[label])
        if self.speed.currentText() != label:
            self.speed.blockSignals(True)
            self.speed.setCurrentText(label)
            self.speed.blockSignals(False)
        self.speed_actions[label].setChecked(True)
        self._speed_marks.clear()

    def reset(self) -> None:
        """Start the scenario afresh (paused)."""
        self._unsaved.clear()
        self.model.expect(self.worker.reset(self.scenario))
        self.model.running = False
        self._show_running()

    def _show_running(self) -> None:
        self.act_run.setText("Pause" if self.model.running else "Run")

    def _published(self, answers: bool = False) -> None:
        """The worker published a frame and waits for it to be painted (after a long step, or
        with a command's answer): redraw now, or ``REDRAW_MS`` after the last redraw if that is
        later (the timer's next tick may come later still); a command's answer (a drop's
        relocation) at once."""
        wait_ms = REDRAW_MS - (time.monotonic() - self._redrawn_at) * 1000
        if wait_ms <= 0 or answers:
            self.redraw()
        else:
            QTimer.singleShot(int(wait_ms) + 1, self.redraw)

    # -- redraw --------------------------------------------------------------------------------
    def redraw(self) -> bool:
        """Apply the latest frame, if any (the redraw timer calls this); True when applied."""
        frame = self.mailbox.take()
        if frame is None or frame.generation < self.model.expected_generation:
            if frame is not None:
                self.worker.gui_idle.set()  # a worker may wait for it to be painted: no need
            return False  # nothing new, or of a simulation the window has left
        self._redrawn_at = time.monotonic()
        # the worker waits while the frame is applied and painted: the event that says the
        # window is idle again is posted once the views have asked for their repaints, so it
        # comes after Qt's paint request (same low priority, first in first out). A paint
        # calls into Python many times, and a worker stepping meanwhile (even in short steps)
        # holds the GIL at each of them: a redraw then took twice as long and the event loop
        # fired a 10 ms timer only twenty times a second.
        self.worker.gui_idle.clear()
        try:
            self._apply(frame)
        finally:
            QCoreApplication.postEvent(self._after_paint, QEvent(PAINTED),
                                       Qt.EventPriority.LowEventPriority.value)
        return True

    def _apply(self, frame: Frame) -> None:
        self.model.apply(frame)
        t = frame.snapshot.t_s
        self.clock.setText(f"t = {t:,.0f} s  ({_fmt_clock(t)})")
        self._show_running()
        self._show_watch(frame.watch if frame.running else None)
        now = time.monotonic()
        if frame.running:
            self._speed_marks.append((now, t))
            while len(self._speed_marks) > 2 and now - self._speed_marks[0][0] > 2.0:
                self._speed_marks.pop(0)
            (w0, s0), (w1, s1) = self._speed_marks[0], self._speed_marks[-1]
            if w1 - w0 > 0.3:
                self.speed_label.setText(f"{(s1 - s0) / (w1 - w0):,.0f} sim s per s")
        else:
            self._speed_marks.clear()
            self.speed_label.setText("paused")

    def _show_watch(self, watch: Watch | None) -> None:
        """Say in the status bar what watch mode is slowing the clock for (nothing: hide)."""
        if watch == self.watch:
            return
        self.watch = watch
        self.watch_label.setText(watch.message() if watch is not None else "")
        self.watch_label.setVisible(watch is not None)
        self._speed_marks.clear()  # the measured speed starts afresh at the new pace

    def _raise_moves(self, events: tuple) -> None:
        """Bring the panel of a move that just began to the front: a relocation's own panel,
        or the panel of migrations and pauses."""
        kinds = {e.kind for e in events}
        if kinds & {"LPM_START", "VMOTION_START", "SUSPEND_START", "RESUME_START", "STOPPED",
                    "BEGIN"}:
            # unless a relocation shown already is under way: its panel stays in front
            t0 = min(e.t_s for e in events)
            snap = self.model.snapshot
            if snap is None or not any(r.state in ("moving", "quiesced") and r.start_s < t0
                                       for r in snap.relocations):
                self.docks["moves"].raise_()
                return
        if "RELOCATION_START" in kinds:
            self.docks["relocation"].raise_()

    # -- worker signals ------------------------------------------------------------------------
    def _compiling(self) -> None:
        self.compile_label.setText("compiling\u2026")
        self.compile_label.setToolTip("The simulation kernels are being compiled (or loaded "
                                      "from the cache); commands wait until they are ready.")

    def _compiled(self, seconds: float) -> None:
        self.compile_label.setText("ready")
        self.compile_label.setToolTip(f"Kernels ready after {seconds:.1f} s")
        self.statusBar().showMessage(f"Kernels ready in {seconds:.1f} s", 4000)

    def _paused(self, t: float, reason: str) -> None:
        self.model.running = False
        self._show_running()
        if reason == "end":
            self.statusBar().showMessage(
                f"Paused at the scenario's end (t = {t:g} s); Run continues.", 8000)

    def _failed(self, text: str) -> None:
        self.model.running = False
        self._show_running()
        self.console._append("The simulation stopped with an internal error:", "#d9453b")
        for line in text.rstrip().splitlines():
            self.console._append(line, "#d9453b")
        self.statusBar().showMessage("The simulation stopped with an internal error; see the "
                                     "console", 0)

    def _fit_docks_to_scenario(self) -> None:
        """A single member has nowhere to relocate to: its relocation panel gives way to the
        guest detail, next to the console (and back again for a scenario with more members).
        A large cluster brings the guest table to the front (a small one the members' plots),
        when the scenario is of the other kind than the one before."""
        large = self.cluster.wants_compact()
        if large != self._large:
            self._large = large
            self.docks["guests" if large else "members"].raise_()
        single = len(self.model.member_names()) < 2
        reloc, guest = self.docks["relocation"], self.docks["guest"]
        if single and not self._single_layout:
            self._single_layout = True
            self._reloc_was_visible = not reloc.isHidden()
            reloc.hide()
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, guest,
                               Qt.Orientation.Vertical)
            guest.show()
            self.docks["members"].raise_()
            h = self.height()
            # pausing is what a single member shows moving: its panel keeps a fair share
            self.resizeDocks([self.docks["moves"], self.docks["console"], guest],
                             [int(h * 0.3), int(h * 0.3), int(h * 0.4)],
                             Qt.Orientation.Vertical)
        elif not single and self._single_layout:
            self._single_layout = False
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, guest)
            self.tabifyDockWidget(self.docks["members"], guest)
            self.docks["members"].raise_()
            if self._reloc_was_visible:
                reloc.show()

    def _selected(self, userid: str | None) -> None:
        if userid:
            self.docks["guest"].show()
            self.docks["guest"].raise_()

    # -- commands ------------------------------------------------------------------------------
    def issue(self, command: Command, source: str = "") -> int | None:
        """Show a typed command in the console (its canonical text) and send it to the
        simulation; returns its request id.

        The command is checked as a replay would read it (``parse_command(str(command))``): one
        that CP would refuse to parse (a value out of range) is answered here at once with CP's
        message, and None is returned.
        """
        if not isinstance(command, Command):
            raise TypeError("issue() takes a typed command; typed text goes to issue_text()")
        try:
            command = parse_command(str(command))
        except CPError as e:
            self.console.echo(str(command), source)
            self.console.refuse(e.line)
            return None
        self.console.echo(str(command), source)
        self._unsaved.append(command)
        return self.worker.submit(command)

    def issue_text(self, text: str, source: str = "") -> int | None:
        """Parse what was typed in the console and issue it; returns its request id.

        A parse error is CP's answer, shown at once (nothing reaches the simulation, nothing
        is recorded); None is returned then.
        """
        try:
            command = parse_command(text)
        except CPError as e:
            self.console.echo(text.strip(), source)
            self.console.refuse(e.line)
            return None
        return self.issue(command, source)

    def relocate(self, userid: str, member: str, ask: bool = False) -> None:
        """Relocate ``userid`` to ``member``; with ``ask`` (or the preference) show the options."""
        if ask or self.prefs.ask_relocation_options:
            self.open_relocate_dialog(userid, member)
            return
        self.issue(relocate_command(userid, member), "drag")

    def open_relocate_dialog(self, userid: str, member: str) -> RelocateDialog:
        """Ask for the relocation options; the command is issued when the dialog is accepted."""
        dlg = RelocateDialog(userid, self.model.member_names(), member,
                             self.prefs.ask_relocation_options, self)

        def done() -> None:
            self.prefs.ask_relocation_options = dlg.ask.isChecked()
            self.issue(dlg.command(), "options dialog")

        dlg.accepted.connect(done)
        self._keep(dlg)
        dlg.open()
        return dlg

    def edit_workload(self, userid: str) -> WorkloadDialog:
        """Open the workload dialog for a guest."""
        g = self.model.guest(userid)
        dlg = WorkloadDialog(userid, g.workload if g is not None else "", self)
        dlg.accepted.connect(lambda: self.issue(dlg.command(), "workload dialog"))
        self._keep(dlg)
        dlg.open()
        return dlg

    def guest_menu(self, userid: str) -> Any:
        """The context menu of a guest (built fresh from the latest snapshot)."""
        g = self.model.guest(userid)
        member = g.member if g is not None else None
        return build_guest_menu(
            self, userid, member, self.model.state_of(userid), self.model.member_names(),
            self.model.active_relocation(userid) is not None,
            issue=lambda command: self.issue(command, "menu"), relocate=self.relocate,
            edit_workload=self.edit_workload, show_detail=self.model.select)

    def show_guest_menu(self, userid: str, pos: QPoint) -> None:
        """Pop up a guest's context menu."""
        self.model.select(userid)
        self.guest_menu(userid).popup(pos)

    def focus_console(self) -> None:
        """Put the cursor in the console's command line."""
        self.docks["console"].show()
        self.docks["console"].raise_()
        self.console.line.setFocus()

    # -- files ---------------------------------------------------------------------------------
    def _dir(self) -> str:
        """Where file dialogs open: the folder used last (kept in the settings), else the
        user's home (never the program's own folder, where it may have been started from)."""
        last = self.prefs.last_dir
        if last and Path(last).is_dir():
            return last
        return str(Path.home())

    def remember_dir(self, folder: str | Path) -> None:
        """The folder a file was opened from or saved to: dialogs open there next time, also
        after a restart."""
        self.prefs.last_dir = str(folder)
        if self.settings is not None:
            self.prefs.console_history = list(self.history.items)
            prefs_io.save(self.settings, self.prefs)

    # -- work that a switch or quitting would discard ------------------------------------------
    def unsaved_work(self) -> str | None:
        """What opening another scenario or quitting would lose, in a sentence; None: nothing.

        A lesson under way (its clock started or a command issued), a lesson's session not
        saved, or commands that changed the world and were not recorded (queries do not count).
        """
        snap = self.model.snapshot
        les = snap.lesson if snap is not None else None
        if les is not None and not les.ended and (snap.t_s > 0 or self._unsaved):
            return (f"The lesson is in progress (score {les.score:g} of {les.max_score:g} so "
                    "far); it would be lost.")
        if les is not None and self._unsaved:
            return ("The lesson's session is not saved (Lesson > Save lesson session): the "
                    "trainer could not grade it.")
        changes = [c for c in self._unsaved if not only_asks(c)]
        if les is None and changes:
            n = len(changes)
            return (f"{n} command{'s' if n != 1 else ''} issued here {'are' if n != 1 else 'is'}"
                    " not recorded (File > Record a replayable scenario).")
        return None

    def mark_saved(self) -> None:
        """The commands issued so far are saved (a session file or a recording)."""
        self._unsaved.clear()

    def confirm_discard(self, action: str) -> bool:
        """Ask before losing work (``unsaved_work``) to ``action`` ("quit", "open demo");
        True: go ahead."""
        what = self.unsaved_work() if self.ask_before_discarding else None
        if what is None:
            return True
        answer = QMessageBox.question(
            self, "Discard the work in progress?", f"{what}\n\nDiscard it and {action}?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Discard

    def open_scenario(self) -> None:
        """Choose a scenario file and start it (paused)."""
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", self._dir(),
                                              "Scenarios (*.toml);;All files (*)")
        if path:
            self.load_scenario_file(path)

    def load_scenario_file(self, path: str) -> bool:
        """Load a scenario file and start it; a message box explains a bad file."""
        try:
            sc = load_scenario(path)
        except ScenarioError as e:
            QMessageBox.warning(self, "Scenario not loaded", str(e))
            return False
        if not self.confirm_discard(f"open \u201c{sc.name}\u201d"):
            return False
        if not _bundled(Path(path)):  # the program's own folder is no place to save to
            self.remember_dir(Path(path).parent)
        self.start_scenario(sc)
        warnings = scenario_warnings(sc)
        if warnings:  # runs as written; said where the user looks while it starts
            self.statusBar().showMessage("Warning: " + warnings[0].removeprefix(f"{sc.path}: "),
                                         60000)
        return True

    def start_scenario(self, sc: ScenarioConfig) -> None:
        """Start ``sc`` afresh (paused), as opening its file does; the caller has asked
        ``confirm_discard`` first."""
        self._unsaved.clear()
        self.scenario = sc
        self.setWindowTitle(f"ssisim - {sc.name}")
        self.model.expect(self.worker.reset(sc))
        self.model.running = False
        self._show_running()

    def play_scenario(self, sc: ScenarioConfig, what: str) -> bool:
        """Start a scenario built here (an evacuation plan's), asking first if work would be
        lost; ``what`` names it in the question and the status bar. True when started."""
        if not self.confirm_discard(f"play {what}"):
            return False
        self.start_scenario(sc)
        self.statusBar().showMessage(f"Loaded {what}: its commands are in the scenario's "
                                     "timeline; Run to watch it", 10000)
        return True

    def _plan_dialog(self, kind: type) -> QDialog | None:
        """The open planning dialog of this kind for the loaded scenario, brought to the
        front (one at a time)."""
        for d in self._dialogs:
            if isinstance(d, kind) and getattr(d, "scenario", None) is self.scenario:
                d.raise_()
                d.activateWindow()
                return d
        return None

    def plan_evacuation(self, processes: int | None = None) -> EvacuateDialog:
        """Plan > Evacuate member...: the evacuation planner on the loaded scenario."""
        old = self._plan_dialog(EvacuateDialog)
        if isinstance(old, EvacuateDialog):
            return old
        dlg = EvacuateDialog(self.scenario, self.play_scenario, processes, self)
        self._keep(dlg)
        dlg.show()
        return dlg

    def plan_sweep(self, processes: int | None = None) -> SweepDialog:
        """Plan > Sweep...: a sweep of the loaded scenario, stored in the run database."""
        old = self._plan_dialog(SweepDialog)
        if isinstance(old, SweepDialog):
            return old
        dlg = SweepDialog(self.scenario, self.db_path, processes, self)
        self._keep(dlg)
        dlg.show()
        return dlg

    def edit_cluster(self) -> ClusterEditor:
        """Edit > Cluster...: the scenario's members, volumes, links and guests, in its file
        (one editor at a time)."""
        for d in self._dialogs:
            if isinstance(d, ClusterEditor):
                d.raise_()
                d.activateWindow()
                return d
        dlg = ClusterEditor(self, self.scenario, bundled=_bundled(Path(self.scenario.path))
                            if self.scenario.path else False, parent=self)
        self._keep(dlg)
        dlg.show()
        return dlg

    def save_scenario(self) -> None:
        """Save the scenario as it was loaded (its text)."""
        path, _ = QFileDialog.getSaveFileName(self, "Save scenario", self._dir(),
                                              "Scenarios (*.toml)")
        if path:
            if not self._write(path, self.scenario.source_text, "Scenario not saved"):
                return
            self.remember_dir(Path(path).parent)
            self.statusBar().showMessage(f"Saved {path}", 4000)

    def _write(self, path: str, text: str, title: str) -> bool:
        """Write a user's file as UTF-8 (whatever the locale: names may hold any character);
        a message box says why it could not be written. True when written."""
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as e:
            QMessageBox.warning(self, title, f"{path}: {e.strerror or e}")
            return False
        return True

    def session_text(self, timeout_s: float = 10.0) -> str:
        """The session so far as scenario text (``record_session``, run on the worker)."""
        return str(self.worker.call(record_session).result(timeout=timeout_s))

    def record_session_dialog(self) -> None:
        """Save the session as a scenario file that ``ssisim run`` replays."""
        try:
            text = self.session_text()
        except FutureTimeout:
            QMessageBox.warning(self, "Not recorded", "The simulation did not answer in time.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Record a replayable scenario",
                                              self._dir(), "Scenarios (*.toml)")
        if path:
            if not self._write(path, text, "Not recorded"):
                return
            self.remember_dir(Path(path).parent)
            self.mark_saved()
            self.statusBar().showMessage(f"Scenario with your commands recorded to {path}; "
                                         f"replay it with `ssisim run {path}`", 8000)

    def export_report(self, folder: str | None = None) -> Future | None:
        """Store the run so far in the run store (``db_path``) and write its report into a
        folder.

        The report is the one ``ssisim report`` writes for a stored run; ``folder`` is asked
        for when not given. The run is stored on the worker thread between steps and the
        report drawn on a thread of its own, so the window goes on redrawing meanwhile (a
        long run takes seconds). Returns the future of the report's HTML page (None when no
        folder was chosen); the status bar says when it is written, a message box if it
        could not be.
        """
        import datetime as dt

        from ssisim import __version__
        from ssisim.engine import RunStore, build_summary
        from ssisim.report import write_report

        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, "Export report to folder",
                                                      self._dir())
            if not folder:
                return None
            self.remember_dir(folder)
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")

        def store(sim: Any) -> tuple[Path, int]:
            # on the worker thread, between steps: the run is saved as it stands now
            with RunStore(self.db_path) as runs:
                return runs.path, runs.save(sim, build_summary(sim, __version__), now, now,
                                            __version__)

        stored = self.worker.call(store)

        def write() -> tuple[Path, int, Path]:
            db, run_id = stored.result(timeout=120)
            return db, run_id, write_report(run_id, folder, db).path

        self.act_report.setEnabled(False)
        self.statusBar().showMessage(f"Writing the report into {folder} ...")
        fut = self._background.submit(write)

        def done(result: tuple[Path, int, Path]) -> None:
            db, run_id, page = result
            self.act_report.setEnabled(True)
            self.statusBar().showMessage(f"Run stored as run {run_id} in {db}; report written "
                                         f"to {page}", 10000)

        def failed(e: BaseException) -> None:
            from ssisim.engine import StoreError
            from ssisim.report import ReportError

            if self._closed:
                return
            self.act_report.setEnabled(True)
            self.statusBar().clearMessage()
            if isinstance(e, FutureTimeout):
                text = "The simulation did not answer in time."
            elif isinstance(e, (ReportError, StoreError, OSError)):
                text = str(e)
            else:  # a fault of the program, not of the user's folder: say what it was
                text = f"{type(e).__name__}: {e}"
            QMessageBox.warning(self, "Report not written", text)

        when_done(self, fut, done, failed)
        return fut

    # -- help ----------------------------------------------------------------------------------
    def show_shortcuts(self) -> None:
        """List the keyboard shortcuts."""
        rows = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in SHORTCUTS)
        QMessageBox.information(self, "Keyboard shortcuts", f"<table>{rows}</table>")

    def show_about(self) -> None:
        """What this is."""
        QMessageBox.about(self, "About ssisim",
                          "ssisim: a page-level simulator of z/VM SSI clusters, paging and "
                          "Live Guest Relocation. The window is a view of the engine: every "
                          "gesture is a CP command, shown in the console.")

    # -- closing -------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop the redraw timer and the worker thread (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.timer.stop()
        self.worker.stop()
        for d in self._dialogs:  # planning under way stops with the window
            if isinstance(d, EvacuateDialog | SweepDialog):
                d.cancel()
        self._background.shutdown(wait=False, cancel_futures=True)
        if self._gc_held and not self.worker.isRunning():
            self._gc_held = False
            gc_guard.release()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Keep the layout, stop the simulation (after asking, if work would be lost)."""
        if not self._closed and not self.confirm_discard("quit"):
            event.ignore()
            return
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)

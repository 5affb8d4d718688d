"""Plan > Evacuate member...: the evacuation planner on the loaded scenario, in the background.

The dialog asks what ``ssisim plan evacuate`` asks (the member, when, where to, the window,
seeds), runs ``plan_evacuation`` as a ``PlanJob`` with a progress bar, and shows the ranked
plans with the figures the command line prints, the guests a plan does not move and why, and
the plan's commands. *Play this plan* loads the scenario with the plan's commands in its
timeline into the window, so the planner can watch it run.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import (
    EvacuateError,
    EvacuationResult,
    ScenarioConfig,
    ScenarioError,
    evacuation_commands,
    evacuation_headline,
    evacuation_not_moved,
    evacuation_scenario,
    evacuation_table,
    evacuation_why_best,
    loads_scenario,
    parse_window,
    plan_evacuation,
)

from .job_dialog import JobDialog
from .plan_jobs import Cancelled, PlanJob, Progress, default_processes

#: How often the progress bar is brought up to date (ms).
PROGRESS_MS = 100
#: What Play does.
PLAY_TIP = ("Load the scenario with this plan's commands in its timeline into the window "
            "(paused at t = 0), to watch it run")
#: Columns of the plans' table that hold figures (aligned right).
FIGURES = ("guests moved", "short after GB", "total s", "worst quiesce s", "tput lost %", "held s")


def _linked(scenario: ScenarioConfig, member: str) -> list[str]:
    """Members with an ISFC link to ``member``."""
    out = {m.upper() for lk in scenario.links if lk.chpids
           and member.upper() in {x.upper() for x in lk.members} for m in lk.members}
    return sorted(out - {member.upper()})


class EvacuateDialog(JobDialog, QDialog):
    """Search, run and rank plans to empty a member of the loaded scenario.

    Parameters
    ----------
    scenario : ScenarioConfig
        The scenario as loaded in the window (its text is what the planner runs).
    play : callable
        ``play(scenario, what)`` loads a plan's scenario into the window (asking first if work
        would be lost); True when it did.
    processes : int, optional
        Processes for the plans' runs (default: one per core; 1 runs them on a thread).
    """

    def __init__(self, scenario: ScenarioConfig,
                 play: Callable[[ScenarioConfig, str], bool],
                 processes: int | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.play = play
        self.processes = processes or default_processes()
        self.job: PlanJob | None = None
        self.result: EvacuationResult | None = None
        self.setWindowTitle(f"Evacuate a member - {scenario.name}")
        self.resize(1320, 780)

        # the inputs of ssisim plan evacuate, on two lines
        form = QGridLayout()
        # the scenario's members, with how many guests each has at the start; the busiest first
        self.member = QComboBox()
        counts: dict[str, int] = {}
        for g in scenario.guests:
            if g.logged_on:
                counts[g.member.upper()] = counts.get(g.member.upper(), 0) + 1
        for m in scenario.members:
            n = counts.get(m.name.upper(), 0)
            self.member.addItem(f"{m.name.upper()}  ({n} guest{'s' if n != 1 else ''})",
                                m.name.upper())
        self.member.setCurrentIndex(max(range(self.member.count()), default=0,
                                        key=lambda i: counts.get(self.member.itemData(i), 0)))
        self.member.currentIndexChanged.connect(lambda _i: self._member_changed())
        form.addWidget(QLabel("Member to empty:"), 0, 0)
        form.addWidget(self.member, 0, 1)
        self.at = QDoubleSpinBox()
        self.at.setRange(0.0, scenario.duration_s)
        self.at.setDecimals(0)
        self.at.setSuffix(" s")
        self.at.setToolTip("Simulated time the evacuation starts; the destinations' free "
                           "storage is read from a run of the scenario to it (0: from the "
                           "configuration)")
        form.addWidget(QLabel("Start at t ="), 0, 2)
        form.addWidget(self.at, 0, 3)
        self.to = QLineEdit()
        self.to.setToolTip("Destinations, separated by commas (empty: every member linked to "
                           "the one to empty)")
        form.addWidget(QLabel("Destinations:"), 1, 0)
        form.addWidget(self.to, 1, 1)
        self.to.setMinimumWidth(240)
        self.window_s = QLineEdit("1h")
        self.window_s.setToolTip("The guests should be moved within this time: 3600, 90m, 2h, "
                                 "1h30m")
        self.window_s.setMaximumWidth(90)
        form.addWidget(QLabel("Window:"), 0, 4)
        form.addWidget(self.window_s, 0, 5)
        self.seeds = QSpinBox()
        self.seeds.setRange(1, 100)
        self.seeds.setToolTip("Runs of each plan, seeds from the scenario's own; the figures "
                              "are their means")
        form.addWidget(QLabel("Seeds:"), 1, 2)
        form.addWidget(self.seeds, 1, 3)
        form.setColumnStretch(6, 1)

        self.plan_button = self.start_button = QPushButton("Plan")
        self.plan_button.setDefault(True)
        self.plan_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m runs")
        self.progress.setValue(0)
        self.stage = QLabel("")
        self.stage.setMinimumWidth(320)
        run_row = QHBoxLayout()
        run_row.addWidget(self.plan_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.stage)

        self.headline = QLabel("")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plans = QTableWidget(0, 0)
        self.plans.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.plans.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.plans.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.plans.verticalHeader().hide()
        self.plans.setWordWrap(False)
        # rows of one line: the ranking reads down the table
        self.plans.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.plans.setAlternatingRowColors(True)
        self.plans.itemSelectionChanged.connect(self._show_plan)
        self.plans.itemDoubleClicked.connect(lambda _item: self.play_selected())
        self.why = QLabel("")
        self.why.setWordWrap(True)
        fixed = QFont("monospace")
        fixed.setStyleHint(QFont.StyleHint.TypeWriter)
        self.unmovable_title = QLabel("")
        self.unmovable = QPlainTextEdit()
        self.unmovable.setReadOnly(True)
        self.unmovable.setToolTip("Guests this plan leaves on the member, and why: the storage "
                                  "check's message, CP's refusal, or the relocation's "
                                  "cancellation")
        self.commands_title = QLabel("")
        self.commands = QPlainTextEdit()
        self.commands.setReadOnly(True)
        self.commands.setFont(fixed)
        self.commands.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)

        lower = QWidget()
        low = QHBoxLayout(lower)
        low.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(self.unmovable_title)
        left.addWidget(self.unmovable)
        right = QVBoxLayout()
        right.addWidget(self.commands_title)
        right.addWidget(self.commands)
        low.addLayout(left, 1)
        low.addLayout(right, 2)
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_l = QVBoxLayout(top)
        top_l.setContentsMargins(0, 0, 0, 0)
        top_l.addWidget(self.plans)
        top_l.addWidget(self.why)
        split.addWidget(top)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        self.play_button = QPushButton("Play this plan")
        self.play_button.setEnabled(False)
        self.play_button.setToolTip(PLAY_TIP)
        self.play_button.clicked.connect(self.play_selected)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.play_button)
        buttons.addWidget(close)

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addLayout(run_row)
        lay.addWidget(self.headline)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)

        self.timer = QTimer(self)
        self.timer.setInterval(PROGRESS_MS)
        self.timer.timeout.connect(self._show_progress)
        self._member_changed()

    # -- the form -----------------------------------------------------------------------------
    def member_name(self) -> str:
        """The member chosen to empty."""
        return str(self.member.currentData() or "")

    def set_member(self, name: str) -> None:
        """Choose the member to empty by name."""
        i = self.member.findData(name.upper())
        if i >= 0:
            self.member.setCurrentIndex(i)

    def _member_changed(self) -> None:
        linked = _linked(self.scenario, self.member_name())
        self.to.setPlaceholderText(", ".join(linked) if linked else "no member is linked")

    def say(self, text: str, error: bool = False) -> None:
        """A line under the progress bar (red for a problem)."""
        self.stage.setStyleSheet("color: #d9453b;" if error else "")
        self.stage.setText(text)
        self.stage.setToolTip(text)

    # -- running ------------------------------------------------------------------------------
    def start(self) -> PlanJob | None:
        """Check the form and start the search; None (and a red line) for a bad input."""
        if self.job is not None:
            return None
        try:
            window_s = parse_window(self.window_s.text())
        except EvacuateError as e:
            self.say(str(e), error=True)
            return None
        to = [d.strip() for d in self.to.text().split(",") if d.strip()] or None
        text, path = self.scenario.source_text, self.scenario.path or "<scenario>"
        member, at_s, seeds = self.member_name(), self.at.value(), self.seeds.value()

        def work(progress: Progress, executor: Executor | None) -> EvacuationResult:
            return plan_evacuation(text, path, member, at_s, to, window_s, seeds, executor,
                                   progress)

        self.result = None
        self._fill(None)
        self.progress.setFormat("%v of %m runs")
        self.progress.setRange(0, 0)  # busy until the first batch says its size
        self.say("reading the cluster at the start time ...")
        return self._launch(work, self.processes)

    def _show_progress(self) -> None:
        if self.job is None:
            return
        s = self.job.state()
        if s.total:
            self.progress.setRange(0, s.total)
            self.progress.setValue(s.done)
        if not self.job.cancelled and s.total:
            self.say(f"{s.stage}: {s.done} of {s.total} runs ({s.runs_done} in all)")

    def _end(self, job: PlanJob) -> bool:
        """The job is over; False when it is no longer this dialog's."""
        if not super()._end(job):
            return False
        self.progress.setRange(0, 1)
        return True

    def _finished(self, job: PlanJob, result: EvacuationResult) -> None:
        if not self._end(job):
            return
        self.progress.setValue(1)
        self.progress.setFormat(f"{result.runs} runs")
        self.say(f"{len(result.outcomes)} plans run ({result.runs} runs)")
        self.result = result
        self._fill(result)

    def _failed(self, job: PlanJob, e: BaseException) -> None:
        if not self._end(job):
            return
        self.progress.setValue(0)
        if isinstance(e, Cancelled):
            self.say("Cancelled; no plan was kept.")
        elif isinstance(e, (EvacuateError, ScenarioError)):
            self.say(str(e), error=True)
        else:  # a fault of the program: say what it was
            self.say(f"The planner stopped: {type(e).__name__}: {e}", error=True)

    # -- the plans ----------------------------------------------------------------------------
    def _fill(self, result: EvacuationResult | None) -> None:
        self.plans.clear()
        self.plans.setRowCount(0)
        self.unmovable.clear()
        self.commands.clear()
        self.unmovable_title.setText("")
        self.commands_title.setText("")
        self.play_button.setEnabled(False)
        if result is None:
            self.headline.setText("")
            self.why.setText("")
            return
        self.headline.setText("\n".join(evacuation_headline(result)))
        rows = evacuation_table(result, len(result.outcomes))
        labels = [label for label, _ in rows]
        self.plans.setColumnCount(len(labels))
        self.plans.setHorizontalHeaderLabels(labels)
        self.plans.setRowCount(len(result.outcomes))
        for c, (label, cells) in enumerate(rows):
            for r, cell in enumerate(cells):
                item = QTableWidgetItem(cell)
                if label in FIGURES or label == "plan":
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if label == "order":
                    item.setToolTip(" ".join(u for u, _ in result.outcomes[r].candidate.moves))
                self.plans.setItem(r, c, item)
        header = self.plans.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.why.setText(evacuation_why_best(result))
        self.plans.selectRow(0)

    def selected(self) -> int | None:
        """The index (rank - 1) of the plan selected in the table."""
        rows = self.plans.selectionModel().selectedRows() if self.plans.selectionModel() \
            else []
        return rows[0].row() if rows else None

    def _show_plan(self) -> None:
        i = self.selected()
        result = self.result
        if result is None or i is None:
            self.play_button.setEnabled(False)
            return
        outcome = result.outcomes[i]
        gone = evacuation_not_moved(result, outcome)
        self.unmovable_title.setText(f"Not moved by plan {outcome.rank}:" if gone else
                                     f"Plan {outcome.rank} moves every guest.")
        self.unmovable.setPlainText("\n".join(f"{u}: {why}" for u, why in gone))
        self.commands_title.setText(f"Commands of plan {outcome.rank} (seed "
                                    f"{result.seeds[0]}):")
        self.commands.setPlainText(evacuation_commands(result, outcome))
        # a plan stopped once it could not beat the best has no whole timeline to play
        self.play_button.setEnabled(not outcome.stopped)
        self.play_button.setToolTip(
            f"Plan {outcome.rank} was stopped once it could no longer beat the best plan: it "
            f"has no whole timeline to play (ssisim plan evacuate --run-all runs every plan "
            f"to its end)" if outcome.stopped else PLAY_TIP)

    def plan_scenario(self, index: int | None = None) -> ScenarioConfig | None:
        """The scenario with the plan's commands in its timeline (the selected plan's)."""
        i = self.selected() if index is None else index
        if self.result is None or i is None or self.result.outcomes[i].stopped:
            return None
        text = evacuation_scenario(self.result, self.result.outcomes[i])
        return loads_scenario(text)

    def play_selected(self) -> bool:
        """Load the selected plan's scenario into the window; True when it was loaded."""
        i = self.selected()
        sc = self.plan_scenario(i)
        if sc is None or i is None or self.result is None:
            return False
        return self.play(sc, f"evacuation plan {i + 1} of {self.result.member}")

    # -- closing ------------------------------------------------------------------------------
    def reject(self) -> None:
        """Close; a search under way is cancelled."""
        self.cancel()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel a search under way."""
        self.cancel()
        super().closeEvent(event)

"""Plan > Sweep...: a what-if sweep of the loaded scenario, run in the background, with charts.

One or two varied fields with their values (as ``ssisim sweep --vary`` takes them), seeds and
measures; the points are checked before anything runs, then run as a ``PlanJob`` with a
progress bar. When done the dialog shows the table (mean, min and max over seeds) and the chart
of each measure against the first varied field (``ssisim.charts.sweep_measure``, the chart of
``ssisim sweep --chart`` and of the sweep's report), and the sweep is stored in the run
database, where ``ssisim show-sweep`` and ``ssisim report --sweep`` find it.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import (
    SWEEP_MEASURES,
    RunStore,
    ScenarioConfig,
    StoreError,
    SweepError,
    SweepPoint,
    check_measures,
    parse_vary,
    plan_sweep,
    run_sweep,
    sweep_table,
)

from .job_dialog import JobDialog
from .plan_jobs import Cancelled, PlanJob, Progress, default_processes

#: How often the progress bar is brought up to date (ms).
PROGRESS_MS = 100
#: Measures checked when the dialog opens (those of ``ssisim sweep`` without ``--measure``).
DEFAULT_MEASURES = ("relocation_s", "quiesce_s", "passes")


def suggested_paths(scenario: ScenarioConfig) -> list[str]:
    """Fields of this scenario a planner often varies, as sweep paths."""
    out = []
    for g in scenario.guests:
        out += [f"guest.{g.userid}.storage", f"guest.{g.userid}.vcpus"]
    for m in scenario.members:
        out += [f"member.{m.name}.central", f"member.{m.name}.xstor", f"member.{m.name}.cpus"]
    for lk in scenario.links:
        out.append(f"link.{'-'.join(lk.members)}.chpids")
    return [*out, "run.step_s"]


@dataclass(frozen=True)
class SweepDone:
    """What a finished sweep gives the dialog (built off the GUI thread)."""

    rows: list[dict[str, Any]]
    charts: dict[str, Path]  # measure -> PNG
    sweep_id: int | None  # None: not stored
    db: Path | None
    store_error: str = ""


class SweepDialog(JobDialog, QDialog):
    """Set up, run and chart a sweep of the loaded scenario.

    Parameters
    ----------
    scenario : ScenarioConfig
        The scenario as loaded in the window (its text is what the sweep varies).
    db_path : Path, optional
        The run database the sweep is stored in (None: the default one).
    processes : int, optional
        Processes for the points (default: one per core; 1 runs them on a thread).
    """

    def __init__(self, scenario: ScenarioConfig, db_path: Path | None = None,
                 processes: int | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.db_path = db_path
        self.processes = processes or default_processes()
        self.job: PlanJob | None = None
        #: The finished sweep's table, charts and where it was stored.
        self.outcome: SweepDone | None = None
        self.setWindowTitle(f"Sweep - {scenario.name}")
        self.resize(1000, 780)

        paths = suggested_paths(scenario)
        grid = QGridLayout()
        self.vary_paths: list[QComboBox] = []
        self.vary_values: list[QLineEdit] = []
        for i, label in enumerate(("Vary:", "and vary (optional):")):
            box = QComboBox()
            box.setEditable(True)
            box.addItems([""] + paths if i else paths)
            box.setMinimumWidth(300)
            box.setToolTip("A field of the scenario: guest.USERID.FIELD, member.NAME.FIELD, "
                           "link.A-B.chpids, run.FIELD, model.SECTION.PARAMETER (see "
                           "docs/planning.md)")
            values = QLineEdit()
            values.setPlaceholderText("values: 4G,8G,16G or 4G..16G/4G")
            values.setToolTip("A list V1,V2,... or a range LO..HI/STEP (sizes keep their unit)")
            grid.addWidget(QLabel(label), i, 0)
            grid.addWidget(box, i, 1)
            grid.addWidget(QLabel("="), i, 2)
            grid.addWidget(values, i, 3)
            self.vary_paths.append(box)
            self.vary_values.append(values)
        self.seeds = QSpinBox()
        self.seeds.setRange(1, 1000)
        self.seeds.setToolTip("Runs of each point, seeds from the scenario's own; the table "
                              "shows the mean, lowest and highest over them")
        self.until = QLineEdit()
        self.until.setPlaceholderText(f"{scenario.duration_s:g} (duration_s)")
        self.until.setToolTip("Run each point to this simulated time (s); empty: to the "
                              "scenario's duration_s")
        row = QHBoxLayout()
        row.addWidget(self.seeds)
        row.addSpacing(16)
        row.addWidget(QLabel("Run each point to t ="))
        row.addWidget(self.until)
        row.addStretch(1)
        grid.addWidget(QLabel("Seeds:"), 2, 0)
        grid.addLayout(row, 2, 1, 1, 3)
        self.measures = QListWidget()
        self.measures.setFlow(QListWidget.Flow.LeftToRight)
        self.measures.setWrapping(True)
        self.measures.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.measures.setFixedHeight(72)
        names = [*SWEEP_MEASURES, *(f"throughput.{g.userid}" for g in scenario.guests)]
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in DEFAULT_MEASURES
                               else Qt.CheckState.Unchecked)
            item.setToolTip(SWEEP_MEASURES[name][0] if name in SWEEP_MEASURES else
                            "the guest's mean throughput, in its workload's unit")
            self.measures.addItem(item)
        grid.addWidget(QLabel("Measures:"), 3, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.measures, 3, 1, 1, 3)
        self.store = QCheckBox("Store the sweep in the run database (ssisim sweeps lists it)")
        self.store.setChecked(True)
        grid.addWidget(self.store, 4, 1, 1, 3)
        grid.setColumnStretch(3, 1)

        self.run_button = self.start_button = QPushButton("Run sweep")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m runs")
        self.progress.setValue(0)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)

        self.tabs = QTabWidget()
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.tabs.addTab(self.table, "Table")
        self.chart_labels: dict[str, QLabel] = {}

        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(close)

        lay = QVBoxLayout(self)
        lay.addLayout(grid)
        lay.addLayout(run_row)
        lay.addWidget(self.status)
        lay.addWidget(self.tabs, 1)
        lay.addLayout(buttons)

        self.timer = QTimer(self)
        self.timer.setInterval(PROGRESS_MS)
        self.timer.timeout.connect(self._show_progress)

    # -- the form -----------------------------------------------------------------------------
    def set_vary(self, index: int, path: str, values: str) -> None:
        """Fill one varied field (0 or 1) and its values."""
        self.vary_paths[index].setCurrentText(path)
        self.vary_values[index].setText(values)

    def set_measures(self, names: list[str]) -> None:
        """Check exactly these measures."""
        for i in range(self.measures.count()):
            item = self.measures.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names
                               else Qt.CheckState.Unchecked)

    def chosen_measures(self) -> list[str]:
        """The measures checked, in the list's order."""
        return [self.measures.item(i).text() for i in range(self.measures.count())
                if self.measures.item(i).checkState() == Qt.CheckState.Checked]

    def say(self, text: str, error: bool = False) -> None:
        """A line under the progress bar (red for a problem)."""
        self.status.setStyleSheet("color: #d9453b;" if error else "")
        self.status.setText(text)

    def _varies(self) -> list[tuple[str, list[Any]]]:
        out = []
        for box, values in zip(self.vary_paths, self.vary_values):
            path, text = box.currentText().strip(), values.text().strip()
            if not path and not text:
                continue
            if not text:
                raise SweepError(f"{path}: give its values, e.g. 4G,8G or 4G..16G/4G")
            out.append(parse_vary(f"{path}={text}"))
        if not out:
            raise SweepError("choose a field to vary and its values")
        return out

    # -- running ------------------------------------------------------------------------------
    def start(self) -> PlanJob | None:
        """Check the form and every point, then start the sweep; None (and a red line) when
        something is wrong."""
        if self.job is not None:
            return None
        sc = self.scenario
        text, path = sc.source_text, sc.path or "<scenario>"
        try:
            varies = self._varies()
            measures = check_measures(self.chosen_measures(), [g.userid for g in sc.guests])
            if not measures:
                raise SweepError("choose one or more measures")
            until = float(self.until.text()) if self.until.text().strip() else None
            if until is not None and not 0 < until <= 366 * 86400:
                raise SweepError("run each point to a time more than 0 s")
            points = plan_sweep(text, path, varies, self.seeds.value())
        except ValueError as e:  # SweepError, and a time that is no number
            self.say(str(e) if isinstance(e, SweepError) else
                     f"{self.until.text()}: the time is a number of seconds", error=True)
            return None
        store = self.store.isChecked()
        seeds = self.seeds.value()
        db = self.db_path

        def work(progress: Progress, executor: Executor | None) -> SweepDone:
            return _run(sc, text, varies, seeds, measures, until, points, executor,
                        lambda d, n: progress("runs", d, n), store, db)

        self.outcome = None
        self._clear()
        self.progress.setRange(0, len(points))
        self.progress.setValue(0)
        self.say(f"{len(points)} runs ({len(points) // seeds} points, {seeds} seed(s) each) ...")
        return self._launch(work, min(self.processes, len(points)))

    def _show_progress(self) -> None:
        if self.job is not None:
            self.progress.setValue(self.job.state().done)

    def _finished(self, job: PlanJob, done: SweepDone) -> None:
        if not self._end(job):
            return
        self.progress.setValue(self.progress.maximum())
        self.outcome = done
        self._show(done)
        if done.charts:  # drawn on the dialog now: the files are not needed any more
            shutil.rmtree(next(iter(done.charts.values())).parent, ignore_errors=True)
        where = (f"Stored as sweep {done.sweep_id} in {done.db} (ssisim show-sweep "
                 f"{done.sweep_id}; ssisim report --sweep {done.sweep_id} --out DIR)"
                 if done.sweep_id is not None else "Not stored.")
        self.say(f"Done: {len(done.rows)} rows. {where}" if not done.store_error else
                 f"Done, but not stored: {done.store_error}", error=bool(done.store_error))

    def _failed(self, job: PlanJob, e: BaseException) -> None:
        if not self._end(job):
            return
        self.progress.setValue(0)
        if isinstance(e, Cancelled):
            self.say("Cancelled; nothing was stored.")
        else:
            self.say(f"The sweep stopped: {type(e).__name__}: {e}", error=True)

    # -- results ------------------------------------------------------------------------------
    def _clear(self) -> None:
        while self.tabs.count() > 1:
            w = self.tabs.widget(1)
            self.tabs.removeTab(1)
            w.deleteLater()
        self.chart_labels.clear()
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)

    def _show(self, done: SweepDone) -> None:
        rows = done.rows
        cols = list(rows[0]) if rows else []
        self.table.setColumnCount(len(cols))
        self.table.setHorizontalHeaderLabels(cols)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, col in enumerate(cols):
                v = row[col]
                text = "-" if v is None else (f"{v:,.3f}" if isinstance(v, float) else str(v))
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        for measure, png in done.charts.items():
            label = QLabel()
            label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            label.setPixmap(QPixmap(str(png)))
            label.setToolTip(f"{measure} against the first varied field: the mean over the "
                             "seeds, the bar from the lowest to the highest")
            scroll = QScrollArea()
            scroll.setWidget(label)
            scroll.setWidgetResizable(True)
            self.tabs.addTab(scroll, measure)
            self.chart_labels[measure] = label
        if done.charts:
            self.tabs.setCurrentIndex(1)

    # -- closing ------------------------------------------------------------------------------
    def reject(self) -> None:
        """Close; a sweep under way is cancelled."""
        self.cancel()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel a sweep under way."""
        self.cancel()
        super().closeEvent(event)


def _run(sc: ScenarioConfig, text: str, varies: list[tuple[str, list[Any]]], seeds: int,
         measures: list[str], until: float | None, points: list[SweepPoint],
         executor: Executor | None, progress: Any, store: bool,
         db: Path | None) -> SweepDone:
    """Run the points, draw the charts (PNG files in a new temporary folder, which the dialog
    removes once it has shown them) and store the sweep (on the job's thread; no Qt)."""
    from ssisim import __version__, charts

    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    summaries: list[dict[str, Any]] | None = [] if store else None
    results = run_sweep(points, measures, until, executor, progress, summaries)
    rows = sweep_table(points, results, measures)
    folder = Path(tempfile.mkdtemp(prefix="ssisim-sweep-"))
    try:
        pngs = {m: charts.sweep_measure(rows, [p for p, _ in varies], m,
                                        folder / f"sweep-{i}.png", f"{sc.name[:60]}: {m}")
                for i, m in enumerate(measures)}
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if not store:
        return SweepDone(rows, pngs, None, None)
    try:
        with RunStore(db) as runs:
            sweep_id = runs.save_sweep(
                scenario_name=sc.name, scenario_path=sc.path or "<scenario>",
                scenario_hash=sc.source_hash, scenario_text=text, varies=varies, seeds=seeds,
                measures=measures, until_s=until,
                points=[{"values": p.values, "seed": p.seed, "measures": r, "summary": s}
                        for p, r, s in zip(points, results, summaries or [])],
                started_at=now, finished_at=dt.datetime.now(dt.UTC).isoformat(
                    timespec="seconds"), version=__version__)
            return SweepDone(rows, pngs, sweep_id, runs.path)
    except StoreError as e:
        return SweepDone(rows, pngs, None, None, str(e))

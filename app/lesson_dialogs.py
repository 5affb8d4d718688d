"""Training mode's dialogs: the lesson picker, the briefing and the end-of-lesson debrief."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import ScenarioConfig, ScenarioError, format_debrief, load_scenario

from .lesson_panel import STATUS_COLOURS, fmt_duration


@dataclass(frozen=True)
class LessonEntry:
    """A lesson file as the picker lists it (``error`` when the file does not load)."""

    path: Path
    id: str = ""
    title: str = ""
    level: str = ""
    goal: str = ""
    objectives: int = 0
    duration_s: float = 0.0
    error: str = ""


def lessons_dir() -> Path:
    """The folder of the bundled lessons."""
    from ssisim.engine import bundled_dir

    return bundled_dir() / "lessons"


def lesson_entries(folder: Path | None = None) -> list[LessonEntry]:
    """Every lesson file of ``folder`` (default: the bundled ones), in file-name order.

    The list is read from the folder each time, so lessons added to it appear. A file that
    does not load is listed with its error, so a broken lesson is noticed, not skipped.
    """
    out = []
    for p in sorted((folder or lessons_dir()).glob("*.toml")):
        try:
            sc = load_scenario(p)
        except ScenarioError as e:
            out.append(LessonEntry(p, p.stem, p.stem, error=str(e)))
            continue
        if sc.lesson is None:
            continue  # a scenario kept next to the lessons, not a lesson
        les = sc.lesson
        out.append(LessonEntry(p, les.id, les.title, les.level, les.goal, len(sc.objectives),
                               float(sc.duration_s)))
    return out


class LessonPicker(QDialog):
    """The bundled lessons in order, and a way to open a lesson file from disk.

    ``chosen`` is emitted with the path of the lesson to open.
    """

    chosen = Signal(str)

    def __init__(self, entries: list[LessonEntry], start_dir: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open lesson")
        self.entries = entries
        self.start_dir = start_dir
        self.tree = QTreeWidget()
        self.tree.setRootIsDecorated(False)
        self.tree.setHeaderLabels(["Lesson", "Level", "Objectives", "Duration"])
        self.tree.setAlternatingRowColors(True)
        hdr = self.tree.header()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            hdr.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.headerItem().setToolTip(2, "Objectives the lesson is scored on")
        self.tree.headerItem().setToolTip(3, "Simulated time the lesson lasts at most")
        for i, e in enumerate(entries):
            if e.error:
                item = QTreeWidgetItem([f"{e.path.name}: does not load", "", "", ""])
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(0, e.error)
            else:
                item = QTreeWidgetItem([f"{i + 1}. {e.title}", e.level, str(e.objectives),
                                        fmt_duration(e.duration_s)])
                item.setToolTip(0, f"{e.title} ({e.id}, {e.path.name})\n\n{e.goal}")
                item.setTextAlignment(2, Qt.AlignmentFlag.AlignCenter)
                item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight)
            item.setData(0, Qt.ItemDataRole.UserRole, i)
            self.tree.addTopLevelItem(item)
        self.goal = QLabel("")
        self.goal.setWordWrap(True)
        self.goal.setMinimumHeight(self.fontMetrics().height() * 4)
        self.goal.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        buttons = QDialogButtonBox()
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.file_button = buttons.addButton("Open file...",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.file_button.setToolTip("Open a lesson file from disk (a scenario with a [lesson] "
                                    "table and objectives)")
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.open_button.clicked.connect(self._open_selected)
        self.file_button.clicked.connect(self._open_file)
        buttons.rejected.connect(self.reject)
        self.tree.currentItemChanged.connect(lambda _c, _p: self._show_goal())
        self.tree.itemDoubleClicked.connect(lambda _i, _c: self._open_selected())
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Lessons in the order they build on each other:"))
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.goal)
        lay.addWidget(buttons)
        self.resize(720, 460)
        first = next((i for i, e in enumerate(entries) if not e.error), None)
        if first is not None:
            self.tree.setCurrentItem(self.tree.topLevelItem(first))
        self._show_goal()

    def selected(self) -> LessonEntry | None:
        """The lesson selected in the list."""
        item = self.tree.currentItem()
        if item is None:
            return None
        e = self.entries[int(item.data(0, Qt.ItemDataRole.UserRole))]
        return None if e.error else e

    def select(self, lesson_id: str) -> None:
        """Select a lesson by id (or file stem)."""
        for i, e in enumerate(self.entries):
            if lesson_id in (e.id, e.path.stem):
                self.tree.setCurrentItem(self.tree.topLevelItem(i))
                return

    def _show_goal(self) -> None:
        e = self.selected()
        self.open_button.setEnabled(e is not None)
        self.goal.setText("" if e is None else f"<b>Goal:</b> {html.escape(e.goal)}")

    def _open_selected(self) -> None:
        e = self.selected()
        if e is None:
            return
        self.accept()
        self.chosen.emit(str(e.path))

    def _open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open lesson file", self.start_dir,
                                              "Lessons (*.toml);;All files (*)")
        if path:
            self.accept()
            self.chosen.emit(path)


def _paragraphs(text: str) -> str:
    """Prose of a lesson (lines wrapped in the file, blank lines between paragraphs) as HTML."""
    paras = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "".join(f"<p>{html.escape(p)}</p>" for p in paras if p)


class BriefingDialog(QDialog):
    """The lesson's title, briefing, goal and what it is scored on; Start runs the clock."""

    start_requested = Signal()

    def __init__(self, scenario: ScenarioConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        les = scenario.lesson
        assert les is not None
        self.setWindowTitle(f"Lesson: {les.title}")
        title = QLabel(les.title)
        f = QFont(title.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.4)
        title.setFont(f)
        title.setWordWrap(True)
        objectives = "".join(f"<li>{html.escape(o.text)} <i>({o.points:g} points)</i></li>"
                             for o in scenario.objectives)
        hints = ""
        if les.hints:
            costs = ", ".join(f"{h.cost:g}" for h in les.hints)
            hints = (f"<p>{len(les.hints)} hints are available if you are stuck (the Hint button "
                     f"or the HINT command); they cost {costs} points.</p>")
        level = f" &middot; {html.escape(les.level)}" if les.level else ""
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setHtml(
            f"<p><b>Goal:</b> {html.escape(les.goal)}</p>{_paragraphs(les.briefing)}"
            f"<p><b>You are scored on:</b></p><ul>{objectives}</ul>"
            f"<p>Pass mark {les.pass_score:g} points; the lesson lasts at most "
            f"{fmt_duration(scenario.duration_s)} of simulated time{level}.</p>{hints}")
        buttons = QDialogButtonBox()
        self.start_button = buttons.addButton("Start", QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setToolTip("Close the briefing and start the simulated clock")
        self.start_button.setDefault(True)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.setToolTip("Close the briefing; the clock stays paused (Space starts it)")
        self.start_button.clicked.connect(self._start)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
        self.resize(640, 520)

    def _start(self) -> None:
        self.accept()
        self.start_requested.emit()


def debrief_html(d: dict[str, Any]) -> str:
    """The debrief (``LessonTracker.debrief()``) as HTML; decisive events link to their time."""
    esc = html.escape
    out = []
    rows = []
    for o in d["objectives"]:
        colour = STATUS_COLOURS.get(o["status"], STATUS_COLOURS["pending"])
        mark = {"met": "met", "failed": "failed", "pending": "open"}.get(o["status"], "")
        when = f" at {o['t_s']:,.1f} s" if o.get("t_s") is not None else ""
        rows.append(
            f"<tr><td style='color:{colour}'><b>{mark}</b>{when}</td>"
            f"<td align='right'><b>{o['earned']:g}</b>/{o['points']:g}</td>"
            f"<td>{esc(o['text'])}<br><i>{esc(o['detail'])}</i></td></tr>")
    out.append("<h3>Objectives</h3><table cellspacing='0' cellpadding='4' width='100%'>"
               + "".join(rows) + "</table>")
    if d["lost"]:
        out.append("<h3>Points lost</h3><ul>" + "".join(
            f"<li><b>-{x['points']:g}</b> {esc(x['reason'])}</li>" for x in d["lost"])
            + "</ul>")
    if d["decisive_events"]:
        out.append("<h3>What decided it</h3><p>Click a time to show it in the event "
                   "log.</p><table cellspacing='0' cellpadding='2'>" + "".join(
                       f"<tr><td align='right'><a href='t:{e['t_s']}'>{e['t_s']:,.1f} s</a>"
                       f"</td><td>{esc(e['text'])}</td></tr>" for e in d["decisive_events"])
                   + "</table>")
    if d.get("text"):
        out.append("<h3>What to take away</h3>" + _paragraphs(d["text"]))
    return "".join(out)


class DebriefDialog(QDialog):
    """The end of a lesson: the score, passed or not, and why, objective by objective."""

    #: Save the session (the commands issued) for the trainer.
    save_requested = Signal()
    #: ``(t_s)``: show this simulated time in the event log.
    time_clicked = Signal(float)

    def __init__(self, d: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.debrief = d
        les = d.get("lesson") or {}
        self.setWindowTitle(f"Debrief: {les.get('title', 'objectives')}")
        ok = bool(d["passed"])
        colour = STATUS_COLOURS["met" if ok else "failed"]
        self.verdict = QLabel(f"<span style='color:{colour}'>"
                              f"{'Passed' if ok else 'Not passed'}</span>: "
                              f"score {d['score']:g} of {d['max_score']:g}")
        f = QFont(self.verdict.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.5)
        self.verdict.setFont(f)
        ended = f"at t = {d['ended_s']:,.0f} s ({d['end_reason']})" \
            if d.get("ended_s") is not None else "(not ended)"
        hints = f"; hints cost {d['hint_cost']:g} points" if d.get("hint_cost") else ""
        sub = QLabel(f"{html.escape(les.get('title', ''))}: ended {html.escape(ended)}; pass "
                     f"mark {d['pass_score']:g}{hints}.")
        sub.setWordWrap(True)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setHtml(debrief_html(d))
        self.text.anchorClicked.connect(self._clicked)
        buttons = QDialogButtonBox()
        self.save_button: QPushButton = buttons.addButton(
            "Save lesson session...", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button.setToolTip("Save the commands you issued as a session file, for the "
                                    "trainer to grade (ssisim grade)")
        copy = buttons.addButton("Copy as text", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setToolTip("Copy the debrief to the clipboard as plain text")
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.setDefault(True)
        self.save_button.clicked.connect(self.save_requested)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(format_debrief(d)))
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.verdict)
        lay.addWidget(sub)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
        self.resize(760, 600)

    def _clicked(self, url: QUrl) -> None:
        s = url.toString()
        if s.startswith("t:"):
            try:
                self.time_clicked.emit(float(s[2:]))
            except ValueError:
                pass


__all__ = ["BriefingDialog", "DebriefDialog", "LessonEntry", "LessonPicker", "debrief_html",
           "lesson_entries", "lessons_dir"]

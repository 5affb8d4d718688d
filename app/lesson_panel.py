"""The Lesson panel of training mode: objectives as they are decided, score, time, hints.

It is a view: it shows a ``LessonSnapshot`` (from the latest frame) and the lesson's own text
(its ``ScenarioConfig``), and asks for hints and for the lesson's end through signals, which
the window turns into the ``HINT`` and ``LESSON END`` commands.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import OBJECTIVE_KINDS, LessonSnapshot, ObjectiveSnapshot, ScenarioConfig

#: Colours of an objective's status: mid-tones that read on light and dark windows alike.
STATUS_COLOURS = {"pending": "#8a8d93", "met": "#3fa45b", "failed": "#d9453b"}
STATUS_WORDS = {"pending": "open", "met": "met", "failed": "failed"}

#: What the two families of objectives mean, for tooltips.
FAMILIES = {
    "achieve": "Met the first time the condition holds (by its deadline, if it has one); "
               "failed if the deadline or the lesson's end comes first.",
    "always": "Must hold for the whole lesson: failed the first time it breaks, met if it "
              "still holds when the lesson ends.",
}


def kind_tooltip(kind: str) -> str:
    """What an objective kind checks, and how it is decided (the engine's vocabulary)."""
    family, _fields, meaning = OBJECTIVE_KINDS.get(kind, ("achieve", (), kind))
    return f"{kind}: {meaning}.\n{FAMILIES.get(family, '')}"


def fmt_duration(seconds: float) -> str:
    """``9:32`` or ``1:02:05`` for a number of simulated seconds."""
    s = max(0, int(round(seconds)))
    if s >= 3600:
        return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def settle_end_s(les: LessonSnapshot, settle_s: float) -> float | None:
    """When a lesson whose tasks (achieve objectives) are all decided will end; None while
    one is open. The lesson runs on ``settle_s`` after the last one, within its duration."""
    achieve = [o for o in les.objectives
               if OBJECTIVE_KINDS.get(o.kind, ("achieve",))[0] == "achieve"]
    if not achieve or any(o.status == "pending" for o in achieve):
        return None
    last = max(o.t_s or 0.0 for o in achieve)
    return min(last + settle_s, les.end_s)


class StatusIcon(QWidget):
    """A round mark: a grey ring while open, green with a tick when met, red with a cross
    when failed. Drawn, so it does not depend on the fonts' symbols."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = "pending"
        self.setFixedSize(QSize(18, 18))

    def set_status(self, status: str) -> None:
        """Show ``pending``, ``met`` or ``failed``."""
        if status != self.status:
            self.status = status
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = QColor(STATUS_COLOURS.get(self.status, STATUS_COLOURS["pending"]))
        r = self.rect().adjusted(2, 2, -2, -2)
        if self.status == "pending":
            p.setPen(QPen(colour, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(r)
            p.end()
            return
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawEllipse(r)
        pen = QPen(QColor("#ffffff"), 2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        c = r.center()
        x, y = float(c.x()), float(c.y())
        if self.status == "met":
            p.drawPolyline([QPointF(x - 4, y), QPointF(x - 1, y + 3), QPointF(x + 4, y - 3)])
        else:
            p.drawLine(QPointF(x - 3, y - 3), QPointF(x + 3, y + 3))
            p.drawLine(QPointF(x - 3, y + 3), QPointF(x + 3, y - 3))
        p.end()


class ObjectiveRow(QFrame):
    """One objective: its status mark, its points, its text and what decided it."""

    def __init__(self, o: ObjectiveSnapshot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.objective_id = o.id
        self.icon = StatusIcon()
        self.points = QLabel("")
        self.points.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.points.setMinimumWidth(self.fontMetrics().horizontalAdvance("100 pts") + 4)
        self.text = QLabel(o.text)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        small = QFont(self.detail.font())
        small.setPointSizeF(small.pointSizeF() * 0.92)
        self.detail.setFont(small)
        self.detail.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.detail.hide()
        words = QVBoxLayout()
        words.setSpacing(1)
        words.addWidget(self.text)
        words.addWidget(self.detail)
        row = QHBoxLayout(self)
        row.setContentsMargins(2, 3, 2, 3)
        row.setSpacing(6)
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(words, 1)
        row.addWidget(self.points, 0, Qt.AlignmentFlag.AlignTop)
        self._shown: tuple[str, str, float | None] | None = None
        self.show_objective(o)

    def show_objective(self, o: ObjectiveSnapshot) -> None:
        """Show the objective's state now (nothing is redrawn when it did not change)."""
        key = (o.status, o.detail, o.t_s)
        if key == self._shown:
            return
        self._shown = key
        self.icon.set_status(o.status)
        colour = STATUS_COLOURS.get(o.status, STATUS_COLOURS["pending"])
        self.points.setText(f"<span style='color:{colour}'><b>{o.points:g}</b> pts</span>")
        if o.status == "pending":
            detail = o.detail
        else:
            detail = f"{STATUS_WORDS[o.status]} at {o.t_s:,.1f} s" if o.t_s is not None \
                else STATUS_WORDS[o.status]
            if o.detail:
                detail += f": {o.detail}"
        self.detail.setText(detail)
        self.detail.setVisible(bool(detail))
        state = {"pending": "Open: not decided yet.", "met": f"Met: {o.points:g} points earned.",
                 "failed": "Failed: its points are lost."}[o.status]
        tip = f"{state}\n\n{kind_tooltip(o.kind)}"
        for w in (self, self.icon, self.points, self.text, self.detail):
            w.setToolTip(tip)

    @property
    def status(self) -> str:
        """``pending``, ``met`` or ``failed``, as shown."""
        return self.icon.status


class LessonPanel(QWidget):
    """Training mode's panel: what to do, how it is going, and help at a price."""

    #: The student asks for the next hint.
    hint_requested = Signal()
    #: The student wants to end the lesson now.
    end_requested = Signal()
    #: Show the briefing again.
    briefing_requested = Signal()
    #: Show the debrief again (after the lesson's end).
    debrief_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("")
        f = QFont(self.title.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.title.setFont(f)
        self.title.setWordWrap(True)
        self.level = QLabel("")
        self.level.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.goal = QLabel("")
        self.goal.setWordWrap(True)
        self.goal.setToolTip("What the lesson is about; the objectives below say how it is "
                             "scored.")

        self.score = QLabel("")
        big = QFont(self.score.font())
        big.setPointSizeF(big.pointSizeF() * 1.5)
        big.setBold(True)
        self.score.setFont(big)
        self.score.setToolTip("Points of the objectives met so far, less what the hints cost, "
                              "of the points all objectives are worth.")
        self.pass_mark = QLabel("")
        self.pass_mark.setWordWrap(True)
        self.pass_mark.setToolTip("The score needed to pass the lesson, when it ends.")
        self.verdict = QLabel("")
        self.verdict.setFont(big)
        self.clock = QLabel("")
        self.clock.setWordWrap(True)
        self.clock.setToolTip("Simulated time left before the lesson ends by itself (its "
                              "duration); it also ends as soon as every task is decided.")

        self.rows_box = QWidget()
        self.rows = QVBoxLayout(self.rows_box)
        self.rows.setContentsMargins(0, 0, 0, 0)
        self.rows.setSpacing(2)
        self.rows.addStretch(1)
        self.row_widgets: list[ObjectiveRow] = []
        self.hints_title = QLabel("<b>Hints</b>")
        self.hints = QLabel("")
        self.hints.setWordWrap(True)
        self.hints.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hints.setToolTip("The hints shown so far; each cost the points it says.")
        body = QWidget()
        bl = QVBoxLayout(body)
        bl.setContentsMargins(0, 0, 4, 0)
        bl.addWidget(self.rows_box)
        bl.addWidget(self.hints_title)
        bl.addWidget(self.hints)
        bl.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll = scroll

        self.briefing_button = QPushButton("Briefing")
        self.briefing_button.setToolTip("Read the lesson's briefing again (LESSON BRIEFING in "
                                        "the console shows it too)")
        self.hint_button = QPushButton("Hint")
        self.end_button = QPushButton("End lesson")
        self.end_button.setToolTip("End the lesson now (LESSON END): objectives not met yet "
                                   "fail, the score is final")
        self.debrief_button = QPushButton("Debrief")
        self.debrief_button.setToolTip("What decided the score, objective by objective")
        self.debrief_button.hide()
        buttons = QHBoxLayout()
        buttons.setSpacing(4)
        for b in (self.briefing_button, self.hint_button, self.end_button, self.debrief_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.level, 0, Qt.AlignmentFlag.AlignTop)
        score = QHBoxLayout()
        score.addWidget(self.score)
        score.addStretch(1)
        score.addWidget(self.verdict)
        objectives = QLabel("<b>Objectives</b>")
        objectives.setToolTip("Each is decided by the simulation as you work: a grey ring is "
                              "open, green met, red failed. Hover one for how it is decided.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addWidget(self.goal)
        lay.addLayout(score)
        lay.addWidget(self.pass_mark)
        lay.addWidget(self.clock)
        lay.addWidget(_rule())
        lay.addWidget(objectives)
        lay.addWidget(scroll, 1)
        lay.addLayout(buttons)

        self.briefing_button.clicked.connect(self.briefing_requested)
        self.hint_button.clicked.connect(self.hint_requested)
        self.end_button.clicked.connect(self.end_requested)
        self.debrief_button.clicked.connect(self.debrief_requested)
        self.hint_costs: tuple[float, ...] = ()
        self.hint_texts: tuple[str, ...] = ()
        self.lesson: LessonSnapshot | None = None
        self.set_scenario(None)

    def sizeHint(self) -> QSize:
        """Wide enough for an objective's sentence on two or three lines."""
        return QSize(360, 600)

    # -- what the lesson is --------------------------------------------------------------------
    def set_scenario(self, scenario: ScenarioConfig | None) -> None:
        """Show the lesson's own text (title, goal, hints); objectives come with snapshots."""
        les = scenario.lesson if scenario is not None else None
        self.lesson = None
        for w in self.row_widgets:
            w.setParent(None)
            w.deleteLater()
        self.row_widgets = []
        # the lesson runs on this long after its last task is decided (0 for older engines)
        self.settle_s = float(getattr(les, "settle_s", 0.0) or 0.0) if les is not None else 0.0
        if les is not None:
            self.title.setText(les.title)
            self.level.setText(les.level)
            self.goal.setText(les.goal)
            self.hint_costs = tuple(h.cost for h in les.hints)
            self.hint_texts = tuple(h.text for h in les.hints)
        else:
            self.title.setText("Objectives" if scenario is None
                               else f"Objectives: {scenario.name}")
            self.level.setText("")
            self.goal.setText("")
            self.hint_costs = ()
            self.hint_texts = ()
        self.goal.setVisible(bool(self.goal.text()))
        self.briefing_button.setVisible(les is not None)
        has_hints = bool(self.hint_costs)
        self.hint_button.setVisible(has_hints)
        self.end_button.setVisible(True)
        self.end_button.setEnabled(True)
        self.hints_title.setVisible(has_hints)
        self.hints.setVisible(has_hints)
        self.hints.setText("None used yet." if has_hints else "")
        self.debrief_button.hide()
        self.score.setText("")
        self.pass_mark.setText("")
        self.verdict.setText("")
        self.clock.setText("")

    # -- how it is going -----------------------------------------------------------------------
    def show_lesson(self, les: LessonSnapshot, t_s: float) -> None:
        """Show the objectives, the score and the time left at simulated time ``t_s``."""
        self.lesson = les
        ids = [o.id for o in les.objectives]
        if ids != [w.objective_id for w in self.row_widgets]:
            for w in self.row_widgets:
                w.setParent(None)
                w.deleteLater()
            self.row_widgets = []
            for i, o in enumerate(les.objectives):
                w = ObjectiveRow(o)
                self.rows.insertWidget(i, w)
                self.row_widgets.append(w)
        for w, o in zip(self.row_widgets, les.objectives):
            w.show_objective(o)
        self._set(self.score, f"Score {les.score:g} of {les.max_score:g}")
        costs = f"; hints used cost {les.hint_cost:g}" if les.hint_cost else ""
        self._set(self.pass_mark, f"Pass mark {les.pass_score:g}{costs}")
        if les.ended:
            ok = les.passed
            colour = STATUS_COLOURS["met" if ok else "failed"]
            self._set(self.verdict, f"<span style='color:{colour}'>"
                      f"{'PASSED' if ok else 'NOT PASSED'}</span>")
            when = f"{les.ended_s:,.0f} s" if les.ended_s is not None else f"{t_s:,.0f} s"
            self._set(self.clock, f"Ended at t = {when} ({les.end_reason}); the clock is "
                      "stopped. Reset starts the lesson again.")
        else:
            self._set(self.verdict, "")
            end = settle_end_s(les, self.settle_s)
            if end is not None:
                self._set(self.clock, f"Every task is decided: the lesson ends at about "
                          f"t = {end:,.0f} s, so what was done has {self.settle_s:g} s to "
                          "show its effects.")
            else:
                left = les.end_s - t_s
                self._set(self.clock, f"Time left {fmt_duration(left)} (the lesson ends at "
                          f"t = {les.end_s:,.0f} s)")
        n = les.hints_used
        shown = [f"<b>{i + 1}.</b> {self.hint_texts[i]} <i>(-{self.hint_costs[i]:g})</i>"
                 for i in range(min(n, len(self.hint_texts)))]
        self._set(self.hints, "<br>".join(shown) if shown else "None used yet.")
        if n < len(self.hint_costs):
            self._set_button(self.hint_button, f"Hint {n + 1}/{len(self.hint_costs)} "
                             f"(-{self.hint_costs[n]:g})", not les.ended,
                             f"Show hint {n + 1}: it costs {self.hint_costs[n]:g} points of "
                             "your score (the HINT command)")
        else:
            self._set_button(self.hint_button, "No more hints", False,
                             "Every hint of the lesson has been shown")
        self.end_button.setEnabled(not les.ended)
        # once ended: the debrief takes the place of the buttons that no longer apply
        self.hint_button.setVisible(bool(self.hint_costs) and not les.ended)
        self.end_button.setVisible(not les.ended)
        self.debrief_button.setVisible(les.ended)

    @staticmethod
    def _set(label: QLabel, text: str) -> None:
        if label.text() != text:
            label.setText(text)

    @staticmethod
    def _set_button(b: QPushButton, text: str, enabled: bool, tip: str) -> None:
        if b.text() != text:
            b.setText(text)
            b.setToolTip(tip)
        b.setEnabled(enabled)

    def statuses(self) -> dict[str, str]:
        """Each objective's status as shown, by id."""
        return {w.objective_id: w.status for w in self.row_widgets}


def _rule() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


__all__ = ["LessonPanel", "ObjectiveRow", "STATUS_COLOURS", "StatusIcon", "fmt_duration",
           "kind_tooltip"]

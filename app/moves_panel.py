"""Every guest on the move or being paused, live: LGR, LPM, Storage vMotion, suspend, resume and
CP STOP side by side, each with its phase, a progress bar and its downtime."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from .elided_label import ElidedLabel
from .glossary import TERMS
from .lazy_panel import LazyPanel
from .model import SessionModel
from .moves import KIND_LABELS, MoveLine, move_lines
from .theme import STATE_COLOURS, contrast_text
from .tier_bar import TierBar

#: Most lines shown: every move under way, then the latest ended ones.
MAX_LINES = 40

EMPTY = ("Nothing on the move yet. Relocations (VMRELOCATE, or drag a guest), partition "
         "migrations (LPM userid TO member), Storage vMotions (VMOTION userid TO datastore) and "
         "pauses (LINUX userid SUSPEND|RESUME, SEND CP userid STOP|BEGIN) appear here as they "
         "happen.")

#: What each kind of line is, for its badge's tooltip.
KIND_TIPS = {"LGR": TERMS["relocating"], "LPM": TERMS["lpm"], "VMOTION": TERMS["vmotion"],
             "suspend": TERMS["suspend"], "resume": TERMS["resume"], "stop": TERMS["stopped"]}


class MoveRow(QFrame):
    """One move or pause: a badge with its kind, the guest and where, the phase, a progress bar
    for the current pass or phase, and the downtime."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.line: MoveLine | None = None
        self.badge = QLabel("")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setMinimumWidth(64)
        self.title = QLabel("")
        f = QFont(self.title.font())
        f.setBold(True)
        self.title.setFont(f)
        #: the phase, right-aligned; cut short where the panel is narrow (all of it on hover)
        self.status = ElidedLabel("")
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.bar = TierBar("", STATE_COLOURS["relocating"])
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        small = QFont(self.detail.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.detail.setFont(small)
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        grid.addWidget(self.badge, 0, 0)
        grid.addWidget(self.title, 0, 1)
        grid.addWidget(self.status, 0, 2)
        grid.addWidget(self.bar, 1, 0, 1, 3)
        grid.addWidget(self.detail, 2, 0, 1, 3)
        grid.setColumnStretch(2, 1)

    def set_line(self, line: MoveLine) -> None:
        """Show ``line`` (only what changed is redrawn)."""
        if line == self.line:
            return
        old = self.line
        self.line = line
        if old is None or (old.kind, old.colour_state, old.active) != \
                (line.kind, line.colour_state, line.active):
            colour = STATE_COLOURS.get(line.colour_state, STATE_COLOURS["relocating"])
            fg = contrast_text(colour).name()
            self.badge.setText(KIND_LABELS.get(line.kind, line.kind))
            self.badge.setStyleSheet(f"background:{colour}; color:{fg}; border-radius:3px;"
                                     "padding:1px 6px;")
            self.badge.setToolTip(KIND_TIPS.get(line.kind, ""))
            self.bar.set_colour(colour)
        self.title.setText(f"{html.escape(line.userid)}  {html.escape(line.where)}")
        self.status.set_full_text(line.status)
        if line.progress is None:
            self.bar.set_value(0.0, line.progress_text)
        else:
            pct = f"{line.progress:.0%}"
            self.bar.set_value(line.progress, f"{pct}  {line.progress_text}", pct)
        self.bar.setToolTip(line.progress_text)
        self.detail.setText(line.detail)
        # an ended move stays, greyed, under those still under way
        self.title.setEnabled(line.active)
        self.detail.setEnabled(line.active)


class MovesPanel(LazyPanel):
    """Moves and pauses under way first, then the ended ones; one ``MoveRow`` each."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.rows: dict[str, MoveRow] = {}
        self.summary = QLabel(EMPTY)
        self.summary.setWordWrap(True)
        self.summary.setToolTip(TERMS["downtime"])
        self._box = QWidget()
        self._list = QVBoxLayout(self._box)
        self._list.setContentsMargins(0, 0, 0, 0)
        self._list.setSpacing(4)
        self._list.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(self._box)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.summary)
        lay.addWidget(scroll, 1)
        self._order: list[str] = []
        model.reset.connect(self._on_reset)
        model.updated.connect(lambda _f: self.refresh())

    def _on_reset(self) -> None:
        for row in self.rows.values():
            row.setParent(None)
            row.deleteLater()
        self.rows.clear()
        self._order = []
        self.refresh(force=True)

    def lines(self) -> list[MoveLine]:
        """The lines of the latest snapshot, as shown (see ``moves.move_lines``)."""
        snap = self.model.snapshot
        return move_lines(snap)[:MAX_LINES] if snap is not None else []

    def refresh(self, force: bool = False) -> None:
        """Show the latest snapshot (skipped while hidden)."""
        if self.skip_hidden(force):
            return
        lines = self.lines()
        keys = [x.key for x in lines]
        for key in [k for k in self.rows if k not in keys]:
            row = self.rows.pop(key)
            row.setParent(None)
            row.deleteLater()
        for x in lines:
            row = self.rows.get(x.key)
            if row is None:
                row = self.rows[x.key] = MoveRow()
            row.set_line(x)
        if keys != self._order:
            # the stretch stays last; rows go in the order of the lines
            for i, key in enumerate(keys):
                self._list.insertWidget(i, self.rows[key])
            self._order = keys
        active = sum(1 for x in lines if x.active)
        if not lines:
            self.summary.setText(EMPTY)
        else:
            stopped = [x.userid for x in lines if x.stopped]
            text = f"{active} under way, {len(lines) - active} ended"
            if stopped:
                text += f"; stopped now: {', '.join(stopped)}"
            self.summary.setText(text)

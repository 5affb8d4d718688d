"""The legend of guest states: a swatch and a name each, with what the state means."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from ssisim.engine import VERBS

from .flow_layout import FlowLayout
from .glossary import TERMS
from .theme import STATE_COLOURS, STATE_LABELS, STATE_ORDER

#: The command that puts a guest in a state; without it in the engine the state cannot occur
#: yet, and the legend says so.
NEEDS_VERB = {"stopped": "STOP", "suspending": "LINUX", "suspended": "LINUX",
              "resuming": "LINUX"}


def not_modelled() -> list[str]:
    """States the engine cannot produce (its command is missing)."""
    verbs = {v for v, _ in VERBS}
    return [state for state, verb in NEEDS_VERB.items() if verb not in verbs]


class _Swatch(QWidget):
    def __init__(self, colour: str, dashed: bool = False) -> None:
        super().__init__()
        self.colour = QColor(colour)
        self.dashed = dashed
        self.setFixedSize(QSize(15, 13))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.dashed:
            fill = QColor(self.colour)
            fill.setAlpha(40)
            p.setBrush(fill)
            p.setPen(QPen(self.colour, 1.5, Qt.PenStyle.DashLine))
        else:
            p.setBrush(self.colour)
            p.setPen(QPen(self.colour.darker(130)))
        p.drawRoundedRect(self.rect().adjusted(1, 1, -1, -1), 3, 3)
        p.end()


class StateLegend(QWidget):
    """One row: every guest state the tiles can show, with its colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # entries wrap onto more rows when the window is narrow; tight, so that the eleven
        # states fit one row at 1600 pixels
        lay = FlowLayout(self, spacing=3)
        lay.setContentsMargins(4, 0, 4, 0)
        self.entries: dict[str, QWidget] = {}
        missing = not_modelled()
        for state in (*STATE_ORDER, "incoming"):
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 5, 0)
            row.setSpacing(3)
            row.addWidget(_Swatch(STATE_COLOURS[state], dashed=state == "incoming"))
            text = STATE_LABELS[state]
            tip = TERMS.get(state, "")
            if state in missing:
                text += " *"
                tip += " (not yet modelled: no guest shows this state yet)"
            row.addWidget(QLabel(text))
            box.setToolTip(tip)
            lay.addWidget(box)
            self.entries[state] = box
        if missing:
            note = QLabel("* not yet modelled")
            note.setEnabled(False)
            lay.addWidget(note)

"""The quiesce timer: counts the seconds a relocating guest stays stopped."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget

from ssisim.engine import RelocationSnapshot

from .glossary import TERMS
from .theme import STATE_COLOURS


class QuiesceTimer(QWidget):
    """Big figure of quiesce seconds: grey before, red while the guest is stopped, then final."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel("Quiesce")
        self.figure = QLabel("-")
        f = QFont(self.figure.font())
        f.setPointSizeF(f.pointSizeF() * 2.2)
        f.setBold(True)
        f.setStyleHint(QFont.StyleHint.Monospace)
        self.figure.setFont(f)
        self.figure.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.limit = QProgressBar()
        self.limit.setTextVisible(True)
        self.limit.setMaximumHeight(14)
        self.limit.setRange(0, 1000)
        self.note = QLabel("")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.setSpacing(2)
        lay.addWidget(self.caption)
        lay.addWidget(self.figure)
        lay.addWidget(self.limit)
        lay.addWidget(self.note)
        self.setToolTip(TERMS["quiesce"])
        self.counting = False
        self.seconds = 0.0

    def show_relocation(self, r: RelocationSnapshot | None) -> None:
        """Show the quiesce time of ``r`` so far."""
        if r is None:
            self.counting = False
            self.seconds = 0.0
            self.figure.setText("-")
            self.figure.setStyleSheet("")
            self.caption.setText("Quiesce")
            self.note.setText("")
            self.limit.hide()
            return
        self.seconds = r.quiesce_s
        self.counting = r.state == "quiesced"
        limit = r.maxquiesce_s  # the typed option (None: NOLIMIT)
        if r.quiesce_start_s is None:
            self.figure.setText("0.0 s")
            self.figure.setStyleSheet("color: palette(mid);")
            self.caption.setText("Quiesce (guest running)")
        else:
            self.figure.setText(f"{r.quiesce_s:.1f} s")
            colour = STATE_COLOURS["quiesced"] if self.counting else ""
            self.figure.setStyleSheet(f"color: {colour};" if colour else "")
            self.caption.setText("Quiesce: guest STOPPED" if self.counting
                                 else "Quiesce time (guest stopped)")
        if limit is not None:
            self.limit.show()
            self.limit.setValue(int(min(1.0, r.quiesce_s / limit) * 1000))
            self.limit.setFormat(f"MAXQUIESCE {limit:g} s")
        else:
            self.limit.hide()
        self.note.setText("MAXQUIESCE NOLIMIT" if limit is None else "")

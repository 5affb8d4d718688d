"""A labelled horizontal gauge: used of total, with the figures written on it."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget


class TierBar(QWidget):
    """A gauge like ``Central  12.1 / 15.8G  77%``, filled in the tier's colour.

    Parameters
    ----------
    label : str
        What the gauge measures (left).
    colour : str
        Fill colour.
    mark : float, optional
        A fraction to mark with a tick (the 50 % rule of thumb for paging space).
    """

    def __init__(self, label: str, colour: str, mark: float | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        self.colour = QColor(colour)
        self.mark = mark
        self.fraction = 0.0
        self.text = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_value(self, fraction: float, text: str) -> None:
        """Fill to ``fraction`` (0..1) and write ``text``; repaints only on change."""
        fraction = max(0.0, min(1.0, fraction))
        if abs(fraction - self.fraction) < 1e-3 and text == self.text:
            return
        self.fraction = fraction
        self.text = text
        self.update()

    def sizeHint(self) -> QSize:
        """One text line high."""
        return QSize(200, self.fontMetrics().height() + 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Track, fill, optional mark, label and figures."""
        p = QPainter(self)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        pal = self.palette()
        track = pal.color(QPalette.ColorRole.Base)
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid)))
        p.setBrush(track)
        p.drawRoundedRect(r, 3, 3)
        fill = QColor(self.colour)
        fill.setAlpha(170)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(fill)
        p.drawRoundedRect(QRectF(r.left(), r.top(), r.width() * self.fraction, r.height()), 3, 3)
        if self.mark is not None:
            x = r.left() + r.width() * self.mark
            p.setPen(QPen(pal.color(QPalette.ColorRole.WindowText), 1, Qt.PenStyle.DotLine))
            p.drawLine(int(x), int(r.top()), int(x), int(r.bottom()))
        p.setPen(pal.color(QPalette.ColorRole.Text))
        inner = r.adjusted(6, 0, -6, 0)
        p.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, self.label)
        p.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, self.text)
        p.end()

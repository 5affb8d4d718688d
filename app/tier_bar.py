"""A labelled horizontal gauge: used of total, with the figures written on it.

A narrow gauge never writes its label over its figures: it takes the label's short form, then
the figures' shorter forms, then leaves the label out (the tooltip still says what it is).
"""

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
    short_label : str, optional
        The label where the whole one does not fit beside the figures (``Paging``).
    """

    #: Space kept between the label and the figures (pixels).
    GAP = 10

    def __init__(self, label: str, colour: str, mark: float | None = None,
                 parent: QWidget | None = None, short_label: str | None = None) -> None:
        super().__init__(parent)
        self.label = label
        self.short_label = short_label or label
        self.colour = QColor(colour)
        self.mark = mark
        self.fraction = 0.0
        self.text = ""
        self.shorter: tuple[str, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_value(self, fraction: float, text: str, *shorter: str) -> None:
        """Fill to ``fraction`` (0..1) and write ``text`` (or, where it does not fit, the first
        of ``shorter`` that does); repaints only on change."""
        fraction = max(0.0, min(1.0, fraction))
        if abs(fraction - self.fraction) < 1e-3 and text == self.text and shorter == self.shorter:
            return
        self.fraction = fraction
        self.text = text
        self.shorter = shorter
        self.update()

    def set_colour(self, colour: str) -> None:
        """Fill in another colour."""
        c = QColor(colour)
        if c != self.colour:
            self.colour = c
            self.update()

    def shown(self, width: float | None = None) -> tuple[str, str]:
        """``(label, figures)`` as drawn at ``width`` pixels of text room (default: now): the
        longest forms that fit side by side, the label left out last of all."""
        fm = self.fontMetrics()
        room = (self.width() - 12) if width is None else width
        texts = (self.text, *self.shorter)
        for label, text in [(self.label, t) for t in texts[:1]] + \
                [(self.short_label, t) for t in texts] + [("", t) for t in texts]:
            need = fm.horizontalAdvance(text) + (fm.horizontalAdvance(label) + self.GAP
                                                 if label else 0)
            if need <= room:
                return label, text
        return "", fm.elidedText(texts[-1], Qt.TextElideMode.ElideRight, int(max(room, 0)))

    def sizeHint(self) -> QSize:
        """One text line high."""
        return QSize(200, self.fontMetrics().height() + 6)

    def minimumSizeHint(self) -> QSize:
        """Narrow: a gauge gives up its label before it pushes the panel wider."""
        return QSize(40, self.fontMetrics().height() + 6)

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
        label, text = self.shown(inner.width())
        if label:
            p.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)
        p.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, text)
        p.end()

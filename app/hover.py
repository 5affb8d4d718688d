"""Tooltips for what is drawn inside pyqtgraph plots (bars and spans have none of their own)."""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF
from PySide6.QtGui import QCursor, QHelpEvent
from PySide6.QtWidgets import QToolTip


class PlotHover(QObject):
    """Shows ``text_at(x, y)`` as a tooltip where the mouse is over ``plot``'s view.

    ``text_at`` receives view coordinates and returns the text, or None for no tooltip. A second
    function, ``axis_text_at(y)``, answers for the left axis (the row labels). Where both say
    None, the plot widget's own tooltip (what the whole plot means) shows.
    """

    def __init__(self, widget: pg.PlotWidget, plot: pg.PlotItem,
                 text_at: Callable[[float, float], str | None],
                 axis_text_at: Callable[[float], str | None] | None = None) -> None:
        super().__init__(widget)
        self.widget = widget
        self.plot = plot
        self.text_at = text_at
        self.axis_text_at = axis_text_at
        self.last_text: str | None = None
        # the proxy limits the rate; pyqtgraph's mouseRateLimit applies to it in tests
        self._proxy = pg.SignalProxy(plot.scene().sigMouseMoved, rateLimit=30, slot=self._moved)
        # Qt asks the viewport for a tooltip when the mouse rests, and again 20 ms after each
        # move while one shows; unanswered, the question reaches the plot widget, whose own
        # tooltip then replaced the bar's a moment after it appeared: answer it here
        widget.viewport().installEventFilter(self)

    def text_for_scene_pos(self, pos: QPointF) -> str | None:
        """The tooltip text for a point in scene coordinates (None: none)."""
        vb = self.plot.getViewBox()
        if vb.sceneBoundingRect().contains(pos):
            p = vb.mapSceneToView(pos)
            return self.text_at(p.x(), p.y())
        axis = self.plot.getAxis("left")
        if self.axis_text_at is not None and axis.sceneBoundingRect().contains(pos):
            return self.axis_text_at(vb.mapSceneToView(pos).y())
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Answer the viewport's tooltip question with the text of what is under the mouse."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.text_for_scene_pos(self.widget.mapToScene(event.pos()))
            if text:
                self.last_text = text
                QToolTip.showText(event.globalPos(), text, self.widget)
                return True
        return False  # no text of its own: the plot's tooltip answers

    def _moved(self, args: tuple) -> None:
        pos = args[0]
        text = self.text_for_scene_pos(pos)
        self.last_text = text
        if text:
            QToolTip.showText(QCursor.pos(), text, self.widget)
        else:
            QToolTip.hideText()

    def show_at(self, pos: QPoint) -> None:
        """Show the tooltip for a point in widget coordinates (keyboard and tests)."""
        self._moved((self.widget.mapToScene(pos),))

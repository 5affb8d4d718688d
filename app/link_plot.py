"""What the ISFC link carried for a relocation, against what it could carry."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from .glossary import TERMS
from .history import RelocationSeries
from .plot_style import (
    MIN_SPAN_S,
    SteadyRange,
    keyed_title,
    pen,
    plain_axis,
    style_plot,
    wide_title,
)

#: 4 KiB pages per second to MiB per second.
MB_PER_PAGE = 4096 / 2**20


class LinkPlot(QWidget):
    """Link throughput in MB/s over simulated time; the dashed line is the link's capacity."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widget = pg.PlotWidget()
        self.plot = self.widget.getPlotItem()
        # short words: the plot is narrow in a small window
        self.plot.setTitle(keyed_title("Link MB/s", [("#2f7fe0", "sent"),
                                                      ("#888888", "max")]), size="9pt")
        wide_title(self.plot)
        self.plot.setLabel("bottom", "time", units="s")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(y=True, alpha=0.2)
        plain_axis(self.plot, "left", "bottom")
        self.range = SteadyRange(self.plot)
        self.range.set_x(0, MIN_SPAN_S)
        self.range.set_y(1)
        self.sent = self.plot.plot(pen=pen("#2f7fe0", 2), name="sent")
        self.capacity = self.plot.plot(pen=pen("#888888", 1.5, dashed=True), name="capacity")
        self.widget.setToolTip(TERMS["link"])
        self._version = (-1, -1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.widget)
        self.restyle()

    def restyle(self) -> None:
        """Colours from the palette."""
        style_plot(self.widget, [self.plot])

    def show_series(self, series: RelocationSeries | None) -> None:
        """Draw a relocation's series (None: empty)."""
        if series is None:
            self.sent.setData([], [])
            self.capacity.setData([], [])
            self._version = (-1, -1)
            self.range.set_x(0, MIN_SPAN_S)
            self.range.set_y(1)
            return
        version = (id(series), series.cols.n)
        if version == self._version:
            return
        self._version = version
        t = series.t
        sent = series.pages_per_s * MB_PER_PAGE
        cap = series.capacity * MB_PER_PAGE
        self.sent.setData(t, sent)
        self.capacity.setData(t, np.where(cap > 0, cap, np.nan), connect="finite")
        # at least a second: a relocation's first sample alone gave an axis of nanoseconds
        self.range.set_x(float(t[0]), max(float(t[-1]), float(t[0]) + 1.0))
        self.range.set_y(max(float(cap.max()), float(sent.max()), 1.0))

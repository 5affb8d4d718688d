"""Pages sent in each memory-move pass of a relocation, one bar per pass."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget
from ssisim.engine import RelocationSnapshot

from .glossary import TERMS
from .hover import PlotHover
from .plot_style import keyed_title, plain_axis, style_plot
from .theme import PASS_COLOURS


class PassChart(QWidget):
    """A bar per pass: pages sent so far; live passes blue, quiesced passes red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widget = pg.PlotWidget()
        self.plot = self.widget.getPlotItem()
        self.plot.setTitle(keyed_title("Pages per pass", []))
        self.plot.setLabel("bottom", "pass")
        self.plot.setLabel("left", "thousand pages")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.showGrid(y=True, alpha=0.2)
        plain_axis(self.plot, "left")
        self.plot.getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(1, 19)]])
        self.bars = pg.BarGraphItem(x=np.array([1.0]), height=np.array([0.0]), width=0.7,
                                    brushes=[pg.mkBrush(PASS_COLOURS["first"])])
        self.plot.addItem(self.bars)
        self.plot.setXRange(0.4, 8.6, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.widget.setToolTip(TERMS["pass"])
        self._passes: tuple = ()
        self.hover = PlotHover(self.widget, self.plot, self._text_at)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.widget)
        self.restyle()

    def restyle(self) -> None:
        """Colours from the palette."""
        style_plot(self.widget, [self.plot])

    def show_relocation(self, r: RelocationSnapshot | None) -> None:
        """Draw the passes of ``r`` (None: empty)."""
        passes = r.passes if r is not None else ()
        if passes == self._passes:
            return
        self._passes = passes
        n = len(passes)
        if n == 0:
            self.bars.setOpts(x=np.array([1.0]), height=np.array([0.0]),
                              brushes=[pg.mkBrush(PASS_COLOURS["first"])])
            self.plot.setXRange(0.4, 8.6, padding=0)
            self.plot.setYRange(0, 1, padding=0)
            return
        x = np.array([p.number for p in passes], dtype=float)
        h = np.array([p.pages for p in passes], dtype=float)
        # pages in thousands or millions: axis numbers stay short
        scale, unit = (1e6, "million pages") if h.max() >= 1e6 else (1e3, "thousand pages")
        h = h / scale
        self.plot.setLabel("left", unit)
        brushes = [pg.mkBrush(PASS_COLOURS.get(p.kind, PASS_COLOURS["intermediate"]))
                   for p in passes]
        self.bars.setOpts(x=x, height=h, brushes=brushes)
        self.plot.setXRange(0.4, max(8, n) + 0.6, padding=0)
        self.plot.setYRange(0, max(1e-3, float(h.max())) * 1.08, padding=0)

    def _text_at(self, x: float, y: float) -> str | None:
        for p in self._passes:
            if abs(x - p.number) <= 0.35:
                end = p.end_s if p.end_s else None
                took = f"{end - p.start_s:.2f} s" if end else "running"
                return (f"Pass {p.number} ({p.kind}): {p.pages:,} pages, {took}"
                        + (f", {p.throttle_s:.2f} s lost to throttles" if p.throttle_s else "")
                        + ("\nThe guest is stopped (quiesced) during this pass."
                           if p.kind in ("penultimate", "final") else ""))
        return None

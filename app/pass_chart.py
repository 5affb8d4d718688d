"""Pages sent in each memory-move pass of a relocation, one bar per pass.

Pass 1 sends every page and later passes only the changed ones, often a hundredth of it or
less: each bar is labelled with its number of pages, and a bar too short to see is drawn as a
stub, so the later passes can be read next to the first.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ssisim.engine import RelocationSnapshot

from .glossary import TERMS
from .hover import PlotHover
from .plot_style import keyed_title, palette_colours, plain_axis, style_plot
from .theme import PASS_COLOURS, contrast_text

#: A bar shorter than this share of the tallest is drawn this tall (its label gives its value).
MIN_BAR = 0.015
#: Most passes of a relocation (CP's limit): one label each.
MAX_PASSES = 18


def compact(n: float) -> str:
    """A count in a few characters: ``310``, ``52k``, ``1.4M``."""
    if n >= 1e6:
        return f"{n / 1e6:.2g}M" if n < 1e7 else f"{n / 1e6:.0f}M"
    if n >= 1e4:
        return f"{n / 1e3:.0f}k"
    if n >= 1e3:
        return f"{n / 1e3:.1f}k"
    return f"{n:.0f}"


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
        font = QFont(self.font())
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
        self._font = font
        #: the pages of each pass on its bar: inside a tall bar, above a short one; upright
        #: when the passes leave room, else turned on end (hidden beyond the passes there are)
        self.labels: list[pg.TextItem] = []
        for _ in range(MAX_PASSES):
            label = pg.TextItem("", anchor=(0.5, 1.0))
            label.setFont(font)
            label.hide()
            self.plot.addItem(label)
            self.labels.append(label)
        #: (x, drawn height, tallest, colour) of each bar, for placing the labels
        self._drawn: list[tuple[float, float, float, str]] = []
        self.plot.getViewBox().sigResized.connect(lambda _vb: self._place_labels())
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
        self._place_labels()

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
            self._drawn = []
            self._place_labels()
            self.plot.setXRange(0.4, 8.6, padding=0)
            self.plot.setYRange(0, 1, padding=0)
            return
        x = np.array([p.number for p in passes], dtype=float)
        pages = np.array([p.pages for p in passes], dtype=float)
        # pages in thousands or millions: axis numbers stay short
        scale, unit = (1e6, "million pages") if pages.max() >= 1e6 else (1e3, "thousand pages")
        h = pages / scale
        top = max(1e-3, float(h.max()))
        # a pass of a few pages next to one of millions is still seen: a stub, and its label
        drawn = np.where(pages > 0, np.maximum(h, top * MIN_BAR), 0.0)
        self.plot.setLabel("left", unit)
        colours = [PASS_COLOURS.get(p.kind, PASS_COLOURS["intermediate"]) for p in passes]
        self.bars.setOpts(x=x, height=drawn, brushes=[pg.mkBrush(c) for c in colours])
        for i, label in enumerate(self.labels[:n]):
            label.setText(compact(pages[i]))
        self._drawn = [(float(x[i]), float(drawn[i]), top, colours[i]) for i in range(n)]
        self.plot.setXRange(0.4, max(5, n) + 0.6, padding=0)
        self.plot.setYRange(0, top * 1.08, padding=0)
        self._place_labels()

    def _place_labels(self) -> None:
        """Put each bar's label on it: inside a bar over half the tallest (in a colour that
        reads on the bar), above a shorter one; turned on end where they would touch."""
        n = len(self._drawn)
        for label in self.labels[n:]:
            label.hide()
        if not n:
            return
        vb = self.plot.getViewBox()
        (x0, x1), _ = vb.viewRange()
        px_per_pass = vb.width() / max(x1 - x0, 1e-9)
        fm = QFontMetricsF(self._font)
        widest = max(fm.horizontalAdvance(label.toPlainText()) for label in self.labels[:n])
        upright = widest + 4 <= px_per_pass
        _, fg = palette_colours()
        for label, (x, h, top, colour) in zip(self.labels, self._drawn):
            inside = h >= 0.5 * top
            label.setAngle(0 if upright else 90)
            if upright:
                label.setAnchor((0.5, 0.0 if inside else 1.0))
            else:
                label.setAnchor((1.0 if inside else 0.0, 0.5))
            label.setColor(contrast_text(colour) if inside else fg)
            label.setPos(x, h)
            label.show()

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

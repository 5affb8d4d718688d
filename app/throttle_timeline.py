"""The throttles of a relocation over time: a row per reason, a bar per throttle.

Hovering a bar or a row's name says what the reason means (``ssisim.engine.THROTTLE_REASONS``).
The quiesced part of the relocation is shaded, and pass boundaries are dotted lines.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ssisim.engine import THROTTLE_STYLE, RelocationSnapshot

from .glossary import TERMS, THROTTLES, throttle_text
from .hover import PlotHover
from .model import ThrottleSpan
from .plot_style import MIN_SPAN_S, SteadyRange, keyed_title, plain_axis, style_plot
from .theme import STATE_COLOURS, THROTTLE_COLOURS

#: Rows from top to bottom: the source's reasons, the destination's, the link's.
ROWS = [k for k in THROTTLE_COLOURS if k in THROTTLES] + \
    [k for k in THROTTLES if k not in THROTTLE_COLOURS]


def row_label(key: str) -> str:
    """Short row name, as the report names it too: ``source:stage_frames`` -> ``src stage
    frames`` (``ssisim.engine.THROTTLE_STYLE``)."""
    if key in THROTTLE_STYLE:
        return THROTTLE_STYLE[key][0]
    side, _, reason = key.partition(":")
    return f"{side} {reason.replace('_', ' ')}"


class ThrottleTimeline(QWidget):
    """Throttle bars by reason against simulated time, for one relocation."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widget = pg.PlotWidget()
        self.plot = self.widget.getPlotItem()
        self.plot.setTitle(keyed_title("Throttles (hover a bar for its meaning)", []))
        self.plot.setLabel("bottom", "simulated time", units="s")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        n = len(ROWS)
        # top row first: row i is drawn at y = n - 1 - i
        ticks = [(float(n - 1 - i), row_label(k)) for i, k in enumerate(ROWS)]
        self.plot.getAxis("left").setTicks([ticks])
        self.plot.getAxis("left").setWidth(118)
        self.plot.setYRange(-0.6, n - 0.4, padding=0)
        plain_axis(self.plot, "bottom")
        self.range = SteadyRange(self.plot)
        self.range.set_x(0, MIN_SPAN_S)
        self.quiesce = pg.LinearRegionItem(values=(0, 0), movable=False)
        shade = QColor(STATE_COLOURS["quiesced"])
        shade.setAlpha(45)
        self.quiesce.setBrush(pg.mkBrush(shade))
        for line in self.quiesce.lines:
            line.setPen(pg.mkPen(None))
        self.quiesce.setZValue(-10)
        self.quiesce.hide()
        self.plot.addItem(self.quiesce)
        self.pass_lines = pg.PlotDataItem(connect="pairs")
        self.pass_lines.setPen(pg.mkPen((128, 128, 128, 160), width=1,
                                        style=pg.QtCore.Qt.PenStyle.DotLine))
        self.plot.addItem(self.pass_lines)
        self.bars = pg.BarGraphItem(x0=np.array([0.0]), width=np.array([0.0]),
                                    y=np.array([0.0]), height=0.64,
                                    brushes=[pg.mkBrush(0, 0, 0, 0)], pens=[pg.mkPen(None)])
        self.plot.addItem(self.bars)
        self.widget.setToolTip(TERMS["throttle"])
        self._spans: list[tuple[str, float, float, ThrottleSpan]] = []
        self._key: tuple = ()
        self.hover = PlotHover(self.widget, self.plot, self._text_at, self._axis_text_at)
        # nine rows must stay readable, also in a window of 1024x768: row names a little
        # smaller than the text, 13 px a row
        names = QFont(self.font())
        names.setPointSizeF(max(7.0, names.pointSizeF() * 0.85))
        self.plot.getAxis("left").setStyle(tickFont=names)
        self.widget.setMinimumHeight(13 * len(ROWS) + 66)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.widget)
        self.restyle()

    def restyle(self) -> None:
        """Colours from the palette."""
        style_plot(self.widget, [self.plot])

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A short timeline (a small window) leaves out its time axis's title, which would be
        cut in half: the link plot below has the same time axis, titled."""
        super().resizeEvent(event)
        self.plot.getAxis("bottom").showLabel(self.height() >= 14 * len(ROWS) + 100)

    def show_relocation(self, r: RelocationSnapshot | None, spans: list[ThrottleSpan],
                        now_s: float) -> None:
        """Draw the throttles of ``r`` up to ``now_s``."""
        if r is None:
            self._spans = []
            self.bars.setOpts(x0=np.array([0.0]), width=np.array([0.0]), y=np.array([0.0]),
                              brushes=[pg.mkBrush(0, 0, 0, 0)], pens=[pg.mkPen(None)])
            self.pass_lines.setData([], [])
            self.quiesce.hide()
            self._key = ()
            return
        end = r.end_s if r.end_s is not None else now_s
        key = (r.userid, r.start_s, end, len(spans), len(r.passes), r.quiesce_start_s,
               tuple(s.end_s for s in spans[-3:]))
        if key == self._key:
            return
        self._key = key
        t0 = r.start_s
        t1 = max(end, t0 + 1.0)
        drawn = []
        min_w = (t1 - t0) * 0.004  # a throttle of an instant still shows
        for s in spans:
            if s.key not in ROWS:
                continue
            s_end = s.end_s if s.end_s is not None else end
            drawn.append((s.key, s.start_s, max(s_end - s.start_s, min_w), s))
        self._spans = [(k, a, a + w, s) for k, a, w, s in drawn]
        n = len(ROWS)
        if drawn:
            self.bars.setOpts(
                x0=np.array([a for _, a, _, _ in drawn]),
                width=np.array([w for _, _, w, _ in drawn]),
                y=np.array([float(n - 1 - ROWS.index(k)) for k, _, _, _ in drawn]),
                brushes=[pg.mkBrush(THROTTLE_COLOURS.get(k, "#888888")) for k, _, _, _ in drawn],
                pens=[pg.mkPen(QColor(THROTTLE_COLOURS.get(k, "#888888")).darker(130))
                      for k, _, _, _ in drawn])
        else:
            self.bars.setOpts(x0=np.array([0.0]), width=np.array([0.0]), y=np.array([0.0]),
                              brushes=[pg.mkBrush(0, 0, 0, 0)], pens=[pg.mkPen(None)])
        xs = []
        for p in r.passes[1:]:
            xs += [p.start_s, p.start_s]
        ys = [-0.6, n - 0.4] * (len(xs) // 2)
        self.pass_lines.setData(np.array(xs, dtype=float), np.array(ys, dtype=float))
        if r.quiesce_start_s is not None:
            self.quiesce.setRegion((r.quiesce_start_s, end))
            self.quiesce.show()
        else:
            self.quiesce.hide()
        self.range.set_x(t0, t1)

    def _text_at(self, x: float, y: float) -> str | None:
        n = len(ROWS)
        row = round(n - 1 - y)
        if not 0 <= row < n:
            return None
        key = ROWS[row]
        for k, a, b, s in self._spans:
            if k == key and a <= x <= b:
                span = (f"from {s.start_s:.1f} s to {s.end_s:.1f} s ({s.end_s - s.start_s:.1f} s)"
                        if s.end_s is not None else f"since {s.start_s:.1f} s (still on)")
                cost = (f"; it cost {s.cost_s:.2f} s of sending in all"
                        if key == "link:ordering" and s.cost_s is not None else "")
                return f"{key}: {throttle_text(key)}\n{span}{cost}"
        return f"{key}: {throttle_text(key)}"

    def _axis_text_at(self, y: float) -> str | None:
        n = len(ROWS)
        row = round(n - 1 - y)
        if 0 <= row < n:
            return f"{ROWS[row]}: {throttle_text(ROWS[row])}"
        return None

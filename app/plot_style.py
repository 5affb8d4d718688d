"""Shared look of the pyqtgraph plots: colours from the Qt palette, so light and dark both read."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsItem

#: Plot titles: small enough for a title and its colour key to fit a narrow plot.
TITLE_SIZE = "9pt"


def palette_colours() -> tuple[QColor, QColor]:
    """(background, foreground) for plots from the application's palette."""
    app = QApplication.instance()
    pal = app.palette() if isinstance(app, QApplication) else QPalette()
    return pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)


def style_plot(widget: pg.PlotWidget | pg.GraphicsLayoutWidget,
               plots: list[pg.PlotItem]) -> None:
    """Apply the palette's colours to a plot widget and its plots (call again on a theme change)."""
    bg, fg = palette_colours()
    widget.setBackground(bg)
    grid = QColor(fg)
    grid.setAlpha(60)
    for plot in plots:
        for name in ("left", "bottom", "right", "top"):
            axis = plot.getAxis(name)
            axis.setPen(pg.mkPen(grid))
            axis.setTextPen(pg.mkPen(fg))
            # an axis is redrawn with every curve change; caching its pixels spares re-rendering
            # its text, which is most of a plot's drawing time
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        title = plot.titleLabel
        if title is not None and title.text:
            title.setText(title.text, color=fg.name(), size=TITLE_SIZE)
        legend = plot.legend
        if legend is not None:
            legend.setLabelTextColor(fg)
            fill = QColor(bg)
            fill.setAlpha(200)
            legend.setBrush(fill)
            legend.setPen(pg.mkPen(grid))


def pen(colour: str, width: float = 1.5, dashed: bool = False) -> pg.QtGui.QPen:
    """A cosmetic pen for a curve."""
    p = pg.mkPen(colour, width=width)
    if dashed:
        p.setStyle(pg.QtCore.Qt.PenStyle.DashLine)
    return p


def colour_key(keys: list[tuple[str, str]]) -> str:
    """``■ name  ■ name`` as rich text; an empty colour makes a wider gap (a group break)."""
    parts = [f"<span style='color:{colour}'>&#9632;</span>&nbsp;{name}" if colour
             else "&nbsp;&nbsp;&nbsp;" for colour, name in keys]
    return "&nbsp;&nbsp;&nbsp;".join(parts)


def keyed_title(title: str, keys: list[tuple[str, str]]) -> str:
    """A plot title followed by a colour key: ``title  ■ name  ■ name`` (replaces a legend box
    that would hide the curves)."""
    return f"<b>{title}</b>" + ("&nbsp;&nbsp;&nbsp;" + colour_key(keys) if keys else "")


def wide_title(plot: pg.PlotItem) -> None:
    """Let the title use the value axis's width too: a narrow plot's title and colour key then
    fit (pyqtgraph puts the title over the data area only)."""
    plot.layout.removeItem(plot.titleLabel)
    plot.layout.addItem(plot.titleLabel, 0, 0, 1, 3)


#: Width of the value axis of every plot (pixels). A fixed width: an axis sized to its labels
#: grows when "900" becomes "1200", which re-lays out the whole plot grid (tens of ms).
VALUE_AXIS_WIDTH = 58


def _decimals(step: float) -> int:
    """Decimals that tell apart numbers ``step`` apart: 0 for whole steps, up to 3 for exact
    ones, and always enough for steps under 0.001 (a member of a few MB has GB ticks 0.0005
    apart, which three decimals wrote as 0.001, 0.001, 0.002, 0.002)."""
    d = 0
    while d < 3 and abs(step * 10**d - round(step * 10**d)) > 1e-6 * max(1.0, step * 10**d):
        d += 1
    if 0 < step < 1:
        d = max(d, min(9, math.ceil(-math.log10(step) - 1e-9)))
    return d


def compact_number(value: float, spacing: float, largest: float | None = None) -> str:
    """An axis number in a few characters: ``950``, ``5000``, ``12k``, ``1.5M`` (numbers of five
    digits and more would run into the axis title beside them). ``largest``: the largest
    number on the axis, whose unit the others take (``5k`` beside ``15k``, not ``5000``)."""
    a = abs(value) if largest is None else abs(largest)
    div, suffix = next(((d, s) for d, s in ((1e9, "G"), (1e6, "M"), (1e4, "k")) if a >= d),
                       (1.0, ""))
    if suffix == "k":
        div = 1e3
    return f"{value / div:.{_decimals(spacing / div)}f}{suffix}"


def compact_ticks(values: list[float], scale: float, spacing: float) -> list[str]:
    """``AxisItem.tickStrings`` writing numbers with ``compact_number``, in one unit."""
    largest = max((abs(v * scale) for v in values), default=0.0)
    return [compact_number(v * scale, spacing * scale, largest) for v in values]


def plain_axis(plot: pg.PlotItem, *names: str) -> None:
    """Write axis numbers as they are (no ``x0.001`` scale factors); fix the left axis width.

    A value (left) axis writes large numbers compactly (``20k``, ``compact_number``): its
    width is fixed, and ``20000`` beside its title would overlap it.
    """
    for name in names:
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)
        # switching the prefix off keeps whatever scale was picked for the range at that
        # moment (ms for a fresh 0..1 axis): put it back to 1
        axis.autoSIPrefixScale = 1.0
        axis.labelUnitPrefix = ""
        axis._updateLabel()
        if name == "left":
            axis.setWidth(VALUE_AXIS_WIDTH)
            axis.tickStrings = compact_ticks


#: Simulated seconds a time axis shows at least (a run's first samples, at 0 and on).
MIN_SPAN_S = 60.0


def nice_ceiling(value: float) -> float:
    """The next "round" number at or above ``value`` (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k).

    Plot ranges move in these steps instead of every frame: while a range stays put, pyqtgraph
    reuses its drawn axes, which is most of the cost of a redraw.
    """
    if value <= 0:
        return 1.0
    k = math.floor(math.log10(value))
    base = 10.0 ** k
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * base >= value * (1 - 1e-12):
            return m * base
    return 10 * base


class SteadyRange:
    """Sets a plot's range only when its rounded-up limits change (see ``nice_ceiling``)."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.x: tuple[float, float] | None = None
        self.y: tuple[float, float] | None = None
        plot.disableAutoRange()

    def set_x(self, lo: float, hi: float) -> None:
        """Show at least ``lo`` to ``hi`` on x, starting at ``lo``."""
        want = (lo, lo + nice_ceiling(max(hi - lo, 1e-9)))
        if want != self.x:
            self.x = want
            self.plot.setXRange(*want, padding=0)

    def set_y(self, hi: float, lo: float = 0.0) -> None:
        """Show ``lo`` to at least ``hi`` on y (with a little headroom)."""
        want = (lo, lo + nice_ceiling(max((hi - lo) * 1.05, 1e-9)))
        if want != self.y:
            self.y = want
            self.plot.setYRange(*want, padding=0)

    def forget(self) -> None:
        """Set the range afresh next time (after a reset)."""
        self.x = self.y = None

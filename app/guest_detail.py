"""One guest in detail: where its pages are over time, and its workload's throughput."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ssisim.engine import PAGES_PER_GB, format_size

from .glossary import TERMS
from .lazy_panel import LazyPanel
from .model import SessionModel
from .moves import pause_phase
from .plot_style import MIN_SPAN_S, SteadyRange, keyed_title, pen, plain_axis, style_plot
from .theme import STATE_LABELS, TIER_COLOURS

#: What each kind of pause is called in the guest detail.
PAUSE_NAMES = {"suspend": "Linux suspend", "resume": "Linux resume", "stop": "CP STOP"}


class GuestDetail(LazyPanel):
    """The selected guest: pages in central, XSTOR and on DASD (stacked, GB), and throughput."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.header = QLabel("Click a guest to see it here.")
        self.header.setWordWrap(True)
        self.widget = pg.GraphicsLayoutWidget()
        keys = [(TIER_COLOURS["central"], "central"), (TIER_COLOURS["xstor"], "XSTOR"),
                (TIER_COLOURS["dasd"], "DASD")]
        self.pages = self.widget.addPlot(row=0, col=0, title=keyed_title("Pages by location", keys))
        self.pages.setLabel("left", "GB")
        self.pages.showGrid(y=True, alpha=0.2)
        self.pages.setMouseEnabled(y=False)
        self.tput = self.widget.addPlot(row=1, col=0, title=keyed_title("Workload throughput", []))
        self.tput.showGrid(y=True, alpha=0.2)
        self.tput.setLabel("bottom", "simulated time", units="s")
        self.tput.setMouseEnabled(y=False)
        self.tput.setXLink(self.pages)
        self.stack: dict[str, pg.PlotDataItem] = {}
        # drawn from the top of the stack down, so each fill covers the one below it
        for tier, name in (("dasd", "DASD"), ("xstor", "XSTOR"), ("central", "central")):
            fill = QColor(TIER_COLOURS[tier])
            fill.setAlpha(150)
            self.stack[tier] = self.pages.plot(pen=pen(TIER_COLOURS[tier], 1.5), fillLevel=0,
                                               brush=fill, name=name)
        self.throughput = self.tput.plot(pen=pen("#2f7fe0", 1.5))
        self.pages.hideAxis("bottom")
        self.ranges = (SteadyRange(self.pages), SteadyRange(self.tput))
        for p in (self.pages, self.tput):
            plain_axis(p, "left", "bottom")
            p.setDownsampling(auto=True, mode="peak")
            p.setClipToView(True)
        self.pages.setToolTip("Where the guest's pages are: " + TERMS["central"] + " "
                              + TERMS["xstor"] + " " + TERMS["paging"])
        self.tput.setToolTip(TERMS["throughput"])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.header)
        lay.addWidget(self.widget, 1)
        self._version: tuple[int, str | None] = (-1, None)
        #: The throughput unit shown, and whose (a guest's own workload's, never a stand-in's).
        self._unit: tuple[str | None, str] = (None, "")
        model.reset.connect(lambda: self.refresh(force=True))
        model.updated.connect(lambda _f: self.refresh())
        model.selection_changed.connect(lambda _u: self.refresh(force=True))
        self.restyle()

    def restyle(self) -> None:
        """Colours from the palette."""
        style_plot(self.widget, [self.pages, self.tput])

    def refresh(self, force: bool = False) -> None:
        """Draw the selected guest's history (skipped while hidden)."""
        if self.skip_hidden(force):
            return
        uid = self.model.selected
        h = self.model.history
        version = (h.version, uid)
        if version == self._version and not force:
            return
        self._version = version
        g = self.model.guest(uid) if uid else None
        if g is None or uid not in h.guests or not len(h):
            self.header.setText("Click a guest to see it here.")
            for c in self.stack.values():
                c.setData([], [])
            self.throughput.setData([], [])
            return
        state = STATE_LABELS.get(self.model.state_of(uid), g.state)
        where = f"on {g.member}" if g.member else "logged off"
        pause = self.model.pause_of(uid)
        if pause is None:
            doing = f"workload {g.workload}; {g.throughput:,.1f} {g.unit}"
        else:
            # while it is paused or let go, what the engine runs stands in for writing or
            # reading the image: say what happens, not that stand-in workload and its rate
            doing = f"{PAUSE_NAMES.get(pause.action, pause.action)}: {pause_phase(pause)}"
            if pause.phase in ("write", "read"):
                doing += (f", {format_size(pause.image_done_pages)} of "
                          f"{format_size(pause.image_pages)} image")
        self.header.setText(
            f"<b>{html.escape(uid)}</b> {where}, {state}; storage {format_size(g.storage_pages)};"
            f" {html.escape(doing)}")
        t = h.t
        c = h.guest(uid, "central") / PAGES_PER_GB
        x = h.guest(uid, "xstor") / PAGES_PER_GB
        d = h.guest(uid, "dasd") / PAGES_PER_GB
        self.stack["central"].setData(t, c)
        self.stack["xstor"].setData(t, c + x)
        self.stack["dasd"].setData(t, c + x + d)
        tput = np.asarray(h.guest(uid, "throughput"))
        self.throughput.setData(t, tput)
        if pause is None:
            self._unit = (uid, g.unit)
        elif self._unit[0] != uid:  # while paused, the unit would be the stand-in work's
            self._unit = (uid, "")
        self.tput.setLabel("left", self._unit[1])
        top = c + x + d
        for r in self.ranges:
            r.set_x(0.0, max(float(t[-1]), MIN_SPAN_S))
        self.ranges[0].set_y(max(float(top.max()), g.storage_pages / PAGES_PER_GB * 0.05))
        self.ranges[1].set_y(max(float(tput.max()), 1.0))

"""Each member's storage tiers and paging rates over simulated time."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ssisim.engine import PAGES_PER_GB

from .glossary import TERMS
from .lazy_panel import LazyPanel
from .model import SessionModel
from .plot_style import (
    MIN_SPAN_S,
    SteadyRange,
    colour_key,
    keyed_title,
    pen,
    plain_axis,
    style_plot,
)
from .theme import RATE_COLOURS, TIER_COLOURS

#: The engine's ``MemberSample`` field each curve draws.
SAMPLE_FIELD = {"central": "central_used", "xstor": "xstor_used", "slots": "slots_used",
                "page_in_s": "page_in_s", "to_xstor_s": "xstor_out_s", "to_dasd_s": "dasd_out_s"}


class MemberPlots(LazyPanel):
    """A row per member: storage in use by tier (GB) and paging rates (pages/s)."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.widget = pg.GraphicsLayoutWidget()
        self.widget.setToolTip(
            "Storage: " + TERMS["central"] + "\n" + TERMS["xstor"] + "\n" + TERMS["paging"]
            + "\n\nPaging: " + TERMS["page_in"] + " " + TERMS["to_xstor"] + " "
            + TERMS["to_dasd"])
        self.plots: list[pg.PlotItem] = []
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.limits: dict[str, float] = {}  # central storage per member, GB
        self.axes: dict[str, tuple[SteadyRange, SteadyRange]] = {}
        self._version = -1
        # one colour key for all rows, above the plots: a legend in each plot would hide curves
        self.key = QLabel("")
        self.key.setWordWrap(True)
        self.key.setToolTip(self.widget.toolTip())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 0)
        lay.setSpacing(0)
        lay.addWidget(self.key)
        lay.addWidget(self.widget, 1)
        model.reset.connect(self.rebuild)
        model.updated.connect(lambda _f: self.refresh())

    def restyle(self) -> None:
        """Colours from the palette."""
        style_plot(self.widget, self.plots)

    def rebuild(self) -> None:
        """One row of plots per member of the new simulation."""
        self.widget.clear()
        self.plots = []
        self.curves = {}
        self.limits = {}
        self.axes = {}
        self._version = -1
        snap = self.model.snapshot
        if snap is None:
            return
        first_x = None
        any_xstor = any(m.xstor_total for m in snap.members)
        keys = [(TIER_COLOURS["central"], "central")]
        keys += [(TIER_COLOURS["xstor"], "XSTOR")] if any_xstor else []
        keys += [(TIER_COLOURS["dasd"], "paging slots"), ("", ""),
                 (RATE_COLOURS["page_in_s"], "page-ins")]
        keys += [(RATE_COLOURS["to_xstor_s"], "pages to XSTOR")] if any_xstor else []
        keys += [(RATE_COLOURS["to_dasd_s"], "pages to DASD")]
        self.key.setText(colour_key(keys))
        for i, m in enumerate(snap.members):
            store = self.widget.addPlot(row=i, col=0, title=keyed_title(f"{m.name} storage", []))
            store.setLabel("left", "GB")
            for tier, name in (("central", "central"), ("xstor", "XSTOR"), ("slots", "slots")):
                if tier == "xstor" and not m.xstor_total:
                    continue
                colour = TIER_COLOURS["dasd" if tier == "slots" else tier]
                self.curves[(m.name, tier)] = store.plot(pen=pen(colour, 2), name=name)
            cap_gb = m.frames / PAGES_PER_GB
            cap = pg.InfiniteLine(pos=cap_gb, angle=0,
                                  pen=pen(TIER_COLOURS["central"], 1, dashed=True),
                                  label=f"central storage {cap_gb:.1f} GB",
                                  labelOpts={"position": 0.98, "color": TIER_COLOURS["central"],
                                             "anchors": [(1, 0), (1, 0)]})
            store.addItem(cap)
            self.limits[m.name] = cap_gb
            rates = self.widget.addPlot(row=i, col=1, title=keyed_title(f"{m.name} paging", []))
            rates.setLabel("left", "pages/s")
            for col in ("page_in_s", "to_xstor_s", "to_dasd_s"):
                if col == "to_xstor_s" and not m.xstor_total:
                    continue
                self.curves[(m.name, col)] = rates.plot(pen=pen(RATE_COLOURS[col], 1.5))
            self.axes[m.name] = (SteadyRange(store), SteadyRange(rates))
            for p in (store, rates):
                p.showGrid(y=True, alpha=0.2)
                p.setMouseEnabled(y=False)
                p.setDownsampling(auto=True, mode="peak")
                p.setClipToView(True)
                plain_axis(p, "left")
                if first_x is None:
                    first_x = p
                else:
                    p.setXLink(first_x)
                self.plots.append(p)
            for p in (store, rates):
                if i == len(snap.members) - 1:
                    p.setLabel("bottom", "simulated time", units="s")
                    plain_axis(p, "bottom")
                else:
                    p.hideAxis("bottom")  # the x axes are linked: the last row's serves all
        self.restyle()
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Hand the new history to the curves (skipped while hidden)."""
        if self.skip_hidden(force):
            return
        h = self.model.history
        if h.version == self._version and not force:
            return
        self._version = h.version
        if not len(h):
            return
        t = h.t
        top: dict[tuple[str, int], float] = {}
        for (name, col), curve in self.curves.items():
            y = np.asarray(h.member(name, SAMPLE_FIELD[col]))
            if col in ("central", "xstor", "slots"):
                y = y / PAGES_PER_GB
                side = 0
            else:
                side = 1
            curve.setData(t, y)
            if len(y):
                top[(name, side)] = max(top.get((name, side), 0.0), float(y.max()))
        # the first minute in full before time runs on (not a range of a billionth of a second
        # with ticks at 2e-10 while the only sample is the one at 0)
        t_end = max(float(t[-1]), MIN_SPAN_S)
        for name, (store, rates) in self.axes.items():
            store.set_x(0.0, t_end)
            rates.set_x(0.0, t_end)
            # the central storage line stays in view: fullness is read against it
            store.set_y(max(top.get((name, 0), 0.0), self.limits.get(name, 0.0)))
            rates.set_y(max(top.get((name, 1), 0.0), 10.0))

"""The relocation under way (or the last one): passes, pages left, link, throttles, quiesce."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import RelocationSnapshot

from .elided_label import ElidedLabel
from .frames import relocation_key
from .glossary import TERMS
from .lazy_panel import LazyPanel
from .link_plot import MB_PER_PAGE, LinkPlot
from .model import ACTIVE, SessionModel
from .pass_chart import PassChart
from .quiesce_timer import QuiesceTimer
from .throttle_timeline import ThrottleTimeline

FOLLOW = "Latest relocation"
#: The title and the line under it before the first relocation (each one line: a wrapped
#: line would take the charts' room in a small window).
NONE_YET = ("No relocation yet",
            "Drag a guest onto another member, or type VMRELOCATE in the CP console.")


class RelocationPanel(LazyPanel):
    """Everything about one relocation; follows the latest unless another is picked."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.choice = QComboBox()
        self.choice.addItem(FOLLOW, "")
        self.choice.setToolTip("Which relocation to show; by default the latest one.")
        self.title = QLabel(NONE_YET[0])
        f = QFont(self.title.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.15)
        self.title.setFont(f)
        self.title.setWordWrap(True)
        self.options = ElidedLabel(NONE_YET[1])

        self.values: dict[str, QLabel] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        rows = [("status", "Status", TERMS["relocating"]), ("pass", "Pass", TERMS["pass"]),
                ("left", "Pages left", TERMS["pages_left"]),
                ("moved", "Pages moved", "Pages sent over the link so far, all passes."),
                ("link", "Link", TERMS["link"]), ("elapsed", "Elapsed", TERMS["relocation_s"])]
        for i, (key, label, tip) in enumerate(rows):
            name = QLabel(label + ":")
            value = QLabel("-")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            name.setToolTip(tip)
            value.setToolTip(tip)
            grid.addWidget(name, i, 0)
            grid.addWidget(value, i, 1)
            self.values[key] = value
        grid.setColumnStretch(1, 1)
        self.timer = QuiesceTimer()
        readouts = QHBoxLayout()
        readouts.addLayout(grid, 3)
        readouts.addWidget(self.timer, 2)

        self.passes = PassChart()
        self.throttles = ThrottleTimeline()
        self.link = LinkPlot()
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.throttles)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.passes)
        bottom.addWidget(self.link)
        bottom.setMinimumHeight(130)
        charts.addWidget(bottom)
        charts.setStretchFactor(0, 3)
        charts.setStretchFactor(1, 2)
        self.charts = charts

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.choice)
        lay.addLayout(top)
        lay.addWidget(self.options)
        lay.addLayout(readouts)
        lay.addWidget(charts, 1)
        #: the last refresh showed that there is no relocation yet
        self._shown_none = False
        self.choice.currentIndexChanged.connect(lambda _i: self.refresh(force=True))
        model.reset.connect(self._on_reset)
        model.updated.connect(lambda _f: self.refresh())

    def restyle(self) -> None:
        """Colours from the palette."""
        for w in (self.passes, self.throttles, self.link):
            w.restyle()

    def _on_reset(self) -> None:
        self.choice.blockSignals(True)
        self.choice.clear()
        self.choice.addItem(FOLLOW, "")
        self.choice.blockSignals(False)
        self.refresh(force=True)

    def current(self) -> RelocationSnapshot | None:
        """The relocation shown: the one picked, or the latest (an active one first)."""
        snap = self.model.snapshot
        if snap is None or not snap.relocations:
            return None
        key = self.choice.currentData()
        if key:
            return self.model.relocation(key)
        active = [r for r in snap.relocations if r.state in ACTIVE]
        return (active or list(snap.relocations))[-1]

    def refresh(self, force: bool = False) -> None:
        """Show the latest snapshot (skipped while hidden; done when shown)."""
        if self.skip_hidden(force):
            return
        snap = self.model.snapshot
        if snap is None:
            return
        self._sync_choices()
        r = self.current()
        if r is None and self._shown_none and not force:
            return  # "no relocation yet" stands (most frames of a large cluster)
        self._shown_none = r is None
        self.timer.show_relocation(r)
        self.passes.show_relocation(r)
        if r is None:
            self.title.setText(NONE_YET[0])
            self.options.set_full_text(NONE_YET[1])
            for v in self.values.values():
                v.setText("-")
            self.throttles.show_relocation(None, [], snap.t_s)
            self.link.show_series(None)
            return
        key = relocation_key(r)
        self.title.setText(f"{r.userid}   {r.source} \u2192 {r.destination}")
        self.options.set_full_text(f"VMRELOCATE options: {r.options}")
        status = {"moving": "moving memory", "quiesced": "quiesced (guest stopped)",
                  "done": "relocated", "cancelled": "cancelled"}.get(r.state, r.state)
        if r.state == "cancelled" and r.message:
            status += f": {r.message}"
        self.values["status"].setText(status)
        if r.passes:
            p = r.passes[-1]
            self.values["pass"].setText(f"{p.number} ({p.kind})")
        else:
            self.values["pass"].setText("setting up" if r.state in ACTIVE else "-")
        self.values["left"].setText(f"{r.pages_left:,}")
        self.values["moved"].setText(f"{r.pages_moved:,}")
        series = self.model.history.relocations.get(key)
        if r.state in ACTIVE and series is not None and series.cols.n:
            sent = float(series.pages_per_s[-1]) * MB_PER_PAGE
            cap = r.link_pages_per_s * MB_PER_PAGE
            self.values["link"].setText(f"{sent:,.0f} MB/s of {cap:,.0f} MB/s")
        else:
            self.values["link"].setText("idle" if r.state not in ACTIVE else "-")
        end = r.end_s if r.end_s is not None else snap.t_s
        self.values["elapsed"].setText(f"{end - r.start_s:.1f} s (from t = {r.start_s:g} s)")
        self.throttles.show_relocation(r, self.model.throttle_spans(key), snap.t_s)
        self.link.show_series(series)

    def _sync_choices(self) -> None:
        snap = self.model.snapshot
        if snap is None:
            return
        keys = [relocation_key(r) for r in snap.relocations]
        have = [self.choice.itemData(i) for i in range(1, self.choice.count())]
        if keys == have:
            return
        self.choice.blockSignals(True)
        for r in snap.relocations[len(have):]:
            self.choice.addItem(f"{r.userid} {r.source}\u2192{r.destination} at {r.start_s:g} s",
                                relocation_key(r))
        self.choice.blockSignals(False)

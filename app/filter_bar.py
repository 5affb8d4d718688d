"""The filter box above the cluster: words, a workload type and a state, and how to arrange
the compact view. The cluster view and the guest table follow it."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from .guest_filter import GROUPINGS, GuestFilter
from .theme import STATE_LABELS, STATE_ORDER

#: The narrowest the bar asks to be (pixels); narrower than all its boxes, it clips the last.
MIN_WIDTH = 260


class FilterBar(QWidget):
    """One row: the filter words, workload and state boxes, *Hide others*, *Arrange*, and how
    many guests match."""

    #: ``(GuestFilter)``: the filter changed.
    changed = Signal(object)
    #: ``(grouping)``: a key of ``GROUPINGS``.
    grouping_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QLineEdit()
        self.text.setPlaceholderText("Filter guests: user ID, workload or state")
        self.text.setClearButtonEnabled(True)
        self.text.setToolTip("Guests whose user ID, workload type, state or member contain "
                             "every word typed (LDB, database, quiesced, MEMB2); the others "
                             "are dimmed, or hidden with Hide others. The guest table shows "
                             "only those that match.")
        self.workload = QComboBox()
        self.workload.addItem("any workload", "")
        self.workload.setToolTip("Only guests running this type of workload")
        self.state = QComboBox()
        self.state.addItem("any state", "")
        for s in STATE_ORDER:
            self.state.addItem(STATE_LABELS[s], s)
        self.state.setToolTip("Only guests in this state (as the legend names it)")
        self.hide_others = QCheckBox("Hide others")
        self.hide_others.setToolTip("Leave the guests that do not match out of the cluster "
                                    "view, instead of dimming them")
        self.grouping = QComboBox()
        for key, label in GROUPINGS.items():
            self.grouping.addItem(label, key)
        self.grouping.setToolTip("How the compact view arranges each member's guests: the "
                                 "largest first, or in groups by workload type or by state "
                                 "(each member stays a drop target)")
        self.arrange_label = QLabel("Arrange")
        self.count = QLabel("")
        self.count.setToolTip("Guests that match the filter, of all guests")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        lay.addWidget(self.text, 3)
        lay.addWidget(self.workload)
        lay.addWidget(self.state)
        lay.addWidget(self.hide_others)
        lay.addSpacing(8)
        lay.addWidget(self.arrange_label)
        lay.addWidget(self.grouping)
        lay.addWidget(self.count, 1, Qt.AlignmentFlag.AlignRight)
        self.text.textChanged.connect(self._emit)
        self.workload.currentIndexChanged.connect(self._emit)
        self.state.currentIndexChanged.connect(self._emit)
        self.hide_others.toggled.connect(self._emit)
        self.grouping.currentIndexChanged.connect(
            lambda _i: self.grouping_changed.emit(str(self.grouping.currentData())))

    def minimumSizeHint(self) -> QSize:
        """Narrow: the bar must not make a small window wider (1024 pixels, with a lesson's
        dock beside the cluster); it leaves out what it can when short of room
        (``resizeEvent``)."""
        return QSize(MIN_WIDTH, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Short of room, leave out the count, then the *Arrange* label (their tooltips stay
        on the boxes)."""
        super().resizeEvent(event)
        self._fit(event.size().width())

    def _fit(self, room: int) -> None:
        self.count.setVisible(room >= self._need(True, True))
        self.arrange_label.setVisible(room >= self._need(False, True))

    def _need(self, count: bool, label: bool) -> int:
        """Width the bar needs with or without its count and label."""
        lay = self.layout()
        assert lay is not None
        parts = [self.text.minimumSizeHint().width() + 60, self.workload.sizeHint().width(),
                 self.state.sizeHint().width(), self.hide_others.sizeHint().width(),
                 self.grouping.sizeHint().width()]
        if label:
            parts.append(self.arrange_label.sizeHint().width())
        if count:
            parts.append(self.count.sizeHint().width())
        return sum(parts) + lay.spacing() * len(parts) + 8

    def current(self) -> GuestFilter:
        """The filter as set now."""
        return GuestFilter(self.text.text(), str(self.workload.currentData() or ""),
                           str(self.state.currentData() or ""), self.hide_others.isChecked())

    def set_workloads(self, kinds: list[str]) -> None:
        """The workload types of the scenario's guests (the choice is kept if still there)."""
        keep = str(self.workload.currentData() or "")
        self.workload.blockSignals(True)
        self.workload.clear()
        self.workload.addItem("any workload", "")
        for k in kinds:
            self.workload.addItem(k.lower(), k)
        i = self.workload.findData(keep)
        self.workload.setCurrentIndex(max(0, i))
        self.workload.blockSignals(False)
        if keep and i < 0:
            self._emit()

    def set_count(self, matching: int, total: int) -> None:
        """Say how many guests match."""
        if matching == total:
            self.count.setText(f"{total:,} guests")
        else:
            self.count.setText(f"{matching:,} of {total:,} guests match")
        if self.width() > 1:
            self._fit(self.width())

    def _emit(self, *_args: object) -> None:
        self.changed.emit(self.current())


__all__ = ["FilterBar"]

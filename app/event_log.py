"""The event log: every event of the simulation, filtered by kind and by text."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import Event

from .model import SessionModel

COLUMNS = ("t (s)", "kind", "member", "user", "message")
_ROOT = QModelIndex()
Index = QModelIndex | QPersistentModelIndex


class EventTableModel(QAbstractTableModel):
    """Events as table rows, appended as they arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []

    def rowCount(self, parent: Index = _ROOT) -> int:
        """Number of events."""
        return 0 if parent.isValid() else len(self.events)

    def columnCount(self, parent: Index = _ROOT) -> int:
        """t, kind, member, user, message."""
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Cell text (and the whole message as a tooltip)."""
        if not index.isValid():
            return None
        e = self.events[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"{e.t_s:.1f}", e.kind, e.member or "", e.userid or "",
                    e.message)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 4:
            return e.message
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Column names."""
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def append(self, events: tuple[Event, ...] | list[Event]) -> None:
        """Add events at the end."""
        if not events:
            return
        n = len(self.events)
        self.beginInsertRows(QModelIndex(), n, n + len(events) - 1)
        self.events.extend(events)
        self.endInsertRows()

    def clear(self) -> None:
        """Forget every event."""
        self.beginResetModel()
        self.events = []
        self.endResetModel()


class EventFilter(QSortFilterProxyModel):
    """Shows the events of the kinds switched on whose text contains the search words."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden_kinds: set[str] = set()
        self.needle = ""

    def set_hidden(self, kinds: set[str]) -> None:
        """Hide these kinds."""
        self.beginFilterChange()
        self.hidden_kinds = set(kinds)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_needle(self, text: str) -> None:
        """Show only rows containing ``text`` (any case)."""
        self.beginFilterChange()
        self.needle = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        """Kind on and text found."""
        src = self.sourceModel()
        assert isinstance(src, EventTableModel)
        e = src.events[row]
        if e.kind in self.hidden_kinds:
            return False
        if self.needle:
            hay = f"{e.kind} {e.member or ''} {e.userid or ''} {e.message}".lower()
            return self.needle in hay
        return True


class EventLog(QWidget):
    """Table of events with a kind filter menu, a search box and follow-the-end."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.table_model = EventTableModel()
        self.proxy = EventFilter()
        self.proxy.setSourceModel(self.table_model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        hdr = self.table.horizontalHeader()
        hdr.setStretchLastSection(True)
        # fixed widths: sizing to contents would rescan every row on each insert
        for col, width in enumerate((64, 150, 64, 76)):
            hdr.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            hdr.resizeSection(col, width)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 4)
        self.kinds_button = QToolButton()
        self.kinds_button.setText("Kinds")
        self.kinds_button.setToolTip("Show or hide events by kind")
        self.kinds_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.kinds_menu = QMenu(self.kinds_button)
        self.kinds_button.setMenu(self.kinds_menu)
        self.kind_actions: dict[str, QAction] = {}
        self.search = QLineEdit()
        self.search.setPlaceholderText("filter: user ID, member, words")
        self.search.setClearButtonEnabled(True)
        self.follow = QCheckBox("Follow")
        self.follow.setChecked(True)
        self.follow.setToolTip("Keep the newest event in view")
        bar = QHBoxLayout()
        bar.addWidget(self.kinds_button)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.follow)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.table, 1)
        self.search.textChanged.connect(self.proxy.set_needle)
        model.events_added.connect(self.add_events)
        model.reset.connect(self._on_reset)

    def add_events(self, events: tuple[Event, ...]) -> None:
        """Append events; new kinds get a switch in the menu."""
        for e in events:
            if e.kind not in self.kind_actions:
                self._add_kind(e.kind)
        self.table_model.append(events)
        if self.follow.isChecked():
            self.table.scrollToBottom()

    def _add_kind(self, kind: str) -> None:
        act = QAction(kind, self)  # owned here: the menu is cleared and rebuilt
        act.setCheckable(True)
        act.setChecked(True)
        act.toggled.connect(lambda _on: self._apply_kinds())
        self.kind_actions[kind] = act
        acts = sorted(self.kind_actions.items())
        self.kinds_menu.clear()
        self.kinds_menu.addAction("Show all", lambda: self.set_kinds(None))
        self.kinds_menu.addSeparator()
        for _, a in acts:
            self.kinds_menu.addAction(a)

    def set_kinds(self, shown: set[str] | None) -> None:
        """Show only these kinds (None: all)."""
        for kind, act in self.kind_actions.items():
            act.blockSignals(True)
            act.setChecked(shown is None or kind in shown)
            act.blockSignals(False)
        self._apply_kinds()

    def _apply_kinds(self) -> None:
        hidden = {k for k, a in self.kind_actions.items() if not a.isChecked()}
        self.proxy.set_hidden(hidden)
        self.kinds_button.setText("Kinds" if not hidden else f"Kinds ({len(hidden)} hidden)")

    def select_time(self, t_s: float) -> bool:
        """Select and show the first event shown at or after simulated time ``t_s`` (Follow
        is turned off so it stays in view); False when there is none."""
        for r in range(self.proxy.rowCount()):
            src = self.proxy.mapToSource(self.proxy.index(r, 0))
            if self.table_model.events[src.row()].t_s >= t_s - 1e-6:
                self.follow.setChecked(False)
                self.table.selectRow(r)
                self.table.scrollTo(self.proxy.index(r, 0),
                                    QTableView.ScrollHint.PositionAtCenter)
                return True
        return False

    def visible_kinds(self) -> list[str]:
        """Kinds of the rows shown now."""
        return [self.proxy.index(r, 1).data() for r in range(self.proxy.rowCount())]

    def _on_reset(self) -> None:
        self.table_model.clear()

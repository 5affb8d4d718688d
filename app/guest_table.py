"""The guest table: every guest in a row, sortable by any column, following the filter box.

A ``QTableView`` over ``GuestTableModel`` (a row per guest of the scenario, in snapshot order)
through a ``QSortFilterProxyModel``. A frame changes only the rows whose figures changed: the
model compares each guest's values with the last ones and emits ``dataChanged`` for the rows
that differ (never a reset, which would lose the sorting, the selection and the scroll
position). Selecting a row selects the guest; a row dragged onto a member relocates it (the
drag carries ``MIME_GUEST``, as a tile's does).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelection,
    QItemSelectionModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QVBoxLayout, QWidget

from ssisim.engine import format_size

from .glossary import TERMS
from .guest_filter import GuestFilter, workload_type
from .guest_tile import MIME_GUEST
from .lazy_panel import LazyPanel
from .model import SessionModel, SnapshotIndex
from .theme import STATE_COLOURS, STATE_LABELS

#: The columns: (title, what the header's tooltip says).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("User ID", "The guest's user ID"),
    ("Member", "The member it runs on (empty while logged off)"),
    ("State", "What its tile shows: the scheduler's state, a relocation's or a pause's"),
    ("Workload", "The type of workload it runs"),
    ("Storage", "Its defined storage"),
    ("Central", "Its pages in central storage"),
    ("XSTOR", "Its pages in expanded storage"),
    ("DASD", "Its pages in paging slots on DASD"),
    ("Throughput", "Its workload's work units per second over the last step, in the "
                   "workload's own unit (0 while paused)"),
    ("Paging", "Pages per second into or out of XSTOR and DASD, from the change of its XSTOR "
               "and DASD pages between the last two frames the window drew (net: a page "
               "read in while another is paged out counts as none; '-' until two frames "
               "have been seen)"),
)
USERID, MEMBER, STATE, WORKLOAD, STORAGE, CENTRAL, XSTOR, DASD, THROUGHPUT, PAGING = \
    range(len(COLUMNS))
_ROOT = QModelIndex()
Index = QModelIndex | QPersistentModelIndex
#: Role of the values the proxy sorts by (numbers for the figures).
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 1
#: While the clock runs, the table takes the latest figures at most this often (ms); it
#: follows every frame when paused. The cluster view follows every
#: frame (up to 40 a second); a table of numbers that changed 40 times a second could not be
#: read, and with every guest busy every row changes in every frame: sorted by a figure, the
#: proxy would sort a thousand rows each time.
TABLE_MS = 250
_NUMERIC = (STORAGE, CENTRAL, XSTOR, DASD, THROUGHPUT, PAGING)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_DECORATION = int(Qt.ItemDataRole.DecorationRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)

class Row(NamedTuple):
    """One guest's row: the values of ``COLUMNS`` in order (figures at the precision shown:
    a change that cannot be seen changes no row), then the throughput's unit."""

    userid: str
    member: str  # "" while logged off
    state: str  # the display state (``model.display_state``)
    workload: str  # its type
    storage: int  # pages
    central: int
    xstor: int
    dasd: int
    throughput: float  # units per second, to 0.1 (0 while paused)
    paging: int  # pages per second (-1: not known yet)
    unit: str


class GuestTableModel(QAbstractTableModel):
    """A row per guest of the simulation shown, in snapshot order; the figures of a frame."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self.userids: list[str] = []
        self.row_of: dict[str, int] = {}
        #: Whether each row matches the filter (the proxy shows only those).
        self.matches: list[bool] = []
        self.filter = GuestFilter()
        self._t_s = -1.0
        self._tiers: dict[str, tuple[int, int]] = {}
        self._paging: dict[str, float] = {}
        #: ``dataChanged`` signals emitted and rows they covered, since the start (tests and
        #: the benchmark look).
        self.changes = 0
        self.rows_changed = 0

    # -- data from the window ------------------------------------------------------------------
    def _row(self, index: SnapshotIndex, userid: str) -> Row:
        g = index.guests[userid]
        paused = userid in index.pauses
        return Row(userid, g.member or "", index.states[userid], workload_type(g.workload),
                   g.storage_pages, g.central, g.xstor, g.dasd,
                   0.0 if paused else round(g.throughput, 1),
                   round(self._paging.get(userid, -1.0)), g.unit)

    def _note_paging(self, index: SnapshotIndex) -> None:
        """Paging rates from the change of XSTOR and DASD pages since the last snapshot."""
        t = index.snapshot.t_s
        dt = t - self._t_s
        if dt <= 0:
            return  # the same instant (paused): the rates stand
        tiers = self._tiers
        first = self._t_s < 0
        for g in index.snapshot.guests:
            old = tiers.get(g.userid)
            if old is not None and not first:
                self._paging[g.userid] = (abs(g.xstor - old[0]) + abs(g.dasd - old[1])) / dt
            tiers[g.userid] = (g.xstor, g.dasd)
        self._t_s = t

    def reset_from(self, index: SnapshotIndex | None) -> None:
        """A new simulation: a row per guest (the only model reset)."""
        self.beginResetModel()
        self._t_s = -1.0
        self._tiers = {}
        self._paging = {}
        if index is None:
            self.rows, self.userids = [], []
        else:
            self._note_paging(index)
            self.userids = [g.userid for g in index.snapshot.guests]
            self.rows = [self._row(index, u) for u in self.userids]
        self.row_of = {u: i for i, u in enumerate(self.userids)}
        self.matches = [self._match(r) for r in self.rows]
        self.endResetModel()

    def update_from(self, index: SnapshotIndex) -> int:
        """Take a frame's figures; ``dataChanged`` for the rows that changed (runs of rows),
        and returns how many did."""
        if [g.userid for g in index.snapshot.guests] != self.userids:
            self.reset_from(index)
            return len(self.rows)
        self._note_paging(index)
        rows, matches = self.rows, self.matches
        whole: list[int] = []  # rows whose guest moved or changed state: sorted and filtered anew
        figures: list[int] = []  # rows where only the figures changed
        for i, uid in enumerate(self.userids):
            row = self._row(index, uid)
            old = rows[i]
            if row != old:
                rows[i] = row
                if row[:CENTRAL] != old[:CENTRAL]:
                    matches[i] = self._match(row)
                    whole.append(i)
                else:
                    figures.append(i)
        self._emit_changed(whole, 0)
        # the figures' columns only: sorted by user ID, member, state or storage, the proxy
        # need not sort again
        self._emit_changed(figures, CENTRAL)
        return len(whole) + len(figures)

    def _emit_changed(self, changed: Sequence[int], first_col: int) -> None:
        """``dataChanged`` over runs of changed rows, from ``first_col`` to the last column (a
        gap of a few unchanged rows is joined: fewer signals for the proxy to handle)."""
        if not changed:
            return
        last = len(COLUMNS) - 1
        start = prev = changed[0]
        for i in (*changed[1:], None):
            if i is not None and i - prev <= 4:
                prev = i
                continue
            self.dataChanged.emit(self.index(start, first_col), self.index(prev, last))
            self.changes += 1
            self.rows_changed += prev - start + 1
            if i is not None:
                start = prev = i

    def _match(self, row: Row) -> bool:
        return not self.filter.active or self.filter.matches(
            row.userid, row.workload, row.state, row.member or None)

    def set_filter(self, flt: GuestFilter) -> bool:
        """Match the rows against a new filter; True when some row's answer changed."""
        self.filter = flt
        new = [self._match(r) for r in self.rows]
        if new == self.matches:
            return False
        self.matches = new
        return True

    # -- Qt's model interface ------------------------------------------------------------------
    def rowCount(self, parent: Index = _ROOT) -> int:
        """One row per guest."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        """The ``COLUMNS``."""
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Column titles and what they mean."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][1]
        return None

    def data(self, index: Index,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Text, sort values, the state's colour and alignment of a cell."""
        # called some ten times per cell painted: the commonest roles first, plain ints
        if role == _DISPLAY:
            return self._text(self.rows[index.row()], index.column())
        if role == _ALIGN:
            return _RIGHT if index.column() in _NUMERIC else None
        if role == SORT_ROLE:
            return self.rows[index.row()][index.column()]
        if role == _DECORATION and index.column() == STATE:
            state = self.rows[index.row()].state
            return QColor(STATE_COLOURS.get(state, STATE_COLOURS["logged off"]))
        if role == _TOOLTIP and index.column() == STATE:
            return TERMS.get(self.rows[index.row()].state, "")
        return None

    @staticmethod
    def _text(row: Row, col: int) -> str:
        v = row[col]
        if col == STATE:
            return STATE_LABELS.get(row.state, row.state)
        if col == WORKLOAD:
            return row.workload.lower()
        if col in (STORAGE, CENTRAL, XSTOR, DASD):
            return format_size(int(v)) if v else "0"
        if col == THROUGHPUT:
            return f"{row.throughput:,.1f} {row.unit}"
        if col == PAGING:
            return "-" if row.paging < 0 else f"{row.paging:,} pages/s"
        return str(v)

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Rows can be selected and dragged (onto a member, to relocate the guest)."""
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() else base

    def mimeTypes(self) -> list[str]:
        """A dragged row carries a guest, as a tile does."""
        return [MIME_GUEST]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The user ID of the (first) row dragged."""
        mime = QMimeData()
        if indexes:
            uid = self.userids[indexes[0].row()]
            mime.setData(MIME_GUEST, uid.encode())
            mime.setText(uid)
        return mime

    def supportedDragActions(self) -> Qt.DropAction:
        """A member takes a guest dropped on it as a move."""
        return Qt.DropAction.MoveAction


class GuestFilterProxy(QSortFilterProxyModel):
    """Sorts by the numbers (``SORT_ROLE``) and shows the rows that match the filter box."""

    def __init__(self, source: GuestTableModel) -> None:
        super().__init__()
        self.setSourceModel(source)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self._source = source

    def refilter(self, change: Callable[[], bool]) -> None:
        """Run ``change`` (which changes who matches; True if anyone's answer changed) and
        show the rows that match now."""
        if hasattr(self, "beginFilterChange"):  # Qt 6.10 and later
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        elif change():
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int,
                         source_parent: Index) -> bool:
        """The row's match, worked out by the source model when its figures changed."""
        return self._source.matches[source_row]


class GuestTable(LazyPanel):
    """Every guest in a sortable table: user ID, member, state, storage by tier, throughput,
    paging. Selecting a row selects the guest; drag a row onto a member to relocate it."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.source = GuestTableModel(self)
        self.proxy = GuestFilterProxy(self.source)
        view = QTableView()
        view.setModel(self.proxy)
        # snapshot order (the scenario's) until a column is clicked
        view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        view.setSortingEnabled(True)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setDragEnabled(True)
        view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        view.setDefaultDropAction(Qt.DropAction.MoveAction)
        view.setAlternatingRowColors(True)
        view.setWordWrap(False)
        view.verticalHeader().hide()
        # a fixed row height: the view never asks every row how tall it wants to be
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
        head = view.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        head.setStretchLastSection(True)
        for col, chars in ((USERID, 9), (MEMBER, 8), (STATE, 11), (WORKLOAD, 10),
                           (STORAGE, 7), (CENTRAL, 7), (XSTOR, 7), (DASD, 7),
                           (THROUGHPUT, 17)):
            view.setColumnWidth(col, view.fontMetrics().horizontalAdvance("M" * chars) * 3 // 4
                                + 12)
        view.setToolTip("Every guest. Click a column to sort by it; select a row to see the "
                        "guest in detail; drag a row onto a member to relocate the guest.")
        self.view = view
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(view)
        self._selecting = False
        self._scroll_pending = False
        self._taken_s = -1e9  # when the table last took a frame's figures (monotonic)
        view.selectionModel().selectionChanged.connect(self._row_selected)
        model.reset.connect(self._reset)
        model.updated.connect(lambda _f: self.refresh())
        model.selection_changed.connect(self._show_selected)

    # -- data ----------------------------------------------------------------------------------
    def _reset(self) -> None:
        self.source.reset_from(self.model.index())
        self._show_selected(self.model.selected)

    def refresh(self, force: bool = False) -> None:
        """Take the latest snapshot's figures: while the clock runs, at most every
        ``TABLE_MS``; paused, every frame (so the last one is always shown). Skipped while
        hidden, caught up when shown.

        Only ever on a frame (``SessionModel.updated``): the worker waits while a frame is
        applied and painted, so the table's repaint does not compete with a step for the
        interpreter (a timer of its own would repaint in the middle of a step).
        """
        if self.skip_hidden(force):
            return
        now = time.monotonic()
        if self.model.running and not force and now - self._taken_s < TABLE_MS / 1000:
            return
        index = self.model.index()
        if index is None:
            return
        self._taken_s = now
        self.source.update_from(index)

    def set_filter(self, flt: GuestFilter) -> None:
        """Show only the guests that match."""
        self.proxy.refilter(lambda: self.source.set_filter(flt))
        self._show_selected(self.model.selected)

    def userid_at(self, proxy_row: int) -> str:
        """The user ID shown in a row of the table (as sorted and filtered)."""
        src = self.proxy.mapToSource(self.proxy.index(proxy_row, 0))
        return self.source.userids[src.row()]

    def shown_userids(self) -> list[str]:
        """The user IDs in the table's order."""
        return [self.userid_at(r) for r in range(self.proxy.rowCount())]

    # -- selection -----------------------------------------------------------------------------
    def _row_selected(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        if self._selecting:
            return
        rows = selected.indexes()
        if rows:
            self.model.select(self.userid_at(rows[0].row()))

    def _show_selected(self, userid: str | None) -> None:
        """Select the guest's row (and bring it into view) when the guest is selected
        elsewhere."""
        sel = self.view.selectionModel()
        self._selecting = True
        try:
            row = self.source.row_of.get(userid) if userid else None
            idx = self.proxy.mapFromSource(self.source.index(row, 0)) if row is not None \
                else QModelIndex()
            if not idx.isValid():
                sel.clearSelection()
                return
            if not sel.isRowSelected(idx.row(), QModelIndex()):
                sel.select(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                           | QItemSelectionModel.SelectionFlag.Rows)
                sel.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.NoUpdate)
                self._scroll_to(idx)
        finally:
            self._selecting = False

    def _scroll_to(self, idx: QModelIndex) -> None:
        """Bring a row into view; before the view has its size (a guest selected at start),
        once it has."""
        if self.view.viewport().height() < 3 * self.view.verticalHeader().defaultSectionSize():
            self._scroll_pending = True
            return
        self._scroll_pending = False
        self.view.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A row selected before the table had its size comes into view now."""
        super().resizeEvent(event)
        if self._scroll_pending:
            QTimer.singleShot(0, self._scroll_to_selected)

    def _scroll_to_selected(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        if rows:
            self._scroll_to(rows[0])


__all__ = ["COLUMNS", "SORT_ROLE", "GuestFilterProxy", "GuestTable", "GuestTableModel"]

"""The cluster at a glance: the filter box, a panel per member with its guests, and the legend.

Two ways to show the guests: *detailed* tiles (a widget per guest, with its user ID, size, state
and page bar) for a cluster of a few dozen guests, and the *compact* view (``compact_view``: a
small square per guest, painted by one widget per member) for a large one. Automatic (the
default) takes the compact view above ``COMPACT_ABOVE`` guests; View > Cluster view chooses.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import Snapshot

from .compact_view import CompactView
from .filter_bar import FilterBar
from .flow_layout import FlowLayout
from .guest_filter import FilterMatches, GuestFilter, workload_type
from .guest_tile import GuestTile
from .member_panel import MemberPanel
from .model import SessionModel
from .state_legend import StateLegend

#: Above this many guests, the automatic choice is the compact view: at 1600x1000 the detailed
#: tiles of some 60 guests still fit the members' panels without scrolling.
COMPACT_ABOVE = 60
#: The choices of View > Cluster view.
MODES = {"auto": f"Automatic (compact above {COMPACT_ABOVE} guests)",
         "compact": "Compact: a small square per guest",
         "detailed": "Detailed: a tile per guest"}


class ClusterView(QWidget):
    """Members side by side, each with its guests; logged-off guests in a strip below.

    Drag a guest onto another member to relocate it there.
    """

    #: ``(userid, member, ask_options)``: a guest was dropped on a member.
    relocate_requested = Signal(str, str, bool)
    #: ``(userid, global position)``: a tile's context menu was asked for.
    menu_requested = Signal(str, QPoint)
    #: ``(compact)``: the view switched between compact and detailed.
    mode_changed = Signal(bool)
    #: ``(GuestFilter)``: the filter box changed (the guest table follows it).
    filter_changed = Signal(object)

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.mode = "auto"
        self.filter = GuestFilter()
        self._matches = FilterMatches()
        self.panels: dict[str, MemberPanel] = {}
        self.tiles: dict[str, GuestTile] = {}
        self.incoming: dict[str, GuestTile] = {}
        self.filter_bar = FilterBar()
        self.filter_bar.changed.connect(self.set_filter)

        # the detailed view: a widget per guest
        self.detailed = QWidget()
        self._members_row = QHBoxLayout()
        self._members_row.setSpacing(8)
        self._off = QFrame()
        self._off.setFrameShape(QFrame.Shape.StyledPanel)
        off_lay = QVBoxLayout(self._off)
        off_lay.setContentsMargins(6, 4, 6, 4)
        off_lay.addWidget(QLabel("Logged off"))
        self._off_area = QWidget()
        self._off_flow = FlowLayout(self._off_area)
        off_lay.addWidget(self._off_area)
        self._off_tiles: list[GuestTile] = []
        self._off.hide()
        det = QVBoxLayout(self.detailed)
        det.setContentsMargins(0, 0, 0, 0)
        det.addLayout(self._members_row, 1)
        det.addWidget(self._off)

        # the compact view: a widget per member
        self.compact = CompactView(model)
        self.compact.relocate_requested.connect(self.relocate_requested)
        self.compact.menu_requested.connect(self.menu_requested)
        self.filter_bar.grouping_changed.connect(self.compact.set_grouping)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.detailed)
        self.stack.addWidget(self.compact)
        self.legend = StateLegend()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        lay.addWidget(self.filter_bar)
        lay.addWidget(self.stack, 1)
        lay.addWidget(self.legend)
        self._show_compact(False)
        model.reset.connect(self.rebuild)
        model.updated.connect(lambda _frame: self.refresh())
        model.selection_changed.connect(lambda _u: self.refresh())

    # -- compact or detailed -------------------------------------------------------------------
    def is_compact(self) -> bool:
        """True while the compact view is shown."""
        return self.stack.currentWidget() is self.compact

    def wants_compact(self) -> bool:
        """Whether the mode asks for the compact view, for the scenario shown."""
        if self.mode != "auto":
            return self.mode == "compact"
        return self.is_large()

    def is_large(self) -> bool:
        """True when the scenario shown has more than ``COMPACT_ABOVE`` guests."""
        snap = self.model.snapshot
        return snap is not None and len(snap.guests) > COMPACT_ABOVE

    def set_mode(self, mode: str) -> None:
        """``auto``, ``compact`` or ``detailed`` (View > Cluster view)."""
        if mode not in MODES:
            raise ValueError(f"unknown cluster view mode {mode!r}")
        self.mode = mode
        if self.wants_compact() != self.is_compact():
            self.rebuild()

    def _show_compact(self, on: bool) -> None:
        was = self.is_compact()
        self.stack.setCurrentWidget(self.compact if on else self.detailed)
        self.filter_bar.grouping.setEnabled(on)
        self.filter_bar.arrange_label.setEnabled(on)
        if on != was:
            self.mode_changed.emit(on)

    # -- building ------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """New simulation (or another mode): the compact view's panels, or one panel per member
        and one tile per guest."""
        snap = self.model.snapshot
        self._clear_detailed()
        if snap is not None:
            kinds = sorted({workload_type(g.workload) for g in snap.guests} - {""})
            self.filter_bar.set_workloads(kinds)
        compact = self.wants_compact()
        self._show_compact(compact)
        if compact:
            self.compact.rebuild()
        else:
            self.compact.clear()
            if snap is not None:
                self._build_detailed(snap)
        self._show_filter_bar(compact or self.is_large())
        self._count()

    def _build_detailed(self, snap: Snapshot) -> None:
        for m in snap.members:
            panel = MemberPanel(m.name)
            panel.guest_dropped.connect(self.relocate_requested)
            self._members_row.addWidget(panel, 1)
            self.panels[m.name] = panel
        for g in snap.guests:
            tile = GuestTile(g.userid)
            tile.clicked.connect(self.model.select)
            tile.menu_requested.connect(self.menu_requested)
            self.tiles[g.userid] = tile
        self.refresh()

    def _show_filter_bar(self, on: bool) -> None:
        """The filter box, for the compact view or a large cluster: a small cluster's tiles
        keep all the room they had (at 1024x775 they have none to spare). Hidden, it filters
        nothing; shown again, what it says applies again."""
        if on == (not self.filter_bar.isHidden()):
            return
        self.filter_bar.setVisible(on)
        self.set_filter(self.filter_bar.current() if on else GuestFilter())

    def _clear_detailed(self) -> None:
        for w in list(self.panels.values()) + list(self.tiles.values()) + \
                list(self.incoming.values()):
            w.setParent(None)
            w.deleteLater()
        self.panels.clear()
        self.tiles.clear()
        self.incoming.clear()
        self._set_off([])

    def set_filter(self, flt: GuestFilter) -> None:
        """Dim or hide the guests that do not match the filter box."""
        if flt == self.filter:
            return
        self.filter = flt
        self._matches.set_filter(flt)
        self.compact.set_filter(flt)
        self.filter_changed.emit(flt)
        self._count()
        self.refresh()

    def _count(self) -> None:
        """How many guests match, in the filter box."""
        index = self.model.index()
        if index is None:
            return
        guests = index.snapshot.guests
        matches = self._matches.matches
        n = len(guests) if not self.filter.active else sum(
            1 for g in guests if matches(g.userid, g.workload, index.states[g.userid],
                                         g.member))
        self.filter_bar.set_count(n, len(guests))

    # -- per frame -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the latest snapshot in the view shown."""
        snap: Snapshot | None = self.model.snapshot
        if snap is None:
            return
        if self.filter.active:  # states change, and with them who matches
            self._count()
        if self.is_compact():
            self.compact.refresh()
            return
        if [m.name for m in snap.members] != list(self.panels) or \
                [g.userid for g in snap.guests] != list(self.tiles):
            # the panels and tiles are always those of the snapshot shown, whatever the
            # order in which the model's callbacks reached this view
            self.rebuild()
            return
        index = self.model.index()
        assert index is not None
        flt = self.filter
        by_member: dict[str, list[GuestTile]] = {name: [] for name in self.panels}
        off: list[GuestTile] = []
        relocs = index.relocations
        for g in snap.guests:
            tile = self.tiles.get(g.userid)
            if tile is None:
                continue
            state = index.states[g.userid]
            match = self._matches.matches(g.userid, g.workload, state, g.member)
            if not match and flt.hide:
                tile.hide()
                continue
            tile.update_from(g, state, g.userid == self.model.selected, relocs.get(g.userid),
                             index.pauses.get(g.userid), dimmed=not match)
            if g.member in by_member:
                by_member[g.member].append(tile)
            else:
                off.append(tile)
        # the destination's copy of each guest on the move
        for userid in list(self.incoming):
            if userid not in relocs:
                t = self.incoming.pop(userid)
                t.setParent(None)
                t.deleteLater()
        for userid, r in relocs.items():
            ghost = self.incoming.get(userid)
            if ghost is None:
                ghost = GuestTile(userid, incoming=True)
                self.incoming[userid] = ghost
            g = index.guests.get(userid)
            if g is not None:
                ghost.update_from(g, "incoming", False, r)
            if r.destination in by_member:
                by_member[r.destination].append(ghost)
        for m in snap.members:
            panel = self.panels.get(m.name)
            if panel is not None:
                panel.update_from(m)
                panel.set_tiles(by_member[m.name])
        self._set_off(off)

    def _set_off(self, tiles: list[GuestTile]) -> None:
        if tiles == self._off_tiles:
            return
        while self._off_flow.count():
            self._off_flow.takeAt(0)
        for t in tiles:
            t.setParent(self._off_area)
            self._off_flow.addWidget(t)
            t.show()
        self._off_tiles = list(tiles)
        self._off.setVisible(bool(tiles))
        self._off_flow.invalidate()

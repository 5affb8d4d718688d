"""The cluster at a glance: a panel per member with its guests' tiles, and the legend."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ssisim.engine import Snapshot

from .flow_layout import FlowLayout
from .guest_tile import GuestTile
from .member_panel import MemberPanel
from .model import ACTIVE, SessionModel, active_pause, display_state
from .state_legend import StateLegend


class ClusterView(QWidget):
    """Members side by side, each with its guests; logged-off guests in a strip below.

    Drag a tile onto another member to relocate the guest there.
    """

    #: ``(userid, member, ask_options)``: a guest was dropped on a member.
    relocate_requested = Signal(str, str, bool)
    #: ``(userid, global position)``: a tile's context menu was asked for.
    menu_requested = Signal(str, QPoint)

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.panels: dict[str, MemberPanel] = {}
        self.tiles: dict[str, GuestTile] = {}
        self.incoming: dict[str, GuestTile] = {}
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
        self.legend = StateLegend()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(self._members_row, 1)
        lay.addWidget(self._off)
        lay.addWidget(self.legend)
        model.reset.connect(self.rebuild)
        model.updated.connect(lambda _frame: self.refresh())
        model.selection_changed.connect(lambda _u: self.refresh())

    def rebuild(self) -> None:
        """New simulation: one panel per member and one tile per guest."""
        snap = self.model.snapshot
        for w in list(self.panels.values()) + list(self.tiles.values()) + \
                list(self.incoming.values()):
            w.setParent(None)
            w.deleteLater()
        self.panels.clear()
        self.tiles.clear()
        self.incoming.clear()
        self._set_off([])
        if snap is None:
            return
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

    def refresh(self) -> None:
        """Show the latest snapshot: tile states, where each guest runs, incoming copies."""
        snap: Snapshot | None = self.model.snapshot
        if snap is None:
            return
        if [m.name for m in snap.members] != list(self.panels) or \
                [g.userid for g in snap.guests] != list(self.tiles):
            # the panels and tiles are always those of the snapshot shown, whatever the
            # order in which the model's callbacks reached this view
            self.rebuild()
            return
        by_member: dict[str, list[GuestTile]] = {name: [] for name in self.panels}
        off: list[GuestTile] = []
        relocs = {r.userid: r for r in snap.relocations if r.state in ACTIVE}
        for g in snap.guests:
            tile = self.tiles.get(g.userid)
            if tile is None:
                continue
            state = display_state(g, snap.relocations, snap.pauses)
            tile.update_from(g, state, g.userid == self.model.selected, relocs.get(g.userid),
                             active_pause(g.userid, snap.pauses))
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
            g = self.model.guest(userid)
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

"""The compact cluster view for large clusters: a small square per guest, painted by one widget
per member.

A thousand guests as widgets would cost a thousand paint events and layouts; here each member
has one ``GuestMap`` that paints its guests' squares itself (QPainter) and repaints only the
squares whose look changed. A square's area is proportional to the guest's defined storage
(``tile_layout``), its colour is its state (the legend's), a relocation under way is marked
with an arrow and the share of pages sent, a paused guest (CP STOP, Linux suspend or resume)
with a pause sign and the share of its phase done, and the destination shows the arriving copy
dashed. Hover for the guest, click to select it, right-click for its menu, drag it onto another
member to relocate it: the drag carries the same ``MIME_GUEST`` as the detailed view's tiles, so
one drop handler (``member_panel.MemberFrame``) serves both.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import QMimeData, QPoint, QPointF, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDrag,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import PAGES_PER_GB, GuestSnapshot, MemberSnapshot, format_size

from .elided_label import ElidedLabel
from .glossary import TERMS
from .guest_filter import FilterMatches, GuestFilter, workload_type
from .guest_tile import DIMMED_OPACITY, MIME_GUEST
from .member_panel import MemberFrame, show_gauges
from .model import SessionModel, SnapshotIndex
from .moves import pause_phase
from .theme import STATE_COLOURS, STATE_LABELS, STATE_ORDER, TIER_COLOURS, contrast_text
from .tier_bar import TierBar
from .tile_layout import Item, Placement, fit_scale, pack

#: Height of a group's header line inside a member (pixels).
HEADER_H = 14
#: Scale of the logged-off strip's squares: fixed, so that the strip's height depends only on
#: how many guests are logged off (not on the members' scale, which depends on the strip).
OFF_SCALE = 4.0
#: A destination's copy of a guest being relocated is keyed by this prefix and the user ID.
INCOMING = "\u2192"
#: Steps of the progress marks (a pause's phase, pages sent): finer would repaint for nothing.
STEPS = 20
#: Where a guest the filter hides is placed: nowhere.
HIDDEN = ""
#: Smallest square that carries its user ID, and its size too (pixels).
TEXT_SIDE, SIZE_SIDE = 38, 54


class TileLook(NamedTuple):
    """What a square shows; a square repaints only when its look changes.

    ``mark`` is ``move`` (a relocation under way: arrow), ``pause`` (CP STOP, Linux suspend or
    resume: pause sign) or ``""``; ``progress`` (0 to ``STEPS``) is the share of pages sent or
    of the pause's phase done, drawn as a bar along the bottom (0: none).
    """

    state: str
    selected: bool = False
    dimmed: bool = False
    mark: str = ""
    progress: int = 0


def look_of(index: SnapshotIndex, userid: str, selected: bool, dimmed: bool) -> TileLook:
    """The look of a guest's square in this snapshot."""
    state = index.states[userid]
    r = index.relocations.get(userid)
    if r is not None:
        g = index.guests[userid]
        inst = max(1, g.central + g.xstor + g.dasd)
        share = min(1.0, r.pages_moved / inst) if r.passes else 0.0
        return TileLook(state, selected, dimmed, "move", int(share * STEPS))
    p = index.pauses.get(userid)
    if p is not None:
        progress = int(p.progress * STEPS) if p.phase in ("write", "read") else 0
        return TileLook(state, selected, dimmed, "pause", progress)
    if state == "suspended":
        return TileLook(state, selected, dimmed, "pause", 0)
    return TileLook(state, selected, dimmed)


def incoming_look(index: SnapshotIndex, userid: str) -> TileLook:
    """The look of the destination's copy of a guest being relocated (share of pages sent)."""
    return TileLook("incoming", False, False, "", look_of(index, userid, False, False).progress)


def guest_tooltip(index: SnapshotIndex, userid: str, incoming: bool = False) -> str:
    """A guest's tooltip in the compact view: what the detailed tile's says."""
    g = index.guests.get(userid)
    if g is None:
        return userid
    rows = [f"<b>{html.escape(g.userid)}</b> ({format_size(g.storage_pages)})"]
    r = index.relocations.get(userid)
    if incoming and r is not None:
        rows.append(f"Arriving on {html.escape(r.destination)} from "
                    f"{html.escape(r.source)}: {r.pages_moved:,} pages sent")
        rows.append(TERMS["incoming"])
        return "<br>".join(rows)
    state = index.states.get(userid, g.state)
    label = STATE_LABELS.get(state, state)
    rows.append(f"State: <b>{label}</b> - {html.escape(TERMS.get(state, ''))}")
    if g.member:
        rows.append(f"Member: {html.escape(g.member)}")
    if r is not None:
        rows.append(f"Relocating to {html.escape(r.destination)}: {r.pages_moved:,} pages "
                    "sent")
    p = index.pauses.get(userid)
    work = f"paused ({pause_phase(p)})" if p is not None else g.workload
    rows.append(f"Workload: {html.escape(work)}")
    rows.append(f"Storage: {format_size(g.storage_pages)}; pages: central {g.central:,}, "
                f"XSTOR {g.xstor:,}, DASD {g.dasd:,}")
    if p is None:  # while paused it would be the stand-in work's rate
        rows.append(f"Throughput: {g.throughput:,.1f} {html.escape(g.unit)}")
    if g.member:
        rows.append("<i>Drag onto another member to relocate (Shift: options); "
                    "right-click for more.</i>")
    return "<br>".join(rows)


def paint_tile(p: QPainter, rect: QRect, look: TileLook, highlight: QColor,
               text: str = "", size_text: str = "") -> None:
    """One guest's square: its state's colour and the marks of a move or a pause."""
    s = rect.width()
    p.save()
    if look.dimmed:
        p.setOpacity(DIMMED_OPACITY)
    if look.state == "incoming":
        colour = QColor(STATE_COLOURS["incoming"])
        fill = QColor(colour)
        fill.setAlpha(45)
        p.fillRect(rect, fill)
        if look.progress:
            h = max(1, s * look.progress // STEPS)
            fill.setAlpha(140)
            p.fillRect(QRect(rect.left(), rect.bottom() + 1 - h, s, h), fill)
        p.setPen(QPen(colour, 1, Qt.PenStyle.DashLine if s >= 10 else Qt.PenStyle.SolidLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(rect.adjusted(0, 0, -1, -1))
        p.restore()
        return
    fill = QColor(STATE_COLOURS.get(look.state, STATE_COLOURS["logged off"]))
    p.fillRect(rect, fill)
    ink = contrast_text(fill)
    x, y = rect.left(), rect.top()
    if look.mark == "move":
        # an arrow: the guest is on its way
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(ink)
        p.drawPolygon(QPolygonF([QPointF(x + s * 0.22, y + s * 0.18),
                                 QPointF(x + s * 0.8, y + s * 0.48),
                                 QPointF(x + s * 0.22, y + s * 0.78)]))
    elif look.mark == "pause":
        # a pause sign: the guest serves nothing
        w = max(1, round(s * 0.16))
        top, h = y + round(s * 0.2), max(2, round(s * 0.55))
        p.fillRect(QRect(x + round(s * 0.26), top, w, h), ink)
        p.fillRect(QRect(x + round(s * 0.58), top, w, h), ink)
    if look.progress:
        bar = max(1, s // 7)
        p.fillRect(QRect(x, rect.bottom() + 1 - bar, max(1, s * look.progress // STEPS), bar),
                   ink)
    if text and s >= TEXT_SIDE:
        fm = p.fontMetrics()
        inner = rect.adjusted(3, 2, -2, -2)
        # the whole user ID or none (a cut one, "LDB00...", names no guest; hover does)
        if fm.horizontalAdvance(text) <= inner.width():
            p.setPen(ink)
            p.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, text)
            if size_text and s >= SIZE_SIDE:
                p.drawText(inner.adjusted(0, fm.height(), 0, 0),
                           Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, size_text)
    if look.selected:
        p.setOpacity(1.0)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(highlight, 2))
        p.drawRect(rect.adjusted(-1, -1, 0, 0))
    p.restore()


class GuestMap(QWidget):
    """The squares of one member's guests (or of the logged-off ones), painted in one widget.

    Parameters
    ----------
    tooltip : callable
        ``tooltip(key)``: the text for a square (``key`` a user ID, or ``INCOMING`` + user ID).
    draggable : bool
        Whether a square can be dragged onto a member (not in the logged-off strip).
    """

    #: ``(userid)``: a square was pressed.
    clicked = Signal(str)
    #: ``(userid, global position)``: a square's context menu was asked for.
    menu_requested = Signal(str, QPoint)
    #: The widget's size changed: the squares must be laid out again.
    resized = Signal()

    def __init__(self, tooltip: Callable[[str], str], draggable: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tooltip = tooltip
        self.draggable = draggable
        self.rects: dict[str, QRect] = {}
        self.looks: dict[str, TileLook] = {}
        self.headers: list[tuple[int, str]] = []
        self.sizes: dict[str, str] = {}  # the size written on squares large enough
        self.placed_height = 0  # the height the squares take
        #: Squares laid out below the bottom edge (a cluster too large even for the smallest
        #: squares); the panel says how many.
        self.clipped = 0
        #: Paint events so far (the benchmark counts them).
        self.paints = 0
        self._press: tuple[str, QPoint] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(40, 30)

    # -- data ----------------------------------------------------------------------------------
    def set_tiles(self, placement: Placement, looks: dict[str, TileLook],
                  sizes: dict[str, str]) -> None:
        """Show these squares where ``placement`` puts them, with their looks (repaints all)."""
        self.rects = {k: QRect(x, y, s, s) for k, (x, y, s) in placement.rects.items()}
        self.looks = {k: looks[k] for k in placement.rects}
        self.headers = list(placement.headers)
        self.sizes = sizes
        self.placed_height = placement.height
        h = self.height()
        self.clipped = sum(1 for r in self.rects.values() if r.bottom() >= h)
        self.update()

    def set_look(self, key: str, look: TileLook) -> bool:
        """Show a square's new look; repaints only that square. False if it has none here."""
        rect = self.rects.get(key)
        if rect is None:
            return False
        if self.looks.get(key) != look:
            self.looks[key] = look
            self.update(rect.adjusted(-2, -2, 2, 2))  # with the selection ring
        return True

    def tile_at(self, pos: QPoint) -> str | None:
        """The square under ``pos`` (a key), if any."""
        for key, rect in self.rects.items():
            if rect.contains(pos):
                return key
        return None

    # -- painting ------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        """The squares in the part to repaint, and the group headers."""
        self.paints += 1
        area = event.rect()
        p = QPainter(self)
        pal = self.palette()
        highlight = pal.color(QPalette.ColorRole.Highlight)
        font = QFont(self.font())
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
        p.setFont(font)
        if self.headers:
            p.setPen(pal.color(QPalette.ColorRole.WindowText))
            for y, text in self.headers:
                band = QRect(0, y, self.width(), HEADER_H)
                if band.intersects(area):
                    p.drawText(band, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                               text)
        for key, rect in self.rects.items():
            if rect.intersects(area) or (self.looks[key].selected and
                                         rect.adjusted(-2, -2, 2, 2).intersects(area)):
                paint_tile(p, rect, self.looks[key], highlight,
                           key if not key.startswith(INCOMING) else "", self.sizes.get(key, ""))
        p.end()

    # -- mouse ---------------------------------------------------------------------------------
    def event(self, event) -> bool:  # noqa: ANN001 (any QEvent)
        """Tooltips: the square's guest."""
        if isinstance(event, QHelpEvent) and event.type() == event.Type.ToolTip:
            key = self.tile_at(event.pos())
            if key is None:
                QToolTip.hideText()
                event.ignore()
                return True
            QToolTip.showText(event.globalPos(), self.tooltip(key), self, self.rects[key])
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Select the guest; remember where a drag may start."""
        key = self.tile_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and key is not None:
            userid = key.removeprefix(INCOMING)
            self._press = (key, event.position().toPoint())
            self.clicked.emit(userid)
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Start a drag once the mouse moved far enough with the button down."""
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            return
        key, start = self._press
        if (event.position().toPoint() - start).manhattanLength() < \
                QApplication.startDragDistance():
            return
        self._press = None
        self.start_drag(key)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """No drag after all."""
        self._press = None
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Ask for the guest's menu (not for an arriving copy)."""
        key = self.tile_at(event.pos())
        if key is not None and not key.startswith(INCOMING):
            self.menu_requested.emit(key, event.globalPos())

    def mime_data(self, userid: str) -> QMimeData:
        """What a drag of a square carries: the user ID (as a detailed tile's drag)."""
        mime = QMimeData()
        mime.setData(MIME_GUEST, userid.encode())
        mime.setText(userid)
        return mime

    def drag_pixmap(self, key: str) -> QPixmap:
        """A picture of the square being dragged, with its user ID beside it."""
        look = self.looks[key]
        font = QFont(self.font())
        font.setBold(True)
        fm = QFontMetrics(font)
        side = 18
        pm = QPixmap(QSize(side + 6 + fm.horizontalAdvance(key) + 8, max(side, fm.height()) + 4))
        pm.fill(self.palette().color(QPalette.ColorRole.Base))
        p = QPainter(pm)
        paint_tile(p, QRect(2, 2, side, side), look._replace(selected=False, dimmed=False),
                   QColor())
        p.setFont(font)
        p.setPen(self.palette().color(QPalette.ColorRole.Text))
        p.drawText(QRect(side + 8, 0, pm.width(), pm.height()),
                   Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, key)
        p.end()
        return pm

    def start_drag(self, key: str) -> Qt.DropAction:
        """Drag a guest's square; the member it is dropped on issues the relocation."""
        if not self.draggable or key.startswith(INCOMING) or key not in self.rects:
            return Qt.DropAction.IgnoreAction
        drag = QDrag(self)
        drag.setMimeData(self.mime_data(key))
        drag.setPixmap(self.drag_pixmap(key))
        drag.setHotSpot(QPoint(10, 10))
        return drag.exec(Qt.DropAction.MoveAction)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Lay the squares out again for the new size."""
        super().resizeEvent(event)
        self.resized.emit()


class CompactMemberPanel(MemberFrame):
    """A member in the compact view: name, gauges in two rows, and its guests' squares."""

    def __init__(self, name: str, view: CompactView, parent: QWidget | None = None) -> None:
        super().__init__(name, parent)
        self._view = view
        title = QLabel(name)
        f = QFont(title.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.15)
        title.setFont(f)
        self.title = title
        self.cpu = TierBar("CPU", TIER_COLOURS["cpu"])
        self.cpu.setToolTip(TERMS["cpu"])
        self.central = TierBar("Central", TIER_COLOURS["central"])
        self.central.setToolTip(TERMS["central"])
        self.xstor = TierBar("XSTOR", TIER_COLOURS["xstor"])
        self.xstor.setToolTip(TERMS["xstor"])
        self.paging = TierBar("Paging", TIER_COLOURS["dasd"], mark=0.5)
        self.paging.setToolTip(TERMS["paging"] + " The dotted mark is 50 %.")
        # elided: a longer line (", 207 hidden") must not widen the panel, and with it the
        # cluster, at the docks' expense
        self.info = ElidedLabel("", tip="Guests on the member, their defined storage, and how "
                                "many times the member's central storage that is (the "
                                "overcommitment planners watch); the arriving copies of guests "
                                "on the move are not counted.")
        small = QFont(self.info.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.info.setFont(small)
        self.map = GuestMap(lambda key: view.tooltip(key))
        head = QHBoxLayout()
        head.setSpacing(6)
        head.addWidget(title)
        head.addWidget(self.cpu, 1)
        tiers = QHBoxLayout()
        tiers.setSpacing(4)
        tiers.addWidget(self.central, 1)
        tiers.addWidget(self.xstor, 1)
        tiers.addWidget(self.paging, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 5, 6, 6)
        lay.setSpacing(3)
        lay.addLayout(head)
        lay.addLayout(tiers)
        lay.addWidget(self.info)
        lay.addWidget(self.map, 1)

    def update_from(self, m: MemberSnapshot) -> None:
        """Show the member's CPU and storage tiers (XSTOR only on a member that has some)."""
        show_gauges(m, self.cpu, self.central, self.xstor, self.paging)
        self.xstor.setVisible(m.xstor_total > 0)

    def has_guest(self, userid: str) -> bool:
        """True when the guest runs on this member."""
        return self._view.member_of(userid) == self.name


class CompactView(QWidget):
    """Every guest of a large cluster at once: a ``CompactMemberPanel`` per member, side by
    side, and a strip of the logged-off guests below.

    ``ClusterView`` drives it (``rebuild`` on a new simulation, ``refresh`` on every frame and
    selection, ``set_filter`` and ``set_grouping`` from the filter box). A frame costs a look-up
    and a comparison per guest, and a repaint of the squares whose look changed; the squares
    are laid out again only when guests arrive on or leave a member (or the filter hides them,
    or the view is resized).
    """

    #: ``(userid, member, ask_options)``: a guest was dropped on a member.
    relocate_requested = Signal(str, str, bool)
    #: ``(userid, global position)``: a square's context menu was asked for.
    menu_requested = Signal(str, QPoint)

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.panels: dict[str, CompactMemberPanel] = {}
        self.filter = GuestFilter()
        self.grouping = "size"
        #: Pixels per square root of a GB, for every member alike (``tile_layout``).
        self.scale: float | None = None
        self._row = QHBoxLayout()
        self._row.setSpacing(6)
        self._off = QFrame()
        self._off.setFrameShape(QFrame.Shape.StyledPanel)
        off_lay = QVBoxLayout(self._off)
        off_lay.setContentsMargins(6, 3, 6, 4)
        off_lay.setSpacing(2)
        self._off_label = QLabel("Logged off")
        off_lay.addWidget(self._off_label)
        self.off_map = GuestMap(lambda key: self.tooltip(key), draggable=False)
        self.off_map.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.off_map.clicked.connect(self.model.select)
        self.off_map.menu_requested.connect(self.menu_requested)
        off_lay.addWidget(self.off_map)
        self._off.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addLayout(self._row, 1)
        lay.addWidget(self._off)
        #: Where each guest is placed: (member, None when logged off or ``HIDDEN``; group;
        #: storage).
        self._place: dict[str, tuple[str | None, str, int]] = {}
        self._looks: dict[str, TileLook] = {}
        self._matches = FilterMatches()
        self._incoming: dict[str, str] = {}  # user ID -> destination of an arriving copy
        self._where: dict[str, str | None] = {}  # user ID -> member it runs on
        #: The guest pictures the squares were last worked out from, and for which selection,
        #: filter and grouping: a guest whose picture is the same object (the engine gives
        #: the same one while nothing it shows changed), or shows the same state, member,
        #: storage and workload, and that neither moves nor pauses keeps its square as it is
        #: (most of a large cluster, between two frames)
        self._seen: dict[str, GuestSnapshot] = {}
        self._seen_for: tuple = ()
        self._busy: set[str] = set()  # guests moving or pausing in the last frame
        self._sizes: dict[str, str] = {}
        self._fit_for: tuple = ()  # the map sizes the scale was fitted to
        #: What each map was last laid out for (member name, "" for the logged-off strip).
        self._laid: dict[str, tuple] = {}
        self._refit = True
        self._relayout_soon = QTimer(self)
        self._relayout_soon.setSingleShot(True)
        self._relayout_soon.timeout.connect(lambda: self.relayout(force_fit=True))
        #: Frames whose changes were applied square by square, and relayouts (benchmark).
        self.relayouts = 0

    # -- questions -----------------------------------------------------------------------------
    def member_of(self, userid: str) -> str | None:
        """The member the guest runs on (as the view shows it), None if logged off."""
        return self._where.get(userid)

    def map_of(self, userid: str) -> GuestMap | None:
        """The widget that paints the guest's square, if it is shown."""
        for m in (*[p.map for p in self.panels.values()], self.off_map):
            if userid in m.rects:
                return m
        return None

    def tile_rect(self, userid: str) -> QRect | None:
        """The guest's square in this view's coordinates (None when not shown)."""
        m = self.map_of(userid)
        if m is None:
            return None
        r = m.rects[userid]
        return QRect(m.mapTo(self, r.topLeft()), r.size())

    def look(self, userid: str) -> TileLook | None:
        """What the guest's square shows now."""
        return self._looks.get(userid)

    def shown(self) -> list[str]:
        """The user IDs with a square, arriving copies left out."""
        maps = [p.map for p in self.panels.values()] + [self.off_map]
        return [k for m in maps for k in m.rects if not k.startswith(INCOMING)]

    def tooltip(self, key: str) -> str:
        """The tooltip of a square."""
        index = self.model.index()
        if index is None:
            return key
        return guest_tooltip(index, key.removeprefix(INCOMING), key.startswith(INCOMING))

    # -- building ------------------------------------------------------------------------------
    def _remove_panels(self) -> None:
        for panel in self.panels.values():
            panel.setParent(None)
            panel.deleteLater()
        self.panels.clear()
        self._laid.clear()

    def clear(self) -> None:
        """No panels (the detailed view is shown instead)."""
        self._remove_panels()
        self.off_map.set_tiles(Placement(), {}, {})
        self._off.hide()

    def rebuild(self) -> None:
        """A panel per member of the snapshot shown."""
        self._remove_panels()
        self._place.clear()
        self._looks.clear()
        self._seen.clear()
        self._incoming.clear()
        self._where.clear()
        self.scale = None
        self._refit = True
        snap = self.model.snapshot
        if snap is None:
            return
        for m in snap.members:
            panel = CompactMemberPanel(m.name, self)
            panel.guest_dropped.connect(self.relocate_requested)
            panel.map.clicked.connect(self.model.select)
            panel.map.menu_requested.connect(self.menu_requested)
            panel.map.resized.connect(self._relayout_soon.start)
            self._row.addWidget(panel, 1)
            self.panels[m.name] = panel
        self._sizes = {g.userid: format_size(g.storage_pages) for g in snap.guests}
        self.refresh()

    def set_filter(self, flt: GuestFilter) -> None:
        """Dim (or hide) the guests that do not match."""
        if flt != self.filter:
            hide_changed = flt.hide or self.filter.hide
            self.filter = flt
            self._matches.set_filter(flt)
            self._refit = self._refit or hide_changed
            self.refresh()

    def set_grouping(self, grouping: str) -> None:
        """Arrange each member's guests largest first (``size``), or by ``workload`` or
        ``state`` (a header line per group)."""
        if grouping != self.grouping:
            self.grouping = grouping
            self._refit = True
            self.refresh()

    # -- per frame -----------------------------------------------------------------------------
    def _group(self, index: SnapshotIndex, userid: str) -> str:
        if self.grouping == "workload":
            return workload_type(index.guests[userid].workload) or "no workload"
        if self.grouping == "state":
            state = index.states[userid]
            return STATE_LABELS.get(state, state)
        return ""

    def refresh(self) -> None:
        """Show the latest snapshot: new looks repaint their squares; guests that arrived,
        left or were hidden lay their members out again."""
        index = self.model.index()
        if index is None or not self.panels:
            return
        snap = index.snapshot
        if [m.name for m in snap.members] != list(self.panels):
            self.rebuild()
            return
        for m in snap.members:
            self.panels[m.name].update_from(m)
        selected = self.model.selected
        flt = self.filter
        check = flt.active
        matches = self._matches.matches
        dirty = self._refit
        changed: list[tuple[str, TileLook]] = []
        place, looks, where = self._place, self._looks, self._where
        seen = self._seen
        context = (selected, flt, self.grouping)
        if context != self._seen_for:
            seen.clear()
            self._seen_for = context
        busy = index.relocations.keys() | index.pauses.keys()
        recheck = busy | self._busy
        self._busy = busy
        for g in snap.guests:
            uid = g.userid
            was = seen.get(uid)
            if was is not None and uid not in recheck and (was is g or (
                    was.state == g.state and was.member == g.member
                    and was.storage_pages == g.storage_pages and was.workload == g.workload)):
                continue  # nothing its square shows changed (its throughput may have)
            seen[uid] = g
            dim = False
            member = g.member
            if check and not matches(uid, g.workload, index.states[uid], g.member):
                if flt.hide:
                    member = HIDDEN
                else:
                    dim = True
            where[uid] = g.member
            spot = (member, self._group(index, uid) if self.grouping != "size" else "",
                    g.storage_pages)
            if place.get(uid) != spot:
                place[uid] = spot
                dirty = True
            look = look_of(index, uid, uid == selected, dim)
            if looks.get(uid) != look:
                looks[uid] = look
                changed.append((uid, look))
        incoming = {uid: r.destination for uid, r in index.relocations.items()}
        if incoming != self._incoming:
            self._incoming = incoming
            dirty = True
        for uid in incoming:
            look = incoming_look(index, uid)
            if looks.get(INCOMING + uid) != look:
                looks[INCOMING + uid] = look
                changed.append((INCOMING + uid, look))
        if dirty:
            self.relayout(force_fit=self._refit)
            return
        for key, look in changed:
            uid = key.removeprefix(INCOMING)
            member = self._incoming.get(uid) if key.startswith(INCOMING) else place[uid][0]
            target = self.panels[member].map if member in self.panels else self.off_map
            target.set_look(key, look)

    # -- layout --------------------------------------------------------------------------------
    def _items(self, index: SnapshotIndex) -> tuple[dict[str, list[Item]], list[Item]]:
        """Each member's squares in order, and the logged-off ones."""
        rank = {label: i for i, label in enumerate(STATE_LABELS[s] for s in STATE_ORDER)}
        by_member: dict[str, list[tuple]] = {name: [] for name in self.panels}
        off: list[tuple] = []
        for uid, (member, group, pages) in self._place.items():
            if uid not in index.guests:
                continue
            order = (rank.get(group, len(rank)) if self.grouping == "state" else 0, group,
                     -pages, uid)
            item = Item(uid, pages / PAGES_PER_GB, group)
            if member in by_member:
                by_member[member].append((order, item))
            elif member is None:
                off.append((order, item))
        out = {name: [it for _, it in sorted(rows)] for name, rows in by_member.items()}
        # the copies arriving go last, under a header of their own: the guests already
        # there stay where they were
        for uid, dest in sorted(self._incoming.items()):
            g = index.guests.get(uid)
            if dest in out and g is not None:
                out[dest].append(Item(INCOMING + uid, g.storage_pages / PAGES_PER_GB,
                                      "arriving"))
        return out, [it for _, it in sorted(off)]

    def relayout(self, force_fit: bool = False) -> None:
        """Place the squares of the members whose guests changed (all of them when the scale
        changes); pick a new scale when asked (a resize, the filter, the grouping) or when the
        current one no longer fits. A member whose squares stay where they were only repaints
        those whose look changed."""
        index = self.model.index()
        if index is None or not self.panels:
            return
        self.relayouts += 1
        members, off = self._items(index)
        header = HEADER_H
        # the logged-off strip first: its height is taken from the members' room
        self._off.setVisible(bool(off))
        if off:
            width = max(40, self.off_map.width() if self.off_map.width() > 40 else
                        self.width() - 16)
            self._place_map("", self.off_map, off, width, OFF_SCALE, 0)
            self.off_map.setFixedHeight(max(8, self.off_map.placed_height))
            self._off_label.setText(f"Logged off ({len(off)})")
        elif self.off_map.rects:  # the last one logged on (or another scenario has none)
            self._laid.pop("", None)
            self.off_map.set_tiles(Placement(), {}, {})
        maps = {name: self.panels[name].map for name in members}
        sizes = tuple((m.width(), m.height()) for m in maps.values())
        if any(w < 20 or h < 20 for w, h in sizes):
            self._refit = True  # not laid out yet: again once the maps have their size
            return
        width = min(w for w, _ in sizes)
        height = min(h for _, h in sizes)
        k = self.scale
        placed: dict[str, Placement] = {}
        if k is not None and not force_fit and sizes == self._fit_for:
            for name, items in members.items():
                placement = pack(items, width, k, header)
                if placement.height > height:
                    break  # no longer fits: a new scale
                placed[name] = placement
        if len(placed) < len(members):
            k = fit_scale(list(members.values()), width, height, header)
            self._fit_for = sizes
            placed = {}
        assert k is not None
        self.scale = k
        self._refit = False
        for name, items in members.items():
            if self._place_map(name, maps[name], items, width, k, header, placed.get(name)):
                self._show_info(index, name, items)

    def _place_map(self, name: str, target: GuestMap, items: list[Item], width: int,
                   k: float, header: int, placement: Placement | None = None) -> bool:
        """Lay a map's squares out, unless they would go where they are: then only the looks
        that changed are repainted. True when laid out anew."""
        key = (width, k, header, tuple(items))
        if self._laid.get(name) == key:
            for item in items:
                target.set_look(item.key, self._looks[item.key])
            return False
        self._laid[name] = key
        target.set_tiles(placement or pack(items, width, k, header), self._looks, self._sizes)
        return True

    def _show_info(self, index: SnapshotIndex, name: str, items: list[Item]) -> None:
        panel = self.panels[name]
        here = [g for g in index.snapshot.guests if g.member == name]
        defined = sum(g.storage_pages for g in here)
        frames = next((m.frames for m in index.snapshot.members if m.name == name), 0)
        text = f"{len(here):,} guests"
        # what is hidden first: a narrow panel cuts the end of the line
        hidden = len(here) - sum(1 for it in items if not it.key.startswith(INCOMING))
        if hidden > 0:
            text += f" ({hidden:,} hidden)"
        text += f", {format_size(defined)}"
        if frames:
            text += f" ({defined / frames:.1f}x central)"
        if panel.map.clipped:
            text += f", {panel.map.clipped:,} cut off"
        panel.info.set_full_text(text)


__all__ = ["CompactMemberPanel", "CompactView", "GuestMap", "TileLook", "guest_tooltip",
           "look_of", "paint_tile"]

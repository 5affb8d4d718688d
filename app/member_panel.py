"""A member of the cluster as a drop target, and its detailed panel: CPU load, storage tiers
and its guests' tiles."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QFont,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import MemberSnapshot, format_size

from .flow_layout import FlowLayout
from .glossary import TERMS
from .guest_tile import MIME_GUEST, GuestTile
from .theme import TIER_COLOURS
from .tier_bar import TierBar


def _pct(used: float, total: float) -> float:
    return 100.0 * used / total if total else 0.0


#: Scales tried, largest first, when a member's tiles do not fit its panel (a small window).
TILE_SCALES = (1.0, 0.88, 0.76, 0.64, 0.52, 0.42, 0.32)


def show_gauges(m: MemberSnapshot, cpu: TierBar, central: TierBar, xstor: TierBar,
                paging: TierBar) -> None:
    """Show a member's CPU and storage tiers on its gauges (both cluster views use them)."""
    cpu.set_value(m.cpu_pct / 100.0, f"{m.cpu_pct:.0f}%")
    for bar, used, total in ((central, m.resident, m.frames),
                             (xstor, m.xstor_used, m.xstor_total),
                             (paging, m.slots_used, m.slots_total)):
        if not total:
            bar.set_value(0.0, "none")
            continue
        u, t, pct = format_size(used), format_size(total), f"{_pct(used, total):.0f}%"
        # a narrow panel shows the shorter forms (TierBar.shown)
        bar.set_value(used / total, f"{u} / {t}  {pct}", f"{u}/{t} {pct}", pct)


def dragged_guest(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The user ID a drag carries (a tile of either cluster view, a row of the guest table),
    or None for anything else."""
    md = event.mimeData()
    if not md.hasFormat(MIME_GUEST):
        return None
    return bytes(md.data(MIME_GUEST).data()).decode()


class MemberFrame(QFrame):
    """A member as a drop target: dropping a guest here relocates it to this member.

    The one drop handler of both cluster views (the detailed panel and the compact one): a
    drag carries ``MIME_GUEST`` with the user ID, wherever it started. Subclasses say which
    guests are already on the member (``has_guest``): a drop there does nothing.
    """

    #: ``(userid, member, ask_options)``: a guest was dropped here; ``ask_options`` when Shift
    #: was held.
    guest_dropped = Signal(str, str, bool)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.setObjectName("memberPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAcceptDrops(True)
        self.setToolTip(f"{name}: {TERMS['member']} Drop a guest here to relocate it to {name}.")
        self._drop_ok = False

    def has_guest(self, userid: str) -> bool:  # pragma: no cover - overridden
        """True when the guest runs on this member (a drop here would do nothing)."""
        raise NotImplementedError

    # -- drops ---------------------------------------------------------------------------------
    def _set_drop_highlight(self, on: bool) -> None:
        if on != self._drop_ok:
            self._drop_ok = on
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The frame, and a highlight while a guest is dragged over the member."""
        super().paintEvent(event)
        if self._drop_ok:
            p = QPainter(self)
            p.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 3))
            p.drawRoundedRect(self.rect().adjusted(2, 2, -2, -2), 6, 6)
            p.end()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept a guest from another member."""
        userid = dragged_guest(event)
        if userid is not None and not self.has_guest(userid):
            event.setDropAction(Qt.DropAction.MoveAction)
            event.accept()
            self._set_drop_highlight(True)
            return
        event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        """Drop the highlight."""
        self._set_drop_highlight(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        """Relocate the dropped guest here (Shift held: ask for the options first)."""
        self._set_drop_highlight(False)
        userid = dragged_guest(event)
        if userid is None or self.has_guest(userid):
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()
        ask = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.guest_dropped.emit(userid, self.name, ask)


class MemberPanel(MemberFrame):
    """A member: name, CPU, central / XSTOR / paging gauges, and a tile per guest on it.

    Dropping a guest tile here relocates the guest to this member (``MemberFrame``).
    """

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, parent)
        self.tiles: list[GuestTile] = []

        title = QLabel(name)
        self.title = title
        f = QFont(title.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.25)
        title.setFont(f)
        self.cpu = TierBar("CPU", TIER_COLOURS["cpu"])
        self.cpu.setToolTip(TERMS["cpu"])
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.cpu, 1)
        self.central = TierBar("Central", TIER_COLOURS["central"])
        self.central.setToolTip(TERMS["central"])
        self.xstor = TierBar("XSTOR", TIER_COLOURS["xstor"])
        self.xstor.setToolTip(TERMS["xstor"])
        self.paging = TierBar("Paging slots", TIER_COLOURS["dasd"], mark=0.5,
                              short_label="Paging")
        self.paging.setToolTip(TERMS["paging"] + " The dotted mark is 50 %.")

        self._area = QWidget()
        self._area.setObjectName("tileArea")
        self._flow = FlowLayout(self._area)
        scroll = QScrollArea()
        scroll.setWidget(self._area)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._scroll = scroll
        # the tiles fit the room the scroll area has, once it has it
        scroll.viewport().installEventFilter(self)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addWidget(self.central)
        lay.addWidget(self.xstor)
        lay.addWidget(self.paging)
        lay.addWidget(scroll, 1)

    # -- data ----------------------------------------------------------------------------------
    def update_from(self, m: MemberSnapshot) -> None:
        """Show the member's CPU and storage tiers."""
        show_gauges(m, self.cpu, self.central, self.xstor, self.paging)

    def set_tiles(self, tiles: list[GuestTile]) -> None:
        """Show exactly these tiles, in this order (re-lays out only when they change)."""
        if tiles == self.tiles:
            return
        for t in self.tiles:
            if t not in tiles:
                self._flow.removeWidget(t)
        while self._flow.count():
            self._flow.takeAt(0)
        for t in tiles:
            if t.parent() is not self._area:
                t.setParent(self._area)
            self._flow.addWidget(t)
            t.show()
        self.tiles = list(tiles)
        self.fit_tiles()
        self._flow.invalidate()
        self._area.updateGeometry()

    def fit_tiles(self) -> float:
        """Shrink the tiles alike until they all fit the panel (never below ``MIN_TILE``);
        returns the scale chosen. A window too small even then scrolls."""
        view = self._scroll.viewport().size()
        if view.width() <= 1 or view.height() <= 1 or not self.tiles:
            return 1.0
        m = self._flow.contentsMargins()
        room_w = view.width() - m.left() - m.right()
        chosen = TILE_SCALES[-1]
        for scale in TILE_SCALES:
            widest = max(t.size_at(scale).width() for t in self.tiles)
            if widest > room_w:
                continue
            if self._flow.height_at(view.width(), [t.size_at(scale) for t in self.tiles]) \
                    <= view.height():
                chosen = scale
                break
        changed = False
        for t in self.tiles:
            changed = t.set_scale(chosen) or changed
        if changed:
            self._flow.invalidate()
            self._area.updateGeometry()
        return chosen

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Fit the tiles whenever the room for them changes size."""
        if event.type() == QEvent.Type.Resize and watched is self._scroll.viewport():
            self.fit_tiles()
        return super().eventFilter(watched, event)

    def has_guest(self, userid: str) -> bool:
        """True when the guest's (non-incoming) tile is on this member."""
        return any(t.userid == userid and not t.incoming for t in self.tiles)

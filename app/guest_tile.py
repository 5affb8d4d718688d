"""One guest as a tile: sized by its storage, coloured by its state, dragged to relocate it."""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QMimeData, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDrag,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QApplication, QWidget

from ssisim.engine import (
    PAGES_PER_GB,
    GuestSnapshot,
    PauseSnapshot,
    RelocationSnapshot,
    format_size,
)

from .glossary import TERMS
from .moves import pause_phase
from .theme import STATE_COLOURS, STATE_LABELS, TIER_COLOURS, contrast_text

#: MIME type of a dragged guest; the data is its user ID.
MIME_GUEST = "application/x-ssisim-guest"


#: How faint a guest that does not match the filter box is drawn (both cluster views).
DIMMED_OPACITY = 0.22

#: The smallest tile that still reads: the user ID, size and state, and the page bar.
MIN_TILE = QSize(80, 46)


def tile_size(storage_pages: int, scale: float = 1.0) -> QSize:
    """Tile size for a guest: area grows with storage (square root), within readable bounds.

    ``scale`` shrinks every tile of a member alike when they would not fit its panel (a small
    window), down to ``MIN_TILE``.
    """
    gb = max(storage_pages / PAGES_PER_GB, 0.01)
    w = min(max(84 * math.sqrt(gb / 2), 96), 250)
    h = min(max(w * 0.6, 62), 150)
    return QSize(max(MIN_TILE.width(), int(w * scale)), max(MIN_TILE.height(), int(h * scale)))


class GuestTile(QWidget):
    """A guest on a member panel. Drag it onto another member to relocate it.

    An *incoming* tile is the destination's copy of a guest being relocated: drawn dashed, with
    the share of pages that has arrived.
    """

    #: ``(userid)``: the tile was clicked.
    clicked = Signal(str)
    #: ``(userid, global position)``: the context menu was asked for.
    menu_requested = Signal(str, QPoint)

    def __init__(self, userid: str, incoming: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.userid = userid
        self.incoming = incoming
        self.state = "logged off"
        self.selected = False
        self.dimmed = False
        self._g: GuestSnapshot | None = None
        #: The suspend, resume or CP STOP under way (its phase replaces the workload shown).
        self.pause: PauseSnapshot | None = None
        self._progress = 0.0
        self._scale = 1.0
        self._size = tile_size(0)
        self._press: QPoint | None = None
        self._key: tuple = ()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, False)
        self.setCursor(Qt.CursorShape.OpenHandCursor)

    # -- data ----------------------------------------------------------------------------------
    def update_from(self, g: GuestSnapshot, state: str, selected: bool,
                    reloc: RelocationSnapshot | None = None,
                    pause: PauseSnapshot | None = None, dimmed: bool = False) -> None:
        """Show the guest as in ``g``; repaint only when something visible changed.

        ``dimmed``: the guest does not match the filter box (drawn faint).

        While ``pause`` (a suspend, resume or CP STOP under way) lasts, the tile shows its
        phase instead of the workload: what the engine runs then stands in for the writing or
        reading of the image, and is not the guest's own work.
        """
        progress = 0.0
        if self.incoming and reloc is not None:
            inst = max(1, g.central + g.xstor + g.dasd)
            progress = min(1.0, reloc.pages_moved / inst) if reloc.passes else 0.0
        # the page bar is about 100 pixels wide: a change under 0.5 % cannot be seen
        per = max(1, g.storage_pages // 200)
        key = (g.member, state, selected, g.storage_pages, g.central // per, g.xstor // per,
               g.dasd // per, g.workload, round(progress, 2),
               None if pause is None else (pause.action, pause.phase), dimmed)
        if key == self._key:
            return
        self._key = key
        self._g = g
        self.pause = pause
        self.state = state
        self.selected = selected
        self.dimmed = dimmed
        self._progress = progress
        self._resize()
        self.setToolTip(self._tooltip(reloc))
        self.update()

    def set_scale(self, scale: float) -> bool:
        """Draw the tile at ``scale`` of its size (see ``tile_size``); True if it changed."""
        if scale == self._scale:
            return False
        self._scale = scale
        return self._resize()

    def size_at(self, scale: float) -> QSize:
        """The tile's size at ``scale``."""
        return tile_size(self._g.storage_pages if self._g is not None else 0, scale)

    def _resize(self) -> bool:
        size = self.size_at(self._scale)
        if size == self._size:
            return False
        self._size = size
        self.updateGeometry()
        return True

    def sizeHint(self) -> QSize:
        """Size by storage."""
        return self._size

    def minimumSizeHint(self) -> QSize:
        """As large as the size hint: tiles do not shrink."""
        return self._size

    def _tooltip(self, reloc: RelocationSnapshot | None) -> str:
        g = self._g
        if g is None:
            return self.userid
        rows = [f"<b>{html.escape(g.userid)}</b> ({format_size(g.storage_pages)})"]
        if self.incoming and reloc is not None:
            rows.append(f"Arriving on {html.escape(reloc.destination)} from "
                        f"{html.escape(reloc.source)}: {reloc.pages_moved:,} pages sent")
            rows.append(TERMS["incoming"])
            return "<br>".join(rows)
        label = STATE_LABELS.get(self.state, self.state)
        rows.append(f"State: <b>{label}</b> - {html.escape(TERMS.get(self.state, ''))}")
        if g.member:
            rows.append(f"Member: {html.escape(g.member)}")
        rows.append(f"Workload: {html.escape(self.workload_text())}")
        rows.append(f"Pages: central {g.central:,}, XSTOR {g.xstor:,}, DASD {g.dasd:,}")
        if self.pause is None:  # while paused it would be the stand-in work's rate
            rows.append(f"Throughput: {g.throughput:,.1f} {html.escape(g.unit)}")
        if g.member:
            rows.append("<i>Drag onto another member to relocate (Shift: options); "
                        "right-click for more.</i>")
        return "<br>".join(rows)

    def workload_text(self) -> str:
        """The workload as the tooltip says it (a pause's phase while one is under way)."""
        g = self._g
        if self.pause is not None:
            return f"paused ({pause_phase(self.pause)})"
        return g.workload if g is not None else ""

    def workload_word(self) -> str:
        """The word under the state on the tile: the workload's type, or a pause's phase."""
        if self.pause is not None:
            return pause_phase(self.pause, short=True)
        g = self._g
        return g.workload.split()[0].lower() if g is not None and g.workload else ""

    # -- painting ------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        """Rounded tile, state colour, user ID, size and state, and where the pages are."""
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.dimmed:
            p.setOpacity(DIMMED_OPACITY)
        r = QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5)
        pal = self.palette()
        if self.incoming:
            fill = QColor(STATE_COLOURS["incoming"])
            fill.setAlpha(40)
            p.setBrush(fill)
            pen = QPen(QColor(STATE_COLOURS["incoming"]), 2, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawRoundedRect(r, 8, 8)
            text = pal.color(QPalette.ColorRole.WindowText)
        else:
            fill = QColor(STATE_COLOURS.get(self.state, STATE_COLOURS["logged off"]))
            p.setBrush(fill)
            border = pal.color(QPalette.ColorRole.Highlight) if self.selected else fill.darker(130)
            p.setPen(QPen(border, 3 if self.selected else 1))
            p.drawRoundedRect(r, 8, 8)
            text = contrast_text(fill)
        g = self._g
        inner = r.adjusted(7, 4, -7, -4)
        font = QFont(self.font())
        font.setBold(True)
        # a small tile (many guests, a small window) writes its user ID smaller, not cut off
        base = font.pointSizeF()
        while font.pointSizeF() > base * 0.75 and \
                QFontMetricsF(font).horizontalAdvance(self.userid) > inner.width():
            font.setPointSizeF(font.pointSizeF() - 0.5)
        p.setFont(font)
        p.setPen(text)
        fm = p.fontMetrics()
        p.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                   fm.elidedText(self.userid, Qt.TextElideMode.ElideRight, int(inner.width())))
        font.setBold(False)
        font.setPointSizeF(base)
        p.setFont(font)
        fm = p.fontMetrics()
        y = inner.top() + fm.height()
        if g is not None:
            if self.incoming:
                forms = [f"arriving {self._progress:.0%}", f"{self._progress:.0%}"]
            else:
                size, state = format_size(g.storage_pages), STATE_LABELS.get(self.state, "")
                # the state is the tile's colour too: it goes first when room is short
                forms = [f"{size}  {state}", f"{size} {state}", size]
            second = next((f for f in forms if fm.horizontalAdvance(f) <= inner.width()),
                          forms[-1])
            p.drawText(QRectF(inner.left(), y, inner.width(), fm.height()),
                       Qt.AlignmentFlag.AlignLeft, second)
            y += fm.height()
            if not self.incoming and inner.bottom() - y > fm.height() + 8 and \
                    self.workload_word():
                small = QFont(font)
                small.setPointSizeF(max(6.5, font.pointSizeF() * 0.85))
                p.setFont(small)
                kind = self.workload_word()
                p.drawText(QRectF(inner.left(), y, inner.width(), fm.height()),
                           Qt.AlignmentFlag.AlignLeft, kind)
            self._paint_pages(p, QRectF(inner.left(), inner.bottom() - 6, inner.width(), 6), g)
        p.end()

    def _paint_pages(self, p: QPainter, bar: QRectF, g: GuestSnapshot) -> None:
        """A thin bar: the guest's storage, with the parts in central, XSTOR and on DASD."""
        total = max(1, g.storage_pages)
        p.setPen(Qt.PenStyle.NoPen)
        track = QColor(0, 0, 0, 60)
        p.setBrush(track)
        p.drawRect(bar)
        if self.incoming:
            part = QRectF(bar.left(), bar.top(), bar.width() * self._progress, bar.height())
            p.setBrush(QColor(STATE_COLOURS["incoming"]))
            p.drawRect(part)
            return
        x = bar.left()
        for tier, n in (("central", g.central), ("xstor", g.xstor), ("dasd", g.dasd)):
            w = bar.width() * min(1.0, n / total)
            if w <= 0:
                continue
            p.setBrush(QColor(TIER_COLOURS[tier]).lighter(115))
            p.drawRect(QRectF(x, bar.top(), w, bar.height()))
            x += w

    # -- mouse ---------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Select the guest; remember where a drag may start."""
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
            self.clicked.emit(self.userid)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Start a drag once the mouse moved far enough with the button down."""
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            return
        if (event.position().toPoint() - self._press).manhattanLength() < \
                QApplication.startDragDistance():
            return
        self._press = None
        self.start_drag()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """No drag after all."""
        self._press = None
        super().mouseReleaseEvent(event)

    def can_drag(self) -> bool:
        """Only a logged-on guest (not an incoming copy) can be dragged to another member."""
        return not self.incoming and self._g is not None and self._g.member is not None

    def mime_data(self) -> QMimeData:
        """What a drag of this tile carries: the user ID."""
        mime = QMimeData()
        mime.setData(MIME_GUEST, self.userid.encode())
        mime.setText(self.userid)
        return mime

    def start_drag(self) -> Qt.DropAction:
        """Drag the guest; the member it is dropped on issues the relocation."""
        if not self.can_drag():
            return Qt.DropAction.IgnoreAction
        drag = QDrag(self)
        drag.setMimeData(self.mime_data())
        drag.setPixmap(self.grab())
        drag.setHotSpot(QPoint(self.width() // 2, self.height() // 2))
        return drag.exec(Qt.DropAction.MoveAction)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Ask for the guest's menu."""
        if not self.incoming:
            self.menu_requested.emit(self.userid, event.globalPos())

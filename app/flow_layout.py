"""A layout that places widgets left to right and wraps them into rows (guest tiles)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Widgets in rows, wrapping at the right edge; height follows the width."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(6, 6, 6, 6)

    def addItem(self, item: QLayoutItem) -> None:
        """Append an item (Qt calls this for addWidget)."""
        self._items.append(item)

    def count(self) -> int:
        """Number of items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at ``index``."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove and return the item at ``index``."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        """The layout does not grow on its own."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        """Height depends on width (rows wrap)."""
        return True

    def heightForWidth(self, width: int) -> int:
        """Height needed at ``width``."""
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items in ``rect``."""
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """At least the largest item."""
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """The largest item plus margins."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def height_at(self, width: int, sizes: list[QSize]) -> int:
        """Height the items would need at ``width`` if they had these sizes."""
        m = self.contentsMargins()
        right = width - m.right()
        x, y, row_h = m.left(), m.top(), 0
        for size in sizes:
            if x + size.width() > right and row_h > 0:
                x = m.left()
                y += row_h + self._spacing
                row_h = 0
            x += size.width() + self._spacing
            row_h = max(row_h, size.height())
        return y + row_h + m.bottom()

    def _place(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and row_h > 0:
                x = area.x()
                y += row_h + self._spacing
                row_h = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            row_h = max(row_h, hint.height())
        return y + row_h - rect.y() + m.bottom()

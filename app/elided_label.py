"""A one-line label that cuts its text with an ellipsis where it is too narrow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """One line of text, cut with an ellipsis where the panel is too narrow (all of it in the
    tooltip): a line that wrapped would take the charts' room in a small window."""

    def __init__(self, text: str = "", parent: QWidget | None = None, tip: str = "") -> None:
        super().__init__(parent)
        self.full = ""
        #: What the text means, in the tooltip after the text itself.
        self.tip = tip
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        """Show ``text`` (elided to the width)."""
        self.full = text
        self.setToolTip(f"{text}\n\n{self.tip}" if self.tip and text else text or self.tip)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full, Qt.TextElideMode.ElideRight,
                                                   max(self.width(), 40)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Elide again for the new width."""
        super().resizeEvent(event)
        self._elide()

"""Panels that skip redrawing while hidden behind a tab and catch up when shown."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


class LazyPanel(QWidget):
    """A widget whose ``refresh(force=False)`` does nothing while it is hidden.

    Subclasses start ``refresh`` with ``if self.skip_hidden(force): return``; the first show
    after a skipped refresh draws the latest state.
    """

    _stale = True

    def skip_hidden(self, force: bool) -> bool:
        """True (and remember to catch up) when the panel is hidden and not forced."""
        if not self.isVisible() and not force:
            self._stale = True
            return True
        self._stale = False
        return False

    def refresh(self, force: bool = False) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def showEvent(self, event) -> None:
        """Catch up with what happened while hidden."""
        super().showEvent(event)
        if self._stale:
            self.refresh(force=True)

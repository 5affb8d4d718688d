"""Panels that skip redrawing while hidden behind a tab and catch up when shown."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


class LazyPanel(QWidget):
    """A widget whose ``refresh(force=False)`` does nothing while it cannot be seen.

    Subclasses start ``refresh`` with ``if self.skip_hidden(force): return``; the first show
    after a skipped refresh draws the latest state. A dock behind another dock's tab is not
    hidden by Qt but moved out of the window (it stays ``isVisible()``): its panel counts as
    hidden when nothing of it is on screen, and catches up when its tab is chosen
    (``catch_up``, which the main window calls on the dock's ``visibilityChanged``).
    """

    _stale = True

    def skip_hidden(self, force: bool) -> bool:
        """True (and remember to catch up) when the panel cannot be seen and is not forced."""
        if not force and (not self.isVisible() or self.visibleRegion().isEmpty()):
            self._stale = True
            return True
        self._stale = False
        return False

    def refresh(self, force: bool = False) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def catch_up(self) -> None:
        """Draw the latest state if a refresh was skipped while hidden."""
        if self._stale:
            self.refresh(force=True)

    def showEvent(self, event) -> None:
        """Catch up with what happened while hidden."""
        super().showEvent(event)
        self.catch_up()

"""Answers that arrive later: a ``Future`` finished on another thread, handled on the GUI thread."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from PySide6.QtCore import QObject, QTimer

#: How often a pending future is looked at (ms).
POLL_MS = 20


def when_done(owner: QObject, fut: Future, fn: Callable[[Any], None],
              on_error: Callable[[BaseException], None] | None = None) -> None:
    """Call ``fn(result)`` on the GUI thread once ``fut`` is done.

    If it raised, ``on_error(exception)`` is called instead (without ``on_error`` the error is
    dropped: the worker reports its own failures). Nothing is called once ``owner`` is gone.
    """
    def poll() -> None:
        if not fut.done():
            QTimer.singleShot(POLL_MS, owner, poll)
            return
        try:
            result = fut.result()
        except Exception as e:  # noqa: BLE001 (handed on, or nothing to show)
            if on_error is not None:
                on_error(e)
            return
        fn(result)

    QTimer.singleShot(0, owner, poll)


__all__ = ["POLL_MS", "when_done"]

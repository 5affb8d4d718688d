"""Garbage collection on the GUI thread only, while a window's simulation thread runs.

Python's cyclic collector runs on whichever thread happens to allocate when a threshold is
crossed. If that is the simulation thread and the garbage holds a Qt object (a closed dialog, a
menu, a lambda connected to a button), the object is destroyed there: Qt takes its object lock
on that thread while the GUI thread, deleting another object, holds the interpreter lock and
waits for the same Qt lock: both threads stop for good. So while any window is open, automatic
collection is off and pyqtgraph's ``GarbageCollector`` collects on a GUI-thread timer instead;
when the last window has shut down, everything is collected once and automatic collection is on
again (tests open and close many windows in one process, between headless runs).

A timed collection of the oldest generation walks every object alive, and a simulation of a
thousand guests is a great many: 150 ms on the main thread, a pause the user sees. So once a
simulation is built and drawn (``settle``), everything alive is collected once and then frozen
(``gc.freeze``: left out of later collections); the next simulation, or the last window's
release, thaws it, so that what it leaves behind is collected.
"""

from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

#: How often the GUI thread looks whether a collection is due (s).
INTERVAL_S = 0.5

_holders = 0
_collector: GarbageCollector | None = None


def hold() -> None:
    """A window opens: collect on the GUI thread only (call on the GUI thread)."""
    global _holders, _collector
    _holders += 1
    if _collector is None:
        _collector = GarbageCollector(interval=INTERVAL_S)  # disables automatic collection


def release() -> None:
    """A window has stopped its threads: once none is left, collect and go back to normal."""
    global _holders, _collector
    _holders = max(0, _holders - 1)
    if _holders == 0 and _collector is not None:
        _collector.timer.stop()
        _collector = None
        gc.unfreeze()
        gc.collect()
        gc.enable()


def settle() -> None:
    """A new simulation is built and drawn: collect once, then leave what is alive now out of
    the timed collections (call on the GUI thread, while held)."""
    if not active():
        return
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def active() -> bool:
    """True while collection happens on the GUI thread only."""
    return _collector is not None and not gc.isenabled()


__all__ = ["INTERVAL_S", "active", "hold", "release", "settle"]

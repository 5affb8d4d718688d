"""The hand-over point between the simulation worker and the window. No Qt here.

The worker puts; the window takes, on its redraw timer. Only the latest snapshot is kept, while
the samples, events and console answers that arrived since the last take are all kept (the
plots and the log need every one of them).
"""

from __future__ import annotations

import threading

from ssisim.engine import Event, SampleSet, Snapshot

from .frames import ConsoleItem, Frame
from .pacing import Watch


class Mailbox:
    """Latest snapshot plus what accumulated since the window last looked (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._snapshot: Snapshot | None = None
        self._samples: list[SampleSet] = []
        self._events: list[Event] = []
        self._console: list[ConsoleItem] = []
        self._running = False
        self._watch: Watch | None = None
        self._fresh = False

    def put(self, generation: int, snapshot: Snapshot,
            samples: list[SampleSet] | tuple[SampleSet, ...], events: list[Event],
            console: list[ConsoleItem], running: bool, watch: Watch | None = None) -> None:
        """Publish a new snapshot and append what came with it (worker thread).

        ``generation`` numbers the simulation the snapshot is of; one older than the latest
        published is dropped. ``watch``: watch mode is slowing the clock (None: it is not).
        """
        with self._lock:
            if generation < self._generation:
                return  # of a simulation already replaced: stale
            if generation != self._generation:
                # a new simulation: what the old one left here is of no use any more
                self._generation = generation
                self._samples.clear()
                self._events.clear()
                self._console.clear()
            self._snapshot = snapshot
            self._samples.extend(samples)
            self._events.extend(events)
            self._console.extend(console)
            self._running = running
            self._watch = watch
            self._fresh = True

    def take(self) -> Frame | None:
        """Everything new since the last take, or None when nothing changed (main thread)."""
        with self._lock:
            if not self._fresh or self._snapshot is None:
                return None
            frame = Frame(self._generation, self._snapshot, tuple(self._samples),
                          tuple(self._events), tuple(self._console), self._running,
                          self._watch)
            self._samples.clear()
            self._events.clear()
            self._console.clear()
            self._fresh = False
            return frame

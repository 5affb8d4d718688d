"""What the simulation worker publishes to the window: immutable frames of the latest snapshot,
the engine's samples (``SampleSet``, from its sample feed), events and console answers.

Everything here is frozen or a tuple, so a frame can cross from the worker thread to the main
thread without sharing anything the engine still changes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ssisim.engine import Event, LinkSample, RelocationSnapshot, SampleSet, Snapshot

from .pacing import Watch


def relocation_key(r: RelocationSnapshot | LinkSample) -> str:
    """A name for one relocation that stays the same for its whole life (guest and start time);
    a relocation's snapshot and its link samples have the same."""
    return f"{r.userid}@{r.start_s:g}"


@dataclass(frozen=True)
class ConsoleItem:
    """A line group for the console: an answer to a command, or a command of the timeline.

    ``kind`` is ``answer`` (CP's answer to a command typed or issued by a gesture),
    ``waiting`` (the command waits: a SYNC relocation holds the console), ``timeline``
    (a command of the scenario's timeline and its answer) or ``session`` (a command of a
    recorded session being replayed, and its answer).
    """

    kind: str
    t_s: float
    command: str
    lines: tuple[str, ...]
    rc: int = 0
    request_id: int = 0
    delayed: bool = False  # answered later than it was issued
    seq: float = 0.0  # where it goes among the events (its COMMAND event's number)


@dataclass(frozen=True)
class Frame:
    """Everything new since the window last looked: the latest snapshot and what accumulated.

    ``generation`` changes when the worker starts a new simulation (reset or another scenario):
    the window then forgets what it drew before.
    """

    generation: int
    snapshot: Snapshot
    samples: tuple[SampleSet, ...]  # the engine's samples since the last frame (every step)
    events: tuple[Event, ...]
    console: tuple[ConsoleItem, ...]
    running: bool
    watch: Watch | None = None  # watch mode is slowing the clock (``pacing.Watcher``)


def copy_event(e: Event) -> Event:
    """A copy of an engine event whose data no longer shares lists with the engine's."""
    return Event(e.t_s, e.seq, e.kind, e.member, e.userid, e.message, copy.deepcopy(e.data))

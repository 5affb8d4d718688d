"""What the simulation worker publishes to the window: immutable frames built from snapshots.

Everything here is frozen or a tuple, so a frame can cross from the worker thread to the main
thread without sharing anything the engine still changes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ssisim.engine import Event, RelocationSnapshot, Snapshot

from .pacing import Watch

#: Columns of a member row in a ``Sample`` (pages, percent, pages per second).
MEMBER_COLUMNS = ("central", "xstor", "slots", "cpu_pct", "page_in_s", "to_xstor_s", "to_dasd_s")
#: Columns of a guest row in a ``Sample`` (pages, workload units per second).
GUEST_COLUMNS = ("central", "xstor", "dasd", "throughput")

#: Phases of a Linux suspend or resume (``PauseSnapshot`` action, phase) in which the engine runs
#: stand-in work for the guest (writing or reading its image, or nothing): the guest's own
#: workload does no work then, so its throughput is 0, not the stand-in's rate.
STAND_IN_PHASES = frozenset({("suspend", "prepare"), ("suspend", "write"), ("resume", "boot"),
                             ("resume", "read"), ("resume", "restart")})


def stand_in(snap: Snapshot) -> frozenset[str]:
    """The guests of ``snap`` whose workload is the engine's stand-in for a suspend or resume."""
    return frozenset(p.userid for p in snap.pauses
                     if p.active and (p.action, p.phase) in STAND_IN_PHASES)


def relocation_key(r: RelocationSnapshot) -> str:
    """A name for one relocation that stays the same for its whole life (guest and start time)."""
    return f"{r.userid}@{r.start_s:g}"


@dataclass(frozen=True)
class RelocationSample:
    """One relocation during one step: what the link carried and what is left."""

    key: str
    pages_per_s: float  # pages sent per second over the last step
    link_pages_per_s: float  # what the link could carry for it
    pages_left: int


@dataclass(frozen=True)
class Sample:
    """The world after one step, reduced to the numbers the plots draw."""

    t_s: float
    members: tuple[tuple[float, ...], ...]  # one row per member, MEMBER_COLUMNS
    guests: tuple[tuple[float, ...], ...]  # one row per guest, GUEST_COLUMNS
    relocations: tuple[RelocationSample, ...] = ()


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
    samples: tuple[Sample, ...]
    events: tuple[Event, ...]
    console: tuple[ConsoleItem, ...]
    running: bool
    watch: Watch | None = None  # watch mode is slowing the clock (``pacing.Watcher``)


class SampleBuilder:
    """Turns consecutive snapshots into ``Sample`` rows (rates from cumulative counters)."""

    def __init__(self) -> None:
        self._prev_t: float | None = None
        self._prev_counters: tuple[tuple[int, ...], ...] = ()
        self._prev_moved: dict[str, int] = {}
        self._prev_active: set[str] = set()

    def sample(self, snap: Snapshot) -> Sample:
        """The sample for ``snap``; rates cover the time since the previous call."""
        dt = 0.0 if self._prev_t is None else snap.t_s - self._prev_t
        members = []
        counters = tuple(m.counters for m in snap.members)
        for i, m in enumerate(snap.members):
            if dt > 0 and i < len(self._prev_counters):
                prev = self._prev_counters[i]
                d = [(a - b) / dt for a, b in zip(m.counters, prev)]
            else:
                d = [0.0] * len(m.counters)
            # counters: xstor_in, dasd_in, xstor_out, dasd_out, dasd_clean, migrated, new
            members.append((float(m.resident), float(m.xstor_used), float(m.slots_used),
                            float(m.cpu_pct), d[0] + d[1], d[2], d[3]))
        paused = stand_in(snap)
        guests = tuple((float(g.central), float(g.xstor), float(g.dasd),
                        0.0 if g.userid in paused else float(g.throughput))
                       for g in snap.guests)
        relocs = []
        moved: dict[str, int] = {}
        active: set[str] = set()
        for r in snap.relocations:
            key = relocation_key(r)
            moved[key] = r.pages_moved
            if r.state in ("moving", "quiesced"):
                active.add(key)
            elif key not in self._prev_active:
                continue  # ended before the previous sample: nothing more to draw
            rate = (r.pages_moved - self._prev_moved.get(key, 0)) / dt if dt > 0 else 0.0
            relocs.append(RelocationSample(key, rate, r.link_pages_per_s, r.pages_left))
        self._prev_moved = moved
        self._prev_active = active
        self._prev_t = snap.t_s
        self._prev_counters = counters
        return Sample(snap.t_s, tuple(members), guests, tuple(relocs))


def copy_event(e: Event) -> Event:
    """A copy of an engine event whose data no longer shares lists with the engine's."""
    return Event(e.t_s, e.seq, e.kind, e.member, e.userid, e.message, copy.deepcopy(e.data))

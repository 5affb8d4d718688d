"""What the window knows about the running simulation, kept on the main thread. No Qt here.

``SessionModel`` takes the worker's frames and keeps the latest snapshot, the history for the
plots, the events and the throttle spans of every relocation; views subscribe to its callbacks
and redraw from it, and the model never knows the views (like napari's evented models).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ssisim.engine import Event, GuestSnapshot, PauseSnapshot, RelocationSnapshot, Snapshot

from .frames import Frame, relocation_key
from .history import History

ACTIVE = ("moving", "quiesced")


class Callbacks:
    """A list of callables to notify: a minimal observer for Qt-free models."""

    def __init__(self) -> None:
        self._fns: list[Callable[..., Any]] = []

    def connect(self, fn: Callable[..., Any]) -> None:
        """Call ``fn`` on every ``emit``."""
        self._fns.append(fn)

    def disconnect(self, fn: Callable[..., Any]) -> None:
        """Stop calling ``fn``."""
        self._fns.remove(fn)

    def emit(self, *args: Any) -> None:
        """Call every connected function with ``args``."""
        for fn in list(self._fns):
            fn(*args)


@dataclass
class ThrottleSpan:
    """One throttle of one relocation, from its start to its end (None while it lasts)."""

    key: str  # side:reason
    start_s: float
    end_s: float | None = None
    cost_s: float | None = None  # for link:ordering, the time it cost (not its span)


#: The state a guest shows while it is being paused or let go, by (action, phase) of its
#: ``PauseSnapshot``: the scheduler's state then is that of the stand-in work the engine runs
#: for the suspend or resume (writing or reading the image), not the guest's own.
PAUSE_STATES = {
    ("suspend", "prepare"): "suspending",
    ("suspend", "write"): "suspending",
    ("resume", "boot"): "resuming",
    ("resume", "read"): "resuming",
    ("resume", "restart"): "resuming",
    ("resume", "first request"): "resuming",
    ("stop", "stopped"): "stopped",
    ("stop", "waking"): "resuming",
}


def active_pause(userid: str, pauses: tuple[PauseSnapshot, ...]) -> PauseSnapshot | None:
    """The suspend, resume or CP STOP of ``userid`` under way, if any (the latest)."""
    for p in reversed(pauses):
        if p.userid == userid and p.active and (p.action, p.phase) in PAUSE_STATES:
            return p
    return None


def display_state(g: GuestSnapshot, relocations: tuple[RelocationSnapshot, ...],
                  pauses: tuple[PauseSnapshot, ...] = ()) -> str:
    """The state a guest's tile shows: relocating/quiesced, the phase of a pause under way
    (suspending, resuming, stopped), or its scheduler state."""
    for r in relocations:
        if r.userid == g.userid and r.state in ACTIVE:
            return "quiesced" if r.state == "quiesced" else "relocating"
    if g.member is None:
        return "logged off"
    p = active_pause(g.userid, pauses)
    if p is not None:
        return PAUSE_STATES[(p.action, p.phase)]
    return g.state


class SnapshotIndex:
    """One snapshot's guests by user ID, with what each one's tile shows: built once per
    snapshot (``SessionModel.index``), so that views with a thousand guests look each one up
    in a dict instead of scanning the relocations and pauses for every guest.

    ``states`` holds every guest's ``display_state``; ``relocations`` the relocations under
    way by guest; ``pauses`` the suspends, resumes and CP STOPs under way (``active_pause``).
    """

    def __init__(self, snap: Snapshot) -> None:
        self.snapshot = snap
        self.guests: dict[str, GuestSnapshot] = {g.userid: g for g in snap.guests}
        self.relocations: dict[str, RelocationSnapshot] = {}
        for r in snap.relocations:
            if r.state in ACTIVE:
                self.relocations.setdefault(r.userid, r)
        # the latest pause of a guest wins, as in ``active_pause``
        self.pauses: dict[str, PauseSnapshot] = {
            p.userid: p for p in snap.pauses if p.active and (p.action, p.phase) in PAUSE_STATES}
        states: dict[str, str] = {}
        for g in snap.guests:
            r = self.relocations.get(g.userid)
            if r is not None:
                states[g.userid] = "quiesced" if r.state == "quiesced" else "relocating"
            elif g.member is None:
                states[g.userid] = "logged off"
            elif g.userid in self.pauses:
                p = self.pauses[g.userid]
                states[g.userid] = PAUSE_STATES[(p.action, p.phase)]
            else:
                states[g.userid] = g.state
        self.states = states


class SessionModel:
    """The latest snapshot, the history, the events and the selection of the window."""

    def __init__(self) -> None:
        self.generation = -1
        #: Frames of a simulation older than this are stale (see ``expect``).
        self.expected_generation = 0
        self.snapshot: Snapshot | None = None
        self.history = History([], [])
        self.events: list[Event] = []
        self.throttles: dict[str, list[ThrottleSpan]] = {}
        self.running = False
        self.selected: str | None = None
        self.frames_applied = 0
        self._index: SnapshotIndex | None = None
        #: a new simulation began (reset or another scenario): forget what was drawn
        self.reset = Callbacks()
        #: ``(frame)``: the latest frame was applied; views redraw
        self.updated = Callbacks()
        #: ``(events)``: events that arrived with the frame
        self.events_added = Callbacks()
        #: ``(userid or None)``: the guest shown in detail changed
        self.selection_changed = Callbacks()

    # -- input ---------------------------------------------------------------------------------
    def expect(self, generation: int) -> None:
        """A new simulation was asked for: drop frames of any older one from now on.

        The worker goes on publishing the old simulation until it reads the request; such a
        frame, applied after the window switched to the new scenario, would show the old one's
        guests under the new one's name.
        """
        self.expected_generation = max(self.expected_generation, generation)

    def apply(self, frame: Frame) -> bool:
        """Take in a frame from the worker and notify the views; False (and nothing done) for
        a stale frame, of a simulation older than the one shown or expected."""
        snap = frame.snapshot
        if frame.generation < max(self.generation, self.expected_generation):
            return False
        if frame.generation != self.generation:
            self.generation = frame.generation
            self.history = History([m.name for m in snap.members], [g.userid for g in snap.guests])
            self.events = []
            self.throttles = {}
            self.snapshot = snap
            self.reset.emit()
            if self.selected is not None and self.guest(self.selected) is None:
                self.select(None)  # a guest of the old scenario
        self.snapshot = snap
        self.running = frame.running
        self.history.extend(frame.samples)
        if frame.events:
            self.events.extend(frame.events)
            self._note_throttles(frame.events, snap)
            self.events_added.emit(frame.events)
        self.frames_applied += 1
        self.updated.emit(frame)
        return True

    def select(self, userid: str | None) -> None:
        """Show ``userid`` in the guest detail (None: nobody)."""
        if userid != self.selected:
            self.selected = userid
            self.selection_changed.emit(userid)

    def _note_throttles(self, events: tuple[Event, ...], snap: Snapshot) -> None:
        for e in events:
            if e.kind not in ("THROTTLE_START", "THROTTLE_END") or e.userid is None:
                continue
            r = self._relocation_at(e.userid, e.t_s, snap)
            if r is None:
                continue
            spans = self.throttles.setdefault(relocation_key(r), [])
            key = f"{e.data.get('side')}:{e.data.get('reason')}"
            if e.kind == "THROTTLE_START":
                spans.append(ThrottleSpan(key, e.t_s))
                continue
            start = float(e.data.get("start_s", e.t_s))
            for s in reversed(spans):
                if s.key == key and s.end_s is None:
                    s.start_s = min(s.start_s, start)
                    s.end_s = e.t_s
                    s.cost_s = float(e.data.get("seconds", 0.0))
                    break
            else:
                spans.append(ThrottleSpan(key, start, e.t_s, float(e.data.get("seconds", 0.0))))

    @staticmethod
    def _relocation_at(userid: str, t: float, snap: Snapshot) -> RelocationSnapshot | None:
        best = None
        for r in snap.relocations:
            if r.userid == userid and r.start_s <= t + 1e-6 and \
                    (r.end_s is None or t <= r.end_s + 1.0):
                best = r
        return best

    # -- questions views ask -------------------------------------------------------------------
    def index(self) -> SnapshotIndex | None:
        """The latest snapshot's guests by user ID and their display states (built once per
        snapshot, on first use)."""
        snap = self.snapshot
        if snap is None:
            return None
        if self._index is None or self._index.snapshot is not snap:
            self._index = SnapshotIndex(snap)
        return self._index

    def guest(self, userid: str) -> GuestSnapshot | None:
        """The latest snapshot of a guest."""
        index = self.index()
        return None if index is None else index.guests.get(userid)

    def member_names(self) -> list[str]:
        """Members of the cluster, by name."""
        return [] if self.snapshot is None else [m.name for m in self.snapshot.members]

    def userids(self) -> list[str]:
        """Every guest of the scenario, logged on or not."""
        return [] if self.snapshot is None else [g.userid for g in self.snapshot.guests]

    def relocation(self, key: str) -> RelocationSnapshot | None:
        """A relocation by its key (``relocation_key``)."""
        if self.snapshot is None:
            return None
        for r in self.snapshot.relocations:
            if relocation_key(r) == key:
                return r
        return None

    def active_relocation(self, userid: str) -> RelocationSnapshot | None:
        """The relocation of ``userid`` under way, if any."""
        if self.snapshot is None:
            return None
        for r in self.snapshot.relocations:
            if r.userid == userid and r.state in ACTIVE:
                return r
        return None

    def state_of(self, userid: str) -> str:
        """What the guest's tile shows (see ``display_state``)."""
        index = self.index()
        return "logged off" if index is None else index.states.get(userid, "logged off")

    def pause_of(self, userid: str) -> PauseSnapshot | None:
        """The suspend, resume or CP STOP of ``userid`` under way, if any."""
        return None if self.snapshot is None else active_pause(userid, self.snapshot.pauses)

    def throttle_spans(self, key: str) -> list[ThrottleSpan]:
        """The throttles of a relocation so far (open ones end at ``None``)."""
        return self.throttles.get(key, [])


__all__ = ["ACTIVE", "PAUSE_STATES", "Callbacks", "SessionModel", "SnapshotIndex",
           "ThrottleSpan", "active_pause", "display_state"]

"""The life cycle every migration shares, and the record of the other vendors' migrations.

Live Guest Relocation, PowerVM LPM and VMware Storage vMotion go through the same stages: set
up, copy passes while the guest runs, quiesce, switch (or cancel). ``MoveRecord`` is what each
migration's record has in common (where from and to, state, passes, the quiesce), ``MoveEngine``
what each engine does the same way: keep its migrations, find a guest's, and close one (state,
result, end time, the open pass, the guest released from its stop). What differs (how a pass
copies, what the switch hands over) stays in each engine. ``Migration`` is the record of Storage
vMotion and LPM, whose JSON form has the same shape as a relocation's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from ..world.state import MIGRATION_ACTIVE_STATES, Guest
from ..world.world import World


class _Pass(Protocol):
    end_s: float


class MoveRecord:
    """What every migration's record has: the fields are declared by each record's dataclass."""

    #: the states in which the migration is under way
    ACTIVE_STATES: ClassVar[tuple[str, ...]] = MIGRATION_ACTIVE_STATES

    guest: Guest
    source: str
    dest: str
    t_start: float
    state: str
    result: str
    message: str
    passes: list[Any]
    t_quiesce: float | None
    t_end: float | None
    #: when the guest ran again before the move ended (LPM resumes the partition on the
    #: destination before its last changed pages are there); None: it runs again at the end
    t_resume: float | None = None

    @property
    def active(self) -> bool:
        """True until the migration completes, fails or is cancelled."""
        return self.state in self.ACTIVE_STATES

    @property
    def quiesce_s(self) -> float:
        """Downtime: seconds the guest was (or has been) stopped."""
        return self.quiesced_until(None)

    def quiesced_until(self, now: float | None) -> float:
        """Seconds the guest was stopped; for a move still under way at ``now``, stopped so
        far (0 before its quiesce)."""
        if self.t_quiesce is None:
            return 0.0
        if self.t_resume is not None:
            return self.t_resume - self.t_quiesce
        return self._since(self.t_quiesce, now)

    def took_until(self, now: float | None) -> float:
        """Seconds the move took; for one still under way at ``now`` (the run's end), its time
        so far: a lower bound, never 0."""
        return self._since(self.t_start, now)

    def _since(self, t0: float, now: float | None) -> float:
        end = self.t_end if self.t_end is not None else max(t0, now or 0.0)
        return end - t0


def pass_seconds(start_s: float, end_s: float, now: float | None) -> float:
    """How long a pass took; one still open (no end yet) has run until ``now`` (the run's end;
    0 without it)."""
    if end_s <= 0.0:
        return max(0.0, (now if now is not None else start_s) - start_s)
    return end_s - start_s


@dataclass
class MovePass:
    """One copy pass of a migration (iteration of DBT, LPM pre-copy pass, consolidation...)."""

    number: int
    kind: str  # "first", "iteration", "consolidation", "final"
    units: int = 0
    start_s: float = 0.0
    end_s: float = 0.0
    deferred: int = 0  # units held back for the final pass (heat optimisation)

    @property
    def seconds(self) -> float:
        """How long the pass took."""
        return self.end_s - self.start_s


@dataclass(eq=False)
class Migration(MoveRecord):
    """A migration from command to completion or failure; ``kind`` is "vmotion" or "lpm"."""

    kind: str
    guest: Guest
    source: str
    dest: str
    options: str
    unit: str  # "blocks" or "pages"
    t_start: float
    state: str = "setup"  # setup, copying, quiesced, done, failed, cancelled
    result: str = ""
    message: str = ""
    passes: list[MovePass] = field(default_factory=list)
    t_quiesce: float | None = None
    t_end: float | None = None
    units_moved: int = 0
    setup_left_s: float = 0.0
    #: seconds it began before the engines' step of work it is first advanced in
    #: (``command_lead``): its first step does that much more
    lead_s: float = 0.0
    throttle_s: dict[str, float] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        """The migration as the JSON summary carries it (the fields of a relocation)."""
        return {
            "kind": self.kind, "guest": self.guest.userid, "source": self.source,
            "destination": self.dest, "options": self.options,
            "result": self.result or self.state, "message": self.message,
            "passes": len(self.passes), "unit": self.unit,
            f"{self.unit}_moved": self.units_moved,
            "quiesce_s": round(self.quiesced_until(now), 3),
            "relocation_s": round(self.took_until(now), 3), "ended": self.t_end is not None,
            "start_s": round(self.t_start, 3),
            "throttle_s": {k: round(v, 3) for k, v in sorted(self.throttle_s.items())},
            "cost": {k: round(v, 4) for k, v in sorted(self.cost.items())},
            "pass_list": [{"pass": p.number, "kind": p.kind, self.unit: p.units,
                           "deferred": p.deferred, "start_s": round(p.start_s, 3),
                           "seconds": round(pass_seconds(p.start_s, p.end_s, now), 3)}
                          for p in self.passes],
        }


MoveT = TypeVar("MoveT", bound=MoveRecord)


#: the longest stretch of a pass a move copies before the guest's writes of that stretch are
#: applied, while the guest writes: a write to a unit the pass has not reached yet is not
#: tracked, so the copy and the writes interleave (copied a whole step first, every write of
#: the step fell behind the copy and was tracked; an LPM pass 2 held 1.94 million pages at 5 s
#: steps and 1.40 million at 0.2 s). A way of computing, not a figure of the system.
MOVE_ROUND_S = 0.1


def round_chunk(left_s: float, unit_s: float, in_rounds: bool) -> float:
    """The time a move copies before the guest's writes of it are applied: the rest of the
    step, or while the guest writes a round of ``MOVE_ROUND_S`` (at least two units of
    ``unit_s``)."""
    return min(left_s, max(MOVE_ROUND_S, 2.0 * unit_s)) if in_rounds else left_s


def round_used(copied_s: float, chunk_s: float, left_s: float, done: bool) -> float:
    """The time a round of copying took: what its units took when the pass ended, or when
    more of the step follows (the rest of the round, less than a unit, goes to the next round);
    the whole round at the step's end (at most a unit's worth is lost, once a step)."""
    if done or (chunk_s < left_s and copied_s > 0.0):
        return copied_s
    return chunk_s


def spend(need_s: float, left_s: float) -> tuple[float, float]:
    """Of ``left_s`` seconds, the part a phase that still needs ``need_s`` uses, and what it
    then still needs: nothing once less than a nanosecond is left (a remainder of rounding
    counted as more to do began a move's first pass a second time at some step lengths)."""
    use = min(need_s, left_s)
    rest = need_s - use
    return use, (rest if rest > 1e-12 else 0.0)


def command_start(world: World) -> float:
    """The moment the command being run runs (``World.command_at_s``; now outside of
    commands): what it starts begins then."""
    return world.now_s()


def command_lead(world: World) -> float:
    """How long before the engines' next step of work (``World.moves_from_s``) the command
    being run ran, at most a step: what it starts does that much more in it."""
    return min(max(0.0, world.moves_from_s - command_start(world)), world.step_s)


class MoveEngine(Generic[MoveT]):
    """The migrations one engine has run (``all``, the ``active`` ones, one guest's) and the
    steps of the life cycle that every engine takes the same way."""

    #: the reason the engine stops a guest for its quiesce (``Guest.stopped_by``)
    STOP_REASON: ClassVar[str] = ""

    def __init__(self) -> None:
        self.all: list[MoveT] = []
        #: the engine's clock within a step: where the migration it advances has got to
        self._now = 0.0

    def close(self, mv: MoveT, state: str, result: str, message: str) -> None:
        """End a migration now (``_now``): its state, result and message, its end time, the end
        of the pass that was open; the guest is no longer stopped by it."""
        mv.state = state
        mv.result = result
        mv.message = message
        mv.t_end = self._now
        if mv.passes and not mv.passes[-1].end_s:
            mv.passes[-1].end_s = self._now
        mv.guest.release(self.STOP_REASON)

    @property
    def active(self) -> list[MoveT]:
        """Migrations under way, oldest first."""
        return [m for m in self.all if m.active]

    def of(self, userid: str) -> MoveT | None:
        """The active migration of a guest, if any."""
        return next((m for m in self.all if m.active and m.guest.userid == userid), None)

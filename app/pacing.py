"""Real-time pacing of the simulated clock (1x, 10x, 100x or as fast as possible), and watch
mode, which slows it while a guest moves. No Qt here.

The engine never reads the wall clock; this wrapper decides how far the simulated clock may have
advanced at a given wall time, like SimPy's ``RealtimeEnvironment`` with its ``factor``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from ssisim.engine import Snapshot

#: The speeds the window offers: label -> simulated seconds per wall second (None: no pacing).
SPEEDS: dict[str, float | None] = {"1x": 1.0, "10x": 10.0, "100x": 100.0, "max": None}

#: When the simulation falls this many wall seconds behind its pace, the pace starts afresh
#: from where the simulation is, instead of racing to catch up.
MAX_LAG_WALL_S = 0.5


class Pacer:
    """How far the simulated clock may go, given the wall clock and a speed factor.

    Parameters
    ----------
    factor : float or None
        Simulated seconds per wall second; None runs as fast as possible.
    clock : callable, optional
        The wall clock (seconds); tests pass a fake one.
    """

    def __init__(self, factor: float | None = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.factor = factor
        self._clock = clock
        self._wall0 = clock()
        self._sim0 = 0.0

    def restart(self, sim_t: float) -> None:
        """Start pacing afresh from simulated time ``sim_t`` now (after a pause or a change)."""
        self._wall0 = self._clock()
        self._sim0 = sim_t

    def set_factor(self, factor: float | None, sim_t: float) -> None:
        """Change the speed without a jump in simulated time."""
        self.factor = factor
        self.restart(sim_t)

    def allowed(self, sim_t: float, step_s: float = 0.0) -> float:
        """The simulated time the clock may reach now (``inf`` when not paced).

        ``step_s`` is the step the clock advances by: the clock is behind only when the next
        step is overdue by more than ``MAX_LAG_WALL_S`` (a step longer than that lag, 1 s at
        1x, must still come due).
        """
        if self.factor is None:
            return math.inf
        target = self._sim0 + (self._clock() - self._wall0) * self.factor
        lag = MAX_LAG_WALL_S * self.factor
        if target - (sim_t + step_s) > lag:
            self.restart(sim_t)  # the machine cannot keep up: do not burst to catch up
            target = sim_t + max(lag, step_s)
        return target

    def wait_s(self, sim_t: float, step_s: float) -> float:
        """Wall seconds until the next step of ``step_s`` is due (0 when it is due now)."""
        if self.factor is None:
            return 0.0
        due = sim_t + step_s
        target = self._sim0 + (self._clock() - self._wall0) * self.factor
        return max(0.0, (due - target) / self.factor)


# -- watch mode ----------------------------------------------------------------------------------
#: Watch mode slows the clock so that a move under way lasts at least this long in wall
#: seconds: long enough to follow its passes as they happen.
WATCH_WALL_S = 20.0
#: The speeds watch mode may choose, slowest first (those the window offers). Never slower than
#: real time: a move shorter than ``WATCH_WALL_S`` simulated seconds is watched at 1x.
WATCH_FACTORS = (1.0, 10.0, 100.0)
#: Later passes, the quiesce and the switch add to the first pass (a rough share of it).
LATER_PASSES = 0.3


@dataclass(frozen=True)
class Move:
    """A move under way as watch mode sees it."""

    key: str  # stays the same for the move's whole life
    what: str  # "the relocation of LNX01"
    remaining_s: float  # simulated seconds it is expected to last from now


def moves_under_way(snap: Snapshot) -> list[Move]:
    """Relocations, partition migrations and Storage vMotions under way in ``snap``, with how
    long each is expected to last (from its size and the pace its pages go at: the link's,
    or the source's or destination's processor where slower; what the movers carry)."""
    moves = []
    sizes = {g.userid: g.central + g.xstor + g.dasd for g in snap.guests}
    for r in snap.relocations:
        if r.state not in ("moving", "quiesced"):
            continue
        left = r.pages_left if r.passes else sizes.get(r.userid, 0)
        rate = max(r.pace_pages_per_s, 1.0)
        moves.append(Move(f"LGR {r.userid}@{r.start_s:g}", f"the relocation of {r.userid}",
                          left / rate * (1 + LATER_PASSES)))
    for m in snap.migrations:
        if not m.active:
            continue
        left = m.units_left if m.passes else m.units_total
        rate = max(m.rate_units_per_s, 1e-9)
        what = ("the partition migration of " if m.kind == "LPM"
                else "the Storage vMotion of ") + m.userid
        moves.append(Move(f"{m.kind} {m.userid}@{m.start_s:g}", what,
                          m.setup_left_s + left / rate * (1 + LATER_PASSES)))
    return moves


def watch_factor(remaining_s: float, wall_s: float = WATCH_WALL_S,
                 factors: tuple[float, ...] = WATCH_FACTORS) -> float:
    """The fastest speed at which a move expected to last ``remaining_s`` simulated seconds
    still takes ``wall_s`` wall seconds (the slowest offered when none does)."""
    fitting = [f for f in factors if remaining_s / f >= wall_s]
    return max(fitting) if fitting else min(factors)


def speed_label(factor: float | None) -> str:
    """``1x``, ``10x``, ``2.5x`` or ``max``."""
    return "max" if factor is None else f"{factor:g}x"


@dataclass(frozen=True)
class Watch:
    """Watch mode at work: the moves followed, the speed chosen and the user's speed."""

    what: tuple[str, ...]  # "the relocation of LNX01", ... (the slowest first)
    factor: float
    user_factor: float | None

    def message(self) -> str:
        """What the status bar says."""
        first = self.what[0]
        more = len(self.what) - 1
        if more:
            first += f" and {more} other move{'s' if more > 1 else ''}"
        ends = "they end" if more else "it ends"
        return (f"Watching {first} at {speed_label(self.factor)}; speed returns to "
                f"{speed_label(self.user_factor)} when {ends}")


class Watcher:
    """Decides the speed of watch mode from the moves under way (Qt-free; the worker asks).

    Each move gets its speed when first seen (``watch_factor`` of its expected length) and
    keeps it; the clock runs at the slowest of the moves' speeds, never faster than the
    user's. A speed the user picks while moves are under way holds until they end
    (``dismiss``).
    """

    def __init__(self, wall_s: float = WATCH_WALL_S,
                 factors: tuple[float, ...] = WATCH_FACTORS) -> None:
        self.wall_s = wall_s
        self.factors = factors
        self._factors: dict[str, float] = {}
        self._dismissed: set[str] = set()

    def update(self, moves: list[Move], user_factor: float | None) -> Watch | None:
        """The watch to keep now (None: run at the user's speed)."""
        keys = {m.key for m in moves}
        self._factors = {k: f for k, f in self._factors.items() if k in keys}
        self._dismissed &= keys
        for m in moves:
            if m.key not in self._factors and m.key not in self._dismissed:
                self._factors[m.key] = watch_factor(m.remaining_s, self.wall_s, self.factors)
        watched = sorted((self._factors[m.key], i, m) for i, m in enumerate(moves)
                         if m.key in self._factors)
        if not watched:
            return None
        factor = watched[0][0]
        if user_factor is not None and user_factor <= factor:
            return None  # the user's speed is slow enough already
        return Watch(tuple(m.what for _, _, m in watched), factor, user_factor)

    def dismiss(self) -> None:
        """The moves seen so far are no longer watched (the user chose a speed)."""
        self._dismissed |= set(self._factors)
        self._factors.clear()

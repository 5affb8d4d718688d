"""Real-time pacing of the simulated clock (1x, 10x, 100x or as fast as possible). No Qt here.

The engine never reads the wall clock; this wrapper decides how far the simulated clock may have
advanced at a given wall time, like SimPy's ``RealtimeEnvironment`` with its ``factor``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

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

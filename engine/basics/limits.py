"""The documented limits of what ssisim reads: sizes, times, counts and file shapes.

Every number a scenario, a command or a command-line option gives is checked against these
before anything is allocated or run (docs/reliability.md lists them with their reasons).
"""

from __future__ import annotations

from .units import MAX_PAGES, MAX_SIZE_TEXT

__all__ = [
    "MAX_DEPTH", "MAX_DURATION_S", "MAX_FILE_BYTES", "MAX_GUESTS", "MAX_PAGES", "MAX_SEED",
    "MAX_SIZE_TEXT", "MAX_STEPS", "MAX_TIMELINE", "MAX_STEP_S", "MAX_QUIET_STEP_S", "MIN_STEP_S",
    "steps_problem",
]

# Simulated time: a year is far beyond any maintenance window or lesson.
MAX_DURATION_S = 31_536_000.0
# The engine's time step: 1 ms (finer than any device service time modelled) to 1 hour.
MIN_STEP_S = 0.001
MAX_STEP_S = 3600.0
# A quiet member's longest step: its figures lag at most this long behind the cluster's clock.
MAX_QUIET_STEP_S = 600.0
# Steps in one run: 10^8 steps of a one-guest scenario take hours of wall time already.
MAX_STEPS = 100_000_000
# A run's seed: a signed 64-bit integer, as stored in the run database.
MAX_SEED = 2**63 - 1
# Files: scenario and session files larger than this, nested deeper (tables in tables, lists in
# lists, dotted keys), or with more guests or timeline entries are refused with one message.
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 32
MAX_GUESTS = 100_000
MAX_TIMELINE = 100_000


def steps_problem(until_s: float, step_s: float) -> str | None:
    """Why a run to ``until_s`` in steps of ``step_s`` is refused, or None when it is fine."""
    if until_s / step_s > MAX_STEPS:
        return (f"{until_s:g} s in steps of {step_s:g} s is {until_s / step_s:.3g} steps; "
                f"ssisim runs at most {MAX_STEPS:,} steps (raise step_s or shorten the run)")
    return None

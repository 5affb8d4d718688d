"""Recorded sessions: a scenario plus the commands a person issued, replayable headless."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._sim import Simulation


def record_session(sim: Simulation) -> str:
    """The scenario's own text followed by every command issued outside its timeline.

    Each command becomes a ``[[timeline]]`` entry at the simulated time it was issued, so
    ``ssisim run`` on the result repeats the session exactly (same seed, same results).
    """
    typed = [(t, c) for t, c, _rc, line, _resp in sim.command_log if line == 0]
    out = [sim.scenario.source_text.rstrip("\n"), "",
           f"# Session recorded at simulated time {sim.t:g} s: {len(typed)} commands issued "
           "interactively.", ""]
    for t, c in typed:
        out += ["[[timeline]]", f"at_s = {t!r}", f"command = {json.dumps(c)}", ""]
    return "\n".join(out)

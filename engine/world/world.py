"""The narrow view of the simulation that the migration and pause engines get: the clock, the
members and guests, event publishing and a few services of the core, and no more.

``Simulation`` satisfies ``World`` (and ``Cluster``, in ``views.cluster``); the engines are written
against these protocols, so they never import the simulation core and the core can own them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..basics.config import ScenarioConfig
from ..cp.grammar import Command
from .state import Guest, Member


@dataclass(frozen=True)
class Event:
    """Something that happened at a simulated time, for logs, the store and viewers."""

    t_s: float
    seq: int
    kind: str
    member: str | None
    userid: str | None
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class CPResponse:
    """CP's answer to a command: the lines it printed, a return code (0 = success) and the
    typed command it answers (None when the text could not be parsed)."""

    lines: list[str]
    rc: int = 0
    command: Command | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        """True when the command was accepted."""
        return self.rc == 0

    @property
    def text(self) -> str:
        """The lines as one block of text."""
        return "\n".join(self.lines)


class World(Protocol):
    """What an engine that moves or pauses guests may see and use of the simulation."""

    seed: int
    step_s: float
    scenario: ScenarioConfig
    members: dict[str, Member]
    guests: dict[str, Guest]
    #: paging I/O seconds each member still has this step (relocation takes from it)
    io_left: dict[str, list[float]]
    #: the moment the command being run runs (None: now, outside of commands). A command due
    #: within a step, or that waited within it for the console a SYNC relocation held, runs
    #: at its moment, after the step's relocation work and before the guests run the rest of
    #: the step: what it starts begins then
    command_at_s: float | None
    #: when the engines' next step of work begins: the step's start until they have done the
    #: step's work, its end after (``migration.command_lead``)
    moves_from_s: float

    @property
    def t(self) -> float:
        """Simulated seconds since the scenario started."""
        ...

    def now_s(self) -> float:
        """Now: the moment the command being run runs, or ``t`` outside of commands."""
        ...

    def emit(self, kind: str, member: str | None, userid: str | None, message: str,
             data: dict[str, Any] | None = None, at: float | None = None) -> Event:
        """Publish an event that happened at simulated time ``at`` (default: now, or when the
        command being run was due)."""
        ...

    def run_guest_until(self, g: Guest, t: float) -> None:
        """Let a guest's workload run up to simulated time ``t`` within the current step."""
        ...

    def dasd_wait_s(self, m: Member) -> float:
        """How long a virtual CPU waits for a DASD page fault on ``m``, queueing included."""
        ...

    def replenish(self, m: Member, want: int, pool: list[float] | None = None,
                  most: float = math.inf) -> int:
        """CP's demand scan on ``m`` now, within the step's paging I/O (and ``pool``, and at
        most ``most`` of it): frames freed."""
        ...

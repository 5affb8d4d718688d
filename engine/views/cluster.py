"""The view of the simulation that commands, lessons and the snapshot view get: the ``World``
of the engines, plus the engines themselves, the logs and logging guests on and off.

``Simulation`` satisfies it; nothing here imports the simulation core.
"""

from __future__ import annotations

from typing import Protocol

from ..migrations.lpm import LPMEngine
from ..migrations.pause import PauseEngine
from ..migrations.relocation import RelocationEngine
from ..migrations.storage_vmotion import StorageVMotionEngine
from ..world.state import Guest
from ..world.world import Event, World
from .samples import MemberSample

CommandLogEntry = tuple[float, str, int, int, tuple[str, ...]]


class Cluster(World, Protocol):
    """The world with its migration and pause engines, its logs, and log on and log off."""

    reloc: RelocationEngine
    lpm: LPMEngine
    svm: StorageVMotionEngine
    pause: PauseEngine
    events: list[Event]
    #: (time, command text, return code, scenario line (0: typed), response lines)
    command_log: list[CommandLogEntry]
    #: the run's member samples, every ``sample_s`` (``_samples.Sampler``)
    samples_member: list[MemberSample]

    def guests_on(self, member: str) -> list[Guest]:
        """The guests logged on to ``member``, in user ID order."""
        ...

    def log_on(self, g: Guest, member: str, announce: bool = True) -> None:
        """Log a guest on to ``member``."""
        ...

    def log_off(self, g: Guest) -> None:
        """Log a guest off, its storage released as the member's cleanup mode says."""
        ...

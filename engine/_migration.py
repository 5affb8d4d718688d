"""What the other vendors' migration engines (Storage vMotion, LPM) have in common: the record of
one migration, its passes, and its JSON form, in the same shape as a relocation's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ._state import Guest


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
class Migration:
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
    throttle_s: dict[str, float] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """True until the migration completes, fails or is cancelled."""
        return self.state in ("setup", "copying", "quiesced")

    @property
    def quiesce_s(self) -> float:
        """Downtime: seconds the guest was (or has been) stopped."""
        if self.t_quiesce is None:
            return 0.0
        end = self.t_end if self.t_end is not None else self.t_quiesce
        return end - self.t_quiesce

    def to_dict(self) -> dict[str, Any]:
        """The migration as the JSON summary carries it (the fields of a relocation)."""
        end = self.t_end if self.t_end is not None else self.t_start
        return {
            "kind": self.kind, "guest": self.guest.userid, "source": self.source,
            "destination": self.dest, "options": self.options,
            "result": self.result or self.state, "message": self.message,
            "passes": len(self.passes), "unit": self.unit,
            f"{self.unit}_moved": self.units_moved,
            "quiesce_s": round(self.quiesce_s, 3),
            "relocation_s": round(end - self.t_start, 3), "start_s": round(self.t_start, 3),
            "throttle_s": {k: round(v, 3) for k, v in sorted(self.throttle_s.items())},
            "cost": {k: round(v, 4) for k, v in sorted(self.cost.items())},
            "pass_list": [{"pass": p.number, "kind": p.kind, self.unit: p.units,
                           "deferred": p.deferred, "start_s": round(p.start_s, 3),
                           "seconds": round(p.seconds, 3)} for p in self.passes],
        }


MoveT = TypeVar("MoveT", bound=Migration)


class MoveEngine(Generic[MoveT]):
    """The migrations one engine has run: ``all`` of them, the ``active`` ones, one guest's."""

    def __init__(self) -> None:
        self.all: list[MoveT] = []

    @property
    def active(self) -> list[MoveT]:
        """Migrations under way, oldest first."""
        return [m for m in self.all if m.active]

    def of(self, userid: str) -> MoveT | None:
        """The active migration of a guest, if any."""
        return next((m for m in self.all if m.active and m.guest.userid == userid), None)

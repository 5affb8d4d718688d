"""Every model parameter in one place: one frozen dataclass per model, overridable per scenario.

A scenario's ``[model.SECTION]`` tables (``[model.lgr] stage_hold_s = 0.01``) replace the values
of one run; ``ssisim validate --sensitivity`` varies each parameter in turn. The sections:

- ``lgr``: Live Guest Relocation (``LGRModel``, migrations/relocation.py)
- ``paging``: CP's costs of paging (``PagingModel``, world/paging.py)
- ``pause``: Linux suspend and resume, CP STOP, logoff cleanup (``PauseModel``)
- ``lpm``: PowerVM Live Partition Mobility (``LPMModel``)
- ``svmotion``: VMware Storage vMotion (``SVMotionModel``)
- ``vio``: CP's cost of guests' virtual I/O (``VirtualIOModel``, basics/workloads.py)

Only plain numbers are parameters here: tables of numbers (per workload type, per CTC count)
are part of a model's derivation and stay in code.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from ..basics.workloads import VirtualIOModel
from ..world.paging import PagingModel
from ..world.scheduler import SchedulerModel
from .lpm import LPMModel
from .pause import PauseModel
from .relocation import LGRModel
from .storage_vmotion import SVMotionModel

#: section name -> the model's class
SECTIONS: dict[str, type] = {
    "lgr": LGRModel, "lpm": LPMModel, "paging": PagingModel, "pause": PauseModel,
    "scheduler": SchedulerModel, "svmotion": SVMotionModel, "vio": VirtualIOModel,
}


def parameters(section: str) -> dict[str, type]:
    """The plain-number parameters of a section: name -> int or float."""
    out: dict[str, type] = {}
    for f in dataclasses.fields(SECTIONS[section]):
        default = getattr(SECTIONS[section](), f.name)
        if isinstance(default, bool):
            continue
        if isinstance(default, int | float):
            out[f.name] = type(default)
    return out


def problem(section: str, name: str | None = None, value: Any = None) -> str | None:
    """Why ``[model.SECTION] NAME = VALUE`` cannot be used (None when it can)."""
    if section not in SECTIONS:
        return (f"unknown model section {section!r}; valid: "
                f"{', '.join(sorted(SECTIONS))}")
    if name is None:
        return None
    params = parameters(section)
    if name not in params:
        return (f"the {section} model has no parameter {name!r}; valid: "
                f"{', '.join(sorted(params))}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number"
    if not math.isfinite(value) or value < 0:
        return "must be a finite number, 0 or more"
    if params[name] is int and value != int(value):
        return "must be a whole number"
    if value > 1e12:
        return "must be at most 1e12"
    return None


@dataclass(frozen=True)
class Models:
    """The models of one run."""

    lgr: LGRModel = field(default_factory=LGRModel)
    lpm: LPMModel = field(default_factory=LPMModel)
    paging: PagingModel = field(default_factory=PagingModel)
    pause: PauseModel = field(default_factory=PauseModel)
    scheduler: SchedulerModel = field(default_factory=SchedulerModel)
    svmotion: SVMotionModel = field(default_factory=SVMotionModel)
    vio: VirtualIOModel = field(default_factory=VirtualIOModel)

    @classmethod
    def from_table(cls, table: dict[str, dict[str, float]]) -> Models:
        """The default models with a scenario's ``[model]`` values in place (already checked)."""
        parts: dict[str, Any] = {}
        for section, values in table.items():
            types = parameters(section)
            typed = {k: types[k](v) for k, v in values.items()}
            parts[section] = dataclasses.replace(SECTIONS[section](), **typed)
        return cls(**parts)

    def value(self, section: str, name: str) -> float:
        """One parameter's value in these models."""
        return float(getattr(getattr(self, section), name))


def varied(section: str, name: str, factor: float, models: Models | None = None) -> float | None:
    """A parameter's value (in ``models``, else the defaults) times ``factor``; whole numbers
    (counts) stay whole, move by at least one and stay at least 1. None when there is nothing
    to vary (a value of 0)."""
    base = (models or Models()).value(section, name)
    if base == 0:
        return None
    if parameters(section)[name] is int:
        v = float(round(base * factor))
        if v == base:
            v = base + (1.0 if factor > 1 else -1.0)
        if v < 1.0:
            return None if base <= 1.0 and factor < 1 else 1.0
        return v
    return base * factor

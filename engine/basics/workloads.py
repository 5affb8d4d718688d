"""Workloads: the page-reference and CPU pattern a guest runs over simulated time.

Every workload reduces, each step, to a few *regions* of guest pages with a reference density,
a write fraction and a CPU cost per reference; the touch kernel walks them. Parameters, their
units and defaults are in ``WORKLOAD_TYPES`` (the scenario format and ``WORKLOAD`` command read it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .cp import shown
from .units import MAX_PAGES, PAGES_PER_MB


@dataclass(frozen=True)
class Param:
    """One workload parameter: default, unit, meaning and allowed range."""

    default: float
    unit: str
    doc: str
    lo: float = 0.0
    hi: float = math.inf


# Upper bounds of workload parameters: far beyond any real guest, small enough that every count
# the engine derives from them stays an exact 64-bit integer (docs/reliability.md).
MAX_MB = float(MAX_PAGES // PAGES_PER_MB)  # 64 TiB, the largest storage size modelled
MAX_PAGE_RATE = 1e9  # pages/s: 4 TB/s, beyond the memory bandwidth of any one guest
MAX_REQUEST_RATE = 1e7  # requests, transactions or interrupts per second
MAX_CPU_MS_PER_S = 64_000.0  # 64 virtual CPUs, each busy all the time

_TX_COMMON = {
    "hot_fraction": Param(0.2, "fraction", "share of the working set that is hot", 0.0, 1.0),
    "hot_share": Param(0.8, "fraction", "share of references that go to the hot part", 0.0, 1.0),
}

WORKLOAD_TYPES: dict[str, dict[str, Any]] = {
    "none": {"unit": "pages/s", "doc": "no work at all: the guest goes dormant", "params": {}},
    "idle": {
        "unit": "pages/s",
        "doc": "idle Linux: a small working set, a few changed pages per second",
        "params": {
            "wss_mb": Param(64, "MB", "working set touched while idle", 0, MAX_MB),
            "refs_per_s": Param(200, "pages/s", "pages referenced per second", 0, MAX_PAGE_RATE),
            "changes_per_s": Param(5, "pages/s", "pages changed per second", 0, MAX_PAGE_RATE),
            "cpu_ms_per_s": Param(2, "ms/s", "CPU used per second", 0, MAX_CPU_MS_PER_S),
            "poll": Param(0, "0|1", "1: the guest polls for work and never looks idle", 0, 1),
        },
    },
    "seqtouch": {
        "unit": "pages/s",
        "doc": "sequential toucher (PTOUCH-like): touches a buffer page by page, over and over",
        "params": {
            "buffer_mb": Param(0, "MB", "buffer size; 0 means the whole guest storage", 0, MAX_MB),
            "instances": Param(1, "count", "independent touchers, each on its own part", 1, 4096),
            "write": Param(1, "0|1", "1: every touch changes the page", 0, 1),
            "rate_pages_s": Param(0, "pages/s", "touch rate limit; 0: as fast as CPU allows", 0,
                                  MAX_PAGE_RATE),
            "cpu_us_per_page": Param(0.25, "us", "CPU per page touched in storage", 0.001, 1e6),
        },
    },
    "randchange": {
        "unit": "pages/s",
        "doc": "random changer (PFAULT-like): changes pages of a fraction of storage at random",
        "params": {
            "fraction": Param(0.25, "fraction", "share of guest storage it changes", 0.0, 1.0),
            "rate_pages_s": Param(1_000_000, "pages/s", "pages changed per second", 0,
                                  MAX_PAGE_RATE),
            "cpu_us_per_page": Param(1.0, "us", "CPU per page changed", 0.001, 1e6),
        },
    },
    "appserver": {
        "unit": "requests/s",
        "doc": "application server: requests over a working set, network interrupts",
        "params": {
            "wss_mb": Param(512, "MB", "working set (heap and code)", 1, MAX_MB),
            "requests_per_s": Param(20, "requests/s", "offered request rate", 0, MAX_REQUEST_RATE),
            "cpu_ms_per_request": Param(10, "ms", "CPU per request", 0, 1e6),
            "pages_per_request": Param(100, "pages", "page references per request", 1, 1e7),
            "write_frac": Param(0.3, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(20, "1/s", "network and heartbeat interrupts", 0,
                                          MAX_REQUEST_RATE),
            **_TX_COMMON,
        },
    },
    "database": {
        "unit": "tx/s",
        "doc": "database: transactions over a buffer pool, disk I/O, few interrupts",
        "params": {
            "wss_mb": Param(400, "MB", "buffer pool and code", 1, MAX_MB),
            "requests_per_s": Param(50, "tx/s", "offered transaction rate", 0, MAX_REQUEST_RATE),
            "cpu_ms_per_request": Param(4, "ms", "CPU per transaction", 0, 1e6),
            "pages_per_request": Param(40, "pages", "page references per transaction", 1, 1e7),
            "write_frac": Param(0.25, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(0.5, "1/s", "network interrupts", 0, MAX_REQUEST_RATE),
            "hot_fraction": Param(0.1, "fraction", "share of the buffer pool that is hot", 0, 1),
            "hot_share": Param(0.9, "fraction", "share of references to the hot part", 0, 1),
        },
    },
    "webserver": {
        "unit": "requests/s",
        "doc": "web server under load: many small requests",
        "params": {
            "wss_mb": Param(256, "MB", "working set", 1, MAX_MB),
            "requests_per_s": Param(200, "requests/s", "offered request rate", 0, MAX_REQUEST_RATE),
            "cpu_ms_per_request": Param(2, "ms", "CPU per request", 0, 1e6),
            "pages_per_request": Param(20, "pages", "page references per request", 1, 1e7),
            "write_frac": Param(0.05, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(200, "1/s", "network interrupts", 0, MAX_REQUEST_RATE),
            **_TX_COMMON,
        },
    },
}


# CPU a touch may cost beyond the workload's own: first touch of a page, a fault from XSTOR.
# Rate-limited workloads ask for this much more, so faults slow them only when CPU is short.
FAULT_ALLOWANCE_S = 2e-6


class WorkloadError(ValueError):
    """A workload type or parameter that does not exist or is out of range.

    ``param`` names the offending parameter (None when the type itself is wrong).
    """

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def workload_names() -> list[str]:
    """The workload types, in documentation order."""
    return list(WORKLOAD_TYPES)


def resolve_params(kind: str, given: dict[str, Any]) -> dict[str, float]:
    """Check ``given`` against the type's parameters and fill the defaults.

    Raises
    ------
    WorkloadError
        With a message naming the bad type, parameter or value and what would be valid.
    """
    k = kind.lower()
    if k not in WORKLOAD_TYPES:
        raise WorkloadError(f"unknown workload type {shown(repr(kind))}; valid: "
                            f"{', '.join(WORKLOAD_TYPES)}")
    spec: dict[str, Param] = WORKLOAD_TYPES[k]["params"]
    out = {name: float(p.default) for name, p in spec.items()}
    for name, value in given.items():
        key = name.lower()
        if key not in spec:
            valid = ", ".join(spec) or "none"
            raise WorkloadError(f"{k} has no parameter {shown(repr(name))}; valid: {valid}", name)
        if isinstance(value, bool):
            value = int(value)
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise WorkloadError(f"{k} parameter {key} must be a number, not {shown(repr(value))}",
                                name) from None
        p = spec[key]
        if not math.isfinite(v) or not (p.lo <= v <= p.hi):
            raise WorkloadError(f"{k} parameter {key}={value} is out of range {p.lo:g} to {p.hi:g}",
                                name)
        out[key] = v
    if k == "seqtouch" and 0 < out["buffer_mb"] * PAGES_PER_MB < 1:
        raise WorkloadError(f"seqtouch parameter buffer_mb={out['buffer_mb']:g} is less than one "
                            f"page ({1 / PAGES_PER_MB:g} MB); give 0 for the whole guest storage",
                            "buffer_mb")
    return out


@dataclass
class RegionPlan:
    """One stretch of guest pages and how the workload references it during one step."""

    lo: int
    hi: int
    log_q: float  # log of the chance that a page of a lap is NOT referenced; 0 = every page
    max_cover: int  # pages of the walk this step
    write_frac: float
    cpu_s_per_touch: float
    units_per_touch: float  # throughput units credited per page touched
    budget_share: float  # share of the step's CPU and wall budget


def _random_region(lo: int, hi: int, refs: float, write_frac: float, cpu_s_total: float,
                   units_total: float, share: float) -> RegionPlan | None:
    n = hi - lo
    if n <= 0 or refs <= 0:
        return None
    ratio = refs / n
    distinct = n * -math.expm1(-ratio)  # expected distinct pages referenced this step
    return RegionPlan(lo, hi, -ratio, n, write_frac, cpu_s_total / distinct,
                      units_total / distinct, share)


class Workload:
    """A running workload of one guest: its type, parameters and per-step plan."""

    def __init__(self, kind: str, params: dict[str, Any], guest_pages: int) -> None:
        self.kind = kind.lower()
        self.params = resolve_params(self.kind, params)
        self.unit: str = WORKLOAD_TYPES[self.kind]["unit"]
        self.guest_pages = guest_pages

    def describe(self) -> str:
        """Type and non-default parameters, as a WORKLOAD START command would give them."""
        spec = WORKLOAD_TYPES[self.kind]["params"]
        parts = [self.kind.upper()]
        for name, v in self.params.items():
            if v != spec[name].default:
                parts.append(f"{name.upper()} {v:g}")
        return " ".join(parts)

    # -- scheduling --------------------------------------------------------------------------
    def busy(self) -> bool:
        """True when the guest has work: it belongs on the dispatch list, not dormant."""
        if self.kind == "none":
            return False
        if self.kind == "idle":
            return self.params["poll"] >= 1
        if self.kind in ("appserver", "database", "webserver"):
            return self.params["requests_per_s"] > 0
        if self.kind == "randchange":
            return self.params["rate_pages_s"] > 0
        return True

    def interrupts_per_s(self) -> float:
        """External interrupts (network, heartbeats) that make CP do work for the guest."""
        return float(self.params.get("net_interrupts_per_s", 0.0))

    def working_set_pages(self) -> int:
        """Pages the workload needs resident to run without paging."""
        p = self.params
        g = self.guest_pages
        if self.kind == "none":
            return 0
        if self.kind == "idle" or "wss_mb" in p:
            return min(g, int(p["wss_mb"] * PAGES_PER_MB))
        if self.kind == "seqtouch":
            return self._buffer_pages()
        if self.kind == "randchange":
            return int(g * p["fraction"])
        return g

    def _buffer_pages(self) -> int:
        b = self.params["buffer_mb"]
        return self.guest_pages if b <= 0 else min(self.guest_pages, int(b * PAGES_PER_MB))

    def cpu_demand_s(self, dt: float, vcpus: int) -> float:
        """CPU seconds the workload would use in ``dt`` if nothing held it back."""
        p = self.params
        cap = vcpus * dt
        if self.kind == "none":
            return 0.0
        if self.kind == "idle":
            return min(cap, p["cpu_ms_per_s"] / 1000.0 * dt
                       + p["refs_per_s"] * dt * FAULT_ALLOWANCE_S)
        if self.kind == "seqtouch":
            rate = p["rate_pages_s"]
            per = p["cpu_us_per_page"] * 1e-6 + FAULT_ALLOWANCE_S
            return cap if rate <= 0 else min(cap, rate * dt * per)
        if self.kind == "randchange":
            per = p["cpu_us_per_page"] * 1e-6 + FAULT_ALLOWANCE_S
            return min(cap, p["rate_pages_s"] * dt * per)
        return min(cap, p["requests_per_s"] * dt * p["cpu_ms_per_request"] / 1000.0)

    def plan(self, dt: float) -> list[RegionPlan]:
        """The regions to walk during a step of ``dt`` seconds."""
        p = self.params
        g = self.guest_pages
        plans: list[RegionPlan | None] = []
        if self.kind == "none" or g <= 0:
            return []
        if self.kind == "idle":
            wss = min(g, int(p["wss_mb"] * PAGES_PER_MB))
            refs = p["refs_per_s"] * dt
            wf = 0.0 if refs <= 0 else min(1.0, p["changes_per_s"] * dt / refs)
            cpu = self.cpu_demand_s(dt, 1 << 30)
            plans.append(_random_region(0, wss, refs, wf, cpu, refs, 1.0))
        elif self.kind == "seqtouch":
            buf = self._buffer_pages()
            # more instances than pages: each page has one toucher and the rest have nothing
            n = max(1, min(int(p["instances"]), buf))
            rate = p["rate_pages_s"]
            per = buf // n
            for i in range(n):
                lo, hi = i * per, (i + 1) * per if i < n - 1 else buf
                cover = int(rate * dt / n) if rate > 0 else 1 << 62
                plans.append(RegionPlan(lo, hi, 0.0, cover, 1.0 if p["write"] >= 1 else 0.0,
                                        p["cpu_us_per_page"] * 1e-6, 1.0, 1.0 / n))
        elif self.kind == "randchange":
            hi = int(g * p["fraction"])
            refs = p["rate_pages_s"] * dt
            plans.append(_random_region(0, hi, refs, 1.0, refs * p["cpu_us_per_page"] * 1e-6,
                                        refs, 1.0))
        else:
            wss = min(g, int(p["wss_mb"] * PAGES_PER_MB))
            reqs = p["requests_per_s"] * dt
            refs = reqs * p["pages_per_request"]
            cpu = reqs * p["cpu_ms_per_request"] / 1000.0
            hot = max(1, int(wss * p["hot_fraction"])) if p["hot_fraction"] > 0 else 0
            hs = p["hot_share"] if hot > 0 else 0.0
            plans.append(_random_region(0, hot, refs * hs, p["write_frac"], cpu * hs, reqs * hs,
                                        hs))
            plans.append(_random_region(hot, wss, refs * (1 - hs), p["write_frac"],
                                        cpu * (1 - hs), reqs * (1 - hs), 1 - hs))
        return [r for r in plans if r is not None and r.hi > r.lo]

    def offered_units(self, dt: float) -> float:
        """Throughput the workload would reach in ``dt`` with nothing holding it back."""
        p = self.params
        if self.kind in ("appserver", "database", "webserver"):
            return p["requests_per_s"] * dt
        if self.kind == "randchange":
            return p["rate_pages_s"] * dt
        if self.kind == "idle":
            return p["refs_per_s"] * dt
        return 0.0

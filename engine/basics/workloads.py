"""Workloads: the page-reference and CPU pattern a guest runs over simulated time.

Every workload reduces, each step, to a few *regions* of guest pages with a reference density,
a write fraction and a CPU cost per reference; the touch kernel walks them. Parameters, their
units and defaults are in ``WORKLOAD_TYPES`` (the scenario format and ``WORKLOAD`` command read it).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from .config import DEVICE_KINDS
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
#: the least CPU a request or transaction may cost (1 us): serving one always takes some, and a
#: request of none gave a workload no CPU for its first touches (it never served one, silently)
#: and no guest CPU to put CP's path for its I/O beside
MIN_CPU_MS = 0.001

_TX_COMMON = {
    "hot_fraction": Param(0.2, "fraction", "share of the working set that is hot", 0.0, 1.0),
    "hot_share": Param(0.8, "fraction", "share of references that go to the hot part", 0.0, 1.0),
}

# Start-up and guest disk I/O of the transaction workloads (application server, database, web
# server). The disk's defaults are the figures of the ``eckd`` paging device kind
# (basics/config.py ``DEVICE_KINDS``): a 3390 volume on a DS8000-class control unit, an I/O
# served from its cache in about half a millisecond, four at once with HyperPAV aliases. They
# are assumed, as a typical guest disk; a scenario gives its own where it knows them.
_DISK = DEVICE_KINDS["eckd"]
_TX_LIFE = {
    "startup_cpu_s": Param(0, "s", "CPU seconds of initialisation before it serves (touches "
                           "its working set); 0: none", 0, 1e6),
    "ios_per_unit": Param(0, "I/Os", "disk I/Os per request or transaction", 0, 1e6),
    "disk_service_ms": Param(_DISK.service_ms, "ms", "service time of one I/O on the guest's "
                             "disk", 0.001, 1e4),
    "disk_queue_depth": Param(_DISK.queue_depth, "count", "I/Os the guest's disk serves at once",
                              1, 4096),
}


@dataclass(frozen=True)
class VirtualIOModel:
    """CP's cost of a guest's virtual I/O (section ``vio``).

    A guest's disk I/O passes through CP: it intercepts the start of the channel program,
    translates it (guest addresses to real ones, pinning the guest's buffer pages), starts the
    real I/O and reflects its interrupt to the guest. The device time is the guest disk's own
    (workload parameters ``disk_service_ms`` and ``disk_queue_depth``).
    """

    #: CPU CP spends on one virtual I/O of a guest, seconds at ``cpu_speed`` 1. Assumed: no
    #: calibration case does guest I/O. Taken as the order of CP's DASD page-fault path with its
    #: I/O set-up (``paging.dasd_fault_cpu_s``, 8 us) plus the translation of a short channel
    #: program and the interrupt's reflection: 10 us.
    cp_cpu_per_io_s: float = 10e-6


VIO = VirtualIOModel()

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
            "instances": Param(1, "count",
                               "independent touchers (one thread each), each on its own part",
                               1, 4096),
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
            "cpu_ms_per_request": Param(10, "ms", "CPU per request", MIN_CPU_MS, 1e6),
            "pages_per_request": Param(100, "pages", "page references per request", 1, 1e7),
            "write_frac": Param(0.3, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(20, "1/s", "network and heartbeat interrupts", 0,
                                          MAX_REQUEST_RATE),
            **_TX_COMMON,
            **_TX_LIFE,
        },
    },
    "database": {
        "unit": "tx/s",
        "doc": "database: transactions over a buffer pool, disk I/O, few interrupts",
        "params": {
            "wss_mb": Param(400, "MB", "buffer pool and code", 1, MAX_MB),
            "requests_per_s": Param(50, "tx/s", "offered transaction rate", 0, MAX_REQUEST_RATE),
            "cpu_ms_per_request": Param(4, "ms", "CPU per transaction", MIN_CPU_MS, 1e6),
            "pages_per_request": Param(40, "pages", "page references per transaction", 1, 1e7),
            "write_frac": Param(0.25, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(0.5, "1/s", "network interrupts", 0, MAX_REQUEST_RATE),
            "hot_fraction": Param(0.1, "fraction", "share of the buffer pool that is hot", 0, 1),
            "hot_share": Param(0.9, "fraction", "share of references to the hot part", 0, 1),
            **_TX_LIFE,
        },
    },
    "webserver": {
        "unit": "requests/s",
        "doc": "web server under load: many small requests",
        "params": {
            "wss_mb": Param(256, "MB", "working set", 1, MAX_MB),
            "requests_per_s": Param(200, "requests/s", "offered request rate", 0, MAX_REQUEST_RATE),
            "cpu_ms_per_request": Param(2, "ms", "CPU per request", MIN_CPU_MS, 1e6),
            "pages_per_request": Param(20, "pages", "page references per request", 1, 1e7),
            "write_frac": Param(0.05, "fraction", "share of references that change", 0, 1),
            "net_interrupts_per_s": Param(200, "1/s", "network interrupts", 0, MAX_REQUEST_RATE),
            **_TX_COMMON,
            **_TX_LIFE,
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
    #: virtual CPUs the walk can use at most (0: its share of all of them): a sequential
    #: toucher is one thread, on one virtual CPU, with one page fault outstanding at a time
    threads: int = 0
    #: a part of requests whose other parts are the guest's other regions: every request
    #: references all of them, so their walks go on together (``WorkloadDriver``)
    together: bool = False

    def __post_init__(self) -> None:
        #: the region's pages, and its key among a guest's references held back
        self.n = self.hi - self.lo
        self.key = (self.lo, self.hi)
        #: chance that a page of the region is referenced in the step (random regions)
        self.hit = -math.expm1(self.log_q) if self.log_q < 0 else 1.0
        #: expected distinct pages referenced, and the CPU they cost
        self.distinct = (self.hi - self.lo) * self.hit
        self.touch_s = self.distinct * self.cpu_s_per_touch
        #: references of a whole step (a random region's, scaled by the share of it done)
        self.refs = -self.log_q * self.n

    def work(self, budget: float, dt: float, speed: float) -> float:
        """The region's part of the guest's CPU ``budget`` (work at ``speed``) in ``dt``: its
        share, and no more than its threads can use."""
        part = budget * self.budget_share
        return min(part, self.threads * dt * speed) if self.threads else part


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
        #: pages of the working set the start-up has still to initialise (0: serving)
        self.startup_left = 0
        #: where the start-up's walk over the working set stands
        self.startup_pos = 0
        #: simulated time the start-up began (None: not yet run)
        self.startup_t0: float | None = None
        #: the guest's logon (its count of logons) this application last ran in (None: never)
        self.session: int | None = None
        # the parameters never change (WORKLOAD SET makes a new workload): a step's plan, CPU
        # demand and whether it has work are the same every step of the same length
        self._ios_per_unit = float(self.params.get("ios_per_unit", 0.0))
        self._plans: dict[float, list[RegionPlan]] = {}
        self._demand: tuple[float, float, float] = (-1.0, 0.0, 0.0)
        self._busy = self._has_work()
        self._wss = -1
        self._described: str | None = None
        self.restart()

    # -- start-up ------------------------------------------------------------------------------
    def startup_pages(self) -> int:
        """Pages the start-up initialises: the working set (0 without a start-up phase)."""
        if self.params.get("startup_cpu_s", 0.0) <= 0:
            return 0
        return max(1, self.working_set_pages())

    @property
    def starting(self) -> bool:
        """True while the application initialises: it uses CPU and serves nothing."""
        return self.startup_left > 0

    def restart(self) -> None:
        """The application starts from the beginning (logon, or a new WORKLOAD START)."""
        self.startup_left = self.startup_pages()
        self.startup_pos = 0
        self.startup_t0 = None

    def carry_startup(self, prev: Workload) -> None:
        """New parameters for the running application (``WORKLOAD SET``): its start-up stands
        where ``prev``'s stood (done stays done; one under way goes on)."""
        self.startup_left = min(self.startup_pages(), prev.startup_left)
        self.startup_pos = prev.startup_pos if self.startup_left else 0
        self.startup_t0 = prev.startup_t0 if self.startup_left else None

    def startup_plan(self) -> RegionPlan:
        """The start-up's walk: every page of the working set once, each changed (the heap is
        initialised), at ``startup_cpu_s`` spread over its pages."""
        total = self.startup_pages()
        return RegionPlan(0, total, 0.0, self.startup_left, 1.0,
                          self.params["startup_cpu_s"] / total, 0.0, 1.0)

    # -- guest disk I/O ------------------------------------------------------------------------
    def ios_per_unit(self) -> float:
        """Disk I/Os per unit of work (request, transaction); 0 for types without disk I/O."""
        return self._ios_per_unit

    def cp_io_share(self, cp_cpu_per_io_s: float) -> float:
        """The part of the CPU a unit of work costs that is CP's path for its virtual I/O
        (``VirtualIOModel.cp_cpu_per_io_s`` an I/O): CP runs it on the guest's virtual CPU when
        the guest starts the I/O, and charges it to the guest, so it comes out of the guest's
        CPU share as the guest's own work does (0 while the application starts up: it serves
        nothing, so it does no I/O)."""
        k = self._ios_per_unit * cp_cpu_per_io_s
        if k <= 0.0 or self.startup_left > 0:
            return 0.0
        return k / (self.params.get("cpu_ms_per_request", 0.0) / 1000.0 + k)

    def disk_ios_per_s(self) -> float:
        """Most I/Os per second the guest's disk serves: its concurrency over its service time."""
        p = self.params
        return p["disk_queue_depth"] / (p["disk_service_ms"] / 1000.0)

    def served_requests(self, dt: float) -> float:
        """Requests (transactions) the workload can serve in ``dt``: the offered rate, or what
        its disk allows when each needs I/O."""
        reqs = self.params["requests_per_s"] * dt
        per = self.ios_per_unit()
        if per > 0:
            reqs = min(reqs, self.disk_ios_per_s() * dt / per)
        return reqs

    def describe(self) -> str:
        """Type and non-default parameters, as a WORKLOAD START command would give them."""
        if self._described is None:  # the parameters never change: made once
            spec = WORKLOAD_TYPES[self.kind]["params"]
            parts = [self.kind.upper()]
            for name, v in self.params.items():
                if v != spec[name].default:
                    parts.append(f"{name.upper()} {v:g}")
            self._described = " ".join(parts)
        return self._described

    # -- scheduling --------------------------------------------------------------------------
    def busy(self) -> bool:
        """True when the guest has work: it belongs on the dispatch list, not dormant."""
        return self._busy or self.startup_left > 0

    def _has_work(self) -> bool:
        """True when the workload, once started up, has work to do."""
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
        if self._wss < 0:
            self._wss = self._working_set_pages()
        return self._wss

    def _working_set_pages(self) -> int:
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

    def cpu_demand_s(self, dt: float, vcpus: int, speed: float = 1.0) -> float:
        """CPU seconds the workload would use in ``dt`` if nothing held it back, on processors
        of ``speed`` (its work is in seconds at speed 1; at most ``vcpus`` times ``dt``: a
        workload held only by its virtual CPUs does ``speed`` times the work on faster ones)."""
        if self.startup_left > 0:
            return self._cpu_demand_s(dt, vcpus * speed) / speed
        d = self._demand
        if d[0] != dt or d[1] != vcpus * speed:
            self._demand = d = (dt, vcpus * speed, self._cpu_demand_s(dt, vcpus * speed) / speed)
        return d[2]

    def _cpu_demand_s(self, dt: float, vcpus: float) -> float:
        """The work (CPU seconds at speed 1) of ``cpu_demand_s``, at most ``vcpus`` (virtual
        CPUs times their speed) times ``dt``."""
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
        serve = self.served_requests(dt) * p["cpu_ms_per_request"] / 1000.0
        if self.starting:
            r = self.startup_plan()
            serve += self.startup_left * (r.cpu_s_per_touch + FAULT_ALLOWANCE_S)
        return min(cap, serve)

    def plan(self, dt: float) -> list[RegionPlan]:
        """The regions to walk during a step of ``dt`` seconds (the caller must not change
        them: a step of the same length gets the same list)."""
        got = self._plans.get(dt)
        if got is None:
            if len(self._plans) >= 4:  # a member's steps come in a few lengths
                self._plans.clear()
            got = self._plans[dt] = self._plan(dt)
        return got

    def _plan(self, dt: float) -> list[RegionPlan]:
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
                                        p["cpu_us_per_page"] * 1e-6, 1.0, 1.0 / n, threads=1))
        elif self.kind == "randchange":
            hi = int(g * p["fraction"])
            refs = p["rate_pages_s"] * dt
            plans.append(_random_region(0, hi, refs, 1.0, refs * p["cpu_us_per_page"] * 1e-6,
                                        refs, 1.0))
        else:
            wss = min(g, int(p["wss_mb"] * PAGES_PER_MB))
            reqs = self.served_requests(dt)
            refs = reqs * p["pages_per_request"]
            cpu = reqs * p["cpu_ms_per_request"] / 1000.0
            hot = max(1, int(wss * p["hot_fraction"])) if p["hot_fraction"] > 0 else 0
            hs = p["hot_share"] if hot > 0 else 0.0
            parts = [r for r in (
                _random_region(0, hot, refs * hs, p["write_frac"], cpu * hs, reqs * hs, hs),
                _random_region(hot, wss, refs * (1 - hs), p["write_frac"], cpu * (1 - hs),
                               reqs * (1 - hs), 1 - hs)) if r is not None and r.hi > r.lo]
            # (each request references both: the hot part's pages and the rest's)
            plans.extend(dataclasses.replace(r, together=True) if len(parts) > 1 else r
                         for r in parts)
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

"""Evacuation plans: how to empty one member of its guests, searched and ranked by running them.

A plan is a destination for each guest, an order, and how the relocations run (SYNC one at a
time, or ASYNC *k* at a time), with IMMEDIATE or not and a MAXQUIESCE. Each candidate plan is
the scenario's text plus the plan, run in any process like a sweep point; a run issues the
VMRELOCATE commands as an operator would (the next when a relocation ends) and records when it
issued each, so the best plan is written back as a scenario timeline whose replay gives the same
figures. The search enumerates strategy dimensions, not permutations, and then improves the
best plan locally (see docs/planning.md, "Evacuation plans").
"""

from __future__ import annotations

import math
import pickle
import re
import statistics
import tomllib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any

import tomli_w

from ..basics.config import GuestConfig, ScenarioConfig, TimelineEntry
from ..basics.limits import MAX_DURATION_S, MAX_SEED
from ..basics.units import PAGES_PER_GB, format_size
from ..core.sim import Simulation
from ..cp.grammar import VmrelocateMove
from ..migrations.models import Models
from ..migrations.relocation import link_pages_per_s, storage_check
from ..scenarios.scenario import loads_scenario
from ..world.state import Guest, Member

#: Order rules: how the guests of the member are put in sequence.
ORDERS = ("largest", "smallest", "idle", "busiest")
#: Destination rules of the greedy fit (see ``assign``).
FITS = ("roomiest", "tightest", "spread")
#: How the relocations run: 0 is SYNC (one at a time, each holding the console); k > 0 is
#: ASYNC with k under way at once.
CONCURRENCY = (0, 1, 2, 4)
#: MAXQUIESCE values tried (None: NOLIMIT); 10 s is CP's default.
MAXQUIESCE = (10.0, None)
#: Plans tried in one round of local improvement, and the most rounds.
NEIGHBOURS_PER_ROUND = 12
MAX_ROUNDS = 3


class EvacuateError(ValueError):
    """An evacuation that cannot be planned: a bad member, destination or window."""


# -- reading the input ----------------------------------------------------------------------------
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([hms]?)", re.IGNORECASE)


def parse_window(text: str) -> float:
    """Seconds of a window written as ``7200``, ``7200s``, ``90m``, ``2h`` or ``1h30m``."""
    s = text.strip()
    pos, total, n = 0, 0.0, 0
    while pos < len(s):
        m = _DURATION.match(s, pos)
        if not m:
            break
        total += float(m.group(1)) * {"h": 3600, "m": 60, "s": 1, "": 1}[m.group(2).lower()]
        pos, n = m.end(), n + 1
        while pos < len(s) and s[pos] == " ":
            pos += 1
    if not s or pos != len(s) or n == 0 or not math.isfinite(total) or \
            not 0 < total <= MAX_DURATION_S:
        raise EvacuateError(f"--window {text}: write seconds or a duration such as 90m, 2h or "
                            f"1h30m (more than 0, at most a year)")
    return total


@dataclass(frozen=True)
class GuestInfo:
    """A guest of the member to empty, as the planner sees it at the planning time."""

    userid: str
    size_pages: int  # defined storage plus VDISKs
    instantiated: int  # pages it holds at the planning time (what it brings to a destination)
    busy: float  # CPU seconds per second its workload asks for (0 for idle Linux)
    workload: str


@dataclass(frozen=True)
class Room:
    """A destination's free storage at the planning time, in pages."""

    name: str
    free_frames: int
    xstor_free: int
    slots_free: int
    link_pages_s: float


def busy_cpu(g: GuestConfig) -> float:
    """CPU seconds per second a guest's workload asks for, from its configuration."""
    from ..basics.workloads import resolve_params

    kind = g.workload.kind
    if kind in ("", "none"):
        return 0.0
    p = resolve_params(kind, dict(g.workload.params))
    if kind == "idle":
        return float(p.get("cpu_ms_per_s", 0.0)) / 1000.0 if p.get("poll", 0) >= 1 else 0.0
    if kind in ("appserver", "database", "webserver"):
        return min(float(g.vcpus), p["requests_per_s"] * p["cpu_ms_per_request"] / 1000.0)
    return float(g.vcpus)  # touchers and changers run as fast as their CPUs allow


# -- the greedy fit -------------------------------------------------------------------------------
def _member(cfg: ScenarioConfig, room: Room, frames_per_seg: float) -> Member:
    mc = next(m for m in cfg.members if m.name.upper() == room.name)
    m = Member(mc)
    m.frames_per_seg = frames_per_seg  # the DAT tables of the guests that arrive
    m.resident = m.frames - room.free_frames
    m.xstor_used = mc.xstor_pages - room.xstor_free
    m.slots_used = mc.slots - room.slots_free
    return m


def _arrive(m: Member, pages: int) -> None:
    """A guest's pages arrive, and CP builds their DAT tables (a page management block per
    megabyte, in frames): free frames first, then XSTOR, then paging slots."""
    m.dat_segs += -(-pages // 256)
    take = min(pages, max(m.free_frames, 0))
    m.resident += take
    pages -= take
    take = min(pages, max(m.xstor_free, 0))
    m.xstor_used += take
    m.slots_used += pages - take


@dataclass(frozen=True)
class Assignment:
    """Where each guest goes, in order; and the guests that fit nowhere, with the reason."""

    moves: tuple[tuple[str, str], ...]
    unmovable: tuple[tuple[str, str], ...]


class Fitter:
    """VMRELOCATE's storage checks (``storage_check``) against each destination's free storage,
    as it changes while guests arrive."""

    def __init__(self, cfg: ScenarioConfig, guests: dict[str, GuestInfo],
                 rooms: list[Room]) -> None:
        self.cfg = cfg
        self.guests = guests
        self.rooms = rooms
        self._gcfg = {g.userid.upper(): g for g in cfg.guests}
        # the scenario's [model] values count
        self._per_seg = Models.from_table(cfg.model).paging.frames_per_seg

    def _guest(self, userid: str) -> Guest:
        return Guest(self._gcfg[userid], 0)

    def start(self) -> dict[str, Member]:
        """The destinations as they are at the planning time."""
        return {r.name: _member(self.cfg, r, self._per_seg) for r in self.rooms}

    def problem(self, userid: str, dest: Member) -> str | None:
        """The storage check's message for this guest on this destination now, or None."""
        return storage_check(self._guest(userid), dest, False)

    def assign(self, order: list[str], rule: str) -> Assignment:
        """Walk the guests in ``order``, giving each a destination by ``rule``.

        ``roomiest``: the destination with the most free frames; ``tightest``: the one with the
        fewest free frames that still holds the guest's pages, so the roomy ones stay free for
        large guests; ``spread``: busy guests take the destinations in turn (by free frames),
        idle ones go to the roomiest. A guest no destination passes is unmovable.
        """
        state = self.start()
        moves, unmovable = [], []
        turn = 0
        for uid in order:
            info = self.guests[uid]
            ok = [m for m in state.values() if self.problem(uid, m) is None]
            if not ok:
                best = max(state.values(), key=lambda m: (m.free_frames + m.xstor_free
                                                          + m.slots_free, m.name))
                unmovable.append((uid, f"to {best.name}: {self.problem(uid, best)}"))
                continue
            by_room = sorted(ok, key=lambda m: (-m.free_frames, m.name))
            if rule == "tightest":
                holds = [m for m in by_room if m.free_frames >= info.instantiated]
                dest = holds[-1] if holds else by_room[0]
            elif rule == "spread" and info.busy > 0:
                dest = by_room[turn % len(by_room)]
                turn += 1
            else:
                dest = by_room[0]
            moves.append((uid, dest.name))
            _arrive(dest, info.instantiated)
        return Assignment(tuple(moves), tuple(unmovable))

    def check(self, moves: Iterable[tuple[str, str]]) -> bool:
        """True when every move of this sequence passes the storage checks in turn."""
        state = self.start()
        for uid, dest in moves:
            if self.problem(uid, state[dest]) is not None:
                return False
            _arrive(state[dest], self.guests[uid].instantiated)
        return True


def ordered(guests: dict[str, GuestInfo], rule: str) -> list[str]:
    """The guests' user IDs in the order of ``rule`` (ties by user ID)."""
    gs = sorted(guests.values(), key=lambda g: g.userid)
    if rule == "largest":
        gs.sort(key=lambda g: -g.size_pages)
    elif rule == "smallest":
        gs.sort(key=lambda g: g.size_pages)
    elif rule == "idle":
        gs.sort(key=lambda g: g.busy)
    elif rule == "busiest":
        gs.sort(key=lambda g: -g.busy)
    else:
        raise EvacuateError(f"unknown order rule {rule!r}; rules: {', '.join(ORDERS)}")
    return [g.userid for g in gs]


# -- a candidate and its run ----------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """One evacuation plan: moves in order, and how the relocations run."""

    moves: tuple[tuple[str, str], ...]
    concurrency: int  # 0: SYNC one at a time; k: ASYNC, k at a time
    immediate: bool
    maxquiesce_s: float | None  # None: NOLIMIT
    origin: str  # how the search came to it ("largest/roomiest", "swap LNX01 LNX02", ...)

    @property
    def key(self) -> tuple[Any, ...]:
        """What makes two candidates the same plan."""
        return (self.moves, self.concurrency, self.immediate, self.maxquiesce_s)

    def command(self, userid: str, dest: str) -> str:
        """The VMRELOCATE command that moves one guest of this plan."""
        return str(VmrelocateMove(userid=userid, dest=dest, sync=self.concurrency == 0,
                                  immediate=self.immediate, maxquiesce_s=self.maxquiesce_s))

    def how(self) -> str:
        """SYNC, or ASYNC k at a time."""
        return "SYNC" if self.concurrency == 0 else f"ASYNC x{self.concurrency}"


@dataclass(frozen=True)
class RunJob:
    """What a process needs to run one candidate (or the baseline, with no moves)."""

    text: str
    seed: int
    at_s: float
    until_s: float
    candidate: Candidate | None
    watch: tuple[str, ...]  # guests on the destinations: their work is measured
    #: the run stops at this simulated time if relocations are still to be made then: a plan
    #: that has not moved every guest by then cannot beat the best plan found before it
    give_up_s: float = math.inf
    #: the destinations: how short of storage they are when the plan is done is measured
    dests: tuple[str, ...] = ()


#: The simulation at the planning time, pickled, of the last few (text, seed, time) this process
#: ran to: every candidate starts from the same state, so it is computed once per process.
_WARM: dict[tuple[int, int, float], bytes] = {}
_WARM_KEEP = 2


def _warm(text: str, seed: int, at_s: float) -> Simulation:
    """A simulation of ``text`` run to ``at_s``: a copy of this process's stored one (identical
    state, so identical results to a run from the start), made and stored on first use."""
    key = (hash(text), seed, at_s)
    data = _WARM.get(key)
    if data is None:
        sim = Simulation(loads_scenario(text, "<evacuate>"), seed=seed)
        sim.run_until(at_s)
        data = pickle.dumps(sim, protocol=pickle.HIGHEST_PROTOCOL)
        while len(_WARM) >= _WARM_KEEP:
            _WARM.pop(next(iter(_WARM)))
        _WARM[key] = data
    sim = pickle.loads(data)
    assert isinstance(sim, Simulation)
    return sim


def run_job(job: RunJob) -> dict[str, Any]:
    """Run one candidate plan (or the baseline): the relocations and the work of the watched
    guests. Runs in any process; the result depends only on the job."""
    sim = _warm(job.text, job.seed, job.at_s)
    work0 = {u: sim.guests[u].units_total for u in job.watch}
    cand = job.candidate
    t0 = sim.t
    if cand is None:  # the baseline: cumulative work of the watched guests after every step
        steps: dict[str, list[float]] = {u: [] for u in job.watch}
        while sim.t < job.until_s - 1e-9:
            sim.step()
            for u in job.watch:
                steps[u].append(sim.guests[u].units_total - work0[u])
        return {"t0": t0, "step_s": sim.step_s, "work": steps}
    pending = list(cand.moves)
    issued: list[tuple[float, str, str, str]] = []  # (t, userid, dest, command)
    log_from = len(sim.command_log)
    k = cand.concurrency
    # (commands of the plan CP has run, accepted or refused; relocations of it under way; the
    # ended relocations whose places have been taken; how far the command log was read)
    state = {"executed": 0, "in_flight": 0, "seen": log_from}
    freed: set[int] = set()

    def issue(n: int, times: list[float]) -> None:
        # queued as the timeline would hold them: for the time a relocation of the plan ended
        # (the one each takes the place of, the earliest first), or now; they run then, within
        # the step, as in a replay of the plan
        for i in range(n):
            uid, dest = pending.pop(0)
            text = cand.command(uid, dest)
            at = times[i] if i < len(times) else sim.moment_s()
            sim.schedule(TimelineEntry(at, text))
            issued.append((at, uid, dest, text))

    def feed() -> None:
        # as the simulation picks the commands due (within a step too): a place freed by a
        # relocation of the plan that ended goes to the next guest of the plan, from then
        texts = {text for _, _, _, text in issued}
        state["executed"] += sum(1 for e in sim.command_log[state["seen"]:] if e[1] in texts)
        state["seen"] = len(sim.command_log)
        mine_now = {uid for _, uid, _, _ in issued}
        state["in_flight"] = sum(1 for uid in mine_now if sim.reloc.of(uid) is not None)
        waiting = len(issued) - state["executed"]
        ended = sorted((r.t_end, id(r)) for r in sim.reloc.all if r.guest.userid in mine_now
                       and r.t_end is not None and id(r) not in freed)
        freed.update(x for _, x in ended)
        if k and pending and state["in_flight"] + waiting < k:
            issue(min(k - state["in_flight"] - waiting, len(pending)), [t for t, _ in ended])

    # SYNC: every command at once; each waits for the console the one before holds
    issue(len(pending) if k == 0 else min(k, len(pending)), [])
    sim.feeders.append(feed)
    stopped = False
    while sim.t < job.until_s - 1e-9:
        if sim.t > job.give_up_s + 1e-9:
            stopped = True
            break
        sim.step()
        feed()
        if not pending and state["in_flight"] == 0 and len(issued) == state["executed"]:
            break
    sim.feeders.remove(feed)
    mine = {uid for _, uid, _, _ in issued}
    refused = {}
    for _t, text, rc, _line, resp in sim.command_log[log_from:]:
        if rc != 0 and text.startswith("VMRELOCATE MOVE"):
            refused[text.split()[3]] = " ".join(resp)
    rels = [r.to_dict(sim.t) for r in sim.reloc.all if r.guest.userid in mine
            and r.t_start >= job.at_s - 1e-9]
    # the destinations' working sets against their frames, the plan done (a guest still on
    # its way, or not started yet, counts where the plan sends it: only a refusal or a
    # relocation that ended without moving it leaves it behind); and against all of their
    # frames together (no plan that moves the same guests leaves them less short)
    failed = set(refused) | {r["guest"] for r in rels if r["ended"] and r["result"] != "relocated"}
    coming: dict[str, list[Guest]] = {}
    for uid, dest in cand.moves:
        g = sim.guests[uid]
        if g.member != dest and uid not in failed:
            coming.setdefault(dest, []).append(g)
    over = [sim.members[d].frames_over(sim.guests_on(d) + coming.get(d, []))
            for d in job.dests]
    short = sum(max(0, x) for x in over)
    pooled = max(0, sum(over))
    return {"issued": issued, "relocations": rels, "refused": refused, "end_s": sim.t,
            "step_s": sim.step_s, "stopped": stopped, "short_pages": short,
            "pooled_short_pages": pooled,
            "work": {u: sim.guests[u].units_total - work0[u] for u in job.watch}}


def run_jobs(jobs: list[RunJob], executor: Executor | None = None,
             progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Every job's result, in order (``executor``: processes, as for a sweep)."""
    out: list[dict[str, Any]] = []
    results: Iterator[dict[str, Any]] = (map(run_job, jobs) if executor is None
                                         else executor.map(run_job, jobs))
    for r in results:
        out.append(r)
        if progress is not None:
            progress(len(out), len(jobs))
    return out


# -- figures and ranking --------------------------------------------------------------------------
@dataclass
class Outcome:
    """A candidate's figures, the mean over seeds (``runs``: one result per seed)."""

    candidate: Candidate
    runs: list[dict[str, Any]]
    moved: float  # guests relocated within the window
    total_s: float  # first command to the last relocation's end
    worst_quiesce_s: float
    tput_lost_pct: float  # the destinations' guests: work lost against the baseline
    held_s: float  # the relocations' pages held back by throttles (reasons at once count once)
    #: GB the destinations' working sets want beyond their central storage when the plan is
    #: done (``Member.frames_over``): what will page from then on
    short_gb: float = 0.0
    #: the least any plan moving the same guests could leave them short (their frames pooled)
    least_short_gb: float = 0.0
    #: a run was stopped once it could no longer beat the best plan (``RunJob.give_up_s``):
    #: its figures are those it had then, and ``total_s`` is a lower bound
    stopped: bool = False
    rank: int = 0

    def key(self) -> tuple[float, ...]:
        """The ranking: most guests moved, then the destinations least short of storage once
        the plan is done, shortest total time, shortest worst quiesce, least throughput lost by
        the destinations' guests, fewest seconds held back."""
        return (-round(self.moved, 3), round(self.short_gb, 1), round(self.total_s, 1),
                round(self.worst_quiesce_s, 2), round(self.tput_lost_pct, 2),
                round(self.held_s, 1))


CRITERIA = ("guests moved", "storage short after", "total time", "worst quiesce",
            "throughput lost", "time held back")


def _figures(cand: Candidate, runs: list[dict[str, Any]], baselines: list[dict[str, Any]],
             at_s: float, window_s: float) -> Outcome:
    moved, total, worst, lost, thr = [], [], [], [], []
    for run, base in zip(runs, baselines):
        done = [r for r in run["relocations"] if r["result"] == "relocated"
                and r["start_s"] + r["relocation_s"] <= at_s + window_s + 1e-6]
        moved.append(float(len(done)))
        ends = [r["start_s"] + r["relocation_s"] for r in run["relocations"]]
        total.append((max(ends) if ends else run["end_s"]) - at_s)
        worst.append(max((r["quiesce_s"] for r in run["relocations"]), default=0.0))
        # each pass's time lost to throttles: reasons that hold the pages back together
        # (frames, paging queue, the source told to wait) count once
        thr.append(sum(p["throttle_s"] for r in run["relocations"] for p in r["pass_list"]))
        lost.append(_lost_pct(run, base))
    short = statistics.fmean(run.get("short_pages", 0) for run in runs) / PAGES_PER_GB
    least = statistics.fmean(run.get("pooled_short_pages", 0) for run in runs) / PAGES_PER_GB
    return Outcome(cand, runs, statistics.fmean(moved), statistics.fmean(total),
                   statistics.fmean(worst), statistics.fmean(lost), statistics.fmean(thr),
                   short, least, any(run.get("stopped", False) for run in runs))


def _lost_pct(run: dict[str, Any], base: dict[str, Any]) -> float:
    """Mean over the destinations' guests of the work they lost while the evacuation ran, as a
    percentage of what they did in the same time without it (none below 0: guests arriving on
    their member take nothing from them that they could gain, and a run that differs from its
    baseline from ``--at`` on does a little more or less by chance)."""
    n = round((run["end_s"] - base["t0"]) / base["step_s"])
    pcts = []
    for u, done in run["work"].items():
        series = base["work"][u]
        if n <= 0 or not series:
            continue
        ref = series[min(n, len(series)) - 1]
        if ref > 0:
            pcts.append(100.0 * (ref - done) / ref)
    return max(0.0, statistics.fmean(pcts)) if pcts else 0.0


# -- the search -----------------------------------------------------------------------------------
@dataclass
class EvacuationResult:
    """The ranked candidate plans of an evacuation, and what the planner saw."""

    scenario_text: str
    path: str
    member: str
    at_s: float
    window_s: float
    seeds: list[int]
    destinations: list[Room]
    guests: dict[str, GuestInfo]
    unmovable: dict[str, str]  # guests no plan can move, with the storage check's reason
    outcomes: list[Outcome]  # best first
    runs: int = 0
    stages: list[str] = field(default_factory=list)

    @property
    def best(self) -> Outcome:
        """The best plan."""
        return self.outcomes[0]


def _planning_state(cfg: ScenarioConfig, member: str, dests: list[str], at_s: float,
                    seed: int) -> tuple[dict[str, GuestInfo], list[Room], list[str]]:
    """The member's guests, the destinations' free storage and their guests at ``at_s``."""
    gcfg = {g.userid.upper(): g for g in cfg.guests}
    links = {frozenset(m.upper() for m in lk.members): lk for lk in cfg.links}

    def link_rate(dest: str) -> float:
        lk = links.get(frozenset((member, dest)))
        lgr = Models.from_table(cfg.model).lgr
        return link_pages_per_s(lk, lgr) if lk is not None and lk.chpids else 0.0

    if at_s > 0:
        sim = Simulation(cfg, seed=seed)
        sim.run_until(at_s)
        snap = sim.snapshot()
        on = {g.userid: g for g in snap.guests if g.member is not None}
        guests = {u: GuestInfo(u, gcfg[u].storage_pages + gcfg[u].vdisk_total_pages,
                               g.central + g.xstor + g.dasd, busy_cpu(gcfg[u]), g.workload)
                  for u, g in on.items() if g.member == member}
        rooms = [Room(m.name, m.frames - m.resident, m.xstor_total - m.xstor_used,
                      m.slots_total - m.slots_used, link_rate(m.name))
                 for m in snap.members if m.name in dests]
        watch = sorted(u for u, g in on.items() if g.member in dests)
    else:
        guests = {u: GuestInfo(u, g.storage_pages + g.vdisk_total_pages, 0, busy_cpu(g),
                               g.workload.kind or "none")
                  for u, g in gcfg.items() if g.logged_on and g.member.upper() == member}
        rooms = [Room(m.name.upper(), m.central_pages - m.cp_frames, m.xstor_pages, m.slots,
                      link_rate(m.name.upper()))
                 for m in cfg.members if m.name.upper() in dests]
        watch = sorted(u for u, g in gcfg.items() if g.logged_on and g.member.upper() in dests)
    rooms.sort(key=lambda r: r.name)
    return guests, rooms, watch


def plan_evacuation(text: str, path: str, member: str, at_s: float = 0.0,
                    to: list[str] | None = None, window_s: float = 3600.0, seeds: int = 1,
                    executor: Executor | None = None,
                    progress: Callable[[str, int, int], None] | None = None,
                    stop_losers: bool = True) -> EvacuationResult:
    """Search evacuation plans for ``member`` and rank them by running each.

    Parameters
    ----------
    text, path : str
        The scenario's text and where it came from (for messages).
    member : str
        The member to empty.
    at_s : float
        When the evacuation starts (simulated seconds); destinations' free storage is taken
        from a run to this time (from the configuration when 0).
    to : list of str, optional
        Destinations (default: every other member linked to ``member``).
    window_s : float
        The guests should be moved within this many seconds of ``at_s``.
    seeds : int
        Runs of each plan, with seeds from the scenario's own; figures are their mean.
    executor : Executor, optional
        Processes for the runs (a process pool or a Dask client's executor).
    progress : callable, optional
        ``progress(stage, done, total)`` as runs finish.
    stop_losers : bool
        Stop a plan's run once it can no longer beat the best plan found before it (the
        ranking and the best plan are the same; the stopped plans' figures are partial).

    Raises
    ------
    EvacuateError
        An unknown member or destination, a member without guests, a bad window.
    """
    cfg = loads_scenario(text, path)
    names = [m.name.upper() for m in cfg.members]
    member = member.upper()
    if member not in names:
        raise EvacuateError(f"--member {member}: not a member of the scenario; members: "
                            f"{', '.join(names)}")
    linked = {m.upper() for lk in cfg.links if member in {x.upper() for x in lk.members}
              and lk.chpids for m in lk.members} - {member}
    if to:
        dests = []
        for d in (x.strip().upper() for x in to):
            if d == member:
                raise EvacuateError(f"--to {d}: that is the member being evacuated")
            if d not in names:
                raise EvacuateError(f"--to {d}: not a member of the scenario; members: "
                                    f"{', '.join(names)}")
            if d not in linked:
                raise EvacuateError(f"--to {d}: no ISFC link between {member} and {d}")
            if d not in dests:
                dests.append(d)
    else:
        dests = sorted(linked)
        if not dests:
            raise EvacuateError(f"--member {member}: no ISFC link to another member; no guest "
                                f"can be relocated")
    if not 1 <= seeds <= 100:
        raise EvacuateError(f"--seeds {seeds}: must be 1 to 100")
    if not 0 <= at_s <= cfg.duration_s:
        raise EvacuateError(f"--at {at_s:g}: must be 0 to the scenario's duration_s "
                            f"({cfg.duration_s:g})")
    if not 0 < window_s <= MAX_DURATION_S:
        raise EvacuateError(f"--window {window_s:g}: must be more than 0 and at most a year")
    seed_list = [(cfg.seed + k) % (MAX_SEED + 1) for k in range(seeds)]
    guests, rooms, watch = _planning_state(cfg, member, dests, at_s, seed_list[0])
    if not guests:
        raise EvacuateError(f"--member {member}: no guest is logged on to {member} at "
                            f"t = {at_s:g} s; nothing to evacuate")
    fitter = Fitter(cfg, guests, rooms)
    until = at_s + window_s
    result = EvacuationResult(text, path, member, at_s, window_s, seed_list, rooms, guests, {},
                              [])
    seen: dict[tuple[Any, ...], Outcome] = {}
    baselines: list[dict[str, Any]] = []
    counts: dict[str, tuple[int, int]] = {}  # plans run and stopped, by stage

    def give_up_at(best: Outcome | None) -> float:
        # a plan can beat the best only by moving as many guests sooner: once the best has
        # moved every guest that can move and leaves the destinations no shorter of storage
        # than their frames pooled would be (no plan can leave them less short; a run stopped
        # early cannot tell how short it would), a run still relocating when its total time
        # alone
        # puts its mean over the seeds more than 0.1 s past the best one's (so that the
        # ranking's rounding to 0.1 s cannot make them equal) cannot; it stops there (the
        # ranking and the best plan are the same, sooner)
        if best is None or not stop_losers or best.stopped or \
                round(best.short_gb, 1) > round(best.least_short_gb, 1) or \
                best.moved < len(guests) - len(result.unmovable) - 1e-9:
            return math.inf
        return at_s + len(seed_list) * (best.total_s + 0.1)

    def run(stage: str, cands: list[Candidate], best: Outcome | None = None) -> list[Outcome]:
        fresh: list[Candidate] = []
        for c in cands:
            if c.key not in seen and all(c.key != f.key for f in fresh):
                fresh.append(c)
        give_up = give_up_at(best)
        jobs = [RunJob(text, s, at_s, until, c, tuple(watch), give_up, tuple(dests))
                for c in fresh for s in seed_list]
        res = run_jobs(jobs, executor,
                       None if progress is None else (lambda d, n: progress(stage, d, n)))
        result.runs += len(jobs)
        # the baseline (no evacuation) only as far as the plans went, with room to spare
        need = max((r["end_s"] for r in res), default=at_s)
        have = baselines[0]["t0"] + baselines[0]["step_s"] * len(
            next(iter(baselines[0]["work"].values()), [])) if baselines else -math.inf
        if watch and have < need - 1e-9:
            horizon = min(until, at_s + 2 * (need - at_s) + 60)
            base = [RunJob(text, s, at_s, horizon, None, tuple(watch)) for s in seed_list]
            baselines[:] = run_jobs(base, executor, None if progress is None else
                                    (lambda d, n: progress("baseline", d, n)))
            result.runs += len(base)
            for o in seen.values():  # figures of earlier plans against the longer baseline
                o.tput_lost_pct = statistics.fmean(_lost_pct(r, b)
                                                   for r, b in zip(o.runs, baselines))
        if not baselines:
            baselines.extend({"t0": at_s, "step_s": 1.0, "work": {}} for _ in seed_list)
        for i, c in enumerate(fresh):
            runs = res[i * len(seed_list):(i + 1) * len(seed_list)]
            seen[c.key] = _figures(c, runs, baselines, at_s, window_s)
        n, stopped = counts.get(stage, (0, 0))
        counts[stage] = n, stopped = (n + len(fresh),
                                      stopped + sum(1 for c in fresh if seen[c.key].stopped))
        line = f"{stage}: {n} plans" + (f" ({stopped} stopped once slower than the best)"
                                        if stopped else "")
        if result.stages and result.stages[-1].startswith(f"{stage}:"):
            result.stages[-1] = line  # (a stage run in two parts)
        else:
            result.stages.append(line)
        return [seen[c.key] for c in cands]

    def best_of(outs: Iterable[Outcome]) -> Outcome:
        return min(outs, key=lambda o: o.key())

    # 1. where and in what order: every order rule with every fit rule, run SYNC with defaults
    first = []
    never: dict[str, str] = {}
    for order in ORDERS:
        for fit in FITS:
            a = fitter.assign(ordered(guests, order), fit)
            for uid, why in a.unmovable:
                never.setdefault(uid, why)
            if a.moves:
                first.append(Candidate(a.moves, 0, False, 10.0, f"{order} first, {fit}"))
    # a guest no order and no fit can place cannot move at all
    placed = {uid for c in first for uid, _ in c.moves}
    result.unmovable = {u: why for u, why in never.items() if u not in placed}
    if not first:
        raise_all = "; ".join(f"{u} {why}" for u, why in sorted(result.unmovable.items()))
        raise EvacuateError(f"no guest of {member} fits any destination: {raise_all}")
    # (the first order rule's plans first: the best of them bounds the others' runs)
    stage = "where and in what order"
    lead = run(stage, first[:len(FITS)])
    best = best_of([*lead, *run(stage, first[len(FITS):], best_of(lead))])
    # 2. how: SYNC or ASYNC k at a time, IMMEDIATE or not, MAXQUIESCE
    how = [replace(best.candidate, concurrency=k, immediate=imm, maxquiesce_s=mq,
                   origin=best.candidate.origin)
           for k in CONCURRENCY for imm in (False, True) for mq in MAXQUIESCE]
    best = best_of([best, *run("how the relocations run", how, best)])
    # 3. local improvement: swap neighbours in the order, move one guest elsewhere
    for rnd in range(MAX_ROUNDS):
        near = _neighbours(best, fitter, [r.name for r in rooms])
        near = [c for c in near if c.key not in seen][:NEIGHBOURS_PER_ROUND]
        if not near:
            break
        better = best_of([best, *run(f"improvement round {rnd + 1}", near, best)])
        if better.key() >= best.key():
            break
        best = better
    result.outcomes = sorted(seen.values(), key=lambda o: o.key())
    for i, o in enumerate(result.outcomes):
        o.rank = i + 1
    return result


def _neighbours(best: Outcome, fitter: Fitter, dests: list[str]) -> list[Candidate]:
    """Plans one change away from ``best``, the guests that took longest first: two guests
    next to each other swapped, or one guest sent to another destination. Only sequences that
    pass the storage checks in turn are kept."""
    c = best.candidate
    moves = list(c.moves)
    took: dict[str, float] = {}
    for run in best.runs:
        for r in run["relocations"]:
            took[r["guest"]] = took.get(r["guest"], 0.0) + r["relocation_s"] + \
                sum(r["throttle_s"].values())
    by_cost = sorted(range(len(moves)), key=lambda i: (-took.get(moves[i][0], 0.0), i))
    out = []
    for i in by_cost:
        uid, dest = moves[i]
        for d in dests:
            if d != dest:
                alt = moves[:i] + [(uid, d)] + moves[i + 1:]
                if fitter.check(alt):
                    out.append(replace(c, moves=tuple(alt), origin=f"{uid} to {d}"))
        for j in (i - 1, i):
            if 0 <= j < len(moves) - 1:
                alt = moves[:j] + [moves[j + 1], moves[j]] + moves[j + 2:]
                if fitter.check(alt):
                    out.append(replace(c, moves=tuple(alt),
                                       origin=f"swap {moves[j][0]} {moves[j + 1][0]}"))
    return out


# -- what the planner shows and writes ------------------------------------------------------------
def _clock(t: float) -> str:
    s = int(round(t))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def why_best(result: EvacuationResult) -> str:
    """Which criterion separated the best plan from the next; and, when no plan could leave
    the destinations with room for every working set, by how much they are short."""
    return _why(result) + _short_note(result.best)


def _why(result: EvacuationResult) -> str:
    if len(result.outcomes) < 2:
        return "It is the only plan that could be run."
    a, b = result.outcomes[0], result.outcomes[1]
    units = ("", " GB", " s", " s", " %", " s")
    for name, x, y, u in zip(CRITERIA, a.key(), b.key(), units):
        if x != y:
            if name == "guests moved":
                return (f"Plan 1 wins on guests moved: {-x:g} against {-y:g} for plan 2.")
            return (f"Plan 1 wins on {name}: {x:g}{u} against {y:g}{u} for plan 2"
                    + (", both moving the same number of guests." if name == CRITERIA[1]
                       else ", the criteria before it being equal."))
    return "Plans 1 and 2 are equal on every criterion; plan 1 was found first."


def _short_note(best: Outcome) -> str:
    if round(best.least_short_gb, 1) <= 0:
        return ""
    return (f" Whatever the plan, the destinations' working sets want at least "
            f"{best.least_short_gb:,.1f} GB more than their central storage once these guests "
            f"are there: expect them to page.")


def _dest_counts(c: Candidate) -> str:
    counts: dict[str, int] = {}
    for _, d in c.moves:
        counts[d] = counts.get(d, 0) + 1
    return " ".join(f"{d}:{n}" for d, n in sorted(counts.items()))


def format_evacuation(result: EvacuationResult, top: int = 5) -> str:
    """The best plans side by side, why the best wins, the guests that cannot move and the best
    plan's commands."""
    lines = [*headline(result), ""]
    rows = plan_table(result, top)
    w0 = max(len(r[0]) for r in rows)
    widths = [max(len(r[1][i]) for r in rows) for i in range(len(rows[0][1]))]
    for label, cells in rows:
        lines.append(label.ljust(w0) + "  " + "  ".join(c.rjust(w) for c, w in
                                                       zip(cells, widths)))
    lines += ["", why_best(result)]
    problems = not_moved(result)
    if problems:
        lines.append("")
        lines.append("Not moved by the best plan:")
        lines += [f"  {u}: {why}" for u, why in problems]
    lines += ["", "Commands of the best plan (seed " + str(result.seeds[0]) + "):"]
    lines += ["  " + ln for ln in commands_text(result).splitlines()]
    return "\n".join(lines)


def headline(result: EvacuationResult) -> list[str]:
    """What was planned, the destinations' free storage, and the plans run: three lines."""
    n_g = len(result.guests)
    lines = [f"Evacuation of {result.member} at t = {result.at_s:g} s: {n_g} guests "
             f"({format_size(sum(g.size_pages for g in result.guests.values()))} defined, "
             f"{format_size(sum(g.instantiated for g in result.guests.values()))} in use), "
             f"window {result.window_s:g} s, {len(result.seeds)} seed(s)"]
    lines.append("Destinations: " + ", ".join(
        f"{r.name} (free central {format_size(max(r.free_frames, 0))}, XSTOR "
        f"{format_size(max(r.xstor_free, 0))}, paging {format_size(max(r.slots_free, 0))}, "
        f"link {r.link_pages_s * 4096 / 1e6:,.0f} MB/s)" for r in result.destinations))
    lines.append(f"{len(result.outcomes)} plans run ({result.runs} runs): "
                 + "; ".join(result.stages))
    return lines


def plan_table(result: EvacuationResult, top: int = 5) -> list[tuple[str, list[str]]]:
    """The figures of the ``top`` best plans as ``format_evacuation`` shows them: one
    (label, a cell per plan) for each row, best plan first."""
    n_g = len(result.guests)
    shown = result.outcomes[:max(1, top)]
    return [
        ("plan", [str(o.rank) for o in shown]),
        ("found by", [o.candidate.origin for o in shown]),
        ("order", [" ".join(u for u, _ in o.candidate.moves[:3])
                   + (" ..." if len(o.candidate.moves) > 3 else "") for o in shown]),
        ("guests to", [_dest_counts(o.candidate) for o in shown]),
        ("relocations", [o.candidate.how() for o in shown]),
        ("IMMEDIATE", ["yes" if o.candidate.immediate else "no" for o in shown]),
        ("MAXQUIESCE", ["NOLIMIT" if o.candidate.maxquiesce_s is None
                        else f"{o.candidate.maxquiesce_s:g}" for o in shown]),
        ("guests moved", [f"{o.moved:g}/{n_g}" for o in shown]),
        # (a plan stopped before it was done cannot tell)
        ("short after GB", ["-" if o.stopped else f"{o.short_gb:,.1f}" for o in shown]),
        # (a plan stopped once it could not beat the best would have taken longer)
        ("total s", [f"{'>' if o.stopped else ''}{o.total_s:,.1f}" for o in shown]),
        ("worst quiesce s", [f"{o.worst_quiesce_s:,.2f}" for o in shown]),
        ("tput lost %", [f"{o.tput_lost_pct:,.2f}" for o in shown]),
        ("held s", [f"{o.held_s:,.1f}" for o in shown]),
    ]


def not_moved(result: EvacuationResult,
              outcome: Outcome | None = None) -> list[tuple[str, str]]:
    """Guests the best plan (or ``outcome``) leaves on the member, each with the reason (its
    first seed)."""
    best = result.best if outcome is None else outcome
    run = best.runs[0]
    out = dict(result.unmovable)
    planned = {u for u, _ in best.candidate.moves}
    for u in result.guests:
        if u not in planned and u not in out:
            out[u] = "no destination left room for it after the guests before it " \
                     "(storage check)"
    for u, resp in run["refused"].items():
        out[u] = f"refused: {resp}"
    for r in run["relocations"]:
        if r["result"] != "relocated" and r["ended"]:
            out[r["guest"]] = f"{r['result']}: {r['message']}"
        elif r["result"] != "relocated" and not best.stopped:
            out[r["guest"]] = (f"still relocating when the window closed at t = "
                               f"{run['end_s']:,.1f} s ({r['relocation_s']:,.1f} s after it "
                               f"began)")
        elif r["start_s"] + r["relocation_s"] > result.at_s + result.window_s + 1e-6:
            out[r["guest"]] = "moved only after the window"
    issued = {uid: t for t, uid, _, _ in run["issued"]}
    done = {r["guest"] for r in run["relocations"] if r["result"] == "relocated"}
    if best.stopped:
        for u in planned - done - set(out):
            out[u] = (f"the plan was stopped at t = {run['end_s']:,.1f} s, once it could no "
                      f"longer beat the best plan")
    # (a guest whose relocation began is done or listed by now)
    for u in planned - done - set(out):
        why = " (SYNC: it waits for the one before to return)" \
            if best.candidate.concurrency == 0 else ""
        out[u] = (f"its command, issued at t = {issued[u]:,.1f} s, had not begun when the "
                  f"window closed{why}" if u in issued else "not started within the window")
    return sorted(out.items())


def commands_text(result: EvacuationResult, outcome: Outcome | None = None) -> str:
    """The CP commands an operator issues for the best plan (or ``outcome``), in order, with
    their times."""
    chosen = result.best if outcome is None else outcome
    run = chosen.runs[0]
    c = chosen.candidate
    lines = []
    ends = {r["guest"]: r["start_s"] + r["relocation_s"] for r in run["relocations"]}
    for i, (t, _uid, _dest, text) in enumerate(run["issued"]):
        if c.concurrency == 0:
            when = "at once" if i == 0 else "when the one before returns (SYNC)"
        else:
            # the relocation it took the place of ended at its time (the ends in the summary
            # are rounded to the millisecond); a plan run before that issued it at the end of
            # the step in which they ended
            ended = [u for u, e in ends.items() if abs(e - t) <= 2e-3] or \
                [u for u, e in ends.items() if t - run["step_s"] - 1e-6 < e <= t + 1e-6]
            # (the first batch goes at once: at --at, or the first step after it when --at
            # falls between steps)
            first = i < c.concurrency and t <= result.at_s + run["step_s"] + 1e-9
            when = "at once" if first else (f"when {', '.join(sorted(ended)) or 'a relocation'} "
                                            f"{'have' if len(ended) > 1 else 'has'} ended")
        lines.append(f"t={t:>9,.1f}s  {_clock(t)}  {text}    ({when})")
    if chosen.stopped:
        lines.append(f"(stopped at t = {run['end_s']:,.1f} s, once it could no longer beat the "
                     f"best plan: the rest of its commands were not issued)")
    return "\n".join(lines)


def scenario_text(result: EvacuationResult, outcome: Outcome | None = None) -> str:
    """The scenario with the best plan's (or ``outcome``'s) commands in its timeline (first
    seed's times).

    The original text is kept as it is with the timeline entries added at its end, unless its
    ``duration_s`` ends before the plan does: then it is written anew with a longer one.
    """
    chosen = result.best if outcome is None else outcome
    if chosen.stopped:
        raise EvacuateError(f"plan {chosen.rank} was stopped once it could no longer beat the "
                            f"best plan: it has no whole timeline to write")
    run = chosen.runs[0]
    entries = [(t, text) for t, _u, _d, text in run["issued"]]
    ends = [r["start_s"] + r["relocation_s"] for r in run["relocations"]]
    need = math.ceil(max([*ends, run["end_s"]]) + 60)
    doc = tomllib.loads(result.scenario_text)
    dur = float(doc.get("run", {}).get("duration_s", 600))
    head = (f"\n# Evacuation plan for {result.member} written by ssisim plan evacuate: "
            f"{chosen.candidate.how()}, the commands as an operator issues them.\n")
    inline = re.search(r"^\s*timeline\s*=", result.scenario_text, re.MULTILINE)
    if dur >= need and not inline:
        out = result.scenario_text.rstrip("\n") + "\n" + head
        for t, text in entries:
            out += f"[[timeline]]\nat_s = {t!r}\ncommand = {_toml_str(text)}\n"
        return out
    doc.setdefault("run", {})["duration_s"] = max(dur, need)
    doc["timeline"] = [*doc.get("timeline", []), *({"at_s": t, "command": text}
                                                   for t, text in entries)]
    return f"# {result.path}, with duration_s extended to {need} s to hold the plan\n" + head + \
        tomli_w.dumps(doc)


def _toml_str(s: str) -> str:
    return tomli_w.dumps({"x": s}).split("=", 1)[1].strip()


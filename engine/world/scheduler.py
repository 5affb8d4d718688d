"""The scheduler's lists and CPU sharing of one member: dormant, eligible or dispatch list
(with the SRM STORBUF admission rule), and the member's CPU shared out by SHARE."""

from __future__ import annotations

from dataclasses import dataclass

from .state import (
    DISPATCH,
    DORMANT,
    ELIGIBLE,
    QUIESCED,
    STATE_CLASS,
    STOPPED,
    SUSPENDED,
    Guest,
    Member,
)
from .world import World

#: A guest that used less than this share of the CPU it was given in a step was not held back
#: by CPU; on a member short of CPU it then asks for what it used times ``NEED_MARGIN``, plus
#: ``NEED_FLOOR`` of each virtual CPU (so that a guest whose work grows gets it within a step
#: or two, and one that used nothing can start again). Ways of computing, not figures of CP.
CPU_BOUND = 0.95
NEED_MARGIN = 1.1
NEED_FLOOR = 0.01


@dataclass(frozen=True)
class SchedulerModel:
    """CP's scheduler lists (section ``scheduler``).

    A guest admitted to the dispatch list stays there for an elapsed time slice; when it has
    used it, CP drops it from the list and admits as many waiting guests as the storage rule
    allows (IBM z/VM Performance, "Virtual Machine Scheduling and Dispatching": "when a virtual
    machine has accumulated its elapsed time slice, it is dropped from the set of competing
    virtual machines and the scheduler attempts to add as many waiting virtual machines to the
    competing set as possible"). So no guest waits on the eligible list for ever while others
    keep the storage.
    """

    #: Seconds a guest keeps its place in the dispatch list while others wait on the eligible
    #: list. Assumed: CP sizes the elapsed time slice itself, by transaction class (long-running
    #: guests, class E3, get the longest); no source here gives its value for such guests, so a
    #: few seconds are taken (a guest admitted pages its working set in within them on the
    #: devices of the calibration cases). No calibration case forms an eligible list.
    elapsed_slice_s: float = 5.0


def schedule_states(world: World, m: Member, guests: list[Guest],
                    elapsed_slice_s: float = SchedulerModel.elapsed_slice_s) -> None:
    """Dormant, eligible or dispatch list, with the SRM STORBUF admission rule: when the busy
    guests' working sets do not all fit, a dispatched guest keeps its place for its elapsed
    time slice (``SchedulerModel``), then the longest waiting come first."""
    limit = m.frames * m.cfg.storbuf_pct / 100.0
    busy = [g for g in guests if g.workload.busy() and not g.stopped_by]
    sets = [min(g.workload.working_set_pages(), g.npages) for g in busy]
    if sum(sets) <= limit:  # room for every working set: all are admitted, in any order
        admitted = {g.userid for g in busy}
    else:
        # guests dispatched within their elapsed time slice keep their place; then the longest
        # waiting on the eligible list are admitted, then guests that just found work, then
        # those at the end of their slice (the longest in the list last: it is dropped first);
        # one admitted again begins a new slice
        now = world.t

        def rank(g: Guest) -> tuple[int, float, str]:
            if g.state == DISPATCH:
                if not _slice_over(g, now, elapsed_slice_s):
                    return 0, 0.0, g.userid
                return 3, -g.class_since, g.userid
            if g.state == ELIGIBLE:
                return 1, g.eligible_since or 0.0, g.userid
            return 2, 0.0, g.userid

        order = sorted(range(len(busy)), key=lambda i: rank(busy[i]))
        total = 0.0
        admitted = set()
        for i in order:
            ws = sets[i]
            if total == 0.0 or total + ws <= limit:
                admitted.add(busy[i].userid)
                total += ws
    for g in guests:
        if "stop" in g.stopped_by:
            new = STOPPED
        elif g.stopped_by:
            new = QUIESCED
        elif g.linux == "suspended":
            new = SUSPENDED
        elif not g.workload.busy():
            new = DORMANT
        elif g.userid in admitted:
            new = DISPATCH
        else:
            new = ELIGIBLE
        if new == DISPATCH and (g.state != DISPATCH
                                or _slice_over(g, world.t, elapsed_slice_s)):
            g.slice_since = world.t  # admitted, or again: a new elapsed time slice
        if new != g.state:
            old = g.state
            g.state = new
            if STATE_CLASS.get(new, 0) != STATE_CLASS.get(old, 0):
                g.class_since = world.t
            g.eligible_since = world.t if new == ELIGIBLE else None
            world.emit("STATE", m.name, g.userid, f"{g.userid} {old} -> {new}",
                      {"from": old, "to": new})

def _slice_over(g: Guest, now: float, elapsed_slice_s: float) -> bool:
    """Whether ``g``'s elapsed time slice in the dispatch list has ended by ``now``."""
    return now - g.slice_since >= elapsed_slice_s - 1e-9


def allocate_cpu(m: Member, guests: list[Guest], dt: float, cp_cpu_s: float,
                 cp_cpu_per_io_s: float = 0.0) -> dict[str, float]:
    """Share the member's CPU by SHARE (water-filling: nobody gets more than it asks).

    ``cp_cpu_s`` is CP's own work (relocation), served before any guest. A guest's demand
    includes CP's path for its virtual I/O (``cp_cpu_per_io_s`` an I/O), which runs on the
    guest's virtual CPUs and is charged to it (``Workload.cp_io_share``).
    """
    cap = max(0.0, m.cfg.cpus * dt - cp_cpu_s)
    demand = {g.userid: cpu_asked_s(g, dt, cp_cpu_per_io_s, m.cfg.cpu_speed) for g in guests}
    total = sum(demand.values())
    if total <= cap and not any(g.share_absolute for g in guests):
        # every guest gets what it asks for; a demand is the work a step brings on average,
        # and a step that brings more is served too, from the CPU nobody asked for (each
        # guest may use its part of it, by its demand, up to its virtual CPUs): an
        # uncontended guest is never held to its average
        if total <= 0.0:
            return demand
        spare = (cap - total) / total
        return {g.userid: min(max(g.cfg.vcpus * dt, demand[g.userid]),
                              demand[g.userid] * (1.0 + spare)) for g in guests}
    # a member short of CPU: a guest that used less than it was given in the last step (its
    # walk was held back by its page faults, or its work needs less than its demand allows for
    # faults) asks for what it used and a margin; the rest of its demand is served only from
    # what the others leave, so processors are not left idle while virtual CPUs wait for them
    asks = {g.userid: demand[g.userid] if g.cpu_need is None else
            min(demand[g.userid], (g.cpu_need * NEED_MARGIN + NEED_FLOOR * g.cfg.vcpus) * dt)
            for g in guests}
    alloc = {u: 0.0 for u in demand}
    for g in guests:  # ABSOLUTE shares first: a fixed part of the member
        if g.share_absolute:
            a = min(asks[g.userid], cap * g.share / 100.0)
            alloc[g.userid] = a
            cap -= a
    cap = _fill(guests, asks, alloc, max(cap, 0.0))
    if cap > 1e-12:
        _fill(guests, demand, alloc, cap)
    return alloc


def _fill(guests: list[Guest], demand: dict[str, float], alloc: dict[str, float],
          cap: float) -> float:
    """Water-fill ``cap`` over the guests by relative SHARE up to ``demand``; what is left."""
    open_ = [g for g in guests
             if not g.share_absolute and demand[g.userid] > alloc[g.userid]]
    while open_ and cap > 1e-12:
        weight = sum(g.share for g in open_)
        if weight <= 0:
            break
        done = []
        spent = 0.0
        for g in open_:
            give = cap * g.share / weight
            need = demand[g.userid] - alloc[g.userid]
            if give >= need:
                alloc[g.userid] += need
                spent += need
                done.append(g)
            else:
                alloc[g.userid] += give
                spent += give
        cap -= spent
        if not done:
            break
        open_ = [g for g in open_ if g not in done]
    return cap


def cpu_asked_s(g: Guest, dt: float, cp_cpu_per_io_s: float, speed: float = 1.0) -> float:
    """CPU seconds ``g`` would use in ``dt`` on processors of ``speed``: its workload's, and
    CP's for its virtual I/O."""
    w = g.workload
    d = w.cpu_demand_s(dt, g.cfg.vcpus, speed)
    f = w.cp_io_share(cp_cpu_per_io_s) if cp_cpu_per_io_s > 0.0 else 0.0
    return d if f <= 0.0 else min(g.cfg.vcpus * dt, d / (1.0 - f))

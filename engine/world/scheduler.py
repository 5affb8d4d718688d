"""The scheduler's lists and CPU sharing of one member: dormant, eligible or dispatch list
(with the SRM STORBUF admission rule), and the member's CPU shared out by SHARE."""

from __future__ import annotations

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


def schedule_states(world: World, m: Member, guests: list[Guest]) -> None:
    """Dormant, eligible or dispatch list, with the SRM STORBUF admission rule."""
    limit = m.frames * m.cfg.storbuf_pct / 100.0
    busy = [g for g in guests if g.workload.busy() and not g.stopped_by]
    sets = [min(g.workload.working_set_pages(), g.npages) for g in busy]
    if sum(sets) <= limit:  # room for every working set: all are admitted, in any order
        admitted = {g.userid for g in busy}
    else:
        # guests already dispatched keep their place; then the longest waiting are admitted
        order = sorted(range(len(busy)), key=lambda i: (
            busy[i].state != DISPATCH, busy[i].state != ELIGIBLE,
            busy[i].eligible_since or 0.0, busy[i].userid))
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
        if new != g.state:
            old = g.state
            g.state = new
            if STATE_CLASS.get(new, 0) != STATE_CLASS.get(old, 0):
                g.class_since = world.t
            g.eligible_since = world.t if new == ELIGIBLE else None
            world.emit("STATE", m.name, g.userid, f"{g.userid} {old} -> {new}",
                      {"from": old, "to": new})

def allocate_cpu(m: Member, guests: list[Guest], dt: float, cp_cpu_s: float,
                 cp_cpu_per_io_s: float = 0.0) -> dict[str, float]:
    """Share the member's CPU by SHARE (water-filling: nobody gets more than it asks).

    ``cp_cpu_s`` is CP's own work (relocation), served before any guest. A guest's demand
    includes CP's path for its virtual I/O (``cp_cpu_per_io_s`` an I/O), which runs on the
    guest's virtual CPUs and is charged to it (``Workload.cp_io_share``).
    """
    cap = max(0.0, m.cfg.cpus * dt - cp_cpu_s)
    demand = {g.userid: _demand(g, dt, cp_cpu_per_io_s) for g in guests}
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
    alloc = {u: 0.0 for u in demand}
    for g in guests:  # ABSOLUTE shares first: a fixed part of the member
        if g.share_absolute:
            a = min(demand[g.userid], cap * g.share / 100.0)
            alloc[g.userid] = a
            cap -= a
    open_ = [g for g in guests if not g.share_absolute and demand[g.userid] > 0]
    cap = max(cap, 0.0)
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
    return alloc


def _demand(g: Guest, dt: float, cp_cpu_per_io_s: float) -> float:
    """CPU seconds ``g`` would use in ``dt``: its workload's, and CP's for its virtual I/O."""
    w = g.workload
    d = w.cpu_demand_s(dt, g.cfg.vcpus)
    f = w.cp_io_share(cp_cpu_per_io_s) if cp_cpu_per_io_s > 0.0 else 0.0
    return d if f <= 0.0 else min(g.cfg.vcpus * dt, d / (1.0 - f))

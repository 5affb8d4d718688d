"""What a run must never do, whatever its scenario: more than its hardware can."""

from __future__ import annotations

import math

from ssisim.engine import Simulation, link_pages_per_s


def physical_bounds_broken(sim: Simulation) -> list[str]:
    """What a run did beyond what its hardware can: more pages to and from the paging devices
    than they move (every I/O carries at most a block), a relocation faster than its link, a
    member's CPUs over 100 %, a negative or endless figure. A mechanism that breaks one of
    these predicts nothing a planner can use, whatever it reproduces."""
    broken = []
    block = sim.models.paging.block_pages
    for s in sim.samples_member:
        cap = sim.members[s.member].io_capacity_s * block
        dasd = s.dasd_in_s + s.dasd_out_s
        if dasd > cap * 1.001 + 1e-9:
            broken.append(f"t={s.t_s} {s.member}: {dasd:,.0f} DASD pages/s, its devices move "
                          f"{cap:,.0f}")
        if s.cpu_pct > 100.0 + 1e-9:
            broken.append(f"t={s.t_s} {s.member}: CPU {s.cpu_pct} %")
        for name, v in zip(s._fields[2:], s[2:]):
            if not math.isfinite(v) or v < 0:
                broken.append(f"t={s.t_s} {s.member}: {name} = {v}")
    for r in sim.reloc.all:
        if r.t_end is None or r.t_end <= r.t_start:
            continue
        rate = r.pages_moved / (r.t_end - r.t_start)
        link = link_pages_per_s(r.link, sim.reloc.model)
        if rate > link * 1.001:
            broken.append(f"{r.guest.userid} relocated at {rate:,.0f} pages/s over a link of "
                          f"{link:,.0f}")
    return broken

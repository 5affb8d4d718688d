"""The workload driver: runs a guest's workload for part of a step, walking the regions its
workload plans with the touch kernel and booking the pages that came in (first touches, XSTOR
and DASD faults) and the CPU and throughput they cost.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ..kernels import pages as K
from ..migrations.pause import PauseEngine
from ..world.paging import PAGING, Pager, PagingModel
from ..world.state import Guest, Member
from ..world.world import World


class DriverWorld(World, Protocol):
    """What the driver needs besides the ``World``: the pause engine (a stopped guest's
    interrupts) and whether references to wholly resident regions may be applied lazily."""

    pause: PauseEngine
    #: apply references to wholly resident regions lazily (same distribution, far faster)
    defer_touches: bool


class WorkloadDriver:
    """Runs guests' workloads over their page bit-planes for one simulation."""

    def __init__(self, world: DriverWorld, pager: Pager, model: PagingModel = PAGING) -> None:
        self.world = world
        self.pager = pager
        self.model = model
        self.out = np.zeros(K.T_OUT_LEN, dtype=np.float64)

    def run(self, m: Member, g: Guest, dt: float, cpu_s: float, wait: float,
                   io_left: list[float]) -> None:
        plans = g.workload.plan(dt)
        speed = m.cfg.cpu_speed
        units = 0.0
        cpu_used = 0.0
        out = self.out
        pm = self.model
        assert g.planes is not None
        for i, r in enumerate(plans):
            key = (r.lo, r.hi)
            if r.log_q < 0 and self.world.defer_touches and g.settled.get(key) == g.page_gen:
                n = r.hi - r.lo
                distinct = n * -math.expm1(r.log_q)
                need = distinct * r.cpu_s_per_touch
                budget = min(cpu_s * speed, g.cfg.vcpus * dt) * r.budget_share
                f = 1.0 if need <= budget else budget / need
                pend = g.pending.get(key)
                if pend is not None and pend[1] != r.write_frac:
                    g.flush_pending()
                    pend = None
                refs = -r.log_q * n * f
                if pend is None:
                    g.pending[key] = [refs, r.write_frac]
                else:
                    pend[0] += refs
                units += distinct * f * r.units_per_touch
                cpu_used += need * f / speed
                continue
            if (r.log_q >= 0 and r.write_frac in (0.0, 1.0) and self.world.defer_touches
                    and g.settled.get(key) == g.page_gen):
                # a sequential walk over resident pages: only where it got to matters
                n = r.hi - r.lo
                budget = min(cpu_s * speed, g.cfg.vcpus * dt) * r.budget_share
                touches = min(r.max_cover, int(budget / r.cpu_s_per_touch))
                cur = g.cursor(i, r.lo)
                if not (r.lo <= cur[0] < r.hi):
                    cur[0], cur[1] = r.lo, -1
                write = 1 if r.write_frac >= 1.0 else 0
                walk = g.pending_seq.get(key)
                if walk is not None and walk[2] != write:
                    g.flush_pending()
                    walk = None
                if walk is None:
                    g.pending_seq[key] = [cur[0], touches, write]
                else:
                    walk[1] = min(walk[1] + touches, 2 * n)
                cur[0] = r.lo + (cur[0] - r.lo + touches) % n
                units += touches * r.units_per_touch
                cpu_used += touches * r.cpu_s_per_touch / speed
                continue
            if key in g.pending or key in g.pending_seq:
                g.flush_pending()
            if g.relocating:
                g.note_changes(r.lo, r.hi)
            cur = g.cursor(i, r.lo)
            if not (r.lo <= cur[0] < r.hi):
                cur[0], cur[1] = r.lo, -1
            budget_cpu = cpu_s * speed * r.budget_share
            budget_wall = g.cfg.vcpus * dt * r.budget_share
            cover = r.max_cover
            for _attempt in range(12):
                K.touch_region(
                    g.planes, r.lo, r.hi, cur[0], cur[1], r.log_q, cover, r.write_frac,
                    budget_cpu, budget_wall, r.cpu_s_per_touch, pm.new_page_s, pm.xstor_fault_s,
                    wait, pm.dasd_fault_cpu_s, m.free_frames, int(io_left[0]), g.relocating, g.rng,
                    out,
                )
                touches = int(out[K.T_TOUCHES])
                cur[0] = int(out[K.T_CURSOR])
                cur[1] = int(out[K.T_NEXT])
                faults = self.account_touches(m, g, io_left)
                units += touches * r.units_per_touch
                cpu_used += out[K.T_CPU_S] / speed
                budget_cpu -= out[K.T_CPU_S]
                budget_wall -= out[K.T_WALL_S]
                cover -= int(out[K.T_COVERED])
                stop = int(out[K.T_STOP])
                if stop in (K.STOP_DONE, K.STOP_BUDGET) and faults == 0 \
                        and g.n_cen == g.instantiated and self.world.defer_touches \
                        and g.settled.get(key) != g.page_gen \
                        and K.region_resident(g.planes, r.lo, r.hi):
                    g.settled[key] = g.page_gen
                if stop != K.STOP_FRAMES:
                    break
                if self.pager.steal(m, max(m.free_high - m.free_frames, 256), io_left) == 0:
                    break
        g.units_acc += units
        g.units_total += units
        unit = g.workload.unit
        g.units_by_unit[unit] = g.units_by_unit.get(unit, 0.0) + units
        g.cpu_s_total += cpu_used
        m.cpu_used_step += cpu_used

    def interrupts(self, m: Member, g: Guest, dt: float, wait: float,
                    io_left: list[float]) -> None:
        """A stopped guest's devices still interrupt: CP schedules it briefly for each one."""
        n = self.world.pause.interrupts(g, dt)
        if n <= 0 or g.planes is None:
            return
        g.scheduled += n
        wl = g.saved_workload if g.workload.kind == "none" and g.saved_workload else g.workload
        hi = max(1, min(g.npages, wl.working_set_pages() or 256))
        refs = float(n * self.world.pause.model.irq_pages)
        out = self.out
        pm = self.model
        K.touch_region(g.planes, 0, hi, 0, -1, -refs / hi, hi, 0.1, 1.0, 1.0, 1e-6,
                       pm.new_page_s, pm.xstor_fault_s, wait, pm.dasd_fault_cpu_s, m.free_frames,
                       int(io_left[0]), g.relocating, g.rng, out)
        self.account_touches(m, g, io_left)

    def account_touches(self, m: Member, g: Guest, io_left: list[float]) -> int:
        """Book the pages the last touch kernel brought in; returns how many it did."""
        out = self.out
        new, xin, din = int(out[K.T_NEW]), int(out[K.T_XSTOR_IN]), int(out[K.T_DASD_IN])
        g.n_cen += new + xin + din
        g.n_xst -= xin
        g.n_dsd -= din
        m.resident += new + xin + din
        m.xstor_used -= xin
        io_left[0] -= din
        for c in (g.counters, m.counters):
            c.new += new
            c.xstor_in += xin
            c.dasd_in += din
        return new + xin + din

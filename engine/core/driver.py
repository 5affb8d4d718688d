"""The workload driver: runs a guest's workload for part of a step, walking the regions its
workload plans with the touch kernel and booking the pages that came in (first touches, XSTOR
and DASD faults) and the CPU and throughput they cost. An application starting up first walks
its working set (its start-up phase) and serves only once that is done; the disk I/Os of the
work served cost CP CPU on the member.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Protocol

import numpy as np

from ..basics.workloads import VIO, RegionPlan, VirtualIOModel, Workload
from ..kernels import pages as K
from ..migrations.pause import PauseEngine
from ..world.paging import PAGING, Pager, PagingModel, io_budget, io_units
from ..world.state import Guest, Member
from ..world.world import World

#: the time over which a random walk's pace (``Guest.walk_pace``) is averaged: a way of
#: computing, so that short steps, each with few faults, measure it as a second does
PACE_S = 1.0

#: rounds in which the regions of a request workload are walked together, in parts of how
#: far they got in the last step (``WorkloadDriver._walk_together``): a way of computing;
#: where one of them stops, the others have gone at most a round's part further
TOGETHER_ROUNDS = 4

#: the most times a step's touches of one region wait for the demand scan to free frames (each
#: time it frees a piece, ``Pager.make_room``): a bound that only a runaway loop reaches
MAX_REFILLS = 10_000


def carried_gap(gap: int, drawn_log_q: float, log_q: float) -> int:
    """The pages a random walk still skips before its next reference, drawn as ``gap`` with
    the chance of a step whose ``log_q`` was ``drawn_log_q``, in a step whose ``log_q`` is
    ``log_q`` (a step of another length, or a new rate).

    The gap is memoryless: the references still to come before it ends are the same whatever
    the step, so it scales by the ratio of the two chances per page. Without this, a gap
    drawn in a sliver of a step (a relocation's pass ending just after a step began: hardly a
    reference due, so a gap of billions of pages) would hold the walk still for hours.
    """
    if log_q >= 0.0:
        return 0  # a walk that selects every page skips none
    if drawn_log_q >= 0.0 or drawn_log_q == log_q:
        return gap
    return int(min(gap * (drawn_log_q / log_q), K.MAX_GAP))


class DriverWorld(World, Protocol):
    """What the driver needs besides the ``World``: the pause engine (a stopped guest's
    interrupts) and whether references to wholly resident regions may be applied lazily."""

    pause: PauseEngine
    #: apply references to wholly resident regions lazily (same distribution, far faster)
    defer_touches: bool
    #: hold back first touches too (``_defer_random``; the walk's results within the seed
    #: spread, tests/scenarios/test_seed_spread.py)
    defer_first_touches: bool


class WorkloadDriver:
    """Runs guests' workloads over their page bit-planes for one simulation."""

    def __init__(self, world: DriverWorld, pager: Pager, model: PagingModel = PAGING,
                 vio: VirtualIOModel = VIO) -> None:
        self.world = world
        self.pager = pager
        self.model = model
        self.vio = vio
        self.out = np.zeros(K.T_OUT_LEN, dtype=np.float64)
        # per guest: the application and the walk state the driver last ran (to tell a new
        # start of the application from new parameters for the running one)
        self._seen: dict[str, tuple[Workload, list[list[int]]]] = {}

    def run(self, m: Member, g: Guest, dt: float, cpu_s: float, wait: float,
            io_left: list[float]) -> None:
        """Run ``g``'s workload for ``dt`` seconds with ``cpu_s`` of the member's CPU."""
        w = self._application(g)
        if w.starting:
            # (its start-up walks its heap with all of its virtual CPUs)
            g.faulters = g.cfg.vcpus
            dt, cpu_s = self._start_up(m, g, w, dt, cpu_s, wait, io_left)
            if dt <= 1e-9:
                return
        # of the guest's CPU, CP's path for the I/O the work brings takes its part (booked
        # below from the I/Os done)
        cpu_s *= 1.0 - w.cp_io_share(self.vio.cp_cpu_per_io_s)
        plans = w.plan(dt)
        g.faulters = min(g.cfg.vcpus, sum(r.threads for r in plans)) \
            if plans and all(r.threads for r in plans) else g.cfg.vcpus
        speed = m.cfg.cpu_speed
        units = 0.0
        cpu_used = 0.0
        assert g.planes is not None
        defer = self.world.defer_touches
        # what the virtual CPUs can do in the step (work: CPU seconds at speed 1): each region
        # gets its share of it
        budget = min(cpu_s, g.cfg.vcpus * dt) * speed
        fast = g.steady.get(dt)
        if fast is not None and defer and fast[0] is plans and fast[1] == g.page_gen \
                and fast[2] == g.pending_gen and fast[3] is m and budget >= fast[4]:
            # as the step that made it: every region wholly resident, its references held
            # back whole (more CPU cannot change that), the same plan, nothing applied since
            t = self.world.t
            for pend, refs in fast[5]:
                pend[0] += refs
                pend[6] = t
            plans = []
            units, cpu_used = fast[6], fast[7]
        # the step's held-back references, while every region's are whole ones (None: not)
        steady: list[tuple[list[float], float]] | None = [] if plans and defer else None
        walks: list[_Walk] = []
        alone = plans
        if len(plans) > 1 and plans[0].together \
                and not all(self._may_defer(m, g, r) for r in plans):
            # the parts of its requests: walked together, or not at all
            units, cpu_used = self._walk_together(m, g, plans, dt, cpu_s, wait, io_left)
            steady = None
            alone = []
        for i, r in enumerate(alone):
            key = r.key
            if r.log_q < 0 and defer:
                done = self._defer_random(m, g, r, budget)
                if done is not None:
                    g.walk_pace.pop(key, None)  # (nothing is out: the plan's pace)
                    units += done[0]
                    cpu_used += done[1]
                    if steady is not None:
                        if done[2] is None:
                            steady = None
                        else:
                            steady.append(done[2])
                    continue
            steady = None
            if (r.log_q >= 0 and r.write_frac in (0.0, 1.0) and defer
                    and g.settled.get(key) == g.page_gen):
                # a sequential walk over resident pages: only where it got to matters
                n = r.n
                touches = min(r.max_cover, int(r.work(budget, dt, speed) / r.cpu_s_per_touch))
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
                # (the slices it walks over are touched now, as the walk would stamp them)
                g.stamp_touched(r.lo, r.hi, cur[0], touches, self.world.t)
                cur[0] = r.lo + (cur[0] - r.lo + touches) % n
                units += touches * r.units_per_touch
                cpu_used += touches * r.cpu_s_per_touch / speed
                continue
            if key in g.pending or key in g.pending_seq:
                g.flush_pending()
            # the regions' walks run one after another here but at the same time in the guest
            # (a toucher per virtual CPU): each may use of the guest's paging I/O its share of
            # what is left, as the guests do of the member's (what it leaves goes to those
            # after), and of the free frames its share of what is left (``_Walk``)
            rest = sum(p.budget_share for p in plans)
            for p in plans[:i]:
                rest -= p.budget_share
            share = min(1.0, r.budget_share / rest) if rest > 0 else 1.0
            run = _Walk(self, m, g, i, r, dt, cpu_s, wait, [io_left[0] * share])
            io_left[0] -= run.given
            run.go(quota=int(m.free_frames * share) if share < 1.0 else None)
            walks.append(run)
            if not run.held:
                io_left[0] += run.end()
        for run in walks:
            if run.held:
                # (then the walks that stopped at their share of the free frames go on, each
                # with the demand scan freeing frames for it as it needs them)
                run.go(quota=None)
                io_left[0] += run.end()
            units += run.units
            cpu_used += run.cpu_used
        if plans:
            if steady is None:
                g.steady.pop(dt, None)
            else:
                if len(g.steady) >= 4:  # a member's steps come in a few lengths
                    g.steady.clear()
                g.steady[dt] = (plans, g.page_gen, g.pending_gen, m, budget, tuple(steady),
                                units, cpu_used)
        g.units_acc += units
        g.units_total += units
        unit = w.unit
        g.units_by_unit[unit] = g.units_by_unit.get(unit, 0.0) + units
        g.cpu_s_total += cpu_used
        m.cpu_used_step += cpu_used
        ios = units * w.ios_per_unit()
        if ios > 0:
            # CP's path for each virtual I/O: work CP does for the guest, on the member's CPUs
            cp_s = ios * self.vio.cp_cpu_per_io_s / speed
            g.ios_total += ios
            g.cpu_s_total += cp_s
            m.ios_total += ios
            m.vio_cpu_step += cp_s

    @staticmethod
    def _paced(g: Guest, r: RegionPlan, dt: float) -> RegionPlan:
        """The lap a random region's walk makes in ``dt``: the plan's, or, while the guest
        could select fewer pages than that (``Guest.walk_pace``, pages a second), a lap with
        the chance per page that selects as many. Its references and their CPU stay as dear
        each: a page selected in a sparser lap stands for fewer references (in a dense one,
        several references of the step fall on one page)."""
        if r.log_q >= 0:
            return r
        pace = g.walk_pace.get(r.key)
        if pace is None or pace * dt >= r.distinct:
            return r
        log_q = math.log1p(-min(1.0 - 1e-12, max(1.0, pace * dt) / r.n))
        paced = dataclasses.replace(r, log_q=log_q)
        k = (paced.refs / paced.distinct) / (r.refs / r.distinct)
        return dataclasses.replace(paced, cpu_s_per_touch=r.cpu_s_per_touch * k,
                                   units_per_touch=r.units_per_touch * k)

    @staticmethod
    def _note_pace(g: Guest, r: RegionPlan, dt: float, walked: int, lap_done: bool,
                   used: float) -> None:
        """What a random region's walk of ``dt`` shows of the pages a second the guest can
        reference: those it walked, or, when its lap ended with budget left (``used``, the
        share of the budget spent), as many more as the rest of the budget would have done."""
        if dt <= 0:
            return
        can = (walked / max(used, 0.01) if lap_done and used < 1.0 else float(walked)) / dt
        pace = g.walk_pace.get(r.key)
        if pace is not None:
            # (averaged over ``PACE_S``: a short step's count of faults is a noisy measure)
            can = pace + (can - pace) * min(1.0, dt / PACE_S)
        if can * dt >= r.distinct:
            g.walk_pace.pop(r.key, None)  # the plan is within reach
        else:
            g.walk_pace[r.key] = can

    def _may_defer(self, m: Member, g: Guest, r: RegionPlan) -> bool:
        """Whether ``_defer_random`` may hold back the step's references to ``r`` (whether
        its walk would fault or take frames the demand scan must free)."""
        if r.log_q >= 0 or not self.world.defer_touches:
            return False
        pend = g.pending.get(r.key)
        if pend is not None:
            return pend[1] == r.write_frac
        return g.settled.get(r.key) == g.page_gen or self._first_touches_held(m, g)

    def _first_touches_held(self, m: Member, g: Guest) -> bool:
        """Whether first touches may be held back: nothing of the guest is out and the member
        pages nothing and has room (``_defer_random``)."""
        return self.world.defer_first_touches and not (
            g.n_xst or g.n_dsd or m.xstor_used or m.slots_used or not m.roomy)

    def _walk_together(self, m: Member, g: Guest, plans: list[RegionPlan], dt: float,
                       cpu_s: float, wait: float, io_left: list[float]) -> tuple[float, float]:
        """Walk the regions of a request workload together: ``(units, CPU seconds)``.

        Every request references pages of each region (the hot part of its working set and
        the rest), so a request served costs the time of its references to each, faults
        included: the walks share the guest's CPU, its virtual CPUs' time and its paging I/O,
        and go on in rounds, each a part of every region's lap, until one of them cannot go
        on (its faults used the time up, or the paging I/O); then none does. (Walked each with
        its own share of the time, the hot part served its share of the requests at memory
        speed while the rest waited on its faults: a database with half its references to its
        hot tenth kept 251 of 500 transactions a second on one volume of 200 I/Os a second,
        where the faults each transaction makes allow about 3.)
        """
        if any(r.key in g.pending or r.key in g.pending_seq for r in plans):
            g.flush_pending()
        speed = m.cfg.cpu_speed
        pool = [cpu_s * speed, g.cfg.vcpus * dt * speed]
        part = [io_left[0]]
        walks = [_Walk(self, m, g, i, r, dt, cpu_s, wait, part, pool)
                 for i, r in enumerate(plans)]
        # the region that held the others back last step goes first in each round, and the
        # others go no further than it got (its faults are then the requests' time); the
        # rounds are parts of how far they got last step, so that each gets its part of the
        # paging I/O as the step goes (doubling once past it, where they can go further now)
        lead = g.walks_lead if g.walks_lead < len(walks) else 0
        order = [lead] + [i for i in range(len(walks)) if i != lead]
        stop = K.STOP_DONE
        # (one round where they went the whole lap last step without a fault: nothing holds
        # either back now unless that changed, and where one stops it leads from then on)
        step = 1.0 if g.walks_reach >= 1.0 and g.walks_quiet \
            else max(g.walks_reach, 1.0 / 1024) / TOGETHER_ROUNDS
        c = g.counters
        faults0 = c.new + c.xstor_in + c.dasd_in
        target = reach = 0.0
        while target < 1.0 and stop == K.STOP_DONE:
            target = min(1.0, target + step)
            if target > g.walks_reach:
                step *= 2.0
            reach = target
            for i in order:
                run, r = walks[i], plans[i]
                upto = int(r.max_cover * reach) - (r.max_cover - run.cover)
                if upto > 0:
                    run.go(quota=None, upto=upto)
                reach = min(reach, 1.0 - run.cover / r.max_cover)
                if run.stop != K.STOP_DONE and stop == K.STOP_DONE:
                    stop = run.stop
                    g.walks_lead = i
        g.walks_reach = reach
        g.walks_quiet = stop == K.STOP_DONE and c.new + c.xstor_in + c.dasd_in == faults0
        for run in walks:
            run.stop = stop
            run.end()
        io_left[0] -= walks[0].given - part[0]
        return sum(run.units for run in walks), sum(run.cpu_used for run in walks)

    def _defer_random(self, m: Member, g: Guest, r: RegionPlan, budget: float
                      ) -> tuple[float, float, tuple[list[float], float] | None] | None:
        """Hold back a step's random references to a region whose outcome they cannot change
        yet: ``(units, cpu seconds, held)``, or None when the references must be walked now.
        ``held`` is ``(the region's list in Guest.pending, references added)`` when the region
        is wholly resident and the step's references all fit in the budget (a step with more
        budget would do the same), else None.

        Nothing of the guest is in XSTOR or on DASD (so every page the workload references is
        resident or never touched), the member pages nothing, has frames for every guest's working
        set (``Member.roomy``) and keeps more free frames than the demand scan ever refills to
        (``free_high_max``) after the pages touched for the first time: then which pages the
        references hit matters only when someone looks at the bit-planes (the demand scan, a
        relocation's pass), and ``Guest.flush_pending`` applies them then. How many pages the step's
        lap selects, and how many of them are new to the guest, are drawn now (binomial draws, the
        lap cut short by the virtual CPUs' budget as the walk's would be), so frames, counts,
        throughput and the CPU of first touches are booked in the step they happen; where the new
        pages are is drawn uniformly among the untouched ones when they are placed. Every page is
        hit with the same chance as in the walk, so the outcome is the same in distribution. A
        wholly resident region takes the step's expected references.
        """
        key = r.key
        pend = g.pending.get(key)
        if pend is not None and pend[1] != r.write_frac:
            g.flush_pending()
            pend = None
        if pend is not None:
            untouched = int(pend[3])
        elif g.settled.get(key) == g.page_gen:
            untouched = 0
        else:
            if not self._first_touches_held(m, g):
                return None  # pages are out, or may have to go: which ones matters
            assert g.planes is not None
            untouched = K.count_untouched(g.planes, r.lo, r.hi)
            if untouched == 0:  # wholly instantiated, and nothing is out: wholly resident
                g.settled[key] = g.page_gen
        budget *= r.budget_share  # (``budget``: the virtual CPUs' CPU seconds of the step)
        new = 0
        if untouched == 0:
            # a wholly resident region: the step's expected references
            need = r.touch_s
            f = 1.0 if need <= budget else budget / need
            touched = r.distinct * f
        else:
            # as the walk does: a lap selects each page with the region's chance; the virtual
            # CPUs' budget may end the lap early, and the pages new to the guest cost more
            rng, hit = g.rng, r.hit
            new = K.binomial(rng, untouched, hit)
            touched = new + K.binomial(rng, r.n - untouched, hit)
            need = touched * r.cpu_s_per_touch + new * self.model.new_page_s
            f = 1.0 if need <= budget else budget / need
            if f < 1.0:
                new = K.binomial(rng, new, f)
            touched *= f
            if m.free_frames - new < m.free_high_max:
                return None  # the demand scan may run: the walk decides where it does
            g.n_cen += new
            m.resident += new
            g.counters.new += new
            m.counters.new += new
        refs = r.refs * f
        if pend is None:
            pend = g.pending[key] = [refs, r.write_frac, new, untouched - new, 0, -1,
                                     self.world.t]
        else:
            pend[0] += refs
            pend[6] = self.world.t
            if new:
                pend[2] += new
                pend[3] -= new
        if new:
            # the page management blocks the first touches need, as many as they would build
            # placed at random among the untouched pages: each megabyte without one (all its
            # pages untouched) gets one if any of its pages is drawn (the megabytes without
            # one do not change until the pages are placed)
            if pend[5] < 0:
                pend[5] = int(np.count_nonzero(g.seg_map[r.lo >> 8:(r.hi + 255) >> 8] == 0))
            u0 = pend[2] + pend[3]
            guess = round(pend[5] * (1.0 - (1.0 - pend[2] / u0) ** 256)) if u0 > 0 else 0
            g.guess_segments(guess - int(pend[4]))
            pend[4] = guess
        held = (pend, refs) if untouched == 0 and f == 1.0 else None
        return touched * r.units_per_touch, need * f / m.cfg.cpu_speed, held

    def prepare(self, g: Guest) -> None:
        """Set ``g``'s application for this step before the member's CPU is shared out: one
        that starts up now asks for its start-up's CPU, not its serving's (set as it ran, an
        application that started when Linux had booted got the CPU its serving asks for in its
        first step, a tenth of a processor beside two busy guests). What the guest used in its
        last step (``Guest.cpu_need``: Linux booting) says nothing of what its start-up needs."""
        w = g.workload
        seen = self._seen.get(g.userid)
        if seen is None or seen[0] is not w or w.session != g.logons:
            w = self._application(g)  # (else the application it ran, in the same logon)
        if w.starting and w.startup_t0 is None:
            g.cpu_need = None

    def _application(self, g: Guest) -> Workload:
        """``g``'s workload, with its application's start-up phase set for what happened since
        the driver last ran the guest.

        The application is what the guest runs for its users (``PauseEngine.own_workload``:
        while Linux boots, suspends or resumes, the workload it will run again). It starts
        afresh in every new logon, where Linux booted (an application that ran in an earlier
        one starts up again), except that a guest resumed from its hibernation image goes on
        with the application the image holds. A workload replaced while the walks were kept
        (``WORKLOAD SET``: new parameters for the running application) keeps the start-up where
        it stood; a new one (``WORKLOAD START``) starts as it was made.
        """
        app = self.world.pause.own_workload(g)
        fresh = app.session is None
        if app.session != g.logons:
            if not fresh and g.linux != "resuming":
                app.restart()
            app.session = g.logons
        seen = self._seen.get(g.userid)
        if seen is not None:
            prev, cursors = seen
            if fresh and app is not prev and g.workload is app and g.cursors is cursors \
                    and app.kind == prev.kind:
                app.carry_startup(prev)
        self._seen[g.userid] = (app, g.cursors)
        return g.workload

    def _start_up(self, m: Member, g: Guest, w: Workload, dt: float, cpu_s: float, wait: float,
                  io_left: list[float]) -> tuple[float, float]:
        """Run the application's start-up for up to ``dt``: a walk over its working set, as
        fast as its CPU share, its virtual CPUs, free frames and paging allow.

        Returns the time and CPU left for serving in this part of the step (none until the
        start-up is done).
        """
        assert g.planes is not None
        t0 = self.world.t + g.ran_s
        if w.startup_t0 is None:
            w.startup_t0 = t0
        if g.pending or g.pending_seq:
            g.flush_pending()
        r = w.startup_plan()
        if g.relocating:
            g.note_changes(r.lo, r.hi)
        speed = m.cfg.cpu_speed
        out = self.out
        pm = self.model
        block = pm.block_pages
        cpu0 = cpu_s * speed
        wall0 = g.cfg.vcpus * dt * speed  # (in work, as the kernel counts: ``run``)
        budget_cpu, budget_wall = cpu0, wall0
        left = w.startup_left
        start = w.startup_pos
        for _refill in range(MAX_REFILLS):
            K.touch_region(
                g.planes, r.lo, r.hi, w.startup_pos, -1, 0.0, left, 1.0, budget_cpu, budget_wall,
                r.cpu_s_per_touch, pm.new_page_s, pm.xstor_fault_s, wait * speed,
                pm.dasd_fault_cpu_s, m.free_frames, io_budget(m, io_left[0], block),
                g.relocating, g.rng, out,
                block, g.seg_map, m.seg_reserve,
            )
            w.startup_pos = int(out[K.T_CURSOR])
            self.account_touches(m, g, io_left)
            budget_cpu -= out[K.T_CPU_S]
            budget_wall -= out[K.T_WALL_S]
            left -= int(out[K.T_COVERED])
            if left <= 0 or int(out[K.T_STOP]) != K.STOP_FRAMES:
                break
            m.note_short(t0)
            if self.pager.make_room(m, io_left, dt) == 0:
                self._waits_for_writes(g, io_left)
                break
        g.stamp_touched(r.lo, r.hi, start, w.startup_left - max(0, left), self.world.t)
        w.startup_left = max(0, left)
        used = (cpu0 - budget_cpu) / speed
        g.cpu_s_total += used
        m.cpu_used_step += used
        if w.starting:
            return 0.0, 0.0
        # done within this part: the rest of it serves
        frac = max((cpu0 - budget_cpu) / cpu0 if cpu0 > 0 else 1.0, (wall0 - budget_wall) / wall0)
        frac = min(1.0, max(0.0, frac))
        took = t0 + frac * dt - w.startup_t0
        g.reset_cursors()
        self._seen[g.userid] = (w, g.cursors)
        self.world.emit("WORKLOAD", m.name, g.userid,
                        f"{g.userid}: application initialised in {took:.1f} s; serving",
                        {"startup_s": round(float(took), 6)}, at=float(t0 + frac * dt))
        return dt * (1.0 - frac), max(0.0, cpu_s - used)

    def interrupts(self, m: Member, g: Guest, dt: float, wait: float,
                    io_left: list[float]) -> None:
        """A stopped guest's devices still interrupt: CP schedules it briefly for each one."""
        n = self.world.pause.interrupts(g, dt)
        if n <= 0 or g.planes is None:
            return
        g.scheduled += n
        # it was on the dispatch list for them and dropped to dormant again: it has been
        # dormant since the last one, not since it stopped (the demand scan, which takes
        # the pages of the guest dormant longest first, comes to it after a guest that has
        # not run at all since, such as one Linux suspended)
        g.class_since = self.world.t + dt
        if g.pending:
            g.flush_pending()  # untouched pages held back must be placed before more are touched
        wl = g.saved_workload if g.workload.kind == "none" and g.saved_workload else g.workload
        hi = max(1, min(g.npages, wl.working_set_pages() or 256))
        pause = self.world.pause.model
        refs = float(n * pause.irq_pages)
        out = self.out
        pm = self.model
        block = pm.block_pages
        K.touch_region(g.planes, 0, hi, 0, -1, -refs / hi, hi, pause.irq_write_share, 1.0, 1.0,
                       pause.irq_touch_cpu_s,
                       pm.new_page_s, pm.xstor_fault_s, wait, pm.dasd_fault_cpu_s, m.free_frames,
                       io_budget(m, io_left[0], block), g.relocating, g.rng, out, block,
                       g.seg_map, m.seg_reserve)
        self.account_touches(m, g, io_left)

    @staticmethod
    def _waits_for_writes(g: Guest, io_left: list[float]) -> None:
        """``g`` stopped for frames that the demand scan could not free: when that is for
        want of paging I/O (the frames wait for writes in the devices' queue), its virtual CPUs
        wait on the paging devices as a fault's do."""
        if io_left[0] < 1.0:
            g.io_short = True

    def account_touches(self, m: Member, g: Guest, io_left: list[float]) -> int:
        """Book the pages the last touch kernel brought in; returns how many it did."""
        out = self.out
        if int(out[K.T_STOP]) == K.STOP_DASD:
            g.io_short = True  # reads left waiting: the step's paging I/O is used up
        new, xin, din = int(out[K.T_NEW]), int(out[K.T_XSTOR_IN]), int(out[K.T_DASD_IN])
        g.n_cen += new + xin + din
        g.n_xst -= xin
        g.n_dsd -= din
        m.resident += new + xin + din
        m.xstor_used -= xin
        io_left[0] -= io_units(m, int(out[K.T_DASD_IOS]), din)
        for c in (g.counters, m.counters):
            c.new += new
            c.xstor_in += xin
            c.dasd_in += din
        if new + xin + din:
            g.residency_changed(int(out[K.T_IN_LO]), int(out[K.T_IN_HI]))
        g.add_segments(int(out[K.T_NEW_SEGS]))  # (marked by the walk, frames taken)
        return new + xin + din


class _Walk:
    """One region's walk of a step with the touch kernel, which can stop at a share of the
    member's free frames and go on later in the step (``go``).

    The walks of a guest's regions run one after another here but at the same time in the
    guest: where the free frames run out during a step, the first in the list would take them
    all. Each walk first goes as far as its share of the free frames (what its part of the
    step's paging I/O is of what is left) takes it; the walks that stopped there then go on
    with the demand scan freeing frames for them. (Walked whole one after another, the first
    22 of 50 sequential touchers of a guest twice central storage's tenth filled their whole
    slices in the step the frames ran out at 1 s steps, and kept them resident while the rest
    faulted: 86 million pages a second, against half a million at steps of 0.5 and 2 s.)
    """

    def __init__(self, driver: WorkloadDriver, m: Member, g: Guest, i: int, r: RegionPlan,
                 dt: float, cpu_s: float, wait: float, part: list[float],
                 pool: list[float] | None = None) -> None:
        self.driver, self.m, self.g, self.r, self.dt, self.wait = driver, m, g, r, dt, wait
        if g.relocating:
            g.note_changes(r.lo, r.hi)
        # a random workload references its whole region all the time: when its faults
        # (or its CPU) let it do fewer references than planned, the step's lap selects
        # fewer pages across the whole region, not the planned pages of a part of it (a
        # walk cut short covers a stretch of addresses, and how many of its pages are out
        # then hangs on where the demand scan last took pages, not on the share out)
        self.rp = rp = driver._paced(g, r, dt)
        self.cur = cur = g.cursor(i, r.lo)
        if not (r.lo <= cur[0] < r.hi):
            cur[0], cur[1] = r.lo, -1
        elif cur[1] > 0:
            cur[1] = carried_gap(cur[1], g.gap_log_q.get(i, rp.log_q), rp.log_q)
        g.gap_log_q[i] = rp.log_q
        speed = m.cfg.cpu_speed
        #: what is left of its budget of CPU and of the virtual CPUs' time (in work: the
        #: kernels count the virtual CPUs' time, and the faults' waits, at the processors'
        #: speed; a walk of one thread waits for one fault at a time), shared with the walks
        #: of the other parts of the same requests (``pool``), and what it was
        self.pool = pool if pool is not None else [
            r.work(cpu_s * speed, dt, speed), r.work(g.cfg.vcpus * dt * speed, dt, speed)]
        self.pool0 = (self.pool[0], self.pool[1])
        self.cover = r.max_cover
        self.walked = 0
        self.part = part
        self.given = part[0]
        self.start = cur[0]
        self.stop = K.STOP_DONE
        self.held = False
        self.units = 0.0
        self.cpu_used = 0.0

    def go(self, quota: int | None, upto: int | None = None) -> None:
        """Walk until the step's budget, cover or paging I/O ends it, or, with ``quota``,
        until it has taken that many of the free frames (``held``: it goes on later); with
        ``upto``, no further than that many pages of its cover."""
        d, m, g, r, rp, cur, part = (self.driver, self.m, self.g, self.r, self.rp, self.cur,
                                     self.part)
        pm = d.model
        out = d.out
        speed = m.cfg.cpu_speed
        block = pm.block_pages
        planes = g.planes
        assert planes is not None
        left = quota
        self.held = False
        pool = self.pool
        cap = self.cover if upto is None else min(self.cover, upto)
        for _refill in range(MAX_REFILLS):
            member_free = m.free_frames
            avail = member_free if left is None else max(0, min(member_free, left))
            K.touch_region(
                planes, r.lo, r.hi, cur[0], cur[1], rp.log_q, cap, r.write_frac,
                pool[0], pool[1], rp.cpu_s_per_touch, pm.new_page_s,
                pm.xstor_fault_s, self.wait * speed, pm.dasd_fault_cpu_s, avail,
                io_budget(m, part[0], block),
                g.relocating, g.rng, out, block, g.seg_map, m.seg_reserve,
            )
            touches = int(out[K.T_TOUCHES])
            self.walked += touches
            cur[0] = int(out[K.T_CURSOR])
            cur[1] = int(out[K.T_NEXT])
            faults = d.account_touches(m, g, part)
            if left is not None:
                left -= member_free - m.free_frames
            self.units += touches * rp.units_per_touch
            self.cpu_used += out[K.T_CPU_S] / speed
            pool[0] -= out[K.T_CPU_S]
            pool[1] -= out[K.T_WALL_S]
            self.cover -= int(out[K.T_COVERED])
            cap -= int(out[K.T_COVERED])
            self.stop = stop = int(out[K.T_STOP])
            if stop in (K.STOP_DONE, K.STOP_BUDGET) and faults == 0 \
                    and g.n_cen == g.instantiated and d.world.defer_touches \
                    and g.settled.get(r.key) != g.page_gen \
                    and K.region_resident(planes, r.lo, r.hi):
                g.settled[r.key] = g.page_gen
            if stop != K.STOP_FRAMES:
                break
            if avail < member_free:
                self.held = True  # (its share is taken; frames are left for the others)
                break
            m.note_short(d.world.t + g.ran_s)
            freed = d.pager.make_room(m, part, self.dt, self.given)
            if freed == 0:
                d._waits_for_writes(g, part)
                break
            if left is not None:
                left += freed  # (the frames its own writes freed are its own)

    def end(self) -> float:
        """Stamp the slices the walk touched and note a random walk's pace; returns the paging
        I/O it left."""
        g, r = self.g, self.r
        # (random references spread over the whole region: all of it is in use, in a step
        # its walk waited too; a walk that waits for the page it is at references it now)
        g.stamp_touched(r.lo, r.hi, self.start, max(1, self.walked) if r.log_q >= 0 else r.n,
                        self.driver.world.t)
        if r.log_q < 0 and self.stop in (K.STOP_DONE, K.STOP_BUDGET):
            # (a walk the step's paging I/O or frames ended says what was left for it,
            # not what the guest can do: its pace stands)
            (b0, w0), (b, w) = self.pool0, self.pool
            self.driver._note_pace(
                g, r, self.dt, self.walked, self.cover <= 0,
                max(1.0 - b / b0 if b0 > 0 else 1.0, 1.0 - w / w0 if w0 > 0 else 1.0))
        return self.part[0]

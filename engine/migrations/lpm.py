"""PowerVM Live Partition Mobility at page level: a running partition's memory copied through
mover service partitions (MSPs), pre-copy passes, a short suspension and the switch.

A partition here is a guest of the scenario whose member stands for a Power server; the
member's ``msps``, ``msp_gbps`` and ``firmware`` describe its MSPs. LPM copies every page of the
partition's memory (the hypervisor does not know which pages the OS never used), so the state
is two move bitmaps of one bit per page (``kernels.moves``): pending in this pass, and changed
since copied. A 64 TB partition (16 Gi pages) needs 2 GiB per bitmap. All parameters are in
``LPMModel`` with how each was derived.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from ..basics.units import PAGES_PER_GB
from ..basics.workloads import RegionPlan
from ..kernels import moves as M
from ..world.state import Guest, Member
from ..world.world import World
from .migration import (
    Migration,
    MoveEngine,
    MovePass,
    command_lead,
    command_start,
    round_chunk,
    round_used,
    spend,
)


@dataclass(frozen=True)
class LPMModel:
    """Parameters of the LPM model and their derivation.

    Reference (IBM PowerVM blog, "LPM Improvements in PowerVM 3.1.2", 2021): two E980 servers,
    2 MSPs per side each with its own 100 Gb link, idle partitions of 49 GB, 399 GB, 1600 GB
    and 64 TB moved with older firmware's default threads, older firmware with 4 threads per
    MSP, and newer firmware choosing threads itself. The four rows and three columns were fitted
    together (least largest relative error); the fit lands every figure within 9 %.
    """

    #: Validation of the partition on both servers, creating it on the destination, setting up
    #: the MSP connections: the fixed part of every migration. The published times have an
    #: intercept of about 71 s (49 GB at 4 threads: 72 s, nearly all fixed), of which
    #: ``switch_s`` is the suspension at the end.
    setup_s: float = 69.0
    #: Suspension on the source and resumption on the destination after the last pass
    #: (assumed: the published measurements give the total only).
    switch_s: float = 2.0
    #: Starting dirty-page tracking: the hypervisor marks every page of the partition before
    #: the first pass. Grows with the size: 0.0007 s per GiB, 46 s for 64 TB (what the 64 TB
    #: rows leave after the copy at their thread counts).
    track_s_per_gib: float = 0.0007
    #: What one MSP moves per second: a base stream plus each copy thread. The 64 TB rows at 4
    #: and at 8 threads per MSP differ by 4 threads' worth (2812 s for 64 TB): 1.3 GiB/s per
    #: thread; the older firmware's default (one thread) then needs a base of 0.6 GiB/s.
    msp_base_gib_s: float = 0.6
    thread_gib_s: float = 1.3
    #: Share of an MSP link's bit rate that carries memory (framing, acknowledgements).
    link_efficiency: float = 0.97
    #: Newer firmware picks threads per MSP from the partition's size: one per this much of the
    #: MSP's share of memory, at least ``auto_min_threads``, at most ``max_threads_newer``.
    #: 1600 GB then gets 6 (its 158 s needs 5 to 7), 64 TB gets 8, 49 and 399 GB get 4 (equal
    #: to the 4-thread column, as published).
    auto_gib_per_thread: float = 150.0
    auto_min_threads: int = 4
    max_threads_newer: int = 8
    max_threads_older: int = 4
    #: Older firmware's default: one copy thread per MSP (the default column needs 1.9 GiB/s
    #: per MSP: the base plus one thread).
    default_threads_older: int = 1
    #: Compression (hardware accelerators, no cost to the copy threads): pages the workload
    #: does not use compress this well (idle memory: zeroed or cold), pages it uses less
    #: (assumed: ratios typical of memory compression on idle and busy data).
    idle_compress_ratio: float = 4.0
    active_compress_ratio: float = 1.6
    #: Suspend when the changed pages could be sent in this long.
    suspend_threshold_s: float = 1.0
    #: A pass makes progress when its changed set is this much smaller than the smallest
    #: before; after ``no_progress_passes`` without progress, or ``max_passes``, LPM suspends
    #: the partition anyway. The hypervisor resumes it on the destination before the last
    #: changed pages are there and sends them after, fetching on demand a page the partition
    #: touches before it came (IBM Redbook SG24-7460, "IBM PowerVM Live Partition Mobility",
    #: performance considerations): the suspension is ``switch_s`` whatever is left to send.
    progress_fraction: float = 0.05
    no_progress_passes: int = 3
    max_passes: int = 12
    #: A page the partition touches on the destination before it arrived is fetched on
    #: demand: the touching virtual processor waits for a request to the source's MSP and the
    #: page's return (assumed, no source gives it: a TCP request and reply through two VIOS
    #: partitions and the hypervisor, about 0.2 ms; 10 Gb carries a page in 3.3 us, so the
    #: round trip, not the link, sets it). A partition that touches many pages still on the
    #: source runs at a crawl until the background copy has sent them.
    fetch_s: float = 0.0002


MODEL = LPMModel()


@dataclass
class LPMOptions:
    """LPM options: copy threads per MSP (None: automatic or the firmware's default) and
    compression."""

    threads: int | None = None
    auto: bool = False
    compress: bool = False

    def describe(self) -> str:
        """The options as they would be typed."""
        parts = ["THREADS " + ("AUTO" if self.auto else str(self.threads))
                 if self.auto or self.threads else "THREADS DEFAULT"]
        if self.compress:
            parts.append("COMPRESS")
        return " ".join(parts)


def firmware_of(src: Member, dst: Member) -> str:
    """The firmware level both servers support: "older" when either side is older."""
    return "older" if "older" in (src.cfg.firmware, dst.cfg.firmware) else "newer"


def threads_per_msp(npages: int, msps: int, firmware: str, options: LPMOptions,
                    model: LPMModel = MODEL) -> int:
    """Copy threads each MSP runs: the user's number, automatic, or the firmware's default."""
    if options.threads:
        return options.threads
    if firmware == "older":
        return model.default_threads_older
    share_gib = npages / PAGES_PER_GB / max(1, msps)
    want = math.ceil(share_gib / model.auto_gib_per_thread)
    return max(model.auto_min_threads, min(model.max_threads_newer, want))


def msp_pages_per_s(threads: int, link_gbps: float, ratio: float = 1.0,
                    model: LPMModel = MODEL, sharers: int = 1) -> float:
    """Pages of partition memory one MSP moves per second for one migration: its copy
    threads or its part of the link (shared with the ``sharers`` migrations through the same
    MSPs, each with threads of its own), whichever is slower; compression (``ratio`` > 1) lets
    the link carry more memory."""
    thread_bound = (model.msp_base_gib_s + threads * model.thread_gib_s) * PAGES_PER_GB
    link_bound = link_gbps * 1e9 * model.link_efficiency / 8 / 4096 * ratio / max(1, sharers)
    return min(thread_bound, link_bound)


@dataclass(eq=False)
class LPMove(Migration):
    """One Live Partition Mobility operation."""

    npages: int = 0
    msps: int = 1
    threads: int = 1
    link_gbps: float = 10.0
    compress: bool = False
    pending: np.ndarray | None = None
    dirty: np.ndarray | None = None
    rng: np.ndarray | None = None
    cursor: int = 0
    end_word: int = 0
    dirty_lo: int = 1 << 62
    dirty_hi: int = 0
    seq_cursors: dict[int, int] = field(default_factory=dict)
    write_acc: dict[int, float] = field(default_factory=dict)
    dirty_best: float = math.inf
    no_progress: int = 0
    switch_left_s: float = 0.0
    post_left: int = 0  # pages the post-copy has still to send or fetch
    wire_pages: float = 0.0  # pages' worth of bytes on the links, after compression
    #: frames the destination holds for the partition's memory until the move ends
    #: (``Member.lpm_frames``)
    reserved: int = 0


class LPMEngine(MoveEngine[LPMove]):
    """Runs the active LPM operations of a simulation, a step at a time."""

    STOP_REASON = "lpm"

    def __init__(self, sim: World, model: LPMModel = MODEL) -> None:
        super().__init__()
        self.sim = sim
        self.model = model
        self._w = np.zeros(M.W_OUT_LEN, dtype=np.int64)
        self._c = np.zeros(M.C_OUT_LEN)
        self._noprev = np.zeros(1, dtype=np.uint64)  # heat is not used: a placeholder plane

    def start(self, guest: Guest, dest: str, options: LPMOptions) -> LPMove:
        """Begin moving partition ``guest`` to server ``dest`` (checks already passed)."""
        sim = self.sim
        assert guest.member is not None
        src, dst = sim.members[guest.member], sim.members[dest]
        msps = min(src.cfg.msps, dst.cfg.msps)
        n = guest.cfg.storage_pages
        th = threads_per_msp(n, msps, firmware_of(src, dst), options, self.model)
        lead = command_lead(sim)
        mv = LPMove("lpm", guest, src.name, dst.name, options.describe(), "pages",
                    command_start(sim),
                    lead_s=lead, npages=n, msps=msps, threads=th,
                    link_gbps=min(src.cfg.msp_gbps, dst.cfg.msp_gbps), compress=options.compress)
        fw = firmware_of(src, dst)
        how = options.describe()
        if options.threads is None and not options.auto:
            how = how.replace("DEFAULT", "AUTO" if fw == "newer" else "DEFAULT")
        mv.options = how + f" ({th} per MSP, {msps} MSPs, {fw} firmware)"
        mix = zlib.crc32(f"{guest.userid}/lpm/{len(self.all)}".encode())
        mv.rng = np.array([np.random.default_rng([sim.seed, mix]).integers(1, 2**63)],
                          dtype=np.uint64)
        mv.setup_left_s = self.model.setup_s + self.model.track_s_per_gib * n / PAGES_PER_GB
        # the destination holds the partition's whole memory from the start (another
        # migration to it finds those frames taken)
        mv.reserved = n
        dst.lpm_frames += n
        self.all.append(mv)
        sim.emit("LPM_START", src.name, guest.userid,
                 f"Partition migration of {guest.userid} from {src.name} to {dst.name} started "
                 f"({mv.options})", {"destination": dst.name})
        return mv

    def _ratio(self, mv: LPMove, first: bool) -> float:
        """Compression ratio of the pages of this pass: idle memory compresses best."""
        if not mv.compress:
            return 1.0
        if not first:
            return self.model.active_compress_ratio  # pages sent again are pages in use
        active = min(mv.npages, mv.guest.workload.working_set_pages())
        idle = mv.npages - active
        return mv.npages / (active / self.model.active_compress_ratio
                            + idle / self.model.idle_compress_ratio)

    def _begin(self, mv: LPMove, kind: str) -> int:
        if mv.pending is None:
            # the bitmaps are made when copying starts: np.zeros maps them lazily
            words = M.words_for(mv.npages)
            mv.pending = np.zeros(words, dtype=np.uint64)
            mv.dirty = np.zeros(words, dtype=np.uint64)
        assert mv.dirty is not None
        if kind == "first":
            M.set_all(mv.pending, mv.npages)
            n = mv.npages
            mv.cursor, mv.end_word = 0, len(mv.pending)
        else:
            lo, hi = (mv.dirty_lo, mv.dirty_hi) if mv.dirty_hi > 0 else (0, 0)
            n, _ = M.begin_pass(mv.dirty, mv.pending, self._noprev, False, lo, hi)
            mv.cursor, mv.end_word = lo, hi
            mv.dirty_lo, mv.dirty_hi = 1 << 62, 0
        mv.passes.append(MovePass(len(mv.passes) + 1, kind, 0, self._now))
        return n

    def advance(self, dt: float) -> None:
        """Do ``dt`` seconds of copying for every active LPM."""
        act = self.active
        # migrations from or to the same server share its MSPs: those that copy in this step
        # (one still validating past the step's end, or only switching, sends nothing)
        by_server: dict[str, int] = {}
        for mv in act:
            if mv.setup_left_s - mv.lead_s >= dt or mv.state == "quiesced":
                continue
            for s in {mv.source, mv.dest}:
                by_server[s] = by_server.get(s, 0) + 1
        for mv in act:
            self._advance_one(mv, dt, max(1, by_server.get(mv.source, 0),
                                          by_server.get(mv.dest, 0)))

    def _advance_one(self, mv: LPMove, dt: float, sharers: int = 1) -> None:
        t = self.sim.t - mv.lead_s  # (begun before the step: it does that much more)
        dt += mv.lead_s
        mv.lead_s = 0.0
        left = dt
        g = mv.guest
        self._now = t
        if not g.logged_on:
            self._finish(mv, "cancelled", "logged off",
                         f"Partition migration of {g.userid} cancelled: it was shut down")
            return
        writes = any(p.write_frac > 0 for p in g.workload.plan(dt))
        while left > 1e-12 and mv.active:
            self._now = t + (dt - left)
            if mv.setup_left_s > 0:
                use, mv.setup_left_s = spend(mv.setup_left_s, left)
                left -= use
                if mv.setup_left_s == 0.0:
                    self._now = t + (dt - left)
                    mv.state = "copying"
                    self._begin(mv, "first")
                continue
            if mv.state == "quiesced":
                use = min(mv.switch_left_s, left)
                mv.switch_left_s -= use
                left -= use
                if mv.switch_left_s <= 1e-12:
                    self._now = t + (dt - left)
                    self._resume(mv)
                continue
            first = len(mv.passes) == 1
            ratio = self._ratio(mv, first)
            rate = mv.msps * msp_pages_per_s(mv.threads, mv.link_gbps, ratio, self.model,
                                             sharers)
            # the links shared with other migrations hold it below its threads' pace: the
            # throttle counts the time it copies so (counted the rest of the step each time
            # round this loop, a step with a pass ending in it counted more than a step's
            # worth: 27.3 s at steps of 1 s, 9.0 s at 0.25 s, for alike copies)
            shared = rate < mv.msps * msp_pages_per_s(mv.threads, mv.link_gbps, ratio,
                                                       self.model)
            before = left
            assert mv.pending is not None
            if mv.state == "post-copy":
                left -= self._fetches(mv, left, rate, ratio, dt)
            c = self._c
            # (while it writes, the partition's writes follow the copy a round at a time)
            chunk = round_chunk(left, 1.0 / rate, writes and mv.state == "copying")
            M.copy_pending(mv.pending, mv.cursor, mv.end_word, chunk, 1.0 / rate, 0.0, 0.0, c)
            done = c[M.C_DONE] > 0.5
            used = round_used(float(c[M.C_USED_S]), chunk, left, done)
            sent = int(c[M.C_UNITS])
            mv.post_left -= sent
            mv.cursor = int(c[M.C_CURSOR])
            mv.passes[-1].units += sent
            mv.units_moved += sent
            mv.wire_pages += sent / ratio
            if mv.state == "copying":
                self._writes(mv, used)
            left -= used
            if shared:
                mv.throttle_s["msp:shared"] = mv.throttle_s.get("msp:shared", 0.0) + \
                    before - left
            if done:
                self._now = t + (dt - left)
                mv.passes[-1].end_s = self._now
                self._end_pass(mv, rate)

    def _touches(self, mv: LPMove, seconds: float) -> list[tuple[int, RegionPlan, int, float]]:
        """The partition's page touches in ``seconds`` of running, from its workload's plan:
        (the region's index, the region, its end within the partition, touches)."""
        g = mv.guest
        speed = self.sim.members[g.member or mv.source].cfg.cpu_speed
        out = []
        for i, p in enumerate(g.workload.plan(seconds)):
            hi = min(p.hi, mv.npages)
            if hi <= p.lo:
                continue
            # as far as its rate allows, and its CPU: the processors' worth the partition had
            # in its last step, its part of them for this region
            work = p.work(g.cpu_rate * seconds * speed, seconds, speed)
            if p.log_q < 0:
                n = -p.log_q * (hi - p.lo)
                if p.touch_s > work:
                    # (the lap's pages cost ``touch_s``; fewer references select fewer)
                    n *= work / p.touch_s
            else:
                n = float(min(p.max_cover, 1 << 40))
                if p.cpu_s_per_touch > 0:
                    n = min(n, work / p.cpu_s_per_touch)
            out.append((i, p, hi, n))
        return out

    @staticmethod
    def _walk_at(mv: LPMove, i: int, p: RegionPlan, hi: int) -> int:
        """Where walk ``i`` of the partition stands: as the move last moved it, or where the
        partition's toucher stood when the move began (not the start of its buffer: there
        every write of pass 1 fell behind the copy)."""
        start = mv.seq_cursors.get(i, -1)
        if start < 0:
            cur = mv.guest.cursors
            at = cur[i][0] if i < len(cur) else p.lo
            start = at if p.lo <= at < hi else p.lo
        return start

    def _apply(self, mv: LPMove, i: int, p: RegionPlan, hi: int, touches: float,
               mode: int) -> None:
        """Apply a region's touches (carried over in fractions) to the move's bitmaps."""
        assert mv.dirty is not None and mv.pending is not None and mv.rng is not None
        acc = mv.write_acc.get(i, 0.0) + touches
        n = int(acc)
        mv.write_acc[i] = acc - n
        if n <= 0:
            return
        if p.log_q < 0:
            M.write_random(mv.dirty, mv.pending, self._noprev, False, mode, p.lo, hi, n, mv.rng,
                           self._w)
        else:
            n = min(n, hi - p.lo)  # a lap of the region at most per chunk
            start = self._walk_at(mv, i, p, hi)
            M.write_range(mv.dirty, mv.pending, self._noprev, False, mode, p.lo, hi, start, n,
                          self._w)
            mv.seq_cursors[i] = p.lo + (start - p.lo + n) % (hi - p.lo)

    def _writes(self, mv: LPMove, seconds: float) -> None:
        """The partition's memory writes during ``seconds``, from its workload's plan.

        A write to a page not yet copied in this pass is not tracked: the copy will take the
        page as it is then.
        """
        if mv.guest.stopped_by or seconds <= 0:
            return
        w = self._w
        w[:] = 0
        w[M.W_LO] = 1 << 62
        for i, p, hi, n in self._touches(mv, seconds):
            if p.write_frac > 0:
                self._apply(mv, i, p, hi, n * p.write_frac, M.TRACK_COPIED)
        if w[M.W_HI] > 0:
            mv.dirty_lo = min(mv.dirty_lo, int(w[M.W_LO]))
            mv.dirty_hi = max(mv.dirty_hi, int(w[M.W_HI]))

    def _fetches(self, mv: LPMove, left: float, rate: float, ratio: float, step: float) -> float:
        """Post-copy: the partition runs on the destination while its last changed pages are
        sent, for at most ``left`` seconds of this ``step``. A page it touches (read or write)
        before the copy sent it is fetched on demand, and the touching virtual processor waits
        ``fetch_s`` for it. Solves the share ``s`` of the time the partition's processors run:
        with touches in proportion to it, ``s + fetched(s) * fetch_s / touching / window = 1``
        (``touching``: the virtual processors its touches run on);
        applies those touches (the fetched pages leave the pass) and slows the partition's work
        of the step by what it waited (``Guest.running_share``). Returns the link's seconds the
        fetched pages took."""
        g = mv.guest
        assert mv.pending is not None
        window = min(left, mv.post_left / rate)
        if g.stopped_by or window <= 1e-9:
            return 0.0
        regions = []
        for i, p, hi, n in self._touches(mv, window):
            if p.log_q < 0:
                pend = M.count_units(mv.pending, p.lo, hi)
                ahead = None
            else:
                # a walk meets the pending pages where they lie ahead of it
                ahead = np.zeros((hi - p.lo + 63) // 64, dtype=np.int64)
                M.bits_ahead(mv.pending, p.lo, hi, self._walk_at(mv, i, p, hi), ahead)
                pend = int(ahead[-1])
            if pend and n > 0:
                regions.append((i, p, hi, n, pend, ahead))
        if not regions:
            return 0.0

        def met(ahead: np.ndarray, k: float) -> float:
            # pending pages among the next ``k`` of a walk (within 64 pages, in proportion)
            j = int(k // 64)
            if j >= len(ahead):
                return float(ahead[-1])
            before = float(ahead[j - 1]) if j > 0 else 0.0
            return before + (k / 64 - j) * (float(ahead[j]) - before)

        def fetched(s: float) -> float:
            # random touches find a pending page with the chance a page is still untouched
            return sum(pend * -math.expm1(-n * s / (hi - p.lo)) if ahead is None
                       else met(ahead, n * s) for _, p, hi, n, pend, ahead in regions)

        # the waits fall on the processors that touch: a walk's threads (a sequential toucher
        # is one), a random workload's share of all of them
        vcpus = max(1, g.cfg.vcpus)
        touching = min(vcpus, sum(p.threads or vcpus for _, p, _, _, _, _ in regions))
        per_page = self.model.fetch_s / touching / window
        lo_s, hi_s = 0.0, 1.0
        for _ in range(50):
            mid = 0.5 * (lo_s + hi_s)
            if mid + fetched(mid) * per_page > 1.0:
                hi_s = mid
            else:
                lo_s = mid
        s = lo_s
        w = self._w
        w[:] = 0
        w[M.W_LO] = 1 << 62
        for i, p, hi, n, _, _ in regions:
            span = hi - p.lo
            # (random touches beyond a few laps of the region find nothing more)
            self._apply(mv, i, p, hi, min(n * s, 8.0 * span) if p.log_q < 0 else n * s,
                        M.TRACK_FETCH)
        got = int(w[M.W_MARKED])
        mv.post_left -= got
        mv.passes[-1].units += got
        mv.units_moved += got
        mv.wire_pages += got / ratio
        mv.cost["fetched_pages"] += got
        waited = (1.0 - s) * window
        mv.cost["fetch_wait_s"] += waited
        g.running_share = max(0.0, g.running_share - waited / step)
        return min(left, got / rate)

    def _end_pass(self, mv: LPMove, rate: float) -> None:
        g = mv.guest
        cur = mv.passes[-1]
        self.sim.emit("LPM_PASS", mv.source, g.userid,
                      f"{g.userid}: LPM pass {cur.number} ({cur.kind}) sent {cur.units} pages "
                      f"in {cur.seconds:.1f} s",
                      {"pass": cur.number, "pages": cur.units, "seconds": round(cur.seconds, 6)},
                      at=self._now)
        if mv.state == "post-copy":
            # every page's final version has arrived: nothing pending
            assert mv.pending is not None
            assert M.count_bits(mv.pending, mv.cursor, mv.end_word) == 0
            self._finish(mv, "done", "migrated",
                         f"Partition {g.userid} has been migrated from {mv.source} to {mv.dest}")
            return
        assert mv.dirty is not None
        lo, hi = (mv.dirty_lo, mv.dirty_hi) if mv.dirty_hi > 0 else (0, 0)
        n = M.count_bits(mv.dirty, lo, hi)
        ratio = self._ratio(mv, False)
        final_rate = mv.msps * msp_pages_per_s(mv.threads, mv.link_gbps, ratio, self.model)
        if n / final_rate > self.model.suspend_threshold_s:
            if n < mv.dirty_best * (1.0 - self.model.progress_fraction):
                mv.no_progress = 0
            else:
                mv.no_progress += 1
            mv.dirty_best = min(mv.dirty_best, n)
            md = self.model
            if mv.no_progress < md.no_progress_passes and len(mv.passes) < md.max_passes:
                self._begin(mv, "iteration")
                return
        # suspend for the switch: the last changed pages go after it
        mv.state = "quiesced"
        mv.t_quiesce = self._now
        g.hold(self.STOP_REASON)
        mv.switch_left_s = self.model.switch_s
        self.sim.emit("LPM_SUSPEND", mv.source, g.userid,
                      f"{g.userid} suspended for the switch ({n} changed pages to send after "
                      f"it resumes on {mv.dest})", at=self._now)

    def _finish(self, mv: LPMove, state: str, result: str, message: str) -> None:
        self.close(mv, state, result, message)
        # the reservation ends: the memory is the partition's own now, or free again
        self.sim.members[mv.dest].lpm_frames -= mv.reserved
        mv.reserved = 0
        mv.cost["threads_per_msp"] = mv.threads
        mv.cost["msps"] = mv.msps
        mv.cost["gb_on_links"] = mv.wire_pages / PAGES_PER_GB
        mv.cost["compression_ratio"] = mv.units_moved / mv.wire_pages if mv.wire_pages else 1.0
        mv.pending = mv.dirty = None  # free the bitmaps (2 GiB each for 64 TB)
        kind = "LPM_DONE" if state == "done" else "LPM_CANCELLED"
        self.sim.emit(kind, mv.dest if state == "done" else mv.source, mv.guest.userid, message,
                      {"result": result}, at=mv.t_end)

    def _resume(self, mv: LPMove) -> None:
        """The switch is done: the partition runs on the destination. Its last changed pages
        (if any) are sent now, while it runs (``post-copy``); it changes no page the source
        still has to send, since its writes are on the destination."""
        g = mv.guest
        left = self._begin(mv, "final")
        self._move_partition(mv)
        g.release(self.STOP_REASON)
        mv.t_resume = self._now
        if left == 0:
            self._end_pass(mv, 0.0)
            return
        mv.cost["post_copy_pages"] = float(left)
        mv.cost["fetched_pages"] = mv.cost["fetch_wait_s"] = 0.0
        mv.post_left = left
        self.sim.emit("LPM_RESUME", mv.dest, g.userid,
                      f"{g.userid} resumed on {mv.dest}; {left} changed pages follow (a page "
                      f"touched before it arrives is fetched from {mv.source})", at=self._now)

    def _move_partition(self, mv: LPMove) -> None:
        sim = self.sim
        g = mv.guest
        mv.state = "post-copy"
        src, dst = sim.members[mv.source], sim.members[mv.dest]
        g.flush_pending()
        src.resident -= g.n_cen
        src.xstor_used -= g.n_xst
        src.slots_used -= g.n_slot
        dst.resident += g.n_cen
        dst.xstor_used += g.n_xst
        dst.slots_used += g.n_slot
        g.count_dat_on(dst)
        g.member = dst.name
        g.reset_steal_hands()
        # the frames held for it are its own now
        dst.lpm_frames -= mv.reserved
        mv.reserved = 0

    def cancel(self, mv: LPMove, by: str) -> None:
        """Stop an LPM: the partition keeps running on the source."""
        self._now = command_start(self.sim)
        self._finish(mv, "cancelled", "cancelled",
                     f"Partition migration of {mv.guest.userid} to {mv.dest} is cancelled by {by}")

"""Run-time state of members and guests, and the immutable snapshots published to viewers."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..basics.config import GuestConfig, MemberConfig
from ..basics.workloads import Workload
from ..kernels import pages as K

# Scheduler states as CP reports them. "dispatch" is a guest with work on the dispatch list.
DISPATCH = "dispatch"
ELIGIBLE = "eligible"
DORMANT = "dormant"
QUIESCED = "quiesced"  # stopped for the last passes of a relocation
#: the states of a Storage vMotion or an LPM under way (``post-copy``: an LPM's partition runs
#: on the destination while its last changed pages follow)
MIGRATION_ACTIVE_STATES = ("setup", "copying", "quiesced", "post-copy")
STOPPED = "stopped"  # CP STOP: virtual CPUs stopped, memory and devices kept
SUSPENDED = "suspended"  # Linux hibernated and halted
INCOMING = "incoming"  # the destination's copy of a guest being relocated
LOGGED_OFF = "logged off"

# Stealing order: dormant first, then eligible, then the dispatch list (and guests on the move).
STATE_CLASS = {DORMANT: 0, STOPPED: 0, SUSPENDED: 0, ELIGIBLE: 1, DISPATCH: 2, QUIESCED: 2,
               INCOMING: 2}


@dataclass
class PagingCounters:
    """Cumulative page movements (pages)."""

    xstor_in: int = 0  # page faults served from XSTOR
    dasd_in: int = 0  # page faults served from DASD
    xstor_out: int = 0  # pages stolen to XSTOR
    dasd_out: int = 0  # pages written to DASD (steals and migrations)
    dasd_clean: int = 0  # pages stolen without a write (valid slot copy)
    migrated: int = 0  # XSTOR pages moved on to DASD
    new: int = 0  # pages instantiated

    def stolen(self) -> int:
        """Frames the demand scan took (to XSTOR, or to DASD with or without a write)."""
        return self.xstor_out + self.dasd_out - self.migrated + self.dasd_clean

    def as_tuple(self) -> tuple[int, ...]:
        """The counters in field order."""
        return (self.xstor_in, self.dasd_in, self.xstor_out, self.dasd_out, self.dasd_clean,
                self.migrated, self.new)


#: bumped whenever any guest's member changes (logon, logoff, the end of a relocation), so that
#: lists of each member's guests can be kept until it moves
PLACEMENT = [0]


class Guest:
    """A guest's run-time state: where it runs, its page bit-planes and its workload."""

    _member: str | None

    @property
    def member(self) -> str | None:
        """The member the guest runs on (None: logged off)."""
        return self._member

    @member.setter
    def member(self, name: str | None) -> None:
        self._member = name
        PLACEMENT[0] += 1

    def __init__(self, cfg: GuestConfig, seed: int) -> None:
        self.cfg = cfg
        self.userid = cfg.userid.upper()
        self._member = None
        self.home = cfg.member.upper()
        self.seed = seed
        self.logons = 0
        self.planes: np.ndarray | None = None
        #: one byte per megabyte of its storage: 1 where CP has built its page management
        #: block (a page of the megabyte was instantiated); ``n_seg`` of them, counted on the
        #: member ``dat_on`` (``Member.dat_segs``)
        self.seg_map = np.zeros(0, dtype=np.uint8)
        self.n_seg = 0
        #: page management blocks counted for first touches held back (``pending``), until
        #: their pages are placed and the megabytes they fell in are marked
        self.seg_guess = 0
        self.dat_on: Member | None = None
        self.rng = np.zeros(1, dtype=np.uint64)
        self.n_cen = 0
        self.n_xst = 0
        self.n_dsd = 0
        self.n_slot = 0
        # one demand-scan hand per slice of the address space; the slices its walks touched
        # longest ago give first (``slices_by_age``), as LRU does
        self.steal_cursors = np.zeros(0, dtype=np.int64)  # one word index per hand
        self.slice_clear = np.zeros(0, dtype=np.uint8)
        self.any_clear = False
        self.steal_slice = 0
        self.reset_steal_hands()
        self.migrate_cursor = 0
        self.cursors: list[list[int]] = []
        #: the chance per page (``RegionPlan.log_q``) each walk's next gap was drawn with
        self.gap_log_q: dict[int, float] = {}
        #: pages a second a random region's walk could select when its virtual CPUs' time held
        #: it below its plan (``WorkloadDriver._paced``), by region
        self.walk_pace: dict[tuple[int, int], float] = {}
        #: which of its regions held the others of the same requests back when last walked
        #: together (``WorkloadDriver._walk_together``)
        self.walks_lead = 0
        #: and the share of their laps they got through then, and whether without a fault
        self.walks_reach = 1.0
        self.walks_quiet = False
        self.state = LOGGED_OFF
        self.eligible_since: float | None = None
        #: when the guest entered its scheduler class (dormant, eligible, dispatch): CP's demand
        #: scan visits the longest dormant first
        self.class_since = 0.0
        #: when its elapsed time slice in the dispatch list began (admitted, or admitted again
        #: at the end of the last one: ``schedule_states``)
        self.slice_since = 0.0
        self.set_reserved = cfg.set_reserved_pages
        self.share = cfg.share
        self.share_absolute = cfg.share_absolute
        self.counters = PagingCounters()
        self.units_total = 0.0
        #: Work done by unit (``tx/s`` work, ``pages/s`` work...): a guest whose workload
        #: changed, or that wrote a suspend image, has done work of several kinds.
        self.units_by_unit: dict[str, float] = {}
        self.units_step = 0.0
        self.cpu_s_total = 0.0
        self.ios_total = 0.0  # disk I/Os its workload did (virtual I/O through CP)
        self.workload = Workload(cfg.workload.kind, cfg.workload.params, cfg.storage_pages)
        #: The last picture of the guest and what it showed (``snapshot``): a guest whose
        #: figures did not change since gives the same picture, not a new one
        self._snap: GuestSnapshot | None = None
        self._snap_key: tuple[object, ...] = ()
        self.first_out: dict[str, float] = {}
        self.relocating = False  # a relocation tracks the pages it changes
        # Linux inside the guest: running, suspending, suspended or resuming. A hibernation
        # image on the guest's swap disk survives logoff, with the workload to restart.
        self.linux = "running"
        self.image_pages = 0
        self.saved_workload: Workload | None = None
        self.scheduled = 0  # times a stopped guest was dispatched for an interrupt
        self.lgr_words: tuple[int, int] | None = None  # where LGR bits may be set (words)
        # References whose outcome cannot matter yet are applied lazily (WorkloadDriver.
        # _defer_random): pending[(lo, hi)] = [references, write fraction, untouched pages they
        # instantiated (counted, not yet placed), untouched pages left, page management blocks
        # counted for them, megabytes of the region without one (-1: not looked at), the
        # time of the last step that held references back (the region's slices are stamped
        # with it when they are applied: the walk would have stamped them then)];
        # settled[(lo, hi)] =
        # page_gen when the region was last seen wholly resident; page_gen moves whenever pages
        # leave central.
        self.pending: dict[tuple[int, int], list[float]] = {}
        # pending_seq[(lo, hi)] = [start, pages walked, writes (0/1)] for sequential walks
        self.pending_seq: dict[tuple[int, int], list[int]] = {}
        self.settled: dict[tuple[int, int], int] = {}
        self.page_gen = 0
        # pending_gen moves whenever the references held back are applied (the lists in
        # ``pending`` are then new ones); steady[dt] is what a step of dt seconds of the
        # guest's workload did when every region was wholly resident and its references all
        # fit in the step (WorkloadDriver.run repeats it while nothing it hangs on changed)
        self.pending_gen = 0
        self.steady: dict[float, tuple[Any, ...]] = {}
        # A step may be run in parts (a relocation pass can end inside it): seconds of the
        # current step already run, the throughput units earned so far in it, and the CPU
        # rate the guest was given in the last step (for the parts run before its allocation).
        self.ran_s = 0.0
        self.units_acc = 0.0
        self.cpu_rate = 0.0
        # CPU seconds the guest was given and used so far in the current step, and the CPU a
        # second it used in the last step when it used less than it was given (None: it used
        # all it was given, or it did not run): what it will ask of a member short of CPU
        self.cpu_step_given = 0.0
        self.cpu_step_used = 0.0
        self.cpu_step_span = 0.0  # seconds of the step the member ran it for
        self.cpu_need: float | None = None
        #: its walks found the paging devices' I/O of the step used up (reads left waiting)
        self.io_short = False
        #: how many of its virtual CPUs can each have a page fault outstanding in the step: the
        #: threads its workload walks with where each walk has a bounded number (a sequential
        #: toucher is one thread), else all of them (as its last walks had it)
        self.faulters = cfg.vcpus
        self.stopped_by: set[str] = set()  # why its virtual CPUs are stopped (empty: running)
        #: the CPU rate it ran at before it was stopped, once it runs again within a step
        #: (``hold``, ``release``): stopped when the member's step began, it runs the rest of
        #: the step at that rate (None: not released since the member's last step)
        self.released_rate: float | None = None
        #: the workload its member last shared out the CPU for (``cpu_rate``'s)
        self.rate_for: Workload | None = None
        self._held_rate: float | None = None
        #: share of this step its virtual CPUs run rather than wait for pages fetched from
        #: another server (LPM's post-copy sets it before the members step)
        self.running_share = 1.0
        self.peak: dict[str, int] = {"xstor": 0, "dasd": 0, "central": 0}
        self.episode_last_out = -1e30
        self.episode_start: float | None = None
        self.episode_pages = 0

    @property
    def npages(self) -> int:
        """Pages of guest storage plus private VDISKs (the address spaces CP pages for it)."""
        return self.cfg.storage_pages + self.cfg.vdisk_total_pages

    @property
    def instantiated(self) -> int:
        """Pages touched at least once and still held somewhere."""
        return self.n_cen + self.n_xst + self.n_dsd

    @property
    def logged_on(self) -> bool:
        """True while the guest has a virtual machine on some member."""
        return self.member is not None

    def log_on(self, member: str) -> None:
        """Create the virtual machine on ``member``: empty storage, workload started afresh."""
        self.member = member
        self.logons += 1
        words = (self.npages + 63) // 64
        # np.zeros maps untouched pages lazily: a huge guest costs memory only as it is used
        self.planes = np.zeros((words, K.NPLANES), dtype=np.uint64)
        self.new_seg_map()
        mix = zlib.crc32(f"{self.userid}/{self.logons}".encode())
        self.rng[0] = np.uint64(np.random.default_rng([self.seed, mix]).integers(0, 2**63))
        self.n_cen = self.n_xst = self.n_dsd = self.n_slot = 0
        self.migrate_cursor = 0
        self.reset_cursors()
        self.new_planes()
        self.reset_steal_hands()
        self.state = DORMANT
        # SET SHARE and SET RESERVED last for a session; a new one starts from the directory
        self.stopped_by.discard("stop")  # a new session starts with running CPUs
        if self.image_pages:
            # Linux finds its hibernation image: it stays halted until RESUME
            self.linux = "suspended"
            self.workload = Workload("none", {}, self.cfg.storage_pages)
        else:
            self.linux = "running"
        self.set_reserved = self.cfg.set_reserved_pages
        self.share = self.cfg.share
        self.share_absolute = self.cfg.share_absolute

    def snapshot(self) -> GuestSnapshot:
        """The guest now, as an immutable picture (the last one while nothing it shows changed:
        most guests of a large cluster are quiet between two of a window's frames)."""
        key = (self._member, self.state, self.n_cen, self.n_xst, self.n_dsd, self.units_step,
               self.workload, self.cfg)
        snap = self._snap
        if snap is None or key != self._snap_key:
            w = self.workload
            snap = self._snap = GuestSnapshot(
                self.userid, self._member, self.state, self.cfg.storage_pages, self.n_cen,
                self.n_xst, self.n_dsd, w.describe(), round(self.units_step, 6), w.unit)
            self._snap_key = key
        return snap

    def new_seg_map(self) -> None:
        """No page management block yet (new, empty storage; counted nowhere)."""
        assert self.dat_on is None or self.n_seg + self.seg_guess == 0, \
            "its DAT tables are still counted"
        self.seg_map = np.zeros((self.npages + 255) // 256, dtype=np.uint8)
        self.n_seg = 0
        self.seg_guess = 0

    def count_dat_on(self, m: Member | None) -> None:
        """Count its page management blocks on ``m`` (None: on no member) from now."""
        if self.dat_on is not None:
            self.dat_on.dat_segs -= self.n_seg + self.seg_guess
        if m is not None:
            m.dat_segs += self.n_seg + self.seg_guess
        self.dat_on = m

    def mark_segments(self, lo: int, hi: int) -> None:
        """Pages ``[lo, hi)`` may have been instantiated: CP builds the page management block
        of every megabyte that now holds a page and had none."""
        if self.planes is None or hi <= lo:
            return
        self.add_segments(K.mark_segments(self.planes, self.seg_map, lo, hi))

    def guess_segments(self, delta: int) -> None:
        """Count ``delta`` more page management blocks for first touches held back."""
        if delta:
            self.seg_guess += delta
            if self.dat_on is not None:
                self.dat_on.dat_segs += delta

    def add_segments(self, new: int) -> None:
        """``new`` megabytes were marked in ``seg_map``: count their page management blocks."""
        if new:
            self.n_seg += new
            if self.dat_on is not None:
                self.dat_on.dat_segs += new

    def reset_steal_hands(self) -> None:
        """One hand per 256 MB of storage, each at the start of its slice.

        (Capped at 64 hands, a guest over 16 GB had slices of its size / 64: a slice then
        straddled the regions of the guest's touchers, and which of them gave its pages hung
        on where its hand stood against their boundaries. A 2 TB guest's 50 sequential
        touchers on 1 ms paging volumes then either all paged or some ran through resident
        stretches at memory speed, depending on the step: 50,000 or 22 million pages a second.)
        """
        words = (self.npages + 63) // 64
        k = max(1, self.npages // 65536)
        self.steal_cursors = np.array([words * i // k for i in range(k)], dtype=np.int64)
        self.steal_slice = 0
        #: when the guest's walks last touched each slice (``stamp_touched``), and the slices
        #: in that order, oldest first (``slice_order``, made again when the times changed):
        #: the demand scan takes from the slices touched longest ago first
        self.slice_stamp = np.zeros(k)
        self.stamp_gen = 0
        self.order_gen = -1
        self.slice_order = np.arange(k, dtype=np.int64)
        self.slice_ostamp = np.zeros(k)
        #: 1 for a slice the demand scan went round without meeting a resident page, while
        #: nothing has been made resident there since (``residency_changed``): its next visit
        #: would find nothing, and is not scanned
        self.slice_clear = np.zeros(k, dtype=np.uint8)
        self.any_clear = False  # False: no slice is marked (nothing to forget)

    def stamp_touched(self, lo: int, hi: int, start: int, count: int, t: float) -> None:
        """The guest's walk touched ``count`` pages of region ``[lo, hi)`` from ``start`` on
        (wrapping within it; ``count`` >= its size: all of it) at time ``t``."""
        k = len(self.slice_stamp)
        if count <= 0 or hi <= lo or k == 0:
            return
        span = hi - lo
        if count >= span:
            parts = [(lo, hi)]
        elif start + count <= hi:
            parts = [(start, start + count)]
        else:
            parts = [(start, hi), (lo, lo + start + count - hi)]
        words = (self.npages + 63) // 64
        for a, b in parts:
            i0 = min(k - 1, (a // 64) * k // words)
            i1 = min(k - 1, ((b - 1) // 64) * k // words)
            self.slice_stamp[i0:i1 + 1] = t
        self.stamp_gen += 1

    def slices_by_age(self) -> tuple[np.ndarray, np.ndarray]:
        """The slices, touched longest ago first, and their times in that order."""
        if self.order_gen != self.stamp_gen:
            self.slice_order = np.argsort(self.slice_stamp, kind="stable").astype(np.int64)
            self.slice_ostamp = self.slice_stamp[self.slice_order]
            self.order_gen = self.stamp_gen
        return self.slice_order, self.slice_ostamp

    def residency_changed(self, lo: int = 0, hi: int = -1) -> None:
        """Pages ``[lo, hi)`` (all by default) may have become resident: the demand scan must
        look at their slices again."""
        if not self.any_clear:
            return
        c = self.slice_clear
        if hi < 0 or lo <= 0 and hi >= self.npages:
            c[:] = 0
            self.any_clear = False
            return
        k = len(c)
        words = max(1, (self.npages + 63) // 64)
        # slice i holds words [words i / k, words (i + 1) / k): every slice that may hold one
        # of the words, and one more on each side
        i0 = max(0, (max(0, lo) >> 6) * k // words - 1)
        i1 = min(k, ((hi + 63) >> 6) * k // words + 2)
        c[i0:i1] = 0

    def new_planes(self) -> None:
        """Forget lazily held references and residency: the planes were replaced."""
        self.guess_segments(-self.seg_guess)
        self.pending.clear()
        self.pending_seq.clear()
        self.pending_gen += 1
        self.settled.clear()
        self.page_gen += 1
        self.residency_changed()

    def flush_pending(self) -> None:
        """Apply the references held back to the bit-planes: hits on resident pages, then the
        never-touched pages they instantiated, placed at random among the untouched."""
        self.pending_gen += 1
        if self.planes is None:
            self.guess_segments(-self.seg_guess)
            self.pending.clear()
            self.pending_seq.clear()
            return
        for (lo, hi), pend in sorted(self.pending.items()):
            refs, wf, new = pend[0], pend[1], pend[2]
            if self.relocating:
                self.note_changes(lo, hi)
            K.touch_resident(self.planes, lo, hi, refs, wf, self.relocating, self.rng)
            self.guess_segments(-int(pend[4]))  # the placed pages mark what they really fill
            if new:
                K.instantiate_random(self.planes, lo, hi, int(new), self.relocating, self.rng)
                self.residency_changed(lo, hi)
                self.mark_segments(lo, hi)
            self.stamp_touched(lo, hi, lo, hi - lo, pend[6])
        for (lo, hi), (start, count, write) in sorted(self.pending_seq.items()):
            if self.relocating and write:
                self.note_changes(lo, hi)
            K.touch_range(self.planes, lo, hi, start, count, bool(write), self.relocating)
            self.residency_changed(lo, hi)
            self.mark_segments(lo, hi)
        self.pending.clear()
        self.pending_seq.clear()

    def note_changes(self, lo: int, hi: int) -> None:
        """Remember that pages ``[lo, hi)`` may get LGR bits (to bound the next pass's scan)."""
        w0, w1 = lo >> 6, (hi + 63) >> 6
        if self.lgr_words is None:
            self.lgr_words = (w0, w1)
        else:
            self.lgr_words = (min(self.lgr_words[0], w0), max(self.lgr_words[1], w1))

    def log_off(self) -> None:
        """Drop the virtual machine and its storage."""
        self.new_planes()
        self.count_dat_on(None)  # (a logoff's cleanup has taken them over first)
        self.seg_map = np.zeros(0, dtype=np.uint8)
        self.n_seg = 0
        self.member = None
        self.planes = None
        self.n_cen = self.n_xst = self.n_dsd = self.n_slot = 0
        self.state = LOGGED_OFF
        self.eligible_since = None

    def set_workload(self, workload: Workload, keep_cursors: bool = False) -> None:
        """Replace the running workload; walks start afresh unless ``keep_cursors``."""
        self.flush_pending()
        self.workload = workload
        if keep_cursors:
            self.walk_pace = {}  # (its regions, and what holds them back, may differ)
            self.walks_lead, self.walks_reach, self.walks_quiet = 0, 1.0, False
            return
        self.reset_cursors()

    def hold(self, reason: str) -> None:
        """Stop its virtual CPUs for ``reason`` (a quiesce, CP STOP)."""
        if not self.stopped_by:
            self._held_rate = self.cpu_rate if self.state in (DISPATCH, DORMANT) \
                else self.released_rate
        self.stopped_by.add(reason)

    def release(self, reason: str) -> None:
        """``reason`` no longer stops it; with no other, it runs again from now (within the
        step, at the rate it ran at before it stopped: ``released_rate``)."""
        self.stopped_by.discard(reason)
        if not self.stopped_by:
            self.released_rate, self._held_rate = self._held_rate, None

    def reset_cursors(self) -> None:
        """Forget where the workload's walks were."""
        self.cursors = []
        self.gap_log_q = {}
        self.walk_pace = {}
        self.walks_lead, self.walks_reach, self.walks_quiet = 0, 1.0, False

    def cursor(self, i: int, lo: int) -> list[int]:
        """The walk state ``[position, next_selected]`` of region ``i``."""
        while len(self.cursors) <= i:
            self.cursors.append([lo, -1])
        return self.cursors[i]


class Member:
    """A member's run-time state: frames, XSTOR blocks, slots and paging counters."""

    def __init__(self, cfg: MemberConfig) -> None:
        self.cfg = cfg
        self.name = cfg.name.upper()
        self.frames = cfg.central_pages - cfg.cp_frames
        self.resident = 0
        #: megabytes of guest storage whose page management blocks (CP's DAT tables of the
        #: guests, logged-off guests being reset and arriving guests) sit in this member's
        #: frames, and the frames each takes (``PagingModel.pgmbk_kib`` / 4)
        self.dat_segs = 0
        self.frames_per_seg = 2.0
        #: frames CP holds to stage the outbound pages of relocations from this member
        #: (``Relocation.stage_pool``)
        self.stage_frames = 0
        #: frames reserved for partitions arriving by LPM: the destination holds a partition's
        #: whole memory from the start of its migration (``LPMove.reserved``)
        self.lpm_frames = 0
        self.xstor_used = 0
        self.slots_used = 0
        self.counters = PagingCounters()
        #: the counters when CP's paging work was last charged to the member's CPU
        self.cp_counted = self.counters.as_tuple()
        # volumes that are slices of one device share its queue: it counts once. CP spreads
        # its slots over the volumes by their size (``volume_use``), so each device has the
        # share of the paging I/O its volumes have of the slots: the busiest device for its
        # speed bounds what they move in all, and the waits are those of where the pages are
        share: dict[str, float] = {}
        for v in cfg.volumes:
            share[v.device_key] = share.get(v.device_key, 0.0) + v.slots / max(1, cfg.slots)
        devs = [(v, share[key]) for key, v in cfg.devices.items() if share[key] > 0]
        if len({(v.service_ms, v.queue_depth, v.mb_s, round(f, 12)) for v, f in devs}) > 1:
            #: pages the paging devices move a second at full queues
            self.io_capacity_s = min(v.pages_per_s / f for v, f in devs)
            #: the devices' service time of one page, seconds, over where the pages are (0:
            #: no paging devices)
            self.service_s = sum(f * v.service_ms for v, f in devs) / 1000.0
            #: a page's transfer time as a share of an I/O's service time, over the devices
            #: (what a block adds to the wait of the one I/O that reads it)
            self.xfer_ratio = sum(f * v.transfer_ratio for v, f in devs)
            #: the same in the step's budget of service times: a device's bandwidth is shared
            #: by all the I/Os in its queue, so a page's transfer takes queue_depth of them
            self.xfer_units = sum(f * v.transfer_ratio * v.queue_depth for v, f in devs)
            #: I/Os the paging devices serve at once, as they are used: what they move times
            #: how long each takes (Little's law)
            self.io_concurrency = self.io_capacity_s * self.service_s
        else:  # devices alike, each with its equal share: the same sums, exactly
            one = devs[0][0] if devs else None
            self.io_capacity_s = len(devs) * one.pages_per_s if one else 0.0
            self.service_s = one.service_ms / 1000.0 if one else 0.0
            self.xfer_ratio = one.transfer_ratio if one else 0.0
            self.xfer_units = one.transfer_ratio * one.queue_depth if one else 0.0
            self.io_concurrency = float(len(devs) * one.queue_depth) if one else 0.0
        #: page reads of the guests waiting in the paging devices on average over the last
        #: step (Little's law: reads a second times their wait; all the virtual CPUs of a guest
        #: whose reads found the devices' I/O used up): the places their faults hold
        self.fault_places = 0.0
        self.io_util = 0.0
        self.cpu_util = 0.0
        self.cpu_used_step = 0.0  # guests' CPU seconds so far in the current step
        self.ios_total = 0.0  # guests' disk I/Os (virtual I/O through CP)
        self.vio_cpu_step = 0.0  # CP's CPU seconds for guests' virtual I/O in the current step
        #: processors' worth of CP's own paging work (demand scan, page writes, XSTOR
        #: migration) in the member's last step: system work, like relocation
        self.cp_paging_cpus = 0.0
        #: processors' worth of storage resets after logoffs in the current step (one each
        #: while it runs): system work too
        self.cleanup_cpus = 0.0
        #: relocations under way from or to the member in the current step (CP tasks, one
        #: processor each at most, beside its storage resets)
        self.reloc_tasks = 0
        self.dasd_full_reported = False
        #: when in the current step work first found the member short of free frames (its
        #: demand scan's writes can use the paging devices' time from then on), or None
        self.short_at: float | None = None
        self.half_full_reported = False
        #: where the demand scan's next visit of the eligible and dispatch lists begins: at
        #: the guest with this user ID, or after it (``Pager.steal``)
        self.scan_next: tuple[str, bool] = ("", False)
        #: steps this member has run: its guests' order in a step turns with it
        self.turns = 0
        self.peak = {"central": 0, "xstor": 0, "slots": 0}
        #: the demand scan's low and high marks of free frames: they follow the pace frames
        #: are taken at (``Pager.adjust_marks``, ``PagingModel.free_marks``)
        self.free_low = 0
        self.free_high = 0
        #: the high mark's ceiling: the ways of computing that hold on while nothing can page
        #: (first touches held back, quiet members' long steps) keep this many frames free
        #: whatever the marks are, so that they stop before the demand scan may run
        self.free_high_max = 0
        #: when the marks were last adjusted, and the frames taken up to then (``taken``)
        self.marks_at: tuple[float, int] = (0.0, 0)
        #: a walk found no frame free since then (the demand scan had to free one for it)
        self.ran_empty = False
        #: frames enough for every page its guests' workloads could touch, with
        #: ``free_high_max`` to spare (worked out each step)
        self.roomy = False
        #: steps of ``step_s`` this quiet member has not been stepped yet (``Simulation.step``)
        self.lag = 0
        #: which step of every ``quiet_steps`` ends its long steps when it is quiet: members
        #: take turns, so their long steps do not all fall on the same step (``Simulation``)
        self.quiet_phase = 0
        #: none of its guests kept it from skipping steps when last looked at: the simulation's
        #: event count and guest placement then (``Simulation._may_lag``); None: look again
        self.guests_quiet: tuple[int, int] | None = None
        self.up = True

    @property
    def seg_reserve(self) -> int:
        """Frames a walk sets aside for the page management block of a megabyte it is the
        first to touch (at least its share, so free frames never run short)."""
        return int(math.ceil(self.frames_per_seg))

    @property
    def dat_frames(self) -> int:
        """Frames holding the guests' page management blocks (CP's DAT tables for them)."""
        return int(self.dat_segs * self.frames_per_seg + 0.5)

    def note_short(self, t: float) -> None:
        """Work found the member short of free frames at time ``t`` (``short_at``)."""
        if self.short_at is None or t < self.short_at:
            self.short_at = t

    @property
    def used_frames(self) -> int:
        """Frames in use: the guests' pages, their DAT tables, relocations' staging and the
        memory reserved for partitions arriving by LPM."""
        return self.resident + self.dat_frames + self.stage_frames + self.lpm_frames

    def frames_over(self, guests: list[Guest]) -> int:
        """Frames the working sets of ``guests`` (this member's), with the DAT tables, staged
        pages and arriving partitions' memory it holds, want beyond what it has above its
        demand scan's highest refill mark (a member that pages keeps its marks there): about
        how much of them must page (negative: room left)."""
        cp_held = self.used_frames - self.resident
        return sum(g.workload.working_set_pages() for g in guests) + cp_held - \
            (self.frames - self.free_high_max)

    @property
    def taken(self) -> int:
        """Frames taken off the free list so far, net of those given back other than by the
        demand scan (a logoff's reset, a guest leaving, a staging pool or an LPM reservation
        let go): those in use now and those the demand scan freed."""
        return self.used_frames + self.counters.stolen()

    @property
    def free_frames(self) -> int:
        """Frames holding neither a guest page, a guest's DAT tables nor a staged page."""
        return self.frames - self.used_frames

    @property
    def cp_cpus(self) -> float:
        """Processors' worth of CP's own work besides relocations (paging, storage resets),
        served before the guests'."""
        return self.cp_paging_cpus + self.cleanup_cpus

    @property
    def xstor_free(self) -> int:
        """XSTOR blocks not in use."""
        return self.cfg.xstor_pages - self.xstor_used

    @property
    def slots_free(self) -> int:
        """DASD paging slots not in use."""
        return self.cfg.slots - self.slots_used

    def volume_use(self) -> list[tuple[str, str, int, int]]:
        """``(volid, rdev, total, used)`` per volume; CP spreads slots over volumes evenly."""
        total = self.cfg.slots
        out = []
        left = self.slots_used
        for i, v in enumerate(self.cfg.volumes):
            last = i == len(self.cfg.volumes) - 1
            share = left if last else round(self.slots_used * v.slots / total)
            share = min(share, v.slots, left)
            left -= share
            out.append((v.volid, v.rdev, v.slots, share))
        return out


@dataclass(frozen=True)
class GuestSnapshot:
    """One guest at one instant."""

    userid: str
    member: str | None
    state: str
    storage_pages: int
    central: int
    xstor: int
    dasd: int
    workload: str
    throughput: float  # units per second over the last step
    unit: str


@dataclass(frozen=True)
class MemberSnapshot:
    """One member at one instant."""

    name: str
    frames: int
    resident: int  # frames in use: the guests' pages and their DAT tables
    xstor_total: int
    xstor_used: int
    slots_total: int
    slots_used: int
    cpu_pct: float
    paging_io_pct: float
    counters: tuple[int, ...]


@dataclass(frozen=True)
class PassSnapshot:
    """One memory-move pass as it stands (``end_s`` 0 while it runs)."""

    number: int
    kind: str  # first, intermediate, penultimate, final
    pages: int
    start_s: float
    end_s: float
    throttle_s: float


@dataclass(frozen=True)
class ObjectiveSnapshot:
    """One objective of a lesson as a viewer shows it."""

    id: str
    kind: str
    text: str
    points: float
    status: str  # pending, met, failed
    detail: str
    t_s: float | None


@dataclass(frozen=True)
class LessonSnapshot:
    """A lesson's objectives and score at the time of the snapshot."""

    objectives: tuple[ObjectiveSnapshot, ...]
    score: float
    max_score: float
    pass_score: float
    hint_cost: float
    hints_used: int
    hints_total: int
    ended: bool
    ended_s: float | None
    end_s: float
    end_reason: str
    passed: bool


@dataclass(frozen=True)
class RelocationSnapshot:
    """One relocation at one instant: its passes, throttles and quiesce so far."""

    userid: str
    source: str
    destination: str
    options: str
    state: str  # moving, quiesced, done, cancelled
    result: str
    message: str
    start_s: float
    end_s: float | None
    passes: tuple[PassSnapshot, ...]
    pages_left: int  # still to send in the current pass
    pages_moved: int
    link_pages_per_s: float  # what the link can carry for this relocation now
    quiesce_start_s: float | None
    quiesce_s: float  # so far (or in all, once done)
    active_throttles: tuple[tuple[str, float], ...]  # ("side:reason", since when)
    throttle_s: tuple[tuple[str, float], ...]  # seconds by reason, ended throttles
    maxquiesce_s: float | None = None  # the MAXQUIESCE limit in seconds (None: NOLIMIT)
    #: pages a second its pages go at now when nothing holds them back: the slowest of its part
    #: of the link, the source's processor building them, the destination's taking them
    pace_pages_per_s: float = 0.0


@dataclass(frozen=True)
class Snapshot:
    """The whole simulated world at simulated time ``t_s``; safe to hand to another thread."""

    t_s: float
    members: tuple[MemberSnapshot, ...]
    guests: tuple[GuestSnapshot, ...]
    events: int
    relocations: tuple[RelocationSnapshot, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    lesson: LessonSnapshot | None = None  # objectives and score, when the scenario has them
    migrations: tuple[MigrationSnapshot, ...] = ()  # LPM and Storage vMotion, oldest first
    pauses: tuple[PauseSnapshot, ...] = ()  # suspends, resumes and CP STOPs, oldest first


@dataclass(frozen=True)
class MovePassSnapshot:
    """One copy pass of an LPM or a Storage vMotion as it stands (``end_s`` 0 while it runs)."""

    number: int
    kind: str  # first, iteration, consolidation, final
    units: int  # pages (LPM) or blocks (Storage vMotion) copied in it so far
    start_s: float
    end_s: float


@dataclass(frozen=True)
class MigrationSnapshot:
    """One PowerVM LPM or VMware Storage vMotion at one instant, in the shape of a relocation.

    LPM copies a partition's memory in pages between servers; Storage vMotion copies a virtual
    disk in blocks between datastores. The guest is stopped from ``quiesce_start_s`` to the end.
    """

    kind: str  # "LPM" or "VMOTION"
    userid: str
    source: str  # server (LPM) or datastore (Storage vMotion)
    destination: str
    options: str
    state: str  # setup, copying, quiesced, done, failed, cancelled
    result: str
    message: str
    start_s: float
    end_s: float | None
    unit: str  # "pages" or "blocks"
    unit_bytes: int  # bytes per unit: 4096 (a page) or 262144 (a 256 KiB block)
    units_total: int  # of the memory or the disk: what the first pass copies
    units_moved: int  # copied so far, all passes
    pass_units: int  # what the current pass has to copy (0 before the first pass)
    units_left: int  # still to copy in the current pass
    passes: tuple[MovePassSnapshot, ...]
    setup_left_s: float  # of validation and setup before the first pass
    rate_units_per_s: float  # what the copy can move per second now (0 once it has ended)
    quiesce_start_s: float | None
    downtime_s: float  # the guest stopped so far (or in all, once ended)

    @property
    def active(self) -> bool:
        """True until the migration completes, fails or is cancelled."""
        return self.state in MIGRATION_ACTIVE_STATES


@dataclass(frozen=True)
class PauseSnapshot:
    """A guest being paused or let go, at one instant.

    ``action`` is ``suspend`` (Linux hibernates: phases prepare, reclaim, write, halted), ``resume``
    (boot, read, restart, first request, serving) or ``stop`` (CP STOP: stopped; after BEGIN
    waking until it answers requests again, then serving). ``progress`` is the share of the
    current phase done (0 for ``stopped``, which lasts until BEGIN).
    """

    userid: str
    member: str | None
    action: str  # suspend, resume, stop
    phase: str
    start_s: float
    end_s: float | None  # when it ended (None while under way)
    progress: float  # 0..1, of the current phase
    image_pages: int  # the hibernation image (0 for CP STOP)
    image_done_pages: int  # of the image written (suspend) or read back (resume) so far
    begin_s: float | None = None  # CP BEGIN (stop only)
    scheduled: int = 0  # stop: times CP dispatched the stopped guest for an interrupt

    @property
    def active(self) -> bool:
        """True while the guest is being paused, is stopped, or is being let go."""
        return self.end_s is None

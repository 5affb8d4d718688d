"""VMware Storage vMotion at block level: a guest's virtual disk moved between datastores.

Four generations, each with its own mechanism (``METHODS``): snapshot copy and consolidation,
dirty block tracking (DBT), incremental DBT (optionally with heat optimisation) and IO
mirroring. The disk is a set of 256 KiB blocks, one bit per block in each move bitmap
(``kernels.moves``). The volumes are queues shared by the data movers and the guests
(``solve_volumes``): each party's share follows from how many IOs it keeps outstanding. All
parameters are in ``SVMotionModel`` with how each was derived.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from ..basics.config import DatastoreConfig, DiskConfig
from ..kernels import moves as M
from ..world.state import Guest
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

METHODS = ("SNAPSHOT", "DBT", "INCDBT", "MIRROR")


@dataclass(frozen=True)
class SVMotionModel:
    """Parameters of the Storage vMotion model and their derivation.

    Reference (Mashtizadeh et al., USENIX ATC 2011): Exchange 2010 with 2000 mailboxes, its
    350 GB mailbox disk moved between two 6-disk RAID-0 volumes. DBT 2935.5 s / downtime
    13.297 s, incremental DBT 2638.9 s / 7.557 s, IO mirroring 1922.2 s / 0.220 s.
    """

    #: Tracking and copy unit: one data-mover IO (the mover copies 256 KiB per IO).
    block_kib: int = 256
    #: IOs the data mover keeps in flight on each volume it copies between (published: 16 of
    #: 256 KiB): its share of a busy volume's queue, and it cannot go faster than this many IOs
    #: per volume latency, whatever the volume streams.
    outstanding_ios: int = 16
    #: Creating and opening the destination disk and starting the mover (assumed, small: the
    #: published times are dominated by the copy).
    setup_s: float = 2.0
    #: The switch to the destination disk with the guest stopped (fast suspend/resume). IO
    #: mirroring has nothing left to copy at the switch, so its published downtime, 0.220 s,
    #: is this switch alone.
    switch_s: float = 0.22
    #: The snapshot method switches by a self-migration of the running VM to the new disk
    #: (assumed 2 s: a memory pre-copy on the same host).
    snapshot_switch_s: float = 2.0
    #: Live snapshot consolidations before the last delta is consolidated with the guest
    #: stopped: one, as in ESX 3.5 (consolidate the first child, suspend, consolidate the second).
    snapshot_live_consolidations: int = 1
    #: DBT converges when every dirty block could be copied with the guest stopped in this long.
    #: Fitted with the write pattern below: downtimes of 13.3 s (DBT) and 7.6 s (incremental)
    #: both lie under it; a lower value forces one more iteration for both.
    downtime_target_s: float = 14.0
    #: An iteration makes progress when its dirty set is this much smaller than the smallest
    #: before; after ``no_progress_passes`` iterations without progress DBT gives up (fails).
    progress_fraction: float = 0.05
    no_progress_passes: int = 3
    #: Most copy iterations before DBT gives up.
    max_passes: int = 30
    #: Most IOs one guest keeps outstanding on a volume it shares with other IO (here the data
    #: mover): VMware's Disk.SchedNumReqOutstanding, 32 by default since ESX 3.5 (VMware vSphere
    #: blog, "Advanced VMkernel Settings for Disk Storage", 2012). A guest whose IO rate would
    #: need more in flight (Little's law: rate x latency) is held to this many and slows.
    guest_outstanding_ios: int = 32

    @property
    def block_bytes(self) -> int:
        """Bytes per block."""
        return self.block_kib * 1024


MODEL = SVMotionModel()


def blocks_of(disk: DiskConfig, model: SVMotionModel = MODEL) -> int:
    """Blocks of a virtual disk (GB are 2^30 bytes)."""
    return max(1, int(disk.size_gb * 2**30) // model.block_bytes)


def block_s(ds: DatastoreConfig, model: SVMotionModel = MODEL) -> float:
    """Seconds a volume spends on one block of the mover's streaming IO (idle volume)."""
    stream = model.block_bytes / (ds.mb_s * 2**20)
    # 16 IOs in flight: each block waits at least a sixteenth of an IO's latency
    return max(stream, ds.latency_ms / 1000.0 / model.outstanding_ios)


def seek_s(ds: DatastoreConfig) -> float:
    """Seconds a volume spends positioning for a block that does not follow the last one."""
    return 1.0 / ds.iops


def stream_s(ds: DatastoreConfig, model: SVMotionModel = MODEL) -> float:
    """Seconds of a volume's time one of the mover's streaming IOs (a block) takes."""
    return model.block_bytes / (ds.mb_s * 2**20)


@dataclass
class GuestIO:
    """A running guest's IO to its virtual disk while copies run: what it offers, where it goes.

    ``mirrored`` is the share of its writes that also go to ``mirror`` (IO mirroring: writes to
    blocks already copied); ``scale`` the share of the offered IO the volumes serve (solved).
    """

    userid: str
    reads: float
    writes: float
    home: str
    mirror: str | None = None
    mirrored: float = 0.0
    scale: float = 1.0

    def write_s(self, lat: dict[str, float]) -> float:
        """Mean seconds a write takes: a mirrored one completes when both volumes have it."""
        home = lat[self.home]
        if self.mirror is None or self.mirrored <= 0:
            return home
        both = max(home, lat[self.mirror])
        return both if self.mirrored >= 1.0 else (1.0 - self.mirrored) * home + \
            self.mirrored * both

    def outstanding(self, lat: dict[str, float]) -> float:
        """IOs in flight (Little's law: rate x latency), at the current ``scale``."""
        n = self.reads * lat[self.home] if self.reads > 0 else 0.0
        if self.writes > 0:
            n += self.writes * self.write_s(lat)
        return self.scale * n


def volume_latencies(stores: dict[str, DatastoreConfig], movers: dict[str, float],
                     flows: list[GuestIO], model: SVMotionModel = MODEL) -> dict[str, float]:
    """Seconds an IO spends at each volume (queued and served), from who keeps IOs there.

    A volume serves its outstanding IOs in turn, so each party completes IOs in proportion to
    how many it keeps queued, and every IO waits one round of the queue: ``R = sum(n x d)``
    over the parties, ``d`` the volume's time per IO (a mover's block: its streaming time, and
    its seeks' share of a positioning: ``movers`` counts the movers on a volume in streaming
    IOs' worth; a guest's small IO: ``1 / iops``). A mover keeps ``outstanding_ios``; a
    guest ``rate x R`` (Little's law), so ``R = movers x 16 x d_block / (1 - u)``, ``u`` the
    guests' share of the volume's time. A volume without a mover is a plain queue:
    ``R = d_io / (1 - u)``. No IO completes sooner than the volume's idle service time
    ``latency_ms``: a mirrored write to a slow destination waits for it too.
    """
    busy = {name: 0.0 for name in stores}
    for f in flows:
        busy[f.home] += f.scale * (f.reads + f.writes) / stores[f.home].iops
        if f.mirror is not None:
            busy[f.mirror] += f.scale * f.writes * f.mirrored / stores[f.mirror].iops
    lat: dict[str, float] = {}
    for name, ds in stores.items():
        k = movers.get(name, 0.0)
        head = k * model.outstanding_ios * stream_s(ds, model) if k else seek_s(ds)
        u = busy[name]
        lat[name] = max(head / (1.0 - u), ds.latency_ms / 1000.0) if u < 1.0 - 1e-12 \
            else math.inf
    return lat


def solve_volumes(stores: dict[str, DatastoreConfig], movers: dict[str, float],
                  flows: list[GuestIO], model: SVMotionModel = MODEL) -> dict[str, float]:
    """Each volume's IO latency (s) with every guest held to ``guest_outstanding_ios``.

    A guest whose offered IO would need more IOs in flight than it may keep is served less
    (its ``scale`` falls) until it keeps exactly that many: the queue then holds the mover's
    16 against the guest's 32 and the copy keeps its share. Solved one guest at a time
    (bisection on its scale; its IOs in flight grow with its scale), until none changes.
    """
    cap = float(model.guest_outstanding_ios)
    for f in flows:
        f.scale = 1.0
    for _ in range(60):
        changed = False
        for f in flows:
            was = f.scale
            f.scale = 1.0
            if f.outstanding(volume_latencies(stores, movers, flows, model)) > cap:
                lo, hi = 0.0, 1.0
                for _ in range(48):
                    f.scale = 0.5 * (lo + hi)
                    if f.outstanding(volume_latencies(stores, movers, flows, model)) > cap:
                        hi = f.scale
                    else:
                        lo = f.scale
                f.scale = lo
            changed = changed or abs(f.scale - was) > 1e-9
        if not changed:
            break
    return volume_latencies(stores, movers, flows, model)


@dataclass
class VMotionOptions:
    """VMOTION options."""

    method: str = "MIRROR"
    heat: bool = False

    def describe(self) -> str:
        """The options as they would be typed."""
        return f"METHOD {self.method}" + (" HEAT" if self.heat else "")


@dataclass(eq=False)
class VMotion(Migration):
    """One Storage vMotion of a guest's virtual disk."""

    method: str = "MIRROR"
    heat: bool = False
    nblocks: int = 0
    pending: np.ndarray | None = None
    dirty: np.ndarray | None = None
    prev: np.ndarray | None = None  # hot marks (heat optimisation)
    rng: np.ndarray | None = None
    cursor: int = 0
    carry: float = 0.0
    #: seeks per block the current pass makes (runs of its blocks over its blocks): each
    #: holds the volumes' heads as long as ``seek_s`` while the guest's IOs wait
    seek_share: float = 0.0
    write_acc: float = 0.0
    dirty_best: float = math.inf
    no_progress: int = 0
    consolidations: int = 0
    copied_ever: int = 0  # blocks on the destination (for the space used)
    delta_blocks: int = 0  # blocks in deltas not yet consolidated (snapshot method)
    space_peak_blocks: int = 0
    io_s: float = 0.0  # live seconds, for the cost averages
    io_pct_s: float = 0.0
    latency_ms_s: float = 0.0
    pending_copy: bool = False  # quiesced: the final copy is still running
    switch_left_s: float = 0.0


class StorageVMotionEngine(MoveEngine[VMotion]):
    """Runs the active Storage vMotions of a simulation, a step at a time."""

    STOP_REASON = "vmotion"

    def __init__(self, sim: World, model: SVMotionModel = MODEL) -> None:
        super().__init__()
        self.sim = sim
        self.model = model
        #: the datastore each guest's virtual disk is on now
        self.where: dict[str, str] = {g.userid.upper(): g.disk.datastore
                                      for g in sim.scenario.guests if g.disk is not None}
        self.datastores: dict[str, DatastoreConfig] = {d.name: d
                                                       for d in sim.scenario.datastores}
        self._w = np.zeros(M.W_OUT_LEN, dtype=np.int64)
        self._c = np.zeros(M.C_OUT_LEN)

    # -- start ----------------------------------------------------------------------------------
    def start(self, guest: Guest, dest: str, options: VMotionOptions) -> VMotion:
        """Begin moving ``guest``'s virtual disk to datastore ``dest`` (checks already passed)."""
        sim = self.sim
        disk = guest.cfg.disk
        assert disk is not None
        n = blocks_of(disk, self.model)
        words = M.words_for(n)
        lead = command_lead(sim)
        mv = VMotion("vmotion", guest, self.where[guest.userid], dest, options.describe(),
                     "blocks", command_start(sim), lead_s=lead, method=options.method,
                     heat=options.heat, nblocks=n)
        mv.pending = np.zeros(words, dtype=np.uint64)
        mv.dirty = np.zeros(words, dtype=np.uint64)
        mv.prev = np.zeros(words, dtype=np.uint64)
        mix = zlib.crc32(f"{guest.userid}/vmotion/{len(self.all)}".encode())
        mv.rng = np.array([np.random.default_rng([sim.seed, mix]).integers(1, 2**63)],
                          dtype=np.uint64)
        mv.setup_left_s = self.model.setup_s
        mv.space_peak_blocks = 0
        self.all.append(mv)
        sim.emit("VMOTION_START", guest.member, guest.userid,
                 f"Storage vMotion of {guest.userid}'s disk from {mv.source} to {dest} started "
                 f"({options.describe()})", {"destination": dest})
        return mv

    def _begin(self, mv: VMotion, kind: str, first: bool = False, heat: bool = False) -> int:
        assert mv.pending is not None and mv.dirty is not None and mv.prev is not None
        words = len(mv.pending)
        if first:
            M.set_all(mv.pending, mv.nblocks)
            n, held = mv.nblocks, 0
        else:
            n, held = M.begin_pass(mv.dirty, mv.pending, mv.prev, heat, 0, words)
        mv.cursor = 0
        mv.carry = 0.0
        # a delta holds its blocks in the order first written: merging it seeks for each
        mv.seek_share = 1.0 if kind == "consolidation" else self._seeks_per_block(mv.pending)
        mv.passes.append(MovePass(len(mv.passes) + 1, kind, 0, self._now, deferred=held))
        return n

    @staticmethod
    def _seeks_per_block(plane: np.ndarray) -> float:
        """Runs of consecutive blocks set in ``plane`` per block set (a copy of them seeks for
        each run)."""
        n = M.count_bits(plane, 0, len(plane))
        return M.count_runs(plane, 0, len(plane)) / n if n else 0.0

    # -- the step -------------------------------------------------------------------------------
    def advance(self, dt: float) -> None:
        """Do ``dt`` seconds of copying for every active Storage vMotion."""
        act = self.active
        if not act:
            return
        for mv in act:
            self._advance_one(mv, dt)

    def _copying(self, mv: VMotion) -> bool:
        """True while the mover of ``mv`` keeps its IOs on the volumes."""
        return mv.active and mv.setup_left_s <= 1e-12 and bool(mv.passes) and (
            mv.state != "quiesced" or mv.pending_copy)

    def _volumes(self, copying: VMotion, stopped: bool = False,
                 seeks: float | None = None) -> tuple[dict[str, float], dict[str, GuestIO]]:
        """Each volume's IO latency (s) and each running guest's IO (with its served share),
        with the movers copying now and that of ``copying`` (making ``seeks`` seeks per block,
        or its pass's); ``stopped``: its guest taken as stopped (the last copy of DBT)."""
        without = copying.guest.userid if stopped else None
        movers: dict[str, float] = {}
        mirror: dict[str, VMotion] = {}
        for mv in self.active:
            if mv is copying or self._copying(mv):
                share = seeks if mv is copying and seeks is not None else mv.seek_share
                for name in (mv.source, mv.dest):
                    movers[name] = movers.get(name, 0.0) + self._mover_load(name, share)
                if mv.method == "MIRROR" and mv.state != "quiesced":
                    mirror[mv.guest.userid] = mv
        flows: list[GuestIO] = []
        for uid, ds in self.where.items():
            g = self.sim.guests.get(uid)
            if g is None or uid == without or not g.logged_on or g.stopped_by \
                    or g.cfg.disk is None:
                continue
            d = g.cfg.disk
            f = GuestIO(uid, d.read_iops, d.write_iops, ds)
            m = mirror.get(uid)
            if m is not None:
                # writes to blocks already copied go to both volumes, synchronously
                f.mirror, f.mirrored = m.dest, self._mirrored_share(m)
            if f.reads + f.writes > 0:
                flows.append(f)
        lat = solve_volumes(self.datastores, movers, flows, self.model)
        return lat, {f.userid: f for f in flows}

    @staticmethod
    def _hot(mv: VMotion) -> tuple[int, float]:
        """The blocks at the start of the disk that take a share of the guest's writes of
        their own (a mail server's logs and metadata), and that share: (0, 0.0) for none."""
        disk = mv.guest.cfg.disk
        assert disk is not None
        if disk.pattern == "mail" and disk.hot_fraction > 0:
            return max(1, int(mv.nblocks * disk.hot_fraction)), disk.hot_share
        return 0, 0.0

    def _mirrored_share(self, mv: VMotion) -> float:
        """The share of the guest's writes that go to blocks the bulk copy has made already
        (it copies from the first block on): those go to both volumes. A mail server's logs
        and metadata at the start of the disk are copied within seconds, and their writes
        are mirrored from then on (counted as spread over the disk, its writes were mirrored
        as its copied share of the blocks)."""
        hot_hi, hot_share = self._hot(mv)
        done = mv.copied_ever
        if hot_hi >= mv.nblocks or hot_hi <= 0:
            return done / mv.nblocks
        return (hot_share * min(1.0, done / hot_hi)
                + (1.0 - hot_share) * max(0, done - hot_hi) / (mv.nblocks - hot_hi))

    def _mover_load(self, name: str, seeks: float) -> float:
        """A mover's IOs on volume ``name`` in streaming IOs' worth: each block's streaming
        and ``seeks`` positionings per block (scattered blocks hold the volume longer, and the
        guest's IOs wait behind them)."""
        ds = self.datastores[name]
        return 1.0 + seeks * seek_s(ds) / stream_s(ds, self.model)

    def _mover_s(self, mv: VMotion, lat: dict[str, float],
                 seeks: float | None = None) -> tuple[float, float]:
        """Seconds per block and per run (a seek) for the mover of ``mv`` at these latencies
        (``seeks`` seeks per block, or its pass's): each of its 16 IOs waits the volume's
        round, and it goes at the slower volume's pace."""
        md = self.model
        share = mv.seek_share if seeks is None else seeks
        unit = run = 0.0
        for ds in (self.datastores[mv.source], self.datastores[mv.dest]):
            r = lat[ds.name]
            # the round holds the mover's 16 IOs with their seeks: of it, a block's streaming
            # (never less than a large IO's service time on an idle volume) and a seek's
            # positioning, each stretched as the round is
            per = r / (md.outstanding_ios * self._mover_load(ds.name, share))
            unit = max(unit, max(per, ds.latency_ms / 1000.0 / md.outstanding_ios))
            run = max(run, per * seek_s(ds) / stream_s(ds, md))
        return unit, run

    def _rates(self, mv: VMotion) -> tuple[float, float, float, float]:
        """Per block and per run seconds for the mover now, the guest's served share of its
        offered IO, and its write latency in ms."""
        lat, flows = self._volumes(mv)
        unit, run = self._mover_s(mv, lat)
        f = flows.get(mv.guest.userid)
        if f is None:  # stopped, or no IO of its own
            return unit, run, 1.0, lat[mv.source] * 1000.0
        return unit, run, f.scale, f.write_s(lat) * 1000.0

    def _advance_one(self, mv: VMotion, dt: float) -> None:
        sim = self.sim
        t = sim.t - mv.lead_s  # (begun before the step: it does that much more)
        dt += mv.lead_s
        mv.lead_s = 0.0
        left = dt
        self._now = t
        g = mv.guest
        if not g.logged_on:
            self._finish(mv, "cancelled", "logged off",
                         f"Storage vMotion of {g.userid} cancelled: the guest logged off")
            return
        while left > 1e-12 and mv.active:
            self._now = t + (dt - left)
            if mv.setup_left_s > 0:
                use, mv.setup_left_s = spend(mv.setup_left_s, left)
                left -= use
                if mv.setup_left_s == 0.0:
                    self._now = t + (dt - left)
                    mv.state = "copying"
                    self._begin(mv, "first", first=True)
                continue
            if mv.state == "quiesced" and not mv.pending_copy:
                # only the switch is left
                use = min(mv.switch_left_s, left)
                mv.switch_left_s -= use
                left -= use
                if mv.switch_left_s <= 1e-12:
                    self._now = t + (dt - left)
                    self._complete(mv)
                continue
            unit, run, io_pct, lat = self._rates(mv)
            if mv.method == "SNAPSHOT" and mv.passes[-1].kind == "consolidation":
                # a delta holds its blocks in the order they were first written: merging it
                # puts every block in its own place on the destination, a seek each
                unit, run = unit + run, 0.0
            assert mv.pending is not None and g.cfg.disk is not None
            c = self._c
            cur = mv.passes[-1]
            live = mv.state != "quiesced"
            # (while the guest writes, its writes follow the copy a round at a time)
            in_rounds = live and g.cfg.disk.write_iops > 0
            while True:
                chunk = round_chunk(left, unit + run, in_rounds)
                M.copy_pending(mv.pending, mv.cursor, len(mv.pending), chunk, unit, run,
                               mv.carry, c)
                done = c[M.C_DONE] > 0.5
                used = round_used(float(c[M.C_USED_S]), chunk, left, done)
                copied = int(c[M.C_UNITS])
                mv.cursor = int(c[M.C_CURSOR])
                mv.carry = float(c[M.C_CARRY])
                cur.units += copied
                mv.units_moved += copied
                if cur.number == 1:
                    mv.copied_ever += copied
                elif mv.method == "SNAPSHOT":
                    mv.delta_blocks -= copied  # consolidated blocks leave the old delta
                if live:
                    self._writes(mv, used, io_pct)
                    mv.io_s += used
                    mv.io_pct_s += used * io_pct
                    mv.latency_ms_s += used * lat
                self._note_space(mv)
                left -= used
                if done or left <= 1e-12:
                    break
            if done:
                self._now = t + (dt - left)
                cur.end_s = self._now
                self._end_pass(mv)

    def _writes(self, mv: VMotion, seconds: float, io_pct: float) -> None:
        """The guest's writes during ``seconds`` of the copy, tracked as the method does."""
        disk = mv.guest.cfg.disk
        assert disk is not None and mv.dirty is not None and mv.pending is not None
        assert mv.prev is not None and mv.rng is not None
        mv.write_acc += disk.write_iops * io_pct * seconds
        n = int(mv.write_acc)
        if n <= 0:
            return
        mv.write_acc -= n
        mode = {"MIRROR": M.TRACK_NONE, "INCDBT": M.TRACK_COPIED}.get(mv.method, M.TRACK_ALL)
        w = self._w
        w[:] = 0
        w[M.W_LO] = 1 << 62
        hot_n = 0
        hot_hi, hot_share = self._hot(mv)
        if hot_hi:
            # logs and metadata: a small stretch at the start of the disk takes many writes
            hot_n = round(n * hot_share)
            M.write_random(mv.dirty, mv.pending, mv.prev, mv.heat, mode, 0, hot_hi, hot_n,
                           mv.rng, w)
        M.write_random(mv.dirty, mv.pending, mv.prev, mv.heat, mode,
                       hot_hi if hot_hi < mv.nblocks else 0, mv.nblocks, n - hot_n, mv.rng, w)
        if mv.method == "SNAPSHOT":
            mv.delta_blocks += int(w[M.W_MARKED])

    def _note_space(self, mv: VMotion) -> None:
        # source disk + destination copy + snapshot deltas, in blocks beyond the source disk
        extra = mv.copied_ever + max(0, mv.delta_blocks)
        mv.space_peak_blocks = max(mv.space_peak_blocks, extra)

    def _dirty_cost_s(self, mv: VMotion) -> float:
        """Seconds to copy every dirty block with the guest stopped (the same volume model,
        without the guest's own IO)."""
        assert mv.dirty is not None
        n = M.count_bits(mv.dirty, 0, len(mv.dirty))
        runs = M.count_runs(mv.dirty, 0, len(mv.dirty))
        seeks = runs / n if n else 0.0
        lat, _ = self._volumes(mv, stopped=True, seeks=seeks)
        unit, run = self._mover_s(mv, lat, seeks)
        return n * unit + runs * run

    def _end_pass(self, mv: VMotion) -> None:
        sim = self.sim
        g = mv.guest
        cur = mv.passes[-1]
        sim.emit("VMOTION_PASS", g.member, g.userid,
                 f"{g.userid}: Storage vMotion pass {cur.number} ({cur.kind}) copied "
                 f"{cur.units} blocks in {cur.seconds:.1f} s",
                 {"pass": cur.number, "blocks": cur.units, "seconds": round(cur.seconds, 6)},
                 at=self._now)
        if mv.state == "quiesced":
            mv.pending_copy = False
            return
        assert mv.dirty is not None
        if mv.method == "MIRROR":
            self._quiesce(mv, self.model.switch_s)
            return
        if mv.method == "SNAPSHOT":
            if mv.consolidations < self.model.snapshot_live_consolidations:
                mv.consolidations += 1
                self._begin(mv, "consolidation")
                return
            self._quiesce(mv, self.model.snapshot_switch_s, final="consolidation")
            return
        n = M.count_bits(mv.dirty, 0, len(mv.dirty))
        # (the downtime is the last copy and the switch after it)
        if self._dirty_cost_s(mv) + self.model.switch_s <= self.model.downtime_target_s:
            self._quiesce(mv, self.model.switch_s)
            return
        if n < mv.dirty_best * (1.0 - self.model.progress_fraction):
            mv.no_progress = 0
        else:
            mv.no_progress += 1
        mv.dirty_best = min(mv.dirty_best, n)
        md = self.model
        if mv.no_progress >= md.no_progress_passes or len(mv.passes) >= md.max_passes:
            self._finish(mv, "failed", "failed to converge",
                         f"Storage vMotion of {g.userid} failed to converge: after "
                         f"{len(mv.passes)} iterations {n} blocks are still dirty (the guest "
                         f"writes faster than the copy can follow); the disk stays on "
                         f"{mv.source}")
            return
        self._begin(mv, "iteration", heat=mv.heat)

    def _quiesce(self, mv: VMotion, switch_s: float, final: str = "final") -> None:
        """Stop the guest: copy what is dirty (if anything), then switch to the new disk."""
        g = mv.guest
        mv.state = "quiesced"
        mv.t_quiesce = self._now
        g.hold(self.STOP_REASON)
        mv.switch_left_s = switch_s
        if mv.method == "MIRROR":
            mv.pending_copy = False
            return
        self._begin(mv, final)  # every dirty block, hot ones included
        mv.pending_copy = True
        self.sim.emit("VMOTION_QUIESCE", g.member, g.userid,
                      f"{g.userid} stopped for the last copy and the switch to {mv.dest}",
                      at=self._now)

    def _finish(self, mv: VMotion, state: str, result: str, message: str) -> None:
        self.close(mv, state, result, message)
        disk = mv.guest.cfg.disk
        assert disk is not None
        if mv.io_s > 0:
            mv.cost["guest_io_pct"] = 100.0 * mv.io_pct_s / mv.io_s
            mv.cost["write_latency_ms"] = mv.latency_ms_s / mv.io_s
        mv.cost["space_peak_x"] = (mv.nblocks + mv.space_peak_blocks) / mv.nblocks
        mv.cost["gb_copied"] = mv.units_moved * self.model.block_bytes / 2**30
        mv.pending = mv.dirty = mv.prev = None  # free the bitmaps
        kind = {"done": "VMOTION_DONE", "failed": "VMOTION_FAILED"}.get(state, "VMOTION_CANCELLED")
        self.sim.emit(kind, mv.guest.member, mv.guest.userid, message, {"result": result},
                      at=mv.t_end)

    def _complete(self, mv: VMotion) -> None:
        assert mv.dirty is not None
        # every block's final version is on the destination: nothing pending, nothing dirty
        assert M.count_bits(mv.dirty, 0, len(mv.dirty)) == 0 or mv.method == "MIRROR"
        self.where[mv.guest.userid] = mv.dest
        self._finish(mv, "done", "moved",
                     f"The disk of {mv.guest.userid} has been moved from {mv.source} to "
                     f"{mv.dest}")

    def cancel(self, mv: VMotion, by: str) -> None:
        """Stop a Storage vMotion: the disk stays where it was; the copy is discarded."""
        self._now = command_start(self.sim)
        self._finish(mv, "cancelled", "cancelled",
                     f"Storage vMotion of {mv.guest.userid} to {mv.dest} is cancelled by {by}")

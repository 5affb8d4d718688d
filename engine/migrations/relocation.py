"""Live Guest Relocation: VMRELOCATE's storage checks, memory-move passes, quiesce and throttles.

The relocation works on the guest's bit-planes: pass 1 sends every instantiated page, each later
pass the pages changed (LGR plane) since the previous pass began, while the guest keeps running on
the source. The destination holds an *incoming* copy of the guest whose pages take frames as they
arrive. All model parameters are in ``LGRModel``, with how each was derived.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..basics.config import LinkConfig
from ..basics.units import PAGES_PER_GB, format_size
from ..kernels import pages as K
from ..world.paging import PAGING, PagingModel, dasd_wait_s, io_budget, io_units, moves_io_share
from ..world.state import Guest, Member, PassSnapshot, RelocationSnapshot
from ..world.world import World
from .migration import MoveEngine, MoveRecord, command_start, pass_seconds


@dataclass(frozen=True)
class LGRModel:
    """Parameters of the relocation model, each derived from the published z/VM 6.2 measurements.

    Reference: two members on one z10, ISFC link 1x2 + 2x4 + 1x8 Gb CHPIDs with 4 CTCs each
    (capacity 18); a 100 GB Linux guest. Idle: quiesce 8.71 s, relocation 22.46 s, 4 passes,
    1,297,347 pages. Random changer on 25 %: quiesce 18.16 s, relocation 142.56 s, 8 passes,
    41,942,816 pages, nearly 25 GB per pass in passes 2 to 6.

    A pass is the relocation task's work on one processor of the source (the DAT scan, then
    for each changed page its staging while the guest runs and its message) while the link
    carries the messages it has queued and the destination's CP receives them on a processor
    of its own: the pass takes as long as the slowest of the three, then the scan's status
    records. So the live passes of the reference z10 go at its processor's pace, the quiesced
    ones (no staging) at the link's.
    """

    #: DAT-table scan per pass, CPU seconds (at cpu_speed 1) per GB of *defined* storage. The
    #: idle guest's two quiesce passes move almost nothing yet take 8.71 s for 100 GB, 4.355 s
    #: a pass; of that, the scan's status records (below) take 0.49 s over capacity 18 (26.2
    #: million pages x 32 bytes at 1.71 GB/s): 3.865 s of processor work, 0.03865 s per GB.
    dat_scan_s_per_gb: float = 0.03865
    #: Bytes of status the scan sends over the link per page of defined storage (the page's
    #: change and key state). Makes the quiesce of an idle guest grow as the link gets slower.
    scan_bytes_per_page: float = 32.0
    #: A CTC device carries one message at a time: it holds the CHPID while the message's bytes
    #: go, then does its turn-around (the channel program's end, the interrupt, CP taking the
    #: message and starting the next) off the CHPID. The turn-around takes as long on any
    #: CHPID, the transfer its bytes over the CHPID's speed, so their ratio grows with the
    #: speed: this is the ratio on a CHPID of 1 Gbit/s (2.01 on 8 Gbit/s, 0.50 on 2). The
    #: devices of a CHPID are then a closed queue at one server (``ctc_share``): one device
    #: leaves the CHPID idle while it turns around, more keep it busy, the faster the CHPID the
    #: more it takes (domain.md: "a CHPID is used best with 4 or 5 devices": 4 keep a 2 Gbit/s
    #: CHPID busy 99.8 % of the time, an 8 Gbit/s one 90 %, 5 96 %). Set from the busy
    #: relocation's quiesce: over 1x2 + 2x4 + 1x8 Gbit/s with 4 CTCs each the link carries 95 %
    #: of its payload (0.998 x 2 + 0.984 x 8 + 0.904 x 8 = 17.1 Gbit/s: 1.71 GB/s, 417,000
    #: pages/s), and the 5.7 million pages changed by the quiesce take its penultimate pass
    #: 13.9 s: quiesce 18.7 s, published 18.16 s.
    ctc_turnaround_per_gbps: float = 0.251438
    #: Payload a FICON CHPID carries per second and per Gbit/s of its link speed, bytes: Fibre
    #: Channel's 8b/10b coding and framing leave 100 MB/s a direction per Gbit/s (2, 4 and
    #: 8 Gbit/s FC: 200, 400 and 800 MB/s; T11 FC-PI). Capacity 18 carries at most 1.8 GB/s.
    link_bytes_s_per_gbps: float = 1e8
    #: CPU time to copy one page into a staging frame, seconds (at cpu_speed 1). A running guest
    #: may change a page while it is sent, so live passes stage each page; quiesced passes send in
    #: place. Derived from the busy relocation: its live passes 1 to 6 (35.4 million pages,
    #: nearly 25 GB each after the first) take 142.56 s less its quiesce (18.16 s), its set-up
    #: (1.5 s) and six scans with their status records (4.355 s each): 96.8 s, 2.73 us a page
    #: on the relocation's processor, more than the link's 2.40 us; less the message's 0.3 us
    #: (``send_cpu_s_per_page``), 2.43 us.
    stage_s_per_page: float = 2.43e-6
    #: Fixed work of a relocation (checks, creating the virtual machine on the destination, and
    #: handing the guest over after the final pass), all done before pass 1 here: the idle
    #: relocation's 22.46 s less its four scans with their status records (4.355 s each) and
    #: its pass 1's 1.3 million pages at 2.73 us on the processor (3.54 s): 1.5 s.
    setup_s: float = 1.5
    #: CPU CP spends per page to build and send its message, and to receive and place it (the
    #: destination receives on a processor of its own: the pages go no faster than it does
    #: this, ``destination:socket``).
    send_cpu_s_per_page: float = 0.3e-6
    receive_cpu_s_per_page: float = 0.3e-6
    #: How long a staged page holds its staging frame: until its message is on the link and
    #: the destination has acknowledged it (assumed: about four FICON CTC message round trips
    #: of 1 to 2 ms). At a link's rate R the staging holds R x this many frames; when the
    #: source has fewer free frames above its low mark (its demand scan cannot keep up), the
    #: source throttles ("stage_frames") and sends only what the frames it has can stage.
    stage_hold_s: float = 0.008
    #: Messages over CHPIDs of unequal speed arrive out of order and wait to be presented in
    #: order: the share of sending time lost is this much per unit of the CHPIDs' spread of
    #: speed (standard deviation over mean), at most ``ordering_max``. Assumed: the reference
    #: link (2 + 4 + 4 + 8 Gb, spread 0.48) loses about 1 %.
    ordering_per_spread: float = 0.02
    ordering_max: float = 0.05
    #: Quiesce at once when the changed set could be sent in this much time at the rate the
    #: relocation gets: the link's, or its part of it while other relocations share it.
    quiesce_threshold_s: float = 0.25
    #: A pass makes progress when its changed set is this much smaller than the smallest before.
    progress_fraction: float = 0.05
    #: Passes without progress after which CP quiesces: 2 + 4 -> penultimate 7, final 8.
    no_progress_passes: int = 4
    #: Most passes of a relocation.
    max_passes: int = 18


MODEL = LGRModel()

#: Throttles that hold the pages back within a step (``RelocationEngine._held``)
HELD_BACK = ("source:stage_frames", "source:paging_queue", "source:dest_backlog",
             "source:link_queue", "destination:frames", "destination:paging_queue",
             "destination:steal")

THROTTLE_REASONS = {
    ("source", "stage_frames"): "too few free frames on the source to stage outbound pages",
    ("source", "paging_queue"): "too many paging requests queued on the source's paging volumes",
    ("source", "link_queue"): "too many outbound messages queued on the ISFC link",
    ("source", "dest_backlog"): "the destination asked the source to pause (backlog)",
    ("destination", "frames"): "too few free frames on the destination for inbound pages",
    ("destination", "paging_queue"): "the destination's paging volumes are saturated",
    ("destination", "steal"): "the destination's frame replenishment is taking the relocating "
                              "guest's pages",
    ("destination", "socket"): "too many inbound messages on the memory-move socket",
    ("link", "ordering"): "messages arrived out of order and wait to be presented in order",
}


def ctc_share(ctcs: int, turnaround_ratio: float) -> float:
    """The share of its time a CHPID carries data with ``ctcs`` CTC devices that each send a
    message on it and then turn around off it for ``turnaround_ratio`` times as long: ``ctcs``
    customers of one server with think time over service time ``turnaround_ratio`` (the
    machine-repairman queue). The CHPID is idle only when every device is turning around:
    ``1 - 1 / sum(n! / (n-k)! * (1/ratio)**k for k in 0..n)``."""
    rho = 1.0 / turnaround_ratio
    term, total = 1.0, 1.0
    for k in range(1, ctcs + 1):
        term *= (ctcs - k + 1) * rho
        total += term
    return 1.0 - 1.0 / total


def link_pages_per_s(link: LinkConfig, model: LGRModel = MODEL, devices: float = 1.0) -> float:
    """Pages per second the ISFC link carries one way: its CHPIDs' payload rates
    (``link_bytes_s_per_gbps``, each way: Fibre Channel is full duplex), each by the share of
    its time its CTC devices keep it carrying data (``ctc_share``), their turn-around over a
    message's transfer growing with the CHPID's speed.

    A CTC device is written by one side at a time (both writing at once is a write collision,
    which z/VM avoids: the member of the lesser system name writes on the devices from the
    lowest device number up, the other from the highest down; IBM, "Avoidance of write
    collisions", Linux on IBM Z and LinuxONE performance documentation). ``devices`` is the
    share of each CHPID's devices this direction has (``RelocationEngine._devices``: all when
    nothing goes the other way, half each when both directions are saturated), a fractional
    device counted between the whole numbers; each direction has the CHPID's bandwidth."""
    r = model.ctc_turnaround_per_gbps
    gbps = 0.0
    for c in link.chpids:
        n = c.ctcs * devices
        lo = int(n + 1e-9)
        share = ctc_share(lo, r * c.gbps) if lo else 0.0
        if n - lo > 1e-9:
            share += (n - lo) * (ctc_share(lo + 1, r * c.gbps) - share)
        gbps += c.gbps * share
    return gbps * model.link_bytes_s_per_gbps / 4096


#: longest round of relocation work when several relocations run in one step (``advance``):
#: a way of computing, not a figure of the system
RELOCATION_ROUND_S = 0.1


def scan_s(npages: int, link: LinkConfig, sharers: float = 1, model: LGRModel = MODEL,
           cpu_speed: float = 1.0, devices: float = 1.0) -> float:
    """Seconds one pass spends scanning the guest's DAT tables (CPU work of the source, whose
    processors have ``cpu_speed``) and sending their status (``link_pages_per_s``)."""
    link_bytes_s = link_pages_per_s(link, model, devices) * 4096 / sharers
    return npages / PAGES_PER_GB * model.dat_scan_s_per_gb / cpu_speed + \
        npages * model.scan_bytes_per_page / link_bytes_s


def pages_beside_scan(r: Relocation, ordered: float, building: float, receive: float) -> bool:
    """Whether ``r``'s pages go as its processor scans its guest's DAT tables: it has both
    left, and the link (``ordered`` seconds a page) or the destination's processor
    (``receive``) is slower than its own processor's work on a page (``building``)."""
    return (r.scan_cpu_left_s > 1e-12 and r.send_left > 0
            and max(ordered, receive) > building * (1 + 1e-9))


def fair_level(cap: float, wants: list[float]) -> float:
    """Max-min fair sharing of ``cap`` among users wanting ``wants`` (sorted, the last one
    unbounded): the part each user that wants more than its share gets."""
    left = cap
    for i, w in enumerate(wants):
        fair = left / (len(wants) - i)
        if w >= fair:
            return fair
        left -= w
    return left


def cp_stretch(m: Member, want: float) -> float:
    """How much longer a relocation's CPU-bound work takes on ``m`` when its relocation tasks
    ask for ``want`` processors beside CP's other work (``Member.cp_cpus``: paging, storage
    resets): 1 while CP's work fits on the member's processors, else the processors CP asks
    for over those it has (CP's tasks share them in proportion)."""
    return max(1.0, (want + m.cp_cpus) / m.cfg.cpus)


def ordering_fraction(link: LinkConfig, model: LGRModel = MODEL) -> float:
    """Share of time messages wait for order: CHPIDs of unequal speed deliver out of order."""
    speeds = [c.gbps for c in link.chpids]
    if len(speeds) < 2:
        return 0.0
    mean = sum(speeds) / len(speeds)
    spread = math.sqrt(sum((s - mean) ** 2 for s in speeds) / len(speeds)) / mean
    return min(model.ordering_max, model.ordering_per_spread * spread)


@dataclass
class RelocationOptions:
    """VMRELOCATE options."""

    test: bool = False
    sync: bool = True
    immediate: bool = False
    maxquiesce_s: float | None = 10.0  # None: NOLIMIT
    maxtotal_s: float | None = None
    force_storage: bool = False

    def describe(self) -> str:
        """The options as they would be typed."""
        parts = ["SYNC" if self.sync else "ASYNC"]
        if self.immediate:
            parts.append("IMMEDIATE")
        parts.append("MAXQUIESCE " + ("NOLIMIT" if self.maxquiesce_s is None
                                      else f"{self.maxquiesce_s:g}"))
        parts.append("MAXTOTAL " + ("NOLIMIT" if self.maxtotal_s is None
                                    else f"{self.maxtotal_s:g}"))
        if self.force_storage:
            parts.append("FORCE STORAGE")
        return " ".join(parts)


@dataclass
class PassRecord:
    """One memory-move pass."""

    number: int
    kind: str  # "first", "intermediate", "penultimate", "final"
    pages: int
    start_s: float
    end_s: float = 0.0
    throttle_s: float = 0.0

    @property
    def seconds(self) -> float:
        """How long the pass took."""
        return self.end_s - self.start_s


def inbound_frames(dest: Member) -> int:
    """Frames an arriving guest's pages may take now: those above the destination's low mark,
    less the page management blocks of the megabytes they fill (``Member.frames_per_seg``)."""
    room = max(0, dest.free_frames - dest.free_low)
    return max(0, int(room * 256 / (256 + dest.frames_per_seg)) - dest.seg_reserve)


def current_storage(guest: Guest, dest: Member) -> int:
    """Frames' worth of storage ``guest`` takes on ``dest``: its storage and VDISKs, and CP's
    structures for it (the page management block of every megabyte, ``pgmbk_kib``)."""
    cur = guest.cfg.storage_pages + guest.cfg.vdisk_total_pages
    return cur + math.ceil(cur / 256 * dest.frames_per_seg)


def storage_check(guest: Guest, dest: Member, force: bool, arriving: int = 0,
                  own: Guest | None = None) -> str | None:
    """The mandatory and optional storage checks; a message when one fails, else None.

    ``arriving``: the pages relocations already under way to ``dest`` have still to bring
    (``RelocationEngine.arriving_pages``): the storage available is what they leave, and of
    the paging space what they leave once they have filled the free frames and XSTOR, as they
    do as they come. ``own``: the guest's copy arriving on ``dest`` (the checks after a pass):
    the pages it has there already, and the slots they hold, are the guest's own."""
    cfg = guest.cfg
    cur = current_storage(guest, dest)
    mx = cfg.max_pages + cfg.vdisk_total_pages
    mx += math.ceil(mx / 256 * dest.frames_per_seg)
    held = own.instantiated if own is not None else 0
    held_slots = own.n_slot if own is not None else 0
    avail = dest.free_frames + dest.xstor_free + dest.slots_free - arriving + held
    aux = dest.slots_free - max(0, arriving - max(0, dest.free_frames) - dest.xstor_free) \
        + held_slots
    cap = (f"central {format_size(max(dest.free_frames, 0))}, XSTOR "
           f"{format_size(max(dest.xstor_free, 0))}, paging "
           f"{format_size(max(dest.slots_free, 0))}")
    coming = (f", less {format_size(arriving)} still to arrive from relocations under way"
              if arriving > 0 else "")
    if held:
        cap += f", its own {format_size(held)} there already"
    cap += coming
    room = format_size(max(avail, 0))
    more = (f", its own {format_size(held_slots)} there already" if held_slots else "") + coming
    paging = format_size(max(aux, 0)) + (f": paging {format_size(max(dest.slots_free, 0))}"
                                         f"{more}" if more else "")
    if cur > avail:
        return (f"its current storage ({format_size(cur)}, with VDISKs and CP structures) exceeds "
                f"the storage available on {dest.name} ({room}: {cap})")
    if force:
        return None
    if cur > aux:
        return (f"its current storage ({format_size(cur)}) exceeds the available paging space of "
                f"{dest.name} ({paging}); FORCE STORAGE bypasses this check")
    if mx > avail:
        return (f"its maximum storage ({format_size(mx)}, with standby and reserved) exceeds the "
                f"storage available on {dest.name} ({room}: {cap}); FORCE STORAGE "
                f"bypasses this check")
    if mx > aux:
        return (f"its maximum storage ({format_size(mx)}) exceeds the available paging space of "
                f"{dest.name} ({paging}); FORCE STORAGE bypasses this check")
    return None
    if cur > aux:
        return (f"its current storage ({format_size(cur)}) exceeds the available paging space of "
                f"{dest.name} ({format_size(aux)}); FORCE STORAGE bypasses this check")
    if mx > avail:
        return (f"its maximum storage ({format_size(mx)}, with standby and reserved) exceeds the "
                f"storage available on {dest.name} ({format_size(avail)}: {cap}); FORCE STORAGE "
                f"bypasses this check")
    if mx > aux:
        return (f"its maximum storage ({format_size(mx)}) exceeds the available paging space of "
                f"{dest.name} ({format_size(aux)}); FORCE STORAGE bypasses this check")
    return None


@dataclass(eq=False)
class Relocation(MoveRecord):
    """One VMRELOCATE MOVE of a guest, from command to completion or cancellation."""

    ACTIVE_STATES = ("moving", "quiesced")

    guest: Guest
    source: str
    dest: str
    options: RelocationOptions
    link: LinkConfig
    issuer: str
    t_start: float
    state: str = "moving"  # moving, quiesced, done, cancelled
    result: str = ""
    message: str = ""
    passes: list[PassRecord] = field(default_factory=list)
    throttle_s: dict[str, float] = field(default_factory=dict)
    active_throttles: dict[str, float] = field(default_factory=dict)
    #: the throttles whose reasons held the pages back in the current step
    held: set[str] = field(default_factory=set)
    t_quiesce: float | None = None
    t_end: float | None = None
    incoming: Guest | None = None
    send_left: int = 0
    scan_left_s: float = 0.0
    #: of the scan's time left, what is work of a processor (done first; the rest is its
    #: status records on the link, which asks for no processor and does not stretch)
    scan_cpu_left_s: float = 0.0
    #: True while its pass's pages go over the link as its processor scans (the link, not the
    #: processor, sets their pace): it counts as sending when the link is shared out
    scan_sending: bool = False
    #: counted as sending its pages as it scans when the link was last shared out among the
    #: relocations on it (alone on its link, it needs no count)
    scan_send_counted: bool = False
    #: its current pass sent pages as it scanned (CP's quiesce estimate reads its pace so)
    scanned_beside: bool = False
    setup_left_s: float = 0.0
    cursor: int = 0
    dirty_best: float = math.inf
    no_progress: int = 0
    pages_moved: int = 0
    cpu_s: float = 0.0
    ordering_lost_s: float = 0.0
    #: frames it holds on the source to stage outbound pages (``Member.stage_frames``)
    stage_pool: int = 0
    #: pages it sent in the step under way, the seconds it spent sending them, and the ways
    #: it shared its link then
    step_pages: int = 0
    step_send_s: float = 0.0
    step_sharers: float = 1.0
    #: pages it sent in the last step beyond its share of the link with a relocation joined
    #: within that step sending beside it (it had the whole step's share): it waits as long as
    #: they take it now before it sends on
    link_owed: float = 0.0
    #: seconds it began before the step it is next advanced in: its first step does that
    #: much more (less than nothing: begun within the step, it does the rest of it)
    lead_s: float = 0.0
    #: frames the destination's demand scan had taken from the arriving guest when the last
    #: step's relocation work was done (the ``destination:steal`` throttle: it took more since)
    stolen_seen: int = 0

    def held_s(self, key: str, start: float, now: float) -> float:
        """Seconds the throttle ``key``, on since ``start``, has held the pages back at
        ``now``: reordering slows the sending a little all along, so its seconds are the time
        it cost; any other reason holds them back all the time it is on."""
        return self.ordering_lost_s if key == "link:ordering" else max(0.0, now - start)

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        """The relocation as the JSON summary carries it (at ``now``: a throttle still on
        counts up to then)."""
        throttle = dict(self.throttle_s)
        if now is not None and self.t_end is None:
            for key, start in self.active_throttles.items():
                throttle[key] = throttle.get(key, 0.0) + self.held_s(key, start, now)
        return {
            "guest": self.guest.userid, "source": self.source, "destination": self.dest,
            "options": self.options.describe(), "result": self.result or self.state,
            "message": self.message, "passes": len(self.passes),
            "pages_moved": self.pages_moved, "quiesce_s": round(self.quiesced_until(now), 3),
            "cpu_s": round(self.cpu_s, 3),
            "relocation_s": round(self.took_until(now), 3), "ended": self.t_end is not None,
            "start_s": round(self.t_start, 3),
            "throttle_s": {k: round(v, 3) for k, v in sorted(throttle.items())},
            "pass_list": [{"pass": p.number, "kind": p.kind, "pages": p.pages,
                           "start_s": round(p.start_s, 3),
                           "seconds": round(pass_seconds(p.start_s, p.end_s, now), 3),
                           "throttle_s": round(p.throttle_s, 3)}
                          for p in self.passes],
        }


class RelocationEngine(MoveEngine[Relocation]):
    """Runs the active relocations of a simulation, a step at a time."""

    STOP_REASON = "relocation"

    def __init__(self, sim: World, model: LGRModel = MODEL,
                 paging: PagingModel = PAGING) -> None:
        super().__init__()
        self.sim = sim
        self.model = model
        self.paging = paging
        self._out = np.zeros(K.X_OUT_LEN, dtype=np.int64)
        self._clock = np.zeros(2)  # the send kernel's seconds used and waited for reads
        self.sharers: dict[Relocation, float] = {}
        #: steps run: the relocation first in turn in a step's rounds changes with it
        self.turns = 0
        self._step_end = 0.0
        self._step_len = 0.0
        #: the length of the round (or the rest of the step) being done
        self._span = 0.0
        #: relocations started within the step after its relocation work (``advance_joined``)
        self._joined: list[Relocation] = []
        self.io_for_moves: dict[str, list[float]] = {}
        self._io_moves_step: dict[str, tuple[float, float]] = {}
        #: how much slower each relocation's CPU-bound work runs for sharing processors
        self.cpu_stretch: dict[Relocation, float] = {}
        #: the same on each relocation's destination
        self.dst_stretch: dict[Relocation, float] = {}
        #: CPU seconds relocation work took on each member in the current step (system work:
        #: it is served before the guests)
        self.cpu_s: dict[str, float] = {}
        #: the same, piece by piece of the step (``cpu_bins_s`` each, from its start): what
        #: the guests of a member short of processors lose goes with when the relocations used
        #: the processors (``Simulation._step_member``)
        self.cpu_bins: dict[str, np.ndarray] = {}
        self.cpu_bins_s = 1.0

    @staticmethod
    def _way(r: Relocation) -> tuple[str, str]:
        """The direction ``r`` sends over its link: the relocations going the same way share
        it; those going the other way have the CHPIDs' other direction."""
        return (r.source, r.dest)

    def _devices(self, r: Relocation, sending: Collection[Relocation] = ()) -> float:
        """The share of its link's CTC devices ``r``'s direction has now: all of them, less
        what the relocations going the other way keep busy. Each side writes on the devices
        from its own end, so a side sending at a fraction ``f`` of what half of the devices
        carry holds about ``f / 2`` of them: both saturated, half each. A relocation's demand
        is its pages at its processors' pace (the source's building, the destination's
        receiving), none while it sets up or scans before sending (its status records are few
        bytes a page; ``sending``: counted as sending whatever they do now)."""
        want = 0.0
        for x in self.active:
            if x.active and x.passes and x.source == r.dest and x.dest == r.source and (
                    x in sending
                    or x.send_left > 0 and not (x.scan_left_s > 0 and not x.scan_sending)):
                want += 1.0 / max(1e-12, *self._page_cpu_s(x))
        if want <= 0.0:
            return 1.0
        half = link_pages_per_s(r.link, self.model, 0.5)
        return 1.0 - min(1.0, want / half) / 2

    def _cap(self, r: Relocation) -> float:
        """Pages a second ``r``'s link carries in ``r``'s direction now (``link_pages_per_s``
        with the devices ``_devices`` leaves it)."""
        return link_pages_per_s(r.link, self.model, self._devices(r))

    def _link_s_per_page(self, r: Relocation, ways: float) -> float:
        """Seconds a page of ``r`` takes on its link sharing its direction ``ways`` ways,
        waiting to be presented in order included (``ordering_fraction``)."""
        return ways / self._cap(r) / max(1e-9, 1.0 - ordering_fraction(r.link, self.model))

    def find_link(self, a: str, b: str) -> LinkConfig | None:
        """The ISFC link between two members, if the scenario has one."""
        for link in self.sim.scenario.links:
            if set(link.members) == {a, b}:
                return link
        return None

    # -- start --------------------------------------------------------------------------------
    def start(self, guest: Guest, dest: str, options: RelocationOptions, issuer: str,
              link: LinkConfig) -> Relocation:
        """Begin moving ``guest`` (checks already passed)."""
        assert guest.member is not None and guest.planes is not None
        sim = self.sim
        start = command_start(sim)
        r = Relocation(guest, guest.member, dest, options, link, issuer, start)
        # begun before the step's relocation work: its first step does that much more; begun
        # within the step after it (``World.moves_from_s``): it does the rest of the step now,
        # from its start (``advance_joined``)
        if sim.moves_from_s > sim.t:
            self._joined.append(r)
        else:
            r.lead_s = sim.t - start
        shadow = Guest(guest.cfg, sim.seed)
        shadow.member = dest
        # np.zeros maps pages lazily (zeros_like would write all of them now)
        shadow.planes = np.zeros(guest.planes.shape, dtype=guest.planes.dtype)
        shadow.new_seg_map()
        shadow.count_dat_on(sim.members[dest])  # its DAT tables grow as its pages arrive
        shadow.state = "incoming"
        shadow.userid = guest.userid
        r.incoming = shadow
        guest.flush_pending()  # references made before the relocation are not its business
        guest.relocating = True
        r.setup_left_s = self.model.setup_s
        self.all.append(r)
        sim.emit("RELOCATION_START", r.source, guest.userid,
                 f"Relocation of {guest.userid} from {r.source} to {dest} started "
                 f"({options.describe()})", {"destination": dest})
        return r

    def _begin_pass(self, r: Relocation, kind: str, to_send: int | None = None) -> None:
        """Start the next pass; ``to_send`` when its SEND plane is already set up."""
        g = r.guest
        assert g.planes is not None
        n = len(r.passes) + 1
        if to_send is None:
            self.sim.run_guest_until(g, self._now)  # changes before pass 1 are not dirty
            g.flush_pending()
            to_send = K.start_pass(g.planes, n == 1)
            g.lgr_words = None
        r.send_left = to_send
        r.cursor = 0
        # (the scan's status records, a few bytes a page, go at an equal part of the link
        # among the relocations under way on it, taken as the pass begins)
        # (those whose set-up is over by now, whatever their turn in the round: counted by
        # what set-up each had left, the first in turn scanned as if alone on the link)
        now = self._now + 1e-9
        under_way = sum(1 for x in self.active if x.t_start + self.model.setup_s <= now
                        and self._way(x) == self._way(r))
        speed = self.sim.members[r.source].cfg.cpu_speed
        r.scan_left_s = scan_s(g.npages, r.link, max(1, under_way), self.model, speed,
                               self._devices(r))
        r.scan_cpu_left_s = min(r.scan_left_s,
                                g.npages / PAGES_PER_GB * self.model.dat_scan_s_per_gb / speed)
        # (it asks for a processor from now: shared out again for the rest of the round, or
        # the scans begun within a round ran side by side as if each had one)
        self._stretch([x for x in self.active if x.active], self._span)
        r.scan_sending = r.scan_send_counted = r.scanned_beside = False
        r.passes.append(PassRecord(n, kind, 0, self._now))

    # -- the step ------------------------------------------------------------------------------
    def advance(self, dt: float) -> None:
        """Do ``dt`` seconds of relocation work (called before the guests run)."""
        self.cpu_s = {}
        self.cpu_bins = {}
        self.cpu_bins_s = dt / max(1, math.ceil(dt / RELOCATION_ROUND_S - 1e-9))
        self.io_for_moves = {}
        self._io_moves_step = {}
        self._step_end = self.sim.t + dt
        self._step_len = dt
        for m in self.sim.members.values():
            m.reloc_tasks = 0
        act = self.active
        for r in act:
            r.step_pages = 0
            r.step_send_s = 0.0
        if not act:
            return
        # each relocation is a CP task on one processor of each member at a time. CP's work
        # runs before the guests' (who lose what it uses), but CP's own tasks share the
        # processors among them: when the relocations and CP's paging and storage resets (at
        # the pace of the member's last step) ask for more processors than the member has, each
        # gets its part, and the relocations' CPU-bound work (the DAT scan, staging) stretches
        # by as much. A task asks for what its work takes: a whole processor while it scans,
        # its pages' CPU at the pace of its part of the link while it sends, none while it sets
        # up (counted a processor each whatever they did, 25 relocations on 4 processors ran
        # 6.25 times slower while 2.4 of the processors stood idle)
        self._share_out(act, dt)
        # relocations at the same time run at the same time: they share a link, and the
        # members' frames and paging I/O, piece by piece through the step (each relocation
        # a round of at most ``RELOCATION_ROUND_S`` in turn, the first in turn changing with
        # each round), not the first one started taking a whole step's worth before the next
        rounds = 1 if len(act) == 1 else max(1, math.ceil(dt / RELOCATION_ROUND_S - 1e-9))
        waiting: set[Relocation] = set()  # held back until the next step
        for n in range(rounds):
            now = [r for r in act if r.active and r not in waiting]
            if not now:
                break
            self.sharers = self._link_shares(now, mark=True)
            # (what each asks of the processors changes as they go from setting up to
            # scanning to sending: 25 relocations set up as a step of 1 s began, then
            # scanned side by side on 4 processors as if each had one)
            self._stretch(now, dt / rounds, self.sharers)
            k = (self.turns + n) % len(now)
            for r in now[k:] + now[:k]:
                if self._advance_one(r, dt / rounds, self.sharers[r], n, rounds):
                    waiting.add(r)
        self.turns += 1

    def _use_cpu(self, member: str, cpu: float, start: float, span: float) -> None:
        """Relocation work took ``cpu`` seconds of ``member``'s processors over ``span`` seconds
        from ``start``: counted for the step (``cpu_s``) and spread over the pieces of it the
        span covers (``cpu_bins``; a span before the step's start, a relocation's lead, counts
        in its first piece)."""
        if cpu <= 0.0:
            return
        self.cpu_s[member] = self.cpu_s.get(member, 0.0) + cpu
        bins = self.cpu_bins.get(member)
        if bins is None:
            n = max(1, round(self._step_len / self.cpu_bins_s))
            bins = self.cpu_bins[member] = np.zeros(n)
        n = len(bins)
        a0 = (start - (self._step_end - self._step_len)) / self.cpu_bins_s
        b0 = a0 + max(span, 0.0) / self.cpu_bins_s
        a, b = min(max(a0, 0.0), n), min(max(b0, 0.0), n)
        if b0 - a0 < 1e-9:
            bins[min(int(a), n - 1)] += cpu
            return
        given = 0.0
        for i in range(int(a), min(n, math.ceil(b))):
            part = cpu * (min(b, i + 1) - max(a, i)) / (b0 - a0)
            bins[i] += part
            given += part
        # (a part before the step's start, a relocation's lead, in its first piece; a part
        # beyond its end in its last)
        bins[0 if a0 < 0.0 else n - 1] += cpu - given

    def _share_out(self, act: list[Relocation], dt: float) -> None:
        """The members' relocation tasks and paging I/O for the relocations ``act`` over
        ``dt`` seconds (those of the members already shared out in this step stay as they
        are); their processors are shared out by ``_stretch``."""
        tasks: dict[str, int] = {}
        for r in act:
            for name in (r.source, r.dest):
                tasks[name] = tasks.get(name, 0) + 1
        for name, n in tasks.items():
            self.sim.members[name].reloc_tasks = n
        # the relocations run before the guests, but the guests' page faults come first on the
        # paging devices: the relocations' reads on the source, and the writes the destination's
        # demand scan makes for their pages, get the part the faulting virtual CPUs leave
        members = self.sim.members
        for r in act:
            for name in (r.source, r.dest):
                if name not in self.io_for_moves:
                    m = members[name]
                    self.io_for_moves[name] = [moves_io_share(m) * m.io_capacity_s * dt]
                    # (the pool's rate, and the moment it covers from)
                    self._io_moves_step[name] = (moves_io_share(m) * m.io_capacity_s,
                                                 self._step_end - dt)

    def _stretch(self, act: list[Relocation], span: float,
                 shares: dict[Relocation, float] | None = None) -> None:
        """How much slower each of the relocations ``act`` does its CPU-bound work over the
        next ``span`` seconds for sharing its members' processors, from what each asks for
        (``shares``: their parts of their links, when already known)."""
        self._span = span
        want: dict[str, float] = {}
        if shares is None:
            shares = self._link_shares(act)
        for r in act:
            src_want, dst_want = self._cpu_want(r, shares.get(r, 1.0), span)
            want[r.source] = want.get(r.source, 0.0) + src_want
            want[r.dest] = want.get(r.dest, 0.0) + dst_want
        self.cpu_stretch = {r: cp_stretch(self.sim.members[r.source], want[r.source])
                            for r in act}
        self.dst_stretch = {r: cp_stretch(self.sim.members[r.dest], want[r.dest]) for r in act}

    def advance_joined(self) -> None:
        """Do the rest of the step for the relocations started within it, after the step's
        relocation work (a command due within the step, one that waited for the console a
        SYNC relocation freed in it, the next relocation of a guest going back and forth): from
        their start, before the guests run the rest of the step (begun at the next step with
        the time before it owed, a relocation shorter than a step lay wholly in time the guest
        had already run, and found no page changed). Relocations begun at the same moment
        (commands due together; the simulation calls this after the last of them) go side by
        side in rounds, as in a step (``advance``): one after another, each had the rest of the
        step to itself, and ten begun together 2.3 s into a step of 5 s ended 3.9 s sooner than
        at steps of 0.1 s, quiescing 0.4 s against 1.9 s. One begun alone goes the same way,
        a group of one."""
        joined, self._joined = [r for r in self._joined if r.active], []
        for t0 in sorted({r.t_start for r in joined}):
            self._advance_together([r for r in joined if r.t_start == t0 and r.active], t0)

    def _advance_together(self, group: list[Relocation], t0: float) -> None:
        """The relocations ``group``, begun at moment ``t0`` within the step, do the rest of it
        side by side, in rounds of at most ``RELOCATION_ROUND_S`` (as ``advance``), sharing the
        links and processors with those that did the whole step already."""
        if not group:
            return
        span = self._step_end - t0
        act = self.active
        self._share_out(act, span)
        before = self._link_shares(act)
        devices = {x: self._devices(x) for x in act}
        rounds = max(1, math.ceil(span / RELOCATION_ROUND_S - 1e-9))
        waiting: set[Relocation] = set()
        for n in range(rounds):
            now = [r for r in group if r.active and r not in waiting]
            if not now:
                break
            live = [x for x in self.active if x.active]
            self.sharers = self._link_shares(live, mark=True)
            self._stretch(live, span / rounds, self.sharers)
            k = n % len(now)
            for r in now[k:] + now[:k]:
                if self._advance_one(r, span / rounds, self.sharers[r], n, rounds, t0):
                    waiting.add(r)
        self._owe_link(group, before, devices)

    def _owe_link(self, group: list[Relocation], before: dict[Relocation, float],
                  devices: dict[Relocation, float]) -> None:
        """The relocations on the link of the relocations ``group`` (joined within the step, at
        one moment) that sent in this step before they joined it owe what they sent beyond
        their share with the group sending too, for as long as both sent (from the start of
        the group's first pass to the end of its sending in the step, or of theirs when
        shorter): they wait as long as those pages take them at the next step. A relocation's
        pace at a share of the link comes from its pace in the step (its pages' link time and
        the CPU time that adds to it, staging); ``before`` holds the ways each shared the link
        before the group came, so a second group joined in the same step charges only the
        further drop, and ``devices`` the share of the link's CTC devices each direction had
        (the group going the other way takes some: ``_devices``). (Unpaid, a relocation joined
        1.5 s into a step of 10 s beside one that had had the whole link made that one 10 %
        faster than at steps of 0.5 s; one going the other way 2.3 % faster.)"""
        group = [r for r in group if r.step_pages and r.passes]
        if not group:
            return
        start = self._step_end - self._step_len
        first = min(max(r.passes[0].start_s, start) for r in group)
        end = max(self._step_end if r.active or r.t_end is None
                  else min(r.t_end, self._step_end) for r in group)
        over = end - first
        if over <= 0:
            return
        key = set(group[0].link.members)
        on = [x for x in self.active if set(x.link.members) == key and x not in group]
        mine = [r for r in group if set(r.link.members) == key]
        after = self._link_shares(on + mine, sending=set(mine))
        for x in on:
            if not x.step_pages or x.step_send_s <= 0 or x not in before:
                continue
            # its direction's capacity before the group came and with it sending
            full_was = link_pages_per_s(x.link, self.model, devices.get(x, 1.0))
            full_now = link_pages_per_s(x.link, self.model, self._devices(x, mine))
            had = x.step_pages / x.step_send_s  # its pace while it sent, pages a second
            # (the time a page takes it besides its part of the link)
            extra = max(0.0, 1.0 / had - x.step_sharers / full_was)
            was = 1.0 / (before[x] / full_was + extra)
            now = 1.0 / (after[x] / full_now + extra)
            x.link_owed += max(0.0, was - now) * min(over, x.step_send_s)

    def _io_since(self, name: str, left: float, since: float | None) -> float:
        """Of ``left``, what is left of member ``name``'s paging I/O for relocations this step,
        the part the devices' time from ``since`` on offers (the time before is gone)."""
        if since is None or name not in self._io_moves_step:
            return left
        rate, start = self._io_moves_step[name]
        gone = rate * min(max(0.0, since - start), self._step_end - start)
        return max(0.0, left - gone)

    def _cpu_want(self, r: Relocation, sharers: float, span: float) -> tuple[float, float]:
        """The processors ``r``'s CP task asks for on its source and its destination over
        the next ``span`` seconds: setting up asks for none, but one whose set-up ends within
        them asks for its first pass's DAT scan (its work that stretches comes after)."""
        if r.setup_left_s > 1e-12 or not r.passes:
            # (a set-up left of a rounding error is over: its pass has begun)
            return ((1.0, 0.0) if 1e-12 < r.setup_left_s <= span + 1e-12 and not r.passes
                    else (0.0, 0.0))
        if r.scan_left_s > 0:
            # the DAT scan: a processor of the source while it scans, none while its status
            # records are on the link
            return (1.0 if r.scan_cpu_left_s > 1e-12 else 0.0), 0.0
        md = self.model
        src, dst = self.sim.members[r.source], self.sim.members[r.dest]
        rate = self._cap(r) / max(1.0, sharers)
        per = md.send_cpu_s_per_page + (md.stage_s_per_page if r.state == "moving" else 0.0)
        return (min(1.0, per / src.cfg.cpu_speed * rate),
                min(1.0, md.receive_cpu_s_per_page / dst.cfg.cpu_speed * rate))

    def _alone_on_link(self, r: Relocation) -> bool:
        """No other relocation under way uses ``r``'s link in its direction."""
        key = self._way(r)
        return not any(x is not r and x.active and self._way(x) == key
                       for x in self.active)

    def _page_cpu_s(self, r: Relocation) -> tuple[float, float]:
        """Seconds a page of ``r`` takes the processors now: the source's relocation task
        stages it (while the guest runs) and builds its message on one processor; the
        destination's CP receives and places it on a processor of its own, beside the source's
        sending, so the pages go no faster than it takes them (and inbound messages queue on
        the memory-move socket when it is the slower)."""
        md = self.model
        src, dst = self.sim.members[r.source], self.sim.members[r.dest]
        stage = md.stage_s_per_page if r.state == "moving" else 0.0
        building = (md.send_cpu_s_per_page + stage) / src.cfg.cpu_speed * \
            self.cpu_stretch.get(r, 1.0)
        receive = md.receive_cpu_s_per_page / dst.cfg.cpu_speed * self.dst_stretch.get(r, 1.0)
        return building, receive

    def _link_shares(self, now: list[Relocation], sending: Collection[Relocation] = (),
                     mark: bool = False) -> dict[Relocation, float]:
        """How many ways each relocation shares its link for the pages it sends this round:
        the link's rate over its part of it.

        The relocations on a link share it fairly among what each can use (max-min): one
        sending pages can use all of it; one scanning its guest's DAT tables sends its status
        records over its scan's time and, where its processor is the slower (``_advance_one``),
        the pages it found after, so it leaves the rest to the others (counted as sending its
        pass's pages over the scan's time, a 32 GB guest's scan on processors of half speed
        took half the link from a relocation sending beside it and used a twentieth); where
        the link at the part it would get, or the destination's processor, would be the
        slower, its pages go as it scans and it counts as sending; one setting up, or held
        back until the next step, uses none. A relocation's own part is what it gets once it
        sends.
        ``sending``: one counted as sending whatever it does now (a relocation joined within
        the step, for the part of the step it sends in). ``mark``: these are the shares the
        round goes by, and each scan counted as sending is marked so (``scan_send_counted``).
        """
        links: dict[tuple[str, ...], list[Relocation]] = {}
        for r in now:
            links.setdefault(self._way(r), []).append(r)
        out: dict[Relocation, float] = {}
        for rs in links.values():
            cap = self._cap(rs[0])
            status = self.model.scan_bytes_per_page / 4096  # (pages' worth per page scanned)
            want = {r: (r.guest.npages * status / r.scan_left_s
                        if r.scan_left_s > 0 and r not in sending else math.inf)
                    for r in rs if r in sending or (r.passes and r.setup_left_s <= 1e-12)}
            # (a scan whose pages would go at the link's pace beside those sending now: sending)
            ways = 1 + sum(1 for w in want.values() if w == math.inf)
            beside = {r for r, w in want.items() if w < math.inf and pages_beside_scan(
                r, self._link_s_per_page(r, ways), *self._page_cpu_s(r))}
            want.update((r, math.inf) for r in beside)
            if mark:
                for r in rs:
                    r.scan_send_counted = r in beside
            senders = sorted(want.values())
            level = fair_level(cap, senders) if math.inf in want.values() else None
            for r in rs:
                if level is not None and want.get(r) == math.inf:
                    out[r] = cap / level
                else:  # as a sender beside the others
                    others = [w for x, w in want.items() if x is not r]
                    out[r] = cap / fair_level(cap, sorted(others + [math.inf]))
        return out

    def _advance_one(self, r: Relocation, dt: float, sharers: float, n: int = 0,
                     rounds: int = 1, t0: float | None = None) -> bool:
        """Round ``n`` of ``rounds`` of the step (each ``dt`` long, the first from ``t0``, by
        default the step's start) for relocation ``r``. True when it waits for the next step
        (frames or paging I/O), the rest of the step held."""
        sim = self.sim
        src = sim.members[r.source]
        dst = sim.members[r.dest]
        g = r.guest
        shadow = r.incoming
        assert shadow is not None and g.planes is not None and shadow.planes is not None
        last = n == rounds - 1
        # (a relocation started in this step that began before it does its first part too)
        t = (sim.t if t0 is None else t0) + n * dt - r.lead_s
        dt += r.lead_s
        r.lead_s = 0.0
        waits = False
        left = dt
        self._now = t
        base_rate = self._cap(r)
        rate = base_rate / sharers
        # (others taking a twentieth of the link or more)
        self._held(r, "source", "link_queue", sharers > 1.05)
        # (relocations going the other way holding some of the link's devices)
        fewer_devices = base_rate < 0.97 * link_pages_per_s(r.link, self.model)
        order = ordering_fraction(r.link, self.model)
        io_left = sim.io_left
        while left > 1e-12 and r.active:
            self._now = t + (dt - left)
            if self._check_limits(r, self._now):
                break
            if r.setup_left_s > 0:
                use = min(r.setup_left_s, left)
                r.setup_left_s -= use
                left -= use
                if r.setup_left_s <= 1e-12 and not r.passes:
                    self._now = t + (dt - left)
                    self._begin_pass(r, "first")
                continue
            if not r.passes:
                self._begin_pass(r, "first")
            cur = r.passes[-1]
            if cur.kind == "done":
                break
            live = r.state == "moving"
            stage = self.model.stage_s_per_page
            src_cpu = 1.0 / src.cfg.cpu_speed * self.cpu_stretch.get(r, 1.0)
            # the link carries the messages the source's relocation task has queued while the
            # task scans, stages (live) and builds the next ones on one processor
            sending = 1.0 / rate
            ordered = sending / max(1e-9, 1.0 - order)
            building, receive = self._page_cpu_s(r)
            # while it scans, its processor also builds the messages of the pages it finds,
            # and where the link or the destination's processor is the slower they go at
            # that pace as it scans (its scan then gets what building them leaves of its
            # processor)
            # (beside other relocations, only once the link was shared out with it counted as
            # sending: begun within a round, it was not)
            r.scan_sending = (pages_beside_scan(r, ordered, building, receive)
                              and (r.scan_send_counted or self._alone_on_link(r)))
            r.scanned_beside = r.scanned_beside or r.scan_sending
            if r.scan_left_s > 0 and not r.scan_sending:
                # its processor's work first, stretched when CP's tasks share the processors,
                # then its status records on the link, which use none and do not stretch (the
                # whole scan stretched, 25 relocations on 4 processors, their status records
                # sharing the link 25 ways, took 8.3 s longer than on 32; a scan asking for a
                # part of a processor all along, the scans used more processors than there were)
                if r.scan_cpu_left_s > 1e-12:
                    stretch = self.cpu_stretch.get(r, 1.0)
                    use = min(r.scan_cpu_left_s * stretch, left)
                    cpu = use / stretch
                    r.scan_cpu_left_s -= cpu
                    r.scan_left_s -= cpu
                else:
                    use = min(r.scan_left_s, left)
                    cpu = 0.0
                    r.scan_left_s -= use
                if r.scan_left_s <= 1e-12:
                    r.scan_left_s = r.scan_cpu_left_s = 0.0
                left -= use
                self._use_cpu(src.name, cpu, t + dt - left - use, use)
                r.cpu_s += cpu
                continue
            if r.send_left > 0:
                # (inbound messages queue for the destination's processor where it is the
                # slowest, and that costs the pass time unless its scan, going beside the
                # pages, takes longer still)
                socket = receive > max(ordered, building)
                if socket and r.scan_sending:
                    scan_wall = r.scan_cpu_left_s * self.cpu_stretch.get(r, 1.0)
                    socket = r.send_left * (receive - building) > scan_wall
                self._held(r, "destination", "socket", socket)
                per_page = max(ordered, building, receive)
                # (the messages queue for the devices the other direction leaves, where the
                # link sets the pace)
                self._held(r, "source", "link_queue",
                           fewer_devices and ordered > max(building, receive))
                # reordering costs only while the link sets the pace
                order_lost = (per_page - max(sending, building, receive)) / per_page
                # staging a page holds a frame for stage_hold_s: at the link's pace the
                # relocation keeps a pool of frames for it, taken from the source's free frames
                # above its low mark (short of them, its demand scan must free more first,
                # within its paging I/O) and kept until the guest stops; with fewer, the pages
                # go at the pace the pool allows
                need = int(math.ceil((1.0 / per_page) * self.model.stage_hold_s)) if live else 0
                self._stage_pool(r, src, need)
                throttled_src_frames = r.stage_pool < need
                self._held(r, "source", "stage_frames", throttled_src_frames)
                if throttled_src_frames:
                    if r.stage_pool <= 0:
                        # nothing to stage with until the next step
                        cur.throttle_s += left + dt * (rounds - 1 - n)
                        left = 0.0
                        waits = True
                        break
                    per_page = max(per_page, self.model.stage_hold_s / r.stage_pool)
                    order_lost = 0.0
                if r.link_owed > 0:
                    # pages of the last step it sent beyond its share: it waits as long as
                    # they take it now
                    use = min(r.link_owed * per_page, left)
                    r.link_owed -= use / per_page
                    left -= use
                    cur.throttle_s += use
                    self._held(r, "source", "link_queue", True)
                    continue
                budget_pages = max(1, int(left / per_page))
                # (scanning as it sends: of each page's time the processor has what building
                # it leaves for the scan, and the pages stop where the scan ends)
                spare = 1.0 - building / per_page if r.scan_sending else 0.0
                if r.scan_sending:
                    scan_wall = r.scan_cpu_left_s * self.cpu_stretch.get(r, 1.0)
                    budget_pages = min(budget_pages,
                                       max(1, int(math.ceil(scan_wall / (spare * per_page)))))
                # existing work gets storage first: inbound pages take only frames above the
                # destination's low mark, which its demand scan refills as they come in
                frames = inbound_frames(dst)
                if order_lost > 1e-12 and "link:ordering" not in r.active_throttles:
                    self._start_throttle(r, "link", "ordering")
                out = self._out
                mine = self.io_for_moves[src.name]
                w0 = r.cursor
                # its reads of the guest's pages on DASD run ahead of the sending in the places
                # the guests' faults leave in the paging devices' queue (as many reads at once),
                # each taking the devices' service time: a page on DASD waits for its read
                places = max(1, int(round(src.io_concurrency - src.fault_places)))
                clock = self._clock
                # a page in the source's XSTOR is read into a frame first, synchronously: CP's
                # paging work of a page, on the relocation's processor
                xstor_s = self.paging.cp_cpu_per_page_s * src_cpu
                # (time for the budget's pages and half a page more: without reads to wait
                # for, the page count ends the call, not rounding in the kernel's clock)
                K.send_pages(g.planes, shadow.planes, r.cursor, budget_pages,
                             io_budget(src, min(io_left[src.name][0], mine[0]), 1), frames, out,
                             per_page, dasd_wait_s(src), places,
                             max(left, budget_pages * per_page) + 0.5 * per_page, clock,
                             xstor_s, shadow.slice_stamp, t + (dt - left))
                sent = int(out[K.X_SENT])
                r.cursor = int(out[K.X_CURSOR])
                r.step_pages += sent
                r.step_sharers = sharers
                if sent:
                    shadow.residency_changed()
                    # each slice the pages came into is as old as the last of them (stamped by
                    # the kernel): CP puts a frame it fills at the end of the guest's frame
                    # list, so its demand scan takes the pages that came longest ago first, as
                    # it takes a running guest's pages touched longest ago
                    shadow.stamp_gen += 1
                r.send_left -= sent
                cur.pages += sent
                r.pages_moved += sent
                new = int(out[K.X_DST_NEW_FRAMES])
                if new:  # the pages that came went to words [w0, cursor], wrapping at the end
                    if r.cursor < w0 or int(out[K.X_WORDS]) >= len(shadow.planes):
                        shadow.mark_segments(w0 * 64, shadow.npages)
                        w0 = 0
                    shadow.mark_segments(w0 * 64, (r.cursor + 1) * 64)
                shadow.n_cen += new
                shadow.n_xst -= int(out[K.X_DST_XSTOR_FREED])
                shadow.n_dsd -= int(out[K.X_DST_DASD_FREED])
                shadow.n_slot -= int(out[K.X_DST_SLOTS_FREED])
                dst.resident += new
                dst.xstor_used -= int(out[K.X_DST_XSTOR_FREED])
                dst.slots_used -= int(out[K.X_DST_SLOTS_FREED])
                read = io_units(src, int(out[K.X_FROM_DASD]), int(out[K.X_FROM_DASD]))
                io_left[src.name][0] -= read
                mine[0] -= read
                src.counters.dasd_in += int(out[K.X_FROM_DASD])
                waited = float(clock[1])  # for reads of pages on DASD
                from_xstor = int(out[K.X_FROM_XSTOR])
                src.counters.xstor_in += from_xstor
                used = min(left, sent * per_page + from_xstor * xstor_s + waited)
                waited = min(used, waited)
                left -= used
                r.step_send_s += used
                cpu_src = (sent * (self.model.send_cpu_s_per_page + (stage if live else 0.0))
                           + from_xstor * self.paging.cp_cpu_per_page_s) / src.cfg.cpu_speed
                self._use_cpu(src.name, cpu_src, t + dt - left - used, used)
                self._use_cpu(dst.name, sent * self.model.receive_cpu_s_per_page
                              / dst.cfg.cpu_speed, t + dt - left - used, used)
                r.cpu_s += cpu_src + sent * self.model.receive_cpu_s_per_page / dst.cfg.cpu_speed
                if r.scan_sending:
                    # the scan went on with what building the pages left of the processor
                    stretch = self.cpu_stretch.get(r, 1.0)
                    # (not while it read pages from XSTOR: CP's paging work on its processor)
                    busy = used - waited - min(used - waited, from_xstor * xstor_s)
                    scanned = min(r.scan_cpu_left_s, busy * spare / stretch)
                    r.scan_cpu_left_s -= scanned
                    r.scan_left_s -= scanned
                    if r.scan_cpu_left_s <= 1e-12:
                        r.scan_left_s -= r.scan_cpu_left_s
                        r.scan_cpu_left_s = 0.0
                    self._use_cpu(src.name, scanned, t + dt - left - used, used)
                    r.cpu_s += scanned
                # time lost to a shared link, to reordering and to reads, for the pass record
                cur.throttle_s += (used - waited) * ((1.0 - 1.0 / sharers) + order_lost) + waited
                r.ordering_lost_s += (used - waited) * order_lost
                stop = int(out[K.X_STOP])
                dst_frames_short = stop == K.SEND_DST_FRAMES
                dst_io_spent = False
                src_paging = stop == K.SEND_SRC_DASD or waited > 0.01 * dt
                if dst_frames_short:
                    # the destination's demand scan makes room as the pages come in, as fast
                    # as its paging devices write: what is left of them this step beside its
                    # own guests' page faults (for storage, existing work comes first: a busy
                    # guest on the destination stood still while the scan wrote for the
                    # relocation with all of the devices)
                    # (the devices' time before now in the step is gone: the writes fit in
                    # what the rest of the step offers; a relocation short of frames from
                    # 0.6 s before the end of a step of 5 s wrote the whole step's worth then)
                    short = max(0, dst.free_low - dst.free_frames)
                    now = t + (dt - left)
                    dst.note_short(now)
                    pool = self.io_for_moves[dst.name]
                    most = self._io_since(dst.name, pool[0], dst.short_at)
                    avail, had = min(io_left[dst.name][0], pool[0], most), pool[0]
                    sim.replenish(dst, short + max(1, budget_pages - sent), pool, most=most)
                    dst_frames_short = inbound_frames(dst) <= 0
                    # (the writes it could make in what the step's paging I/O offers now are
                    # made: the devices' queue holds the rest)
                    dst_io_spent = avail - (had - pool[0]) < 1.0
                    if dst_frames_short and dst.slots_free <= 0 and dst.xstor_free <= 0:
                        # nowhere left on the destination for its pages: CP's storage check
                        # fails as the pass goes (waiting, it waited until something else
                        # gave room back, if anything did)
                        self.abort(r, f"{g.userid} is not relocated to {r.dest} because "
                                      f"{r.dest} has no paging space left for its pages",
                                   "storage check failed", now=now)
                        break
                # held back only when the pages wait: room made in time (frames freed to
                # XSTOR, or within the step's paging I/O) costs no time
                self._held(r, "destination", "frames", dst_frames_short)
                self._held(r, "source", "dest_backlog", dst_frames_short)
                self._held(r, "destination", "paging_queue", dst_frames_short and dst_io_spent)
                self._held(r, "source", "paging_queue", src_paging)
                # the scan took pages of the arriving guest itself since the last step's
                # relocation work (as the guests ran, or making room just now)
                self._held(r, "destination", "steal",
                           dst_frames_short and shadow.counters.stolen() > r.stolen_seen)
                if dst_frames_short or stop == K.SEND_SRC_DASD:
                    # wait for the rest of the step: frames or paging I/O come back next step
                    cur.throttle_s += left + dt * (rounds - 1 - n)
                    left = 0.0
                    waits = True
                    break
                if stop == K.SEND_LIMIT and sent == 0:
                    # the rest of the round is shorter than the next page takes (with its read)
                    cur.throttle_s += left
                    left = 0.0
                    break
                if r.send_left > 0 or r.scan_left_s > 0:
                    continue  # (pages left, or the scan they went beside)
            # pass complete
            cur.end_s = self._now = t + (dt - left)
            if self._check_limits(r, cur.end_s):
                break
            start = r.active_throttles.get("link:ordering")
            if start is not None:
                self._close_throttle(r, "link:ordering", start)
            self._end_pass(r)
        if not (last or waits):
            return False
        if r.active:
            # a throttle whose reason held nothing back in this step ended as the step began
            self._now = sim.t
            for key in HELD_BACK:
                start = r.active_throttles.get(key)
                if start is not None and key not in r.held:
                    self._close_throttle(r, key, start)
        r.held.clear()
        r.stolen_seen = shadow.counters.stolen()
        self._now = self._step_end
        if r.active:
            self._check_limits(r, self._step_end)
        return waits

    def _stage_pool(self, r: Relocation, src: Member, need: int) -> None:
        """Bring ``r``'s staging frames to ``need``: more from the source's free frames above
        its low mark and what its demand scan frees for them now (within the step's paging
        I/O: a source below its low mark gives the relocation only the frames freed for it),
        or back to the free frames."""
        more = need - r.stage_pool
        if more > 0:
            spare = max(0, src.free_frames - src.free_low)
            freed = self.sim.replenish(src, more - spare) if spare < more else 0
            more = min(more, spare + freed, max(0, src.free_frames))
        r.stage_pool += more
        src.stage_frames += more

    def _held(self, r: Relocation, side: str, reason: str, on: bool) -> None:
        """A reason that holds the pages back while it lasts: its throttle starts when it first
        holds them and stays on through the steps it holds them in (``r.held``)."""
        if on:
            r.held.add(f"{side}:{reason}")
            self._start_throttle(r, side, reason)

    def _start_throttle(self, r: Relocation, side: str, reason: str) -> None:
        """The throttle starts now unless it is on already (it ends with ``_close_throttle``)."""
        key = f"{side}:{reason}"
        if key not in r.active_throttles:
            r.active_throttles[key] = self._now
            self.sim.emit("THROTTLE_START", r.source if side == "source" else r.dest,
                          r.guest.userid, f"{r.guest.userid}: {side} throttle: "
                          f"{THROTTLE_REASONS[(side, reason)]}",
                          {"side": side, "reason": reason}, at=self._now)

    def _close_throttle(self, r: Relocation, key: str, start: float) -> None:
        del r.active_throttles[key]
        dur = r.held_s(key, start, self._now)
        if key == "link:ordering":
            r.ordering_lost_s = 0.0
        r.throttle_s[key] = r.throttle_s.get(key, 0.0) + dur
        side, reason = key.split(":")
        self.sim.emit("THROTTLE_END", r.source if side == "source" else r.dest, r.guest.userid,
                      f"{r.guest.userid}: {side} throttle ended after {dur:.1f} s ({reason})",
                      {"side": side, "reason": reason, "seconds": round(dur, 6),
                       "start_s": round(start, 6)}, at=self._now)

    def _end_pass(self, r: Relocation) -> None:
        sim = self.sim
        g = r.guest
        cur = r.passes[-1]
        sim.run_guest_until(g, self._now)  # its changes up to now belong to this pass
        sim.emit("PASS_END", r.source, g.userid,
                 f"{g.userid}: pass {cur.number} ({cur.kind}) moved {cur.pages} pages in "
                 f"{cur.seconds:.2f} s", {"pass": cur.number, "pages": cur.pages,
                                          "seconds": round(cur.seconds, 6), "kind": cur.kind},
                 at=self._now)
        if cur.kind == "final":
            self._complete(r)
            return
        assert g.planes is not None
        g.flush_pending()
        # the pages changed during this pass are the next pass's to send
        span = g.lgr_words or (0, 0)
        dirty = K.start_pass(g.planes, False, span[0], span[1])
        g.lgr_words = None
        if cur.kind == "penultimate":
            self._begin_pass(r, "final", dirty)
            return
        # (what has arrived of the guest is storage it holds there already)
        problem = storage_check(g, sim.members[r.dest], r.options.force_storage,
                                self.arriving_pages(r.dest, but=r), own=r.incoming) \
            if cur.kind != "first" else None
        if problem:
            self.abort(r, f"{g.userid} is not relocated to {r.dest} because {problem}",
                        "storage check failed")
            return
        if self._quiesce_now(r, cur.number, dirty):
            mq, mt = r.options.maxquiesce_s, r.options.maxtotal_s
            expected = self._expected_quiesce_s(r, dirty)
            if mt is not None and self._now - r.t_start + expected > mt:
                # nor for one that would end after MAXTOTAL: more passes only take longer
                self.abort(r, f"{g.userid} is not relocated to {r.dest} because its relocation "
                              f"time would exceed MAXTOTAL {mt:g} s (expected "
                              f"{self._now - r.t_start + expected:.1f} s)", "MAXTOTAL exceeded")
                return
            if mq is not None and expected > mq:
                # CP does not stop the guest for a quiesce it expects to pass MAXQUIESCE: it
                # goes on with passes while they can still bring the quiesce under the limit,
                # and cancels, the guest never stopped, when they no longer make progress, when
                # not even an empty changed set would fit (the two passes' DAT scans), or when
                # IMMEDIATE allows no more passes
                if r.options.immediate or self._expected_quiesce_s(r, 0) > mq or (
                        r.no_progress >= self.model.no_progress_passes
                        or len(r.passes) >= self.model.max_passes - 2):
                    self.abort(r, f"{g.userid} is not relocated to {r.dest} because its quiesce "
                                f"time would exceed MAXQUIESCE {mq:g} s (expected "
                                f"{expected:.1f} s)", "MAXQUIESCE exceeded")
                    return
                self._begin_pass(r, "intermediate", dirty)
                return
            r.state = "quiesced"
            r.t_quiesce = self._now
            g.hold(self.STOP_REASON)
            sim.emit("QUIESCE_START", r.source, g.userid,
                     f"{g.userid} stopped for the last two passes ({dirty} changed pages)",
                     at=self._now)
            self._begin_pass(r, "penultimate", dirty)
        else:
            self._begin_pass(r, "intermediate", dirty)

    def _expected_quiesce_s(self, r: Relocation, dirty: int) -> float:
        """The quiesce CP expects: its two passes as the relocation makes them (the penultimate
        sends the changed pages while its processor scans where the processor is not the
        slower, after the scan where it is; the final scans), the pages at the pace the pass
        just ended sent its pages (whatever held them back: the link or its part of it, the
        destination's frames, paging or processor, the source's reads) less what its
        processor's scan and staging explain, never faster than the link's part."""
        share = self.sharers.get(r, 1)
        src, dst = self.sim.members[r.source], self.sim.members[r.dest]
        speed = src.cfg.cpu_speed
        md = self.model
        per_page = self._link_s_per_page(r, share)
        scan = scan_s(r.guest.npages, r.link, share, md, speed, self._devices(r))
        cpu = r.guest.npages / PAGES_PER_GB * md.dat_scan_s_per_gb / speed
        status = scan - cpu
        cur = r.passes[-1] if r.passes else None
        if cur is not None and cur.pages > 0:
            stage = md.stage_s_per_page / speed if r.state == "moving" else 0.0
            took = cur.seconds - status
            if r.scanned_beside:
                # its scan went beside its pages: their pace is its time's, unless its
                # processor's work (the scan, staging and messages) took all of it
                proc = cpu + cur.pages * (stage + md.send_cpu_s_per_page / speed)
                seen = took / cur.pages if took > proc * 1.001 else 0.0
            else:  # its scan came first; its pages went at their pace or its processor's
                seen = (took - cpu) / cur.pages - stage
            per_page = max(per_page, seen)
        per_page = max(per_page, md.receive_cpu_s_per_page / dst.cfg.cpu_speed)
        send = md.send_cpu_s_per_page / speed
        return max(dirty * per_page, cpu + dirty * send) + status + scan

    def _quiesce_now(self, r: Relocation, n: int, dirty: int) -> bool:
        """CP's decision after pass ``n``: stop the guest for the last two passes?"""
        if r.options.immediate:
            return True
        if n < 2:
            return False
        # did the changed set shrink (``LGRModel.progress_fraction``)? (judged first: when CP
        # will not quiesce for MAXQUIESCE, the passes go on counting it)
        if dirty < r.dirty_best * (1.0 - self.model.progress_fraction):
            r.no_progress = 0
        else:
            r.no_progress += 1
        r.dirty_best = min(r.dirty_best, dirty)
        # (CP judges the changed set by the rate this relocation gets: its part of the link
        # when others share it)
        if dirty <= self.model.quiesce_threshold_s * self._cap(r) \
                / max(1.0, self.sharers.get(r, 1)):
            return True
        mq = r.options.maxquiesce_s
        if n == 2 and mq is not None and self._expected_quiesce_s(r, dirty) <= mq:
            return True
        if r.no_progress >= self.model.no_progress_passes:
            return True
        return n >= self.model.max_passes - 2

    def _check_limits(self, r: Relocation, now: float) -> bool:
        """CP cancels the relocation the moment its quiesce or its whole time passes its limit
        (MAXQUIESCE, MAXTOTAL): checked at ``now``, whenever the relocation's clock has moved
        (a pass that would end after the limit does not end). True when cancelled."""
        mq = r.options.maxquiesce_s
        if r.state == "quiesced" and mq is not None and r.t_quiesce is not None \
                and now - r.t_quiesce > mq + 1e-9:
            self._now = r.t_quiesce + mq
            self.abort(r, f"{r.guest.userid} is not relocated to {r.dest} because the quiesce "
                        f"time exceeded MAXQUIESCE {mq:g} s", "MAXQUIESCE exceeded")
            return True
        mt = r.options.maxtotal_s
        if mt is not None and now - r.t_start > mt + 1e-9:
            self._now = r.t_start + mt
            self.abort(r, f"{r.guest.userid} is not relocated to {r.dest} because the "
                        f"relocation time exceeded MAXTOTAL {mt:g} s", "MAXTOTAL exceeded")
            return True
        return False

    # -- end -----------------------------------------------------------------------------------
    def _finish(self, r: Relocation, state: str, result: str, message: str) -> None:
        for key, start in list(r.active_throttles.items()):
            self._close_throttle(r, key, start)
        self._stage_pool(r, self.sim.members[r.source], 0)
        self.close(r, state, result, message)
        g = r.guest
        g.relocating = False
        if state == "cancelled" and g.planes is not None:
            K.clear_plane(g.planes, K.LGR)
            K.clear_plane(g.planes, K.SEND)

    def cancel(self, r: Relocation, by: str) -> None:
        """An operator's VMRELOCATE CANCEL, now (when the command was due)."""
        self._now = command_start(self.sim)
        self.abort(r, f"Relocation of {r.guest.userid} to {r.dest} is cancelled by {by}",
                   "cancelled")

    def abort(self, r: Relocation, message: str, result: str = "cancelled",
              now: float | None = None) -> None:
        """Stop a relocation (at ``now``; default: the engine's clock): the guest keeps running
        on the source, the destination lets go."""
        sim = self.sim
        if now is not None:
            self._now = now
        shadow = r.incoming
        assert shadow is not None
        dst = sim.members[r.dest]
        dst.resident -= shadow.n_cen
        dst.xstor_used -= shadow.n_xst
        dst.slots_used -= shadow.n_slot
        shadow.count_dat_on(None)
        r.incoming = None
        self._finish(r, "cancelled", result, message)
        sim.emit("RELOCATION_CANCELLED", r.source, r.guest.userid, message,
                 {"result": result}, at=r.t_end)

    def _complete(self, r: Relocation) -> None:
        sim = self.sim
        g = r.guest
        shadow = r.incoming
        assert shadow is not None
        src = sim.members[r.source]
        src.resident -= g.n_cen
        src.xstor_used -= g.n_xst
        src.slots_used -= g.n_slot
        g.flush_pending()
        # the source lets go of its DAT tables; the destination's are the guest's now
        g.count_dat_on(None)
        shadow.count_dat_on(None)
        g.seg_map, g.n_seg = shadow.seg_map, shadow.n_seg
        g.count_dat_on(sim.members[r.dest])
        g.planes = shadow.planes
        g.new_planes()
        g.n_cen, g.n_xst = shadow.n_cen, shadow.n_xst
        g.n_dsd, g.n_slot = shadow.n_dsd, shadow.n_slot
        g.member = r.dest
        g.migrate_cursor = 0
        g.reset_steal_hands()
        # its slices are as old as the pages that came into them, and the destination's demand
        # scan goes on where it stood (reset, the slices it had not come to yet gave their
        # pages by address)
        g.slice_stamp[:] = shadow.slice_stamp
        g.steal_cursors[:] = shadow.steal_cursors
        g.steal_slice = shadow.steal_slice
        g.stamp_gen += 1
        g.ran_s = max(g.ran_s, self._now - sim.t)  # it was stopped until now
        r.incoming = None
        warn = []
        if g.set_reserved:
            warn.append(f"SET RESERVED ({g.set_reserved} pages) was not carried to {r.dest}")
            g.set_reserved = 0
        warn.append(f"SHARE {'ABSOLUTE' if g.share_absolute else 'RELATIVE'} {g.share:g} moved "
                    f"with the guest; review it for {r.dest}")
        self._finish(r, "done", "relocated",
                     f"User {g.userid} has been relocated from {r.source} to {r.dest}")
        sim.emit("RELOCATION_DONE", r.dest, g.userid, r.message,
                 {"quiesce_s": round(r.quiesce_s, 6), "passes": len(r.passes)}, at=r.t_end)
        for w in warn:
            sim.emit("RELOCATION_WARNING", r.dest, g.userid, f"{g.userid}: {w}", at=r.t_end)

    def snapshot(self, r: Relocation) -> RelocationSnapshot:
        """An immutable picture of one relocation now."""
        now = self.sim.t
        passes = tuple(PassSnapshot(p.number, p.kind, p.pages, round(p.start_s, 6),
                                    round(p.end_s, 6), round(p.throttle_s, 6))
                       for p in r.passes)
        if r.t_quiesce is None:
            q = 0.0
        else:
            q = (r.t_end if r.t_end is not None else now) - r.t_quiesce
        rate = self.link_rate(r)
        return RelocationSnapshot(
            r.guest.userid, r.source, r.dest, r.options.describe(), r.state, r.result,
            r.message, round(r.t_start, 6), None if r.t_end is None else round(r.t_end, 6),
            passes, r.send_left if r.active else 0, r.pages_moved, rate,
            r.t_quiesce, round(max(q, 0.0), 6),
            tuple(sorted(r.active_throttles.items())),
            tuple(sorted((k, round(v, 6)) for k, v in r.throttle_s.items())),
            r.options.maxquiesce_s, self.pace(r))

    def link_rate(self, r: Relocation) -> float:
        """Pages per second the link can carry for ``r`` now (its share; 0 once ended)."""
        if not r.active:
            return 0.0
        rate = self._cap(r) / max(1, self.sharers.get(r, 1))
        return round(rate, 3)

    def pace(self, r: Relocation) -> float:
        """Pages a second ``r``'s pages go at now when nothing holds them back (frames, reads,
        the stage pool): the slowest of its part of the link (with reordering), the source's
        processor building them and the destination's taking them (0 once ended)."""
        if not r.active:
            return 0.0
        ordered = self._link_s_per_page(r, max(1, self.sharers.get(r, 1)))
        return round(1.0 / max(ordered, *self._page_cpu_s(r)), 3)

    def arriving_pages(self, member: str, but: Relocation | None = None) -> int:
        """Pages the relocations under way to ``member`` (``but`` one) have still to bring:
        each guest's storage and CP's structures for it, less what has arrived of it."""
        dst = self.sim.members[member]
        return sum(max(0, current_storage(r.guest, dst) - r.incoming.instantiated)
                   for r in self.all if r.active and r is not but and r.dest == member
                   and r.incoming is not None)

    def incoming_on(self, member: str) -> list[Guest]:
        """Guests arriving on ``member``: their pages already take its frames."""
        return [r.incoming for r in self.all if r.active and r.incoming is not None
                and r.dest == member]

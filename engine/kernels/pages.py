"""Numba kernels over page bit-planes: touching, stealing, migrating and counting pages.

Page state of one guest is a ``uint64`` array of shape ``(nwords, NPLANES)``: row ``w`` holds the
bits of pages ``64*w .. 64*w+63`` for every plane, so all the state of a page sits in one 64-byte
cache line. Kernels only loop; the Python drivers in ``world.paging`` validate, draw seeds and
allocate the ``out`` arrays (style: small dumb kernels, Python drivers).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# Plane indices. A page is instantiated when exactly one of CEN, XST, DSD is set.
CEN = 0  # resident in a central-storage frame
XST = 1  # held in an expanded-storage (XSTOR) block
DSD = 2  # held only on a DASD paging slot
SLOT = 3  # owns a DASD slot whose content is valid (set with DSD, may stay set while resident)
CHG = 4  # changed since it was last written to a slot (or never written)
REF = 5  # referenced since the demand scan last looked at it
LGR = 6  # changed since the last memory-move pass (relocation dirty bitmap)
SEND = 7  # still to be sent in the current memory-move pass
NPLANES = 8

# Why a touch kernel stopped.
STOP_DONE = 0  # covered the pages it was asked to cover
STOP_BUDGET = 1  # the virtual CPUs' time for this step is used up
STOP_FRAMES = 2  # needs a free frame and none is left: the caller steals and calls again
STOP_DASD = 3  # needs a DASD read and the paging volumes are saturated for this step

# Indices into the touch kernel's ``out`` array (float64).
T_TOUCHES = 0
T_NEW = 1
T_XSTOR_IN = 2
T_DASD_IN = 3
T_CPU_S = 4
T_WALL_S = 5
T_COVERED = 6
T_STOP = 7
T_CURSOR = 8
T_NEXT = 9
T_DASD_IOS = 10  # DASD read I/Os (a block read brings several pages)
T_IN_LO = 11  # the pages the walk made resident lie in [T_IN_LO, T_IN_HI) (empty: none)
T_IN_HI = 12
T_NEW_SEGS = 13  # megabytes that got their first page (``seg_map``): page management blocks built
T_OUT_LEN = 14

#: the longest gap a random walk draws (pages; beyond it, a walk never comes to its next page)
MAX_GAP = 4_000_000_000_000_000_000

# Why the send kernel stopped.
SEND_DONE = 0  # nothing left to send in this pass
SEND_LIMIT = 1  # sent as many pages as it was allowed
SEND_DST_FRAMES = 2  # the destination has no free frame for the next page
SEND_SRC_DASD = 3  # the next page is on source DASD and the volumes are saturated

# Indices into the send kernel's ``out`` array (int64).
X_SENT = 0
X_FROM_XSTOR = 1
X_FROM_DASD = 2
X_DST_NEW_FRAMES = 3
X_DST_XSTOR_FREED = 4
X_DST_DASD_FREED = 5
X_DST_SLOTS_FREED = 6
X_CURSOR = 7
X_STOP = 8
X_WORDS = 9  # words it went over (as many as the planes have: it went all the way round)
X_OUT_LEN = 10

# Indices into the steal kernel's ``out`` array (int64).
S_TO_XSTOR = 0
S_TO_DASD_WRITTEN = 1
S_TO_DASD_CLEAN = 2
S_SLOTS_ALLOCATED = 3
S_SLOTS_RELEASED = 4
S_CURSOR = 5
S_BLOCKED = 6
S_WORDS = 7
S_DASD_IOS = 8  # DASD write I/Os (a block write carries several pages)
S_SEEN = 9  # 1 when the scan met a resident page (0 after a whole revolution: none there)
S_OUT_LEN = 10

# Length of the migrate kernel's ``out`` array (int64): pages, cursor, blocked, write I/Os.
M_OUT_LEN = 4

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_INV53 = 1.0 / 9007199254740992.0


def warmup() -> None:
    """Compile (or load from the cache) every kernel on tiny inputs, before anyone waits for it."""
    p = np.zeros((2, NPLANES), dtype=np.uint64)
    q = np.zeros((2, NPLANES), dtype=np.uint64)
    rng = np.ones(1, dtype=np.uint64)
    t = np.zeros(T_OUT_LEN)
    touch_region(p, 0, 100, 0, -1, -0.5, 100, 0.5, 1.0, 1.0, 1e-6, 1e-6, 1e-6, 1e-3, 1e-6, 50, 50,
                 True, rng, t)
    touch_region(p, 0, 100, 0, -1, -0.5, 100, 0.5, 1.0, 1.0, 1e-6, 1e-6, 1e-6, 1e-3, 1e-6, 50, 50,
                 True, rng, t, 1, np.zeros(1, dtype=np.uint8), 2)
    fill_resident(p, 100, True)
    touch_resident(p, 0, 100, 50.0, 0.5, True, rng)
    touch_resident(p, 0, 100, 5.0, 0.5, True, rng)
    count_untouched(p, 0, 100)
    mark_segments(p, np.zeros(1, dtype=np.uint8), 0, 100)
    count_segments(p)
    instantiate_random(p, 0, 100, 3, True, rng)
    binomial(rng, 100, 0.3)
    binomial(rng, 10**7, 0.3)
    touch_range(p, 0, 100, 10, 120, True, True)
    region_resident(p, 0, 100)
    s = np.zeros(S_OUT_LEN, dtype=np.int64)
    steal_pages(p, 0, 10, False, 5, 5, 5, s)
    steal_pages(p, 0, 10, False, 5, 5, 5, s, 0, 1)
    steal_slices(p, np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.uint8),
                 np.arange(2, dtype=np.int64), np.zeros(2), 0, 2, 10, False,
                 5, 5, np.ones(1), 0.1, 1, s,
                 np.zeros(SS_OUT_LEN, dtype=np.int64))
    migrate_xstor(p, 0, 5, 5, 5, np.zeros(M_OUT_LEN, dtype=np.int64))
    c = np.zeros(NPLANES, dtype=np.int64)
    count_planes(p, c)
    check_planes(p, 100)
    start_pass(p, True)
    start_pass(p, False, 0, 1)
    x = np.zeros(X_OUT_LEN, dtype=np.int64)
    send_pages(p, q, 0, 50, 5, 50, x)
    send_pages(p, q, 0, 50, 5, 50, x, 1e-6, 1e-3, 4, 1.0, np.zeros(2), 1e-6)
    send_pages(p, q, 0, 50, 5, 50, x, 1e-6, 1e-3, 4, 1.0, np.zeros(2), 1e-6, np.zeros(2), 1.0)
    count_plane(p, LGR)
    clear_plane(p, SEND)


@njit(cache=True, nogil=True)
def splitmix_next(state: np.ndarray) -> np.uint64:
    """Advance a splitmix64 generator held in ``state[0]`` and return the next 64-bit value."""
    s = state[0] + _GOLDEN
    state[0] = s
    z = s
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def uniform(state: np.ndarray) -> float:
    """A float in (0, 1] from the generator in ``state``."""
    return (float(splitmix_next(state) >> np.uint64(11)) + 1.0) * _INV53


@njit(cache=True, nogil=True)
def geometric_gap(state: np.ndarray, log_q: float) -> int:
    """Number of pages skipped before the next selected one, each selected with 1-exp(log_q)."""
    if log_q >= 0.0:
        return 0
    if log_q == -np.inf:
        return 0
    g = np.log(uniform(state)) / log_q
    if g > MAX_GAP:
        return MAX_GAP
    return int(g)


@njit(cache=True, nogil=True)
def touch_region(
    planes: np.ndarray,
    lo: int,
    hi: int,
    start: int,
    next_sel: int,
    log_q: float,
    max_cover: int,
    write_frac: float,
    budget_cpu_s: float,
    budget_wall_s: float,
    cost_touch_s: float,
    cost_new_s: float,
    cost_xstor_s: float,
    dasd_wait_s: float,
    cost_fault_cpu_s: float,
    frames_avail: int,
    dasd_reads_avail: int,
    track_lgr: bool,
    rng: np.ndarray,
    out: np.ndarray,
    read_block: int = 1,
    seg_map: np.ndarray | None = None,
    seg_frames: int = 0,
) -> None:
    """Let a workload reference pages of ``[lo, hi)``, walking forward from ``start`` with wrap.

    Each page of the walk is selected with probability ``1 - exp(log_q)`` (``log_q = 0`` selects
    every page: a sequential toucher). ``next_sel`` is the already-drawn position of the next
    selected page (``-1`` to draw one), so a walk that stops for frames resumes exactly where it
    left off. The walk covers at most ``max_cover`` pages. Resident pages are referenced (and
    changed with probability ``write_frac``); a page in XSTOR is brought back synchronously, a page
    on DASD waits ``dasd_wait_s`` of the virtual CPUs' time, and a never-touched page is
    instantiated in a new frame. A DASD read is a block read: the pages on DASD in the aligned
    block of ``read_block`` pages around the faulted one come in with it, in one I/O and one
    wait (``dasd_reads_avail`` counts I/Os). Results go to ``out`` (see the ``T_`` indices).
    With ``seg_map`` (a byte per megabyte), the first page instantiated in a megabyte marks it
    and takes ``seg_frames`` frames more besides its own, for the megabyte's page management
    block: the walk stops for frames when they are not there.
    """
    n = hi - lo
    nseg = 0
    cpu = 0.0
    wall = 0.0
    touches = 0
    new = 0
    xin = 0
    din = 0
    dios = 0
    stop = STOP_DONE
    covered = 0
    pos = start
    total_pages = planes.shape[0] * 64
    if read_block < 1:
        read_block = 1
    # a word wholly on DASD is read in whole blocks when they divide it
    word_ios = 64 // read_block if read_block <= 64 and 64 % read_block == 0 else 0
    in_lo = total_pages
    in_hi = 0
    if n <= 0:
        out[T_STOP] = STOP_DONE
        out[T_CURSOR] = start
        out[T_NEXT] = -1
        out[T_IN_LO] = 0
        out[T_IN_HI] = 0
        out[T_NEW_SEGS] = 0
        return
    sel = next_sel
    if sel < 0:
        sel = geometric_gap(rng, log_q)
    every = log_q >= 0.0
    # A lap over a fully resident region costs the same each time: count laps instead of pages.
    lap_faults = 0
    lap_start_cover = 0
    wrapped = False
    while True:
        if wrapped:
            wrapped = False
            # (only when no random write draws are skipped, so the walk stays reproducible)
            if every and lap_faults == 0 and covered - lap_start_cover >= n \
                    and (write_frac <= 0.0 or write_frac >= 1.0):
                lap_cost = cost_touch_s * n
                if lap_cost > 0.0:
                    laps = int(min((budget_cpu_s - cpu) / lap_cost,
                                   (budget_wall_s - wall) / lap_cost))
                    laps = min(laps, (max_cover - covered) // n)
                    if laps > 0:
                        cpu += lap_cost * laps
                        wall += lap_cost * laps
                        touches += n * laps
                        covered += n * laps
            lap_start_cover = covered
            lap_faults = 0
        # skip ahead to the next selected page
        if sel > 0:
            adv = sel
            if covered + adv > max_cover:
                adv = max_cover - covered
            covered += adv
            sel -= adv
            off = pos - lo + adv
            if off >= n:
                wrapped = True
                lap_faults += 1  # a skipped stretch is no evidence of a resident lap
            pos = lo + (off % n)
            if sel > 0:
                break
        if covered >= max_cover:
            break
        if cpu >= budget_cpu_s or wall >= budget_wall_s:
            stop = STOP_BUDGET
            break
        w = pos >> 6
        b = np.uint64(pos & 63)
        m = _ONE << b
        # whole-word fast paths for sequential walks: 64 pages all resident, all new, all in
        # XSTOR or all on DASD, when frames, paging I/O and budget cover the whole word
        # (exactly what the page-at-a-time loop below would do)
        if every and b == np.uint64(0) and pos + 64 <= hi and covered + 64 <= max_cover:
            cen = planes[w, CEN]
            kind = -1
            c_cpu = 0.0
            c_wall = 0.0
            if cen == _ALL:
                kind = 0
                c_cpu = c_wall = cost_touch_s * 64
            elif frames_avail >= 64:
                if (cen | planes[w, XST] | planes[w, DSD]) == 0 and (
                        seg_map is None or seg_map[w >> 2] != 0
                        or frames_avail >= 64 + seg_frames):
                    kind = 1
                    c_cpu = c_wall = (cost_touch_s + cost_new_s) * 64
                elif planes[w, XST] == _ALL:
                    kind = 2
                    c_cpu = c_wall = (cost_touch_s + cost_xstor_s) * 64
                elif planes[w, DSD] == _ALL and word_ios > 0 and dasd_reads_avail >= word_ios:
                    kind = 3
                    nio = word_ios
                    if nio == 64:
                        c_cpu = (cost_touch_s + cost_fault_cpu_s) * 64
                        c_wall = (cost_touch_s + dasd_wait_s) * 64
                    else:
                        c_cpu = cost_touch_s * 64 + cost_fault_cpu_s * nio
                        c_wall = cost_touch_s * 64 + dasd_wait_s * nio
            if kind >= 0 and cpu + c_cpu <= budget_cpu_s and wall + c_wall <= budget_wall_s:
                if kind == 1:
                    new += 64
                    if seg_map is not None and seg_map[w >> 2] == 0:
                        seg_map[w >> 2] = 1
                        nseg += 1
                        frames_avail -= seg_frames
                    planes[w, CHG] = _ALL
                    if track_lgr:
                        planes[w, LGR] = _ALL
                elif kind == 2:
                    xin += 64
                    planes[w, XST] = np.uint64(0)
                elif kind == 3:
                    din += 64
                    planes[w, DSD] = np.uint64(0)
                    planes[w, CHG] = np.uint64(0)  # the slots keep valid copies
                if kind > 0:
                    planes[w, CEN] = _ALL
                    in_lo = min(in_lo, w * 64)
                    in_hi = max(in_hi, w * 64 + 64)
                    frames_avail -= 64
                    lap_faults += 64
                    if kind == 3:
                        dasd_reads_avail -= word_ios
                        dios += word_ios
                planes[w, REF] = _ALL
                if write_frac >= 1.0:
                    planes[w, CHG] = _ALL
                    if track_lgr:
                        planes[w, LGR] = _ALL
                elif write_frac > 0.0:
                    for j in range(64):
                        if uniform(rng) <= write_frac:
                            mm = _ONE << np.uint64(j)
                            planes[w, CHG] |= mm
                            if track_lgr:
                                planes[w, LGR] |= mm
                cpu += c_cpu
                wall += c_wall
                touches += 64
                covered += 64
                pos += 64
                if pos >= hi:
                    pos = lo
                    wrapped = True
                continue
        write = write_frac >= 1.0 or (write_frac > 0.0 and uniform(rng) <= write_frac)
        if planes[w, CEN] & m:
            c = cost_touch_s
            cpu += c
            wall += c
        elif planes[w, XST] & m:
            if frames_avail <= 0:
                stop = STOP_FRAMES
                break
            planes[w, XST] &= ~m
            planes[w, CEN] |= m
            in_lo = min(in_lo, pos)
            in_hi = max(in_hi, pos + 1)
            frames_avail -= 1
            xin += 1
            lap_faults += 1
            c = cost_touch_s + cost_xstor_s
            cpu += c
            wall += c
        elif planes[w, DSD] & m:
            if frames_avail <= 0:
                stop = STOP_FRAMES
                break
            if dasd_reads_avail <= 0:
                stop = STOP_DASD
                break
            planes[w, DSD] &= ~m
            planes[w, CEN] |= m
            in_lo = min(in_lo, pos)
            in_hi = max(in_hi, pos + 1)
            # the slot keeps a valid copy until the page is changed
            planes[w, CHG] &= ~m
            frames_avail -= 1
            dasd_reads_avail -= 1
            dios += 1
            din += 1
            lap_faults += 1
            cpu += cost_touch_s + cost_fault_cpu_s
            wall += cost_touch_s + dasd_wait_s
            if read_block > 1:
                # the rest of the block on DASD comes in with the same I/O (not referenced)
                bs = pos - pos % read_block
                be = min(bs + read_block, total_pages)
                for q in range(bs, be):
                    if frames_avail <= 0:
                        break
                    qw = q >> 6
                    qm = _ONE << np.uint64(q & 63)
                    if (planes[qw, DSD] & qm) != 0 and (planes[qw, CEN] & qm) == 0:
                        planes[qw, DSD] &= ~qm
                        planes[qw, CEN] |= qm
                        in_lo = min(in_lo, q)
                        in_hi = max(in_hi, q + 1)
                        planes[qw, CHG] &= ~qm
                        frames_avail -= 1
                        din += 1
        else:
            first = seg_map is not None and seg_map[pos >> 8] == 0
            if frames_avail <= (seg_frames if first else 0):
                stop = STOP_FRAMES
                break
            if first and seg_map is not None:
                seg_map[pos >> 8] = 1
                nseg += 1
                frames_avail -= seg_frames
            planes[w, CEN] |= m
            in_lo = min(in_lo, pos)
            in_hi = max(in_hi, pos + 1)
            # a new page has no copy anywhere: it counts as changed
            planes[w, CHG] |= m
            if track_lgr:
                planes[w, LGR] |= m
            frames_avail -= 1
            new += 1
            lap_faults += 1
            c = cost_touch_s + cost_new_s
            cpu += c
            wall += c
        planes[w, REF] |= m
        if write:
            planes[w, CHG] |= m
            if track_lgr:
                planes[w, LGR] |= m
        touches += 1
        covered += 1
        pos += 1
        if pos >= hi:
            pos = lo
            wrapped = True
        if not every:
            sel = geometric_gap(rng, log_q)
    out[T_TOUCHES] = touches
    out[T_NEW] = new
    out[T_XSTOR_IN] = xin
    out[T_DASD_IN] = din
    out[T_CPU_S] = cpu
    out[T_WALL_S] = wall
    out[T_COVERED] = covered
    out[T_STOP] = stop
    out[T_CURSOR] = pos
    out[T_NEXT] = sel
    out[T_DASD_IOS] = dios
    out[T_IN_LO] = min(in_lo, in_hi)
    out[T_IN_HI] = in_hi
    out[T_NEW_SEGS] = nseg


@njit(cache=True, nogil=True)
def steal_pages(
    planes: np.ndarray,
    cursor: int,
    want: int,
    take_referenced: bool,
    xstor_free: int,
    dasd_writes_avail: int,
    slots_free: int,
    out: np.ndarray,
    w0: int = 0,
    w1: int = -1,
    write_block: int = 1,
) -> None:
    """Demand-scan one guest: take up to ``want`` resident pages, clock-wise from word ``cursor``.

    The hand goes round words ``[w0, w1)`` (``w1 = -1``: to the end), one slice of the guest.

    A resident page referenced since the last visit has its reference bit cleared and is passed
    over (second chance) unless ``take_referenced``. A page whose DASD slot still holds a valid
    copy is dropped without I/O; any other page is written to XSTOR while it has free blocks,
    else to a DASD slot while the volumes can take writes this step. Pages go to DASD in blocks:
    one write I/O carries up to ``write_block`` of them to contiguous slots
    (``dasd_writes_avail`` counts I/Os). The scan covers at most one revolution of the guest's
    storage. Results go to ``out`` (see the ``S_`` indices).
    """
    if w1 < 0 or w1 > planes.shape[0]:
        w1 = planes.shape[0]
    nwords = w1 - w0
    to_x = 0
    to_dw = 0
    to_dc = 0
    s_alloc = 0
    s_rel = 0
    blocked = 0
    stolen = 0
    words = 0
    ios = 0
    in_blk = 0  # pages already in the block being written
    if write_block < 1:
        write_block = 1
    w = cursor
    if w >= w1 or w < w0:
        w = w0
    seen = 0
    while words < nwords and stolen < want:
        res = planes[w, CEN]
        if res != 0:
            seen = 1
            if take_referenced:
                cand = res
            else:
                refd = planes[w, REF] & res
                cand = res & ~refd
                planes[w, REF] &= ~res
            # a whole word to DASD at once when XSTOR is full and the volumes can take it
            if cand == _ALL and want - stolen >= 64 and xstor_free <= 0:
                slot = planes[w, SLOT]
                dirty = planes[w, CHG] | ~slot
                nd = popcount64(dirty)
                ns = popcount64(~slot)
                room = (write_block - in_blk) % write_block
                extra = nd - room if nd > room else 0
                nio = (extra + write_block - 1) // write_block
                if dasd_writes_avail >= nio and slots_free >= ns:
                    planes[w, DSD] = _ALL
                    planes[w, SLOT] = _ALL
                    planes[w, CEN] = np.uint64(0)
                    planes[w, CHG] = np.uint64(0)
                    planes[w, REF] = np.uint64(0)
                    to_dw += nd
                    to_dc += 64 - nd
                    s_alloc += ns
                    slots_free -= ns
                    dasd_writes_avail -= nio
                    ios += nio
                    in_blk = (in_blk + nd) % write_block
                    stolen += 64
                    cand = np.uint64(0)
            while cand != 0 and stolen < want:
                m = cand & (~cand + _ONE)
                cand ^= m
                dirty = (planes[w, CHG] & m) != 0 or (planes[w, SLOT] & m) == 0
                if not dirty:
                    planes[w, DSD] |= m
                    to_dc += 1
                elif xstor_free > 0:
                    planes[w, XST] |= m
                    if planes[w, SLOT] & m:
                        planes[w, SLOT] &= ~m
                        s_rel += 1
                    xstor_free -= 1
                    to_x += 1
                elif (in_blk > 0 or dasd_writes_avail > 0) and \
                        ((planes[w, SLOT] & m) != 0 or slots_free > 0):
                    if (planes[w, SLOT] & m) == 0:
                        planes[w, SLOT] |= m
                        slots_free -= 1
                        s_alloc += 1
                    planes[w, DSD] |= m
                    if in_blk == 0:  # a new block: one more write I/O
                        dasd_writes_avail -= 1
                        ios += 1
                    in_blk = (in_blk + 1) % write_block
                    to_dw += 1
                else:
                    blocked = 1
                    break
                planes[w, CEN] &= ~m
                planes[w, CHG] &= ~m
                planes[w, REF] &= ~m
                stolen += 1
            if blocked:
                break
            if stolen >= want and cand != 0:
                break  # resume in this word next time
        words += 1
        w += 1
        if w >= w1:
            w = w0
    out[S_TO_XSTOR] = to_x
    out[S_TO_DASD_WRITTEN] = to_dw
    out[S_TO_DASD_CLEAN] = to_dc
    out[S_SLOTS_ALLOCATED] = s_alloc
    out[S_SLOTS_RELEASED] = s_rel
    out[S_CURSOR] = w
    out[S_BLOCKED] = blocked
    out[S_WORDS] = words
    out[S_DASD_IOS] = ios
    out[S_SEEN] = seen


# totals of ``steal_slices`` (``SS_`` indices)
SS_GOT = 0
SS_TO_XSTOR = 1
SS_TO_DASD_WRITTEN = 2
SS_TO_DASD_CLEAN = 3
SS_SLOTS_NET = 4  # slots allocated less slots released
SS_BLOCKED = 5
SS_LAST = 6  # the slice after the last one visited (where the next steal starts)
SS_FIRST_XSTOR = 7  # the visit that first sent pages to XSTOR (-1: none)
SS_FIRST_DASD = 8  # the visit that first sent pages to DASD (-1: none)
SS_ANY_CLEAR = 9  # 1 when some slice is known to hold no resident page (``clear``)
SS_OUT_LEN = 10


@njit(cache=True, nogil=True)
def steal_slices(
    planes: np.ndarray,
    cursors: np.ndarray,
    clear: np.ndarray,
    order: np.ndarray,
    ostamp: np.ndarray,
    first: int,
    nwords: int,
    want: int,
    take_referenced: bool,
    xstor_free: int,
    slots_free: int,
    io_left: np.ndarray,
    xfer_units: float,
    write_block: int,
    out: np.ndarray,
    tot: np.ndarray,
) -> None:
    """Demand-scan one guest slice by slice: up to ``want`` pages, the slices its workload
    touched longest ago first.

    A guest has one hand per slice of its storage (``cursors``, one word index each; slice
    ``i`` is words ``[nwords i / k, nwords (i + 1) / k)``). ``order`` lists the slices by the
    time the guest's walks last touched them (``ostamp``, the times in that order), oldest
    first. Slices touched at the same time are one group, visited in turn from the first slice
    at or after ``first``, a share from each: each visit takes at most a quota, at least 1024
    pages; slices with nothing to give leave their share to the others in the next round, and
    a round that gives nothing ends the group. The next group, touched later, is visited only
    when the older one holds no resident page, or when referenced pages are taken: a group
    whose pages were all passed over for their reference bits ends the scan, its pages to be
    taken at the next visit (as CP's lists hold a guest's frames in the order they were last
    found referenced: a sequential walk over more than its frames then loses the pages it
    will touch next, the worst case for paging). ``io_left[0]`` is what is left of the step's
    paging I/O (service times); the writes use it. ``clear[i]`` is 1 while slice ``i`` is
    known to hold no resident page (a visit went round it and met none, and nothing has been
    made resident there since: the guest's ``residency_changed`` says so): its visit finds
    nothing and is not scanned. Totals
    go to ``tot`` (see the ``SS_`` indices); ``out`` is the scratch of ``steal_pages``.
    """
    k = cursors.shape[0]
    got = 0
    to_x = 0
    to_dw = 0
    to_dc = 0
    slots_net = 0
    blocked = 0
    first_x = -1
    first_d = -1
    per_io = 1.0 + (write_block - 1) * xfer_units
    last = first  # (no visit: the next steal starts one slice on)
    visits = 0
    pos = 0
    while pos < k and got < want and not blocked:
        end = pos + 1
        while end < k and ostamp[end] == ostamp[pos]:
            end += 1
        n = end - pos
        r0 = pos
        while r0 < end and order[r0] < first:
            r0 += 1
        if r0 == end:
            r0 = pos
        quota = max(1024, -(-(want - got) // n))
        round_got = 0
        round_seen = 0
        for j in range(n * n):
            if got >= want or blocked:
                break
            if j and j % n == 0:
                if round_got == 0:
                    break
                round_got = 0
                round_seen = 0
                quota = max(1024, -(-(want - got) // n))
            i = order[pos + (r0 - pos + j) % n]
            last = i
            w0 = nwords * i // k
            w1 = nwords * (i + 1) // k
            if clear[i]:
                # what the scan would do: go round the slice, take nothing, end where it began
                if cursors[i] < w0 or cursors[i] >= w1:
                    cursors[i] = w0
                continue
            steal_pages(planes, cursors[i], min(quota, want - got), take_referenced, xstor_free,
                        int(io_left[0] / per_io), slots_free, out, w0, w1, write_block)
            cursors[i] = out[S_CURSOR]
            if out[S_SEEN] == 0 and out[S_WORDS] >= w1 - w0:
                clear[i] = 1
            x = out[S_TO_XSTOR]
            dw = out[S_TO_DASD_WRITTEN]
            dc = out[S_TO_DASD_CLEAN]
            net = out[S_SLOTS_ALLOCATED] - out[S_SLOTS_RELEASED]
            took = x + dw + dc
            got += took
            round_got += took
            round_seen |= out[S_SEEN]
            to_x += x
            to_dw += dw
            to_dc += dc
            slots_net += net
            xstor_free -= x
            slots_free -= net
            ios = out[S_DASD_IOS]
            io_left[0] -= ios + max(0, dw - ios) * xfer_units
            if x and first_x < 0:
                first_x = visits
            if dw + dc and first_d < 0:
                first_d = visits
            visits += 1
            if out[S_BLOCKED]:
                blocked = 1
        if round_seen and not take_referenced and got < want:
            break  # an older group's pages were passed over: they go first next time
        pos = end
    tot[SS_GOT] = got
    tot[SS_TO_XSTOR] = to_x
    tot[SS_TO_DASD_WRITTEN] = to_dw
    tot[SS_TO_DASD_CLEAN] = to_dc
    tot[SS_SLOTS_NET] = slots_net
    tot[SS_BLOCKED] = blocked
    tot[SS_LAST] = (last + 1) % k
    tot[SS_FIRST_XSTOR] = first_x
    tot[SS_FIRST_DASD] = first_d
    any_clear = 0
    for i in range(k):
        if clear[i]:
            any_clear = 1
            break
    tot[SS_ANY_CLEAR] = any_clear


@njit(cache=True, nogil=True)
def migrate_xstor(
    planes: np.ndarray,
    cursor: int,
    want: int,
    dasd_writes_avail: int,
    slots_free: int,
    out: np.ndarray,
    write_block: int = 1,
) -> None:
    """Move up to ``want`` XSTOR pages of one guest to DASD slots, clock-wise from word ``cursor``,
    in blocks of up to ``write_block`` pages per write I/O.

    Results go to ``out``: ``out[0]`` pages migrated, ``out[1]`` new cursor, ``out[2]`` 1 when
    stopped for lack of DASD writes or slots, ``out[3]`` the write I/Os.
    """
    nwords = planes.shape[0]
    moved = 0
    words = 0
    blocked = 0
    ios = 0
    in_blk = 0
    if write_block < 1:
        write_block = 1
    w = cursor
    if w >= nwords or w < 0:
        w = 0
    while words < nwords and moved < want:
        xs = planes[w, XST]
        while xs != 0 and moved < want:
            if (in_blk == 0 and dasd_writes_avail <= 0) or slots_free <= 0:
                blocked = 1
                break
            m = xs & (~xs + _ONE)
            xs ^= m
            planes[w, XST] &= ~m
            planes[w, DSD] |= m
            planes[w, SLOT] |= m
            planes[w, CHG] &= ~m
            if in_blk == 0:
                dasd_writes_avail -= 1
                ios += 1
            in_blk = (in_blk + 1) % write_block
            slots_free -= 1
            moved += 1
        if blocked:
            break
        if moved >= want and xs != 0:
            break
        words += 1
        w += 1
        if w >= nwords:
            w = 0
    out[0] = moved
    out[1] = w
    out[2] = blocked
    out[3] = ios


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """LLVM's population count (one POPCNT instruction where the CPU has it)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True, nogil=True)
def popcount64(x: np.uint64) -> int:
    """Number of set bits in a 64-bit word."""
    return int(_ctpop(np.uint64(x)))  # type: ignore[call-arg]  # numba adds it


@njit(cache=True, nogil=True)
def count_planes(planes: np.ndarray, out: np.ndarray) -> None:
    """Count the set bits of every plane into ``out`` (length NPLANES)."""
    for p in range(planes.shape[1]):
        out[p] = 0
    for w in range(planes.shape[0]):
        for p in range(planes.shape[1]):
            v = planes[w, p]
            if v != 0:
                out[p] += popcount64(v)


@njit(cache=True, nogil=True)
def fill_resident(planes: np.ndarray, npages: int, changed: bool) -> None:
    """Make pages ``[0, npages)`` instantiated and resident (a guest that has touched them all)."""
    full = npages >> 6
    for w in range(full):
        planes[w, CEN] = _ALL
        if changed:
            planes[w, CHG] = _ALL
    rem = npages & 63
    if rem:
        mask = (_ONE << np.uint64(rem)) - _ONE
        planes[full, CEN] |= mask
        if changed:
            planes[full, CHG] |= mask


@njit(cache=True, nogil=True)
def check_planes(planes: np.ndarray, npages: int) -> int:
    """Return the first word that breaks a page-state invariant, or -1 when all hold.

    Invariants: at most one of CEN, XST, DSD per page; DSD implies SLOT; XST excludes SLOT;
    CHG and REF only on resident pages... (REF/CHG may stay on resident pages only); no bit
    beyond ``npages``.
    """
    nwords = planes.shape[0]
    for w in range(nwords):
        c = planes[w, CEN]
        x = planes[w, XST]
        d = planes[w, DSD]
        s = planes[w, SLOT]
        if (c & x) or (c & d) or (x & d):
            return w
        if d & ~s:
            return w
        if x & s:
            return w
        if (planes[w, CHG] | planes[w, REF]) & ~c:
            return w
        base = w * 64
        if base + 64 > npages:
            valid = _ALL if npages - base >= 64 else (
                (_ONE << np.uint64(max(npages - base, 0))) - _ONE)
            for p in range(planes.shape[1]):
                if planes[w, p] & ~valid:
                    return w
    return -1


@njit(cache=True, nogil=True)
def start_pass(planes: np.ndarray, first: bool, w0: int = 0, w1: int = -1) -> int:
    """Begin a memory-move pass: the pages to send become SEND, and LGR starts afresh.

    Pass 1 sends every instantiated page; a later pass sends the pages changed (LGR) since the
    previous pass began. Only words ``[w0, w1)`` are visited (``w1 = -1``: to the end): a later
    pass needs only the words where changes could have been made, since the previous pass left
    SEND empty everywhere. Returns the number of pages to send.
    """
    total = 0
    if w1 < 0 or w1 > planes.shape[0]:
        w1 = planes.shape[0]
    for w in range(max(w0, 0), w1):
        if first:
            v = planes[w, CEN] | planes[w, XST] | planes[w, DSD]
        else:
            v = planes[w, LGR]
        planes[w, SEND] = v
        planes[w, LGR] = np.uint64(0)
        if v != 0:
            total += popcount64(v)
    return total


@njit(cache=True, nogil=True)
def count_plane(planes: np.ndarray, plane: int) -> int:
    """Set bits of one plane."""
    total = 0
    for w in range(planes.shape[0]):
        v = planes[w, plane]
        if v != 0:
            total += popcount64(v)
    return total


@njit(cache=True, nogil=True)
def clear_plane(planes: np.ndarray, plane: int) -> None:
    """Clear one plane."""
    for w in range(planes.shape[0]):
        planes[w, plane] = np.uint64(0)


@njit(cache=True, nogil=True)
def send_pages(
    src: np.ndarray,
    dst: np.ndarray,
    cursor: int,
    max_pages: int,
    dasd_reads_avail: int,
    dst_frames_avail: int,
    out: np.ndarray,
    page_s: float = 0.0,
    read_s: float = 0.0,
    read_places: int = 1,
    time_left: float = 0.0,
    clock: np.ndarray | None = None,
    xstor_s: float = 0.0,
    stamps: np.ndarray | None = None,
    stamp_t0: float = 0.0,
) -> None:
    """Send up to ``max_pages`` pages of the SEND plane from ``src`` to ``dst``, from ``cursor``.

    A page in source XSTOR or on source DASD is read in to be sent (a DASD read uses one of
    ``dasd_reads_avail``). On the destination the page lands in a frame: a new one, or the frame it
    already has; an older copy the destination had paged out is released. Arriving pages count as
    changed (no slot holds them) and unreferenced. Results go to ``out`` (see the ``X_`` indices).

    With ``page_s`` > 0 the pages also take time, within ``time_left`` seconds: ``page_s`` each
    to send, and a page on DASD cannot go before its read is done. The reads run ahead of the
    sending: ``read_places`` of them in the devices at once, each taking ``read_s``, the read of
    a page on DASD starting when a place is free and the page ``read_places`` DASD pages
    before it has gone (it held the frame this one is read into). ``clock`` gets the seconds
    used and, of them, the seconds the sending waited for reads. A page in source XSTOR takes
    ``xstor_s`` more: its synchronous read into a frame before it goes.

    ``stamps`` (the destination guest's slice times, ``Guest.slice_stamp``): each slice a page
    came into gets the moment the last of them came, ``stamp_t0`` plus the call's clock.
    """
    timed = page_s > 0.0
    nslices = 0 if stamps is None else stamps.shape[0]
    places = read_places if read_places > 1 else 1
    read_done = np.zeros(places)  # per place: when its last read was done
    read_sent = np.zeros(places)  # per place: when the page of its last read went
    reads = 0
    t = 0.0
    waited = 0.0
    nwords = src.shape[0]
    sent = 0
    fx = 0
    fd = 0
    new_frames = 0
    dx = 0
    dd = 0
    ds = 0
    stop = SEND_DONE
    w = cursor
    if w >= nwords or w < 0:
        w = 0
    words = 0
    while words < nwords:
        todo = src[w, SEND]
        # the whole word at once: resident on the source, on the destination in a frame or nowhere
        if todo != 0 and (todo & ~src[w, CEN]) == 0 \
                and (todo & (dst[w, XST] | dst[w, DSD] | dst[w, SLOT])) == 0:
            k = popcount64(todo)
            fresh = todo & ~dst[w, CEN]
            nf = popcount64(fresh) if fresh != 0 else 0
            if sent + k <= max_pages and nf <= dst_frames_avail \
                    and (not timed or t + k * page_s <= time_left):
                t += k * page_s
                dst[w, CEN] |= todo
                dst[w, CHG] |= todo
                dst[w, REF] &= ~todo
                src[w, SEND] = np.uint64(0)
                dst_frames_avail -= nf
                new_frames += nf
                sent += k
                todo = np.uint64(0)
                if stamps is not None and nslices > 0:
                    stamps[w * nslices // nwords] = stamp_t0 + t
        while todo != 0:
            if sent >= max_pages:
                stop = SEND_LIMIT
                break
            m = todo & (~todo + _ONE)
            on_dasd = (src[w, DSD] & m) != 0
            if on_dasd and dasd_reads_avail <= 0:
                stop = SEND_SRC_DASD
                break
            go = t
            done = 0.0
            j = reads % places  # the place this page's read takes, if it is on DASD
            own_s = page_s
            if not on_dasd and (src[w, XST] & m) != 0:
                own_s = page_s + xstor_s
            if timed:
                if on_dasd:
                    done = max(read_done[j], read_sent[j]) + read_s
                    if done > go:
                        go = done
                if go + own_s > time_left:
                    stop = SEND_LIMIT
                    break
            if (dst[w, CEN] & m) == 0:
                if dst_frames_avail <= 0:
                    stop = SEND_DST_FRAMES
                    break
                dst_frames_avail -= 1
                new_frames += 1
                if dst[w, XST] & m:
                    dst[w, XST] &= ~m
                    dx += 1
                elif dst[w, DSD] & m:
                    dst[w, DSD] &= ~m
                    dd += 1
                dst[w, CEN] |= m
            if dst[w, SLOT] & m:
                dst[w, SLOT] &= ~m
                ds += 1
            dst[w, CHG] |= m
            dst[w, REF] &= ~m
            if on_dasd:
                dasd_reads_avail -= 1
                fd += 1
                if timed:
                    read_done[j] = done
                    read_sent[j] = go + page_s
                    reads += 1
                    waited += go - t
            elif src[w, XST] & m:
                fx += 1
            t = go + own_s
            todo ^= m
            src[w, SEND] &= ~m
            sent += 1
            if stamps is not None and nslices > 0:
                stamps[w * nslices // nwords] = stamp_t0 + t
        if stop != SEND_DONE:
            break
        words += 1
        w += 1
        if w >= nwords:
            w = 0
    out[X_SENT] = sent
    out[X_FROM_XSTOR] = fx
    out[X_FROM_DASD] = fd
    out[X_DST_NEW_FRAMES] = new_frames
    out[X_DST_XSTOR_FREED] = dx
    out[X_DST_DASD_FREED] = dd
    out[X_DST_SLOTS_FREED] = ds
    out[X_CURSOR] = w
    out[X_STOP] = stop
    out[X_WORDS] = words
    if clock is not None:
        clock[0] = t
        clock[1] = waited


@njit(cache=True, nogil=True)
def xorshift_next(state: np.ndarray) -> np.uint64:
    """xorshift64*: a cheap generator for bulk random masks (state must not be 0)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, nogil=True)
def random_mask(state: np.ndarray, p256: int) -> np.uint64:
    """A 64-bit word whose bits are set independently with probability ``p256 / 256``.

    Combines random words from the lowest set bit of ``p256`` upwards: OR for a 1, AND for a 0,
    so each bit ends up set with probability 0.b7b6...b0 in binary. ``state`` is xorshift's.
    """
    if p256 >= 256:
        return _ALL
    if p256 <= 0:
        return np.uint64(0)
    m = np.uint64(0)
    k = 0
    while (p256 >> k) & 1 == 0:
        k += 1  # below the lowest set bit, AND with an all-zero word changes nothing
    while k < 8:
        r = xorshift_next(state)
        if (p256 >> k) & 1:
            m = m | r
        else:
            m = m & r
        k += 1
    return m


@njit(cache=True, nogil=True)
def touch_range(planes: np.ndarray, lo: int, hi: int, start: int, count: int, write: bool,
                track_lgr: bool) -> None:
    """A sequential walk of ``count`` pages of a wholly resident region, from ``start`` with wrap.

    Sets the reference bits (and the change bits when the walk writes) of the pages walked,
    a word at a time; a walk of the whole region or more marks every page.
    """
    n = hi - lo
    if n <= 0 or count <= 0:
        return
    if count >= n:
        start = lo
        count = n
    first = start
    left = count
    while left > 0:
        end = min(first + left, hi)
        i = first
        while i < end:
            w = i >> 6
            base = w * 64
            m = _ALL
            if i > base:
                m &= ~((_ONE << np.uint64(i - base)) - _ONE)
            if end < base + 64:
                m &= (_ONE << np.uint64(end - base)) - _ONE
            planes[w, REF] |= m
            if write:
                planes[w, CHG] |= m
                if track_lgr:
                    planes[w, LGR] |= m
            i = base + 64
        left -= end - first
        first = lo


@njit(cache=True, nogil=True)
def region_resident(planes: np.ndarray, lo: int, hi: int) -> bool:
    """True when every page of ``[lo, hi)`` is resident in central storage."""
    if hi <= lo:
        return True
    for w in range(lo >> 6, (hi + 63) >> 6):
        base = w * 64
        need = _ALL
        if base < lo:
            need &= ~((_ONE << np.uint64(lo - base)) - _ONE)
        if base + 64 > hi:
            need &= (_ONE << np.uint64(hi - base)) - _ONE
        if planes[w, CEN] & need != need:
            return False
    return True


@njit(cache=True, nogil=True)
def touch_resident(planes: np.ndarray, lo: int, hi: int, refs: float, write_frac: float,
                   track_lgr: bool, rng: np.ndarray) -> int:
    """Apply ``refs`` uniform references to the resident pages of a region at once; return
    pages hit.

    Each page is hit with probability ``1 - exp(-refs / pages)`` (the union of all the steps'
    references), so deferring references and applying them later changes nothing in
    distribution. Sparse hits are drawn as geometric gaps, dense ones as random 64-bit masks. A
    page of the region that is not resident is left alone (its references, if they made it
    instantiated, are ``instantiate_random``'s).
    """
    n = hi - lo
    if n <= 0 or refs <= 0.0:
        return 0
    p = -np.expm1(-refs / n)
    hit = 0
    if p < 0.15:
        log_q = np.log1p(-p)
        i = lo + geometric_gap(rng, log_q)
        while i < hi:
            w = i >> 6
            m = _ONE << np.uint64(i & 63)
            if planes[w, CEN] & m == 0:
                i += 1 + geometric_gap(rng, log_q)
                continue
            planes[w, REF] |= m
            if write_frac >= 1.0 or (write_frac > 0.0 and uniform(rng) <= write_frac):
                planes[w, CHG] |= m
                if track_lgr:
                    planes[w, LGR] |= m
            hit += 1
            i += 1 + geometric_gap(rng, log_q)
        return hit
    p256 = int(p * 256.0 + 0.5)
    w256 = int(write_frac * 256.0 + 0.5)
    xs = np.zeros(1, dtype=np.uint64)
    xs[0] = splitmix_next(rng) | _ONE
    w0 = lo >> 6
    w1 = (hi + 63) >> 6
    for w in range(w0, w1):
        m = random_mask(xs, p256)
        base = w * 64
        if base < lo:
            m &= ~((_ONE << np.uint64(lo - base)) - _ONE)
        if base + 64 > hi:
            m &= (_ONE << np.uint64(hi - base)) - _ONE
        m &= planes[w, CEN]
        if m == 0:
            continue
        planes[w, REF] |= m
        c = m & random_mask(xs, w256)
        planes[w, CHG] |= c
        if track_lgr:
            planes[w, LGR] |= c
        hit += popcount64(m)
    return hit


@njit(cache=True, nogil=True)
def _range_mask(w: int, lo: int, hi: int) -> np.uint64:
    """The bits of word ``w`` that hold pages of ``[lo, hi)``."""
    base = w * 64
    need = _ALL
    if base < lo:
        need &= ~((_ONE << np.uint64(lo - base)) - _ONE)
    if base + 64 > hi:
        need &= (_ONE << np.uint64(hi - base)) - _ONE
    return need


@njit(cache=True, nogil=True)
def count_untouched(planes: np.ndarray, lo: int, hi: int) -> int:
    """Pages of ``[lo, hi)`` never touched (or released): in no frame, XSTOR block or slot."""
    n = 0
    if hi <= lo:
        return 0
    for w in range(lo >> 6, (hi + 63) >> 6):
        held = planes[w, CEN] | planes[w, XST] | planes[w, DSD]
        n += popcount64(~held & _range_mask(w, lo, hi))
    return n


@njit(cache=True, nogil=True)
def mark_segments(planes: np.ndarray, segs: np.ndarray, lo: int, hi: int) -> int:
    """Mark in ``segs`` (one byte per megabyte: 256 pages, 4 words) every megabyte that
    overlaps pages ``[lo, hi)`` and holds an instantiated page; return how many were newly
    marked (CP built a page management block for each)."""
    n = 0
    if hi <= lo:
        return 0
    words = planes.shape[0]
    for s in range(max(0, lo) >> 8, min(len(segs), (hi + 255) >> 8)):
        if segs[s]:
            continue
        for w in range(s << 2, min(words, (s + 1) << 2)):
            if planes[w, CEN] | planes[w, XST] | planes[w, DSD]:
                segs[s] = 1
                n += 1
                break
    return n


@njit(cache=True, nogil=True)
def count_segments(planes: np.ndarray) -> int:
    """Megabytes (256 pages, 4 words) that hold an instantiated page."""
    n = 0
    words = planes.shape[0]
    for s in range((words + 3) >> 2):
        for w in range(s << 2, min(words, (s + 1) << 2)):
            if planes[w, CEN] | planes[w, XST] | planes[w, DSD]:
                n += 1
                break
    return n


@njit(cache=True, nogil=True)
def binomial(rng: np.ndarray, n: int, p: float) -> int:
    """A draw from Binomial(``n``, ``p``) with the splitmix generator in ``rng``.

    Exact (successes counted as geometric gaps) while the expected count of the rarer outcome is
    at most 40; beyond that the normal approximation (rounded, clipped to ``[0, n]``), whose
    error there is small against the draw's own spread.
    """
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    flip = p > 0.5
    q = 1.0 - p if flip else p
    mean = n * q
    k = 0
    if mean <= 40.0:
        log_q = np.log1p(-q)
        i = geometric_gap(rng, log_q)
        while i < n:
            k += 1
            i += 1 + geometric_gap(rng, log_q)
    else:
        u1 = uniform(rng)
        u2 = uniform(rng)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        x = np.floor(mean + z * np.sqrt(mean * (1.0 - q)) + 0.5)
        k = int(min(max(x, 0.0), float(n)))
    return n - k if flip else k


@njit(cache=True, nogil=True)
def instantiate_random(planes: np.ndarray, lo: int, hi: int, k: int, track_lgr: bool,
                       rng: np.ndarray) -> int:
    """Make ``k`` untouched pages of ``[lo, hi)``, chosen uniformly at random, resident: each
    referenced and changed (a new page has no copy anywhere), as a first touch leaves it.

    Selection sampling over the untouched pages (each taken with chance pages still wanted over
    pages still to see), so exactly ``min(k, untouched)`` pages are taken; returns that count.
    """
    left = count_untouched(planes, lo, hi)
    want = min(k, left)
    took = 0
    if want <= 0:
        return 0
    for w in range(lo >> 6, (hi + 63) >> 6):
        if took >= want:
            break
        free = ~(planes[w, CEN] | planes[w, XST] | planes[w, DSD]) & _range_mask(w, lo, hi)
        if free == 0:
            continue
        c = popcount64(free)
        pick = np.uint64(0)
        if want - took >= left:
            pick = free  # every page still untouched is wanted
            took += c
            left -= c
        else:
            while free != 0:
                low = free & (~free + _ONE)
                free ^= low
                if uniform(rng) * left <= want - took:
                    pick |= low
                    took += 1
                left -= 1
        if pick != 0:
            planes[w, CEN] |= pick
            planes[w, REF] |= pick
            planes[w, CHG] |= pick
            if track_lgr:
                planes[w, LGR] |= pick
    return took

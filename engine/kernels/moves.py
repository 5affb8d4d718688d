"""Numba kernels over *move bitmaps*: one bit per disk block or memory page, uint64 words.

Storage vMotion (blocks of a virtual disk) and PowerVM LPM (pages of a partition) both copy a
set of units while the guest keeps writing, as LGR does. Unlike the guest page state of
``kernels.pages`` (eight interleaved planes), each plane here is its own 1-D ``uint64`` array,
so that a 64 TB partition needs only the two planes LPM uses (2 GiB each). Bit ``i`` of the plane is
bit ``i % 64`` of word ``i // 64``.

Planes, by role:

- ``pending``: still to copy in the current pass;
- ``dirty``: written since the unit was last copied (must be copied again), or, for a snapshot,
  held in the current delta;
- ``hot``: written again while already dirty (heat optimisation: such a unit is written
  often; the next pass defers it to the final pass instead of copying it now).

Kernels only loop; the Python drivers in ``migrations.storage_vmotion`` and ``migrations.lpm``
decide what to do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pages import popcount64, splitmix_next

# How a write is tracked (``write_random`` / ``write_range`` mode).
TRACK_ALL = 0  # every write marks the unit dirty (DBT, a snapshot's delta)
TRACK_COPIED = 1  # only a unit not pending in this pass (incremental DBT, LPM)
TRACK_NONE = 2  # nothing is marked; writes to copied units are counted (IO mirroring)
#: a touch of a unit still pending takes it out of the pass: it is fetched on demand (LPM's
#: post-copy); W_MARKED counts the units fetched
TRACK_FETCH = 3

# Indices into a write kernel's ``out`` array (int64); the kernels add to them.
W_WRITES = 0  # writes applied
W_COPIED = 1  # writes that hit a unit not pending (already copied this pass): mirrored writes
W_MARKED = 2  # units newly marked dirty
W_LO = 3  # lowest word touched (the caller sets it to a large value first)
W_HI = 4  # one past the highest word touched
W_OUT_LEN = 5

# Indices into ``copy_pending``'s ``out`` array (float64).
C_UNITS = 0  # units copied
C_RUNS = 1  # runs of consecutive units copied (each costs one seek)
C_CURSOR = 2  # word where the next call starts
C_USED_S = 3  # seconds of budget used
C_CARRY = 4  # 1.0 when the unit just before the cursor was copied in this pass
C_DONE = 5  # 1.0 when nothing pending is left up to the end word
C_OUT_LEN = 6

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_INV53 = 1.0 / 9007199254740992.0


def words_for(units: int) -> int:
    """Words of a plane holding ``units`` bits."""
    return (units + 63) // 64


def warmup() -> None:
    """Compile (or load from the cache) every kernel on tiny inputs."""
    a = np.zeros(2, dtype=np.uint64)
    b = np.zeros(2, dtype=np.uint64)
    c = np.zeros(2, dtype=np.uint64)
    rng = np.ones(1, dtype=np.uint64)
    w = np.zeros(W_OUT_LEN, dtype=np.int64)
    set_all(a, 100)
    count_bits(a, 0, 2)
    count_units(a, 3, 70)
    bits_ahead(a, 0, 100, 40, np.zeros(2, dtype=np.int64))
    count_runs(a, 0, 2)
    write_random(b, a, c, True, TRACK_ALL, 0, 100, 10, rng, w)
    write_range(b, a, c, False, TRACK_COPIED, 0, 100, 5, 10, w)
    o = np.zeros(C_OUT_LEN)
    copy_pending(a, 0, 2, 1.0, 0.01, 0.001, 0.0, o)
    begin_pass(b, a, c, True, 0, 2)
    begin_pass(b, a, c, False, 0, 2)


@njit(cache=True, nogil=True)
def set_all(plane: np.ndarray, units: int) -> None:
    """Set the first ``units`` bits of ``plane`` and clear the rest (a pass over everything)."""
    full = units // 64
    for w in range(full):
        plane[w] = _ALL
    rest = units - full * 64
    if full < plane.shape[0]:
        plane[full] = (_ONE << np.uint64(rest)) - _ONE if rest else np.uint64(0)
        for w in range(full + 1, plane.shape[0]):
            plane[w] = np.uint64(0)


@njit(cache=True, nogil=True)
def count_bits(plane: np.ndarray, w0: int, w1: int) -> int:
    """Set bits in words ``w0 .. w1-1``."""
    n = 0
    for w in range(w0, w1):
        x = plane[w]
        if x:
            n += popcount64(x)
    return n


@njit(cache=True, nogil=True)
def count_units(plane: np.ndarray, a: int, b: int) -> int:
    """Set bits among units ``a .. b-1`` (any bounds, not only whole words)."""
    if b <= a:
        return 0
    w0, w1 = a >> 6, (b - 1) >> 6
    lo_mask = _ALL << np.uint64(a & 63)
    hi_mask = _ALL >> np.uint64(63 - ((b - 1) & 63))
    if w0 == w1:
        return popcount64(plane[w0] & lo_mask & hi_mask)
    n = popcount64(plane[w0] & lo_mask) + popcount64(plane[w1] & hi_mask)
    for w in range(w0 + 1, w1):
        x = plane[w]
        if x:
            n += popcount64(x)
    return n


@njit(cache=True, nogil=True)
def bits_ahead(plane: np.ndarray, lo: int, hi: int, start: int, out: np.ndarray) -> None:
    """``out[j]``: set bits among the ``64 * (j + 1)`` units from ``start`` on, wrapping within
    ``lo .. hi-1`` (what a sequential walk from ``start`` meets; ``out`` holds
    ``ceil((hi - lo) / 64)`` entries, the last one the whole lap)."""
    span = hi - lo
    if start < lo or start >= hi:
        start = lo
    total = 0
    for j in range(out.shape[0]):
        a = start + 64 * j
        b = min(a + 64, start + span)
        if a >= hi:
            total += count_units(plane, a - span, b - span)
        elif b > hi:
            total += count_units(plane, a, hi) + count_units(plane, lo, b - span)
        else:
            total += count_units(plane, a, b)
        out[j] = total


@njit(cache=True, nogil=True)
def count_runs(plane: np.ndarray, w0: int, w1: int) -> int:
    """Runs of consecutive set bits in words ``w0 .. w1-1`` (a copy of them costs a seek each)."""
    n = 0
    carry = np.uint64(0)
    for w in range(w0, w1):
        x = plane[w]
        if x:
            # a run starts where a bit is set and the bit before it is not
            n += popcount64(x & ~((x << _ONE) | carry))
        carry = x >> np.uint64(63)
    return n


@njit(cache=True, nogil=True)
def _mark(dirty: np.ndarray, pending: np.ndarray, hot: np.ndarray, track_hot: bool, mode: int,
          i: int, out: np.ndarray) -> None:
    w = i >> 6
    bit = _ONE << np.uint64(i & 63)
    out[W_WRITES] += 1
    is_pending = (pending[w] & bit) != 0
    if mode == TRACK_FETCH:
        if is_pending:
            pending[w] &= ~bit
            out[W_MARKED] += 1
        return
    if not is_pending:
        out[W_COPIED] += 1
    if mode == TRACK_NONE or (mode == TRACK_COPIED and is_pending):
        return
    if (dirty[w] & bit) == 0:
        dirty[w] |= bit
        out[W_MARKED] += 1
    elif track_hot:
        hot[w] |= bit
    out[W_LO] = min(out[W_LO], w)
    out[W_HI] = max(out[W_HI], w + 1)


@njit(cache=True, nogil=True)
def write_random(dirty: np.ndarray, pending: np.ndarray, hot: np.ndarray, track_hot: bool,
                 mode: int, lo: int, hi: int, n: int, rng: np.ndarray, out: np.ndarray) -> None:
    """Apply ``n`` writes to units drawn uniformly from ``lo .. hi-1`` (a unit may be hit twice).

    ``mode`` says which writes mark the unit dirty (``TRACK_*``); with ``track_hot`` a write to a
    unit already dirty marks it hot. The generator in ``rng`` is the kernels' splitmix64.
    """
    span = hi - lo
    if span <= 0:
        return
    for _ in range(n):
        u = float(splitmix_next(rng) >> np.uint64(11)) * _INV53
        i = lo + int(u * span)
        if i >= hi:
            i = hi - 1
        _mark(dirty, pending, hot, track_hot, mode, i, out)


@njit(cache=True, nogil=True)
def write_range(dirty: np.ndarray, pending: np.ndarray, hot: np.ndarray, track_hot: bool,
                mode: int, lo: int, hi: int, start: int, count: int, out: np.ndarray) -> None:
    """Write ``count`` consecutive units from ``start``, wrapping within ``lo .. hi-1``."""
    span = hi - lo
    if span <= 0:
        return
    i = start
    for _ in range(count):
        if i >= hi or i < lo:
            i = lo
        _mark(dirty, pending, hot, track_hot, mode, i, out)
        i += 1


@njit(cache=True, nogil=True)
def begin_pass(dirty: np.ndarray, pending: np.ndarray, hot_plane: np.ndarray, heat: bool, w0: int,
               w1: int) -> tuple[int, int]:
    """Start a pass: the dirty units of words ``w0 .. w1-1`` become pending.

    With ``heat``, a dirty unit marked hot (written again while dirty) stays dirty (deferred to
    the final pass) and is not copied now; the hot marks start afresh for the new pass.
    Returns ``(pending, deferred)`` counts.
    """
    sent = 0
    held = 0
    for w in range(w0, w1):
        d = dirty[w]
        if heat:
            hot = d & hot_plane[w]
            hot_plane[w] = np.uint64(0)
            s = d & ~hot
            dirty[w] = hot
            if hot:
                held += popcount64(hot)
        else:
            s = d
            dirty[w] = np.uint64(0)
        if s:
            pending[w] |= s
            sent += popcount64(s)
    return sent, held


@njit(cache=True, nogil=True)
def copy_pending(pending: np.ndarray, cursor: int, w1: int, budget_s: float, unit_s: float,
                 run_s: float, carry: float, out: np.ndarray) -> None:
    """Copy pending units from word ``cursor`` on, while ``budget_s`` seconds last.

    Each unit costs ``unit_s``; each run of consecutive units costs ``run_s`` more (a seek; a
    run may continue across calls: ``carry``). Copied units leave ``pending``. Whole words go at
    once when the budget allows; otherwise units are taken from the lowest bit up. A call that
    stops inside a word resumes there with the copied bits gone: ``carry`` then says whether
    the unit before the word's lowest pending unit was copied, and the run goes on without a
    seek (the mover does not stop between steps; taking it for a new run, a move paid a seek
    at every step boundary, more at short steps).
    """
    used = 0.0
    units = 0
    runs = 0
    c = np.uint64(1) if carry > 0.5 else np.uint64(0)
    w = cursor
    stopped = False
    first = True
    while w < w1:
        x = pending[w]
        if first and c != 0 and x != 0:
            # the run goes on into this word's lowest pending unit (its copied bits are gone)
            c = x & (~x + _ONE)
        first = False
        if x == 0:
            c = np.uint64(0)
            w += 1
            continue
        k = popcount64(x)
        r = popcount64(x & ~((x << _ONE) | c))
        cost = k * unit_s + r * run_s
        if used + cost <= budget_s:
            used += cost
            units += k
            runs += r
            pending[w] = np.uint64(0)
            c = x >> np.uint64(63)
            w += 1
            continue
        # part of the word: lowest bits first, until the budget runs out (``c``, a run going
        # on into the word, holds across the copied bits below its lowest pending unit)
        lead = c
        for b in range(64):
            bit = _ONE << np.uint64(b)
            if (x & bit) == 0:
                c = np.uint64(0)
                continue
            if lead & bit:
                c = np.uint64(1)
            lead = np.uint64(0)
            extra = unit_s + (run_s if c == 0 else 0.0)
            if used + extra > budget_s:
                stopped = True
                break
            used += extra
            units += 1
            if c == 0:
                runs += 1
            x &= ~bit
            c = np.uint64(1)
        pending[w] = x
        if stopped or x != 0:
            stopped = True
            break
        w += 1
    out[C_UNITS] = units
    out[C_RUNS] = runs
    out[C_CURSOR] = w
    out[C_USED_S] = used
    out[C_CARRY] = 1.0 if c != 0 else 0.0
    out[C_DONE] = 0.0 if stopped else 1.0

"""Plain-Python twins of the move-bitmap kernels: one bool per unit, one unit at a time."""

from __future__ import annotations

import numpy as np
from reference import Rng

from ssisim.engine.kernels import moves as M


def unpack(plane: np.ndarray, units: int) -> list[bool]:
    """A plane as one bool per unit."""
    bits = np.unpackbits(plane.copy().view(np.uint8), bitorder="little")
    return [bool(b) for b in bits[:units]]


def pack(bits: list[bool], words: int) -> np.ndarray:
    """Bools back into a plane of ``words`` words."""
    padded = np.zeros(words * 64, dtype=np.uint8)
    padded[:len(bits)] = bits
    return np.packbits(padded, bitorder="little").view(np.uint64).copy()


def mark(dirty: list[bool], pending: list[bool], hot: list[bool] | None, mode: int, i: int,
         out: list[int]) -> None:
    out[M.W_WRITES] += 1
    if not pending[i]:
        out[M.W_COPIED] += 1
    if mode == M.TRACK_NONE or (mode == M.TRACK_COPIED and pending[i]):
        return
    if not dirty[i]:
        dirty[i] = True
        out[M.W_MARKED] += 1
    elif hot is not None:
        hot[i] = True  # written again while dirty: a frequently written unit
    out[M.W_LO] = min(out[M.W_LO], i // 64)
    out[M.W_HI] = max(out[M.W_HI], i // 64 + 1)


def write_random(dirty, pending, hot, mode, lo, hi, n, rng: Rng, out) -> None:
    for _ in range(n):
        u = (rng.next() >> 11) * (1.0 / 9007199254740992.0)
        i = min(hi - 1, lo + int(u * (hi - lo)))
        mark(dirty, pending, hot, mode, i, out)


def write_range(dirty, pending, hot, mode, lo, hi, start, count, out) -> None:
    i = start
    for _ in range(count):
        if i >= hi or i < lo:
            i = lo
        mark(dirty, pending, hot, mode, i, out)
        i += 1


def begin_pass(dirty, pending, hot_marks, heat: bool) -> tuple[int, int]:
    sent = held = 0
    for i in range(len(dirty)):
        d = dirty[i]
        hot = heat and d and hot_marks[i]
        if heat:
            hot_marks[i] = False
        s = d and not hot
        dirty[i] = hot
        held += hot
        if s:
            pending[i] = True
            sent += 1
    return sent, held


def copy_pending(pending, cursor_word, end_word, budget_s, unit_s, run_s, carry):
    """Walk unit by unit; a unit costs unit_s, plus run_s when its predecessor was not copied.
    ``carry``: the run of the call before goes on into the first word's lowest pending unit
    (the units below it in the word were copied then, or were never pending)."""
    used = 0.0
    units = runs = 0
    c = carry
    i = cursor_word * 64
    end = min(end_word * 64, len(pending))
    first_end = min(end, (cursor_word + 1) * 64)
    lead = carry and any(pending[i:first_end])
    stopped = False
    while i < end:
        if not pending[i]:
            if not (lead and i < first_end):
                c = False
            i += 1
            continue
        extra = unit_s + (0.0 if c else run_s)
        if used + extra > budget_s + 1e-12:
            stopped = True
            break
        used += extra
        units += 1
        runs += not c
        pending[i] = False
        c = True
        lead = False
        i += 1
    return {"units": units, "runs": runs, "done": not stopped, "used": used}

"""Plain-Python twins of the page kernels: one bool per page per plane, one page at a time.

They state what the kernels must do in the most obvious way; the tests check that the numba
kernels agree with them bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from ssisim.engine.kernels import pages as K

MASK = (1 << 64) - 1


class Rng:
    """splitmix64, as the kernels use it."""

    def __init__(self, state: int) -> None:
        self.s = state

    def next(self) -> int:
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        return ((self.next() >> 11) + 1.0) * (1.0 / 9007199254740992.0)

    def gap(self, log_q: float) -> int:
        if log_q >= 0.0:
            return 0
        return int(math.log(self.uniform()) / log_q)


def unpack(planes: np.ndarray, npages: int) -> dict[int, np.ndarray]:
    """Bit-planes as one bool array per plane."""
    out = {}
    for p in range(K.NPLANES):
        bits = np.unpackbits(planes[:, p].copy().view(np.uint8), bitorder="little")
        out[p] = bits[:npages].astype(bool)
    return out


def pack(b: dict[int, np.ndarray], npages: int) -> np.ndarray:
    """Bool planes back to the kernels' layout."""
    words = (npages + 63) // 64
    planes = np.zeros((words, K.NPLANES), dtype=np.uint64)
    for p, arr in b.items():
        padded = np.zeros(words * 64, dtype=np.uint8)
        padded[:npages] = arr
        planes[:, p] = np.packbits(padded, bitorder="little").view(np.uint64)
    return planes


def touch_region(b, lo, hi, start, next_sel, log_q, max_cover, write_frac, budget_cpu, budget_wall,
                 c_touch, c_new, c_xstor, dasd_wait, c_fault, frames, dasd_reads, rng: Rng):
    """Reference of ``K.touch_region`` without the fast paths (no lap fast-forward)."""
    n = hi - lo
    cpu = wall = 0.0
    touches = new = xin = din = covered = 0
    stop = K.STOP_DONE
    pos = start
    every = log_q >= 0.0
    sel = next_sel if next_sel >= 0 else rng.gap(log_q)
    while True:
        if sel > 0:
            adv = min(sel, max_cover - covered)
            covered += adv
            sel -= adv
            pos = lo + ((pos - lo + adv) % n)
            if sel > 0:
                break
        if covered >= max_cover:
            break
        if cpu >= budget_cpu or wall >= budget_wall:
            stop = K.STOP_BUDGET
            break
        write = write_frac >= 1.0 or (write_frac > 0.0 and rng.uniform() <= write_frac)
        i = pos
        if b[K.CEN][i]:
            cpu += c_touch
            wall += c_touch
        elif b[K.XST][i]:
            if frames <= 0:
                stop = K.STOP_FRAMES
                break
            b[K.XST][i] = False
            b[K.CEN][i] = True
            frames -= 1
            xin += 1
            cpu += c_touch + c_xstor
            wall += c_touch + c_xstor
        elif b[K.DSD][i]:
            if frames <= 0:
                stop = K.STOP_FRAMES
                break
            if dasd_reads <= 0:
                stop = K.STOP_DASD
                break
            b[K.DSD][i] = False
            b[K.CEN][i] = True
            b[K.CHG][i] = False
            frames -= 1
            dasd_reads -= 1
            din += 1
            cpu += c_touch + c_fault
            wall += c_touch + dasd_wait
        else:
            if frames <= 0:
                stop = K.STOP_FRAMES
                break
            b[K.CEN][i] = True
            b[K.CHG][i] = True
            frames -= 1
            new += 1
            cpu += c_touch + c_new
            wall += c_touch + c_new
        b[K.REF][i] = True
        if write:
            b[K.CHG][i] = True
        touches += 1
        covered += 1
        pos += 1
        if pos >= hi:
            pos = lo
        if not every:
            sel = rng.gap(log_q)
    return dict(touches=touches, new=new, xin=xin, din=din, cpu=cpu, wall=wall, covered=covered,
                stop=stop, cursor=pos, next=sel)


def steal_pages(b, npages, cursor, want, take_ref, xstor_free, dasd_writes, slots_free):
    """Reference of ``K.steal_pages``: the clock, one page at a time."""
    nwords = (npages + 63) // 64
    to_x = to_dw = to_dc = alloc = rel = stolen = words = 0
    blocked = seen = False
    w = cursor if 0 <= cursor < nwords else 0
    while words < nwords and stolen < want:
        pages = range(w * 64, min(w * 64 + 64, npages))
        res = [i for i in pages if b[K.CEN][i]]
        if res:
            seen = True
            if take_ref:
                cand = res
            else:
                cand = [i for i in res if not b[K.REF][i]]
                for i in res:
                    b[K.REF][i] = False
            left = list(cand)
            for i in cand:
                if stolen >= want:
                    break
                left.remove(i)
                dirty = b[K.CHG][i] or not b[K.SLOT][i]
                if not dirty:
                    b[K.DSD][i] = True
                    to_dc += 1
                elif xstor_free > 0:
                    b[K.XST][i] = True
                    if b[K.SLOT][i]:
                        b[K.SLOT][i] = False
                        rel += 1
                    xstor_free -= 1
                    to_x += 1
                elif dasd_writes > 0 and (b[K.SLOT][i] or slots_free > 0):
                    if not b[K.SLOT][i]:
                        b[K.SLOT][i] = True
                        slots_free -= 1
                        alloc += 1
                    b[K.DSD][i] = True
                    dasd_writes -= 1
                    to_dw += 1
                else:
                    blocked = True
                    break
                b[K.CEN][i] = b[K.CHG][i] = b[K.REF][i] = False
                stolen += 1
            if blocked:
                break
            if stolen >= want and left:
                break
        words += 1
        w = (w + 1) % nwords
    # one write I/O per page written (a page at a time: blocks of one); whether a resident
    # page was met at all
    return [to_x, to_dw, to_dc, alloc, rel, w, int(blocked), words, to_dw, int(seen)]

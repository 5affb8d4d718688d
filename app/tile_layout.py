"""Where the compact cluster view puts its small tiles: squares in shelves. No Qt here.

Each guest is a square whose area is proportional to its defined storage (side ``k * sqrt(GB)``,
one ``k`` for the whole cluster, so that the same size looks the same on every member). The
squares are laid left to right in rows (shelves), largest first within a group; a group (a
workload type, a state) starts a row of its own under a one-line header. Sorted by size, the
rows are nearly uniform and waste little room; and, unlike a squarified treemap, a guest that
arrives or leaves moves only the tiles after it, never the whole member.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

#: The smallest square drawn (pixels): still a colour one can see and point at.
MIN_SIDE = 6
#: The largest square (pixels): a few guests shown alone do not fill the screen.
MAX_SIDE = 120
#: Between two squares (pixels).
GAP = 2


@dataclass(frozen=True)
class Item:
    """One square to place: a guest (``key``, its user ID) of ``gb`` GB, in ``group``."""

    key: str
    gb: float
    group: str = ""


@dataclass
class Placement:
    """Squares placed in a width: ``rects`` by key as ``(x, y, side)``; group headers as
    ``(y, text)``; the height used."""

    rects: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    headers: list[tuple[int, str]] = field(default_factory=list)
    height: int = 0


def side(gb: float, k: float) -> int:
    """The side of a guest's square at scale ``k`` (pixels per square root of a GB)."""
    return max(MIN_SIDE, min(MAX_SIDE, int(k * math.sqrt(max(gb, 0.0)))))


def pack(items: Sequence[Item], width: int, k: float, header_h: int = 0,
         gap: int = GAP) -> Placement:
    """Lay ``items`` out in rows, in the order given, within ``width`` pixels.

    With ``header_h`` > 0, every change to a named group starts a new row under a header line
    of that height (the caller orders the items by group); items of no group (``""``) have no
    header.
    """
    out = Placement()
    x = y = row_h = 0
    group = ""
    for it in items:
        s = side(it.gb, k)
        if header_h and it.group != group and it.group:
            if row_h:
                y += row_h + gap
            out.headers.append((y, it.group))
            y += header_h
            x = row_h = 0
        group = it.group
        if x and x + s > width:
            y += row_h + gap
            x = row_h = 0
        out.rects[it.key] = (x, y, s)
        x += s + gap
        row_h = max(row_h, s)
    out.height = y + row_h
    return out


def fit_scale(members: Sequence[Sequence[Item]], width: int, height: int, header_h: int = 0,
              gap: int = GAP) -> float:
    """The largest scale at which every member's items fit ``width`` x ``height``.

    A cluster too large even at the smallest squares gets the scale of the smallest (the view
    then clips the tail, and says so).
    """
    sizes = [it.gb for items in members for it in items]
    if not sizes or width <= 0 or height <= 0:
        return 1.0
    big = math.sqrt(max(max(sizes), 1e-6))
    small = math.sqrt(max(min(sizes), 1e-6))
    lo, hi = MIN_SIDE / max(big, small), MAX_SIDE / small

    def fits(k: float) -> bool:
        return all(pack(items, width, k, header_h, gap).height <= height for items in members)

    if not fits(lo):
        return lo
    if fits(hi):
        return hi
    for _ in range(18):  # to well under a pixel of the largest square
        mid = (lo + hi) / 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


__all__ = ["GAP", "MAX_SIDE", "MIN_SIDE", "Item", "Placement", "fit_scale", "pack", "side"]

"""Sizes and units: CP-style storage sizes (``512M``, ``4G``, ``2T``) to pages and back."""

from __future__ import annotations

import math
import re

PAGE_BYTES = 4096
PAGES_PER_MB = 256
PAGES_PER_GB = 256 * 1024
PAGES_PER_SEGMENT = 256

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:([KMGTP])B?)?\s*$", re.IGNORECASE | re.ASCII)
# The largest storage size ssisim models, for any one thing (a guest's virtual storage, a
# member's central storage or XSTOR, a paging volume): 64 TiB, the largest PowerVM partition the
# LPM comparison moves (published E980 figures, docs/comparison.md). z/VM 7.3 itself supports
# 4 TB of central storage per member and 2 TB per guest; sizes beyond those are allowed for
# what-if studies. Limits are checked before anything is allocated.
MAX_PAGES = 64 * 1024 * 256 * 1024
MAX_SIZE_TEXT = "64T"

_FACTOR = {"": 1 / 1024, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}


class SizeError(ValueError):
    """A storage size that cannot be read."""


def parse_size_mb(text: str | int | float) -> float:
    """Read a CP-style storage size and return mebibytes.

    Parameters
    ----------
    text : str or number
        ``"512M"``, ``"4G"``, ``"2T"``, ``"1.5T"``; a bare number means megabytes.
    """
    if isinstance(text, bool):
        raise SizeError(f"{text!r} is not a size")
    if isinstance(text, (int, float)):
        if not math.isfinite(text):
            raise SizeError(f"{text!r} is not a size")
        if text < 0:
            raise SizeError(f"{text} is negative")
        return float(text)
    m = _SIZE.match(text) if isinstance(text, str) else None
    if not m:
        shown = repr(text) if isinstance(text, str) else f"a {type(text).__name__}"
        if len(shown) > 40:
            shown = shown[:36] + "...'"
        raise SizeError(f"{shown} is not a size; write it as CP does, e.g. 512M, 4G or 2T")
    value = float(m.group(1))
    unit = (m.group(2) or "").upper()
    if unit == "":
        return value  # bare numbers are megabytes
    return value * _FACTOR[unit]


def size_to_pages(text: str | int | float) -> int:
    """Read a CP-style size and return 4 KiB pages (rounded up).

    Raises
    ------
    SizeError
        When the text is not a size, or the size is more than ``MAX_SIZE_TEXT`` (64T).
    """
    mb = parse_size_mb(text)
    if mb * PAGES_PER_MB > MAX_PAGES:
        shown = text if isinstance(text, str) and len(text) <= 40 else f"{mb:.3g}M"
        raise SizeError(f"{shown} is more than {MAX_SIZE_TEXT}, the largest size ssisim models "
                        f"(0 to {MAX_SIZE_TEXT})")
    return int(math.ceil(mb * PAGES_PER_MB))


def pages_or_size(value: str | int) -> int:
    """SET RESERVED's amount in pages: a page count (an integer, or ASCII digits: ``"²"`` is
    not one) or a CP size (``512M``). Raises ``SizeError`` for anything else."""
    if isinstance(value, int):
        return value
    text = value.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    return size_to_pages(text)


def pages_to_gb(pages: int | float) -> float:
    """Pages as gibibytes."""
    return float(pages) / PAGES_PER_GB


def format_size(pages: int) -> str:
    """Pages as a CP-style size: ``4G``, ``512M``, ``2T``; fractions shown with one decimal."""
    mb = pages / PAGES_PER_MB
    for unit, factor in (("T", 1024.0**2), ("G", 1024.0), ("M", 1.0)):
        if mb >= factor:
            v = mb / factor
            return f"{v:.0f}{unit}" if abs(v - round(v)) < 1e-9 else f"{v:.1f}{unit}"
    return f"{pages * 4}K"

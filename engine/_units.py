"""Sizes and units: CP-style storage sizes (``512M``, ``4G``, ``2T``) to pages and back."""

from __future__ import annotations

import math
import re

PAGE_BYTES = 4096
PAGES_PER_MB = 256
PAGES_PER_GB = 256 * 1024
PAGES_PER_SEGMENT = 256

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:([KMGTP])B?)?\s*$", re.IGNORECASE)
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
        if text < 0:
            raise SizeError(f"{text} is negative")
        return float(text)
    m = _SIZE.match(str(text))
    if not m:
        raise SizeError(f"{text!r} is not a size; write it as CP does, e.g. 512M, 4G or 2T")
    value = float(m.group(1))
    unit = (m.group(2) or "").upper()
    if unit == "":
        return value  # bare numbers are megabytes
    return value * _FACTOR[unit]


def size_to_pages(text: str | int | float) -> int:
    """Read a CP-style size and return 4 KiB pages (rounded up)."""
    return int(math.ceil(parse_size_mb(text) * PAGES_PER_MB))


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

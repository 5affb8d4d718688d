"""Compiles every numba kernel once (or loads it from the cache), before anyone waits for it.

The app calls ``warmup`` on its worker thread at start and shows "compiling..." meanwhile.
"""

from __future__ import annotations

from . import moves as _move_kernels
from . import pages as _kernels


def warmup() -> None:
    """Compile the page bit-plane kernels and the move-bitmap kernels on tiny inputs."""
    _kernels.warmup()
    _move_kernels.warmup()

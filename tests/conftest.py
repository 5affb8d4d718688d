"""Settings shared by every test folder: the long fuzzing profile (docs/reliability.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# tests/fuzz_profile.py is imported by the fuzz tests of several folders
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "long", max_examples=5000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

"""Settings shared by every test folder: the long fuzzing profile (docs/reliability.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# tests/fuzz_profile.py is imported by the fuzz tests of several folders
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "long", max_examples=5000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user data directory (where the default run database lives) of this test alone:
    ``ssisim run`` and ``ssisim sweep`` store by default, never into the user's database."""
    data = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data

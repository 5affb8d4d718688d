"""Fixtures for the installer's tests. Qt renders offscreen (the icon test draws the SVG)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty home folder."""
    h = tmp_path / "home"
    h.mkdir()
    return h

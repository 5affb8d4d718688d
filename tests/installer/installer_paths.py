"""Paths of the installer's files, and its Python helpers loaded by path.

installer/ is not a package of the program: its scripts are loaded from their files.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
INSTALLER = ROOT / "installer"
ASSETS = ROOT / "assets"


def load(name: str) -> ModuleType:
    """The module in ``installer/<name>.py``."""
    spec = importlib.util.spec_from_file_location(f"installer_{name}", INSTALLER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

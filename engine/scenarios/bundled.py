"""The scenarios and lessons shipped with the program, found by name.

The command line and the window both open ``demo`` or ``first-relocation`` by name; both ask here.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .scenario import ScenarioError


def bundled_dir() -> Path:
    """Folder of the scenarios shipped with the program."""
    return Path(str(resources.files("ssisim.scenarios")))


def bundled_scenarios() -> list[Path]:
    """Every bundled scenario file, sorted by path."""
    return sorted(bundled_dir().rglob("*.toml"))


def find_scenario(name: str) -> Path:
    """A scenario path as given, or a bundled scenario by name (``demo``, ``pause/pause-stop``).

    Raises
    ------
    ScenarioError
        When there is no such file and no bundled scenario of that name (the message lists them).
    """
    p = Path(name)
    if p.exists():
        return p
    root = bundled_dir()
    for cand in (root / name, root / f"{name}.toml"):
        if cand.is_file():
            return cand
    names = ", ".join(str(s.relative_to(root).with_suffix("")) for s in bundled_scenarios())
    raise ScenarioError(name, None, "", f"no such scenario file, and no bundled scenario of that "
                        f"name (bundled: {names})")


def find_lesson(name: str) -> Path:
    """A lesson file as given, or a bundled lesson by id or file name (``first-relocation``)."""
    p = Path(name)
    if p.exists():
        return p
    for cand in sorted((bundled_dir() / "lessons").glob("*.toml")):
        if name in (cand.stem, cand.name) or cand.stem.split("-", 1)[-1] == name:
            return cand
    return find_scenario(name)

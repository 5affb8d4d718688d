"""Build a scenario from a shop's own z/VM definitions: the user directory, SYSTEM CONFIG and
saved CP responses (``ssisim import``, docs/import.md). Never imports the command line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ssisim.engine import ScenarioConfig, ScenarioError, loads_scenario

from .directory import read_directory
from .notes import InputError, Notes
from .queries import Queries, read_queries
from .sysconfig import SystemConfig, read_system_config
from .workload_map import Rule, read_workload_map
from .writer import build_plan, render

__all__ = ["ImportResult", "InputError", "Notes", "import_shop"]


@dataclass
class ImportResult:
    """The scenario text written, the scenario the engine read back, and the notes."""

    text: str
    scenario: ScenarioConfig
    notes: Notes


def import_shop(directory: str, system_config: str | None = None, query_dir: str | None = None,
                workloads: str | None = None, target: str = "<imported>") -> ImportResult:
    """Read the planner's files and build a scenario the engine accepts.

    Parameters
    ----------
    directory : str
        The user directory in source form (USER DIRECT).
    system_config : str, optional
        The SYSTEM CONFIG file: members (SSI statement), CP-owned volumes, ISFC links.
    query_dir : str, optional
        A folder of saved CP responses (``MEMB1.QUERY-STORAGE.txt``, ...).
    workloads : str, optional
        A TOML map from user ID patterns to workloads.
    target : str
        The name the scenario will be written as, for messages.

    Raises
    ------
    InputError
        A file cannot be read, or nothing could be imported.
    """
    notes = Notes()
    d = read_directory(Path(directory), directory, notes)
    sources = [f"{directory} (user directory)"]
    sc: SystemConfig | None = None
    if system_config is not None:
        sc = read_system_config(Path(system_config), system_config, notes)
        sources.append(f"{system_config} (SYSTEM CONFIG)")
    q: Queries | None = None
    if query_dir is not None:
        folder = Path(query_dir)
        if not folder.is_dir():
            raise InputError(f"{query_dir}: not a folder of saved CP responses")
        q = read_queries(folder, query_dir, notes)
        sources.append(f"{query_dir} (saved CP responses)")
    rules: list[Rule] = []
    if workloads is not None:
        rules = read_workload_map(Path(workloads), workloads, notes)
        sources.append(f"{workloads} (workload map)")
    plan = build_plan(d, sc, q, rules, sources, notes)
    text = render(plan)
    try:
        scenario = loads_scenario(text, target)
    except ScenarioError as e:  # what the importer writes must always load
        raise RuntimeError(f"the imported scenario does not load: {e}") from e
    return ImportResult(text, scenario, notes)

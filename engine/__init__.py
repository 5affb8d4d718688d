"""The ssisim engine: a page-level simulation of z/VM SSI clusters. No Qt here.

This is the one public module; the app and the CLI use only what it exports.
"""

import os as _os

import platformdirs as _platformdirs

# Compiled kernels are cached per user, also when the package sits in a read-only place.
_os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    _os.path.join(_platformdirs.user_cache_dir("ssisim", appauthor=False), "numba"))

from ._bench import format_results as format_benchmarks
from ._bench import run_all as run_benchmarks
from ._bundled import bundled_dir, bundled_scenarios, find_lesson, find_scenario
from ._config import (
    ChpidConfig,
    DatastoreConfig,
    DiskConfig,
    GuestConfig,
    HintConfig,
    LessonConfig,
    LinkConfig,
    MemberConfig,
    ObjectiveConfig,
    ScenarioConfig,
    TimelineEntry,
    VolumeConfig,
    WorkloadSpec,
)
from ._cp import CPError
from ._grammar import (
    COMMAND_TYPES,
    VERBS,
    Command,
    VmrelocateCancel,
    VmrelocateMove,
    VmrelocateTest,
    known_verb,
    parse_command,
)
from ._limits import MAX_DURATION_S, MAX_SEED, MAX_STEP_S, MAX_STEPS, MIN_STEP_S
from ._lpm import LPMModel
from ._objectives import KINDS as OBJECTIVE_KINDS
from ._objectives import LessonTracker, format_debrief
from ._relocation import THROTTLE_REASONS, LGRModel, link_pages_per_s
from ._samples import GuestSample, LinkSample, MemberSample, SampleFeed, SampleSet
from ._scenario import CURRENT_VERSION, ScenarioError, load_scenario, loads_scenario
from ._session import (
    Session,
    apply_session,
    grade_session,
    load_session,
    record_session,
    session_text,
)
from ._sim import CPResponse, Event, Simulation, Ticket
from ._state import (
    DISPATCH,
    DORMANT,
    ELIGIBLE,
    INCOMING,
    LOGGED_OFF,
    QUIESCED,
    GuestSnapshot,
    LessonSnapshot,
    MemberSnapshot,
    MigrationSnapshot,
    MovePassSnapshot,
    ObjectiveSnapshot,
    PassSnapshot,
    PauseSnapshot,
    RelocationSnapshot,
    Snapshot,
)
from ._storage_vmotion import SVMotionModel
from ._store import RunStore, StoreError, default_db_path
from ._summary import build_summary, format_summary
from ._sweep import MEASURES as SWEEP_MEASURES
from ._sweep import Point as SweepPoint
from ._sweep import SweepError, check_measures, parse_vary, run_sweep
from ._sweep import plan as plan_sweep
from ._sweep import table as sweep_table
from ._throttle_style import THROTTLE_STYLE
from ._units import PAGES_PER_GB, PAGES_PER_MB, format_size, parse_size_mb, size_to_pages
from ._validate import format_validation, validate, validate_series
from ._warmup import warmup as warmup_kernels
from ._workloads import WORKLOAD_TYPES, WorkloadError, workload_names

__all__ = [
    "apply_session", "build_summary", "bundled_dir", "bundled_scenarios", "ChpidConfig", "Command",
    "COMMAND_TYPES", "CPError", "CPResponse", "CURRENT_VERSION", "DatastoreConfig",
    "default_db_path", "DiskConfig", "DISPATCH", "DORMANT", "ELIGIBLE", "Event", "find_lesson",
    "find_scenario", "format_benchmarks", "format_debrief", "format_size", "format_summary",
    "format_validation", "grade_session", "GuestConfig", "GuestSnapshot", "HintConfig", "INCOMING",
    "known_verb", "LessonConfig", "LessonSnapshot", "LessonTracker", "LGRModel",
    "link_pages_per_s", "LinkConfig", "load_scenario", "load_session", "loads_scenario",
    "LOGGED_OFF", "LPMModel", "MAX_DURATION_S", "MAX_SEED", "MAX_STEP_S", "MAX_STEPS",
    "MemberConfig", "MemberSnapshot", "MigrationSnapshot", "MIN_STEP_S", "MovePassSnapshot",
    "OBJECTIVE_KINDS", "ObjectiveConfig", "ObjectiveSnapshot", "PAGES_PER_GB", "PAGES_PER_MB",
    "parse_command", "parse_size_mb", "PassSnapshot", "PauseSnapshot", "QUIESCED",
    "record_session", "RelocationSnapshot", "run_benchmarks", "RunStore", "ScenarioConfig",
    "ScenarioError", "Session", "session_text", "Simulation", "size_to_pages", "Snapshot",
    "StoreError", "SVMotionModel", "THROTTLE_REASONS", "THROTTLE_STYLE", "Ticket", "TimelineEntry",
    "validate", "validate_series", "VERBS", "VmrelocateCancel", "VmrelocateMove", "VmrelocateTest",
    "VolumeConfig", "warmup_kernels", "workload_names", "WORKLOAD_TYPES", "WorkloadError",
    "WorkloadSpec", "SWEEP_MEASURES", "SweepPoint", "SweepError", "check_measures", "parse_vary",
    "run_sweep", "plan_sweep", "sweep_table", "MemberSample", "GuestSample", "LinkSample",
    "SampleSet", "SampleFeed",
]

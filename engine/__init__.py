"""The ssisim engine: a page-level simulation of z/VM SSI clusters. No Qt here.

This is the one public module; the app and the CLI use only what it exports.
"""

import os as _os

import platformdirs as _platformdirs

# Compiled kernels are cached per user, also when the package sits in a read-only place.
_os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    _os.path.join(_platformdirs.user_cache_dir("ssisim", appauthor=False), "numba"))

from .basics.config import (
    MAX_LINK_CTCS,
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
from .basics.cp import CPError
from .basics.limits import MAX_DURATION_S, MAX_SEED, MAX_STEP_S, MAX_STEPS, MIN_STEP_S
from .basics.units import PAGES_PER_GB, PAGES_PER_MB, format_size, parse_size_mb, size_to_pages
from .basics.workloads import WORKLOAD_TYPES, WorkloadError, workload_names
from .core.sim import CPResponse, Event, Simulation, Ticket
from .cp.grammar import (
    COMMAND_TYPES,
    VERBS,
    Command,
    VmrelocateCancel,
    VmrelocateMove,
    VmrelocateTest,
    known_verb,
    parse_command,
)
from .kernels.warmup import warmup as warmup_kernels
from .lessons.objectives import KINDS as OBJECTIVE_KINDS
from .lessons.objectives import LessonTracker, format_debrief
from .migrations.lpm import LPMModel
from .migrations.models import SECTIONS as MODEL_SECTIONS
from .migrations.models import Models
from .migrations.models import parameters as model_parameters
from .migrations.relocation import THROTTLE_REASONS, LGRModel, link_pages_per_s
from .migrations.storage_vmotion import SVMotionModel
from .migrations.throttle_style import THROTTLE_STYLE
from .planning.bench import format_results as format_benchmarks
from .planning.bench import run_all as run_benchmarks
from .planning.evacuate import (
    EvacuateError,
    EvacuationResult,
    format_evacuation,
    parse_window,
    plan_evacuation,
)
from .planning.evacuate import commands_text as evacuation_commands
from .planning.evacuate import headline as evacuation_headline
from .planning.evacuate import not_moved as evacuation_not_moved
from .planning.evacuate import plan_table as evacuation_table
from .planning.evacuate import scenario_text as evacuation_scenario
from .planning.evacuate import why_best as evacuation_why_best
from .planning.sweep import MEASURES as SWEEP_MEASURES
from .planning.sweep import Point as SweepPoint
from .planning.sweep import (
    SweepError,
    check_measures,
    no_time_note,
    parse_vary,
    run_sweep,
    sensitivity_points,
    sensitivity_table,
)
from .planning.sweep import plan as plan_sweep
from .planning.sweep import table as sweep_table
from .planning.validate import format_sensitivity, format_validation, validate, validate_series
from .planning.validate import sensitivity as validation_sensitivity
from .scenarios.bundled import bundled_dir, bundled_scenarios, find_lesson, find_scenario
from .scenarios.scenario import (
    CURRENT_VERSION,
    ScenarioError,
    load_scenario,
    loads_scenario,
    scenario_warnings,
)
from .scenarios.session import (
    Session,
    apply_session,
    grade_session,
    load_session,
    record_session,
    session_text,
)
from .store.store import RunStore, StoreError, default_db_path
from .store.summary import build_summary, format_summary
from .views.samples import GuestSample, LinkSample, MemberSample, SampleFeed, SampleSet
from .world.state import (
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

__all__ = [
    "apply_session", "build_summary", "bundled_dir", "bundled_scenarios", "check_measures",
    "ChpidConfig", "Command", "COMMAND_TYPES", "CPError", "CPResponse", "CURRENT_VERSION",
    "DatastoreConfig", "default_db_path", "DiskConfig", "DISPATCH", "DORMANT", "ELIGIBLE",
    "EvacuateError", "evacuation_commands", "evacuation_headline", "evacuation_not_moved",
    "evacuation_scenario", "evacuation_table", "evacuation_why_best", "EvacuationResult", "Event",
    "find_lesson", "find_scenario", "format_benchmarks", "format_debrief", "format_evacuation",
    "format_sensitivity", "format_size", "format_summary", "format_validation", "grade_session",
    "GuestConfig", "GuestSample", "GuestSnapshot", "HintConfig", "INCOMING", "known_verb",
    "LessonConfig", "LessonSnapshot", "LessonTracker", "LGRModel", "link_pages_per_s",
    "LinkConfig", "LinkSample", "load_scenario", "load_session", "loads_scenario", "LOGGED_OFF",
    "LPMModel", "MAX_LINK_CTCS", "MAX_DURATION_S", "MAX_SEED", "MAX_STEP_S", "MAX_STEPS",
    "MemberConfig",
    "MemberSample", "MemberSnapshot", "MigrationSnapshot", "MIN_STEP_S", "model_parameters",
    "MODEL_SECTIONS", "Models", "MovePassSnapshot", "OBJECTIVE_KINDS", "ObjectiveConfig",
    "ObjectiveSnapshot", "PAGES_PER_GB", "PAGES_PER_MB", "parse_command", "parse_size_mb",
    "parse_vary", "parse_window", "PassSnapshot", "PauseSnapshot", "plan_evacuation", "plan_sweep",
    "QUIESCED", "record_session", "RelocationSnapshot", "run_benchmarks", "run_sweep", "RunStore",
    "SampleFeed", "SampleSet", "ScenarioConfig", "ScenarioError", "scenario_warnings",
    "sensitivity_points",
    "sensitivity_table", "Session", "session_text", "Simulation", "size_to_pages", "Snapshot",
    "StoreError", "SVMotionModel", "SWEEP_MEASURES", "sweep_table", "no_time_note", "SweepError",
    "SweepPoint",
    "THROTTLE_REASONS", "THROTTLE_STYLE", "Ticket", "TimelineEntry", "validate", "validate_series",
    "validation_sensitivity", "VERBS", "VmrelocateCancel", "VmrelocateMove", "VmrelocateTest",
    "VolumeConfig", "warmup_kernels", "workload_names", "WORKLOAD_TYPES", "WorkloadError",
    "WorkloadSpec",
]

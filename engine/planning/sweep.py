"""What-if sweeps: one scenario run over the Cartesian product of varied fields and seeds.

A field is named by a path into the scenario (``member.MEMB2.central``,
``guest.LNXDB1.workload.requests_per_s``, ``link.MEMB1-MEMB2.chpids``, ``run.step_s``); its values
are a list (``16G,32G,64G``) or a range (``16G..64G/8G``, ``1..4/1``). Every point is written
back as scenario text and read by the scenario loader before anything runs, so a bad path or
value is one message and nothing is started. The points run in separate processes; each
result depends only on its scenario text and seed, so a sweep gives the same figures wherever
it runs.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
import tomllib
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import tomli_w

from ..basics.limits import MAX_SEED
from ..basics.units import PAGES_PER_MB, SizeError, format_size, parse_size_mb
from ..core.sim import Simulation
from ..migrations.models import SECTIONS, Models, parameters, varied
from ..scenarios.scenario import ScenarioError, loads_scenario
from ..store.summary import build_summary

#: the most points (varied values times seeds) one sweep may run
MAX_POINTS = 100_000


class SweepError(ValueError):
    """A sweep that cannot run: a bad path, value or measure (nothing was started)."""


# -- measures -------------------------------------------------------------------------------------
def _rel(s: dict[str, Any], key: str, how: Callable[[list[float]], float]) -> float | None:
    vals = [float(r[key]) for r in s["relocations"] if r.get(key) is not None]
    return how(vals) if vals else None


def _longest(s: dict[str, Any], key: str) -> float | None:
    """The longest time of the run's relocations; none (``-``) while one had not ended when
    the run did, as its time is not known (``relocations_done`` says how many completed)."""
    if any(not r.get("ended", True) for r in s["relocations"]):
        return None
    return _rel(s, key, max)


def _throttle_s(s: dict[str, Any]) -> float | None:
    if not s["relocations"]:
        return None
    return float(sum(sum(r.get("throttle_s", {}).values()) for r in s["relocations"]))


def _held_s(s: dict[str, Any]) -> float | None:
    """Seconds the relocations' pages waited: each pass's time lost to throttles, where
    reasons that hold the pages back at the same time count once."""
    if not s["relocations"]:
        return None
    return float(sum(p["throttle_s"] for r in s["relocations"] for p in r.get("pass_list", ())))


MEASURES: dict[str, tuple[str, Callable[[dict[str, Any]], float | None]]] = {
    "relocation_s": ("longest relocation, from the command to its end: the guest running on "
                     "the destination, or the relocation cancelled (s)",
                     lambda s: _longest(s, "relocation_s")),
    "quiesce_s": ("longest quiesce of any relocation (s)", lambda s: _longest(s, "quiesce_s")),
    "pages_moved": ("pages moved by all relocations", lambda s: _rel(s, "pages_moved", sum)),
    "passes": ("most memory-move passes of a relocation", lambda s: _rel(s, "passes", max)),
    "relocations_done": ("relocations that completed",
                         lambda s: float(sum(1 for r in s["relocations"]
                                             if r.get("result") == "relocated"))),
    "relocations_unfinished": ("relocations still under way when the run ended",
                               lambda s: float(sum(1 for r in s["relocations"]
                                                   if not r.get("ended", True)))),
    "relocations_refused": ("VMRELOCATE MOVE commands CP refused",
                            lambda s: float(sum(1 for c in s.get("commands", ())
                                                if c.get("rc") and str(c.get("command", ""))
                                                .upper().startswith("VMRELOCATE MOVE")))),
    "throttle_s": ("seconds of throttling, all relocations and reasons", _throttle_s),
    "held_s": ("seconds the relocations' pages waited (reasons at the same time count once)",
               _held_s),
    "peak_central_pct": ("highest central storage use of any member (%)",
                         lambda s: max(m["central"]["peak_pct"] for m in s["members"])),
    "peak_slots_pct": ("highest paging space use of any member (%)",
                       lambda s: max(m["paging"]["peak_pct"] for m in s["members"])),
    "page_in_per_s": ("highest mean page-in rate of any member (pages/s)",
                      lambda s: max(m["rates_per_s"]["page_in"] for m in s["members"])),
    "page_out_per_s": ("highest mean page-out rate of any member (pages/s)",
                       lambda s: max(m["rates_per_s"]["page_out"] for m in s["members"])),
}
#: measures every point also takes: why a run shows no relocation time (``no_time_note``)
WHY_NO_TIME = ("relocations_unfinished", "relocations_refused")
#: per guest: ``throughput.USERID`` (mean throughput in the guest's unit)
GUEST_MEASURES = {"throughput": "mean throughput of the guest, in its workload's unit"}


def no_time_note(points: list[Point], results: list[dict[str, float | None]],
                 measures: list[str]) -> list[str]:
    """Lines that say why points show no relocation time (``-``): a relocation still under
    way when the run ended, or one CP refused. Empty when no relocation time is measured or
    every point has its time."""
    if not {"relocation_s", "quiesce_s"} & set(measures):
        return []
    out = []
    for key, what in (("relocations_unfinished", "a relocation was still under way when the run "
                       "ended (its time is not known: --until later)"),
                      ("relocations_refused", "CP refused a relocation (VMRELOCATE MOVE)")):
        at = [", ".join(f"{p}={v}" for p, v in pt.values) + f" (seed {pt.seed})"
              for pt, r in zip(points, results) if (r.get(key) or 0) > 0]
        if at:
            shown = "; ".join(at[:5]) + (f"; and {len(at) - 5} more" if len(at) > 5 else "")
            out.append(f"'-' at {len(at)} point(s): {what}: {shown}")
    return out


def measure(summary: dict[str, Any], name: str) -> float | None:
    """One measure of a run summary (None when the run has none, e.g. no relocation)."""
    if name in MEASURES:
        v = MEASURES[name][1](summary)
        return None if v is None else float(v)
    kind, _, userid = name.partition(".")
    for g in summary["guests"]:
        if kind == "throughput" and g["userid"] == userid:
            return float(g["throughput"]["mean"])
    raise SweepError(f"--measure {name}: no such measure")


def check_measures(names: Iterable[str], userids: Iterable[str]) -> list[str]:
    """The measures asked for, or a ``SweepError`` listing the valid ones."""
    ids = set(userids)
    out = []
    for n in names:
        kind, dot, userid = n.partition(".")
        if n in MEASURES or (dot and kind in GUEST_MEASURES and userid.upper() in ids):
            out.append(n if n in MEASURES else f"{kind}.{userid.upper()}")
            continue
        if dot and kind in GUEST_MEASURES:
            raise SweepError(f"--measure {n}: no guest {userid.upper()}; guests: "
                             f"{', '.join(sorted(ids)) or '(none)'}")
        valid = ", ".join([*MEASURES, *(f"{k}.USERID" for k in GUEST_MEASURES)])
        raise SweepError(f"--measure {n}: no such measure; measures: {valid}")
    return out


# -- varied fields --------------------------------------------------------------------------------
_RANGE = re.compile(r"^\s*(.+?)\s*\.\.\s*([^/]+?)\s*/\s*(.+?)\s*$")
_UNIT = re.compile(r"[KMGTP]B?\s*$", re.IGNORECASE)


def _number(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


def parse_values(text: str) -> list[Any]:
    """``V1,V2,...`` or ``LO..HI/STEP``: sizes keep their unit (``16G..64G/8G``)."""
    m = _RANGE.match(text)
    if not m and ".." in text:
        raise SweepError(f"{text!r}: a range is LO..HI/STEP (the step is missing)")
    if not m:
        words = [v.strip() for v in text.split(",")]
        if not all(words):
            raise SweepError(f"{text!r}: an empty value in the list")
        return [_typed(v) for v in words]
    lo, hi, step = m.groups()
    if _UNIT.search(lo) or _UNIT.search(hi) or _UNIT.search(step):
        try:
            a, b, d = parse_size_mb(lo), parse_size_mb(hi), parse_size_mb(step)
        except SizeError as e:
            raise SweepError(f"{text!r}: {e}") from None
        unit = "M"
    else:
        try:
            a, b, d = _number(lo), _number(hi), _number(step)
        except ValueError:
            raise SweepError(f"{text!r}: a range is LO..HI/STEP with numbers or sizes") from None
        unit = ""
    if d <= 0 or b < a:
        raise SweepError(f"{text!r}: the step must be greater than 0 and LO at most HI")
    n = int(math.floor((b - a) / d + 1e-9)) + 1
    if n > MAX_POINTS:
        raise SweepError(f"{text!r}: {n:,} values; a sweep runs at most {MAX_POINTS:,} points")
    # (rounded: 0.1 + 2 x 0.1 is 0.3, not 0.30000000000000004)
    vals = [round(a + i * d, 9) for i in range(n)]
    if unit:
        return [format_size(int(round(v * PAGES_PER_MB))) for v in vals]
    return [int(v) if float(v).is_integer() and all(float(x).is_integer() for x in (a, d))
            else v for v in vals]


def _typed(v: str) -> Any:
    if re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    try:
        return _number(v)
    except ValueError:
        return v


def parse_vary(spec: str) -> tuple[str, list[Any]]:
    """``PATH=VALUES`` of ``--vary``."""
    path, eq, values = spec.partition("=")
    if not eq or not path.strip() or not values.strip():
        raise SweepError(f"--vary {spec}: write PATH=V1,V2,... or PATH=LO..HI/STEP")
    try:
        return path.strip(), parse_values(values)
    except SweepError as e:
        raise SweepError(f"--vary {spec}: {e}") from None


def _find(items: list[Any], key: str, name: str, what: str) -> dict[str, Any]:
    for t in items:
        if isinstance(t, dict) and str(t.get(key, "")).upper() == name.upper():
            return t
    names = ", ".join(str(t.get(key)) for t in items if isinstance(t, dict))
    raise SweepError(f"no {what} {name}; {what}s: {names or '(none)'}")


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set one field of a scenario document (as TOML reads it) by its sweep path."""
    parts = path.split(".")
    head = parts[0]
    if head == "run" and len(parts) == 2:
        doc.setdefault("run", {})[parts[1]] = value
        return
    if head == "model" and len(parts) == 3:
        # a model parameter (docs/model.md): checked with the rest of the point
        doc.setdefault("model", {}).setdefault(parts[1], {})[parts[2]] = value
        return
    if head in ("member", "guest") and len(parts) >= 3:
        key = "name" if head == "member" else "userid"
        node: Any = _find(doc.get(head, []), key, parts[1], head)
        rest = parts[2:]
    elif head == "link" and len(parts) == 3:
        pair = {p.upper() for p in parts[1].split("-")}
        node = next((lk for lk in doc.get("link", [])
                     if {str(x).upper() for x in lk.get("members", [])} == pair), None)
        if node is None:
            raise SweepError(f"no link between {' and '.join(sorted(pair))}")
        rest = parts[2:]
        if rest == ["chpids"]:
            # the CHPID speeds joined by "+" ("2+4+4+8"), each with 4 CTCs
            node["chpids"] = _chpids(value)
            return
    else:
        raise SweepError("a path starts with run.FIELD, member.NAME.FIELD, guest.USERID.FIELD, "
                         "link.A-B.FIELD or model.SECTION.PARAMETER")
    for i, part in enumerate(rest[:-1]):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, dict) and part in ("workload", "disk"):
            node = node.setdefault(part, {"type": "idle"} if part == "workload" else {})
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SweepError(f"{'.'.join(parts[:len(parts) - len(rest) + i + 1])} is not there")
    if isinstance(node, list):
        raise SweepError(f"{path} names a list, not a field")
    node[rest[-1]] = value


def _chpids(value: Any) -> list[dict[str, Any]]:
    try:
        speeds = [int(x) for x in str(value).split("+")]
    except ValueError:
        raise SweepError(f"{value!r}: CHPIDs are their speeds joined by +, e.g. 2+4+4+8") from None
    return [{"gbps": s, "ctcs": 4} for s in speeds]


# -- the plan and its run -------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One run of a sweep: the values of the varied fields, a seed, and the scenario text."""

    values: tuple[tuple[str, Any], ...]
    seed: int
    text: str


def plan(text: str, path: str, varies: list[tuple[str, list[Any]]], seeds: int) -> list[Point]:
    """Every point of the sweep, each checked by the scenario loader before any runs.

    Raises
    ------
    SweepError
        Naming the ``--vary`` and value that makes a scenario the loader refuses.
    """
    if not 1 <= seeds <= 1000:
        raise SweepError(f"--seeds {seeds}: must be 1 to 1000")
    loads_scenario(text, path)  # the scenario itself first, with its own lines in messages
    total = math.prod(len(v) for _, v in varies) * seeds
    if total > MAX_POINTS:
        raise SweepError(f"{total:,} points; a sweep runs at most {MAX_POINTS:,}")
    points = []
    for combo in itertools.product(*(v for _, v in varies)):
        doc = tomllib.loads(text)
        values = tuple((p, v) for (p, _), v in zip(varies, combo))
        for p, v in values:
            try:
                set_path(doc, p, v)
            except SweepError as e:
                raise SweepError(f"--vary {p}: {e}") from None
        point_text = tomli_w.dumps(doc)
        try:
            cfg = loads_scenario(point_text, path)
        except ScenarioError as e:
            shown = ", ".join(f"{p}={v}" for p, v in values)
            msg = str(e).split(": ", 1)[1] if ": " in str(e) else str(e)
            raise SweepError(f"at {shown}: {msg}") from None
        for k in range(seeds):
            seed = (cfg.seed + k) % (MAX_SEED + 1)
            points.append(Point(values, seed, point_text))
    return points


def sensitivity_points(text: str, path: str, step: float = 0.2) -> list[Point]:
    """The scenario as it is (first), then each model parameter at -``step`` and +``step``
    of its value in the scenario (its ``[model]`` table, else the default), one at a time."""
    cfg = loads_scenario(text, path)
    models = Models.from_table(cfg.model)
    points = plan(text, path, [], 1)
    for section in SECTIONS:
        for name in parameters(section):
            values = [v for f in (1.0 - step, 1.0 + step)
                      if (v := varied(section, name, f, models)) is not None]
            if values:
                points += plan(text, path, [(f"model.{section}.{name}", values)], 1)
    return points


def sensitivity_table(points: list[Point], results: list[dict[str, float | None]],
                      measure_name: str) -> list[dict[str, Any]]:
    """Per parameter: the measure at its low and high value, and the change against the
    scenario as it is; the parameters that move the measure most first."""
    base = results[0][measure_name]
    models = Models.from_table(loads_scenario(points[0].text).model)
    rows: dict[str, dict[str, Any]] = {}
    for p, r in zip(points[1:], results[1:]):
        (param, value), = p.values
        row = rows.setdefault(param, {"parameter": param.removeprefix("model."),
                                      "low": None, "high": None})
        _, section, name = param.split(".")
        end = "low" if value < models.value(section, name) else "high"
        row[end] = value
        got = r[measure_name]
        row[f"{end} result"] = got
        row[f"{end} change"] = None if got is None or base is None else (
            (got - base) / abs(base) if base else (0.0 if got == base else math.inf))
    out = list(rows.values())
    out.sort(key=lambda r: -max(abs(r.get("low change") or 0.0), abs(r.get("high change") or 0.0)))
    return [{"base": base, **r} for r in out]


def run_point(point: Point, measures: list[str], until_s: float | None = None,
              name: str = "<sweep>") -> dict[str, float | None]:
    """Run one point to its end (or ``until_s``) and take its measures. Runs in any process."""
    return run_point_summary(point, measures, until_s, name)[0]


def run_point_summary(point: Point, measures: list[str], until_s: float | None = None,
                      name: str = "<sweep>") -> tuple[dict[str, float | None], dict[str, Any]]:
    """Run one point as ``run_point`` does; its measures and its run's summary."""
    cfg = loads_scenario(point.text, name)
    sim = Simulation(cfg, seed=point.seed)
    sim.run_until(cfg.duration_s if until_s is None else until_s)
    summary = build_summary(sim)
    # (and why a relocation's time may be missing, for the note under the table)
    return {m: measure(summary, m) for m in dict.fromkeys([*measures, *WHY_NO_TIME])}, summary


def _run_packed(args: tuple[Point, list[str], float | None, bool]) -> Any:
    point, measures, until_s, keep = args
    return run_point_summary(point, measures, until_s) if keep else \
        run_point(point, measures, until_s)


def run_sweep(points: list[Point], measures: list[str], until_s: float | None = None,
              executor: Executor | None = None,
              progress: Callable[[int, int], None] | None = None,
              summaries: list[dict[str, Any]] | None = None) -> list[dict[str, float | None]]:
    """The measures of every point, in the order of ``points`` (``executor``: processes).

    ``summaries``: a list to which each point's run summary is appended, in the same order
    (the run store keeps them); the summaries come back from the processes with the measures.
    """
    keep = summaries is not None
    jobs = [(p, measures, until_s, keep) for p in points]
    results: list[dict[str, float | None]] = []
    done = map(_run_packed, jobs) if executor is None else executor.map(_run_packed, jobs)
    for i, r in enumerate(done):
        if summaries is not None:
            r, summary = r
            summaries.append(summary)
        results.append(r)
        if progress is not None:
            progress(i + 1, len(jobs))
    return results


def table(points: list[Point], results: list[dict[str, float | None]],
          measures: list[str]) -> list[dict[str, Any]]:
    """One row per combination of varied values: mean, min and max of each measure over seeds."""
    groups: dict[tuple[tuple[str, Any], ...], list[dict[str, float | None]]] = {}
    for p, r in zip(points, results):
        groups.setdefault(p.values, []).append(r)
    rows = []
    for values, rs in groups.items():
        row: dict[str, Any] = {p: v for p, v in values}
        row["runs"] = len(rs)
        for m in measures:
            xs = [x for r in rs if (x := r[m]) is not None]
            row[f"{m} mean"] = statistics.fmean(xs) if xs else None
            row[f"{m} min"] = min(xs) if xs else None
            row[f"{m} max"] = max(xs) if xs else None
        rows.append(row)
    return rows

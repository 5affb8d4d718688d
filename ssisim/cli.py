"""The ``ssisim`` command line: headless replay, checks, stored runs and benchmarks. Never Qt.

Exit codes: 0 success, 1 a user error (one clear message on stderr), 2 an internal error,
130 interrupted (Ctrl-C; nothing of the interrupted run is stored).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime as _dt
import json
import math
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .text import csv_cell, csv_row, terminal_text


class UserError(Exception):
    """A mistake of the user's: reported in one line, exit code 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """Any mistake on the command line: a ``UserError`` (exit 1) pointing at ``--help``."""
        # "argument --seed: --seed must be ..." (a range check of ours): say it once
        m = re.match(r"argument (\S+): (\1 .*)", message, re.DOTALL)
        raise UserError(f"{m.group(2) if m else message} (see {self.prog} --help)")


def say(text: object = "", **kw: Any) -> None:
    """``print`` a line or block for a person, control characters escaped (``terminal_text``)."""
    print(terminal_text(text, keep_newlines=True), **kw)


# -- numeric options: each has a documented range ---------------------------------------------
# The limits are the engine's (engine/basics/limits.py: MAX_SEED, a signed 64-bit integer as the run
# database stores it; MAX_STEPS steps in one run); they are imported when they are needed, so
# that importing this module stays light.


def _whole(option: str, lo: int, hi: int, hi_text: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi`` (``hi_text`` in messages)."""
    def parse(text: str) -> int:
        try:
            v: int | None = int(text)
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{option} must be {lo} to {hi_text}, not {text!r}")
        return v
    return parse


def _seconds(option: str) -> Callable[[str], float]:
    """An argparse type: a finite number of simulated seconds, 0 to a year (the engine's
    ``MAX_DURATION_S``, as for a scenario's ``duration_s``)."""
    def parse(text: str) -> float:
        from ssisim.engine import MAX_DURATION_S

        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or not 0 <= v <= MAX_DURATION_S:
            raise argparse.ArgumentTypeError(
                f"{option} must be a finite number of seconds, 0 to {MAX_DURATION_S:,.0f}, "
                f"not {text!r}")
        return v
    return parse


def check_steps(until: float, step_s: float, what: str) -> None:
    """Refuse a run of more than the engine's ``MAX_STEPS`` steps of ``step_s``.

    ``what`` names where ``until`` came from (``--until``, a scenario's ``duration_s``).
    """
    from ssisim.engine import MAX_STEPS

    steps = until / step_s if step_s > 0 else math.inf
    if steps <= MAX_STEPS:
        return
    most = MAX_STEPS * step_s
    raise UserError(f"{what} {until:g} s is {steps:.3g} steps of {step_s:g} s: a run is "
                    f"limited to {MAX_STEPS:,} steps, that is at most {most:,.10g} s with this "
                    "scenario's step_s")


def bundled_dir() -> Path:
    """Folder of the scenarios shipped with the program."""
    from ssisim import engine

    return engine.bundled_dir()


def bundled_scenarios() -> list[Path]:
    """Every bundled scenario file, sorted by path."""
    from ssisim import engine

    return engine.bundled_scenarios()


def resolve_scenario(name: str) -> Path:
    """A scenario path as given, or a bundled scenario by name (``demo``, ``overcommit``)."""
    from ssisim import engine

    return engine.find_scenario(name)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _write_json(data: Any, target: str) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(target).write_text(text)
        except OSError as e:
            raise UserError(f"{target}: cannot write JSON ({e.strerror})") from None


def cmd_run(args: argparse.Namespace) -> int:
    """Replay a scenario headless, print its summary and store the run."""
    from tqdm import tqdm

    from ssisim import engine

    path = resolve_lesson(args.scenario)
    scenario = engine.load_scenario(path)
    warn_about(scenario)
    if args.until is None:
        check_steps(scenario.duration_s, scenario.step_s, f"{path}: duration_s")
        until = scenario.duration_s
    else:  # finite and 0 or more: checked by the parser
        check_steps(args.until, scenario.step_s, "--until")
        until = args.until
    if args.sensitivity:
        return _run_sensitivity(args, path, until)
    # open the store first: a database we cannot write is better known before a long run
    store = engine.RunStore(args.db) if not args.no_store else None
    sim = engine.Simulation(scenario, seed=args.seed)
    if args.session:
        engine.apply_session(sim, engine.load_session(args.session))
    started = _now()
    bar = tqdm(total=1000, desc=terminal_text(scenario.name)[:30], unit="‰", file=sys.stderr,
               disable=None if not args.quiet else True, leave=False)

    def progress(fraction: float, message: str) -> None:
        bar.n = int(fraction * 1000)
        bar.set_postfix_str(terminal_text(message), refresh=False)
        bar.refresh()

    try:
        sim.run_until(until, progress=progress)
    finally:
        bar.close()
    summary = engine.build_summary(sim, __version__)
    # outputs first: a run whose outputs could not be written is not stored either
    if args.json:
        _write_json(summary, args.json)
    if args.csv:
        write_csv(sim, Path(args.csv))
    run_id = None
    if store is not None:
        run_id = store.save(sim, summary, started, _now(), __version__)
        store.close()
    if args.json != "-" and not args.quiet:
        say(engine.format_summary(summary))
        if run_id is not None:
            say(f"\nStored as run {run_id} in {store.path if store else ''}")
    return 0


def write_csv(sim: Any, folder: Path) -> None:
    """Member and guest samples and events of a run as CSV files in ``folder``.

    Text cells (user ids, member names, event messages that quote commands) go through
    ``csv_cell``: no formulas, no raw control characters.
    """
    from ssisim.engine import RunStore

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "members.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(RunStore.MEMBER_COLUMNS)
            w.writerows(csv_row(r) for r in sim.samples_member)
        with open(folder / "guests.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(RunStore.GUEST_COLUMNS)
            w.writerows(csv_row(r) for r in sim.samples_guest)
        with open(folder / "events.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(("seq", "t_s", "kind", "member", "userid", "message"))
            w.writerows(csv_row((e.seq, e.t_s, e.kind, e.member, e.userid, e.message))
                        for e in sim.events)
    except OSError as e:
        raise UserError(f"{folder}: cannot write CSV ({e.strerror})") from None


def cmd_check(args: argparse.Namespace) -> int:
    """Validate scenario files without running them."""
    from ssisim import engine

    for name in args.scenario:
        sc = engine.load_scenario(resolve_scenario(name))
        extra = f", lesson {sc.lesson.id!r}" if sc.lesson is not None else ""
        if sc.objectives:
            extra += f", {len(sc.objectives)} objectives"
        say(f"{name}: OK ({len(sc.members)} members, {len(sc.guests)} guests, "
              f"{len(sc.timeline)} timeline commands{extra}, format version "
              f"{engine.CURRENT_VERSION})")
        warn_about(sc)
    return 0


def warn_about(scenario: Any) -> None:
    """What in a valid scenario is very likely a mistake (it still runs as written)."""
    from ssisim import engine

    for line in engine.scenario_warnings(scenario):
        print(f"warning: {terminal_text(line)}", file=sys.stderr)


def resolve_lesson(name: str) -> Path:
    """A lesson file as given, or a bundled lesson by id or file name."""
    from ssisim import engine

    return engine.find_lesson(name)


def cmd_lessons(args: argparse.Namespace) -> int:
    """List the bundled lessons in their order."""
    from ssisim import engine

    for p in sorted((bundled_dir() / "lessons").glob("*.toml")):
        sc = engine.load_scenario(p)
        if sc.lesson is not None:
            say(f"{p.stem:<28} {terminal_text(sc.lesson.title)} ({len(sc.objectives)} objectives, "
                  f"{sc.duration_s / 60:g} min)")
    return 0


GRADE_COLUMNS = ["session", "student", "score", "max_score", "passed", "ended_s", "hints",
                 "lost"]


def _unreadable(path: str, e: BaseException) -> str:
    """Why a session file could not be read, for an exception ``load_session`` did not expect."""
    if isinstance(e, RecursionError):
        return f"{path}: not a valid session file: nested too deeply to read"
    if isinstance(e, MemoryError):
        return f"{path}: not a valid session file: too large to read"
    return f"{path}: cannot be read as a session ({type(e).__name__}: {e})"


def _error_row(path: str, reason: str) -> dict[str, str]:
    """The grade table's row of a session that could not be graded (its reason under LOST)."""
    return {"session": path, "student": "", "score": "", "max_score": "",
            "passed": "error", "ended_s": "", "hints": "", "lost": f"error: {reason}"}


def cmd_grade(args: argparse.Namespace) -> int:
    """Replay each session in the lesson; a row per session, a bad session does not stop it.

    A session that cannot be read or replayed, for whatever reason (a bad file, another
    lesson's session, even an internal error while replaying it), gets an error row with the
    reason; the others are graded. The table and the CSV list everyone; exit 1 if any row is
    an error.
    """
    from ssisim import engine

    scenario = engine.load_scenario(resolve_lesson(args.lesson))
    if not scenario.objectives:
        raise UserError(f"{args.lesson}: has no objectives; grade runs lessons "
                        "(see `ssisim lessons`)")
    check_steps(scenario.duration_s, scenario.step_s, f"{scenario.path}: duration_s")
    rows: list[dict[str, str]] = []
    debriefs: dict[str, Any] = {}
    bad = 0
    for path in args.sessions:
        sess = None
        try:
            sess = engine.load_session(path)
            d = engine.grade_session(scenario, sess)
        except engine.ScenarioError as e:
            reason = str(e)
        except Exception as e:  # noqa: BLE001 - one session must never stop the class's grading
            reason = _unreadable(path, e) if sess is None else (
                f"{path}: replaying it failed with an internal error ({type(e).__name__}: {e}); "
                "please report it with this session file")
        else:
            reason = ""
        if reason:
            bad += 1
            print(f"ssisim: {terminal_text(reason)}", file=sys.stderr)
            rows.append(_error_row(path, reason))
            continue
        assert sess is not None
        debriefs[path] = d
        rows.append({"session": path, "student": sess.student, "score": f"{d['score']:g}",
                     "max_score": f"{d['max_score']:g}", "passed": "yes" if d["passed"] else "no",
                     "ended_s": f"{d['ended_s']:g}", "hints": str(len(d["hints_used"])),
                     "lost": "; ".join(f"-{x['points']:g} {x['reason']}" for x in d["lost"])})
    shown = [{k: terminal_text(v) for k, v in r.items()} for r in rows]
    width = max(len(r["session"]) for r in shown)
    print(f"{'SESSION':<{width}}  {'STUDENT':<12} {'SCORE':>5} {'OF':>4} {'PASSED':<6}  LOST")
    for r in shown:
        print(f"{r['session']:<{width}}  {r['student'][:12]:<12} {r['score']:>5} "
              f"{r['max_score']:>4} {r['passed']:<6}  {r['lost']}")
    if args.csv:
        try:
            with open(args.csv, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=GRADE_COLUMNS)
                w.writeheader()
                w.writerows({k: csv_cell(v) for k, v in r.items()} for r in rows)
        except OSError as e:
            raise UserError(f"{args.csv}: cannot write the CSV ({e.strerror})") from None
    if args.json:
        _write_json(debriefs, args.json)
    if bad:
        print(f"ssisim: {bad} of {len(rows)} sessions could not be graded (see above)",
              file=sys.stderr)
    return 1 if bad else 0


def cmd_scenarios(args: argparse.Namespace) -> int:
    """List the bundled scenarios."""
    from ssisim import engine

    root = bundled_dir()
    for p in bundled_scenarios():
        sc = engine.load_scenario(p)
        say(f"{p.relative_to(root).with_suffix('')!s:<28} {terminal_text(sc.name)}")
        if sc.description:
            say(f"{'':<28} {terminal_text(sc.description)[:100]}")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    """List stored runs."""
    from ssisim import engine

    db = Path(args.db) if args.db else engine.default_db_path()
    if not db.exists():
        print(f"No runs stored yet (no database at {db}).")
        return 0
    with engine.RunStore(db) as store:
        runs = store.runs()
    if not runs:
        print("No runs stored yet.")
        return 0
    print(f"{'ID':>5}  {'FINISHED':<25}  {'SEED':>6}  {'SIM s':>8}  SCENARIO")
    for r in runs:  # names and paths come from scenario files: escaped (terminal_text)
        say(f"{r['id']:>5}  {terminal_text(r['finished_at']):<25}  {r['seed']:>6}  "
            f"{r['sim_end_s']:>8.0f}  {terminal_text(r['scenario_name'])} "
            f"({terminal_text(r['scenario_path'])})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Show a stored run's summary (and events)."""
    from ssisim import engine

    db = Path(args.db) if args.db else engine.default_db_path()
    if not db.exists():
        raise UserError(f"run {args.run_id} is not in {db} (no runs stored: the file does not "
                        "exist)")
    with engine.RunStore(db) as store:
        rec = store.run(args.run_id)
        if rec is None:
            ids = [r["id"] for r in store.runs()]
            known = f"stored runs: {', '.join(map(str, ids[:20]))}" if ids else "no runs stored"
            raise UserError(f"run {args.run_id} is not in {store.path} ({known})")
        events = store.events(args.run_id) if args.events else []
    if args.json:
        _write_json(rec["summary"], args.json)
        return 0
    say(f"Run {rec['id']}: {terminal_text(rec['scenario_path'])} (sha256 "
        f"{terminal_text(rec['scenario_hash'][:12])}), seed {rec['seed']}, ssisim "
        f"{terminal_text(rec['program_version'])}, {terminal_text(rec['started_at'])} .. "
        f"{terminal_text(rec['finished_at'])}")
    say(engine.format_summary(rec["summary"]))
    for e in events:  # messages quote the commands typed: escaped (terminal_text)
        say(f"{e['t_s']:>9.1f}s  {terminal_text(e['kind']):<14} {terminal_text(e['message'])}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Write a stored run's report: HTML with PNG charts and the CSV data behind them."""
    from ssisim import report

    if (args.run_id is None) == (args.sweep is None):
        raise UserError("name a stored run (ssisim report RUN_ID --out DIR) or a stored sweep "
                        "(ssisim report --sweep ID --out DIR), one of the two")
    if args.sweep is not None:
        try:
            rep = report.write_sweep_report(args.sweep, Path(args.out), args.db)
        except report.ReportError as e:
            raise UserError(str(e)) from None
        say(f"Report of sweep {args.sweep}: {terminal_text(rep.path)} ({len(rep.charts)} "
            f"charts, {len(rep.data)} data files)")
        return 0
    try:
        rep = report.write_report(args.run_id, Path(args.out), args.db)
    except report.ReportError as e:
        raise UserError(str(e)) from None
    say(f"Report of run {args.run_id}: {terminal_text(rep.path)} ({len(rep.charts)} charts, "
        f"{len(rep.data)} data files)")
    return 0


def _measure(args: argparse.Namespace, run: Any, fmt: Any, ok: Any) -> int:
    """Run benchmarks or validations, write JSON if asked, print the table, exit 0 if all hold."""
    try:
        results = run(only=args.only, log=lambda s: print(s, file=sys.stderr))
    except ValueError as e:  # an unknown --only name
        raise UserError(str(e)) from None
    if args.json:
        _write_json(results, args.json)
    if args.json != "-":
        print(fmt(results))
    return 0 if ok(results) else 1


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmarks and report each against its target."""
    from ssisim import engine

    return _measure(args, engine.run_benchmarks, engine.format_benchmarks,
                    lambda r: all(b["ok"] for b in r["benchmarks"]))


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a scenario over the product of varied fields and seeds; a table of the measures."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from ssisim import engine

    path = resolve_lesson(args.scenario)
    text = path.read_text(encoding="utf-8")
    scenario = engine.load_scenario(path)
    try:
        varies = [engine.parse_vary(v) for v in args.vary]
        measures = engine.check_measures(args.measure or ["relocation_s", "quiesce_s", "passes"],
                                         [g.userid for g in scenario.guests])
        points = engine.plan_sweep(text, str(path), varies, args.seeds)
    except engine.SweepError as e:
        raise UserError(str(e)) from None
    if args.until is not None:
        check_steps(args.until, scenario.step_s, "--until")
    # open the store first: a database we cannot write is better known before a long sweep
    store = engine.RunStore(args.db) if not args.no_store else None
    workers = args.workers or os.cpu_count() or 1
    bar = tqdm(total=len(points), desc="sweep", unit="run", file=sys.stderr, disable=args.quiet)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    # the points' run summaries come back with their measures when the sweep is stored
    summaries: list[dict[str, Any]] | None = [] if store is not None else None
    started = _now()
    if args.cluster:
        results = _sweep_on_cluster(args.cluster, points, measures, args.until, progress,
                                    summaries)
    elif workers == 1:
        results = engine.run_sweep(points, measures, args.until, progress=progress,
                                   summaries=summaries)
    else:
        with ProcessPoolExecutor(workers) as ex:
            results = engine.run_sweep(points, measures, args.until, ex, progress, summaries)
    bar.close()
    rows = engine.sweep_table(points, results, measures)
    cols = _print_sweep_table(rows)
    for line in engine.no_time_note(points, results, measures):
        say(line)
    if args.csv:
        with Path(args.csv).open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(cols)
            w.writerows(csv_row(r[c] for c in cols) for r in rows)
    if args.chart and rows:
        from ssisim import charts

        paths = [p for p, _ in varies]
        for m in measures:
            out = charts.sweep_measure(rows, paths, m, Path(args.chart) / f"{m}.png",
                                       f"{terminal_text(scenario.name)[:60]}: {m}")
            say(f"chart: {out}")
    if store is not None:
        with store:
            sweep_id = store.save_sweep(
                scenario_name=scenario.name, scenario_path=str(path),
                scenario_hash=scenario.source_hash, scenario_text=text, varies=varies,
                seeds=args.seeds, measures=measures, until_s=args.until,
                points=[{"values": p.values, "seed": p.seed, "measures": r, "summary": s}
                        for p, r, s in zip(points, results, summaries or [])],
                started_at=started, finished_at=_now(), version=__version__)
        say(f"Stored as sweep {sweep_id} in {store.path} (ssisim show-sweep {sweep_id}"
            f"{_db_option(args.db)})")
    return 0


def _db_option(db: str | None) -> str:
    """`` --db PATH`` for a command to suggest, when another database than the default was
    used."""
    return f" --db {db}" if db else ""


def _print_sweep_table(rows: list[dict[str, Any]]) -> list[str]:
    """Print a sweep's table (a row per combination of varied values: the mean, min and max of
    each measure over the seeds) in aligned columns; returns the columns."""
    cols = list(rows[0]) if rows else []
    widths = {c: max(len(c), *(len(_cell(r[c])) for r in rows)) for c in cols}
    say("  ".join(c.rjust(widths[c]) for c in cols))
    for r in rows:
        say("  ".join(_cell(r[c]).rjust(widths[c]) for c in cols))
    return cols


def _stored_sweep(store: Any, sweep_id: int, db: str | None) -> dict[str, Any]:
    """A stored sweep, or a ``UserError`` that lists the stored ones (and says so when the id
    is a run's)."""
    rec = store.sweep(sweep_id)
    if rec is not None:
        return dict(rec)
    ids = [s["id"] for s in store.sweeps()]
    more = " ..." if len(ids) > 20 else ""
    known = f"stored sweeps: {', '.join(map(str, ids[:20]))}{more}" if ids else \
        "no sweeps stored"
    run = f"; run {sweep_id} is a run: ssisim show {sweep_id}{_db_option(db)}" \
        if store.run(sweep_id) is not None else ""
    raise UserError(f"sweep {sweep_id} is not in {store.path} ({known}{run})")


def _open_existing_store(db: str | None, what: str) -> Any:
    """The run store at ``db`` (default: the user's), or a ``UserError`` when there is no
    database file at all (``what`` names what was looked for: "sweep 3")."""
    from ssisim import engine

    path = Path(db) if db else engine.default_db_path()
    if not path.exists():
        raise UserError(f"{what} is not in {path} (nothing stored: the file does not exist)")
    return engine.RunStore(path)


def cmd_sweeps(args: argparse.Namespace) -> int:
    """List stored sweeps."""
    from ssisim import engine

    db = Path(args.db) if args.db else engine.default_db_path()
    if not db.exists():
        print(f"No sweeps stored yet (no database at {db}).")
        return 0
    with engine.RunStore(db) as store:
        sweeps = store.sweeps()
    if not sweeps:
        print("No sweeps stored yet.")
        return 0
    print(f"{'ID':>5}  {'FINISHED':<25}  {'POINTS':>6}  {'SEEDS':>5}  SCENARIO, VARIED")
    for s in sweeps:  # names, paths and values come from files: escaped (terminal_text)
        varied = ", ".join(f"{p} ({len(vs)})" for p, vs in s["varies"]) or "nothing varied"
        say(f"{s['id']:>5}  {terminal_text(s['finished_at']):<25}  {s['points']:>6}  "
            f"{s['seeds']:>5}  {terminal_text(s['scenario_name'])} "
            f"({terminal_text(s['scenario_path'])}); {terminal_text(varied)}")
    return 0


def cmd_show_sweep(args: argparse.Namespace) -> int:
    """Print a stored sweep's table again, as the sweep printed it."""
    from ssisim import engine

    with _open_existing_store(args.db, f"sweep {args.sweep_id}") as store:
        rec = _stored_sweep(store, args.sweep_id, args.db)
        points = store.sweep_points(args.sweep_id)
    shown = [engine.SweepPoint(p["values"], p["seed"], "") for p in points]
    rows = engine.sweep_table(shown, [p["measures"] for p in points], rec["measures"])
    if args.json:
        _write_json({"sweep": {k: v for k, v in rec.items() if k != "scenario_text"},
                     "rows": rows}, args.json)
        return 0
    until = "each point's duration_s" if rec["until_s"] is None else f"{rec['until_s']:g} s"
    say(f"Sweep {rec['id']}: {terminal_text(rec['scenario_path'])} (sha256 "
        f"{terminal_text(rec['scenario_hash'][:12])}), {rec['points']} runs, {rec['seeds']} "
        f"seed(s) per point, to {until}; ssisim {terminal_text(rec['program_version'])}, "
        f"{terminal_text(rec['started_at'])} .. {terminal_text(rec['finished_at'])}")
    for p, vs in rec["varies"]:
        say(f"  --vary {terminal_text(p)}={terminal_text(','.join(map(str, vs)))}")
    _print_sweep_table(rows)
    for line in engine.no_time_note(shown, [p["measures"] for p in points], rec["measures"]):
        say(line)
    return 0


def _sweep_on_cluster(where: str, points: Any, measures: list[str], until: float | None,
                      progress: Callable[[int, int], None],
                      summaries: list[dict[str, Any]] | None = None) -> Any:
    """Run a sweep's points on a Dask distributed cluster (see ``_cluster_executor``)."""
    from ssisim import engine

    with _cluster_executor(where) as ex:
        return engine.run_sweep(points, measures, until, ex, progress, summaries)


@contextlib.contextmanager
def _cluster_executor(where: str) -> Iterator[Any]:
    """An executor on a Dask distributed cluster: ``local:N`` starts one of N worker processes
    here, ``tcp://HOST:PORT`` uses a running one (its workers need ssisim installed). Results
    come back to this process, which alone writes anything."""
    m = re.fullmatch(r"local:(\d+)", where)
    if not m and not where.startswith("tcp://"):
        raise UserError(f"--cluster {where}: write local:N or tcp://HOST:PORT")
    if m and not 1 <= int(m.group(1)) <= 256:
        raise UserError(f"--cluster {where}: local:N takes 1 to 256 workers")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UserError("--cluster needs Dask: pip install 'ssisim[cluster]' (or "
                        "distributed)") from None
    if m:
        n = int(m.group(1))
        # one thread per worker: the kernels are not run from two threads of one process
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        cluster = None
        try:
            client = Client(where, timeout=20)
        except OSError as e:
            raise UserError(f"--cluster {where}: cannot reach the scheduler ({e})") from None
    try:
        yield client.get_executor()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def cmd_plan_evacuate(args: argparse.Namespace) -> int:
    """Search and rank plans to empty a member: the best side by side, their commands."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from ssisim import engine

    path = resolve_scenario(args.scenario)
    text = path.read_text(encoding="utf-8")
    engine.load_scenario(path)  # a bad scenario: its own message, with its line
    try:
        window = engine.parse_window(args.window)
    except engine.EvacuateError as e:
        raise UserError(str(e)) from None
    to = [d for d in args.to.split(",") if d.strip()] if args.to is not None else None
    if args.to is not None and not to:
        raise UserError(f"--to {args.to!r}: name one or more members, e.g. MEMB2,MEMB3")
    workers = args.workers or os.cpu_count() or 1
    bars: list[Any] = []  # made at the first run: a refused input prints nothing but its line
    finished = [0]  # runs of the batches already done (the search runs in batches)

    def progress(stage: str, done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=0, desc="plans", unit="run", file=sys.stderr,
                             disable=args.quiet))
        bar = bars[0]
        bar.total = finished[0] + total
        bar.set_description_str(stage[:30], refresh=False)
        bar.update(finished[0] + done - bar.n)
        if done == total:
            finished[0] += total

    def plan(ex: Any) -> Any:
        return engine.plan_evacuation(text, str(path), args.member, args.at, to, window,
                                      args.seeds, ex, progress, stop_losers=not args.run_all)

    try:
        if args.cluster:
            with _cluster_executor(args.cluster) as ex:
                result = plan(ex)
        elif workers == 1:
            result = plan(None)
        else:
            with ProcessPoolExecutor(workers) as ex:
                result = plan(ex)
    except engine.EvacuateError as e:
        raise UserError(str(e)) from None
    finally:
        for bar in bars:
            bar.close()
    say(engine.format_evacuation(result, args.top))
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "plan.toml").write_text(engine.evacuation_scenario(result), encoding="utf-8")
            (out / "commands.txt").write_text(engine.evacuation_commands(result) + "\n",
                                              encoding="utf-8")
        except OSError as e:
            raise UserError(f"{out}: cannot write the plan ({e.strerror})") from None
        say(f"\nWritten: {out / 'plan.toml'} (the scenario with the plan's timeline), "
            f"{out / 'commands.txt'} (the commands in order, with times)")
    return 0


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 1e6 else f"{v:,.0f}"
    return str(v)


def cmd_import(args: argparse.Namespace) -> int:
    """Build a scenario from a shop's user directory, SYSTEM CONFIG and saved CP responses."""
    from ssisim.zvm import InputError, import_shop

    try:
        result = import_shop(args.directory, args.system_config, args.query_dir,
                             args.workloads, target=args.output)
    except InputError as e:
        raise UserError(str(e)) from None
    if args.output == "-":
        sys.stdout.write(result.text)
    else:
        try:
            Path(args.output).write_text(result.text, encoding="utf-8")
        except OSError as e:
            raise UserError(f"{args.output}: cannot write the scenario ({e.strerror})") from None
    out = sys.stderr if args.output == "-" else sys.stdout
    sc, notes = result.scenario, result.notes
    on = sum(1 for g in sc.guests if g.logged_on)
    say(f"{args.output}: {len(sc.members)} members ({', '.join(m.name for m in sc.members)}), "
        f"{len(sc.guests)} guests ({on} logged on), {len(sc.timeline)} timeline commands",
        file=out)
    for title, lines in (("Problems (skipped)", notes.problems), ("Assumed", notes.assumed),
                         ("Notes", notes.info), ("Ignored (not modelled)",
                                                 notes.ignored_lines())):
        if lines:
            say(f"{title}:", file=out)
            for line in lines:
                say(f"  {line}", file=out)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """Run the reference scenarios and compare with the published measurements."""
    from ssisim import engine

    if args.sensitivity:
        return _validation_sensitivity(args)
    return _measure(args, engine.validate, engine.format_validation, lambda r: r["ok"])


def _pool(workers: int | None) -> Any:
    """A process pool of ``workers`` (default: one per core), or None for one process."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    n = workers or os.cpu_count() or 1
    return ProcessPoolExecutor(n) if n > 1 else None


def _validation_sensitivity(args: argparse.Namespace) -> int:
    """``validate --sensitivity``: which model parameters move each validated result."""
    from ssisim import engine

    pool = _pool(args.workers)
    try:
        res = engine.validation_sensitivity(args.only, log=lambda s: print(s, file=sys.stderr),
                                            executor=pool)
    except ValueError as e:  # an unknown --only name
        raise UserError(str(e)) from None
    finally:
        if pool is not None:
            pool.shutdown()
    if args.json:
        _write_json(res, args.json)
    if args.json != "-":
        say(engine.format_sensitivity(res))
    return 0


def _run_sensitivity(args: argparse.Namespace, path: Path, until: float) -> int:
    """``run --sensitivity MEASURE``: the measure with each model parameter moved -/+20 %."""
    from tqdm import tqdm

    from ssisim import engine

    text = path.read_text(encoding="utf-8")
    scenario = engine.load_scenario(path)
    try:
        measures = engine.check_measures([args.sensitivity], [g.userid for g in scenario.guests])
        points = engine.sensitivity_points(text, str(path))
    except engine.SweepError as e:
        raise UserError(str(e)) from None
    bar = tqdm(total=len(points), desc="sensitivity", unit="run", file=sys.stderr,
               disable=True if args.quiet else None)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    pool = _pool(args.workers)
    try:
        results = engine.run_sweep(points, measures, until, pool, progress)
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown()
    rows = engine.sensitivity_table(points, results, measures[0])
    if args.json:
        _write_json(rows, args.json)
    if args.json == "-":
        return 0
    base = results[0][measures[0]]
    say(f"{measures[0]} with the model as it is: {_cell(base)}; each parameter at -20 % and "
        "+20 % (docs/model.md), the ones that move it most first")
    say(f"{'PARAMETER':<34} {'LOW':>12} {'RESULT':>12} {'CHANGE':>8}  {'HIGH':>12} "
        f"{'RESULT':>12} {'CHANGE':>8}")

    def pct(x: float | None) -> str:
        return "" if x is None else f"{x * 100:+.1f}%"

    def value(x: float | None) -> str:
        return "-" if x is None else f"{x:.4g}"

    still = []
    for r in rows:
        if not r.get("low change") and not r.get("high change"):
            still.append(r["parameter"])
            continue
        say(f"{r['parameter']:<34} {value(r['low']):>12} {_cell(r.get('low result')):>12} "
            f"{pct(r.get('low change')):>8}  {value(r['high']):>12} "
            f"{_cell(r.get('high result')):>12} {pct(r.get('high change')):>8}")
    if still:
        say(f"Not moved by the other {len(still)}: {', '.join(still)}")
    return 0


def cmd_charts(args: argparse.Namespace) -> int:
    """Draw the documentation's charts from the bundled scenarios, headless."""
    from ssisim import charts, engine

    out = Path(args.out)

    def run(name: str) -> Any:
        sc = engine.load_scenario(resolve_scenario(name))
        sim = engine.Simulation(sc)
        sim.run_until(sc.duration_s)
        return sim

    def events(sim: Any) -> list[dict[str, Any]]:
        return [{"t_s": e.t_s, "kind": e.kind, "userid": e.userid, "member": e.member,
                 "data": e.data} for e in sim.events]

    def member_rows(sim: Any) -> list[dict[str, Any]]:
        return [dict(zip(engine.RunStore.MEMBER_COLUMNS, row)) for row in sim.samples_member]

    def guest_rows(sim: Any) -> list[dict[str, Any]]:
        return [dict(zip(engine.RunStore.GUEST_COLUMNS, row)) for row in sim.samples_guest]

    written = []
    summary = engine.build_summary(run("reference/lgr-busy"))
    written.append(charts.pages_per_pass(summary["relocations"][0],
                                         out / "relocation-passes-busy.png"))
    sim = run("lgr-short-destination")
    summary = engine.build_summary(sim)
    rel = summary["relocations"][0]
    written.append(charts.throttle_timeline(rel, events(sim), out / "relocation-throttles.png"))
    frames = {m["name"]: m["central"]["frames"] for m in summary["members"]}
    written.append(charts.member_storage(member_rows(sim), frames,
                                         out / "relocation-short-storage.png", rel["start_s"]))
    rows = engine.validate_series()
    size_rows = [r for r in rows if "size" in r["measure"]]
    link_rows = [r for r in rows if "capacity" in r["measure"]]
    pub = {"quiesce_s": {100.0: 8.71}, "relocation_s": {100.0: 22.46}}
    written.append(charts.series_chart(size_rows, "guest storage (GB)",
                                       out / "relocation-size-series.png", pub))
    written.append(charts.series_chart(link_rows, "ISFC link capacity factor",
                                       out / "relocation-link-series.png", invert=True))
    pause_runs = {"Linux suspend": guest_rows(run("pause/pause-suspend")),
                  "CP STOP": guest_rows(run("pause/pause-stop"))}
    phases: list[tuple[float, str]] = [(300, "pause"), (330, "standbys on"),
                                       (900, "standbys off"), (910, "resume")]
    written.append(charts.pages_by_location(pause_runs, ["WAS01", "DB01"],
                                            out / "pause-pages.png", phases))
    written.append(charts.scheduling(pause_runs, ["WAS01", "DB01"], out / "pause-scheduling.png"))
    large = {}
    for gb in (2560, 2048, 1536):
        sim = run(f"large/guest-2tb-{gb}g")
        large[f"{gb / 1024:.1f} TB central"] = (member_rows(sim), guest_rows(sim))
        del sim
    written.append(charts.large_guest(large, out / "large-guest-2tb.png"))
    summary = engine.build_summary(run("migration-comparison"))
    written.append(charts.migration_comparison(comparison_moves(summary),
                                               out / "comparison.png",
                                               "The same guest moved each way"))
    for p in written:
        say(p)
    return 0


def comparison_moves(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Relocations and migrations of a run's summary, labelled for the comparison chart."""
    moves = []
    for d in summary["relocations"]:
        moves.append({**d, "kind": "lgr", "label": "z/VM LGR " + ("ASYNC" if "ASYNC" in d["options"]
                                                                  else "SYNC")})
    for d in sorted(summary["migrations"], key=lambda m: (m["kind"], m["start_s"])):
        what = "LPM" if d["kind"] == "lpm" else "Storage vMotion"
        opts = d["options"].split(" (")[0].replace("METHOD ", "")
        moves.append({**d, "label": f"{what} {opts}"})
    return moves


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text}: expected WIDTHxHEIGHT in pixels, e.g. 1600x1000") \
            from None
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise UserError(f"--size {text}: width and height must be 200 to 10000 pixels")
    return w, h


#: The longest ``--screenshot-after`` (wall seconds): a screenshot run always ends.
MAX_SCREENSHOT_AFTER_S = 300.0


def cmd_gui(args: argparse.Namespace) -> int:
    """Open the desktop app (Qt is imported here only, never by the rest of the CLI)."""
    from ssisim import engine

    scenario = engine.load_scenario(resolve_lesson(args.scenario or "demo"))
    if args.run_until is not None:  # finite and 0 or more: checked by the parser
        check_steps(args.run_until, scenario.step_s, "--run-until")
    size = _size(args.size) if args.size else None
    after = args.screenshot_after
    if after is not None:
        if not args.screenshot:
            raise UserError("--screenshot-after needs --screenshot PATH")
        if not 0 < after <= MAX_SCREENSHOT_AFTER_S:
            raise UserError(f"--screenshot-after {after:g}: wall seconds from more than 0 to "
                            f"{MAX_SCREENSHOT_AFTER_S:g}")
    session = engine.load_session(args.session) if args.session else None
    if session is not None:
        want = scenario.lesson.id if scenario.lesson is not None else scenario.name
        if session.lesson != want:
            raise UserError(f"{args.session}: this session was recorded in {session.lesson!r}, "
                            f"not in {want!r}")
    try:
        from ssisim.app.main import run_gui
    except ImportError as e:
        raise UserError(f"the desktop app needs PySide6 and pyqtgraph ({e}); install them with "
                        "pip install 'ssisim[gui]'") from None
    return run_gui(scenario, run_until=args.run_until, screenshot=args.screenshot, size=size,
                   speed=args.speed, select=args.select, theme=args.theme, session=session,
                   db=Path(args.db) if args.db else None, screenshot_after_s=after)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``ssisim``."""
    from ssisim.engine import MAX_SEED, MAX_STEPS

    steps = f"{MAX_STEPS:,}"
    p = _Parser(prog="ssisim", description="Page-level simulator of z/VM SSI clusters: paging, "
                "overcommit and Live Guest Relocation.")
    p.add_argument("--version", action="version", version=f"ssisim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser("run", help="replay a scenario headless and store the run")
    r.add_argument("scenario", help="scenario file, or the name of a bundled scenario")
    r.add_argument("--seed", type=_whole("--seed", 0, MAX_SEED, "2^63-1"),
                   help="random seed, 0 to 2^63-1 (default: the scenario's)")
    r.add_argument("--until", type=_seconds("--until"), metavar="SECONDS",
                   help=f"simulated seconds to run, a finite number 0 or more; at most {steps} "
                   "steps of the scenario's step_s (default: the scenario's duration_s)")
    r.add_argument("--db", metavar="PATH", help="run database (default: in the user data dir)")
    r.add_argument("--no-store", action="store_true", help="do not store the run")
    r.add_argument("--json", metavar="PATH|-", help="write the summary as JSON ('-': stdout)")
    r.add_argument("--csv", metavar="DIR", help="write samples and events as CSV files")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    r.add_argument("--session", metavar="FILE",
                   help="replay a recorded session (a student's commands) in the scenario")
    r.add_argument("--sensitivity", metavar="MEASURE",
                   help="instead of one run: the measure (as for ssisim sweep) with each model "
                   "parameter moved by -20 %% and +20 %% in turn; nothing is stored")
    r.add_argument("--workers", type=_whole("--workers", 1, 256, "256"), default=None,
                   help="processes for --sensitivity (default: one per core)")
    r.set_defaults(fn=cmd_run)

    gr = sub.add_parser("grade", help="grade recorded sessions of a lesson, one row each")
    gr.add_argument("lesson", help="lesson file, or the name of a bundled lesson")
    gr.add_argument("sessions", nargs="+", metavar="SESSION", help="recorded session files")
    gr.add_argument("--csv", metavar="PATH", help="also write the table as CSV")
    gr.add_argument("--json", metavar="PATH|-", help="write every debrief as JSON")
    gr.set_defaults(fn=cmd_grade)

    le = sub.add_parser("lessons", help="list the bundled lessons")
    le.set_defaults(fn=cmd_lessons)

    c = sub.add_parser("check", help="validate scenario files without running them")
    c.add_argument("scenario", nargs="+")
    c.set_defaults(fn=cmd_check)

    s = sub.add_parser("scenarios", help="list the bundled scenarios")
    s.set_defaults(fn=cmd_scenarios)

    rs = sub.add_parser("runs", help="list stored runs")
    rs.add_argument("--db", metavar="PATH")
    rs.set_defaults(fn=cmd_runs)

    sh = sub.add_parser("show", help="show a stored run")
    sh.add_argument("run_id", type=_whole("RUN_ID", 1, MAX_SEED, "2^63-1"), metavar="RUN_ID",
                    help="the run's id, 1 to 2^63-1 (see ssisim runs)")
    sh.add_argument("--db", metavar="PATH")
    sh.add_argument("--json", metavar="PATH|-")
    sh.add_argument("--events", action="store_true", help="list the run's events too")
    sh.set_defaults(fn=cmd_show)

    rp = sub.add_parser("report", help="write a stored run's or sweep's report: HTML, PNG "
                        "charts, CSV data")
    rp.add_argument("run_id", type=_whole("RUN_ID", 1, MAX_SEED, "2^63-1"), metavar="RUN_ID",
                    nargs="?", help="the run's id, 1 to 2^63-1 (see ssisim runs)")
    rp.add_argument("--sweep", type=_whole("--sweep", 1, MAX_SEED, "2^63-1"), metavar="ID",
                    help="instead of a run: a stored sweep's table, a chart of each measure "
                    "and its data (see ssisim sweeps)")
    rp.add_argument("--out", required=True, metavar="DIR",
                    help="folder for report.html, its charts and data (created if needed)")
    rp.add_argument("--db", metavar="PATH")
    rp.set_defaults(fn=cmd_report)

    b = sub.add_parser("bench", help="run the benchmarks against their targets")
    b.add_argument("--json", metavar="PATH|-")
    b.add_argument("--only", metavar="NAME", action="append",
                   help="run only this benchmark (repeatable)")
    b.set_defaults(fn=cmd_bench)

    ch = sub.add_parser("charts", help="draw the documentation's charts (PNG) headless")
    ch.add_argument("--out", default="docs/img", metavar="DIR")
    ch.set_defaults(fn=cmd_charts)

    sw = sub.add_parser("sweep", help="run a scenario over varied fields and seeds; a table of "
                        "measures (see docs/planning.md)")
    sw.add_argument("scenario", help="scenario file or the name of a bundled one")
    sw.add_argument("--vary", action="append", default=[], metavar="PATH=VALUES",
                    help="a field and its values: member.MEMB2.central=16G,32G or "
                    "guest.LNX01.storage=16G..64G/16G (repeatable; the product is run)")
    sw.add_argument("--seeds", type=_whole("--seeds", 1, 1000, "1000"), default=1,
                    help="seeds per point, from the scenario's own (1 to 1000)")
    sw.add_argument("--measure", action="append", metavar="NAME",
                    help="a measure of each run (repeatable): relocation_s, quiesce_s, passes, "
                    "pages_moved, relocations_done, throttle_s, held_s, peak_central_pct, "
                    "peak_slots_pct, page_in_per_s, page_out_per_s, throughput.USERID")
    sw.add_argument("--until", type=_seconds("--until"), metavar="SECONDS",
                    help="run each point to this simulated time (default: its duration_s)")
    sw.add_argument("--workers", type=_whole("--workers", 1, 256, "256"), default=None,
                    help="processes (default: one per core; 1 runs in this process)")
    sw.add_argument("--cluster", metavar="local:N|tcp://HOST:PORT",
                    help="run the points on a Dask distributed cluster: local:N starts N worker "
                    "processes here; tcp://HOST:8786 uses a running scheduler")
    sw.add_argument("--csv", metavar="FILE", help="the table as CSV")
    sw.add_argument("--chart", metavar="DIR", help="a PNG chart of each measure against the "
                    "first varied field in DIR (MEASURE.png)")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sw.add_argument("--db", metavar="PATH", help="run database (default: in the user data dir)")
    sw.add_argument("--no-store", action="store_true", help="do not store the sweep")
    sw.set_defaults(fn=cmd_sweep)

    sws = sub.add_parser("sweeps", help="list stored sweeps")
    sws.add_argument("--db", metavar="PATH")
    sws.set_defaults(fn=cmd_sweeps)

    ss = sub.add_parser("show-sweep", help="print a stored sweep's table again")
    ss.add_argument("sweep_id", type=_whole("SWEEP_ID", 1, MAX_SEED, "2^63-1"),
                    metavar="SWEEP_ID", help="the sweep's id, 1 to 2^63-1 (see ssisim sweeps)")
    ss.add_argument("--db", metavar="PATH")
    ss.add_argument("--json", metavar="PATH|-", help="the sweep and its table as JSON")
    ss.set_defaults(fn=cmd_show_sweep)

    pl = sub.add_parser("plan", help="plan operations on the cluster: evacuate a member (see "
                        "docs/planning.md)")
    plsub = pl.add_subparsers(dest="plan_command", metavar="PLAN", parser_class=_Parser)
    plsub.required = True
    ev = plsub.add_parser("evacuate", help="search, run and rank plans to empty a member; the "
                          "best side by side, and its commands")
    ev.add_argument("scenario", help="scenario file or the name of a bundled one")
    ev.add_argument("--member", required=True, help="the member to empty")
    ev.add_argument("--at", type=_seconds("--at"), default=0.0, metavar="SECONDS",
                    help="simulated time the evacuation starts; free storage is read from a run "
                    "to it (default 0: from the configuration)")
    ev.add_argument("--to", metavar="MEMB2,MEMB3",
                    help="destinations (default: every member linked to --member)")
    ev.add_argument("--window", default="1h", metavar="DURATION",
                    help="the guests should be moved within this time: 3600, 90m, 2h, 1h30m "
                    "(default 1h)")
    ev.add_argument("--seeds", type=_whole("--seeds", 1, 100, "100"), default=1,
                    help="runs of each plan, seeds from the scenario's own; figures are means")
    ev.add_argument("--top", type=_whole("--top", 1, 50, "50"), default=4,
                    help="plans shown side by side (default 4)")
    ev.add_argument("--out", metavar="DIR", help="write the best plan: DIR/plan.toml (the "
                    "scenario with the plan in its timeline) and DIR/commands.txt")
    ev.add_argument("--workers", type=_whole("--workers", 1, 256, "256"), default=None,
                    help="processes (default: one per core; 1 runs in this process)")
    ev.add_argument("--cluster", metavar="local:N|tcp://HOST:PORT",
                    help="run the plans on a Dask distributed cluster, as for ssisim sweep")
    ev.add_argument("--run-all", action="store_true",
                    help="run every plan to its end (slower): by default a plan that has not "
                    "moved every guest by the time the best plan before it had is stopped there, "
                    "since it cannot beat it; its total time is then shown as >T")
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(fn=cmd_plan_evacuate)

    im = sub.add_parser("import", help="build a scenario from a shop's user directory, SYSTEM "
                        "CONFIG and saved CP responses (see docs/import.md)")
    im.add_argument("--directory", required=True, metavar="USER.DIRECT",
                    help="the user directory in source form")
    im.add_argument("--system-config", metavar="SYSTEM.CONFIG",
                    help="SYSTEM CONFIG: members (SSI statement), CP-owned volumes, ISFC links")
    im.add_argument("--query-dir", metavar="DIR", help="saved CP responses, one file per "
                    "member and command: MEMB1.QUERY-STORAGE.txt, MEMB1.QUERY-NAMES.txt, ...")
    im.add_argument("--workloads", metavar="MAP.toml",
                    help="user ID patterns to workloads (default: every guest runs idle)")
    im.add_argument("-o", "--output", required=True, metavar="FILE|-",
                    help="the scenario to write (replaced if it exists; '-': stdout)")
    im.set_defaults(fn=cmd_import)

    v = sub.add_parser("validate", help="compare the model with published measurements")
    v.add_argument("--json", metavar="PATH|-")
    v.add_argument("--only", metavar="NAME", action="append",
                   help="run only this validation (repeatable)")
    v.add_argument("--sensitivity", action="store_true",
                   help="for each result, the model parameters that move it most (each moved "
                   "by -20 %% and +20 %% in turn)")
    v.add_argument("--workers", type=_whole("--workers", 1, 256, "256"), default=None,
                   help="processes for --sensitivity (default: one per core)")
    v.set_defaults(fn=cmd_validate)

    g = sub.add_parser("gui", help="open the desktop app on a scenario or a lesson (default: "
                       "the demo)")
    g.add_argument("scenario", nargs="?", help="scenario or lesson file, or the name of a "
                   "bundled scenario or lesson (a lesson opens in training mode)")
    g.add_argument("--run-until", type=_seconds("--run-until"), metavar="SECONDS",
                   help="run until this simulated time, then pause (a finite number 0 or more; "
                   f"at most {steps} steps of the scenario's step_s)")
    g.add_argument("--screenshot", metavar="PATH",
                   help="with --run-until: save the window as PNG at that time, then exit")
    g.add_argument("--screenshot-after", type=_seconds("--screenshot-after"),
                   metavar="WALL_SECONDS",
                   help="with --screenshot: once at --run-until, run the clock at --speed "
                   "(default 1x) with watch mode on for this many wall seconds (more than 0, "
                   f"at most {MAX_SCREENSHOT_AFTER_S:g}), then save the PNG: the window as a "
                   "user sees it running"),
    g.add_argument("--size", metavar="WxH", help="window size in pixels, width and height 200 "
                   "to 10000 each (default 1600x1000)")
    g.add_argument("--speed", choices=["1x", "10x", "100x", "max"],
                   help="speed of the simulated clock")
    g.add_argument("--select", metavar="USERID", help="show this guest in the guest detail")
    g.add_argument("--theme", choices=["system", "light", "dark"],
                   help="colours for this run (the saved preference is not changed)")
    g.add_argument("--session", metavar="FILE",
                   help="replay a recorded session's commands at their times (a student's "
                   "lesson, shown to the trainer)")
    g.add_argument("--db", metavar="PATH", help="run database where File > Export report stores "
                   "the run (default: in the user data dir)")
    g.set_defaults(fn=cmd_gui)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ssisim`` command; returns the exit code."""
    from ssisim.engine import ScenarioError, StoreError

    try:
        args = build_parser().parse_args(argv)
        return int(args.fn(args))
    except (UserError, ScenarioError, StoreError) as e:
        # one line, whatever the message quotes from a file (terminal_text)
        print(f"ssisim: {terminal_text(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ssisim: interrupted; nothing was stored for this run", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception:  # an internal error: say so, with the details a bug report needs
        sys.stderr.write(terminal_text(traceback.format_exc(), keep_newlines=True))
        print("ssisim: internal error (exit 2); please report it with the lines above",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

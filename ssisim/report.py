"""Run reports: a stored run as one self-contained HTML page, its PNG charts and CSV data.

Everything goes into one folder and links only to files in it (no network, CSS inline), so
the folder can be zipped and sent. ``ssisim report`` and the desktop app's File menu both
call :func:`write_report` with a run id of the run store.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ssisim import charts
from ssisim.engine import (
    PAGES_PER_GB,
    SWEEP_MEASURES,
    RunStore,
    ScenarioError,
    SweepPoint,
    default_db_path,
    load_scenario,
    sweep_table,
)
from ssisim.text import csv_row

#: The report's page, in the output folder next to its charts and data.
REPORT_FILE = "report.html"
#: Events of Linux suspend/resume, CP STOP/BEGIN and logoff cleanup: the pausing results.
PAUSE_EVENTS = ("SUSPEND_START", "SUSPENDED", "RESUME_START", "SERVING", "STOPPED", "BEGIN",
                "LOGOFF", "CLEANUP_DONE")
#: Events a reader should not miss, listed under the event counts.
NOTABLE = re.compile(r"WARNING|CANCELLED|FAILED|FULL")
#: Summary keys the report lays out itself; any other key is shown as it is.
KNOWN_KEYS = {"scenario", "scenario_hash", "seed", "version", "t_s", "members", "guests",
              "relocations", "migrations", "events", "commands", "objectives"}

EVENT_COLUMNS = ("seq", "t_s", "kind", "member", "userid", "message", "data")
PASS_COLUMNS = ("move", "method", "guest", "source", "destination", "pass", "kind", "unit",
                "moved", "start_s", "seconds", "throttle_s")


class ReportError(Exception):
    """The report cannot be written for a reason of the user's (unknown run, bad folder)."""


@dataclass
class Report:
    """What :func:`write_report` wrote."""

    path: Path
    charts: list[Path] = field(default_factory=list)
    data: list[Path] = field(default_factory=list)


# -- entry point ------------------------------------------------------------------------------

def write_report(run_id: int, out: str | Path, db: str | Path | None = None) -> Report:
    """Write the report of a stored run into a folder.

    Parameters
    ----------
    run_id : int
        The run's id in the run store (``ssisim runs`` lists them).
    out : str or Path
        The folder, created if needed. Files of the report already in it are overwritten;
        nothing else there is touched.
    db : str or Path, optional
        The run database (default: the one in the user data directory).

    Returns
    -------
    Report
        The HTML page and the charts and data files written.

    Raises
    ------
    ReportError
        The run is not in the database, or the folder cannot be used.
    """
    db_path = _stored(db, "run", run_id)
    with RunStore(db_path) as store:
        rec = store.run(run_id)
        if rec is None:
            raise _missing(store, "run", run_id, db)
        members = store.member_series(run_id)
        guests = store.guest_series(run_id)
        events = store.events(run_id)
    for e in events:
        e["data"] = json.loads(e.pop("data_json") or "{}") or {}
    folder = _folder(Path(out))
    try:
        return _Builder(rec, members, guests, events, folder, db_path).write()
    except OSError as e:
        raise ReportError(f"{folder}: cannot write the report ({e.strerror or e})") from None


def _stored(db: str | Path | None, kind: str, ident: int) -> Path:
    """The run database to read ``kind`` ``ident`` from; a ``ReportError`` when there is none."""
    db_path = Path(db) if db else default_db_path()
    if not db_path.exists():
        raise ReportError(f"{kind} {ident} is not in {db_path} (nothing stored: the file does "
                          "not exist)")
    return db_path


def _missing(store: RunStore, kind: str, ident: int, db: str | Path | None) -> ReportError:
    """Run or sweep ``ident`` is not stored: which are, how to list them, and whether
    ``ident`` is one of the other kind."""
    ids = [r["id"] for r in (store.runs() if kind == "run" else store.sweeps())]
    more = " ..." if len(ids) > 20 else ""
    known = f"stored {kind}s: {', '.join(map(str, ids[:20]))}{more}" if ids else \
        f"no {kind}s stored"
    hint = f"ssisim {kind}s" + (f" --db {db}" if db else "")
    if kind == "run" and store.sweep(ident) is not None:
        other = f"; {ident} is a sweep: ssisim report --sweep {ident}"
    elif kind == "sweep" and store.run(ident) is not None:
        other = f"; {ident} is a run: ssisim report {ident}"
    else:
        other = ""
    return ReportError(f"{kind} {ident} is not in {store.path} ({known}; `{hint}` lists "
                       f"them{other})")


def write_sweep_report(sweep_id: int, out: str | Path, db: str | Path | None = None) -> Report:
    """Write the report of a stored sweep into a folder: its table, a chart of each measure
    against the first varied field, and the data.

    Parameters
    ----------
    sweep_id : int
        The sweep's id in the run store (``ssisim sweeps`` lists them).
    out : str or Path
        The folder, created if needed; the report's files in it are overwritten.
    db : str or Path, optional
        The run database (default: the one in the user data directory).

    Returns
    -------
    Report
        The HTML page and the charts and data files written.

    Raises
    ------
    ReportError
        The sweep is not in the database, or the folder cannot be used.
    """
    db_path = _stored(db, "sweep", sweep_id)
    with RunStore(db_path) as store:
        rec = store.sweep(sweep_id)
        if rec is None:
            raise _missing(store, "sweep", sweep_id, db)
        points = store.sweep_points(sweep_id)
    folder = _folder(Path(out))
    try:
        return _SweepBuilder(rec, points, folder, db_path).write()
    except OSError as e:
        raise ReportError(f"{folder}: cannot write the report ({e.strerror or e})") from None


def _folder(out: Path) -> Path:
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: a file of that name exists; a report needs a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out}: cannot create the folder ({e.strerror or e})") from None
    if not os.access(out, os.W_OK):
        raise ReportError(f"{out}: the folder is not writable")
    return out


# -- formatting -------------------------------------------------------------------------------

class Raw(str):
    """Text that is HTML already (built here from escaped parts)."""


def esc(value: Any) -> str:
    """Any value as HTML text: escaped, ``None`` as a dash."""
    if isinstance(value, Raw):
        return value
    return "-" if value is None else html.escape(str(value), quote=True)


def _num(v: Any, digits: int = 0) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool) or not isinstance(v, int | float):
        return str(v)
    return f"{v:,.{digits}f}"


def _g(v: Any) -> str:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return f"{v:g}"
    return "-" if v is None else str(v)


def _gb(pages: Any) -> str:
    return "-" if pages is None else f"{pages / PAGES_PER_GB:,.2f}"


def _duration(seconds: float) -> str:
    s = round(seconds)
    return f"{seconds:,.0f} s ({s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d})"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name) or "_"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Iterable[int] = (),
          cls: str = "") -> str:
    """An HTML table; cells are escaped unless ``Raw``; ``numeric`` columns align right."""
    right = set(numeric)
    head = "".join(f'<th{" class=num" if i in right else ""}>{esc(h)}</th>'
                   for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i in right else ""}>{esc(c)}</td>'
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return (f'<table{f" class={cls}" if cls else ""}><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def facts(rows: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of names and values."""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f"<table class=facts><tbody>{body}</tbody></table>"


def generic(value: Any) -> str:
    """Any JSON value as HTML: lists of objects as tables, objects as definition lists."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        keys = list(dict.fromkeys(k for v in value for k in v))
        return table(keys, [[_plain(v.get(k)) for k in keys] for v in value])
    if isinstance(value, dict):
        items = "".join(f"<dt>{esc(k)}</dt><dd>{generic(v)}</dd>" for k, v in value.items())
        return f"<dl>{items}</dl>"
    if isinstance(value, list):
        return esc(", ".join(_plain(v) for v in value)) or "-"
    return esc(_plain(value))


def _plain(v: Any) -> str:
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    return "-" if v is None else str(v)


CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       color: #1d1f23; background: #fff; margin: 0 auto; padding: 1.5em 2em 4em;
       max-width: 1860px; }
p, figcaption, pre { max-width: 60em; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
h2 { font-size: 1.3em; margin-top: 2em; padding-bottom: .2em; border-bottom: 2px solid #4C72B0; }
h3 { font-size: 1.08em; margin-top: 1.6em; }
p.sub { color: #555; margin: 0 0 1em; }
table { border-collapse: collapse; margin: .6em 0 1em; font-size: .9em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: left;
         vertical-align: top; }
th { background: #f0f2f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.facts th { background: none; width: 12em; color: #555; font-weight: normal; }
tr.refused td { background: #fdecea; }
nav { background: #f6f7f9; padding: .6em 1em; border-radius: 4px; font-size: .92em; }
nav a { margin-right: 1.1em; white-space: nowrap; }
/* charts at their own size (small type stays legible): two a row on a wide screen */
.charts { display: flex; flex-wrap: wrap; gap: .4em 2.5em; }
figure { margin: .6em 0 1.2em; flex: 0 1 900px; max-width: 100%; break-inside: avoid; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #e3e3e3; }
figcaption { font-size: .88em; color: #333; margin-top: .3em; }
.note { color: #555; font-size: .92em; }
.bad { color: #b3261e; font-weight: 600; }
.good { color: #1b7f3b; font-weight: 600; }
dl { margin: .4em 0; } dt { font-weight: 600; } dd { margin: 0 0 .4em 1.2em; }
pre { background: #f6f7f9; padding: .6em; white-space: pre-wrap; }
@media print { nav { display: none; } h2 { break-after: avoid; } }
"""


# -- the report ---------------------------------------------------------------------------------

class _Builder:
    """Writes one report: CSV files, charts, then the page that names them all."""

    def __init__(self, rec: dict[str, Any], members: list[dict[str, Any]],
                 guests: list[dict[str, Any]], events: list[dict[str, Any]], out: Path,
                 db: Path) -> None:
        self.rec = rec
        self.s: dict[str, Any] = rec["summary"] if isinstance(rec["summary"], dict) else {}
        self.members = members
        self.guests = guests
        self.events = events
        self.out = out
        self.db = db
        self.end_s = float(rec.get("sim_end_s") or self.s.get("t_s") or 0.0)
        self.report = Report(out / REPORT_FILE)
        self.figures = 0
        self._names: set[str] = set()

    def write(self) -> Report:
        data = self.write_data()
        # what a reader came for first: the score, the moves; then the storage behind them
        sections = [self.objectives(), self.relocation_section(), self.migration_section(),
                    self.pausing_section(), self.member_section(), self.guest_section(),
                    self.other_section(), self.command_section(), self.event_section(),
                    self.data_section(data)]
        page = self.page([s for s in sections if s is not None])
        tmp = self.report.path.with_name(REPORT_FILE + ".tmp")
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, self.report.path)
        return self.report

    # -- files ----------------------------------------------------------------------------------
    def _file(self, stem: str, suffix: str) -> str:
        name = f"{_slug(stem)}{suffix}"
        n = 2
        while name in self._names:  # two names that clean to the same file name
            name = f"{_slug(stem)}-{n}{suffix}"
            n += 1
        self._names.add(name)
        return name

    def _csv(self, name: str, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
        """Write one data file of the report; text cells are made spreadsheet-safe."""
        path = self.out / name
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(header)
            # names, messages and commands come from files: no formulas, no raw controls
            w.writerows(csv_row(r) for r in rows)
        self.report.data.append(path)
        return path

    def write_data(self) -> list[tuple[Path, str, int]]:
        """The CSV files (and the summary as JSON); (path, what, rows) of each."""
        out = []
        out.append((self._csv("members.csv", RunStore.MEMBER_COLUMNS,
                              ([r[c] for c in RunStore.MEMBER_COLUMNS] for r in self.members)),
                    "member samples: storage in use (pages) and paging rates (pages per s)",
                    len(self.members)))
        out.append((self._csv("guests.csv", RunStore.GUEST_COLUMNS,
                              ([r[c] for c in RunStore.GUEST_COLUMNS] for r in self.guests)),
                    ("guest samples: member, state, pages in central, XSTOR and on DASD, "
                     "throughput"), len(self.guests)))
        out.append((self._csv("events.csv", EVENT_COLUMNS,
                              ([*(e[c] for c in EVENT_COLUMNS[:-1]),
                                json.dumps(e["data"], sort_keys=True)] for e in self.events)),
                    "events, in order, with their data as JSON", len(self.events)))
        passes = list(self.pass_rows())
        out.append((self._csv("passes.csv", PASS_COLUMNS, passes),
                    ("every pass of every relocation and migration (move numbers as in this "
                     "report)"), len(passes)))
        path = self.out / "summary.json"
        path.write_text(json.dumps(self.s, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        self.report.data.append(path)
        out.append((path, "the run's summary, as ssisim run --json writes it", 1))
        return out

    def pass_rows(self) -> Iterable[list[Any]]:
        for i, r in enumerate(self.s.get("relocations") or [], 1):
            for p in r.get("pass_list") or []:
                yield [f"R{i}", "lgr", r.get("guest"), r.get("source"), r.get("destination"),
                       p.get("pass"), p.get("kind"), "pages", p.get("pages"), p.get("start_s"),
                       p.get("seconds"), p.get("throttle_s")]
        for i, m in enumerate(self.s.get("migrations") or [], 1):
            unit = m.get("unit", "pages")
            for p in m.get("pass_list") or []:
                yield [f"M{i}", m.get("kind"), m.get("guest"), m.get("source"),
                       m.get("destination"), p.get("pass"), p.get("kind"), unit, p.get(unit),
                       p.get("start_s"), p.get("seconds"), p.get("throttle_s")]

    def chart(self, draw: Callable[[Path], Any], stem: str, title: str, caption: str) -> str:
        """Draw one chart into the folder and return its figure's HTML."""
        name = self._file(stem, ".png")
        draw(self.out / name)
        self.report.charts.append(self.out / name)
        self.figures += 1
        return (f'<figure id="{esc(name)}"><img src="{esc(quote(name))}" alt="{esc(title)}">'
                f"<figcaption><b>Figure {self.figures}. {esc(title)}.</b> {esc(caption)}"
                "</figcaption></figure>")

    # -- the page -------------------------------------------------------------------------------
    def page(self, sections: list[tuple[str, str, str]]) -> str:
        rec, s = self.rec, self.s
        name = s.get("scenario") or rec.get("scenario_name") or "(unnamed scenario)"
        description = self.description()
        sha = rec.get("scenario_hash") or s.get("scenario_hash") or "-"
        rows = [
            ("Scenario", name),
            *([("Description", description)] if description else []),
            ("Scenario file", f"{rec.get('scenario_path') or '-'} (sha256 {sha[:16]})"),
            ("Seed", rec.get("seed", s.get("seed"))),
            ("Program", f"ssisim {rec.get('program_version') or s.get('version') or '?'}"),
            ("Ran", f"{rec.get('started_at') or '?'} to {rec.get('finished_at') or '?'}"),
            ("Simulated", _duration(self.end_s)),
            ("Stored", f"run {rec['id']} in {self.db}"),
        ]
        nav = " ".join(f'<a href="#{esc(sid)}">{esc(title)}</a>' for sid, title, _ in sections)
        body = "\n".join(f'<section id="{esc(sid)}">\n<h2>{esc(title)}</h2>\n{content}\n</section>'
                         for sid, title, content in sections)
        return (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(name)} - ssisim run {esc(rec['id'])}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n"
            f"<header>\n<h1>{esc(name)}</h1>\n"
            f"<p class=sub>ssisim run report, run {esc(rec['id'])}</p>\n"
            + facts(rows)
            + f"\n<nav>{nav}</nav>\n</header>\n{body}\n"
            f"<footer><p class=note>Written by ssisim {esc(rec.get('program_version') or '')}"
            f" from run {esc(rec['id'])}; charts are PNG files and the data CSV files in this "
            "folder.</p></footer>\n</body>\n</html>\n")

    def description(self) -> str:
        """The scenario's description, if its file is still there unchanged."""
        path = self.rec.get("scenario_path")
        if not path or not Path(path).is_file():
            return ""
        try:
            sc = load_scenario(path)
        except (ScenarioError, OSError, ValueError):
            return ""
        return sc.description if sc.source_hash == self.rec.get("scenario_hash") else ""

    def spans_of(self, member: str | None = None, guest: str | None = None
                 ) -> list[tuple[float, float, str]]:
        """Relocations and migrations touching a member or a guest, as shaded spans."""
        spans = []
        for r in [*(self.s.get("relocations") or []), *(self.s.get("migrations") or [])]:
            if member is not None and member not in (r.get("source"), r.get("destination")):
                continue
            if guest is not None and r.get("guest") != guest:
                continue
            start = float(r.get("start_s") or 0.0)
            end = start + self._move_s(r)
            if guest is not None:
                label = f"to {r.get('destination')}"
            else:
                label = f"{r.get('guest')} {'out' if r.get('source') == member else 'in'}"
            spans.append((start, end, label))
        return spans

    def _move_s(self, r: dict[str, Any]) -> float:
        """How long a move took, or has run so far when the run ended before it did."""
        total = float(r.get("relocation_s") or 0.0)
        if self._unfinished(r):
            total = max(total, self.end_s - float(r.get("start_s") or 0.0))
        return total

    def _one_label_apart(self, phases: list[tuple[float, str]]) -> list[tuple[float, str]]:
        """Moments too close to label apart on a chart, joined under one label."""
        out: list[tuple[float, str]] = []
        for t, label in sorted(phases):
            if out and t - out[-1][0] < 0.03 * max(self.end_s, 1.0):
                out[-1] = (out[-1][0], f"{out[-1][1]}, {label}")
            else:
                out.append((t, label))
        return out

    def _open_throttles(self, guest: str, t0: float) -> list[dict[str, Any]]:
        """Throttles of a guest started at or after ``t0`` and not ended by the end of the run,
        as the THROTTLE_END events they would have had then."""
        open_: dict[tuple[str, str], float] = {}
        for e in self.events:
            if e["userid"] != guest or e["t_s"] < t0 - 1e-6:
                continue
            key = (e["data"].get("side", "?"), e["data"].get("reason", "?"))
            if e["kind"] == "THROTTLE_START":
                open_[key] = e["t_s"]
            elif e["kind"] == "THROTTLE_END":
                open_.pop(key, None)
        return [{"kind": "THROTTLE_END", "t_s": self.end_s, "userid": guest,
                 "data": {"side": side, "reason": reason, "start_s": start}}
                for (side, reason), start in open_.items()]

    @staticmethod
    def _unfinished(r: dict[str, Any]) -> bool:
        if "ended" in r:
            return not r["ended"]
        # runs stored before moves said whether they had ended
        return r.get("result") in ("moving", "quiesced", "pass", "running", "active") \
            or (not r.get("message") and not r.get("relocation_s"))

    # -- sections: (id, title, html) ------------------------------------------------------------
    def objectives(self) -> tuple[str, str, str] | None:
        d = self.s.get("objectives")
        if d is None:
            return None
        if not isinstance(d, dict) or not isinstance(d.get("objectives"), list):
            return ("objectives", "Objectives", generic(d))
        parts = []
        les = d.get("lesson")
        if isinstance(les, dict):
            parts.append(f"<p><b>{esc(les.get('title') or les.get('id') or '')}</b>"
                         + (f": {esc(les.get('goal'))}" if les.get("goal") else "") + "</p>")
        if "score" in d:
            passed = d.get("passed")
            verdict = ("passed" if passed else "not passed" if d.get("ended") else "in progress")
            cls = "good" if passed else "bad" if d.get("ended") else "note"
            ended = (f"; ended at {_g(d.get('ended_s'))} s ({d.get('end_reason') or ''})"
                     if d.get("ended") else "")
            parts.append(f"<p>Score {esc(_g(d.get('score')))} of "
                         f"{esc(_g(d.get('max_score')))} (pass at "
                         f"{esc(_g(d.get('pass_score')))}): <span class={cls}>"
                         f"{esc(verdict)}</span>{esc(ended)}</p>")
        rows = []
        for o in d["objectives"]:
            if not isinstance(o, dict):
                continue
            status = o.get("status", "-")
            mark = {"met": "good", "failed": "bad"}.get(status, "note")
            rows.append([Raw(f"<span class={mark}>{esc(status)}</span>"),
                         o.get("text") or o.get("kind") or "-",
                         f"{_g(o.get('earned'))} / {_g(o.get('points'))}", o.get("detail", "")])
        parts.append(table(["status", "objective", "points", "detail"], rows))
        if d.get("lost"):
            parts.append("<h3>Points lost</h3>" + table(
                ["points", "reason"], [[_g(x.get("points")), x.get("reason", "")]
                                       for x in d["lost"] if isinstance(x, dict)], numeric=[0]))
        if d.get("decisive_events"):
            parts.append("<h3>What decided it</h3>" + table(
                ["t (s)", "event"], [[_num(e.get("t_s"), 1), e.get("text", "")]
                                     for e in d["decisive_events"] if isinstance(e, dict)],
                numeric=[0]))
        if d.get("text"):
            parts.append(f"<pre>{esc(str(d['text']).strip())}</pre>")
        return ("objectives", "Objectives", "\n".join(parts))

    def member_section(self) -> tuple[str, str, str] | None:
        ms = self.s.get("members") or []
        names = sorted({r["member"] for r in self.members} | {m.get("name") for m in ms
                                                             if m.get("name")})
        if not names:
            return None
        rows = []
        for m in ms:
            c, x, p = m.get("central", {}), m.get("xstor", {}), m.get("paging", {})
            r = m.get("rates_per_s", {})
            rows.append([m.get("name"), _gb(c.get("frames")), _num(c.get("peak_pct"), 1),
                         _num(c.get("final_pct"), 1),
                         _gb(x.get("blocks")) if x.get("blocks") else "none",
                         _num(x.get("peak_pct"), 1) if x.get("blocks") else "-",
                         _gb(p.get("slots")) if p.get("slots") else "none",
                         _num(p.get("peak_pct"), 1) if p.get("slots") else "-",
                         f"{_num(r.get('page_in'))} ({_num(r.get('page_in_peak'))})",
                         f"{_num(r.get('page_out'))} ({_num(r.get('page_out_peak'))})"])
        parts = [table(["member", "central GB", "peak %", "final %", "XSTOR GB", "peak %",
                        "paging GB", "peak %", "page-ins/s mean (peak)",
                        "page-outs/s mean (peak)"], rows, numeric=range(1, 10))]
        vols = [[m.get("name"), v.get("volid"), _gb(v.get("slots")), _gb(v.get("used")),
                 _num(100 * v["used"] / v["slots"], 1) if v.get("slots") else "-"]
                for m in ms for v in (m.get("paging", {}).get("volumes") or [])]
        if vols:
            parts.append("<h3>Paging volumes at the end</h3>" + table(
                ["member", "volume", "size GB", "used GB", "used %"], vols, numeric=[2, 3, 4]))
        by_name = {m.get("name"): m for m in ms}
        figs = []
        for name in names:
            m = by_name.get(name, {})
            cap = {"central": m.get("central", {}).get("frames", 0),
                   "xstor": m.get("xstor", {}).get("blocks", 0),
                   "paging": m.get("paging", {}).get("slots", 0)}
            if not cap["central"]:  # no summary for it: scale by what was seen
                cap["central"] = max((r["central_used"] + r["free_frames"]
                                      for r in self.members if r["member"] == name), default=0)
            spans = self.spans_of(member=name)
            moved = (" Shaded: relocations and migrations to or from " + name + "."
                     if spans else "")
            caps = ", ".join(f"{label} {cap[k] / PAGES_PER_GB:,.1f} GB" for k, label in
                             (("central", "central"), ("xstor", "XSTOR"),
                              ("paging", "paging space")) if cap[k])
            peak = {k: m.get(k, {}).get("peak_pct") for k in ("central", "xstor", "paging")}
            figs.append(self.chart(
                partial(charts.member_tiers, self.members, name, cap, spans=spans),
                f"member-{name}-storage", f"{name}: storage in use",
                f"Central storage, XSTOR and paging space in use on {name}, each as a percentage "
                f"of its capacity ({caps}). Peaks: central {_num(peak['central'], 1)} %"
                + (f", XSTOR {_num(peak['xstor'], 1)} %" if cap["xstor"] else "")
                + (f", paging {_num(peak['paging'], 1)} %" if cap["paging"] else "")
                + "." + moved))
            r = m.get("rates_per_s", {})
            figs.append(self.chart(
                partial(charts.member_paging, self.members, name, spans=spans),
                f"member-{name}-paging", f"{name}: paging rates",
                f"Pages per second read in from XSTOR and DASD (top) and written out to XSTOR "
                f"and DASD (bottom) on {name}, with XSTOR-to-DASD migration as a line. Mean "
                f"page-ins {_num(r.get('page_in'))}/s, page-outs {_num(r.get('page_out'))}/s."
                + moved))
        parts.append('<div class="charts">' + "".join(figs) + "</div>")
        return ("members", "Members", "\n".join(parts))

    def guest_section(self) -> tuple[str, str, str] | None:
        gs = self.s.get("guests") or []
        userids = list(dict.fromkeys([g.get("userid") for g in gs if g.get("userid")]
                                     + sorted({r["userid"] for r in self.guests})))
        if not userids:
            return None
        rows = []
        for g in gs:
            pg = g.get("pages", {})
            first = " ".join(f"{k}@{v:,.0f}s" for k, v in (g.get("first_pageout_s") or {}).items())
            tp = g.get("throughput", {})
            rows.append([g.get("userid"), g.get("member") or "-", g.get("state"),
                         _num(g.get("storage_gb"), 2), g.get("workload", ""),
                         _gb(pg.get("central")), _gb(pg.get("xstor")), _gb(pg.get("dasd")),
                         first or "-", _num(g.get("paged_out")), _num(g.get("paged_in")),
                         f"{_num(tp.get('mean'), 1)} {tp.get('unit', '')}"])
        parts = [table(["guest", "member", "state", "storage GB", "workload", "central GB",
                        "XSTOR GB", "DASD GB", "first page-out", "pages out", "pages in",
                        "throughput (mean)"], rows, numeric=[3, 5, 6, 7, 9, 10, 11]),
                 ("<p class=note>Pages at the end of the run; first page-out: where a guest's "
                  "pages first went, and when.</p>")]
        by_uid: dict[str, list[dict[str, Any]]] = {}
        for r in self.guests:
            by_uid.setdefault(r["userid"], []).append(r)
        storage = {g.get("userid"): g.get("storage_gb") or 0 for g in gs}
        phases_of: dict[str, list[tuple[float, str]]] = {}
        for e in self.events:
            if e["kind"] in PAUSE_EVENTS and e["userid"]:
                phases_of.setdefault(e["userid"], []).append(
                    (e["t_s"], e["kind"].lower().replace("_", " ")))
        figs = []
        for uid in userids:
            rows_u = by_uid.get(uid, [])
            if not rows_u:
                figs.append(f"<p class=note>{esc(uid)}: no samples (never logged on).</p>")
                continue
            where = list(dict.fromkeys(r["member"] for r in rows_u if r["member"]))
            label = "on " + ", then ".join(where) if where else "logged off"
            unit = "GB" if max(storage.get(uid) or 0,
                               max(r["central"] + r["xstor"] + r["dasd"] for r in rows_u)
                               / PAGES_PER_GB) >= 2 else "MB"
            spans = self.spans_of(guest=uid)
            phases = phases_of.get(uid, [])
            notes = (" Shaded: its relocations and migrations." if spans else "") + \
                (" Dotted lines: " + ", ".join(f"{p} at {t:,.0f} s" for t, p in phases) + "."
                 if phases else "")
            figs.append(self.chart(
                partial(charts.pages_by_location, {label: rows_u}, [uid],
                        phases=self._one_label_apart(phases),
                        unit=unit, spans=spans),
                f"guest-{uid}-pages", f"{uid}: pages by location",
                f"Where {uid}'s pages were over time ({unit}, stacked): central storage, XSTOR "
                f"or DASD; {label}." + notes))
        parts.append('<div class="charts">' + "".join(figs) + "</div>")
        return ("guests", "Guests", "\n".join(parts))

    def relocation_section(self) -> tuple[str, str, str] | None:
        rels = self.s.get("relocations")
        if rels is None:
            return None
        if not rels:
            return ("relocations", "Relocations", "<p>No guest was relocated in this run.</p>")
        rows = [[f"R{i}", r.get("guest"), f"{r.get('source')} to {r.get('destination')}",
                 r.get("options", ""), r.get("result"), _num(r.get("passes")),
                 _num(r.get("pages_moved")), _num(r.get("quiesce_s"), 2),
                 (">" if self._unfinished(r) else "") + _num(self._move_s(r), 2),
                 _num(r.get("cpu_s"), 2)]
                for i, r in enumerate(rels, 1)]
        parts = [table(["move", "guest", "from, to", "options", "result", "passes",
                        "pages moved", "quiesce s", "total s", "CPU s"], rows,
                       numeric=range(5, 10))]
        for i, r in enumerate(rels, 1):
            guest, dest = r.get("guest", "?"), r.get("destination", "?")
            parts.append(f'<h3 id="R{i}">R{i}: {esc(guest)} from {esc(r.get("source"))} to '
                         f"{esc(dest)}</h3>")
            unfinished = self._unfinished(r)
            info = [("Command options", r.get("options") or "-"),
                     ("Result", (r.get("result") or "-") + (
                         " (still under way when the run ended)" if unfinished else "")),
                     *([("Message", r["message"])] if r.get("message") else []),
                     ("Started", f"t = {_num(r.get('start_s'), 1)} s"),
                     ("Relocation time", ("more than " if unfinished else "")
                      + f"{_num(self._move_s(r), 2)} s"),
                     ("Quiesce time", f"{_num(r.get('quiesce_s'), 2)} s"),
                     ("Pages moved", _num(r.get("pages_moved")))]
            throttles = {k: v for k, v in (r.get("throttle_s") or {}).items() if v >= 0.05}
            if throttles:
                longest = sorted(throttles.items(), key=lambda kv: -kv[1])
                info.append(("Throttled", ", ".join(f"{k} {v:,.1f} s" for k, v in longest)))
            parts.append(facts(info))
            pl = r.get("pass_list") or []
            if not pl:
                parts.append("<p class=note>No memory-move pass ran.</p>")
                continue
            parts.append(table(["pass", "kind", "pages", "MB", "start s", "seconds", "throttled s"],
                               [[p.get("pass"), p.get("kind"), _num(p.get("pages")),
                                 _num((p.get("pages") or 0) / 256, 1), _num(p.get("start_s"), 2),
                                 _num(p.get("seconds"), 3), _num(p.get("throttle_s"), 3)]
                                for p in pl], numeric=[2, 3, 4, 5, 6]))
            shown = {**r, "relocation_s": self._move_s(r)}
            t0 = float(r.get("start_s") or 0.0)
            t1 = t0 + shown["relocation_s"]
            evs = [e for e in self.events if e["userid"] == guest and e["kind"] == "THROTTLE_END"
                   and t0 - 1e-6 <= float(e["data"].get("start_s", t0)) <= t1 + 1e-6]
            if unfinished:  # what was still under way ran until the end of the run
                last = pl[-1]
                shown["pass_list"] = [*pl[:-1], {**last, "seconds": max(
                    float(last.get("seconds") or 0.0), self.end_s - float(last["start_s"]))}]
                evs += self._open_throttles(guest, t0)
            quiesced = [p for p in pl if p.get("kind") in ("penultimate", "final")]
            figs = [self.chart(
                partial(charts.pages_per_pass, shown), f"relocation-{i}-passes",
                f"R{i} {guest}: pages per pass",
                f"Pages sent in each memory-move pass of {guest} to {dest}, coloured by kind; the "
                f"label over each bar is how long the pass took. "
                + ("The penultimate and final passes ran with the guest quiesced "
                   f"({_num(r.get('quiesce_s'), 2)} s)." if quiesced else "")),
                self.chart(
                partial(charts.throttle_timeline, shown, evs),
                f"relocation-{i}-throttles", f"R{i} {guest}: throttle timeline",
                "When each throttle held the relocation back, one row per side and reason, "
                "under the passes; time runs from the VMRELOCATE command, the shaded band is "
                "the quiesce. "
                + (f"{len(evs)} throttle periods." if evs else "No throttle held it back."))]
            parts.append('<div class="charts">' + "".join(figs) + "</div>")
        return ("relocations", "Relocations", "\n".join(parts))

    def migration_section(self) -> tuple[str, str, str] | None:
        migs = self.s.get("migrations")
        if not migs:
            return None
        names = {"vmotion": "Storage vMotion", "lpm": "PowerVM LPM"}
        rows = []
        for i, m in enumerate(migs, 1):
            unit = m.get("unit", "pages")
            rows.append([f"M{i}", names.get(m.get("kind"), m.get("kind")), m.get("guest"),
                         f"{m.get('source')} to {m.get('destination')}", m.get("options", ""),
                         m.get("result"), _num(m.get("passes")),
                         f"{_num(m.get(f'{unit}_moved'))} {unit}", _num(m.get("quiesce_s"), 3),
                         _num(m.get("relocation_s"), 1)])
        parts = [table(["move", "method", "guest", "from, to", "options", "result", "passes",
                        "moved", "downtime s", "total s"], rows, numeric=[6, 7, 8, 9]),
                 ("<p class=note>Storage vMotion and LPM moves, for comparison with LGR; the "
                  "downtime is the time the guest was stopped.</p>")]
        for i, m in enumerate(migs, 1):
            unit = m.get("unit", "pages")
            parts.append(f'<h3 id="M{i}">M{i}: {esc(m.get("guest"))} '
                         f"({esc(names.get(m.get('kind'), m.get('kind')))}, "
                         f"{esc(m.get('options'))})</h3>")
            if m.get("message"):
                parts.append(f"<p>{esc(m['message'])}</p>")
            if m.get("cost"):
                parts.append("<p class=note>Cost: " + esc(", ".join(
                    f"{k} {v:g}" if isinstance(v, int | float) else f"{k} {v}"
                    for k, v in m["cost"].items())) + "</p>")
            pl = m.get("pass_list") or []
            if pl:
                parts.append(table(["pass", "kind", unit, "deferred", "start s", "seconds"],
                                   [[p.get("pass"), p.get("kind"), _num(p.get(unit)),
                                     _num(p.get("deferred")), _num(p.get("start_s"), 2),
                                     _num(p.get("seconds"), 3)] for p in pl],
                                   numeric=[2, 3, 4, 5]))
        return ("migrations", "Migrations (Storage vMotion, LPM)", "\n".join(parts))

    def pausing_section(self) -> tuple[str, str, str] | None:
        evs = [e for e in self.events if e["kind"] in PAUSE_EVENTS]
        pauses = self.s.get("pauses")
        if not evs and not pauses:
            return None
        parts = []
        if pauses:
            parts.append(generic(pauses))
        if evs:
            parts.append(table(["t (s)", "guest", "member", "event", "seconds", "what happened"],
                               [[_num(e["t_s"], 1), e["userid"], e["member"], e["kind"],
                                 _num(e["data"].get("seconds", e["data"].get("serving_s")), 1)
                                 if isinstance(e["data"], dict) else "-", e["message"]]
                                for e in evs], numeric=[0, 4]))
            parts.append("<p class=note>Linux suspend and resume, CP STOP and BEGIN, logoff and "
                         "the storage reset after it. Seconds: how long the step took (halted, "
                         "answering again, storage reset).</p>")
        return ("pausing", "Pausing", "\n".join(parts))

    def other_section(self) -> tuple[str, str, str] | None:
        extra = {k: v for k, v in self.s.items() if k not in KNOWN_KEYS and k != "pauses"}
        if not extra:
            return None
        return ("other", "Other results", "".join(f"<h3>{esc(k)}</h3>{generic(v)}"
                                                  for k, v in sorted(extra.items())))

    def command_section(self) -> tuple[str, str, str] | None:
        cmds = self.s.get("commands")
        if not cmds:
            return None
        refused = sum(1 for c in cmds if c.get("rc"))
        rows = "".join(
            f'<tr{" class=refused" if c.get("rc") else ""}>'
            f"<td class=num>{esc(_num(c.get('t_s'), 1))}</td>"
            f"<td><code>{esc(c.get('command'))}</code></td><td class=num>{esc(c.get('rc'))}</td>"
            f"<td>{esc(c.get('line') or '-')}</td>"
            f"<td>{esc(' '.join(c.get('response') or []))}</td></tr>" for c in cmds)
        return ("commands", "Commands", (
            f"<p>{len(cmds)} commands ran; {refused} refused by CP (highlighted, with CP's "
            "answer).</p><table><thead><tr><th class=num>t (s)</th><th>command</th>"
            "<th class=num>rc</th><th>scenario line</th><th>response</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"))

    def event_section(self) -> tuple[str, str, str] | None:
        counts = self.s.get("events") or dict(Counter(e["kind"] for e in self.events))
        if not counts:
            return None
        parts = [table(["event", "count"], sorted(counts.items()), numeric=[1])]
        notable = [e for e in self.events if NOTABLE.search(e["kind"])]
        if notable:
            parts.append("<h3>Warnings and cancellations</h3>" + table(
                ["t (s)", "event", "guest", "member", "message"],
                [[_num(e["t_s"], 1), e["kind"], e["userid"], e["member"], e["message"]]
                 for e in notable], numeric=[0]))
        parts.append('<p class=note>Every event, with its data: <a href="events.csv">'
                     "events.csv</a>.</p>")
        return ("events", "Events", "\n".join(parts))

    def data_section(self, data: list[tuple[Path, str, int]]) -> tuple[str, str, str]:
        rows = [[Raw(f'<a href="{esc(quote(p.name))}">{esc(p.name)}</a>'), what,
                 _num(n) if p.suffix == ".csv" else "-"] for p, what, n in data]
        return ("data", "Data files", table(["file", "what", "rows"], rows, numeric=[2])
                + "<p class=note>Times in simulated seconds; storage in 4 KB pages; rates in "
                  "pages per second.</p>")


# -- the report of a sweep --------------------------------------------------------------------

class _SweepBuilder:
    """Writes one sweep's report: the table as CSV, every point as CSV, charts, the page."""

    def __init__(self, rec: dict[str, Any], points: list[dict[str, Any]], out: Path,
                 db: Path) -> None:
        self.rec = rec
        self.points = points
        self.out = out
        self.db = db
        self.paths = [p for p, _ in rec["varies"]]
        self.measures: list[str] = list(rec["measures"])
        self.rows = sweep_table([SweepPoint(p["values"], p["seed"], "") for p in points],
                                [p["measures"] for p in points], self.measures)
        self.report = Report(out / REPORT_FILE)

    def write(self) -> Report:
        cols = list(self.rows[0]) if self.rows else []
        table_csv = self._csv("sweep.csv", cols, ([r[c] for c in cols] for r in self.rows))
        point_cols = ["seq", *self.paths, "seed", *self.measures, "run_id"]
        values = [dict(p["values"]) for p in self.points]
        points_csv = self._csv("points.csv", point_cols, (
            [p["seq"], *(v.get(c) for c in self.paths), p["seed"],
             *(p["measures"].get(m) for m in self.measures), p["run_id"]]
            for p, v in zip(self.points, values)))
        figures = self.charts()
        page = self.page(cols, figures, [(table_csv, "the table: mean, min and max of each "
                                          "measure over the seeds, a row per combination",
                                          len(self.rows)),
                                         (points_csv, "every run: its varied values, seed and "
                                          "measures", len(self.points))])
        tmp = self.report.path.with_name(REPORT_FILE + ".tmp")
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, self.report.path)
        return self.report

    def _csv(self, name: str, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
        path = self.out / name
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(csv_row(r) for r in rows)  # values come from files: no formulas
        self.report.data.append(path)
        return path

    def charts(self) -> list[str]:
        """A chart of each measure against the first varied field (none when nothing was
        varied); the figures' HTML."""
        if not self.paths or not self.rows:
            return []
        out, names = [], set()
        for i, m in enumerate(self.measures, 1):
            name = f"sweep-{_slug(m)}.png"
            while name in names:  # two measures that clean to the same file name
                name = name.removesuffix(".png") + "-2.png"
            names.add(name)
            charts.sweep_measure(self.rows, self.paths, m, self.out / name,
                                 f"{self.rec['scenario_name'][:60]}: {m}")
            self.report.charts.append(self.out / name)
            what = SWEEP_MEASURES[m][0] if m in SWEEP_MEASURES else \
                "the guest's mean throughput, in its workload's unit"
            others = (" One line for each combination of " + ", ".join(self.paths[1:]) + "."
                      if len(self.paths) > 1 else "")
            out.append(f'<figure id="{esc(name)}"><img src="{esc(quote(name))}" '
                       f'alt="{esc(m)}"><figcaption><b>Figure {i}. {esc(m)} against '
                       f"{esc(self.paths[0])}.</b> {esc(what)}: the mean over the seeds, the "
                       f"bar from the lowest to the highest.{esc(others)}</figcaption></figure>")
        return out

    def page(self, cols: list[str], figures: list[str],
             data: list[tuple[Path, str, int]]) -> str:
        rec = self.rec
        name = rec["scenario_name"] or "(unnamed scenario)"
        until = "each point's duration_s" if rec["until_s"] is None else \
            _duration(float(rec["until_s"]))
        rows = [
            ("Scenario", name),
            ("Scenario file", f"{rec['scenario_path'] or '-'} (sha256 "
                              f"{(rec['scenario_hash'] or '-')[:16]})"),
            *((f"Varied: {p}", ", ".join(map(_g, vs))) for p, vs in rec["varies"]),
            ("Seeds per point", rec["seeds"]),
            ("Runs", _num(rec["points"])),
            ("Each run to", until),
            ("Program", f"ssisim {rec['program_version']}"),
            ("Ran", f"{rec['started_at']} to {rec['finished_at']}"),
            ("Stored", f"sweep {rec['id']} in {self.db}"),
        ]
        numeric = [i for i, c in enumerate(cols) if c not in self.paths]
        cells = [[_g(r[c]) if c in self.paths else _num(r[c], 0 if c == "runs" else 3)
                  for c in cols] for r in self.rows]
        sections = [("results", "Results",
                     table(cols, cells, numeric=numeric)
                     + "<p class=note>Each row: the runs of one combination of the varied "
                       "values (one per seed), and the mean, lowest and highest of each "
                       "measure over them; '-' where no run had the measure (no relocation)."
                       "</p>")]
        if figures:
            sections.append(("charts", "Charts",
                             '<div class="charts">' + "\n".join(figures) + "</div>"))
        sections.append(("measures", "Measures", table(
            ["measure", "what"],
            [[m, SWEEP_MEASURES[m][0] if m in SWEEP_MEASURES else
              "the guest's mean throughput, in its workload's unit"] for m in self.measures])))
        drows = [[Raw(f'<a href="{esc(quote(p.name))}">{esc(p.name)}</a>'), what, _num(n)]
                 for p, what, n in data]
        sections.append(("data", "Data files", table(["file", "what", "rows"], drows,
                                                     numeric=[2])))
        nav = " ".join(f'<a href="#{esc(sid)}">{esc(title)}</a>' for sid, title, _ in sections)
        body = "\n".join(f'<section id="{esc(sid)}">\n<h2>{esc(title)}</h2>\n{content}\n'
                         "</section>" for sid, title, content in sections)
        return (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(name)} - ssisim sweep {esc(rec['id'])}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n"
            f"<header>\n<h1>{esc(name)}</h1>\n"
            f"<p class=sub>ssisim sweep report, sweep {esc(rec['id'])}</p>\n"
            + facts(rows)
            + f"\n<nav>{nav}</nav>\n</header>\n{body}\n"
            f"<footer><p class=note>Written by ssisim {esc(rec['program_version'])} from "
            f"sweep {esc(rec['id'])}; charts are PNG files and the data CSV files in this "
            "folder.</p></footer>\n</body>\n</html>\n")

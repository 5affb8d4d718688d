"""Charts as PNG files, drawn headless with matplotlib (Agg): for the docs and for reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from ssisim.engine import PAGES_PER_GB, THROTTLE_STYLE

KIND_COLOURS = {"first": "#4C72B0", "intermediate": "#55A868", "penultimate": "#C44E52",
                "final": "#8172B2"}
# throttle reasons are named and coloured as in the desktop app (the engine's one table)
REASON_COLOURS = {key: colour for key, (_name, colour) in THROTTLE_STYLE.items()}
_ORDER = list(THROTTLE_STYLE)


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _subplots(*args: Any, figsize: tuple[float, float], **kw: Any) -> tuple[Figure, Any]:
    """A figure and its axes, as ``pyplot.subplots`` gives them, without pyplot: a ``Figure``
    of its own (no global state), so charts can be drawn on any thread (a report exported
    from the window is drawn off the GUI thread)."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(*args, **kw)


def pages_per_pass(reloc: dict[str, Any], path: Path) -> Path:
    """Bars of pages sent per memory-move pass, coloured by pass kind, with each pass's time."""
    passes = reloc["pass_list"]
    fig, ax = _subplots(figsize=(7.5, 3.6))
    xs = [p["pass"] for p in passes]
    ys = [p["pages"] / 1e6 for p in passes]
    bars = ax.bar(xs, ys, color=[KIND_COLOURS[p["kind"]] for p in passes])
    for b, p in zip(bars, passes):
        ax.annotate(f"{p['seconds']:.1f}s", (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center", va="bottom", fontsize=8)
    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLOURS.items()], fontsize=8,
              loc="upper right")
    ax.set_xlabel("pass")
    ax.set_ylabel("pages sent (millions)")
    ax.set_xticks(xs)
    # room above the bars for the legend, and bars of a sensible width when there are few
    ax.set_ylim(0, max(ys, default=0) * 1.3 or 1)
    ax.set_xlim(0.4, max(len(xs), 4) + 0.6)
    n = reloc["passes"]
    ax.set_title(f"{reloc['guest']} {reloc['source']} to {reloc['destination']}: "
                 f"{n} pass{'' if n == 1 else 'es'}, quiesce {reloc['quiesce_s']:.1f} s, "
                 f"total {reloc['relocation_s']:.1f} s", fontsize=9)
    return _save(fig, path)


def throttle_timeline(reloc: dict[str, Any], events: list[dict[str, Any]], path: Path) -> Path:
    """Each throttle as a bar from its start to its end, with the passes and the quiesce above."""
    t0 = reloc["start_s"]
    ends = [e for e in events if e["kind"] == "THROTTLE_END" and e["userid"] == reloc["guest"]]
    # the app's row order, its first row on top
    reasons = sorted({f"{e['data']['side']}:{e['data']['reason']}" for e in ends},
                     key=lambda k: (-_ORDER.index(k) if k in _ORDER else 1, k))
    fig, ax = _subplots(figsize=(8, 1.4 + 0.4 * (len(reasons) + 1)))
    for i, reason in enumerate(reasons):
        spans = [(e["data"]["start_s"] - t0, max(e["t_s"] - e["data"]["start_s"], 0.05))
                 for e in ends if f"{e['data']['side']}:{e['data']['reason']}" == reason]
        ax.broken_barh(spans, (i - 0.35, 0.7), color=REASON_COLOURS.get(reason, "#999999"))
    y = len(reasons)
    for p in reloc["pass_list"]:
        ax.broken_barh([(p["start_s"] - t0, p["seconds"])], (y - 0.35, 0.7),
                       color=KIND_COLOURS[p["kind"]], edgecolor="white")
    if reloc["quiesce_s"]:
        q0 = reloc["relocation_s"] - reloc["quiesce_s"]
        ax.axvspan(q0, reloc["relocation_s"], color="#C44E52", alpha=0.12, label="quiesced")
        ax.legend(fontsize=8, loc="upper left")
    ax.set_yticks(range(len(reasons) + 1),
                  [THROTTLE_STYLE.get(r, (r, ""))[0] for r in reasons] + ["passes"], fontsize=8)
    ax.set_xlabel("seconds since VMRELOCATE")
    ax.set_xlim(0, max(reloc["relocation_s"], 1) * 1.02)
    ax.set_title(f"Throttles while {reloc['guest']} moves to {reloc['destination']}", fontsize=9)
    return _save(fig, path)


def member_storage(samples: list[dict[str, Any]], frames: dict[str, int], path: Path,
                   start_s: float | None = None) -> Path:
    """Per member: central storage in use (%) and page-out rate over time."""
    members = sorted({s["member"] for s in samples})
    fig, axes = _subplots(2, 1, figsize=(8, 4.6), sharex=True)
    for m in members:
        rows = [s for s in samples if s["member"] == m]
        t = [s["t_s"] for s in rows]
        axes[0].plot(t, [100 * s["central_used"] / max(1, frames[m]) for s in rows], label=m)
        axes[1].plot(t, [s["page_out_s"] for s in rows], label=m)
    if start_s is not None:
        for ax in axes:
            ax.axvline(start_s, color="#555555", linestyle=":", linewidth=1)
    axes[0].set_ylabel("central in use (%)")
    axes[1].set_ylabel("page-outs per s")
    axes[1].set_xlabel("simulated seconds")
    axes[0].legend(fontsize=8)
    return _save(fig, path)


TIER_COLOURS = {"central": "#4C72B0", "xstor": "#DD8452", "paging": "#C44E52"}


def _shade_spans(ax: Any, spans: list[tuple[float, float, str]] | None, label: bool) -> None:
    """Grey bands over a time axis for moves (start_s, end_s, label), labelled at the top.

    Overlapping moves make one band, labelled with their number: 25 ASYNC relocations would
    otherwise stack to a dark block under a pile of labels.
    """
    bands: list[tuple[float, float, list[str]]] = []
    for start, end, text in sorted(spans or []):
        end = max(end, start + 0.5)
        if bands and start <= bands[-1][1]:
            bands[-1] = (bands[-1][0], max(bands[-1][1], end), [*bands[-1][2], text])
        else:
            bands.append((start, end, [text]))
    x0, x1 = ax.get_xlim()
    placed: list[float] = []  # label positions so far, to step close ones down
    for start, end, texts in bands:
        text = texts[0] if len(texts) == 1 else f"{len(texts)} moves"
        ax.axvspan(start, end, color="#777777", alpha=0.13, linewidth=0)
        # edges stay visible over stacked areas, where the band alone hardly shows
        for x in (start, end):
            ax.axvline(x, color="#444444", linestyle="--", linewidth=0.8)
        if label and text:
            near = [x for x in placed if start - x < 0.12 * (x1 - x0)]
            placed.append(start)
            ax.annotate(text, (start, 1), xycoords=("data", "axes fraction"),
                        xytext=(3, -3 - 10 * (len(near) % 6)), textcoords="offset points",
                        fontsize=7, va="top", color="#222222",
                        bbox={"boxstyle": "square,pad=0.15", "fc": "white", "ec": "none",
                              "alpha": 0.8})


def _thousands(ax: Any) -> None:
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}"))


def member_tiers(samples: list[dict[str, Any]], member: str, capacity: dict[str, int],
                 path: Path, spans: list[tuple[float, float, str]] | None = None) -> Path:
    """One member's storage tiers over time, each in use as a percentage of its capacity.

    Parameters
    ----------
    samples : list of dict
        Member samples (the run store's ``MEMBER_COLUMNS``); other members' rows are ignored.
    member : str
        The member to draw.
    capacity : dict
        Pages of each tier: ``central`` (frames), ``xstor`` (blocks), ``paging`` (slots). A tier
        of capacity 0 is not configured and is left out.
    path : Path
        The PNG to write.
    spans : list of (start_s, end_s, label), optional
        Moves to shade (relocations to or from the member).
    """
    rows = [s for s in samples if s["member"] == member]
    t = [s["t_s"] for s in rows]
    fig, ax = _subplots(figsize=(8, 3.4))
    for tier, col, name in (("central", "central_used", "central"),
                            ("xstor", "xstor_used", "XSTOR"),
                            ("paging", "slots_used", "paging space")):
        cap = capacity.get(tier, 0)
        if cap <= 0:
            continue
        ax.plot(t, [100 * s[col] / cap for s in rows], color=TIER_COLOURS[tier],
                label=f"{name} ({gb(cap):,.1f} GB)")
    _shade_spans(ax, spans, label=True)
    ax.set_ylim(0, 105)
    ax.set_ylabel("in use (% of capacity)")
    ax.set_xlabel("simulated seconds")
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"{member}: storage in use", fontsize=9)
    return _save(fig, path)


def member_paging(samples: list[dict[str, Any]], member: str, path: Path,
                  spans: list[tuple[float, float, str]] | None = None) -> Path:
    """One member's paging rates over time, in pages per second.

    Page-ins from XSTOR and from DASD stacked above, page-outs to XSTOR and to DASD stacked
    below, with XSTOR-to-DASD migration as a line. ``samples`` and ``spans`` as for
    :func:`member_tiers`.
    """
    rows = [s for s in samples if s["member"] == member]
    t = [s["t_s"] for s in rows]
    fig, (up, down) = _subplots(2, 1, figsize=(8, 4.4), sharex=True)
    up.stackplot(t, [s["xstor_in_s"] for s in rows], [s["dasd_in_s"] for s in rows],
                 colors=[TIER_COLOURS["xstor"], TIER_COLOURS["paging"]],
                 labels=["from XSTOR", "from DASD"])
    down.stackplot(t, [s["xstor_out_s"] for s in rows], [s["dasd_out_s"] for s in rows],
                   colors=[TIER_COLOURS["xstor"], TIER_COLOURS["paging"]],
                   labels=["to XSTOR", "to DASD"])
    if any(s["migrate_s"] for s in rows):
        down.plot(t, [s["migrate_s"] for s in rows], color="#333333", linewidth=1,
                  label="XSTOR to DASD (migration)")
    for ax, what, cols in ((up, "page-ins", ("xstor_in_s", "dasd_in_s")),
                           (down, "page-outs", ("xstor_out_s", "dasd_out_s", "migrate_s"))):
        _shade_spans(ax, spans, label=ax is up)
        ax.set_ylabel(f"{what} per s")
        if any(s[c] for s in rows for c in cols):
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:  # a flat zero would get tick labels of 0.00x
            ax.set_ylim(0, 1)
            ax.set_yticks([0])
            ax.annotate(f"no {what}", (0.5, 0.5), xycoords="axes fraction", ha="center",
                        va="center", fontsize=9, color="#555555")
        _thousands(ax)
        ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    down.set_xlabel("simulated seconds")
    up.set_title(f"{member}: paging", fontsize=9)
    return _save(fig, path)


def series_chart(rows: list[dict[str, Any]], xlabel: str, path: Path,
                 published: dict[str, dict[float, float]] | None = None,
                 invert: bool = False) -> Path:
    """Quiesce and relocation time of a validation series, with any published points."""
    fig, ax = _subplots(figsize=(6.5, 3.4))
    for r in rows:
        pts = sorted((float(k), v) for k, v in r["series"].items())
        name = r["measure"].split()[0]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{name} (simulated)")
        for x, y in (published or {}).get(name, {}).items():
            ax.plot([x], [y], marker="*", markersize=12, color="black", linestyle="none")
    if published:
        ax.plot([], [], marker="*", color="black", linestyle="none", label="published")
    if invert:
        ax.invert_xaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8)
    return _save(fig, path)


def gb(pages: int) -> float:
    """Pages as GB."""
    return pages / PAGES_PER_GB


LOCATION_COLOURS = {"central": "#4C72B0", "xstor": "#DD8452", "dasd": "#C44E52"}


def pages_by_location(runs: dict[str, list[dict[str, Any]]], userids: list[str], path: Path,
                      phases: list[tuple[float, str]] | None = None, unit: str = "MB",
                      spans: list[tuple[float, float, str]] | None = None) -> Path:
    """Stacked pages in central, XSTOR and on DASD over time: a row per run, a column per guest.

    ``phases`` are moments marked with a dotted line, ``spans`` (start_s, end_s, label) are
    shaded (a relocation); ``unit`` is ``MB`` or ``GB``.
    """
    names = list(runs)
    per_unit = 256 if unit == "MB" else PAGES_PER_GB
    # a single guest of a single run gets a chart wide enough to read
    fig, axes = _subplots(len(names), len(userids),
                          figsize=(max(4 * len(userids), 7.5), max(2.6 * len(names), 3.2)),
                          sharex=True, squeeze=False)
    for r, name in enumerate(names):
        for c, uid in enumerate(userids):
            ax = axes[r][c]
            rows = [s for s in runs[name] if s["userid"] == uid]
            t = [s["t_s"] for s in rows]
            ys = [[s[k] / per_unit for s in rows] for k in ("central", "xstor", "dasd")]
            ax.stackplot(t, *ys, colors=list(LOCATION_COLOURS.values()),
                         labels=["central", "XSTOR", "DASD"])
            _shade_spans(ax, spans, label=r == 0 and c == 0)
            for x, label in phases or []:
                ax.axvline(x, color="#555555", linestyle=":", linewidth=1)
                if r == 0 and c == 0:
                    ax.annotate(label, (x, 0), xytext=(2, 2), textcoords="offset points",
                                fontsize=7, rotation=90, va="bottom",
                                bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none",
                                      "alpha": 0.6})
            ax.set_title(f"{uid}: {name}", fontsize=9)
            if c == 0:
                ax.set_ylabel(unit)
            if r == len(names) - 1:
                ax.set_xlabel("simulated seconds")
    if len(names) == 1 and len(userids) == 1:  # room for the legend beside the chart
        axes[0][0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        axes[0][0].margins(y=0.1)
    else:
        axes[0][0].legend(fontsize=7, loc="upper right")
    return _save(fig, path)


def scheduling(runs: dict[str, list[dict[str, Any]]], userids: list[str], path: Path) -> Path:
    """How often paused guests were dispatched: interrupts handled per second, by run."""
    fig, ax = _subplots(figsize=(8, 3.2))
    for name, rows in runs.items():
        for uid in userids:
            pts = [(s["t_s"], s["scheduled"]) for s in rows if s["userid"] == uid]
            t = [p[0] for p in pts[1:]]
            rate = [(b[1] - a[1]) / max(b[0] - a[0], 1e-9) for a, b in zip(pts, pts[1:])]
            ax.plot(t, rate, label=f"{uid} ({name})")
    ax.set_ylabel("dispatches for interrupts per s")
    ax.set_xlabel("simulated seconds")
    ax.legend(fontsize=7)
    ax.set_title("Paused guests scheduled by CP: a stopped guest's devices stay active", fontsize=9)
    return _save(fig, path)


def large_guest(runs: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]],
                path: Path) -> Path:
    """Throughput of the 2 TB guest and paging rates, one line per central storage size."""
    fig, axes = _subplots(2, 1, figsize=(8, 5), sharex=True)
    for name, (members, guests) in runs.items():
        g = [s for s in guests if s["userid"] == "LNX2TB"]
        axes[0].plot([s["t_s"] for s in g], [s["throughput"] * 4096 / 2**30 for s in g],
                     label=name)
        axes[1].plot([s["t_s"] for s in members], [s["page_in_s"] * 4096 / 2**30
                                                   for s in members], label=name)
    axes[0].set_ylabel("touched GB/s")
    axes[0].set_yscale("log")
    axes[1].set_ylabel("page-ins GB/s")
    axes[1].set_xlabel("simulated seconds")
    axes[0].legend(fontsize=8)
    axes[0].set_title("2 TB guest, 50 sequential touchers over 2002 GB", fontsize=9)
    return _save(fig, path)


METHOD_COLOURS = {"lgr": "#4C72B0", "lpm": "#55A868", "vmotion": "#DD8452"}


def migration_comparison(moves: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Migration time and downtime of the same guest moved by each method, side by side.

    ``moves`` are relocation or migration records of the JSON summary with a ``label`` and a
    ``kind`` ("lgr", "lpm", "vmotion") added.
    """
    fig, (ax1, ax2) = _subplots(1, 2, figsize=(10, 0.45 * len(moves) + 1.6), sharey=True)
    ys = list(range(len(moves)))[::-1]
    labels = [m["label"] for m in moves]
    colours = [METHOD_COLOURS.get(m["kind"], "#999999") for m in moves]
    total = [m["relocation_s"] for m in moves]
    down = [max(m["quiesce_s"], 1e-3) for m in moves]
    ax1.barh(ys, total, color=colours)
    for y, v in zip(ys, total):
        ax1.annotate(f"{v:.0f} s", (v, y), xytext=(3, 0), textcoords="offset points",
                     va="center", fontsize=8)
    ax1.set_yticks(ys, labels, fontsize=8)
    ax1.set_xlabel("migration time (s)")
    ax1.set_xlim(0, max(total) * 1.2)
    ax2.barh(ys, down, color=colours)
    for y, v in zip(ys, down):
        ax2.annotate(f"{v:.2f} s", (v, y), xytext=(3, 0), textcoords="offset points",
                     va="center", fontsize=8)
    ax2.set_xscale("log")
    ax2.set_xlabel("downtime (s, log scale)")
    ax2.set_xlim(min(down) / 2, max(down) * 4)
    ax2.legend(handles=[Patch(color=c, label={"lgr": "z/VM LGR", "lpm": "PowerVM LPM",
                                              "vmotion": "Storage vMotion"}[k])
                        for k, c in METHOD_COLOURS.items()], fontsize=8, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=9)
    return _save(fig, path)


def sweep_measure(rows: list[dict[str, Any]], paths: list[str], measure: str,
                  path: Path, title: str = "") -> Path:
    """One measure of a sweep against its first varied field: the mean over seeds with the
    min-to-max range, one line for each combination of the other varied fields."""
    fig, ax = _subplots(figsize=(7.5, 3.8))
    x_path, others = paths[0], paths[1:]
    xs = list(dict.fromkeys(r[x_path] for r in rows))
    pos = {x: i for i, x in enumerate(xs)}
    lines: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        lines.setdefault(tuple(r[p] for p in others), []).append(r)
    for key, rs in lines.items():
        pts = [(pos[r[x_path]], r[f"{measure} mean"], r[f"{measure} min"], r[f"{measure} max"])
               for r in rs if r[f"{measure} mean"] is not None]
        if not pts:
            continue
        label = ", ".join(f"{p.split('.')[-1]} {v}" for p, v in zip(others, key)) or measure
        x, mean, lo, hi = zip(*pts)
        ax.errorbar(x, mean, yerr=[[m - a for m, a in zip(mean, lo)],
                                   [b - m for m, b in zip(mean, hi)]],
                    marker="o", capsize=3, label=label)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([str(x) for x in xs])
    ax.set_xlabel(x_path)
    ax.set_ylabel(measure)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if others:
        ax.legend(fontsize=8)
    ax.set_title(title or f"{measure} against {x_path} (mean over seeds, min to max)",
                 fontsize=9)
    return _save(fig, path)

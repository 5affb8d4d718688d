"""What a run produced, as a JSON-ready dict and as text for a person.

The summary holds only simulated quantities (no wall-clock times), so the same scenario and seed
give byte-identical JSON.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..basics.units import PAGES_PER_GB
from ..core.sim import Simulation
from ..lessons.objectives import format_debrief


def _pct(used: int, total: int) -> float:
    return round(100.0 * used / total, 2) if total else 0.0


def _gb(pages: int) -> float:
    return round(pages / PAGES_PER_GB, 3)


def build_summary(sim: Simulation, version: str = "") -> dict[str, Any]:
    """The machine-readable summary of a run (the ``--json`` output)."""
    members = []
    for name in sorted(sim.members):
        m = sim.members[name]
        c = m.counters
        members.append({
            "name": name,
            "central": {"frames": m.frames, "peak_used": m.peak["central"],
                        "final_used": m.used_frames,
                        "peak_pct": _pct(m.peak["central"], m.frames),
                        "final_pct": _pct(m.used_frames, m.frames)},
            "xstor": {"blocks": m.cfg.xstor_pages, "peak_used": m.peak["xstor"],
                      "final_used": m.xstor_used,
                      "peak_pct": _pct(m.peak["xstor"], m.cfg.xstor_pages)},
            "paging": {"slots": m.cfg.slots, "peak_used": m.peak["slots"],
                       "final_used": m.slots_used, "peak_pct": _pct(m.peak["slots"], m.cfg.slots),
                       "volumes": [{"volid": v, "slots": s, "used": u}
                                   for v, _r, s, u in m.volume_use()]},
            "counters": {"xstor_in": c.xstor_in, "dasd_in": c.dasd_in, "xstor_out": c.xstor_out,
                         "dasd_out": c.dasd_out, "dasd_clean": c.dasd_clean,
                         "migrated": c.migrated, "new": c.new},
            "rates_per_s": _mean_rates(sim, name),
        })
    guests = []
    for uid in sorted(sim.guests):
        g = sim.guests[uid]
        t_end = max(sim.t, 1e-9)
        unit = sim.pause.own_workload(g).unit
        guests.append({
            "userid": uid,
            "member": g.member,
            "state": g.state,
            "storage_gb": _gb(g.cfg.storage_pages),
            "workload": g.workload.describe(),
            "pages": {"central": g.n_cen, "xstor": g.n_xst, "dasd": g.n_dsd,
                      "instantiated": g.instantiated},
            "peak_pages": dict(g.peak),
            "first_pageout_s": {k: round(v, 3) for k, v in sorted(g.first_out.items())},
            # (pages that left central storage: one that went to XSTOR and on to DASD once)
            "paged_out": g.counters.stolen(),
            "paged_in": g.counters.xstor_in + g.counters.dasd_in,
            # the mean over the run of the work in the unit of the guest's own workload at the
            # end; work in other units (an earlier workload, a suspend image) is by_unit
            "throughput": {"unit": unit,
                           "mean": round(g.units_by_unit.get(unit, 0.0) / t_end, 3),
                           "last": round(g.units_step, 3),
                           "by_unit": {u: round(v / t_end, 3)
                                       for u, v in sorted(g.units_by_unit.items())}},
        })
    kinds = Counter(e.kind for e in sim.events)
    return {
        "scenario": sim.scenario.name,
        "scenario_hash": sim.scenario.source_hash,
        "seed": sim.seed,
        "version": version,
        "t_s": round(sim.t, 6),
        "members": members,
        "guests": guests,
        "relocations": [r.to_dict(sim.t) for r in sim.reloc.all],
        # Storage vMotion and LPM, in the same shape (see engine/migrations/migration.py)
        "migrations": [m.to_dict(sim.t) for m in sorted([*sim.svm.all, *sim.lpm.all],
                                                   key=lambda m: m.t_start)],
        "events": dict(sorted(kinds.items())),
        "commands": [{"t_s": round(t, 6), "command": c, "rc": rc, "line": line,
                      **({"response": list(resp)} if rc else {})}
                     for t, c, rc, line, resp in sim.command_log],
        # a lesson's or a planner's objectives: score, results, what decided them
        **({"objectives": sim.lesson.debrief()} if sim.lesson is not None else {}),
    }


def _mean_rates(sim: Simulation, member: str) -> dict[str, float]:
    rows = [s for s in sim.samples_member if s.member == member]
    if len(rows) < 2:
        return {"page_in": 0.0, "page_out": 0.0}
    return {
        "page_in": round(sum(r.page_in_s for r in rows[1:]) / (len(rows) - 1), 3),
        "page_out": round(sum(r.page_out_s for r in rows[1:]) / (len(rows) - 1), 3),
        "page_in_peak": round(max(r.page_in_s for r in rows), 3),
        "page_out_peak": round(max(r.page_out_s for r in rows), 3),
    }


def _total(r: dict[str, Any], fmt: str) -> str:
    """A move's time in all; one still under way when the run ended shows the time so far as
    a lower bound (``>200.00``)."""
    t = format(r["relocation_s"], fmt)
    return t if r.get("ended", True) else ">" + t


def format_summary(s: dict[str, Any]) -> str:
    """The summary as a person reads it after ``ssisim run``."""
    out = [f"Scenario {s['scenario']!r}, seed {s['seed']}, {s['t_s']:.0f} simulated seconds", ""]
    out.append("MEMBER    CENTRAL peak/final     XSTOR peak/final      PAGING peak/final   "
               "PAGE-IN/s  PAGE-OUT/s")
    for m in s["members"]:
        c, x, p = m["central"], m["xstor"], m["paging"]
        xs = f"{x['peak_pct']:5.1f}% /{_pct(x['final_used'], x['blocks']):5.1f}%" \
            if x["blocks"] else "      (none)    "
        ps = f"{p['peak_pct']:5.1f}% /{_pct(p['final_used'], p['slots']):5.1f}%" \
            if p["slots"] else "      (none)    "
        r = m["rates_per_s"]
        out.append(f"{m['name']:<8}  {c['peak_pct']:5.1f}% /{c['final_pct']:5.1f}%     {xs}      "
                   f"{ps}   {r['page_in']:9.0f}  {r['page_out']:10.0f}")
    out.append("")
    out.append("GUEST     MEMBER    STATE      CENTRAL GB  XSTOR GB  DASD GB  FIRST OUT (s)      "
               "THROUGHPUT")
    for g in s["guests"]:
        pg = g["pages"]
        fo = g["first_pageout_s"]
        first = " ".join(f"{k}@{v:.0f}" for k, v in fo.items()) or "-"
        tp = g["throughput"]
        out.append(f"{g['userid']:<8}  {g['member'] or '-':<8}  {g['state']:<9}  "
                   f"{_gb(pg['central']):10.2f}  {_gb(pg['xstor']):8.2f}  {_gb(pg['dasd']):7.2f}  "
                   f"{first:<18} {tp['mean']:.1f} {tp['unit']}")
    refused = [c for c in s.get("commands", []) if c["rc"]]
    if refused:
        out.append("")
        out.append("Commands CP refused:")
        for c in refused:
            where = f" (scenario line {c['line']})" if c.get("line") else ""
            out.append(f"  t={c['t_s']:.0f}s {c['command']}{where}: {' '.join(c['response'])}")
    rel = s.get("relocations", [])
    if rel:
        out.append("")
        out.append("RELOCATION                  RESULT              PASSES  PAGES MOVED  QUIESCE s"
                   "  TOTAL s  THROTTLES (s)")
        for r in rel:
            what = f"{r['guest']} {r['source']}->{r['destination']}"
            thr = ", ".join(f"{k} {v:.1f}" for k, v in sorted(
                r["throttle_s"].items(), key=lambda kv: -kv[1]) if v >= 0.05) or "-"
            out.append(f"{what:<27} {r['result'][:19]:<19} {r['passes']:>6}  "
                       f"{r['pages_moved']:>11,}  {r['quiesce_s']:>9.2f}  "
                       f"{_total(r, '.2f'):>7}  {thr}")
    mig = s.get("migrations", [])
    if mig:
        out.append("")
        out.append("MIGRATION                   OPTIONS                    RESULT              "
                   "PASSES        MOVED  DOWNTIME s  TOTAL s")
        for m in mig:
            what = f"{m['guest']} {m['source']}->{m['destination']}"
            moved = f"{m[m['unit'] + '_moved']:,} {m['unit'][0]}"
            out.append(f"{what:<27} {m['options'][:26]:<26} {m['result'][:19]:<19} "
                       f"{m['passes']:>6}  {moved:>11}  {m['quiesce_s']:>10.3f}  "
                       f"{_total(m, '.1f'):>7}")
    paged = [g for g in s["guests"] if g["first_pageout_s"]]
    if paged:
        out.append("")
        out.append("Paged out, in order: " + ", ".join(
            f"{g['userid']} (t={min(g['first_pageout_s'].values()):.0f}s)"
            for g in sorted(paged, key=lambda g: min(g["first_pageout_s"].values()))))
    if "objectives" in s:

        out += ["", format_debrief(s["objectives"])]
    return "\n".join(out)

"""Benchmarks behind ``ssisim bench``: each measures one figure and compares it to its target.

Wall-clock time is read here, and only here, to measure the engine; it never enters a simulation.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..basics.config import (
    ChpidConfig,
    GuestConfig,
    LinkConfig,
    MemberConfig,
    ScenarioConfig,
    VolumeConfig,
    WorkloadSpec,
)
from ..basics.units import PAGES_PER_GB
from ..core.sim import Simulation
from ..kernels import moves as M
from ..kernels import pages as K
from ..scenarios.bundled import bundled_dir
from ..scenarios.scenario import load_scenario

TB = 1024 * PAGES_PER_GB


def two_tb_randchange_scenario(fraction: float = 0.25, members: int = 1,
                               step_s: float = 1.0) -> ScenarioConfig:
    """Members of 2.5 TB central storage; a 2 TB guest on the first runs a random changer.

    With two members they are joined by the reference ISFC link (capacity 18).
    """
    ms = [MemberConfig(name=f"BIG{i + 1}", cpus=8, central_pages=int(2.5 * TB), xstor_pages=0,
                       volumes=(VolumeConfig("NVM001", slots=4 * TB, service_ms=0.05,
                                             queue_depth=32),))
          for i in range(members)]
    guest = GuestConfig(userid="LNX2TB", member="BIG1", storage_pages=2 * TB, vcpus=4,
                        workload=WorkloadSpec("randchange", {"fraction": fraction}))
    links = []
    if members > 1:
        links.append(LinkConfig(("BIG1", "BIG2"), (ChpidConfig(2, 4), ChpidConfig(4, 4),
                                                   ChpidConfig(4, 4), ChpidConfig(8, 4))))
    return ScenarioConfig(name="2 TB random changer", members=ms, guests=[guest], links=links,
                          seed=7, duration_s=10, step_s=step_s, sample_s=10.0)


def fully_instantiate(sim: Simulation, userid: str) -> None:
    """Make every page of a guest instantiated and resident, as after a long run."""
    g = sim.guests[userid]
    assert g.planes is not None and g.member is not None
    K.fill_resident(g.planes, g.npages, True)
    g.residency_changed()
    g.mark_segments(0, g.npages)
    m = sim.members[g.member]
    m.resident += g.npages - g.n_cen
    g.n_cen = g.npages


def bench_page_state_bytes() -> dict[str, Any]:
    """Bytes of page state per guest page for a 2 TB guest (target: at most 1)."""
    sim = Simulation(two_tb_randchange_scenario())
    g = sim.guests["LNX2TB"]
    assert g.planes is not None
    per_page = g.planes.nbytes / g.npages
    return {"name": "page_state_bytes", "value": per_page, "unit": "bytes/page",
            "target": 1.0, "ok": per_page <= 1.0,
            "detail": f"2 TB guest: {g.planes.nbytes / 2**20:.0f} MiB of bit-planes for "
                      f"{g.npages} pages"}


def bench_randchange_2tb(seconds: int = 5) -> dict[str, Any]:
    """Wall seconds per simulated second: fully instantiated 2 TB guest, random changer on 25 %."""
    sim = Simulation(two_tb_randchange_scenario())
    fully_instantiate(sim, "LNX2TB")
    t0 = time.perf_counter()
    sim.step()  # compiles the kernels on a cold cache
    first = time.perf_counter() - t0
    walls = []
    g = sim.guests["LNX2TB"]
    for _ in range(seconds):
        t0 = time.perf_counter()
        sim.step()
        g.flush_pending()  # every reference of the second applied to the bit-planes
        walls.append(time.perf_counter() - t0)
    med = statistics.median(walls)
    return {"name": "randchange_2tb_step", "value": med, "unit": "s wall per simulated s",
            "target": 0.1, "ok": med <= 0.1,
            "detail": f"median of {seconds} steps, references applied every step (max "
                      f"{max(walls):.3f}); first step {first:.2f} s; {g.units_step:.0f} pages "
                      f"changed per simulated s"}


def bench_relocate_2tb(repeats: int = 3) -> dict[str, Any]:
    """Wall seconds to simulate a whole relocation of a fully instantiated 2 TB random changer.

    Median of ``repeats`` relocations, each of a freshly set-up guest: the time includes the
    operating system mapping the destination's 512 MiB of page state, which varies from run
    to run.
    """
    walls = []
    r: dict[str, Any] = {}
    for _ in range(repeats):
        # A relocation of this size runs for over an hour of simulated time: 5 s steps are
        # ample (the relocation keeps its own fractional clock; passes last minutes).
        sim = Simulation(two_tb_randchange_scenario(members=2, step_s=5.0))
        fully_instantiate(sim, "LNX2TB")
        sim.run_until(10)  # the changer's first steps
        t0 = time.perf_counter()
        sim.execute("VMRELOCATE MOVE USER LNX2TB TO BIG2 MAXQUIESCE NOLIMIT")
        while sim.reloc.active:
            sim.step()
        walls.append(time.perf_counter() - t0)
        r = sim.reloc.all[0].to_dict() if sim.reloc.all else {}
        del sim
        gc.collect()  # the simulation holds cycles: free its planes before the next run
    wall = statistics.median(walls)
    ok = wall <= 2.0 and r.get("result") == "relocated"
    return {"name": "relocate_2tb", "value": wall, "unit": "s wall per relocation",
            "target": 2.0, "ok": ok,
            "detail": f"median of {repeats} (runs: {', '.join(f'{w:.2f}' for w in walls)}); "
                      f"{r.get('result')}: {r.get('passes')} passes, "
                      f"{r.get('pages_moved', 0):,} pages, {r.get('relocation_s', 0):.0f} "
                      f"simulated s, quiesce {r.get('quiesce_s', 0):.1f} s"}


def busy_2tb_scenario() -> ScenarioConfig:
    """The busy reference guest (``reference/lgr-busy``) scaled to 2 TB: its members' central
    storage, XSTOR and paging space, and the storage Linux touched before the changer starts,
    by the same factor (20.48); its changer's rate is the reference's. The changer has not
    instantiated its quarter of storage when the relocation starts."""
    sc = load_scenario(bundled_dir() / "reference" / "lgr-busy.toml")
    k = 2 * TB / sc.guests[0].storage_pages
    members = [dataclasses.replace(
        m, central_pages=int(m.central_pages * k), xstor_pages=int(m.xstor_pages * k),
        volumes=tuple(dataclasses.replace(v, slots=int(v.slots * k)) for v in m.volumes))
        for m in sc.members]
    g = sc.guests[0]
    params = dict(g.workload.params)
    params["buffer_mb"] = params["buffer_mb"] * k
    params["rate_pages_s"] = params["rate_pages_s"] * k
    guest = dataclasses.replace(g, storage_pages=2 * TB,
                                workload=WorkloadSpec(g.workload.kind, params))
    return dataclasses.replace(sc, name="LGR busy guest scaled to 2 TB", members=members,
                               guests=[guest])


def bench_relocate_2tb_busy() -> dict[str, Any]:
    """Wall seconds to simulate the busy reference guest scaled to 2 TB, its whole relocation
    (from the relocation command to its end)."""
    sc = busy_2tb_scenario()
    sim = Simulation(sc)
    start = next(e.at_s for e in sc.timeline if e.command.upper().startswith("VMRELOCATE"))
    sim.run_until(start - sc.step_s)
    g = sim.guests[sc.guests[0].userid.upper()]
    before = g.instantiated
    t0 = time.perf_counter()
    sim.run_until(start)
    while sim.reloc.active:
        sim.step()
    wall = time.perf_counter() - t0
    r = sim.reloc.all[0].to_dict() if sim.reloc.all else {}
    ok = wall <= 5.0 and r.get("result") == "relocated"
    return {"name": "relocate_2tb_busy", "value": wall, "unit": "s wall per relocation",
            "target": 5.0, "ok": ok,
            "detail": f"{before / PAGES_PER_GB:,.0f} GB instantiated when it starts; "
                      f"{r.get('result')}: {r.get('passes')} passes, "
                      f"{r.get('pages_moved', 0):,} pages, {r.get('relocation_s', 0):.0f} "
                      f"simulated s, quiesce {r.get('quiesce_s', 0):.1f} s"}


def _shop(guests: int, hours: float, name: str, target: float) -> dict[str, Any]:
    """Wall seconds (and peak memory) to simulate a generated shop of ``guests`` guests on four
    members for ``hours`` simulated hours."""
    import resource

    from ..scenarios.scenario import loads_scenario
    from ..scenarios.shop import shop_text

    if guests == 1000:
        sc = load_scenario(bundled_dir() / "planning" / "shop-1000.toml")
    else:
        sc = loads_scenario(shop_text(guests, 4), f"<shop of {guests} guests>")
    sim = Simulation(sc)
    t0 = time.perf_counter()
    sim.run_until(hours * 3600)
    wall = time.perf_counter() - t0
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    per = wall / max(1, sim.steps * len(sim.guests)) * 1e6
    cpu = statistics.mean(m.cpu_util for m in sim.members.values()) * 100
    used = sum(m.resident for m in sim.members.values()) / PAGES_PER_GB
    out = {"name": name, "value": wall, "unit": "s wall", "target": target,
           "ok": wall <= target,
           "detail": f"{len(sim.guests)} guests, {hours:g} simulated h in {sim.steps} steps of "
                     f"{sim.step_s:g} s: {per:.1f} us per guest-step; members' CPUs "
                     f"{cpu:.0f} % busy, {used:,.0f} GB resident at the end; peak memory of "
                     f"the process {peak_gib:.2f} GiB"}
    del sim
    gc.collect()
    return out


def bench_shop_1000_8h() -> dict[str, Any]:
    """The bundled four-member shop of 1,000 guests, eight simulated hours (target 60 s)."""
    return _shop(1000, 8.0, "shop_1000_8h", 60.0)


def bench_shop_4000_1h() -> dict[str, Any]:
    """A generated four-member shop of 4,000 guests, one simulated hour (target 60 s)."""
    return _shop(4000, 1.0, "shop_4000_1h", 60.0)


def demo_path() -> Path:
    """The bundled demo scenario."""
    return bundled_dir() / "demo.toml"


def bench_demo_8h(hours: float = 8.0) -> dict[str, Any]:
    """Wall seconds to simulate the demo cluster for eight hours headless."""
    sc = load_scenario(demo_path())
    warm = Simulation(sc)
    warm.run_until(30)  # compile outside the measurement
    sim = Simulation(sc)
    t0 = time.perf_counter()
    sim.run_until(hours * 3600)
    wall = time.perf_counter() - t0
    return {"name": "demo_8h", "value": wall, "unit": "s wall",
            "target": 60.0, "ok": wall <= 60.0,
            "detail": f"{hours:g} simulated hours, {sim.steps} steps of {sim.step_s:g} s, "
                      f"{len(sim.guests)} guests on {len(sim.members)} members"}


def bench_2tb_overcommit() -> dict[str, Any]:
    """Wall seconds for 10 simulated minutes of the 2 TB sequential touchers at 1.5 TB central."""
    path = bundled_dir() / "large" / "guest-2tb-1536g.toml"
    sim = Simulation(load_scenario(path))
    t0 = time.perf_counter()
    sim.run_until(600)
    wall = time.perf_counter() - t0
    g = sim.guests["LNX2TB"]
    m = sim.members["Z16LPAR"]
    return {"name": "overcommit_2tb_10min", "value": wall, "unit": "s wall",
            "target": 30.0, "ok": wall <= 30.0,
            "detail": f"I/R {g.instantiated / m.cfg.central_pages:.2f}: "
                      f"{g.instantiated / PAGES_PER_GB:.0f} GB instantiated, "
                      f"{m.counters.dasd_in:,} page-ins and {m.counters.dasd_out:,} page-outs "
                      f"from and to DASD in 600 simulated s"}


def bench_lpm_64tb() -> dict[str, Any]:
    """Wall seconds and peak memory to simulate a whole LPM of an idle 64 TB partition at page
    level (16 Gi pages, one bit per page per move bitmap), newer firmware, 8 threads per MSP."""
    import resource

    from .validate import lpm_64tb_scenario

    M.warmup()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    sim = Simulation(lpm_64tb_scenario("newer"))
    sim.run_until(10)
    sim.execute("LPM LPAR64T TO E980B")
    while sim.lpm.active:
        sim.step()
    wall = time.perf_counter() - t0
    r = sim.lpm.all[0].to_dict()
    del sim
    gc.collect()
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    ok = wall <= 60.0 and peak_gib <= 24.0 and r.get("result") == "migrated"
    return {"name": "lpm_64tb", "value": wall, "unit": "s wall per migration",
            "target": 60.0, "ok": ok,
            "detail": f"{r.get('result')}: {r.get('pages_moved', 0):,} pages in "
                      f"{r.get('passes')} passes, {r.get('relocation_s', 0):,.0f} simulated s "
                      f"(published 2,921 s), downtime {r.get('quiesce_s', 0):.1f} s; peak "
                      f"memory of the process {peak_gib:.2f} GiB (target 24; "
                      f"{before / 2**20:.2f} GiB before)"}


def bench_evacuate_shop4() -> dict[str, Any]:
    """Wall seconds to plan the evacuation of MEMB1 of the bundled four-member shop at t=300 s
    (12 guests to three members), every plan run in this process; plans per second."""
    from .evacuate import plan_evacuation

    path = bundled_dir() / "planning" / "shop-4.toml"
    t0 = time.perf_counter()
    r = plan_evacuation(path.read_text(encoding="utf-8"), str(path), "MEMB1", at_s=300)
    wall = time.perf_counter() - t0
    best = r.best
    return {"name": "evacuate_shop4", "value": wall, "unit": "s wall", "target": 120.0,
            "ok": wall <= 120.0,
            "detail": f"{len(r.outcomes)} plans ({r.runs} runs) in {wall:.1f} s: "
                      f"{len(r.outcomes) / wall:.2f} plans/s; best {best.candidate.how()}, "
                      f"{best.moved:g}/{len(r.guests)} guests in {best.total_s:.1f} simulated s"}


BENCHMARKS: dict[str, Callable[[], dict[str, Any]]] = {
    "page_state_bytes": bench_page_state_bytes,
    "randchange_2tb_step": bench_randchange_2tb,
    "demo_8h": bench_demo_8h,
    "relocate_2tb": bench_relocate_2tb,
    "relocate_2tb_busy": bench_relocate_2tb_busy,
    "overcommit_2tb_10min": bench_2tb_overcommit,
    "lpm_64tb": bench_lpm_64tb,
    "evacuate_shop4": bench_evacuate_shop4,
    "shop_1000_8h": bench_shop_1000_8h,
    "shop_4000_1h": bench_shop_4000_1h,
}


def machine() -> str:
    """A line describing this machine."""
    return (f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} logical CPUs, "
            f"Python {platform.python_version()}, {platform.system()} {platform.release()}")


def run_all(only: list[str] | None = None,
            log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmarks (all, or those named) one after another on one core."""
    names = only or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}")
    t0 = time.perf_counter()
    K.warmup()
    jit_s = time.perf_counter() - t0
    if log:
        log(f"bench: kernels compiled or loaded in {jit_s:.2f} s")
    out = []
    for n in names:
        if log:
            log(f"bench: {n} ...")
        out.append(BENCHMARKS[n]())
    return {"machine": machine(), "jit_s": round(jit_s, 3), "benchmarks": out}


def format_results(results: dict[str, Any]) -> str:
    """The results as a table."""
    lines = [f"Machine: {results['machine']}",
             f"JIT compile (or cache load) of the kernels: {results.get('jit_s', 0):.2f} s", "",
             f"{'BENCHMARK':<22} {'VALUE':>10} {'TARGET':>8}  {'UNIT':<24} RESULT"]
    for r in results["benchmarks"]:
        lines.append(f"{r['name']:<22} {r['value']:>10.3f} {r['target']:>8.3g}  {r['unit']:<24} "
                     f"{'ok' if r['ok'] else 'MISSED'}")
        lines.append(f"{'':<22} {r['detail']}")
    return "\n".join(lines)

"""Storage vMotion on shared volumes: the data mover's queue share and IO mirroring.

A volume serves its outstanding IOs in turn: the mover's 16 large IOs against the guest's own
(its IO rate times the volume's latency, held to 32). What a planner sees: the copy's speed,
the guest's served IO and its write latency, and whether DBT converges.
"""

from __future__ import annotations

import pytest

from ssisim.engine import Simulation, build_summary, loads_scenario
from ssisim.engine.migrations.storage_vmotion import SVMotionModel

MD = SVMotionModel()
BLOCK_MS = 256 / 1024 / 400 * 1000  # a 256 KiB block streamed at 400 MB/s (MiB/s): 0.625 ms


def scenario(guests: list[dict], datastores: dict[str, tuple[float, ...]],
             model: str = "") -> Simulation:
    """Guests with virtual disks; ``datastores``: name -> (mb_s, iops[, latency_ms])."""
    stores = "".join(f'[[datastore]]\nname = "{n}"\nmb_s = {d[0]}\niops = {d[1]}\n'
                     + (f'latency_ms = {d[2]}\n' if len(d) > 2 else '')
                     for n, d in datastores.items())
    people = "".join(
        f'[[guest]]\nuserid = "{g["userid"]}"\nmember = "ESX1"\nstorage = "1G"\n'
        f'workload = {{ type = "idle" }}\n'
        f'disk = {{ size_gb = {g.get("size_gb", 4)}, datastore = "{g["ds"]}", '
        f'read_iops = {g.get("reads", 0)}, write_iops = {g.get("writes", 0)} }}\n'
        for g in guests)
    text = f"""
format = "ssisim-scenario"
version = 1
[run]
seed = 9
step_s = 1
[[member]]
name = "ESX1"
central = "8G"
{stores}{people}{model}"""
    return Simulation(loads_scenario(text))


def move(sim: Simulation, *commands: str, limit_s: float = 20_000) -> dict[str, dict]:
    """Issue the VMOTION commands at once and run until all end; each guest's record."""
    for c in commands:
        resp = sim.execute(c)
        assert resp.ok, resp.text
    while sim.svm.active and sim.t < limit_s:
        sim.step()
    return {m["guest"]: m for m in build_summary(sim)["migrations"]}


def one(reads: float = 0, writes: float = 0, dst: tuple[float, ...] = (400, 1200),
        method: str = "MIRROR", size_gb: float = 4, model: str = "") -> dict:
    sim = scenario([{"userid": "APP", "ds": "SRC", "reads": reads, "writes": writes,
                     "size_gb": size_gb}], {"SRC": (400, 1200), "DST": dst}, model)
    return move(sim, f"VMOTION APP TO DST METHOD {method}")["APP"]


def copy_s(m: dict) -> float:
    """Seconds of the bulk copy (pass 1)."""
    return m["pass_list"][0]["seconds"]


def test_a_mirrored_write_waits_for_the_slower_destination():
    fast = one(reads=100, writes=400, dst=(400, 1200))
    slow = one(reads=100, writes=400, dst=(100, 300))
    assert fast["cost"]["guest_io_pct"] == 100.0
    # the slow destination holds every mirrored write: the guest's writes take longer, it
    # keeps more IOs in flight, reaches its 32 and is served less of what it asks for
    assert slow["cost"]["write_latency_ms"] > 1.5 * fast["cost"]["write_latency_ms"]
    assert slow["cost"]["guest_io_pct"] < 90.0
    # moved without mirroring (DBT) to the same slow destination, its writes stay on the
    # source: no wait for the destination
    dbt = one(reads=100, writes=400, dst=(100, 300), method="DBT")
    assert dbt["cost"]["write_latency_ms"] < 0.8 * slow["cost"]["write_latency_ms"]


def test_a_mirrored_write_waits_for_a_destination_slow_to_answer():
    """A destination that takes 50 ms for any IO slows the copy, and every mirrored write
    waits for it too."""
    quick = one(reads=100, writes=400)
    slow = one(reads=100, writes=400, dst=(400, 1200, 50))
    assert copy_s(slow) > 2 * copy_s(quick)
    assert quick["cost"]["write_latency_ms"] < 30
    # writes to blocks already copied (half of them over the copy, on average) take 50 ms
    assert slow["cost"]["write_latency_ms"] > 0.5 * 50
    # without mirroring (DBT) the writes stay on the source and do not wait for it
    dbt = one(reads=100, writes=400, dst=(400, 1200, 50), method="DBT")
    assert dbt["cost"]["write_latency_ms"] < 30


def test_a_busier_guest_slows_the_copy_by_its_queue_share():
    light = one(reads=300)
    busy = one(reads=700)
    # the guest's IOs in flight are rate x latency: with the mover's 16 in the queue the
    # round takes 16 x 0.625 ms / (1 - u), u the guest's share of the volume's time
    for m, u in ((light, 300 / 1200), (busy, 700 / 1200)):
        per_block_s = BLOCK_MS / 1000 / (1 - u)
        assert copy_s(m) == pytest.approx(4 * 4096 * per_block_s, rel=0.03)
        assert m["cost"]["guest_io_pct"] == 100.0
    assert busy["cost"]["write_latency_ms"] > light["cost"]["write_latency_ms"]


def test_a_guest_that_saturates_its_volume_leaves_the_copy_its_queue_share():
    # 1500 reads a second on a volume that serves 1200: the guest keeps its 32 IOs queued,
    # the mover its 16; a round of the queue is 16 x 0.625 ms + 32 x 0.833 ms
    m = one(reads=1500)
    round_s = (MD.outstanding_ios * BLOCK_MS + MD.guest_outstanding_ios / 1200 * 1000) / 1000
    assert copy_s(m) == pytest.approx(4 * 4096 * round_s / MD.outstanding_ios, rel=0.03)
    assert m["cost"]["guest_io_pct"] == pytest.approx(
        100 * MD.guest_outstanding_ios / round_s / 1500, rel=0.02)
    # a guest allowed more IOs in flight takes more of the queue: the copy slows
    deep = one(reads=1500, model="[model.svmotion]\nguest_outstanding_ios = 64\n")
    assert copy_s(deep) > 1.5 * copy_s(m)
    assert deep["cost"]["guest_io_pct"] > m["cost"]["guest_io_pct"]


def test_two_copies_from_one_volume_share_its_queue():
    stores = {"SRC": (400, 1200), "DSTA": (400, 1200), "DSTB": (400, 1200)}
    alone = move(scenario([{"userid": "A", "ds": "SRC"}], stores),
                 "VMOTION A TO DSTA")["A"]
    both = move(scenario([{"userid": "A", "ds": "SRC"}, {"userid": "B", "ds": "SRC"}], stores),
                "VMOTION A TO DSTA", "VMOTION B TO DSTB")
    # two movers keep 32 IOs on the source between them: each copies at half the pace
    for m in both.values():
        assert m["result"] == "moved"
        assert copy_s(m) == pytest.approx(2 * copy_s(alone), rel=0.03)


def test_dbt_fails_to_converge_for_a_heavy_writer_where_io_mirroring_completes():
    fast = (1000, 20000)

    def heavy(method: str) -> dict:
        sim = scenario([{"userid": "OLTP", "ds": "SRC", "writes": 3000, "size_gb": 20}],
                       {"SRC": fast, "DST": fast})
        return move(sim, f"VMOTION OLTP TO DST METHOD {method}")["OLTP"]

    for method in ("DBT", "INCDBT"):
        m = heavy(method)
        assert m["result"] == "failed to converge", method
        assert "writes faster than the copy can follow" in m["message"]
    mirror = heavy("MIRROR")
    assert mirror["result"] == "moved"
    assert mirror["quiesce_s"] == pytest.approx(MD.switch_s, abs=0.01)


def test_dbt_converges_for_a_modest_writer_within_the_downtime_the_volumes_allow():
    for method in ("DBT", "INCDBT"):
        m = one(reads=200, writes=100, method=method, size_gb=8)
        assert m["result"] == "moved", method
        # the last copy runs with the guest stopped: the mover alone on the volumes
        assert MD.switch_s < m["quiesce_s"] <= MD.downtime_target_s + MD.switch_s + 1.0

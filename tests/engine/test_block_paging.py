"""Block paging: pages written in blocks to contiguous slots and read back a block at a time,
each I/O taking the device's service time plus the transfer of its further pages. Off by
default (one page per I/O); a scenario turns it on with [model.paging] block_pages."""

from __future__ import annotations

import numpy as np

from ssisim.engine import Simulation, build_summary, loads_scenario
from ssisim.engine.kernels import pages as K


def scenario(block: int, mb_s: float = 400.0) -> str:
    """A 1G member; a 2G guest walks 1536 MB page by page, over and over: it pages all the
    time, and the page it wants next is always on DASD."""
    return f'''
format = "ssisim-scenario"
version = 1
name = "blocks"
[run]
seed = 4
duration_s = 120
step_s = 1
[[member]]
name = "VMA"
cpus = 4
central = "1G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
  service_ms = 0.5
  queue_depth = 4
  mb_s = {mb_s}
[[guest]]
userid = "SEQ"
member = "VMA"
storage = "2G"
vcpus = 2
workload = {{ type = "seqtouch", buffer_mb = 1536, write = 0, rate_pages_s = 200000 }}

[model.paging]
block_pages = {block}
'''


def run(block: int, mb_s: float = 400.0) -> tuple[float, int]:
    """(pages touched per second over the last minute, pages read from DASD in it)."""
    sim = Simulation(loads_scenario(scenario(block, mb_s)))
    sim.run_until(60)
    g, m = sim.guests["SEQ"], sim.members["VMA"]
    units, din = g.units_total, m.counters.dasd_in
    sim.run_until(120)
    assert sim.verify() == []
    return (g.units_total - units) / 60, m.counters.dasd_in - din


def test_a_sequential_faulter_pages_faster_in_blocks() -> None:
    one, read_one = run(1)
    blocks, read_blocks = run(32)
    assert read_one > 0 and read_blocks > 0
    # each fault brings in the pages it will want next: many more pages a second
    assert blocks > 4 * one


def test_with_blocks_the_transfer_rate_counts() -> None:
    slow, _ = run(32, mb_s=20.0)
    fast, _ = run(32, mb_s=400.0)
    assert fast > 1.5 * slow
    # a page at a time, the service time covers the page: the rate does not matter
    assert run(1, mb_s=20.0)[0] == run(1, mb_s=400.0)[0]


def test_a_block_write_is_one_io() -> None:
    planes = np.zeros((4, K.NPLANES), dtype=np.uint64)
    planes[0, K.CEN] = np.uint64(0xFFFFFFFFFFFFFFFF)
    planes[0, K.CHG] = np.uint64(0xFFFFFFFFFFFFFFFF)  # all dirty: they must be written
    out = np.zeros(K.S_OUT_LEN, dtype=np.int64)
    K.steal_pages(planes, 0, 64, True, 0, 1000, 1000, out, 0, -1, 8)
    assert out[K.S_TO_DASD_WRITTEN] == 64 and out[K.S_DASD_IOS] == 8
    planes[1, K.CEN] = np.uint64(0xFF)
    planes[1, K.CHG] = np.uint64(0xFF)
    K.steal_pages(planes, 1, 8, True, 0, 1000, 1000, out, 0, -1, 1)
    assert out[K.S_TO_DASD_WRITTEN] == 8 and out[K.S_DASD_IOS] == 8


def test_blocks_are_off_unless_a_scenario_asks() -> None:
    text = scenario(1).replace("[model.paging]\nblock_pages = 1\n", "")
    sim = Simulation(loads_scenario(text))
    assert sim.models.paging.block_pages == 1
    sim.run_until(30)
    assert build_summary(sim)["members"][0]["counters"]["dasd_in"] > 0

"""CP's demand scan walks its lists in order: the guest dormant longest gives its pages first,
all of them, before the next; a few idle guests give most frames, never an even spread."""

from __future__ import annotations

from ssisim.engine import Simulation, build_summary, loads_scenario


def scenario() -> str:
    """Four 1G guests touch 700 MB each and go idle at t = 10, 20, 30 and 40 s; at 60 s a
    big guest starts touching 2000 MB on a 4G member, and CP must take frames from them."""
    guests = "".join(f'''
[[guest]]
userid = "IDLE{i}"
member = "VMA"
storage = "1G"
workload = {{ type = "seqtouch", buffer_mb = 700, rate_pages_s = 100000, write = 0 }}

[[timeline]]
at_s = {10 * i}
command = "WORKLOAD IDLE{i} STOP"
''' for i in (3, 1, 4, 2))  # file order is not the order they went idle
    return f'''
format = "ssisim-scenario"
version = 1
name = "demand scan order"
[run]
seed = 5
duration_s = 150
step_s = 1
[[member]]
name = "VMA"
cpus = 4
central = "4G"
  [[member.volume]]
  volid = "PAG001"
  size = "16G"
[[guest]]
userid = "BIG"
member = "VMA"
storage = "4G"
workload = {{ type = "idle" }}
{guests}
[[timeline]]
at_s = 60
command = "WORKLOAD BIG START SEQTOUCH BUFFER_MB 2000 RATE_PAGES_S 50000"
'''


def test_the_guest_dormant_longest_gives_its_pages_first() -> None:
    sim = Simulation(loads_scenario(scenario()))
    sim.run_until(150)
    out = {g["userid"]: g["paged_out"] for g in build_summary(sim)["guests"]}
    have = {g["userid"]: g["pages"]["instantiated"] for g in build_summary(sim)["guests"]}
    assert out["BIG"] == 0
    # IDLE1 went idle first: it gives (nearly) everything before IDLE2 gives anything much
    assert out["IDLE1"] >= 0.95 * have["IDLE1"]
    assert 0 < out["IDLE2"] < 0.5 * have["IDLE2"]
    # the two that went idle last keep all their pages: no even spread
    assert out["IDLE3"] == out["IDLE4"] == 0

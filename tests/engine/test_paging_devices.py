"""Paging volumes as devices: a kind with its own figures, and volumes that are slices of one
physical device sharing its queue and bandwidth (docs/model.md, "Paging devices")."""

from __future__ import annotations

import pytest

from ssisim.engine import ScenarioError, Simulation, build_summary, loads_scenario


def scenario(volumes: str, seconds: int = 90) -> str:
    """A 2G member whose 4G guest changes pages all over its storage: it pages all the time."""
    return f'''
format = "ssisim-scenario"
version = 1
name = "devices"
[run]
seed = 3
duration_s = {seconds}
step_s = 1
[[member]]
name = "VMA"
cpus = 4
central = "2G"
{volumes}
[[guest]]
userid = "BIG"
member = "VMA"
storage = "4G"
vcpus = 4
workload = {{ type = "randchange", fraction = 1.0, rate_pages_s = 200000 }}
'''


def volume(i: int, device: str | None = None, kind: str = "nvme", extra: str = "") -> str:
    dev = f'device = "{device}"' if device else ""
    return f'''
  [[member.volume]]
  volid = "NV{i:04d}"
  size = "8G"
  kind = "{kind}"
  {dev}
  {extra}
'''


SLOW = 'service_ms = 2.0\n  queue_depth = 2'


def paged(volumes: str) -> tuple[int, float]:
    """(pages read and written from and to DASD, the guest's throughput) over the run."""
    sim = Simulation(loads_scenario(scenario(volumes)))
    sim.run_until(90)
    s = build_summary(sim)
    c = s["members"][0]["counters"]
    return c["dasd_in"] + c["dasd_out"], s["guests"][0]["throughput"]["mean"]


def test_a_kind_brings_its_own_figures() -> None:
    sc = loads_scenario(scenario(volume(1, kind="nvme") + volume(2, kind="eckd")
                                 + volume(3, kind="fcp", extra="queue_depth = 12")))
    nvme, eckd, fcp = sc.members[0].volumes
    assert (nvme.service_ms, nvme.queue_depth) == (0.1, 32)
    assert (eckd.service_ms, eckd.queue_depth) == (0.5, 4)
    assert fcp.kind == "fcp" and fcp.queue_depth == 12  # the file's figure wins


def test_an_unknown_kind_names_the_valid_ones() -> None:
    with pytest.raises(ScenarioError) as e:
        loads_scenario(scenario(volume(1, kind="tape")), "shop.toml")
    msg = str(e.value)
    assert "shop.toml" in msg and "kind" in msg
    assert "eckd" in msg and "fcp" in msg and "nvme" in msg


def test_volumes_on_one_device_must_agree_on_its_figures() -> None:
    with pytest.raises(ScenarioError) as e:
        loads_scenario(scenario(volume(1, "D0", extra="queue_depth = 8")
                                + volume(2, "D0", extra="queue_depth = 16")), "shop.toml")
    msg = str(e.value)
    assert "queue_depth" in msg and "NV0001" in msg and "D0" in msg


def test_two_volumes_on_one_drive_page_no_faster_than_one() -> None:
    one, _ = paged(volume(1, extra=SLOW))
    shared, _ = paged(volume(1, "D0", extra=SLOW) + volume(2, "D0", extra=SLOW))
    apart, _ = paged(volume(1, extra=SLOW) + volume(2, extra=SLOW))
    assert shared <= one * 1.02
    assert apart > shared * 1.3  # a second drive of its own does add bandwidth


def test_a_faster_device_lets_the_guest_do_more() -> None:
    _, slow = paged(volume(1, extra=SLOW))
    _, fast = paged(volume(1))  # the NVMe defaults: 0.1 ms, 32 deep
    assert fast > slow * 1.1


def test_a_small_fast_volume_beside_a_slow_one_adds_its_share_only() -> None:
    """CP spreads its slots over the volumes by their size, so each device carries that share
    of the paging: a small fast volume beside a large slow one takes a small share and the slow
    one still sets the pace; one as large takes half. (The devices' speeds were added up
    whatever their share: with a 1G NVMe volume beside it, an 8G slow one's member moved twelve
    times as many pages, though the NVMe volume held a ninth of them.)"""
    slow, _ = paged(volume(1, extra=SLOW))
    small = volume(2, extra='service_ms = 0.1\n  queue_depth = 32').replace('"8G"', '"1G"')
    beside, _ = paged(volume(1, extra=SLOW) + small)
    even, _ = paged(volume(1, extra=SLOW) + volume(2))
    assert beside == pytest.approx(slow * 9 / 8, rel=0.1)  # the slow one has 8/9 of it
    assert even > slow * 1.6  # the slow one has half of it: about twice as much in all

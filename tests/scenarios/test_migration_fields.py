"""Scenario fields for Storage vMotion and LPM: defaults, and mistakes named precisely."""

from __future__ import annotations

import pytest

from ssisim.engine import ScenarioError, loads_scenario

BASE = """\
version = 1
[[member]]
name = "M1"
central = "4G"
{member_extra}
[[datastore]]
name = "DS1"
{ds_extra}
[[guest]]
userid = "G1"
member = "M1"
storage = "1G"
{guest_extra}
"""


def load(member_extra: str = "", ds_extra: str = "", guest_extra: str = ""):
    return loads_scenario(BASE.format(member_extra=member_extra, ds_extra=ds_extra,
                                      guest_extra=guest_extra), "t.toml")


def test_defaults():
    sc = load(guest_extra='disk = { size_gb = 10, datastore = "ds1" }')
    d = sc.guests[0].disk
    assert d is not None and d.datastore == "DS1" and d.pattern == "random" and d.write_iops == 0
    ds = sc.datastores[0]
    assert (ds.mb_s, ds.iops, ds.latency_ms) == (400.0, 1200.0, 8.0)
    m = sc.members[0]
    assert (m.msps, m.msp_gbps, m.firmware) == (2, 10.0, "newer")
    assert load().guests[0].disk is None


@pytest.mark.parametrize("kwargs, field, words", [
    ({"guest_extra": 'disk = { size_gb = 10, datastore = "DS1", writes = 5 }'},
     "guest[0] (G1).disk.writes", "unknown field"),
    ({"guest_extra": 'disk = { size_gb = 10, datastore = "DS9" }'},
     "guest[0] (G1).disk.datastore", "DS9 is not a datastore"),
    ({"guest_extra": 'disk = { size_gb = 10, datastore = "DS1", pattern = "web" }'},
     "guest[0] (G1).disk.pattern", "'random' or 'mail'"),
    ({"guest_extra": 'disk = { datastore = "DS1" }'}, "guest[0] (G1).disk.size_gb", "required"),
    ({"ds_extra": "speed = 3"}, "datastore[0] (DS1).speed", "unknown field"),
    ({"ds_extra": "iops = 0"}, "datastore[0] (DS1).iops", "greater than 0"),
    ({"member_extra": 'firmware = "oldest"'}, "member[0] (M1).firmware", "'newer' or 'older'"),
    ({"member_extra": "msps = 9"}, "member[0] (M1).msps", "1 to 4"),
])
def test_mistakes_are_refused(kwargs, field, words):
    with pytest.raises(ScenarioError) as e:
        load(**kwargs)
    assert e.value.field == field
    assert words in str(e.value)

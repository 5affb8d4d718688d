"""The generated shop: the bundled 1,000-guest cluster is what the generator writes, and a shop
of any size is a valid scenario of the kinds of guests a shop runs."""

from __future__ import annotations

from collections import Counter

import pytest

from ssisim.cli import bundled_dir
from ssisim.engine import Simulation, loads_scenario
from ssisim.engine.scenarios.shop import shop_text


def test_the_bundled_shop_is_the_generated_one():
    text = (bundled_dir() / "planning" / "shop-1000.toml").read_text(encoding="utf-8")
    assert text == shop_text(1000, 4), "regenerate planning/shop-1000.toml with shop_text"


def test_a_generated_shop_spreads_its_guests_and_kinds_over_the_members():
    sc = loads_scenario(shop_text(400, 4))
    assert len(sc.guests) == 400 and len(sc.members) == 4
    per_member = Counter(g.member for g in sc.guests)
    assert set(per_member.values()) == {100}
    kinds = Counter(g.workload.kind for g in sc.guests)
    assert set(kinds) == {"webserver", "appserver", "database", "idle"}
    assert all(2 <= g.storage_pages / 262144 <= 16 for g in sc.guests)
    assert len({g.userid for g in sc.guests}) == 400
    # every pair of members is linked, so any guest can relocate anywhere
    assert len(sc.links) == 6


def test_a_shop_runs_without_paging_with_its_cpus_partly_busy():
    sim = Simulation(loads_scenario(shop_text(200, 2, step_s=5)))
    sim.run_until(120)
    for m in sim.members.values():
        assert m.counters.xstor_out + m.counters.dasd_out == 0
        assert 0.1 < m.cpu_util < 0.9
    assert sim.verify() == []


def test_a_shop_refuses_sizes_it_cannot_name():
    with pytest.raises(ValueError, match="1 to 99"):
        shop_text(0, 4)

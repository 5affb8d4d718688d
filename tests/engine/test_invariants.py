"""Invariants that must hold at every step, whatever the cluster and its workloads."""

from __future__ import annotations

import json

from conftest import guest, member, world
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssisim.engine import build_summary

WORKLOADS = {
    "idle": {"wss_mb": 2},
    "seqtouch": {"buffer_mb": 0, "rate_pages_s": 20000},
    "randchange": {"fraction": 0.5, "rate_pages_s": 5000},
    "appserver": {"wss_mb": 12, "requests_per_s": 20},
    "database": {"wss_mb": 10, "requests_per_s": 40},
    "webserver": {"wss_mb": 6},
    "none": {},
}

guest_st = st.tuples(
    st.integers(4, 48),  # storage MB
    st.sampled_from(sorted(WORKLOADS)),
    st.integers(1, 3),  # vcpus
    st.integers(0, 1),  # member index
    st.integers(0, 2048),  # SET RESERVED pages
)

world_st = st.fixed_dictionaries({
    "central": st.lists(st.integers(8, 64), min_size=1, max_size=2),
    "xstor": st.sampled_from([0, 2, 8]),
    "paging": st.sampled_from([16, 64, 256]),
    "guests": st.lists(guest_st, min_size=1, max_size=6),
    "seed": st.integers(0, 10_000),
    "steps": st.integers(3, 25),
    "commands": st.lists(st.tuples(st.integers(0, 20), st.sampled_from([
        "FORCE G0", "XAUTOLOG G0", "WORKLOAD G1 START SEQTOUCH", "SET RESERVED G2 OFF",
        "WORKLOAD G0 SET WSS_MB 1", "LOGOFF G3", "XAUTOLOG G3", "SET SHARE G1 ABSOLUTE 50%",
    ])), max_size=4),
})


def build(w):
    members = [member(f"M{i}", central=f"{c}M", xstor=f"{w['xstor']}M", paging=f"{w['paging']}M")
               for i, c in enumerate(w["central"])]
    guests = []
    for i, (mb, kind, vcpus, mi, res) in enumerate(w["guests"]):
        guests.append(guest(f"G{i}", f"{mb}M", member=f"M{mi % len(members)}", kind=kind,
                            vcpus=vcpus, set_reserved_pages=res, **WORKLOADS[kind]))
    from ssisim.engine import TimelineEntry

    timeline = [TimelineEntry(float(t), c) for t, c in w["commands"]]
    return world(members, guests, seed=w["seed"], timeline=timeline)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world_st)
def test_every_page_in_exactly_one_place_and_counts_within_capacity(w):
    sim = build(w)
    for _ in range(w["steps"]):
        sim.step()
        assert sim.verify() == []
        for g in sim.guests.values():
            assert (g.member is None) == (g.planes is None)
            assert min(g.n_cen, g.n_xst, g.n_dsd, g.n_slot) >= 0
        on = {}
        for g in sim.guests.values():
            if g.member:
                on.setdefault(g.userid, []).append(g.member)
        assert all(len(v) == 1 for v in on.values()), "a guest lives on one member at a time"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world_st)
def test_same_seed_gives_identical_json(w):
    a, b = build(w), build(w)
    a.run_until(w["steps"])
    b.run_until(w["steps"])
    ja = json.dumps(build_summary(a), sort_keys=True)
    jb = json.dumps(build_summary(b), sort_keys=True)
    assert ja == jb
    assert a.samples_guest == b.samples_guest
    assert [(e.t_s, e.kind, e.message) for e in a.events] == [
        (e.t_s, e.kind, e.message) for e in b.events]


def test_different_seeds_touch_different_pages():
    w = {"central": [16], "xstor": 0, "paging": 64, "seed": 1, "steps": 5, "commands": [],
         "guests": [(32, "randchange", 1, 0, 0)]}
    a = build(w)
    b = build({**w, "seed": 2})
    a.run_until(5)
    b.run_until(5)
    ga, gb = a.guests["G0"], b.guests["G0"]
    assert not (ga.planes == gb.planes).all()

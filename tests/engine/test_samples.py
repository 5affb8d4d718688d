"""One sample pipeline: the run's samples are typed records, the run store keeps exactly them,
and a viewer's sample feed makes the same records without changing the run."""

from __future__ import annotations

import dataclasses

import pytest

from ssisim.engine import (
    GuestSample,
    MemberSample,
    RunStore,
    SampleSet,
    Simulation,
    build_summary,
    find_scenario,
    load_scenario,
)


def _sim(name: str) -> Simulation:
    return Simulation(load_scenario(find_scenario(name)))


def test_the_runs_samples_are_typed_immutable_records():
    sim = _sim("overcommit")
    sim.run_until(30)
    assert [s.t_s for s in sim.samples_member if s.member == "MEMB1"] == [0.0, 10.0, 20.0, 30.0]
    m = sim.samples_member[-1]
    assert isinstance(m, MemberSample) and m.member == "MEMB1" and m.t_s == 30.0
    assert m.page_in_s == m.xstor_in_s + m.dasd_in_s
    g = sim.samples_guest[-1]
    assert isinstance(g, GuestSample) and g.t_s == 30.0 and g.central > 0
    with pytest.raises(AttributeError):
        m.central_used = 0  # type: ignore[misc]
    assert RunStore.MEMBER_COLUMNS == MemberSample._fields
    assert RunStore.GUEST_COLUMNS == GuestSample._fields


def test_the_stores_rows_are_the_engines_sample_records(tmp_path):
    sim = _sim("overcommit")
    sim.run_until(60)
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.save(sim, build_summary(sim, "test"), "start", "end", "test")
    members = sorted(sim.samples_member, key=lambda s: (s.member, s.t_s))
    guests = sorted(sim.samples_guest, key=lambda s: (s.userid, s.t_s))
    assert store.member_series(run_id) == [s._asdict() for s in members]
    assert store.guest_series(run_id) == [s._asdict() for s in guests]
    store.close()


def test_a_feed_at_the_sample_rate_gives_the_runs_records_and_changes_nothing():
    plain = _sim("overcommit")
    plain.run_until(120)
    sim = _sim("overcommit")
    every_step = sim.sample_feed()
    at_sample_rate = sim.sample_feed(sim.sample_s)
    sim.run_until(120)
    # watching changes nothing in the run
    assert sim.samples_member == plain.samples_member
    assert sim.samples_guest == plain.samples_guest
    assert [(e.kind, e.t_s) for e in sim.events] == [(e.kind, e.t_s) for e in plain.events]
    sets = at_sample_rate.take_new()
    assert all(isinstance(s, SampleSet) for s in sets)
    assert [m for s in sets for m in s.members] == sim.samples_member
    assert [g for s in sets for g in s.guests] == sim.samples_guest
    assert at_sample_rate.take_new() == ()  # handed over once
    steps = every_step.take_new()
    assert [s.t_s for s in steps] == [float(t) for t in range(121)]
    # a sample taken at the same time has the same amounts (rates cover their own interval)
    by_t = {s.t_s: s for s in steps}
    for s in sets:
        assert [m[:6] for m in by_t[s.t_s].members] == [m[:6] for m in s.members]
    with pytest.raises(dataclasses.FrozenInstanceError):
        steps[0].t_s = 1.0  # type: ignore[misc]


def test_link_samples_add_up_to_the_pages_a_relocation_moved():
    sim = _sim("lgr-short-destination")
    feed = sim.sample_feed()
    sim.run_until(200)
    sets = feed.take_new()
    links = [(s.t_s, link) for s in sets for link in s.links]
    assert links, "the relocation starts at t=30"
    assert {link.userid for _, link in links} == {"LNXBUSY"}
    assert min(t for t, _ in links) == pytest.approx(31.0)
    (r,) = [r for r in sim.snapshot().relocations if r.userid == "LNXBUSY"]
    assert r.state == "done"
    sent = sum(link.pages_per_s * sim.step_s for _, link in links)
    assert sent == pytest.approx(r.pages_moved)
    assert links[-1][1].pages_left == 0 and links[-1][1].link_pages_per_s == 0.0

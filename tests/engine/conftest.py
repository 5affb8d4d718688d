"""Small worlds built in code for engine tests."""

from __future__ import annotations

import pytest

from ssisim.engine import (
    GuestConfig,
    MemberConfig,
    ScenarioConfig,
    Simulation,
    VolumeConfig,
    WorkloadSpec,
    size_to_pages,
)


def member(name="MEMB1", central="256M", xstor="0", paging="1G", cpus=2, service_ms=0.5,
           queue_depth=4, **kw):
    vols = (VolumeConfig("PAG001", size_to_pages(paging), service_ms, queue_depth),) \
        if paging else ()
    return MemberConfig(name=name, cpus=cpus, central_pages=size_to_pages(central),
                        xstor_pages=size_to_pages(xstor), volumes=vols, cp_pages=0, **kw)


def guest(userid, storage="64M", member="MEMB1", kind="idle", vcpus=1, **params):
    extra = {k: params.pop(k) for k in ("share", "set_reserved_pages", "logged_on") if k in params}
    return GuestConfig(userid=userid, member=member, storage_pages=size_to_pages(storage),
                       vcpus=vcpus, workload=WorkloadSpec(kind, params), **extra)


def world(members, guests, seed=1, timeline=()):
    return Simulation(ScenarioConfig(name="test", members=list(members), guests=list(guests),
                                     timeline=list(timeline), seed=seed, duration_s=60))


@pytest.fixture
def make():
    """Builders: ``make.member(...)``, ``make.guest(...)``, ``make.world(members, guests)``."""

    class _M:
        pass

    m = _M()
    m.member = member
    m.guest = guest
    m.world = world
    return m

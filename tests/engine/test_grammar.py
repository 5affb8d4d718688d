"""Commands as values: every verb's text parses into a frozen typed command that prints back as
canonical CP text, and parsing that text gives the same command."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import guest, member, world
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ssisim.engine import (
    WORKLOAD_TYPES,
    ChpidConfig,
    CPError,
    LinkConfig,
    ScenarioConfig,
    Simulation,
    Ticket,
)
from ssisim.engine.cp import grammar as G

NAME = st.from_regex(r"[A-Z$#@][A-Z0-9$#@_]{0,6}[0-9]", fullmatch=True)  # never a keyword
NUMBERS = st.floats(allow_nan=False, allow_infinity=False)


def kind_values(kind: G.Kind):
    if isinstance(kind, G.Name):
        return NAME
    if isinstance(kind, G.Pages):
        return st.integers(0, G.MAX_PAGES)
    if isinstance(kind, G.Choice):
        return st.sampled_from([w for w, _ in kind.words if w != "HIBERNATE"])
    if isinstance(kind, G.Number):
        base = (st.integers(int(kind.lo), int(kind.hi)) if kind.integer
                else st.floats(kind.lo, kind.hi, allow_nan=False))
        extra = []
        if kind.nolimit:
            extra.append(st.none())
        if kind.auto:
            extra.append(st.just("AUTO"))
        return st.one_of(base, *extra)
    if isinstance(kind, G.Word) and kind.what == "userid":
        return NAME  # QUERY userid
    if isinstance(kind, G.Word):
        return st.sampled_from([v for v, _ in G.VERBS])  # HELP's topic
    raise AssertionError(kind)


@st.composite
def workload_params(draw, kind: str | None):
    types = [kind] if kind else list(WORKLOAD_TYPES)
    spec = {}
    for t in types:
        spec.update(WORKLOAD_TYPES[t]["params"])
    names = draw(st.lists(st.sampled_from(sorted(spec)), unique=True, max_size=4)) if spec else []
    out = []
    for n in names:
        p = spec[n]
        v = draw(st.floats(p.lo, p.hi, allow_nan=False))
        if n == "buffer_mb" and 0 < v < 1 / 256:
            v = 0.0
        out.append((n, v))
    return tuple(out)


SIMPLE = [G.QueryNames, G.QueryAllocPage, G.IndicateLoad, G.Stop, G.Begin, G.Hint]


@st.composite
def commands(draw, cls=None, depth=0, guest=False):
    cls = cls or draw(st.sampled_from(G.COMMAND_TYPES if depth == 0 else SIMPLE))
    values = {}
    for el in cls.FORM:
        if isinstance(el, G.Arg):
            if el.guest_omits:
                values[el.name] = None if guest else draw(NAME)
            elif el.optional and draw(st.booleans()):
                continue
            elif cls is G.WorkloadStart and el.name == "type":
                values["type"] = draw(st.sampled_from([t.upper() for t in WORKLOAD_TYPES]))
            else:
                values[el.name] = draw(kind_values(el.kind))
        elif isinstance(el, G.Opt):
            if cls is G.VmrelocateTest and el.name != "force_storage":
                continue
            if draw(st.booleans()):
                values[el.name] = el.value if el.kind is None else draw(kind_values(el.kind))
        elif isinstance(el, G.Rest):
            values[el.name] = draw(commands(depth=depth + 1, guest=cls is G.Send))
        elif isinstance(el, G.Pairs):
            kind = values.get("type")
            values[el.name] = draw(workload_params(kind.lower() if kind else None))
    if cls is G.WorkloadSet and not values.get("params"):
        values["params"] = (("rate_pages_s", 5.0),)
    cmd = cls(**values)
    try:
        cmd.check()
    except CPError:
        assume(False)
    return cmd


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands())
def test_printed_commands_parse_back_to_the_same_command(cmd):
    text = str(cmd)
    again = G.parse_command(text)
    assert again == cmd, text
    assert str(again) == text


@pytest.mark.parametrize("cls", G.COMMAND_TYPES, ids=lambda c: c.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_form_of_every_verb_round_trips(cls, data):
    cmd = data.draw(commands(cls=cls))
    assert G.parse_command(str(cmd)) == cmd


def test_commands_are_frozen_values():
    cmd = G.parse_command("vmrel move lnx01 memb2 async immed")
    assert cmd == G.VmrelocateMove(userid="LNX01", dest="MEMB2", sync=False, immediate=True,
                                   maxquiesce_s=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.userid = "X"  # type: ignore[misc]
    assert hash(cmd) == hash(G.parse_command(str(cmd)))


@pytest.mark.parametrize("text, msgid, words", [
    ("VMRELOCATE MOVE LNX01 TO MEMB2 MAXQUIESCE banana", "HCPRLH009E", "MAXQUIESCE - banana"),
    ("VMRELOCATE MOVE LNX01 TO MEMB2 MAXQUIESCE 0", "HCPRLH009E", "(1 to 99,999,999)"),
    ("VMRELOCATE TEST LNX01 MEMB2 IMMEDIATE", "HCPRLH1941E", "conflicts with TEST"),
    ("VMRELOCATE MOVE LNX01 MEMB2 MAXQ 20 MAXTOTAL 10", "HCPRLH1941E", "less than MAXQUIESCE"),
    ("VMRELOCATE MOVE LNX01 MEMB2 SYNC ASYNC", "HCPRLH1941E", "conflict"),
    ("VMRELOCATE MOVE LNX01 MEMB2 IMMED IMMED", "HCPRLH1941E", "more than once"),
    ("VMRELOCATE MOVE LNX01", "HCPVMR026E", "destination member"),
    ("SET SHARE G1 ABSOLUTE 150%", "HCPSET009E", "(1 to 100)"),
    ("LPM G1 TO VMB THREADS 9", "HCPLPM009E", "(1 to 8)"),
    ("VMOTION G1 DS2 METHOD FAST", "HCPVMO003E", "methods: MIRROR"),
    ("WORKLOAD G1 START BOGUS", "HCPWKL003E", "Unknown workload type BOGUS"),
    ("WORKLOAD G1 SET NOPE 1", "HCPWKL003E", "No workload has a parameter nope"),
    ("FROB", "HCPCMD001E", "Unknown CP command: FROB"),
    ("QUERY", "HCPQUE026E", "Operand missing"),
])
def test_a_bad_command_gets_cps_message(text, msgid, words):
    with pytest.raises(CPError) as e:
        G.parse_command(text)
    assert e.value.msgid == msgid and words in e.value.text


def test_a_guest_leaves_out_its_own_user_id():
    cmd = G.parse_command("SEND CP LNX01 WORKLOAD START IDLE WSS_MB 8")
    assert cmd == G.Send(userid="LNX01", command=G.WorkloadStart(
        userid=None, type="IDLE", params=(("wss_mb", 8.0),)))
    assert str(cmd) == "SEND CP LNX01 WORKLOAD START IDLE WSS_MB 8"


def test_a_command_submitted_while_a_sync_relocation_holds_the_console_gets_a_ticket():
    sim = world([member("MEMB1", central="512M"), member("MEMB2", central="512M")],
                [guest("LNX01", "256M", kind="randchange", fraction=0.5, rate_pages_s=2000)])
    sc = sim.scenario
    sim = Simulation(ScenarioConfig(name="t", members=sc.members, guests=sc.guests, seed=1,
                                    links=[LinkConfig(("MEMB1", "MEMB2"), (ChpidConfig(2, 1),))],
                                    duration_s=600))
    sim.run_until(5)
    first = sim.submit(G.parse_command("VMRELOCATE MOVE LNX01 MEMB2"))
    assert first.rc == 0 and first.command == G.VmrelocateMove(userid="LNX01", dest="MEMB2")
    waiting = sim.submit("QUERY NAMES")
    assert isinstance(waiting, Ticket) and sim.answer(waiting) is None
    while sim.answer(waiting) is None and sim.t < 600:
        sim.step()
    resp = sim.answer(waiting)
    assert resp is not None and resp.rc == 0 and resp.command == G.QueryNames()
    assert sim.guests["LNX01"].member == "MEMB2"

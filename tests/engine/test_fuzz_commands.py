"""Streams of CP commands, plausible and hostile, against a small cluster that has everything
(XSTOR, paging volumes, a link, datastores, disks, swap, a lesson): every command gets an
answer of single lines, nothing raises, and ``verify()`` holds after every command.

``--hypothesis-profile=long`` runs thousands of streams (docs/reliability.md).
"""

from __future__ import annotations

import time

import pytest
from fuzz_profile import examples, is_long
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from physical_bounds import physical_bounds_broken

from ssisim.engine import CPResponse, Simulation, loads_scenario

WORLD = """
format = "ssisim-scenario"
version = 1
name = "fuzz"
[run]
seed = 3
duration_s = 3600
[lesson]
id = "fuzz-lesson"
title = "Fuzz"
goal = "Move G1"
briefing = "Move G1 to VMB."
forbid = []
[[lesson.hint]]
text = "Use VMRELOCATE."
[[objective]]
kind = "relocated"
guest = "G1"
to = "VMB"
[[member]]
name = "VMA"
cpus = 2
central = "96M"
xstor = "16M"
  [[member.volume]]
  size = "256M"
  [[member.volume]]
  size = "64M"
  service_ms = 5
[[member]]
name = "VMB"
cpus = 2
central = "64M"
firmware = "older"
  [[member.volume]]
  size = "128M"
[[member]]
name = "VMC"
central = "32M"
[[link]]
members = ["VMA", "VMB"]
chpids = [{gbps = 8}]
[[datastore]]
name = "DS1"
size_gb = 8
[[datastore]]
name = "DS2"
size_gb = 8
[[guest]]
userid = "G1"
member = "VMA"
storage = "48M"
swap = "64M"
workload = { type = "randchange", fraction = 0.5, rate_pages_s = 3000 }
disk = { size_gb = 1, datastore = "DS1", write_iops = 50 }
[[guest]]
userid = "G2"
member = "VMA"
storage = "32M"
workload = { type = "seqtouch", rate_pages_s = 2000 }
[[guest]]
userid = "G3"
member = "VMB"
storage = "24M"
swap = "8M"
workload = { type = "appserver", wss_mb = 8, requests_per_s = 10 }
[[guest]]
userid = "G4"
member = "VMA"
storage = "16M"
logged_on = false
"""

USERIDS = ["G1", "G2", "G3", "G4", "G9", "OPERATOR", "g1", "NAMSE"]
MEMBERS = ["VMA", "VMB", "VMC", "VMZ"]
NUMBERS = ["0", "1", "2", "8", "10", "30", "4096", "-1", "1.5", "1e308", "1e400", "inf", "-inf",
           "nan", "Infinity", "²", "٣", "0x10", "16M", "2G", "1P", "99999999999999999999G",
           "OFF", "NOLIMIT", "AUTO", "9223372036854775808"]
WORDS = ["USER", "TO", "SYNC", "ASYNC", "IMMEDIATE", "IMMED", "MAXQUIESCE", "MAXQ", "MAXTOTAL",
         "FORCE", "STORAGE", "NOLIMIT", "TEST", "MOVE", "STATUS", "CANCEL", "THREADS", "COMPRESS",
         "METHOD", "MIRROR", "DBT", "INCDBT", "SNAPSHOT", "HEAT", "START", "STOP", "SET", "CPU",
         "ALL", "CMD", "CP", "SUSPEND", "RESUME", "HIBERNATE", "RESERVED", "SHARE", "ABSOLUTE",
         "RELATIVE", "LOAD", "NAMES", "SSI", "ALLOC", "PAGE", "STORAGE", "XSTORE", "WORKLOAD",
         "ISLINK", "AT", "END", "BRIEFING", "SEQTOUCH", "RANDCHANGE", "IDLE", "APPSERVER", "NONE",
         "BUFFER_MB", "INSTANCES", "RATE_PAGES_S", "FRACTION", "WSS_MB", "REQUESTS_PER_S",
         "DS1", "DS2", "DS9"]
VERBS = ["VMRELOCATE", "VMREL", "QUERY", "Q", "INDICATE", "IND", "XAUTOLOG", "LOGON", "LOGOFF",
         "FORCE", "SET", "SEND", "WORKLOAD", "WORK", "STOP", "BEGIN", "LINUX", "VMOTION", "LPM",
         "HINT", "LESSON", "AT", "HELP", "FOO"]

# a token: mostly from the vocabulary, sometimes any text without spaces
token = st.one_of(
    st.sampled_from(USERIDS), st.sampled_from(MEMBERS), st.sampled_from(NUMBERS),
    st.sampled_from(WORDS), st.sampled_from(WORDS), st.sampled_from(WORDS),
    st.text(st.characters(blacklist_categories=("Zs", "Cs"), blacklist_characters="\n\r\t\x0b\x0c"
                          "\x1c\x1d\x1e\x1f\x85\u2028\u2029"), min_size=1, max_size=12),
)
command = st.tuples(st.sampled_from(VERBS), st.lists(token, max_size=8)).map(
    lambda vw: " ".join([vw[0], *vw[1]]))
step = st.tuples(st.floats(0, 8, allow_nan=False), command)


_COUNT = [0]


@pytest.fixture(scope="module", autouse=True)
def _report_count():
    """Print how many commands the streams issued (run with -s; figures in docs/reliability.md)."""
    yield
    print(f"\nfuzz: {_COUNT[0]:,} commands issued")


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# long streams in the deep search: more commands per world, and worlds further from the start
@given(st.lists(step, min_size=15 if is_long() else 5, max_size=60 if is_long() else 40))
def test_a_command_stream_never_raises_and_every_invariant_holds(stream):
    sim = Simulation(loads_scenario(WORLD, "fuzz.toml"))
    t0 = time.perf_counter()
    for wait, text in stream:
        sim.run_until(sim.t + wait)
        resp = sim.execute(text)
        _COUNT[0] += 1
        assert isinstance(resp, CPResponse)
        for line in resp.lines:
            assert "\n" not in line and "\r" not in line, (text, line)
            assert len(line) < 2000, text
        problems = sim.verify()
        assert problems == [], (text, problems)
    sim.run_until(sim.t + 5)
    assert sim.verify() == []
    assert physical_bounds_broken(sim) == []
    assert time.perf_counter() - t0 < 60


def test_every_verb_of_the_vocabulary_is_tried():
    # the stream draws from these; a verb dropped from the engine would show here first
    sim = Simulation(loads_scenario(WORLD, "fuzz.toml"))
    unknown = [v for v in VERBS if sim.execute(v).lines[:1]
               and sim.execute(v).lines[0].startswith("HCPCMD001E")]
    assert unknown == ["FOO"] or unknown == ["HELP", "FOO"]

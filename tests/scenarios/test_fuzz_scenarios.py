"""Mutated scenario files: ``ssisim check`` answers 0 or 1 with one line, never a traceback, and
what it accepts runs with every invariant holding.

The bundled scenarios are the seeds; each case changes, removes, repeats or cuts lines of one
of them with values a hostile or careless author might write. ``--hypothesis-profile=long``
tries thousands (docs/reliability.md).
"""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
import time
from importlib import resources
from pathlib import Path

import pytest
from fuzz_profile import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from physical_bounds import physical_bounds_broken

from ssisim.cli import main
from ssisim.engine import ScenarioError, Simulation, load_scenario

ROOT = Path(str(resources.files("ssisim.scenarios")))
# the 2 TB scenarios are read and checked, but run only briefly: a step of theirs costs more
SEEDS = sorted(p for p in ROOT.rglob("*.toml"))
TEXTS = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in SEEDS}

VALUES = [
    "nan", "inf", "-inf", "+inf", "1e308", "-1e308", "1e-308", "-1", "0", "0.0", "-0.0", "1",
    "0.001", "1e-9", "4096", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "0x7fffffffffffffff", "true", "false", '""', '" "', '"1P"', '"64T"', '"65T"', '"99999999G"',
    '"0.0001M"', '"-4G"', '"4 G"', '"²"', '"٣G"', '"😀"', '"\\u001b[2J"', '"a\\nb"', '"VMA"',
    '"MEMB1"', '"MEMB9"', '"LNX01"', '"nolimit"', '"seqtouch"', '"randchange"', '"idle"',
    "[]", "[1, 2]", '["MEMB1", "MEMB1"]', '["x"]', "{}", "{ type = 1 }",
    '{ type = "seqtouch", instances = 4096, buffer_mb = 1 }', "[" * 40 + "]" * 40,
    "1979-05-27T07:32:00Z", '"' + "X" * 5000 + '"',
]
OPS = ["value", "value", "value", "delete", "repeat", "cut", "header", "swap"]
HEADERS = ["[[guest]]", "[[member]]", "[[link]]", "[[timeline]]", "[[lesson]]", "[lesson]",
           "[run]", "[[objective]]", "[[member.volume]]", "[guest.workload]", "[[datastore]]"]


def mutate(text: str, op: str, at: int, pick: int, value: str) -> str:
    lines = text.split("\n")
    i = at % len(lines)
    if op == "value":
        keyed = [n for n, line in enumerate(lines)
                 if "=" in line and not line.lstrip().startswith("#")]
        if keyed:
            n = keyed[at % len(keyed)]
            key = lines[n].split("=", 1)[0]
            lines[n] = f"{key}= {value}"
    elif op == "delete":
        del lines[i]
    elif op == "repeat":
        lines.insert(i, lines[i])
    elif op == "cut":
        return text[: at % (len(text) + 1)]
    elif op == "header":
        lines.insert(i, HEADERS[pick % len(HEADERS)])
    elif op == "swap":
        j = pick % len(lines)
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def check(path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["check", str(path)])
    return rc, out.getvalue(), err.getvalue()


_COUNT = {"files": 0, "refused": 0, "ran": 0}


@pytest.fixture(scope="module", autouse=True)
def _report_count():
    """Print how many files were tried (run with -s; figures in docs/reliability.md)."""
    yield
    print(f"\nfuzz: {_COUNT['files']:,} mutated files, {_COUNT['refused']:,} refused with a "
          f"message, {_COUNT['ran']:,} run")


mutation = st.tuples(st.sampled_from(OPS), st.integers(0, 10_000), st.integers(0, 10_000),
                     st.sampled_from(VALUES))


@settings(max_examples=examples(30), deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(sorted(TEXTS)), mutations=st.lists(mutation, min_size=1, max_size=3))
def test_a_mutated_scenario_is_checked_and_what_passes_runs_cleanly(seed, mutations):
    text = TEXTS[seed]
    for op, at, pick, value in mutations:
        text = mutate(text, op, at, pick, value)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mutated.toml"
        path.write_text(text, encoding="utf-8")
        rc, out, err = check(path)
        _COUNT["files"] += 1
        assert rc in (0, 1), err
        if rc == 1:
            # one line, naming the file
            assert err.startswith(f"ssisim: {path}") and err.count("\n") == 1, err
            assert len(err) < 1000
            try:
                load_scenario(path)
            except ScenarioError:
                _COUNT["refused"] += 1
                return
            raise AssertionError("check refused a file the loader accepts")
        assert "OK" in out
        cfg = load_scenario(path)
        assert all(math.isfinite(x) for x in (cfg.duration_s, cfg.step_s, cfg.sample_s))
        sim = Simulation(cfg)
        t0 = time.perf_counter()
        # a few steps of the mutated world; the bound keeps a case to a few seconds of wall time
        until = min(cfg.duration_s, 20 * cfg.step_s, 5.0)
        sim.run_until(until)
        assert sim.verify() == []
        assert physical_bounds_broken(sim) == []
        assert time.perf_counter() - t0 < 60
        _COUNT["ran"] += 1

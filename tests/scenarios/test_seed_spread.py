"""Every bundled scenario gives the results of the model that walks every first touch page by
page, within the seed-to-seed spread (seed_spread.py says how the band was made): holding first
touches back (the default) must not be told apart from another seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from seed_spread import run

from ssisim.cli import bundled_dir

STORED = json.loads((Path(__file__).parent / "seed_spread.json").read_text(encoding="utf-8"))
SLOW = ("pause", "large", "shop-1000")
CASES = [pytest.param(k, marks=pytest.mark.slow)
         if {Path(k).parent.name, Path(k).stem} & set(SLOW) else k
         for k in sorted(STORED["scenarios"])]


def outside(value: float, lo: float, hi: float, count: bool = False) -> bool:
    """True when ``value`` is outside the seeds' band widened by its own width: at least 2 % of
    the values, and for a count of pages at least three times its counting noise (the square
    root of the count: a few seeds underestimate the spread of a small count)."""
    w = max(hi - lo, 0.02 * max(abs(lo), abs(hi)), 1e-3)
    if count:
        w = max(w, 3 * max(abs(hi), 1.0) ** 0.5)
    return not (lo - w <= value <= hi + w)


def is_count(key: str) -> bool:
    """Numbers that count pages (not seconds, rates or throughput)."""
    return not any(w in key for w in ("_s", "throughput", "rates_per_s", "pct"))


def is_result(key: str) -> bool:
    """A result of the run, not one sample of it (the last throughput sample, the peak
    one-sample paging rate: single samples spread far more than three seeds show)."""
    return not (key.endswith(".last") or key.endswith("_peak"))


@pytest.mark.parametrize("key", CASES)
def test_results_stay_within_the_seed_spread(key):
    band = STORED["scenarios"][key]
    now = run(bundled_dir() / key)
    off = {k: (now[k], lo, hi) for k, (lo, hi) in band.items()
           if k in now and is_result(k) and outside(now[k], lo, hi, is_count(k))}
    assert not off, f"{len(off)} of {len(band)} results outside the seed spread: " + \
        "; ".join(f"{k} = {v:g} (seeds gave {lo:g} to {hi:g})" for k, (v, lo, hi) in
                  list(off.items())[:8])
    missing = set(band) - set(now)
    assert not missing, f"results no longer reported: {sorted(missing)[:8]}"

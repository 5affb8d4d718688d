"""The numba page kernels agree with their plain-Python twins, with the JIT on and off."""

from __future__ import annotations

import numpy as np
import pytest
import reference as R
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ssisim.engine.kernels import pages as K


def random_state(seed: int, npages: int) -> np.ndarray:
    """A valid page state: each page nowhere, in central, XSTOR or DASD, with plausible bits."""
    rng = np.random.default_rng(seed)
    loc = rng.integers(0, 4, npages)  # 0 none, 1 central, 2 xstor, 3 dasd
    b = {p: np.zeros(npages, dtype=bool) for p in range(K.NPLANES)}
    b[K.CEN] = loc == 1
    b[K.XST] = loc == 2
    b[K.DSD] = loc == 3
    b[K.SLOT] = b[K.DSD] | (b[K.CEN] & (rng.random(npages) < 0.4))
    b[K.CHG] = b[K.CEN] & (rng.random(npages) < 0.5)
    b[K.REF] = b[K.CEN] & (rng.random(npages) < 0.5)
    return R.pack(b, npages)


touch_args = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "npages": st.integers(1, 700),
    "lo_frac": st.floats(0, 0.5),
    "hi_frac": st.floats(0.5, 1.0),
    "start_frac": st.floats(0, 0.999),
    "density": st.sampled_from([0.0, 0.05, 0.5, 2.0, -1.0]),  # -1: every page
    "cover_laps": st.floats(0.01, 1.5),
    "write_frac": st.sampled_from([0.0, 0.3, 1.0]),
    "budget": st.floats(1e-6, 2e-3),
    "frames": st.integers(0, 400),
    "reads": st.integers(0, 400),
    "rng": st.integers(1, 2**63 - 1),
})


def _call_touch(fn, planes, a, lo, hi, start, log_q, cover):
    out = np.zeros(K.T_OUT_LEN)
    rng = np.array([a["rng"]], dtype=np.uint64)
    fn(planes, lo, hi, start, -1, log_q, cover, a["write_frac"], a["budget"], a["budget"] * 1.3,
       1e-6, 2e-6, 10e-6, 100e-6, 5e-6, a["frames"], a["reads"], False, rng, out)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(touch_args)
def test_touch_matches_reference(a):
    n = a["npages"]
    lo = int(n * a["lo_frac"])
    hi = max(lo + 1, int(n * a["hi_frac"]))
    hi = min(hi, n)
    start = lo + int((hi - lo) * a["start_frac"])
    log_q = 0.0 if a["density"] < 0 else -a["density"]
    cover = max(1, int((hi - lo) * a["cover_laps"]))
    planes = random_state(a["seed"], n)
    expect_b = R.unpack(planes, n)
    exp = R.touch_region(expect_b, lo, hi, start, -1, log_q, cover, a["write_frac"], a["budget"],
                         a["budget"] * 1.3, 1e-6, 2e-6, 10e-6, 100e-6, 5e-6, a["frames"],
                         a["reads"], R.Rng(a["rng"]))
    for fn in (K.touch_region, K.touch_region.py_func):
        got_planes = planes.copy()
        out = _call_touch(fn, got_planes, a, lo, hi, start, log_q, cover)
        got_b = R.unpack(got_planes, n)
        for p in (K.CEN, K.XST, K.DSD, K.SLOT, K.CHG, K.REF):
            assert np.array_equal(got_b[p], expect_b[p]), f"plane {p} differs"
        assert int(out[K.T_TOUCHES]) == exp["touches"]
        assert int(out[K.T_NEW]) == exp["new"]
        assert int(out[K.T_XSTOR_IN]) == exp["xin"]
        assert int(out[K.T_DASD_IN]) == exp["din"]
        assert int(out[K.T_STOP]) == exp["stop"]
        assert int(out[K.T_CURSOR]) == exp["cursor"]
        assert out[K.T_CPU_S] == pytest.approx(exp["cpu"], rel=1e-9, abs=1e-15)
        assert K.check_planes(got_planes, n) == -1


steal_args = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "npages": st.integers(1, 700),
    "cursor": st.integers(0, 20),
    "want": st.integers(0, 500),
    "take_ref": st.booleans(),
    "xstor": st.integers(0, 300),
    "writes": st.integers(0, 300),
    "slots": st.integers(0, 300),
})


@settings(max_examples=150, deadline=None)
@given(steal_args)
def test_steal_matches_reference(a):
    n = a["npages"]
    planes = random_state(a["seed"], n)
    expect_b = R.unpack(planes, n)
    exp = R.steal_pages(expect_b, n, a["cursor"], a["want"], a["take_ref"], a["xstor"],
                        a["writes"], a["slots"])
    for fn in (K.steal_pages, K.steal_pages.py_func):
        got = planes.copy()
        out = np.zeros(K.S_OUT_LEN, dtype=np.int64)
        fn(got, a["cursor"], a["want"], a["take_ref"], a["xstor"], a["writes"], a["slots"], out)
        got_b = R.unpack(got, n)
        for p in (K.CEN, K.XST, K.DSD, K.SLOT, K.CHG, K.REF):
            assert np.array_equal(got_b[p], expect_b[p]), f"plane {p} differs"
        assert list(out) == exp
        assert K.check_planes(got, n) == -1


def test_steal_never_takes_more_than_asked_nor_referenced_pages_first():
    n = 640
    b = {p: np.zeros(n, dtype=bool) for p in range(K.NPLANES)}
    b[K.CEN][:] = True
    b[K.REF][::2] = True  # every other page referenced
    planes = R.pack(b, n)
    out = np.zeros(K.S_OUT_LEN, dtype=np.int64)
    K.steal_pages(planes, 0, 100, False, 1000, 0, 0, out)
    after = R.unpack(planes, n)
    assert out[K.S_TO_XSTOR] == 100
    stolen = ~after[K.CEN]
    assert stolen.sum() == 100
    assert not (stolen & b[K.REF]).any(), "a referenced page was stolen before its second chance"


def test_migrate_moves_xstor_pages_to_dasd_slots():
    n = 300
    b = {p: np.zeros(n, dtype=bool) for p in range(K.NPLANES)}
    b[K.XST][50:250] = True
    planes = R.pack(b, n)
    out = np.zeros(K.M_OUT_LEN, dtype=np.int64)
    K.migrate_xstor(planes, 0, 120, 1000, 1000, out)
    after = R.unpack(planes, n)
    assert out[0] == 120
    assert after[K.DSD].sum() == 120 and after[K.XST].sum() == 80
    assert (after[K.SLOT] == after[K.DSD]).all()
    assert K.check_planes(planes, n) == -1
    K.migrate_xstor(planes, int(out[1]), 1000, 1000, 30, out)
    assert out[0] == 30 and out[2] == 1, "stops when the slots run out"


def test_sequential_lap_fast_forward_counts_the_same_touches():
    """A resident buffer walked many times: counting laps equals walking them."""
    n = 64 * 50
    planes = np.zeros(((n + 63) // 64, K.NPLANES), dtype=np.uint64)
    K.fill_resident(planes, n, False)
    out = np.zeros(K.T_OUT_LEN)
    rng = np.array([5], dtype=np.uint64)
    budget = 1e-6 * n * 7.5  # seven and a half laps
    K.touch_region(planes, 0, n, 0, -1, 0.0, 1 << 62, 1.0, budget, budget, 1e-6, 0, 0, 0, 0,
                   0, 0, False, rng, out)
    assert int(out[K.T_TOUCHES]) == pytest.approx(7.5 * n, abs=64)
    assert int(out[K.T_STOP]) == K.STOP_BUDGET


def test_count_planes_is_popcount():
    planes = random_state(3, 1000)
    b = R.unpack(planes, 1000)
    out = np.zeros(K.NPLANES, dtype=np.int64)
    K.count_planes(planes, out)
    assert [int(x) for x in out] == [int(b[p].sum()) for p in range(K.NPLANES)]


def test_check_planes_finds_a_page_in_two_places():
    planes = random_state(4, 640)
    assert K.check_planes(planes, 640) == -1
    planes[3, K.XST] |= planes[3, K.CEN] | np.uint64(1)
    planes[3, K.CEN] |= np.uint64(1)
    assert K.check_planes(planes, 640) == 3


def word_state(seed: int, npages: int) -> np.ndarray:
    """A page state made of whole words: each word all new, resident, in XSTOR or on DASD."""
    rng = np.random.default_rng(seed)
    loc = np.repeat(rng.integers(0, 4, (npages + 63) // 64), 64)[:npages]
    b = {p: np.zeros(npages, dtype=bool) for p in range(K.NPLANES)}
    b[K.CEN] = loc == 1
    b[K.XST] = loc == 2
    b[K.DSD] = loc == 3
    b[K.SLOT] = b[K.DSD].copy()
    return R.pack(b, npages)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(touch_args)
@example({"seed": 4_294_967_294, "npages": 256, "lo_frac": 0.0, "hi_frac": 1.0,
          "start_frac": 0.0, "density": 0.0, "cover_laps": 1.0, "write_frac": 0.0,
          "budget": 0.001, "frames": 69, "reads": 5, "rng": 1})
def test_sequential_word_paths_match_reference(a):
    """Whole words at a time (new, resident, XSTOR, DASD) do what page by page would."""
    # (a budget just off the sums of whole costs: the word paths add a word's costs at once and
    # the pages add them one by one, so a budget exactly at such a sum, 0.001 s after 896 us
    # and four reads of 101 us, fell on either side of it in the last bit)
    a = dict(a, budget=a["budget"] * (1 + 1e-9))
    n = 64 * (1 + a["npages"] // 64)
    planes = word_state(a["seed"], n)
    expect_b = R.unpack(planes, n)
    cover = max(1, int(n * a["cover_laps"]))
    exp = R.touch_region(expect_b, 0, n, 0, -1, 0.0, cover, a["write_frac"], a["budget"],
                         a["budget"] * 1.3, 1e-6, 2e-6, 10e-6, 100e-6, 5e-6, a["frames"],
                         a["reads"], R.Rng(a["rng"]))
    got = planes.copy()
    out = _call_touch(K.touch_region, got, a, 0, n, 0, 0.0, cover)
    got_b = R.unpack(got, n)
    for p in (K.CEN, K.XST, K.DSD, K.SLOT, K.CHG, K.REF):
        assert np.array_equal(got_b[p], expect_b[p]), f"plane {p} differs"
    assert int(out[K.T_TOUCHES]) == exp["touches"]
    assert (int(out[K.T_NEW]), int(out[K.T_XSTOR_IN]), int(out[K.T_DASD_IN])) == (
        exp["new"], exp["xin"], exp["din"])
    assert int(out[K.T_STOP]) == exp["stop"]


@settings(max_examples=80, deadline=None)
@given(steal_args)
def test_steal_whole_words_match_reference(a):
    n = 64 * (1 + a["npages"] // 64)
    planes = word_state(a["seed"], n)
    b = R.unpack(planes, n)
    rng = np.random.default_rng(a["seed"])
    b[K.CHG] = b[K.CEN] & (rng.random(n) < 0.5)
    b[K.SLOT] = b[K.DSD] | (b[K.CEN] & (rng.random(n) < 0.5))
    planes = R.pack(b, n)
    exp = R.steal_pages(b, n, a["cursor"], a["want"], True, 0, a["writes"], a["slots"])
    out = np.zeros(K.S_OUT_LEN, dtype=np.int64)
    K.steal_pages(planes, a["cursor"], a["want"], True, 0, a["writes"], a["slots"], out)
    got_b = R.unpack(planes, n)
    for p in (K.CEN, K.XST, K.DSD, K.SLOT, K.CHG, K.REF):
        assert np.array_equal(got_b[p], b[p]), f"plane {p} differs"
    assert list(out) == exp

"""The move-bitmap kernels agree with their plain-Python twins, with the JIT on and off, and a
migration driven by them delivers every unit exactly once in its final version."""

from __future__ import annotations

import numpy as np
import reference_move as RM
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import Rng

from ssisim.engine.kernels import moves as M

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _planes(seed: int, units: int, density: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    words = M.words_for(units)
    out = []
    for _ in range(3):
        bits = list(rng.random(units) < density)
        out.append(RM.pack(bits, words))
    return out[0], out[1], out[2]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(1, 500), n=st.integers(0, 300),
       mode=st.sampled_from([M.TRACK_ALL, M.TRACK_COPIED, M.TRACK_NONE]),
       lo_frac=st.floats(0, 0.9), rng=st.integers(1, 2**63 - 1), track_hot=st.booleans())
def test_write_random_matches_twin(seed, units, n, mode, lo_frac, rng, track_hot):
    dirty, pending, hot = _planes(seed, units, 0.3)
    lo = int(units * lo_frac)
    hi = units
    d_b, p_b, h_b = (RM.unpack(x, units) for x in (dirty, pending, hot))
    exp = [0, 0, 0, 1 << 62, 0]
    RM.write_random(d_b, p_b, h_b if track_hot else None, mode, lo, hi, n, Rng(rng), exp)
    for fn in (M.write_random, M.write_random.py_func):
        d, h = dirty.copy(), hot.copy()
        out = np.array([0, 0, 0, 1 << 62, 0], dtype=np.int64)
        fn(d, pending.copy(), h, track_hot, mode, lo, hi, n, np.array([rng], dtype=np.uint64),
           out)
        assert RM.unpack(d, units) == d_b
        assert RM.unpack(h, units) == h_b
        assert list(out) == exp


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(2, 500), start_frac=st.floats(0, 1),
       count=st.integers(0, 900), mode=st.sampled_from([M.TRACK_ALL, M.TRACK_COPIED]))
def test_write_range_matches_twin(seed, units, start_frac, count, mode):
    dirty, pending, _ = _planes(seed, units, 0.5)
    lo, hi = units // 3, units
    start = lo + int((hi - lo - 1) * start_frac)
    d_b, p_b = RM.unpack(dirty, units), RM.unpack(pending, units)
    exp = [0, 0, 0, 1 << 62, 0]
    h_b = [False] * units
    RM.write_range(d_b, p_b, h_b, mode, lo, hi, start, count, exp)
    for fn in (M.write_range, M.write_range.py_func):
        d = dirty.copy()
        h = np.zeros_like(dirty)
        out = np.array([0, 0, 0, 1 << 62, 0], dtype=np.int64)
        fn(d, pending.copy(), h, True, mode, lo, hi, start, count, out)
        assert RM.unpack(h, units) == h_b
        assert RM.unpack(d, units) == d_b
        assert list(out) == exp


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(1, 600), heat=st.booleans(),
       density=st.floats(0, 1))
def test_begin_pass_matches_twin(seed, units, heat, density):
    dirty, pending, prev = _planes(seed, units, density)
    d_b, p_b, v_b = (RM.unpack(x, units) for x in (dirty, pending, prev))
    exp = RM.begin_pass(d_b, p_b, v_b, heat)
    for fn in (M.begin_pass, M.begin_pass.py_func):
        d, p, v = dirty.copy(), pending.copy(), prev.copy()
        got = fn(d, p, v, heat, 0, len(d))
        assert tuple(got) == exp
        assert RM.unpack(d, units) == d_b and RM.unpack(p, units) == p_b
        if heat:
            assert RM.unpack(v, units) == v_b


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(1, 700), density=st.floats(0, 1),
       budget_units=st.integers(0, 800), run_units=st.integers(0, 4), carry=st.booleans(),
       start_word=st.integers(0, 3))
def test_copy_pending_matches_twin(seed, units, density, budget_units, run_units, carry,
                                   start_word):
    # costs in powers of two keep the sums exact, so whole-word and unit-wise agree
    unit_s, run_s = 1 / 1024, run_units / 1024
    budget = budget_units / 1024
    pending, _, _ = _planes(seed, units, density)
    words = len(pending)
    start = min(start_word, words)
    p_b = RM.unpack(pending, units)
    exp = RM.copy_pending(p_b, start, words, budget, unit_s, run_s, carry)
    for fn in (M.copy_pending, M.copy_pending.py_func):
        p = pending.copy()
        out = np.zeros(M.C_OUT_LEN)
        fn(p, start, words, budget, unit_s, run_s, 1.0 if carry else 0.0, out)
        assert RM.unpack(p, units) == p_b
        assert int(out[M.C_UNITS]) == exp["units"]
        assert int(out[M.C_RUNS]) == exp["runs"]
        assert bool(out[M.C_DONE]) == exp["done"]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(1, 700), density=st.floats(0, 1),
       first_units=st.integers(0, 800), run_units=st.integers(1, 4))
def test_a_copy_split_in_two_calls_pays_the_seeks_of_one(seed, units, density, first_units,
                                                         run_units):
    """The mover does not stop between steps: a copy cut into two calls (the second going on
    with the first's carry) pays as many seeks as the copy in one call."""
    unit_s, run_s = 1 / 1024, run_units / 1024
    pending, _, _ = _planes(seed, units, density)
    words = len(pending)
    whole = pending.copy()
    out = np.zeros(M.C_OUT_LEN)
    M.copy_pending(whole, 0, words, 1e9, unit_s, run_s, 0.0, out)
    runs_once = int(out[M.C_RUNS])
    split = pending.copy()
    M.copy_pending(split, 0, words, first_units / 1024, unit_s, run_s, 0.0, out)
    runs = int(out[M.C_RUNS])
    M.copy_pending(split, int(out[M.C_CURSOR]), words, 1e9, unit_s, run_s, out[M.C_CARRY], out)
    assert runs + int(out[M.C_RUNS]) == runs_once
    assert not split.any()


def test_counts_and_set_all():
    p = np.zeros(3, dtype=np.uint64)
    M.set_all(p, 130)
    assert M.count_bits(p, 0, 3) == 130
    assert M.count_runs(p, 0, 3) == 1
    p[1] = np.uint64(0)
    assert M.count_runs(p, 0, 3) == 2


def _migrate(units: int, writes: list[int], mode: int, heat: bool, budget: int,
             max_passes: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A pre-copy migration driven by the kernels, with per-unit versions kept alongside.

    Returns source versions, destination versions, and how often each unit's final version
    was copied.
    """
    words = M.words_for(units)
    pending = np.zeros(words, dtype=np.uint64)
    dirty = np.zeros(words, dtype=np.uint64)
    prev = np.zeros(words, dtype=np.uint64)
    src = np.zeros(units, dtype=np.int64)
    dst = np.full(units, -1, dtype=np.int64)
    final_copies = [0] * units
    copies_of: dict[tuple[int, int], int] = {}
    M.set_all(pending, units)
    w_out = np.array([0, 0, 0, 1 << 62, 0], dtype=np.int64)
    c_out = np.zeros(M.C_OUT_LEN)
    it = iter(writes)
    passes = 1
    quiesced = False
    while True:
        before = np.array(RM.unpack(pending, units))
        M.copy_pending(pending, 0, words, budget / 1024, 1 / 1024, 0.0, 0.0, c_out)
        after = np.array(RM.unpack(pending, units))
        for i in np.nonzero(before & ~after)[0]:
            dst[i] = src[i]
            copies_of[(i, src[i])] = copies_of.get((i, src[i]), 0) + 1
        if not quiesced:
            for _ in range(3):  # the guest writes while the copy goes on
                i = next(it, None)
                if i is None:
                    break
                src[i % units] += 1
                if mode == M.TRACK_NONE and not RM.unpack(pending, units)[i % units]:
                    j = i % units
                    dst[j] = src[j]  # mirrored to both volumes: this version arrives now
                    copies_of[(j, src[j])] = copies_of.get((j, src[j]), 0) + 1
                M.write_range(dirty, pending, prev, heat, mode, 0, units, i % units, 1, w_out)
        if M.count_bits(pending, 0, words):
            continue
        if mode == M.TRACK_NONE or quiesced:
            break
        passes += 1
        if passes >= max_passes:
            quiesced = True  # the final pass: the guest is stopped, hot units included
            M.begin_pass(dirty, pending, prev, False, 0, words)
        else:
            M.begin_pass(dirty, pending, prev, heat, 0, words)
    for i in range(units):
        final_copies[i] = copies_of.get((i, src[i]), 0)
    return src, dst, final_copies


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(units=st.integers(1, 300), writes=st.lists(st.integers(0, 10_000), max_size=200),
       mode=st.sampled_from([M.TRACK_ALL, M.TRACK_COPIED, M.TRACK_NONE]), heat=st.booleans(),
       budget=st.integers(1, 64), max_passes=st.integers(2, 6))
def test_every_unit_arrives_once_in_its_final_version(units, writes, mode, heat, budget,
                                                      max_passes):
    src, dst, final = _migrate(units, writes, mode, heat and mode != M.TRACK_NONE, budget,
                               max_passes)
    assert np.array_equal(src, dst), "the destination holds every unit's final version"
    if mode == M.TRACK_ALL:
        # plain DBT may copy a unit written before its first copy twice: what incremental
        # DBT avoids
        assert all(c >= 1 for c in final)
    else:
        assert all(c == 1 for c in final), "each final version arrives exactly once"

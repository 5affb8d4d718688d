"""A change of structure changes no result: every bundled scenario's summary, every lesson's
reference grade and the ``validate`` table are byte-identical to those stored in
golden_results.json (taken with same_results.py before the command language became typed).

When a change of the *model* is meant to move results, regenerate the file with
``python tests/scenarios/same_results.py > tests/scenarios/golden_results.json`` and say why
in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from same_results import lesson_fingerprints, scenario_fingerprints, validate_fingerprint

GOLDEN = json.loads((Path(__file__).parent / "golden_results.json").read_text())

pytestmark = pytest.mark.slow


def test_every_bundled_scenario_gives_the_stored_summary():
    now = scenario_fingerprints()
    assert sorted(now) == sorted(GOLDEN["scenarios"])
    changed = [k for k in now if now[k] != GOLDEN["scenarios"][k]]
    assert not changed, f"summaries changed: {changed}"


def test_every_reference_session_gets_the_stored_grade():
    now = lesson_fingerprints()
    assert sorted(now) == sorted(GOLDEN["lessons"])
    changed = [k for k in now if now[k] != GOLDEN["lessons"][k]]
    assert not changed, f"grades changed: {changed}"


def test_validate_prints_the_stored_table():
    assert validate_fingerprint() == GOLDEN["validate"]

"""Fingerprints of everything ssisim computes for its bundled material: every bundled scenario's
summary, every lesson's reference grade and the ``validate`` table.

``python tests/scenarios/same_results.py > tests/scenarios/golden_results.json`` stores them;
test_same_results.py checks that a change of structure leaves every one byte-identical.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
from pathlib import Path

SOLUTIONS = Path(__file__).parent.parent / "lessons" / "solutions"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def scenario_fingerprints() -> dict[str, str]:
    """Each bundled scenario run to its end: a digest of its summary as JSON."""
    from ssisim.cli import bundled_dir, bundled_scenarios
    from ssisim.engine import Simulation, build_summary, load_scenario

    out = {}
    for path in bundled_scenarios():
        sc = load_scenario(path)
        sim = Simulation(sc)
        sim.run_until(sc.duration_s)
        key = path.relative_to(bundled_dir()).as_posix()
        out[key] = _digest(json.dumps(build_summary(sim), sort_keys=True))
    return out


def lesson_fingerprints() -> dict[str, str]:
    """Each reference solution (and wrong approach) graded in its lesson: its debrief's digest."""
    from ssisim.cli import bundled_dir
    from ssisim.engine import grade_session, load_scenario, load_session

    lessons = {p.stem: p for p in (bundled_dir() / "lessons").glob("*.toml")}
    out = {}
    for sess in sorted(SOLUTIONS.glob("*.session.toml")):
        stem = sess.name.split(".")[0]
        debrief = grade_session(load_scenario(lessons[stem]), load_session(sess))
        out[sess.name] = _digest(json.dumps(debrief, sort_keys=True, default=str))
    return out


def validate_fingerprint() -> str:
    """``ssisim validate``'s table."""
    from ssisim.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["validate"])
    return _digest(buf.getvalue())


def fingerprints() -> dict[str, object]:
    """All of them, as stored in golden_results.json."""
    return {"scenarios": scenario_fingerprints(), "lessons": lesson_fingerprints(),
            "validate": validate_fingerprint()}


if __name__ == "__main__":
    json.dump(fingerprints(), sys.stdout, indent=1, sort_keys=True)
    print()

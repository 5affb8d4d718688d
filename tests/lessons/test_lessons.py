"""Every bundled lesson loads, is passed by its reference solution and failed by doing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssisim.cli import bundled_dir
from ssisim.engine import (
    Simulation,
    grade_session,
    load_scenario,
    load_session,
    session_text,
)

LESSONS = sorted((bundled_dir() / "lessons").glob("*.toml"))
SOLUTIONS = Path(__file__).parent / "solutions"


def test_ten_lessons_ship_in_order():
    assert len(LESSONS) >= 10
    ids = [load_scenario(p).lesson.id for p in LESSONS]
    assert len(set(ids)) == len(ids)
    assert [p.name[:3] for p in LESSONS] == [f"{i:02d}-" for i in range(1, len(LESSONS) + 1)]


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_is_complete(path):
    sc = load_scenario(path)
    les = sc.lesson
    assert les is not None and les.title and les.goal and les.briefing.strip()
    assert les.debrief.strip() and les.hints, "a lesson explains itself and offers hints"
    assert len(sc.objectives) >= 2
    assert 0 < les.pass_score <= sum(o.points for o in sc.objectives)


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_reference_solution_passes(path):
    sc = load_scenario(path)
    d = grade_session(sc, load_session(SOLUTIONS / f"{path.stem}.session.toml"))
    assert d["passed"], d["lost"]
    assert d["score"] >= sc.lesson.pass_score


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_doing_nothing_fails(path):
    sc = load_scenario(path)
    sim = Simulation(sc)
    sim.run_until(sc.duration_s)
    d = sim.lesson.debrief()
    assert d["ended"] and not d["passed"]
    assert d["score"] < sc.lesson.pass_score
    assert d["lost"], "a failed lesson says where the points went"


WRONG = sorted(SOLUTIONS.glob("*.wrong.session.toml"))


@pytest.mark.parametrize("session", WRONG, ids=[p.name.split(".")[0] for p in WRONG])
def test_the_wrong_approach_fails_with_reasons(session):
    sc = load_scenario(bundled_dir() / "lessons" / (session.name.split(".")[0] + ".toml"))
    d = grade_session(sc, load_session(session))
    assert not d["passed"]
    failed = [o for o in d["objectives"] if o["status"] == "failed"]
    assert failed and all(o["detail"] for o in failed)


@pytest.mark.parametrize("path", LESSONS[:1], ids=[p.stem for p in LESSONS[:1]])
def test_a_played_lesson_records_and_replays_to_the_same_score(path, tmp_path):
    sc = load_scenario(path)
    ref = load_session(SOLUTIONS / f"{path.stem}.session.toml")
    sim = Simulation(sc)
    sim.run_until(ref.commands[0].at_s - 3)
    sim.execute("HINT")  # a hint costs points in the replay too
    for c in ref.commands:
        sim.run_until(c.at_s)
        sim.execute(c.command)
    sim.run_until(sc.duration_s)
    played = sim.lesson.debrief()
    f = tmp_path / "played.session.toml"
    f.write_text(session_text(sim, "student"))
    again = grade_session(sc, load_session(f))
    assert again["score"] == played["score"] < 100
    assert again["objectives"] == played["objectives"]


def test_the_lesson_guide_documents_every_objective_kind():
    from ssisim.engine import OBJECTIVE_KINDS

    guide = (Path(__file__).parents[2] / "docs" / "lessons.md").read_text()
    for kind, (family, fields, _what) in OBJECTIVE_KINDS.items():
        row = next((ln for ln in guide.splitlines() if ln.startswith(f"| `{kind}` |")), None)
        assert row is not None, f"{kind} is not in docs/lessons.md"
        assert f"| {family} |" in row
        for f in fields:
            assert f"`{f.name}`" in row, f"{kind}.{f.name} is not documented"

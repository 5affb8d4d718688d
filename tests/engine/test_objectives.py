"""Objectives: each kind is met and failed by what happens in the run; scoring, hints, ending."""

from __future__ import annotations

import pytest

from ssisim.engine import (
    VERBS,
    ScenarioError,
    Simulation,
    apply_session,
    grade_session,
    load_session,
    loads_scenario,
    session_text,
)
from ssisim.engine.lessons.objectives import command_matches

CLUSTER = """\
version = 1
name = "objectives"
[run]
duration_s = {duration}
step_s = 1
sample_s = 5
[[member]]
name = "M1"
central = "8G"
  [[member.volume]]
  volid = "P1"
  size = "{paging}"
[[member]]
name = "M2"
central = "8G"
  [[member.volume]]
  volid = "P2"
  size = "8G"
[[link]]
members = ["M1", "M2"]
chpids = [{{gbps = 8, ctcs = 4}}]
[[guest]]
userid = "A"
member = "M1"
storage = "2G"
workload = {{ type = "seqtouch", buffer_mb = 1024, rate_pages_s = 200000 }}
[[guest]]
userid = "B"
member = "M1"
storage = "1G"
[[timeline]]
at_s = 8
command = "WORKLOAD A START IDLE"
"""

LESSON = """
[lesson]
id = "unit"
title = "Unit lesson"
goal = "test"
briefing = "Move A."
debrief = "Done."
pass_score = {pass_score}
[[lesson.hint]]
text = "Use VMRELOCATE."
cost = 7
[[lesson.hint]]
text = "VMRELOCATE MOVE USER A TO M2"
cost = 15
"""


def scenario(objectives: str, lesson: bool = True, duration: int = 120, paging: str = "8G",
             pass_score: int = 50):
    text = CLUSTER.format(duration=duration, paging=paging)
    if lesson:
        text += LESSON.format(pass_score=pass_score)
    return loads_scenario(text + objectives, "unit.toml")


def run(sc, commands: list[tuple[float, str]] = ()):
    sim = Simulation(sc)
    for t, c in commands:
        sim.run_until(t)
        sim.execute(c)
    sim.run_until(sc.duration_s)
    assert sim.lesson is not None
    return sim


def status(sim) -> dict[str, str]:
    return {o["id"]: o["status"] for o in sim.lesson.debrief()["objectives"]}


RELOCATED = """
[[objective]]
id = "moved"
kind = "relocated"
guest = "A"
to = "M2"
max_quiesce_s = 5
points = 60
[[objective]]
id = "alive"
kind = "keep_running"
guests = ["B"]
points = 40
"""


def test_relocation_meets_the_objective_and_ends_the_lesson_early():
    sim = run(scenario(RELOCATED), [(10, "VMRELOCATE MOVE USER A TO M2")])
    d = sim.lesson.debrief()
    assert status(sim) == {"moved": "met", "alive": "met"}
    assert d["score"] == 100 and d["passed"] and d["end_reason"] == "every task is decided"
    assert d["ended_s"] < 60  # ended when the move completed, not at the 120 s deadline
    assert sim.t == d["ended_s"]  # run_until stops once the lesson is over
    assert any("quiesced" in e["text"] for e in d["decisive_events"])
    assert any(e.kind == "OBJECTIVE_MET" for e in sim.events)


def test_doing_nothing_fails_the_task_at_the_end():
    sim = run(scenario(RELOCATED))
    d = sim.lesson.debrief()
    assert status(sim) == {"moved": "failed", "alive": "met"}
    assert d["score"] == 40 and not d["passed"] and d["ended_s"] == 120
    assert "was not moved to M2" in d["objectives"][0]["detail"]
    assert [x["points"] for x in d["lost"]] == [60]


def test_a_relocation_over_the_quiesce_limit_does_not_count():
    sc = scenario(RELOCATED.replace("max_quiesce_s = 5", "max_quiesce_s = 0.001"))
    sim = run(sc, [(10, "VMRELOCATE MOVE USER A TO M2")])
    o = sim.lesson.debrief()["objectives"][0]
    assert o["status"] == "failed" and "but with a quiesce of" in o["detail"]


def test_stopping_a_guest_breaks_keep_running_and_names_the_command():
    sim = run(scenario(RELOCATED), [(10, "SEND CP B STOP")])
    o = sim.lesson.debrief()["objectives"][1]
    assert o["status"] == "failed" and "B was stopped" in o["detail"]
    assert any("SEND CP B STOP" in e["text"] for e in o["evidence"])


def test_hints_cost_points_and_run_out():
    sim = Simulation(scenario(RELOCATED))
    first = sim.execute("HINT")
    assert first.rc == 0 and "Use VMRELOCATE." in first.text
    sim.execute("HINT")
    assert "No more hints" in sim.execute("HINT").text
    sim.execute("VMRELOCATE MOVE USER A TO M2")
    sim.run_until(120)
    d = sim.lesson.debrief()
    assert d["score"] == 100 - 7 - 15 and d["hint_cost"] == 22
    assert [h["hint"] for h in d["hints_used"]] == [1, 2]


def test_lesson_end_settles_everything_and_refuses_more():
    sim = Simulation(scenario(RELOCATED))
    sim.run_until(5)
    assert sim.execute("LESSON END").rc == 0
    assert status(sim) == {"moved": "failed", "alive": "met"}
    assert sim.execute("LESSON END").rc != 0
    assert sim.execute("HINT").rc != 0
    sim.run_until(100)
    assert sim.t == 5


def test_member_empty_and_paging_below():
    objs = """
[[objective]]
id = "empty"
kind = "member_empty"
member = "M1"
by_s = 100
[[objective]]
id = "paging"
kind = "paging_below"
max_pct = 50
"""
    sim = run(scenario(objs, pass_score=10), [(10, "VMRELOCATE MOVE USER A TO M2"),
                                               (11, "LOGOFF B")])
    assert status(sim) == {"empty": "met", "paging": "met"}
    # a guest that fills M1's little paging volume breaks the 50 % rule
    grow = objs + """
[[timeline]]
at_s = 9
command = "WORKLOAD A START SEQTOUCH BUFFER_MB 1900 RATE_PAGES_S 200000"
[[timeline]]
at_s = 9
command = "WORKLOAD B START SEQTOUCH BUFFER_MB 1000 RATE_PAGES_S 200000"
"""
    sc = loads_scenario(CLUSTER.format(duration=200, paging="2G").replace(
        'central = "8G"', 'central = "2G"', 1) + grow, "unit.toml")
    sim = run(sc)
    d = {o["id"]: o for o in sim.lesson.debrief()["objectives"]}
    assert d["paging"]["status"] == "failed" and "P1 on M1 reached" in d["paging"]["detail"]
    assert d["empty"]["status"] == "failed" and "A, B" in d["empty"]["detail"]


def test_guest_state_central_free_and_command_used():
    objs = """
[[objective]]
id = "off"
kind = "guest_state"
guest = "B"
state = "logged_off"
[[objective]]
id = "free"
kind = "central_free"
member = "M1"
min_gb = 7.5
[[objective]]
id = "asked"
kind = "command_used"
command = "QUERY ALLOC PAGE"
"""
    sc = scenario(objs, pass_score=10)
    sim = run(sc, [(10, "Q ALLOC PAGE"), (12, "LOGOFF B"), (13, "LOGOFF A")])
    assert status(sim) == {"off": "met", "free": "met", "asked": "met"}
    sim = run(sc, [(10, "Q ALLOC")])  # a different command does not count
    d = {o["id"]: o for o in sim.lesson.debrief()["objectives"]}
    assert d["asked"]["status"] == "failed"
    assert d["off"]["detail"].startswith("B was running")
    assert "GB was free on M1" in d["free"]["detail"]


@pytest.mark.parametrize("typed, ok", [
    ("Q ALLOC PAGE", True), ("QUERY ALLOC PAGE", True), ("q alloc page", True),
    ("QU AL PA", True), ("Q ALLOC", False), ("Q NAMES", False), ("QUERYX ALLOC PAGE", False),
])
def test_command_matching_follows_cp_abbreviations(typed, ok):
    assert command_matches("QUERY ALLOC PAGE", typed, dict(VERBS)) is ok


def test_objectives_without_a_lesson_are_scored_too():
    sim = run(scenario(RELOCATED, lesson=False), [(10, "VMRELOCATE MOVE USER A TO M2")])
    d = sim.lesson.debrief()
    assert d["lesson"] is None and d["score"] == 100 and d["passed"]
    assert Simulation(scenario(RELOCATED, lesson=False)).execute("HINT").text == \
        "This scenario has no hints"


def test_snapshot_carries_the_objectives():
    sim = Simulation(scenario(RELOCATED))
    sim.run_until(3)
    snap = sim.snapshot().lesson
    assert snap is not None and [o.status for o in snap.objectives] == ["pending", "pending"]
    assert (snap.max_score, snap.hints_total, snap.ended) == (100, 2, False)
    assert Simulation(loads_scenario(CLUSTER.format(duration=10, paging="1G"))).snapshot() \
        .lesson is None


def test_a_session_file_replays_to_the_same_score(tmp_path):
    sc = scenario(RELOCATED)
    sim = Simulation(sc)
    sim.run_until(4)
    sim.execute("HINT")
    sim.run_until(10)
    sim.execute("VMRELOCATE MOVE USER A TO M2")
    sim.run_until(120)
    path = tmp_path / "s.session.toml"
    path.write_text(session_text(sim, "ann"))
    s = load_session(path)
    assert s.student == "ann" and s.lesson == "unit" and len(s.commands) == 2
    again = grade_session(sc, s)
    assert again["score"] == sim.lesson.debrief()["score"] == 93
    assert again["ended_s"] == sim.lesson.ended_s


def test_a_session_of_another_lesson_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('format = "ssisim-session"\nversion = 1\nlesson = "other"\n')
    with pytest.raises(ScenarioError, match="s.toml:3: lesson: this session was recorded in "
                                            ".other., not in the lesson .unit."):
        apply_session(Simulation(scenario(RELOCATED)), load_session(path))


@pytest.mark.parametrize("text, where", [
    ('format = "ssisim-scenario"\nversion = 1\n', "s.toml:1: session.format: must be"),
    ('format = "ssisim-session"\nversion = 1\nlesson = "unit"\n[[command]]\nat_s = 3\n',
     "s.toml:4: command[0].command: is required"),
    ('format = "ssisim-session"\nversion = 1\nlesson = "unit"\n[[command]]\nat_s = -1\n'
     'command = "Q N"\n', "s.toml:5: command[0].at_s: must be 0 or more"),
    ("\x00\x01 not toml", "s.toml:1: not a valid session file"),
])
def test_bad_session_files_are_named_precisely(tmp_path, text, where):
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as e:
        load_session(path)
    assert str(e.value).startswith(str(tmp_path / where.split(":", 1)[0]))
    assert where.split(":", 1)[1] in str(e.value)


@pytest.mark.parametrize("objective, message", [
    ('kind = "teleported"', "objective[0].kind: unknown objective 'teleported'; valid kinds: "
     "relocated, member_empty"),
    ('kind = "relocated"\nguest = "ZED"', "objective[0] (obj1).guest: 'ZED' is not a guest of "
     "this scenario; guests: A, B"),
    ('kind = "relocated"\nguest = "A"\nto = "M9"', "'M9' is not a member of this scenario"),
    ('kind = "member_empty"', "objective[0] (obj1).member: is required"),
    ('kind = "paging_below"\nmax_pct = 50\ncolour = "red"', "colour: unknown field"),
    ('kind = "guest_state"\nguest = "A"\nstate = "asleep"', "state: must be one of running"),
    ('kind = "command_used"\ncommand = "FLY AWAY"', "command: must start with a command"),
    ('kind = "keep_running"\nguests = ["A", "Q"]', "guests: must list guests of this scenario"),
])
def test_bad_objectives_are_named_with_their_line(objective, message):
    text = CLUSTER.format(duration=10, paging="1G") + "\n[[objective]]\n" + objective + "\n"
    with pytest.raises(ScenarioError) as e:
        loads_scenario(text, "l.toml")
    line = CLUSTER.count("\n") + 2
    assert message in str(e.value)
    assert str(e.value).startswith(f"l.toml:{line}") or str(e.value).startswith("l.toml:")


def test_lesson_table_mistakes():
    with pytest.raises(ScenarioError, match="a lesson needs at least one"):
        scenario("")
    with pytest.raises(ScenarioError, match="lesson.pass_score: 500 is more than the "
                                            "objectives' 100 points"):
        scenario(RELOCATED, pass_score=500)
    with pytest.raises(ScenarioError, match="objective\\[1\\].id: 'x' is used twice"):
        scenario('[[objective]]\nid = "x"\nkind = "member_empty"\nmember = "M1"\n'
                 '[[objective]]\nid = "x"\nkind = "member_empty"\nmember = "M2"\n')


def test_a_lesson_refuses_the_commands_it_forbids_but_its_timeline_may_use_them():
    sim = Simulation(scenario(RELOCATED))
    sim.run_until(9)  # the timeline's WORKLOAD at 8 s ran
    assert any(c.startswith("WORKLOAD A") and rc == 0 for _t, c, rc, _l, _r in sim.command_log)
    r = sim.execute("WORK A START IDLE")
    assert r.rc != 0 and "WORKLOAD is not available in this lesson" in r.text
    assert sim.execute("Q WORKLOAD A").rc == 0  # only the forbidden verb
    allowed = loads_scenario(CLUSTER.format(duration=60, paging="1G")
                             + LESSON.format(pass_score=10).replace("pass_score", "forbid = []\n"
                                                                    "pass_score") + RELOCATED)
    assert Simulation(allowed).execute("WORKLOAD A START IDLE").rc == 0


def test_the_lesson_runs_on_after_the_last_task():
    sc = scenario(RELOCATED)
    sim = run(sc, [(10, "VMRELOCATE MOVE USER A TO M2")])
    d = sim.lesson.debrief()
    moved = d["objectives"][0]["t_s"]
    assert d["ended_s"] == pytest.approx(round(moved) + sc.lesson.settle_s, abs=1)

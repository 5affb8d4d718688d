"""What the window does replays headless to the same numbers: it only ever issues commands."""

from __future__ import annotations

import json

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from ssisim.cli import main as cli_main
from ssisim.engine import (
    Session,
    Simulation,
    TimelineEntry,
    apply_session,
    build_summary,
    loads_scenario,
)


def _summary(win) -> dict:
    return win.worker.call(build_summary).result(timeout=10)


def _comparable(summary: dict) -> dict:
    summary = json.loads(json.dumps(summary))
    summary.pop("scenario_hash")
    for c in summary["commands"]:
        c.pop("line")
    return summary


def test_a_relocation_dragged_in_the_window_replays_pass_for_pass(make_window, qtbot, run_to,
                                                                  tmp_path, capsys):
    win = make_window("demo")
    run_to(win, 120)
    mime = win.cluster.tiles["LNXIDL1"].mime_data()
    panel = win.cluster.panels["MEMB2"]
    QApplication.sendEvent(panel, QDragEnterEvent(QPoint(30, 200), Qt.DropAction.MoveAction,
                                                  mime, Qt.MouseButton.LeftButton,
                                                  Qt.KeyboardModifier.NoModifier))
    QApplication.sendEvent(panel, QDropEvent(QPointF(30, 200), Qt.DropAction.MoveAction, mime,
                                             Qt.MouseButton.LeftButton,
                                             Qt.KeyboardModifier.NoModifier, QEvent.Type.Drop))
    qtbot.waitUntil(lambda: len(win.model.snapshot.relocations) == 1, timeout=10_000)
    run_to(win, 300)
    live = _summary(win)
    assert live["relocations"][0]["result"] == "relocated"
    assert live["relocations"][0]["start_s"] == 120.0
    text = win.session_text()
    assert 'command = "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2"' in text

    # the same session replayed by the engine alone, and by `ssisim run`
    replay = Simulation(loads_scenario(text, "session.toml"))
    replay.run_until(300)
    headless = build_summary(replay)
    assert headless["relocations"][0]["pass_list"] == live["relocations"][0]["pass_list"]
    session = tmp_path / "session.toml"
    session.write_text(text)
    capsys.readouterr()
    assert cli_main(["run", str(session), "--until", "300", "--no-store", "--json", "-",
                     "--quiet"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["relocations"][0]["pass_list"] == live["relocations"][0]["pass_list"]
    assert cli["relocations"][0]["quiesce_s"] == live["relocations"][0]["quiesce_s"]


def test_a_recorded_session_replays_to_the_same_results(make_window, qtbot, run_to,
                                                        wait_console):
    win = make_window("lgr-short-destination")
    run_to(win, 40)  # the timeline's SYNC relocation of LNXBUSY holds the console from t=30
    win.issue_text("WORKLOAD LNXHOG SET REFS_PER_S 300")
    wait_console(win, "Waiting: a SYNC relocation holds the console")
    win.issue_text("Q ALLOC PAGE")
    run_to(win, 150)
    # both ran when the relocation ended, in the order they were typed
    wait_console(win, "(ran when the console was free)")
    assert "LNXHOG: IDLE REFS_PER_S 300" in win.console.text()
    assert "SUMMARY" in win.console.text()
    live = _summary(win)
    replay = Simulation(loads_scenario(win.session_text(), "session.toml"))
    replay.run_until(150)
    assert _comparable(live) == _comparable(build_summary(replay))
    # recorded as its canonical text, which a replay parses to the same command
    waited = next(c for c in live["commands"] if c["command"] == "QUERY ALLOC PAGE")
    assert waited["t_s"] > 100  # it waited for the SYNC relocation, as in a headless replay


def test_a_waiting_command_is_answered_once_beside_a_replayed_session(make_window, qtbot,
                                                                     run_to):
    """The answer to a command that waited for the console comes from the simulation's answer
    to its ticket, never from matching text: a session replayed meanwhile (its commands run
    from the same queue, as typed ones) keeps its own lines."""
    win = make_window("lgr-short-destination")
    items = []
    win.model.updated.connect(lambda frame: items.extend(frame.console))
    session = Session("s.session.toml", win.scenario.name, win.scenario.source_hash, "",
                      (TimelineEntry(50.0, "Q ALLOC PAGE"), TimelineEntry(50.0, "Q N")))
    win.worker.call(lambda sim: apply_session(sim, session)).result(timeout=20)
    run_to(win, 40)  # the timeline's SYNC relocation of LNXBUSY holds the console from t=30
    rid = win.issue_text("q alloc page")
    run_to(win, 150)
    mine = [it for it in items if it.request_id == rid]
    assert [it.kind for it in mine] == ["waiting", "answer"]
    answer = mine[1]
    assert answer.delayed and answer.command == "QUERY ALLOC PAGE" and answer.t_s > 100
    assert any("SUMMARY" in line for line in answer.lines)
    replayed = [(it.kind, it.command) for it in items if it.kind == "session"]
    assert replayed == [("session", "Q ALLOC PAGE"), ("session", "Q N")]  # as the file has them
    session_seqs = [it.seq for it in items if it.kind == "session"]
    assert answer.seq < min(session_seqs)  # issued at t=40, before the session's t=50
    assert win.console.text().count("(ran when the console was free)") == 1

"""The CP console: commands and CP's answers, history on Up/Down, completion on Tab."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from ssisim.app.completion import CommandHistory, complete
from ssisim.engine import VERBS, VmrelocateMove


def test_a_typed_command_gets_cps_answer(make_window, qtbot, wait_console):
    win = make_window("demo")
    qtbot.keyClicks(win.console.line, "q alloc page")
    qtbot.keyClick(win.console.line, Qt.Key.Key_Return)
    # the console shows the command as issued and recorded: its canonical text
    wait_console(win, "> QUERY ALLOC PAGE")
    wait_console(win, "SUMMARY")
    assert win.console.line.text() == ""
    assert win.history.items[-1] == "q alloc page"  # Up brings back what was typed


def test_text_that_is_no_command_is_answered_at_once_and_reaches_nobody(make_window, qtbot,
                                                                        monkeypatch):
    win = make_window("demo")
    sent: list = []
    monkeypatch.setattr(win.worker, "submit", lambda cmd: sent.append(cmd) or 0)
    qtbot.keyClicks(win.console.line, "FOO BAR")
    qtbot.keyClick(win.console.line, Qt.Key.Key_Return)
    # no round trip to the simulation: CP's message is there as soon as Enter is pressed
    text = win.console.text()
    assert "> FOO BAR" in text and "HCPCMD001E Unknown CP command: FOO" in text
    assert win.issue_text("vmrelocate move lnxidl1") is None
    assert "HCPVMR026E Operand missing or invalid (destination member)" in win.console.text()
    assert sent == [] and win.unsaved_work() is None  # nothing issued, nothing to record
    log = win.worker.call(lambda sim: list(sim.command_log)).result(timeout=20)
    assert [c for c in log if c[3] == 0] == []  # none issued interactively


def test_the_worker_gets_typed_commands(make_window, qtbot, monkeypatch, wait_console):
    win = make_window("demo")
    sent: list = []
    submit = win.worker.submit
    monkeypatch.setattr(win.worker, "submit", lambda cmd: sent.append(cmd) or submit(cmd))
    win.issue_text("vmrel move lnxidl1 memb2 async")
    assert sent == [VmrelocateMove(userid="LNXIDL1", dest="MEMB2", sync=False)]
    wait_console(win, "> VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC")
    wait_console(win, "Relocation of LNXIDL1 from MEMB1 to MEMB2 started (ASYNC)")
    with pytest.raises(TypeError):
        submit("Q N")  # text never reaches the worker
    with pytest.raises(TypeError):
        win.issue("Q N")


def test_up_and_down_walk_the_history(make_window, qtbot):
    win = make_window("demo")
    line = win.console.line
    for cmd in ("Q N", "IND LOAD", "Q SSI"):
        qtbot.keyClicks(line, cmd)
        qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.keyClicks(line, "Q ST")  # a draft, kept while walking the history
    seen = []
    for _ in range(4):
        qtbot.keyClick(line, Qt.Key.Key_Up)
        seen.append(line.text())
    assert seen == ["Q SSI", "IND LOAD", "Q N", "Q N"]
    qtbot.keyClick(line, Qt.Key.Key_Down)
    assert line.text() == "IND LOAD"
    qtbot.keyClick(line, Qt.Key.Key_Down)
    qtbot.keyClick(line, Qt.Key.Key_Down)
    assert line.text() == "Q ST"
    win.close()
    assert win.settings.value("console/history") == ["Q N", "IND LOAD", "Q SSI"]


def test_tab_completes_verbs_user_ids_and_members(make_window, qtbot):
    win = make_window("demo")
    line = win.console.line
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    qtbot.keyClick(win, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)  # focus the console
    assert line.hasFocus()
    qtbot.keyClicks(line, "vmrel")
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == "VMRELOCATE "
    assert line.hasFocus()  # Tab completed; it did not move the focus on
    qtbot.keyClicks(line, "MOVE USER lnxi")
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == "VMRELOCATE MOVE USER LNXIDL"
    assert win.console.hint.text() == "LNXIDL1  LNXIDL2  LNXIDL3"
    qtbot.keyClicks(line, "1 TO ME")
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == "VMRELOCATE MOVE USER LNXIDL1 TO MEMB"
    qtbot.keyClicks(line, "2 IMM")
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 IMMEDIATE "


def test_completion_knows_commands_inside_at_and_send():
    c = complete("AT MEMB2 CMD IND", 16, VERBS, ["LNX1"], ["MEMB1", "MEMB2"])
    assert c.candidates == ("INDICATE",)
    c = complete("SEND CP LNX1 LOGO", 17, VERBS, ["LNX1"], ["MEMB1"])
    assert c.candidates == ("LOGOFF", "LOGON")
    c = complete("Q ", 2, VERBS, ["LNX1"], ["MEMB1"])
    assert "ALLOC" in c.candidates and "LNX1" in c.candidates and "MEMB1" in c.candidates
    c = complete("X", 1, VERBS, [], [])
    assert c.candidates == ("XAUTOLOG",)


def test_history_keeps_one_of_a_repeat_and_a_limit():
    h = CommandHistory(limit=3)
    for cmd in ("A", "B", "B", "C", "D"):
        h.add(cmd)
    assert h.items == ["B", "C", "D"]
    assert h.previous("") == "D"
    assert h.next("D") == ""

"""Dialogs and menus build the typed command a CP operator would type, and show its text."""

from __future__ import annotations

from ssisim.app.commands import RelocateOptions, relocate_command, workload_command
from ssisim.app.guest_menu import PAUSE_ACTIONS, engine_knows
from ssisim.app.relocate_dialog import RelocateDialog
from ssisim.app.workload_dialog import WorkloadDialog, parse_workload
from ssisim.engine import WORKLOAD_TYPES, VmrelocateMove, VmrelocateTest, parse_command


def test_the_options_dialog_builds_the_command(qtbot):
    dlg = RelocateDialog("LNXAPP1", ["MEMB1", "MEMB2", "MEMB3"], "MEMB2", False)
    qtbot.addWidget(dlg)
    assert dlg.command() == VmrelocateMove(userid="LNXAPP1", dest="MEMB2")
    assert dlg.preview.text() == "VMRELOCATE MOVE USER LNXAPP1 TO MEMB2"
    dlg.async_button.setChecked(True)
    dlg.immediate.setChecked(True)
    dlg.maxquiesce.mode.setCurrentIndex(1)
    dlg.maxquiesce.seconds.setValue(5)
    dlg.maxtotal.mode.setCurrentIndex(2)
    dlg.force.setChecked(True)
    dlg.dest.setCurrentText("MEMB3")
    assert dlg.command() == VmrelocateMove(userid="LNXAPP1", dest="MEMB3", sync=False,
                                           immediate=True, maxquiesce_s=5.0, maxtotal_s=None,
                                           force_storage=True)
    # the user sees what will be issued: its canonical text (MAXTOTAL NOLIMIT is CP's default)
    expected = "VMRELOCATE MOVE USER LNXAPP1 TO MEMB3 ASYNC IMMEDIATE MAXQUIESCE 5 FORCE STORAGE"
    assert dlg.preview.text() == expected
    assert parse_command(expected) == dlg.command()
    dlg.test_button.setChecked(True)  # TEST takes no timing options
    assert dlg.command() == VmrelocateTest(userid="LNXAPP1", dest="MEMB3", force_storage=True)
    assert dlg.preview.text() == "VMRELOCATE TEST USER LNXAPP1 TO MEMB3 FORCE STORAGE"
    assert not dlg.immediate.isEnabled()


def test_the_options_dialog_will_not_issue_what_cp_refuses(qtbot):
    dlg = RelocateDialog("LNXAPP1", ["MEMB1", "MEMB2"], "MEMB2", False)
    qtbot.addWidget(dlg)
    dlg.maxquiesce.mode.setCurrentIndex(1)
    dlg.maxquiesce.seconds.setValue(30)
    dlg.maxtotal.mode.setCurrentIndex(1)
    dlg.maxtotal.seconds.setValue(20)
    assert "HCPRLH1941E MAXTOTAL 20 is less than MAXQUIESCE 30" in dlg.preview.toolTip()
    assert not dlg.issue_button.isEnabled()
    dlg.maxtotal.seconds.setValue(60)
    assert dlg.issue_button.isEnabled() and dlg.preview.toolTip() == ""
    # CP takes whole seconds from 1 up: the dialog offers no less
    dlg.maxquiesce.seconds.setValue(0.2)
    assert dlg.maxquiesce.seconds.value() == 1.0 and dlg.problem() is None


def test_relocate_command_words():
    assert str(relocate_command("lnx1", "memb2")) == "VMRELOCATE MOVE USER LNX1 TO MEMB2"
    opts = RelocateOptions(sync=True, maxquiesce_s="nolimit")
    cmd = relocate_command("LNX1", "MEMB2", opts)
    assert cmd == VmrelocateMove(userid="LNX1", dest="MEMB2", maxquiesce_s=None)
    assert str(cmd) == "VMRELOCATE MOVE USER LNX1 TO MEMB2 MAXQUIESCE NOLIMIT"
    # IMMEDIATE alone means MAXQUIESCE NOLIMIT, as CP has it
    cmd = relocate_command("LNX1", "MEMB2", RelocateOptions(immediate=True))
    assert cmd.maxquiesce_s is None and parse_command(str(cmd)) == cmd


def test_the_workload_dialog_builds_the_command(qtbot):
    dlg = WorkloadDialog("LNXAPP1", "APPSERVER WSS_MB 1536")
    qtbot.addWidget(dlg)
    assert dlg.kind.currentData() == "appserver"
    assert dlg.spins["wss_mb"].value() == 1536
    assert str(dlg.command()) == "WORKLOAD LNXAPP1 START APPSERVER WSS_MB 1536"
    dlg.kind.setCurrentIndex(list(WORKLOAD_TYPES).index("randchange"))
    assert str(dlg.command()) == "WORKLOAD LNXAPP1 START RANDCHANGE"
    dlg.set_value("fraction", 0.5)
    dlg.set_value("rate_pages_s", 20000)
    text = "WORKLOAD LNXAPP1 START RANDCHANGE FRACTION 0.5 RATE_PAGES_S 20000"
    assert str(dlg.command()) == text and dlg.preview.text() == text
    assert dlg.command() == parse_command(text)
    assert parse_workload("IDLE") == ("idle", {})


def test_workload_command_leaves_out_defaults():
    params = WORKLOAD_TYPES["seqtouch"]["params"]
    cmd = workload_command("x", "seqtouch", {"buffer_mb": 0, "write": 0}, params)
    assert str(cmd) == "WORKLOAD X START SEQTOUCH WRITE 0"
    assert parse_command(str(cmd)) == cmd


def test_the_guest_menu(make_window, qtbot, wait_console, run_to):
    win = make_window("demo")
    menu = win.guest_menu("LNXIDL2")
    acts = {a.text(): a for a in menu.actions() if a.text()}
    assert not acts["Cancel relocation"].isEnabled()
    [to_memb1] = [a for a in acts["Relocate to"].menu().actions() if a.text() == "MEMB1"]
    to_memb1.trigger()
    wait_console(win, "> VMRELOCATE MOVE USER LNXIDL2 TO MEMB1")
    wait_console(win, "Relocation of LNXIDL2 from MEMB2 to MEMB1 started")
    run_to(win, 30)
    wait_console(win, "User LNXIDL2 has been relocated from MEMB2 to MEMB1")
    acts["Log off (FORCE LNXIDL2)"].trigger()
    wait_console(win, "USER DSC   LOGOFF AS  LNXIDL2")
    qtbot.waitUntil(lambda: win.model.state_of("LNXIDL2") == "logged off")
    qtbot.waitUntil(lambda: win.cluster.tiles["LNXIDL2"] in win.cluster._off_tiles)
    menu = win.guest_menu("LNXIDL2")
    acts = {a.text(): a for a in menu.actions() if a.text()}
    acts["Log on at MEMB2"].trigger()
    wait_console(win, "AUTO LOGON  ***   LNXIDL2")
    qtbot.waitUntil(lambda: win.model.guest("LNXIDL2").member == "MEMB2")


def test_pause_actions_issue_their_commands_or_say_they_are_not_modelled(make_window, qtbot,
                                                                         wait_console):
    win = make_window("demo")
    acts = {a.text().split(":")[0].split(" - ")[0]: a for a in win.guest_menu("LNXAPP2").actions()}
    for label, make, verb in PAUSE_ACTIONS:
        act = acts[label]
        if not engine_knows(verb):
            assert not act.isEnabled() and "not yet modelled" in act.toolTip()
            continue
        assert act.isEnabled() and str(make("LNXAPP2")) in act.text()
    if not engine_knows("STOP"):
        return
    acts["STOP (CP)"].trigger()
    wait_console(win, "> SEND CP LNXAPP2 STOP")
    win.step()  # the scheduler notices at the next step
    qtbot.waitUntil(lambda: win.model.state_of("LNXAPP2") == "stopped", timeout=10_000)
    assert win.cluster.tiles["LNXAPP2"].state == "stopped"
    menu = {a.text().split(":")[0]: a for a in win.guest_menu("LNXAPP2").actions()}
    menu["BEGIN (CP)"].trigger()
    wait_console(win, "> SEND CP LNXAPP2 BEGIN")
    win.step()
    qtbot.waitUntil(lambda: win.model.state_of("LNXAPP2") != "stopped", timeout=10_000)


def test_change_workload_from_the_menu(make_window, qtbot, wait_console):
    win = make_window("demo")
    menu = win.guest_menu("LNXWEB2")
    [act] = [a for a in menu.actions() if a.text() == "Change workload..."]
    act.trigger()
    [dlg] = [d for d in win._dialogs if isinstance(d, WorkloadDialog)]
    dlg.kind.setCurrentIndex(list(WORKLOAD_TYPES).index("idle"))
    dlg.accept()
    wait_console(win, "WORKLOAD LNXWEB2 START IDLE")
    wait_console(win, "WORKLOAD LNXWEB2: IDLE")
    qtbot.waitUntil(lambda: win.model.guest("LNXWEB2").workload == "IDLE")

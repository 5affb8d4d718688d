"""Relocating by drag and drop: the tile's drag names the guest, the drop issues VMRELOCATE
(a typed command: the worker gets the object, the console shows its text)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDrag, QMouseEvent
from PySide6.QtWidgets import QApplication

from ssisim.app.guest_tile import MIME_GUEST
from ssisim.app.relocate_dialog import RelocateDialog
from ssisim.engine import VmrelocateMove


def test_dragging_a_tile_carries_the_guest(make_window, qtbot, monkeypatch):
    win = make_window("demo")
    tile = win.cluster.tiles["LNXIDL1"]
    qtbot.waitUntil(tile.can_drag)
    seen = {}

    def fake_exec(self, *args, **kwargs):  # a real exec returns at once offscreen
        md = self.mimeData()
        seen["guest"] = bytes(md.data(MIME_GUEST).data()).decode()
        seen["text"] = md.text()
        return Qt.DropAction.MoveAction

    monkeypatch.setattr(QDrag, "exec", fake_exec)
    start = QPoint(20, 20)
    qtbot.mousePress(tile, Qt.MouseButton.LeftButton, pos=start)
    far = QPointF(start + QPoint(QApplication.startDragDistance() + 10, 0))
    move = QMouseEvent(QEvent.Type.MouseMove, far, tile.mapToGlobal(far),
                       Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(tile, move)
    assert seen == {"guest": "LNXIDL1", "text": "LNXIDL1"}
    assert win.model.selected == "LNXIDL1"  # pressing a tile also selects the guest


def _record_submits(win, monkeypatch) -> list:
    """What the window hands to the worker, in order (it is still passed on)."""
    sent: list = []
    submit = win.worker.submit
    monkeypatch.setattr(win.worker, "submit", lambda cmd: sent.append(cmd) or submit(cmd))
    return sent


def test_a_drop_on_another_member_relocates_the_guest(drop, make_window, qtbot, wait_console,
                                                      monkeypatch):
    win = make_window("demo")
    sent = _record_submits(win, monkeypatch)
    mime = win.cluster.tiles["LNXIDL1"].mime_data()
    assert drop(win.cluster.panels["MEMB2"], mime) == (True, True)
    assert sent == [VmrelocateMove(userid="LNXIDL1", dest="MEMB2")]
    wait_console(win, "VMRELOCATE MOVE USER LNXIDL1 TO MEMB2")
    wait_console(win, "Relocation of LNXIDL1 from MEMB1 to MEMB2 started")
    qtbot.waitUntil(lambda: win.model.state_of("LNXIDL1") == "relocating")
    assert "LNXIDL1" in win.cluster.incoming  # the destination shows the arriving copy
    assert win.cluster.incoming["LNXIDL1"] in win.cluster.panels["MEMB2"].tiles


def test_a_drop_on_its_own_member_does_nothing(drop, make_window, qtbot):
    win = make_window("demo")
    mime = win.cluster.tiles["LNXIDL1"].mime_data()
    assert drop(win.cluster.panels["MEMB1"], mime) == (False, False)
    qtbot.wait(100)
    assert "VMRELOCATE" not in win.console.text()


def test_shift_drop_asks_for_options_first(drop, make_window, qtbot, wait_console, monkeypatch):
    win = make_window("demo")
    sent = _record_submits(win, monkeypatch)
    mime = win.cluster.tiles["LNXWEB1"].mime_data()
    drop(win.cluster.panels["MEMB2"], mime, Qt.KeyboardModifier.ShiftModifier)
    dialogs = [d for d in win._dialogs if isinstance(d, RelocateDialog)]
    assert len(dialogs) == 1
    dlg = dialogs[0]
    assert "VMRELOCATE" not in win.console.text()  # nothing issued before the dialog says so
    dlg.async_button.setChecked(True)
    dlg.immediate.setChecked(True)
    dlg.accept()
    assert sent == [VmrelocateMove(userid="LNXWEB1", dest="MEMB2", sync=False, immediate=True,
                                   maxquiesce_s=None)]
    wait_console(win, "> VMRELOCATE MOVE USER LNXWEB1 TO MEMB2 ASYNC IMMEDIATE "
                      "MAXQUIESCE NOLIMIT")
    wait_console(win, "started (ASYNC)")


def test_the_preference_asks_on_every_drop(drop, make_window, qtbot):
    win = make_window("demo")
    win.prefs.ask_relocation_options = True
    mime = win.cluster.tiles["LNXWEB1"].mime_data()
    drop(win.cluster.panels["MEMB2"], mime)
    assert any(isinstance(d, RelocateDialog) for d in win._dialogs)

"""Edit > Cluster...: edits keep the planner's comments, are checked as `ssisim check` checks the
file, undo exactly, and Apply restarts the window with the edited cluster."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from ssisim.app.cluster_editor import ClusterEditor
from ssisim.cli import main as cli_main
from ssisim.cli import resolve_scenario
from ssisim.engine import WORKLOAD_TYPES, ScenarioError, load_scenario, loads_scenario


class Host:
    """The main window as the editor sees it, recording what it was asked to do."""

    ask_before_discarding = False

    def __init__(self) -> None:
        self.started: list = []

    def confirm_discard(self, action: str) -> bool:
        return True

    def start_scenario(self, sc) -> None:
        self.started.append(sc)

    def remember_dir(self, folder) -> None:
        pass


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """The demo scenario as a planner's own file."""
    path = tmp_path / "cluster.toml"
    shutil.copy(resolve_scenario("demo"), path)
    return path


@pytest.fixture
def editor(qtbot, demo_copy: Path):
    """An editor of ``demo_copy``, shown at a typical size."""

    def make(path: Path = demo_copy, host: Host | None = None) -> ClusterEditor:
        ed = ClusterEditor(host or Host(), load_scenario(path))
        qtbot.addWidget(ed, before_close_func=lambda w: setattr(w, "ask_before_closing", False))
        ed.show()
        return ed

    return make


def type_into(qtbot, edit, text: str) -> None:
    """Replace a field's text as a user does: select all, type, Enter."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def comments(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


def test_an_edited_and_saved_scenario_loads_with_the_edit_and_its_comments(qtbot, editor,
                                                                           demo_copy):
    original = demo_copy.read_text(encoding="utf-8")
    ed = editor()
    ed.select(("member", 1))
    type_into(qtbot, ed.member_form.edits["cpus"], "8")
    type_into(qtbot, ed.member_form.edits["central"], "20480")  # MB: written as CP writes it
    qtbot.mouseClick(ed.btn_add_volume, Qt.MouseButton.LeftButton)
    assert ed.selected == ("member", 1, "volume", 2)
    type_into(qtbot, ed.volume_form.edits["size"], "4g")
    qtbot.mouseClick(ed.btn_add_guest, Qt.MouseButton.LeftButton)
    assert ed.selected == ("guest", 12)
    type_into(qtbot, ed.guest_form.edits["userid"], "LNXNEW9")
    type_into(qtbot, ed.guest_form.edits["storage"], "3G")
    assert ed.valid and ed.btn_save.isEnabled()
    qtbot.mouseClick(ed.btn_save, Qt.MouseButton.LeftButton)

    saved = demo_copy.read_text(encoding="utf-8")
    sc = loads_scenario(saved, str(demo_copy))
    memb2 = sc.members[1]
    assert memb2.cpus == 8 and memb2.central_pages == 20 * 262144
    assert [v.volid for v in memb2.volumes] == ["M2PG01", "M2PG02", "M2PG03"]
    assert memb2.volumes[2].slots == 4 * 262144
    new = [g for g in sc.guests if g.userid == "LNXNEW9"]
    assert new and new[0].member == "MEMB2" and new[0].storage_pages == 3 * 262144
    # the planner's comments are all there, in their order, and sizes are written as CP does
    assert comments(saved) == comments(original)
    assert 'central = "20G"' in saved and 'size = "4G"' in saved
    # the comment above the timeline still sits right above it, below the new guest
    assert re.search(r'userid = "LNXNEW9"[^[]*\n# The idle guests first fill[^\n]*\n'
                     r'\[\[timeline\]\]', saved)
    # what was not edited is byte for byte as it was
    assert saved.startswith(original[:original.index("[[member]]")])
    assert saved.endswith(original[original.index("[[timeline]]"):])
    assert not ed.isWindowModified()


def test_removing_a_guest_keeps_the_comment_above_the_next_table(qtbot, editor, tmp_path):
    path = tmp_path / "shift.toml"
    shutil.copy(resolve_scenario("scenarios/lessons/07-shift-work.toml"), path)
    original = path.read_text(encoding="utf-8")
    ed = editor(path)
    userids = [g["userid"] for g in ed.doc.guests()]
    ed.select(("guest", userids.index("NIGHT01")))  # its comment is above it, its end is
    qtbot.mouseClick(ed.btn_remove, Qt.MouseButton.LeftButton)  # above [[timeline]]
    ed.select(("guest", userids.index("WAS01")))
    qtbot.mouseClick(ed.btn_remove, Qt.MouseButton.LeftButton)
    assert "NIGHT01" not in [g["userid"] for g in ed.doc.guests()]
    assert comments(ed.text()) == comments(original)
    assert "# The day shift's test application servers" in ed.text().split('userid = "WAS02"')[0]
    # the lesson's objectives name the removed guests: the file is refused, and Apply waits
    assert not ed.valid and not ed.btn_apply.isEnabled()
    assert "is not a guest of this scenario; guests: WEB01, WEB02, DB01, WAS02" in ed.error


@pytest.mark.parametrize("case", ["storage 0", "duplicate member", "unknown member"])
def test_the_message_is_the_one_ssisim_check_prints(qtbot, editor, demo_copy, capsys, case):
    ed = editor()
    if case == "storage 0":
        ed.select(("guest", 3))
        type_into(qtbot, ed.guest_form.edits["storage"], "0")
    elif case == "duplicate member":
        qtbot.mouseClick(ed.btn_add_member, Qt.MouseButton.LeftButton)
        assert ed.selected == ("member", 2) and ed.valid
        type_into(qtbot, ed.member_form.edits["name"], "MEMB1")
    else:
        ed.select(("guest", 5))
        ed.guest_member.setFocus()
        ed.guest_member.lineEdit().selectAll()
        qtbot.keyClicks(ed.guest_member.lineEdit(), "VMX")
        qtbot.keyClick(ed.guest_member.lineEdit(), Qt.Key.Key_Return)
    assert not ed.valid and not ed.btn_apply.isEnabled()
    # the same text as a file, checked by `ssisim check`
    demo_copy.write_text(ed.text(), encoding="utf-8")
    capsys.readouterr()
    assert cli_main(["check", str(demo_copy)]) == 1
    printed = capsys.readouterr().err.strip()
    assert printed == f"ssisim: {ed.error}"
    assert ed.check_label.text() == ed.error
    with pytest.raises(ScenarioError) as e:
        loads_scenario(ed.text(), str(demo_copy))
    assert str(e.value) == ed.error
    expected = {"storage 0": "guest[3] (LNXDB1).storage: must be greater than 0",
                "duplicate member": "MEMB1",
                "unknown member": "guest[5] (LNXIDL2).member: VMX is not a member"}[case]
    assert expected in ed.error
    # the message is shown in red where the user looks
    img = ed.check_label.grab().toImage()
    reds = [img.pixelColor(x, y) for x in range(0, img.width(), 2)
            for y in range(img.height())]
    assert any(c.red() > 150 and c.green() < 90 and c.blue() < 90 for c in reds)
    ed.stack.undo()
    assert ed.valid and ed.btn_apply.isEnabled() and ed.error is None
    assert f"{demo_copy}: OK (" in ed.check_label.text()


def test_undo_restores_the_text_exactly_and_redo_reapplies(qtbot, editor, demo_copy):
    ed = editor()
    texts = [ed.text()]
    ed.select(("member", 0))
    type_into(qtbot, ed.member_form.edits["xstor"], "")  # empty: the default (none)
    texts.append(ed.text())
    qtbot.mouseClick(ed.btn_add_link, Qt.MouseButton.LeftButton)
    texts.append(ed.text())
    ed.select(("member", 0, "volume", 0))
    qtbot.mouseClick(ed.btn_remove, Qt.MouseButton.LeftButton)
    texts.append(ed.text())
    ed.select(("guest", 0))
    ed.params["requests_per_s"].setValue(75)
    texts.append(ed.text())
    assert len(set(texts)) == 5 and 'xstor' not in texts[1].split("[[member.volume]]")[0]
    assert "requests_per_s = 75" in texts[4]
    for i in range(4, 0, -1):
        assert ed.btn_undo.isEnabled()
        qtbot.mouseClick(ed.btn_undo, Qt.MouseButton.LeftButton)
        assert ed.text() == texts[i - 1]
    assert not ed.btn_undo.isEnabled() and not ed.isWindowModified()
    for i in range(1, 5):
        qtbot.mouseClick(ed.btn_redo, Qt.MouseButton.LeftButton)
        assert ed.text() == texts[i]
    # the keys, also with the cursor in a field
    ed.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is ed)
    ed.select(("member", 1))
    field = ed.member_form.edits["cpus"]
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert ed.text() == texts[3]
    qtbot.keyClick(field, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert ed.text() == texts[4]


def test_a_bundled_scenario_is_saved_under_another_name(qtbot, editor, tmp_path):
    bundled = resolve_scenario("demo")
    before = bundled.read_bytes()
    ed = ClusterEditor(Host(), load_scenario(bundled), bundled=True)
    qtbot.addWidget(ed, before_close_func=lambda w: setattr(w, "ask_before_closing", False))
    ed.select(("member", 0))
    type_into(qtbot, ed.member_form.edits["cpus"], "6")
    assert not ed.btn_save.isEnabled() and "Save As" in ed.file_label.text()
    target = tmp_path / "mine.toml"
    assert ed.save_as(str(target))
    assert bundled.read_bytes() == before
    assert load_scenario(target).members[0].cpus == 6
    assert ed.path == str(target) and ed.btn_save.isEnabled()


def test_apply_restarts_the_window_with_the_edited_cluster(make_window, qtbot, monkeypatch,
                                                           run_to):
    win = make_window("demo")
    run_to(win, 5)
    win.issue_text("SET SHARE LNXWEB1 RELATIVE 300")  # work that Apply would discard
    ed = win.edit_cluster()
    ed.ask_before_closing = False
    assert win.edit_cluster() is ed  # one editor at a time
    qtbot.mouseClick(ed.btn_add_member, Qt.MouseButton.LeftButton)
    type_into(qtbot, ed.member_form.edits["central"], "8G")
    qtbot.mouseClick(ed.btn_add_guest, Qt.MouseButton.LeftButton)  # on the selected member
    assert ed.doc.guests()[-1] == {"userid": "LNXNEW1", "member": "MEMB3", "storage": "2G",
                                   "workload": {"type": "idle"}}
    asked: list[str] = []

    def answer(choice):
        def question(_parent, title, text, *args, **kwargs):
            asked.append(text)
            return choice
        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    assert not ed.apply()
    assert asked and "apply the edited cluster" in asked[0]
    assert win.model.snapshot.t_s == 5 and win.model.guest("LNXNEW1") is None
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    assert ed.apply()
    qtbot.waitUntil(lambda: win.model.snapshot is not None
                    and win.model.guest("LNXNEW1") is not None, timeout=60_000)
    assert win.model.snapshot.t_s == 0
    assert win.model.member_names() == ["MEMB1", "MEMB2", "MEMB3"]
    assert win.model.guest("LNXNEW1").member == "MEMB3"
    qtbot.waitUntil(lambda: "LNXNEW1" in win.cluster.tiles)
    assert win.scenario.source_text == ed.text()


def test_a_guest_with_a_workload_from_the_form_runs(make_window, qtbot, run_to):
    win = make_window("demo")
    ed = win.edit_cluster()
    ed.ask_before_closing = False
    ed.select(("member", 1))
    qtbot.mouseClick(ed.btn_add_guest, Qt.MouseButton.LeftButton)
    i = ed.workload_type.findData("seqtouch")
    ed.workload_type.setCurrentIndex(i)
    ed.workload_type.activated.emit(i)
    spec = WORKLOAD_TYPES["seqtouch"]["params"]
    assert set(ed.params) == set(spec)
    # the form offers the parameter's range, no more
    assert ed.params["write"].maximum() == spec["write"].hi
    assert ed.params["instances"].minimum() == spec["instances"].lo
    ed.params["buffer_mb"].setValue(512)
    ed.params["rate_pages_s"].setValue(20000)
    assert 'workload = { type = "seqtouch", buffer_mb = 512, rate_pages_s = 20000 }' \
        in ed.text()
    assert ed.valid and ed.apply()
    qtbot.waitUntil(lambda: win.model.guest("LNXNEW1") is not None, timeout=60_000)
    run_to(win, 10)
    g = win.model.guest("LNXNEW1")
    assert g.member == "MEMB2" and g.workload.upper().startswith("SEQTOUCH")
    assert g.throughput > 0 and g.central > 0

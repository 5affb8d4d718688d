"""Plan menu: the evacuation planner and sweeps run in the background from the window; a
ranked plan can be played in the window, and a sweep ends with its charts."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from ssisim.app.evacuate_dialog import EvacuateDialog
from ssisim.app.sweep_dialog import SweepDialog
from ssisim.engine import RunStore

# Two members; BIG must move before SMALL for both to fit on MEMB2, HUGE fits nowhere.
SMALL_CASE = (Path(__file__).parents[1] / "cases" / "order-matters.toml").read_text()


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "order.toml"
    p.write_text(SMALL_CASE, encoding="utf-8")
    return p


def plans(qtbot, dlg: EvacuateDialog) -> None:
    dlg.set_member("MEMB1")
    dlg.at.setValue(20)
    assert dlg.start() is not None
    assert not dlg.plan_button.isEnabled() and dlg.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=120_000)


def cell(dlg: EvacuateDialog, row: int, label: str) -> str:
    cols = [dlg.plans.horizontalHeaderItem(c).text() for c in range(dlg.plans.columnCount())]
    return dlg.plans.item(row, cols.index(label)).text()


def test_the_plan_menu_has_its_two_items(make_window):
    win = make_window("demo")
    (menu,) = [a.menu() for a in win.menuBar().actions() if a.text() == "&Plan"]
    assert [a.text() for a in menu.actions()] == ["&Evacuate member...", "S&weep..."]


def test_evacuate_shows_ranked_plans_and_plays_the_chosen_one(qtbot, make_window, run_to,
                                                              small: Path):
    win = make_window(str(small))
    dlg = win.plan_evacuation(processes=1)
    assert isinstance(dlg, EvacuateDialog) and dlg.isVisible()
    assert dlg.member_name() == "MEMB1"  # the member with guests comes first
    plans(qtbot, dlg)
    n = len(dlg.result.outcomes)
    assert dlg.plans.rowCount() == n > 1
    # the figures the command line prints, best plan first
    assert cell(dlg, 0, "plan") == "1" and cell(dlg, 0, "guests moved") == "2/3"
    assert "1/3" in {cell(dlg, r, "guests moved") for r in range(n)}
    assert "Evacuation of MEMB1 at t = 20 s: 3 guests" in dlg.headline.text()
    assert dlg.why.text().startswith("Plan")  # why plan 1 ranks first
    # the guest that cannot move, and why; the plan's commands in order
    assert "HUGE: to MEMB2: its current storage" in dlg.unmovable.toPlainText()
    cmds = dlg.commands.toPlainText().splitlines()
    assert "USER BIG TO MEMB2" in cmds[0] and "USER SMALL TO MEMB2" in cmds[1]
    # Play this plan: the window runs the scenario with the plan in its timeline
    assert dlg.play_button.isEnabled()
    qtbot.mouseClick(dlg.play_button, Qt.MouseButton.LeftButton)
    assert "VMRELOCATE MOVE USER BIG TO MEMB2" in win.scenario.source_text
    assert [e.command.split()[3] for e in win.scenario.timeline
            if e.command.startswith("VMRELOCATE")] == ["BIG", "SMALL"]
    run_to(win, 140)  # SMALL's relocation ends at about 122 s
    moved = {r.userid for r in win.model.snapshot.relocations if r.result == "relocated"}
    assert moved == {"BIG", "SMALL"}


def test_playing_a_plan_asks_before_discarding_commands(qtbot, make_window, small: Path,
                                                        monkeypatch):
    win = make_window(str(small))
    dlg = win.plan_evacuation(processes=1)
    plans(qtbot, dlg)
    win.issue_text("VMRELOCATE MOVE USER HUGE TO MEMB2")  # a change not recorded
    asked = []

    def question(_parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", question)
    before = win.scenario
    assert dlg.play_selected() is False
    assert win.scenario is before and "play evacuation plan 1 of MEMB1" in asked[0]


def test_a_bad_evacuation_input_is_one_red_line(qtbot, make_window, small: Path):
    win = make_window(str(small))
    dlg = win.plan_evacuation(processes=1)
    dlg.window_s.setText("two hours")
    assert dlg.start() is None and "--window two hours" in dlg.stage.text()
    dlg.window_s.setText("1h")
    dlg.set_member("MEMB2")  # the planner refuses it: no guest is there
    assert dlg.start() is not None
    qtbot.waitUntil(lambda: dlg.job is None, timeout=60_000)
    assert "no guest is logged on to MEMB2" in dlg.stage.text()
    assert dlg.plan_button.isEnabled()


def test_a_sweep_runs_in_the_background_shows_its_charts_and_is_stored(qtbot, make_window,
                                                                       tmp_path: Path):
    db = tmp_path / "runs.sqlite"
    win = make_window("reference/lgr-idle", db_path=db)
    dlg = win.plan_sweep(processes=1)
    assert isinstance(dlg, SweepDialog)
    dlg.set_vary(0, "guest.LNX100.storage", "2G,4G")
    dlg.set_measures(["relocation_s", "quiesce_s"])
    assert dlg.start() is not None
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=120_000)
    assert dlg.table.rowCount() == 2
    assert set(dlg.chart_labels) == {"relocation_s", "quiesce_s"}
    pix = dlg.chart_labels["relocation_s"].pixmap()
    assert not pix.isNull() and pix.width() > 500
    assert dlg.tabs.tabText(dlg.tabs.currentIndex()) == "relocation_s"
    assert f"Stored as sweep 1 in {db}" in dlg.status.text()
    with RunStore(db) as store:
        (rec,) = store.sweeps()
        assert rec["varies"] == [("guest.LNX100.storage", ["2G", "4G"])]
        assert rec["measures"] == ["relocation_s", "quiesce_s"]


def test_a_bad_sweep_is_refused_before_it_runs(make_window, tmp_path: Path):
    win = make_window("reference/lgr-idle", db_path=tmp_path / "runs.sqlite")
    dlg = win.plan_sweep(processes=1)
    dlg.set_vary(0, "guest.NOBODY.storage", "2G")
    assert dlg.start() is None and "no guest NOBODY" in dlg.status.text()
    dlg.set_vary(0, "guest.LNX100.storage", "")
    assert dlg.start() is None and "give its values" in dlg.status.text()
    assert dlg.job is None and not (tmp_path / "runs.sqlite").exists()


def test_a_sweep_can_be_cancelled(qtbot, make_window, tmp_path: Path):
    db = tmp_path / "runs.sqlite"
    win = make_window("reference/lgr-idle", db_path=db)
    dlg = win.plan_sweep(processes=1)
    dlg.set_vary(0, "guest.LNX100.storage", "1G..40G/1G")
    dlg.start()
    qtbot.waitUntil(lambda: dlg.progress.value() >= 1, timeout=60_000)
    qtbot.mouseClick(dlg.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dlg.job is None, timeout=60_000)
    assert "Cancelled" in dlg.status.text() and dlg.outcome is None
    assert dlg.progress.value() == 0 and dlg.run_button.isEnabled()
    if db.exists():
        with RunStore(db) as store:
            assert store.sweeps() == []


@pytest.mark.slow
def test_the_runs_go_to_processes(qtbot, make_window, tmp_path: Path):
    win = make_window("reference/lgr-idle", db_path=tmp_path / "runs.sqlite")
    dlg = win.plan_sweep(processes=2)
    dlg.set_vary(0, "guest.LNX100.storage", "2G,4G")
    dlg.set_measures(["relocation_s"])
    dlg.start()
    qtbot.waitUntil(lambda: dlg.outcome is not None, timeout=180_000)
    assert dlg.outcome.sweep_id == 1 and dlg.table.rowCount() == 2


@pytest.mark.slow
def test_a_plan_stopped_once_it_could_not_win_is_shown_but_not_played(qtbot, make_window,
                                                                       tmp_path: Path):
    win = make_window("planning/shop-4")
    dlg = win.plan_evacuation(processes=1)
    dlg.set_member("MEMB1")
    dlg.at.setValue(300)
    assert dlg.start() is not None
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=300_000)
    outs = dlg.result.outcomes
    (r, *_) = [i for i, o in enumerate(outs) if o.stopped]
    assert "stopped once slower than the best" in dlg.headline.text()
    assert cell(dlg, r, "total s").startswith(">") and not cell(dlg, 0, "total s").startswith(">")
    dlg.plans.selectRow(r)
    assert not dlg.play_button.isEnabled() and dlg.plan_scenario(r) is None
    assert "could no longer beat the best plan" in dlg.unmovable.toPlainText()
    assert "could no longer beat the best plan" in dlg.commands.toPlainText()
    qtbot.wait(200)
    dlg.grab().save(str(tmp_path / "stopped.png"))
    dlg.plans.selectRow(0)
    assert dlg.play_button.isEnabled() and dlg.plan_scenario(0) is not None

"""File > Export report...: the session's run is stored and its report written to a folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ssisim.engine import RunStore


def test_export_report_from_the_file_menu(make_window, run_to, qtbot, tmp_path: Path,
                                          monkeypatch) -> None:
    # the run store in the user data dir is the test's own
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    out = tmp_path / "for colleagues"
    asked: list[str] = []
    warnings: list[str] = []

    def choose(*_args, **_kw) -> str:
        asked.append("folder")
        return str(out)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", choose)
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, title, text: warnings.append(text))

    win = make_window("lgr-short-destination")
    run_to(win, 130)  # past the end of the relocation (t = 30 .. 120)
    file_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&File")
    export = next(a for a in file_menu.actions() if a.text() == "&Export report...")
    export.trigger()
    # the report is drawn off the GUI thread: the window is back at once, and says so
    assert not (out / "report.html").exists()
    assert not export.isEnabled()
    assert "Writing the report" in win.statusBar().currentMessage()
    qtbot.waitUntil(lambda: export.isEnabled(), timeout=120_000)

    assert warnings == [] and asked == ["folder"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "LGR to a short destination" in html
    for chart in ("relocation-1-passes.png", "relocation-1-throttles.png",
                  "member-MEMB2-storage.png", "member-MEMB2-paging.png",
                  "guest-LNXBUSY-pages.png"):
        assert f'src="{chart}"' in html
        assert (out / chart).stat().st_size > 10_000, chart
    for data in ("members.csv", "guests.csv", "events.csv", "passes.csv"):
        assert f'href="{data}"' in html and (out / data).is_file()
    # the run is in the store, as it stood when exported, for `ssisim report` later
    db = tmp_path / "data" / "ssisim" / "runs.sqlite"
    with RunStore(db) as store:
        runs = store.runs()
        assert len(runs) == 1 and runs[0]["sim_end_s"] == 130
        rec = store.run(runs[0]["id"])
    assert rec is not None and rec["summary"]["relocations"][0]["result"] == "relocated"
    assert "report written" in win.statusBar().currentMessage()


def test_a_report_that_cannot_be_written_says_why(make_window, qtbot, tmp_path: Path,
                                                  monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, title, text: warnings.append(text))
    win = make_window("demo")
    win.export_report(str(blocker / "report"))
    qtbot.waitUntil(lambda: bool(warnings), timeout=120_000)
    assert str(blocker) in warnings[0]
    assert win.act_report.isEnabled()


def test_gui_db_is_where_the_window_stores_runs(make_window, run_to, qtbot, tmp_path: Path,
                                                monkeypatch) -> None:
    """``ssisim gui --db PATH`` reaches the window: Export report stores the run there."""
    import ssisim.app.main as app_main
    from ssisim.cli import main as cli_main

    seen: dict = {}
    monkeypatch.setattr(app_main, "run_gui", lambda scenario, **kw: seen.update(kw) or 0)
    db = tmp_path / "class runs.sqlite"
    assert cli_main(["gui", "demo", "--db", str(db)]) == 0
    assert seen["db"] == db
    assert cli_main(["gui", "demo"]) == 0 and seen["db"] is None  # the default store

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: pytest.fail(text))
    win = make_window("lgr-short-destination", db_path=db)
    run_to(win, 20)
    fut = win.export_report(str(tmp_path / "report"))
    qtbot.waitUntil(fut.done, timeout=120_000)
    db_used, run_id, _page = fut.result()
    assert db_used == db
    with RunStore(db) as store:
        assert [r["id"] for r in store.runs()] == [run_id]
    assert not (tmp_path / "data" / "ssisim" / "runs.sqlite").exists()
    qtbot.waitUntil(lambda: str(db) in win.statusBar().currentMessage(), timeout=10_000)

"""The window's controls, preferences, event log and the CLI entry point."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtGui import QPalette

from ssisim.app.main_window import MainWindow
from ssisim.app.plot_style import palette_colours
from ssisim.cli import resolve_scenario
from ssisim.engine import load_scenario


def test_cli_gui_subcommand_does_not_import_qt_until_run():
    code = ("import sys; from ssisim.cli import build_parser; "
            "a = build_parser().parse_args(['gui', 'demo', '--run-until', '5']); "
            "print(a.fn.__name__, sorted(m for m in sys.modules "
            "if m.startswith(('PySide6', 'pyqtgraph', 'ssisim.app'))))")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cmd_gui []"


def test_run_pause_step_and_speed(make_window, qtbot):
    win = make_window("demo")
    assert win.compile_label.text() == "ready"  # kernels were compiled in the background
    assert win.act_run.shortcut().toString() == "Space"
    win.set_speed("100x")
    win.toggle_run()
    qtbot.waitUntil(lambda: win.model.snapshot.t_s >= 3, timeout=10_000)
    assert win.act_run.text() == "Pause"
    win.toggle_run()
    qtbot.waitUntil(lambda: not win.model.running)
    qtbot.wait(200)
    t = win.model.snapshot.t_s
    qtbot.wait(300)
    assert win.model.snapshot.t_s == t  # paused means paused
    win.step()
    qtbot.waitUntil(lambda: win.model.snapshot.t_s == t + 1)
    win.reset()
    qtbot.waitUntil(lambda: win.model.snapshot.t_s == 0)
    assert "started from the beginning" in win.console.text()


def test_event_log_filters_by_kind_and_text(make_window, qtbot, run_to):
    win = make_window("demo")
    run_to(win, 70)
    log = win.events
    assert {"COMMAND", "WORKLOAD"} <= set(log.kind_actions)
    log.kind_actions["COMMAND"].setChecked(False)
    kinds = set(log.visible_kinds())
    assert "COMMAND" not in kinds and "WORKLOAD" in kinds
    assert "1 hidden" in log.kinds_button.text()
    log.search.setText("lnxidl2")
    assert log.proxy.rowCount() > 0
    assert all("LNXIDL2" in log.proxy.index(r, 3).data() + log.proxy.index(r, 4).data()
               for r in range(log.proxy.rowCount()))
    log.set_kinds(None)
    log.search.clear()
    assert log.proxy.rowCount() == log.table_model.rowCount()


def test_layout_and_preferences_persist(make_window, qtbot, settings):
    win = make_window("demo")
    win.docks["events"].raise_()
    win.apply_preferences(type(win.prefs)(**{**vars(win.prefs), "theme": "dark",
                                             "ask_relocation_options": True}))
    win.set_speed("100x")
    win.close()
    again = MainWindow(load_scenario(resolve_scenario("demo")), settings, start_worker=False)
    qtbot.addWidget(again)
    try:
        assert again.prefs.theme == "dark"
        assert again.prefs.ask_relocation_options
        assert again.speed.currentText() == "100x"
        # dark palette, and the plots drawn on it
        pal = again.palette()
        assert pal.color(QPalette.ColorRole.Window).lightness() < 128
        bg, fg = palette_colours()
        assert bg.lightness() < 128 < fg.lightness()
    finally:
        again.apply_preferences(type(again.prefs)(**{**vars(again.prefs), "theme": "system"}))
        again.shutdown()


def test_garbage_is_collected_on_the_gui_thread_while_a_window_runs(make_window, qtbot):
    # cyclic garbage holding Qt objects, collected on the simulation thread, deadlocks both
    # threads: while a window runs, only the GUI thread collects
    import gc
    import weakref

    from PySide6.QtWidgets import QMessageBox

    win = make_window("demo")
    assert not gc.isenabled()
    box = QMessageBox()
    box.itself = box  # a cycle: only the cyclic collector frees it
    gone = weakref.ref(box)
    del box
    assert gone() is not None
    # the clock runs (the worker allocates as it goes), and the GUI thread's timer collects
    win.set_speed("max")
    win.toggle_run()
    qtbot.waitUntil(lambda: gone() is None, timeout=10_000)
    win.toggle_run()
    win.shutdown()
    assert gc.isenabled()  # the last window gone: collection as usual again

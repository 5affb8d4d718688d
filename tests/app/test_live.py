"""The window stays live while the engine runs flat out, and shows a relocation as it goes."""

from __future__ import annotations

import math
import time
from itertools import pairwise

from PySide6.QtCore import QPointF, QTimer

from ssisim.app.throttle_timeline import ROWS
from ssisim.engine import (
    THROTTLE_REASONS,
    Simulation,
    build_summary,
    find_scenario,
    load_scenario,
)


def test_the_event_loop_keeps_running_while_the_worker_simulates(make_window, qtbot):
    win = make_window("demo")
    win.set_speed("max")
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    frames0 = win.model.frames_applied
    win.toggle_run()
    qtbot.wait(1500)
    timer.stop()
    win.toggle_run()
    gaps = [b - a for a, b in pairwise(ticks)]
    assert len(ticks) > 40  # a 10 ms timer kept firing
    assert max(gaps) < 0.5  # never a long freeze (the benchmark holds it to 100 ms)
    assert win.model.frames_applied - frames0 > 15  # and the window kept redrawing
    assert win.model.snapshot.t_s > 100  # while the simulation ran far ahead


def test_relocation_panel_shows_throttles_and_their_meaning(make_window, qtbot, run_to):
    win = make_window("lgr-short-destination")
    run_to(win, 70)
    panel = win.relocation
    assert panel.title.text().startswith("LNXBUSY")
    assert panel.values["pass"].text() == "1 (first)"
    assert int(panel.values["left"].text().replace(",", "")) > 0
    timeline = panel.throttles
    keys = {k for k, *_ in timeline._spans}
    assert "destination:frames" in keys
    # hovering the bar says what the throttle means, in the engine's words
    row = len(ROWS) - 1 - ROWS.index("destination:frames")
    scene = timeline.plot.getViewBox().mapViewToScene(QPointF(60.0, float(row)))
    text = timeline.hover.text_for_scene_pos(scene)
    assert THROTTLE_REASONS[("destination", "frames")] in text
    assert "still on" in text
    assert not panel.timer.counting


def test_the_quiesce_timer_counts_while_the_guest_is_stopped(make_window, qtbot, run_to):
    # when the quiesce happens, from the same scenario run headless
    sim = Simulation(load_scenario(find_scenario("lgr-short-destination")))
    sim.run_until(240)
    (r,) = build_summary(sim)["relocations"]
    quiesced = r["start_s"] + r["relocation_s"] - r["quiesce_s"]
    inside = math.floor(quiesced) + 1  # the first whole second of the quiesce
    assert inside < r["start_s"] + r["relocation_s"]
    win = make_window("lgr-short-destination")
    run_to(win, inside)
    timer = win.relocation.timer
    assert timer.counting
    assert timer.seconds > 0.0
    assert timer.figure.text() == f"{timer.seconds:.1f} s"
    assert win.model.state_of("LNXBUSY") == "quiesced"
    run_to(win, math.ceil(r["start_s"] + r["relocation_s"]) + 5)
    assert not timer.counting
    assert win.model.guest("LNXBUSY").member == "MEMB2"
    assert win.relocation.values["status"].text() == "relocated"
    assert len(win.relocation.passes._passes) == r["passes"]


def test_the_quiesce_timer_shows_the_limit_the_relocation_was_given(make_window, qtbot,
                                                                    wait_console):
    win = make_window("demo")
    win.issue_text("VMRELOCATE MOVE USER LNXIDL1 TO MEMB2 ASYNC MAXQUIESCE 7 MAXTOTAL 600")
    wait_console(win, "Relocation of LNXIDL1 from MEMB1 to MEMB2 started")
    qtbot.waitUntil(lambda: bool(win.model.snapshot.relocations), timeout=10_000)
    r = win.model.snapshot.relocations[0]
    assert r.maxquiesce_s == 7.0  # the typed option, carried by the snapshot
    timer = win.relocation.timer
    qtbot.waitUntil(lambda: timer.limit.format() == "MAXQUIESCE 7 s", timeout=10_000)
    assert not timer.limit.isHidden() and timer.note.text() == ""
    win.issue_text("VMRELOCATE MOVE USER LNXIDL2 TO MEMB1 ASYNC MAXQUIESCE NOLIMIT")
    qtbot.waitUntil(lambda: any(r.userid == "LNXIDL2" for r in win.model.snapshot.relocations),
                    timeout=10_000)
    r2 = next(r for r in win.model.snapshot.relocations if r.userid == "LNXIDL2")
    assert r2.maxquiesce_s is None
    timer.show_relocation(r2)
    assert timer.limit.isHidden() and timer.note.text() == "MAXQUIESCE NOLIMIT"

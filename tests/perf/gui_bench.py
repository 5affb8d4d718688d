"""Benchmark of the desktop app: redraw rate, event-loop pauses and drop-to-screen latency.

Run: ``.venv/bin/python tests/perf/gui_bench.py`` (offscreen; not a unit test, pytest does not
collect it); ``--scenario planning/shop-1000`` for the 1,000-guest shop (compact cluster view).
It opens the scenario in the window, runs it as fast as the machine allows and measures, on the
main thread:

- redraws per second: frames the window applied from the worker's snapshots (at most one per
  simulation step: a slow step caps it, whatever the window could do);
- the longest pause of the event loop: the largest gap between ticks of a 5 ms QTimer;
- the main thread's CPU per redraw;
- drop to screen: from a guest dropped on another member to the first time its tile (detailed
  view) or its square (compact view) is painted showing the relocation (the command goes
  through the worker, which starts the relocation between steps and publishes the next
  snapshot);
- the window alone (``--feed``, on by default): the clock paused, frames recorded in a short
  run of their own are published again at 40 a second from another thread, as a worker that
  steps fast enough would: redraws per second and CPU per redraw then measure what the window
  can keep up with, independent of the engine's speed.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from itertools import pairwise

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import threading

from PySide6.QtCore import QEvent, QEventLoop, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

from ssisim.app.frames import Frame
from ssisim.app.main_window import MainWindow
from ssisim.engine import find_scenario, load_scenario

#: Frames a second offered to the window when it is measured alone (``--feed``).
FEED_FPS = 40.0
#: Wall seconds of frames recorded to offer it (at most).
FEED_RECORD_S = 2.0

TARGET_FPS = 30.0
TARGET_PAUSE_MS = 100.0
TARGET_DROP_MS = 100.0


def wait(app: QApplication, seconds: float) -> None:
    """Run the event loop for ``seconds``."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)


def run_loop(seconds: float) -> None:
    """Run the event loop for ``seconds`` (a loop of its own: ``QApplication.quit`` would close
    the window too, since Qt 6)."""
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def measure_running(app: QApplication, win: MainWindow, seconds: float) -> dict[str, float]:
    """Run the scenario at max speed for ``seconds`` of wall time; redraws, pauses, sim
    speed."""
    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    win.set_speed("max")
    win.toggle_run()
    wait(app, 0.5)  # the first frames of a run are not steady state
    f0, t0, c0 = win.model.frames_applied, win.model.snapshot.t_s, time.thread_time()
    w0 = time.perf_counter()
    timer.start(5)
    run_loop(seconds)
    timer.stop()
    wall = time.perf_counter() - w0
    win.toggle_run()
    gaps = [b - a for a, b in pairwise(ticks)]
    return {
        "wall_s": wall,
        "redraws_per_s": (win.model.frames_applied - f0) / wall,
        "max_pause_ms": max(gaps) * 1000 if gaps else float("inf"),
        "p99_pause_ms": sorted(gaps)[int(len(gaps) * 0.99)] * 1000 if gaps else float("inf"),
        "sim_s_per_s": (win.model.snapshot.t_s - t0) / wall,
        "main_cpu": (time.thread_time() - c0) / wall,
        "cpu_ms_per_redraw": (time.thread_time() - c0) * 1000
        / max(1, win.model.frames_applied - f0),
    }


def record_frames(win: MainWindow, seconds: float) -> list[Frame]:
    """Run at max speed for ``seconds`` and keep every frame the window takes from the worker
    (for ``measure_fed``).

    On its own, after the measured run: frames kept by the benchmark (a thousand guests'
    snapshots and samples each) would be walked by every garbage collection the window makes
    while it is measured; and frozen after (``gc.freeze``) for the same reason.
    """
    frames: list[Frame] = []
    take = win.mailbox.take

    def recording() -> Frame | None:
        frame = take()
        if frame is not None:
            frames.append(frame)
        return frame

    win.mailbox.take = recording  # type: ignore[method-assign]
    try:
        win.set_speed("max")
        win.toggle_run()
        run_loop(seconds)
        win.toggle_run()
    finally:
        del win.mailbox.take  # the class's again
    gc.freeze()
    return frames


def measure_fed(app: QApplication, win: MainWindow, frames: list[Frame],
                seconds: float) -> dict[str, float]:
    """The window alone: the clock paused, ``frames`` published again in turn at ``FEED_FPS``
    from a thread of their own (their events and console answers left out: they were shown
    once); redraws per second, pauses and main-thread CPU per redraw."""
    if win.model.running:
        win.toggle_run()
    wait(app, 0.3)
    gen = win.model.generation
    stop = threading.Event()

    def feed() -> None:
        i = 0
        period = 1.0 / FEED_FPS
        next_t = time.perf_counter()
        while not stop.is_set():
            f = frames[i % len(frames)]
            win.mailbox.put(gen, f.snapshot, f.samples, [], [], True, None)
            i += 1
            next_t += period
            time.sleep(max(0.0, next_t - time.perf_counter()))

    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    wait(app, 0.3)
    f0, c0, w0 = win.model.frames_applied, time.thread_time(), time.perf_counter()
    timer.start(5)
    run_loop(seconds)
    timer.stop()
    wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
    stop.set()
    feeder.join()
    n = win.model.frames_applied - f0
    gaps = [b - a for a, b in pairwise(ticks)]
    return {
        "redraws_per_s": n / wall,
        "max_pause_ms": max(gaps) * 1000 if gaps else float("inf"),
        "cpu_ms_per_redraw": cpu * 1000 / max(1, n),
        "main_cpu": cpu / wall,
    }


def _drop_target(win: MainWindow, userid: str, member: str) -> tuple[QWidget, QWidget, object]:
    """Where the guest is painted, the member panel to drop on, and whether a paint of the
    former shows the relocation: ``shows(event)``."""
    cluster = win.cluster
    if cluster.is_compact():
        cv = cluster.compact
        painter = cv.map_of(userid)
        assert painter is not None, f"{userid} has no square"
        rect = painter.rects[userid]

        def shows_compact(event: QPaintEvent) -> bool:
            look = cv.look(userid)
            moving = look is not None and look.mark == "move"
            return (moving or cv.member_of(userid) == member) and \
                event.rect().intersects(painter.rects.get(userid, rect))

        return painter, cv.panels[member], shows_compact
    tile = cluster.tiles[userid]

    def shows_tile(_event: QPaintEvent) -> bool:
        g = tile._g
        moved = g is not None and g.member == member
        return tile.state in ("relocating", "quiesced") or moved

    return tile, cluster.panels[member], shows_tile


def measure_drop(app: QApplication, win: MainWindow, userid: str, member: str) -> float:
    """Milliseconds from dropping ``userid`` on ``member`` to a redraw showing the relocation.

    At full speed a small relocation can end between two redraws; the tile then shows the
    guest already on ``member``. Either picture shows the relocation. In the compact view the
    watched paint is that of the member's widget, over the guest's square.
    """
    painter, panel, shows = _drop_target(win, userid, member)
    seen: dict[str, float] = {}
    # waiting in an event loop of its own, as the window waits: idle between events (a loop
    # of processEvents() calls would take the interpreter from the worker all the time)
    loop = QEventLoop()

    class PaintWatch(QObject):
        """Notes when the guest is about to be painted showing the relocation."""

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and "t" not in seen and \
                    isinstance(event, QPaintEvent) and shows(event):
                seen["t"] = time.perf_counter()
                QTimer.singleShot(0, loop.quit)
            return False

    watch = PaintWatch()
    painter.installEventFilter(watch)
    try:
        # what a drag of the guest's square or tile carries
        mime = painter.mime_data(userid) if win.cluster.is_compact() else \
            win.cluster.tiles[userid].mime_data()
        QApplication.sendEvent(panel, QDragEnterEvent(QPoint(30, 200), Qt.DropAction.MoveAction,
                                                      mime, Qt.MouseButton.LeftButton,
                                                      Qt.KeyboardModifier.NoModifier))
        drop = QDropEvent(QPointF(30, 200), Qt.DropAction.MoveAction, mime,
                          Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                          QEvent.Type.Drop)
        t0 = time.perf_counter()
        QApplication.sendEvent(panel, drop)
        if not drop.isAccepted():
            raise SystemExit(f"{member} did not take {userid} (already there?)")
        if "t" not in seen:
            QTimer.singleShot(10_000, loop.quit)
            loop.exec()
        return (seen.get("t", float("inf")) - t0) * 1000
    finally:
        painter.removeEventFilter(watch)


def first_guest(win: MainWindow) -> tuple[str, str]:
    """The first guest of the first member (in the scenario's order), and the second member."""
    snap = win.model.snapshot
    assert snap is not None
    names = [m.name for m in snap.members]
    if len(names) < 2:
        raise SystemExit("the scenario has one member: nowhere to drop a guest")
    userid = next(g.userid for g in snap.guests if g.member == names[0])
    return userid, names[1]


def main() -> int:
    """Run the measurements and print them against the targets; exit 1 if one is missed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="demo",
                    help="a bundled scenario by name or a file (default: demo)")
    ap.add_argument("--guest", help="the guest to drop (default: the first guest of the "
                    "first member)")
    ap.add_argument("--member", help="the member to drop it on (default: the second)")
    ap.add_argument("--seconds", type=float, default=5.0, help="wall seconds per run")
    ap.add_argument("--runs", type=int, default=3, help="runs (the median is reported)")
    ap.add_argument("--no-feed", dest="feed", action="store_false",
                    help="skip measuring the window alone (frames fed at 40 a second)")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    scenario = load_scenario(find_scenario(args.scenario))
    runs, drops, fed = [], [], []
    guest = member = ""
    compact = False
    for _ in range(args.runs):
        win = MainWindow(scenario, None)
        win.worker.pause_at_end = False  # keep running past the scenario's duration
        # measured at max speed throughout: watch mode would slow the clock for the relocation
        # the drop starts, and closing must not wait on the question about unrecorded commands
        win.worker.watch_moves = False
        win.ask_before_discarding = False
        win.resize(1600, 1000)
        win.show()
        # the first frame, and the kernels compiled (or loaded): a command issued before waits
        # for them, which is not what a drop costs
        end = time.perf_counter() + 300
        while (win.model.snapshot is None or win.compile_label.text() != "ready") and \
                time.perf_counter() < end:
            wait(app, 0.01)
        win.default_layout()
        wait(app, 0.2)
        compact = win.cluster.is_compact()
        guest, member = first_guest(win)
        guest, member = (args.guest or guest).upper(), (args.member or member).upper()
        # a drop while the clock runs at max speed (the worker is busy stepping)
        win.set_speed("max")
        win.toggle_run()
        wait(app, 0.3)
        drops.append(measure_drop(app, win, guest, member))
        win.toggle_run()
        wait(app, 0.2)
        runs.append(measure_running(app, win, args.seconds))
        if args.feed:
            frames = record_frames(win, min(args.seconds, FEED_RECORD_S))
            if frames:
                fed.append(measure_fed(app, win, frames, args.seconds))
            del frames
            gc.unfreeze()
        win.shutdown()
        win.close()
        win.deleteLater()
        wait(app, 0.1)

    def med(key: str, rows: list[dict[str, float]] = runs) -> float:
        return statistics.median(r[key] for r in rows)

    fps, pause, drop = med("redraws_per_s"), max(r["max_pause_ms"] for r in runs), \
        statistics.median(drops)
    n_guests = len(scenario.guests)
    print(f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs, Python "
          f"{platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"runs: {args.runs} x {args.seconds:g} s of {args.scenario} at max speed, window "
          f"1600x1000, offscreen, {'compact' if compact else 'detailed'} cluster view"
          f", {n_guests:,} guests")
    print(f"redraws per second (median):   {fps:6.1f}   target >= {TARGET_FPS:g}")
    print(f"longest event-loop pause:      {pause:6.1f} ms (worst run; p99 median "
          f"{med('p99_pause_ms'):.1f} ms)   target <= {TARGET_PAUSE_MS:g} ms")
    print(f"drop to relocation on screen:  {drop:6.1f} ms (median; all: "
          f"{', '.join(f'{d:.0f}' for d in drops)}; {guest} onto {member})   "
          f"target <= {TARGET_DROP_MS:g} ms")
    print(f"simulated seconds per second:  {med('sim_s_per_s'):6.1f}   main thread CPU "
          f"{med('main_cpu'):.0%}, {med('cpu_ms_per_redraw'):.1f} ms per redraw")
    ok = fps >= TARGET_FPS and pause <= TARGET_PAUSE_MS and drop <= TARGET_DROP_MS
    if fed:
        fed_fps = med("redraws_per_s", fed)
        fed_pause = max(r["max_pause_ms"] for r in fed)
        print(f"window alone, {FEED_FPS:g} frames/s fed: {fed_fps:.1f} redraws per second "
              f"(median), {med('cpu_ms_per_redraw', fed):.1f} ms main thread CPU per redraw "
              f"({med('main_cpu', fed):.0%}), longest pause {fed_pause:.1f} ms")
        if fps < TARGET_FPS and fed_fps >= TARGET_FPS:
            print("the redraw rate is the engine's: the window keeps up with "
                  f"{fed_fps:.0f} frames a second when they come")
            ok = fed_fps >= TARGET_FPS and fed_pause <= TARGET_PAUSE_MS and \
                pause <= TARGET_PAUSE_MS and drop <= TARGET_DROP_MS
    print("OK" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Starting the desktop app: the Qt application, the window, and the screenshot mode.

``ssisim gui`` calls ``run_gui``; nothing else in the program imports Qt.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ssisim.engine import ScenarioConfig, Session

#: Size of the window in screenshot mode unless asked otherwise (pixels).
SCREENSHOT_SIZE = (1600, 1000)


def _need_offscreen() -> bool:
    """True on a machine without a display, where Qt must render offscreen."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(scenario: ScenarioConfig, run_until: float | None = None,
            screenshot: str | None = None, size: tuple[int, int] | None = None,
            speed: str | None = None, select: str | None = None, theme: str | None = None,
            argv: list[str] | None = None, session: Session | None = None,
            db: Path | None = None, screenshot_after_s: float | None = None) -> int:
    """Open the window on ``scenario``; returns the exit code.

    Parameters
    ----------
    scenario : ScenarioConfig
        The scenario to simulate.
    run_until : float, optional
        Run (as fast as possible in screenshot mode, else at the chosen speed) until this
        simulated time, then pause.
    screenshot : str, optional
        Render the window to this PNG file once ``run_until`` is reached, then exit.
    size : (int, int), optional
        Window size in pixels.
    speed : str, optional
        ``1x``, ``10x``, ``100x`` or ``max``.
    select : str, optional
        A guest to show in the guest detail.
    theme : str, optional
        ``system``, ``light`` or ``dark`` (for this run; the preference is not changed).
    session : Session, optional
        A recorded session (``load_session``) whose commands run at their simulated times, as
        ``ssisim run --session`` runs them: a trainer watches a student's lesson.
    db : Path, optional
        The run database where the window stores runs (File > Export report); default: the
        one in the user data dir, as for ``ssisim run``.
    screenshot_after_s : float, optional
        With ``screenshot``: once ``run_until`` is reached, run the clock at ``speed`` (1x
        unless given) with watch mode on, as the window runs for a user, and take the picture
        this many wall seconds later (watch mode at work, the measured pace).
    """
    if _need_offscreen():
        if not screenshot:
            # Qt would abort the process; say what to do instead
            print("ssisim: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are "
                  "not set); use --run-until S --screenshot PNG, or run under xvfb-run",
                  file=sys.stderr)
            return 1
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow
    from .theme import apply_theme

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("ssisim")
    app.setOrganizationName("ssisim")
    # screenshots are reproducible: no saved layout or preferences, nothing saved
    settings = None if screenshot else QSettings("ssisim", "ssisim")
    win = MainWindow(scenario, settings, db_path=db)
    if screenshot:
        win.training.interactive = False  # no briefing or debrief over the picture
        win.ask_before_discarding = False  # and nobody to answer a question when it closes
    if session is not None:
        from ssisim.engine import apply_session

        win.worker.call(lambda sim: apply_session(sim, session))
    if theme:
        apply_theme(theme)
        win.restyle()
    if size is not None or screenshot:
        w, h = size or SCREENSHOT_SIZE
        win.resize(w, h)
        win.default_layout()
    if select:
        win.model.select(select.upper())
    code = {"rc": 0}
    if screenshot:
        win.set_speed("max")
        win.worker.pause_at_end = False
        win.worker.watch_moves = False  # a picture of a moment: no slowing down on the way

        def shoot(_t: float, _reason: str) -> None:
            try:
                # let the last frame and its layout settle before the grab
                for _ in range(3):
                    win.redraw()
                    app.processEvents()
                if not win.grab().save(screenshot, "PNG"):
                    print(f"ssisim: cannot write {screenshot}", file=sys.stderr)
                    code["rc"] = 1
            except Exception:  # noqa: BLE001 (report, and leave: a screenshot run must end)
                import traceback

                traceback.print_exc()
                code["rc"] = 2
            finally:
                win.close()
                app.quit()

        def failed(text: str) -> None:
            print(text, file=sys.stderr)
            code["rc"] = 2
            win.close()
            app.quit()

        def reached(t: float, reason: str) -> None:
            # the clock stopped at --run-until: shoot now, or first run as a user would
            win.worker.paused.disconnect(reached)
            if screenshot_after_s is None:
                shoot(t, reason)
                return
            win.worker.watch_moves = True
            win.set_speed(speed or "1x")
            win.toggle_run()
            QTimer.singleShot(int(screenshot_after_s * 1000), lambda: shoot(-1.0, "after"))

        win.worker.paused.connect(reached)
        win.worker.failed.connect(failed)
        win.worker.run_to(run_until or 0.0)
    else:
        if speed:
            win.set_speed(speed)
        if run_until is not None:
            win.worker.run_to(run_until)
    win.show()
    if screenshot:
        # a screenshot run never hangs: give up after a generous wall time
        QTimer.singleShot(600_000, lambda: (code.update(rc=2), app.quit()))
    app.exec()
    win.shutdown()
    return code["rc"]

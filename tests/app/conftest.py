"""Fixtures for the desktop app's tests: offscreen Qt, a window per test, helpers to wait on it.

Qt must know it renders offscreen before it is imported, hence the environment first.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from collections.abc import Callable, Iterator
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ssisim.app.main_window import MainWindow
from ssisim.cli import resolve_scenario
from ssisim.engine import load_scenario

pg.setConfigOptions(mouseRateLimit=-1)

#: The offscreen platform plugin warns when a main window with docks is shown, and when a
#: tooltip shown again over itself is raised; a real display does not. Nothing else is
#: ignored: any other Qt warning fails the test.
OFFSCREEN_NOISE = r"This plugin does not support (propagateSizeHints|raise)\(\)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Ignore only the offscreen plugin's notice in this folder's tests."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def no_unexpected_questions(monkeypatch) -> None:
    """A modal question nobody answers would hang the test: fail at once instead. A test that
    expects one (discarding a lesson in progress) patches ``QMessageBox.question`` itself."""

    def question(_parent, title: str, text: str, *args, **kwargs):
        raise AssertionError(f"unexpected question: {title}: {text}")

    monkeypatch.setattr(QMessageBox, "question", question)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """Preferences and layout in a file of the test's own (never the user's)."""
    return QSettings(str(tmp_path / "ssisim.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot, settings: QSettings) -> Iterator[Callable[..., MainWindow]]:
    """``make_window("demo")``: a shown window whose worker has published its first frame.

    Every window's worker thread is stopped when the test ends.
    """
    windows: list[MainWindow] = []

    def make(name: str = "demo", show: bool = True, **kwargs) -> MainWindow:
        win = MainWindow(load_scenario(resolve_scenario(name)), settings, **kwargs)
        # pytest-qt closes the window after the test: nobody is there to answer whether the
        # work in progress may go
        qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "ask_before_discarding",
                                                                 False))
        windows.append(win)
        if show:
            win.show()
        qtbot.waitUntil(lambda: win.model.snapshot is not None, timeout=60_000)
        return win

    yield make
    for w in windows:
        w.shutdown()
        assert not w.worker.isRunning()


@pytest.fixture
def run_to(qtbot) -> Callable[[MainWindow, float], None]:
    """``run_to(win, t_s)``: run at full speed to ``t_s``; returns once the window shows it."""

    def run(win: MainWindow, t_s: float, timeout_ms: int = 60_000) -> None:
        win.set_speed("max")
        with qtbot.waitSignal(win.worker.paused, timeout=timeout_ms):
            win.worker.run_to(t_s)
        qtbot.waitUntil(lambda: win.model.snapshot is not None
                        and abs(win.model.snapshot.t_s - t_s) < 1e-6, timeout=timeout_ms)

    return run


@pytest.fixture
def wait_console(qtbot) -> Callable[[MainWindow, str], None]:
    """``wait_console(win, text)``: wait until the console shows ``text``."""

    def wait(win: MainWindow, text: str, timeout_ms: int = 20_000) -> None:
        qtbot.waitUntil(lambda: text in win.console.text(), timeout=timeout_ms)

    return wait


def drop_on(target: QWidget, mime: QMimeData,
            modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> tuple[bool, bool]:
    """Drag ``mime`` into ``target`` and drop it there, as Qt delivers a real drop.

    Returns whether the target accepted the drag and the drop. (A real QDrag.exec returns at
    once offscreen and drops nothing, so the events are built by hand: pytest-qt#260.)
    """
    enter = QDragEnterEvent(QPoint(40, 200), Qt.DropAction.MoveAction, mime,
                            Qt.MouseButton.LeftButton, modifiers)
    QApplication.sendEvent(target, enter)
    drop = QDropEvent(QPointF(40, 200), Qt.DropAction.MoveAction, mime,
                      Qt.MouseButton.LeftButton, modifiers, QEvent.Type.Drop)
    drop.setAccepted(False)
    QApplication.sendEvent(target, drop)
    return enter.isAccepted(), drop.isAccepted()


@pytest.fixture
def drop() -> Callable[..., tuple[bool, bool]]:
    """``drop(target, mime, modifiers=...)``: a guest's drag dropped on a widget
    (``drop_on``)."""
    return drop_on

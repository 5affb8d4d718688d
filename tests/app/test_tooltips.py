"""What a bar or a row of the relocation panel's plots means stays on screen while hovered.

Qt asks a widget for its tooltip with a ``ToolTip`` help event when the mouse rests on it (and
again 20 ms after every move while a tooltip shows): the plot's own tooltip, the generic one,
must not then replace the text of the bar or row under the mouse.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from ssisim.app.glossary import TERMS
from ssisim.app.hover import PlotHover
from ssisim.app.throttle_timeline import ROWS
from ssisim.engine import THROTTLE_REASONS


def _view_pos(hover: PlotHover, x: float, y: float) -> QPoint:
    """Where the point (x, y) of the plot's data is in the plot widget's viewport."""
    scene = hover.plot.getViewBox().mapViewToScene(QPointF(x, y))
    return hover.widget.mapFromScene(scene)


def _rest(qtbot, hover: PlotHover, pos: QPoint) -> str:
    """The mouse moves to ``pos`` and rests there; the tooltip text shown then."""
    vp = hover.widget.viewport()
    hover.last_text = "(not moved yet)"
    qtbot.mouseMove(vp, pos)
    qtbot.waitUntil(lambda: hover.last_text != "(not moved yet)", timeout=2000)
    # what Qt sends when the mouse has rested (or 20 ms after a move while a tooltip shows)
    QApplication.sendEvent(vp, QHelpEvent(QEvent.Type.ToolTip, pos, vp.mapToGlobal(pos)))
    qtbot.wait(30)
    return QToolTip.text() if QToolTip.isVisible() else ""


@pytest.fixture
def relocating(make_window, run_to):
    """lgr-short-destination at t = 70 s: LNXBUSY's first pass, destination short of frames."""
    win = make_window("lgr-short-destination")
    run_to(win, 70)
    win.docks["relocation"].show()
    win.docks["relocation"].raise_()
    yield win
    QToolTip.hideText()


def test_a_throttle_bar_keeps_its_own_tooltip(relocating, qtbot):
    timeline = relocating.relocation.throttles
    hover = timeline.hover
    row = len(ROWS) - 1 - ROWS.index("destination:frames")
    pos = _view_pos(hover, 60.0, float(row))
    want = hover.text_for_scene_pos(hover.widget.mapToScene(pos))
    assert want and THROTTLE_REASONS[("destination", "frames")] in want
    assert _rest(qtbot, hover, pos) == want
    # the mouse goes on moving over the same bar: still the bar's own words
    for dx in (3, -2, 4):
        assert _rest(qtbot, hover, pos + QPoint(dx, 1)) == want
    assert QToolTip.text() != TERMS["throttle"]


def test_a_throttle_row_name_keeps_its_own_tooltip(relocating, qtbot):
    timeline = relocating.relocation.throttles
    hover = timeline.hover
    axis = timeline.plot.getAxis("left")
    row = len(ROWS) - 1 - ROWS.index("source:stage_frames")
    y = hover.widget.mapFromScene(
        hover.plot.getViewBox().mapViewToScene(QPointF(0.0, float(row)))).y()
    x = hover.widget.mapFromScene(axis.sceneBoundingRect().center()).x()
    pos = QPoint(x, y)
    text = _rest(qtbot, hover, pos)
    assert text.startswith("source:stage_frames: ")
    assert _rest(qtbot, hover, pos + QPoint(-3, 1)) == text


def test_a_pass_bar_keeps_its_own_tooltip_and_between_bars_the_chart_explains(relocating,
                                                                             qtbot):
    chart = relocating.relocation.passes
    hover = chart.hover
    assert chart._passes
    first = chart._passes[0]
    pos = _view_pos(hover, float(first.number), 0.01)
    text = _rest(qtbot, hover, pos)
    assert text.startswith(f"Pass {first.number} ({first.kind}):")
    assert _rest(qtbot, hover, pos + QPoint(2, -2)) == text
    # off any bar the chart's own explanation is what shows
    between = _view_pos(hover, float(first.number) + 0.5, 0.01)
    assert _rest(qtbot, hover, between) == TERMS["pass"]


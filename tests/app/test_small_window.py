"""What a class sees: later passes can be read next to pass 1, a small window (1024x775) clips
no tile and writes no gauge over its figures, and throttles, menus and the report agree."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from ssisim import charts
from ssisim.app.pass_chart import MIN_BAR, PassChart, compact
from ssisim.app.plot_style import compact_ticks
from ssisim.app.theme import PASS_COLOURS, THROTTLE_COLOURS
from ssisim.app.throttle_timeline import ROWS, row_label
from ssisim.engine import THROTTLE_REASONS, THROTTLE_STYLE, PassSnapshot, RelocationSnapshot

#: Pages of the passes of a busy guest: pass 1 sends everything, the others a few per cent.
PAGES = (2_097_152, 419_000, 9_800, 310)


def _relocation(pages: tuple[int, ...]) -> RelocationSnapshot:
    kinds = ["first"] + ["intermediate"] * (len(pages) - 3) + ["penultimate", "final"]
    passes = tuple(PassSnapshot(i + 1, k, n, 30.0 + i, 31.0 + i, 0.0)
                   for i, (k, n) in enumerate(zip(kinds, pages)))
    return RelocationSnapshot("LNXBUSY", "MEMB1", "MEMB2", "SYNC", "done", "relocated", "",
                              30.0, 40.0, passes, 0, sum(pages), 0.0, 38.0, 1.0, (), ())


def test_every_pass_is_labelled_and_a_tiny_one_still_shows(qtbot):
    chart = PassChart()
    qtbot.addWidget(chart)
    chart.resize(420, 260)
    chart.show()
    chart.show_relocation(_relocation(PAGES))
    qtbot.wait(50)
    texts = [label.toPlainText() for label in chart.labels if label.isVisible()]
    assert texts == ["2.1M", "419k", "9.8k", "310"]
    heights = chart.bars.opts["height"]
    assert min(heights) >= MIN_BAR * max(heights) - 1e-12  # a stub, not nothing
    # the picture: in the middle of pass 4's bar, just above the axis, the final pass's red
    img = chart.widget.grab().toImage()
    vb = chart.plot.getViewBox()
    scene = vb.mapViewToScene(QPointF(4.0, max(heights) * MIN_BAR * 0.5))
    pos = chart.widget.mapFromScene(scene)
    found = {QColor(img.pixel(pos.x() + dx, pos.y())).name() for dx in (-1, 0, 1)}
    assert PASS_COLOURS["final"] in found, found
    # and the tallest bar's label sits inside it, in a colour that reads on it
    assert chart.labels[0].anchor.y() == 0.0 or chart.labels[0].angle == 90


def test_compact_numbers():
    assert [compact(n) for n in (310, 9_800, 419_000, 2_097_152, 12_000_000)] == \
        ["310", "9.8k", "419k", "2.1M", "12M"]
    assert compact_ticks([5000.0, 10000.0, 15000.0], 1.0, 5000.0) == ["5k", "10k", "15k"]
    assert compact_ticks([0.2, 0.4], 1.0, 0.2) == ["0.2", "0.4"]
    # the GB of a member of a few MB: ticks as far apart as they are, none written twice
    ticks = compact_ticks([0.0005, 0.001, 0.0015, 0.002], 1.0, 0.0005)
    assert ticks == ["0.0005", "0.0010", "0.0015", "0.0020"]


def test_at_1024x775_no_tile_is_clipped_and_no_gauge_overlaps(make_window, run_to, qtbot):
    win = make_window("migration-comparison")
    win.resize(1024, 775)
    win.default_layout()
    run_to(win, 40)
    qtbot.wait(100)
    assert (win.width(), win.height()) == (1024, 775)  # no dock forces the window larger
    for panel in win.cluster.panels.values():
        view = panel._scroll.viewport()
        for tile in panel.tiles:
            top_left = tile.mapTo(view, tile.rect().topLeft())
            bottom_right = tile.mapTo(view, tile.rect().bottomRight())
            assert view.rect().contains(top_left) and view.rect().contains(bottom_right), \
                (panel.name, tile.userid, tile.geometry(), view.size())
        for bar in (panel.cpu, panel.central, panel.xstor, panel.paging):
            label, text = bar.shown()
            fm = bar.fontMetrics()
            used = fm.horizontalAdvance(text) + (fm.horizontalAdvance(label) + bar.GAP
                                                 if label else 0)
            assert used <= bar.width() - 12, (panel.name, bar.label, label, text)


def test_the_guest_detail_writes_large_rates_compactly(make_window, run_to):
    win = make_window("demo")
    win.resize(1024, 775)
    win.model.select("LNXPF1")
    run_to(win, 30)
    axis = win.detail.tput.getAxis("left")
    ticks = axis.tickStrings([10000.0, 20000.0], 1.0, 10000.0)
    assert ticks == ["10k", "20k"]  # "20000" ran into the axis title "pages/s"


def test_throttles_are_named_and_coloured_alike_in_the_window_and_the_report():
    keys = {f"{side}:{reason}" for side, reason in THROTTLE_REASONS}
    assert keys <= set(THROTTLE_STYLE)
    assert THROTTLE_COLOURS == charts.REASON_COLOURS
    for key in ROWS:
        assert row_label(key) == THROTTLE_STYLE[key][0]
    colours = [c for _, c in THROTTLE_STYLE.values()]
    assert len(set(colours)) == len(colours)  # every reason its own colour
    assert np.all([QColor(c).isValid() for c in colours])


def test_record_and_save_session_are_told_apart(make_window):
    win = make_window("demo", show=False)
    record, save = win.act_record, win.training.act_save_session
    assert record.text() == "&Record a replayable scenario..."
    assert save.text() == "Save lesson sess&ion..."
    assert "scenario" in record.statusTip() and "ssisim run" in record.statusTip()
    assert "grade" in save.statusTip() and "not a scenario" in save.statusTip()
    assert record.iconText() == "Record scenario"  # the toolbar's short name

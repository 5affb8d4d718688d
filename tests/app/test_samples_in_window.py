"""The window draws the engine's own samples: one pipeline from the engine to the plots."""

from __future__ import annotations

import numpy as np

from ssisim.app.history import GUEST_COLUMNS, MEMBER_COLUMNS
from ssisim.app.link_plot import MB_PER_PAGE
from ssisim.app.member_plots import SAMPLE_FIELD
from ssisim.engine import PAGES_PER_GB


def _engine_samples(win, qtbot):
    fut = win.worker.call(lambda sim: (sim.sample_s, sim.step_s, list(sim.samples_member),
                                       list(sim.samples_guest)))
    qtbot.waitUntil(fut.done, timeout=10_000)
    return fut.result()


def test_the_plots_draw_exactly_the_engines_samples(make_window, qtbot, run_to):
    # this scenario samples every step, as the window's feed does: the run's own records
    # and the window's rows must be the same numbers
    win = make_window("lgr-short-destination")
    run_to(win, 60)
    sample_s, step_s, members, guests = _engine_samples(win, qtbot)
    assert sample_s == step_s == 1.0
    h = win.model.history
    times = sorted({s.t_s for s in members})
    assert list(h.t) == times == [float(t) for t in range(61)]
    for name in h.members:
        rows = [s for s in members if s.member == name]
        for col in MEMBER_COLUMNS:
            assert list(h.member(name, col)) == [getattr(s, col) for s in rows], (name, col)
    for uid in h.guests:
        rows = [s for s in guests if s.userid == uid]
        for col in GUEST_COLUMNS:
            assert list(h.guest(uid, col)) == [getattr(s, col) for s in rows], (uid, col)
    # and the curves on screen are those columns
    plots = win.members
    plots.refresh(force=True)
    for (name, col), curve in plots.curves.items():
        x, y = curve.getData()
        want = np.array([getattr(s, SAMPLE_FIELD[col]) for s in members if s.member == name],
                        dtype=float)
        if col in ("central", "xstor", "slots"):
            want = want / PAGES_PER_GB
        assert np.allclose(x, times) and np.allclose(y, want), (name, col)
    # the link plot draws the relocation's link samples: what they sent adds up to the pages
    # the relocation moved so far
    r = win.model.snapshot.relocations[0]
    series = h.relocations[f"{r.userid}@{r.start_s:g}"]
    assert float(series.pages_per_s.sum()) * step_s == r.pages_moved
    x, y = win.relocation.link.sent.getData()
    assert np.allclose(y, series.pages_per_s * MB_PER_PAGE)


def test_a_relocations_first_sample_gives_the_link_plot_a_readable_axis(qtbot):
    """One sample of a relocation (it has just started) spans no time: the axis still covers a
    second, not a few nanoseconds whose labels run into each other."""
    from ssisim.app.history import RelocationSeries
    from ssisim.app.link_plot import LinkPlot

    plot = LinkPlot()
    qtbot.addWidget(plot)
    series = RelocationSeries()
    series.cols.append(np.array([[61.0, 0.0, 1000.0, 5000.0]]))
    plot.show_series(series)
    lo, hi = plot.plot.getViewBox().viewRange()[0]
    assert lo == 61.0 and hi - lo >= 1.0


def test_the_time_axes_show_the_first_minute_before_time_runs(make_window, qtbot):
    """At t = 0 the only sample spans no time: the members' plots (and a guest's) still show a
    minute of simulated time, not a billionth of a second with ticks at 2e-10."""
    win = make_window("demo")
    qtbot.waitUntil(lambda: win.model.snapshot is not None and len(win.model.history) > 0,
                    timeout=20_000)
    win.members.refresh(force=True)
    for store, rates in win.members.axes.values():
        for r in (store, rates):
            lo, hi = r.plot.getViewBox().viewRange()[0]
            assert lo <= 0.0 and hi >= 60.0, (lo, hi)

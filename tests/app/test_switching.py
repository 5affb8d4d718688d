"""Switching scenarios and lessons: the cluster shows the new scenario's guests, never the old.

The truth is the engine's own: after each switch the worker is asked, between its steps, which
guests each member has (``Simulation.guests_on``, what ``QUERY NAMES`` lists), and the window
must show exactly those tiles once it has drawn that moment.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ssisim.app.guest_tile import GuestTile
from ssisim.app.main_window import MainWindow
from ssisim.cli import resolve_lesson, resolve_scenario
from ssisim.engine import Simulation

#: Bundled scenarios and lessons the switches go between. lgr-short-destination and lesson 1
#: both start with no event at t = 0 (the case of the filed issue); demo starts with six.
SCENARIOS = ("lgr-short-destination", "demo", "overcommit")
LESSONS = ("01-first-relocation", "05-short-destination", "07-shift-work")


def _truth(win: MainWindow) -> tuple[int, float, dict[str, list[str]], list[str]]:
    """(generation, t, guests per member, logged-off guests) from the engine, in the order of
    everything sent to the worker so far (its inbox is first in, first out)."""
    worker = win.worker

    def ask(sim: Simulation) -> tuple[int, float, dict[str, list[str]], list[str]]:
        on = {m: sorted(g.userid for g in sim.guests_on(m)) for m in sim.members}
        off = sorted(g.userid for g in sim.snapshot().guests if g.member is None)
        return worker._generation, round(sim.t, 6), on, off

    fut = worker.call(ask)
    return fut.result(timeout=20)


def _shown(win: MainWindow) -> tuple[dict[str, list[str]], list[str]]:
    """The guest tiles the cluster shows on each member (not the arriving copies), and in the
    logged-off strip."""
    on = {name: sorted(t.userid for t in p.tiles if not t.incoming)
          for name, p in win.cluster.panels.items()}
    off = sorted(t.userid for t in win.cluster._off_tiles)
    return on, off


def assert_tiles_match_engine(qtbot, win: MainWindow, what: str) -> None:
    """Pause, ask the engine who runs where, wait until that moment is drawn, compare."""
    win.worker.pause_clock()
    win.model.running = False
    gen, t, on, off = _truth(win)
    qtbot.waitUntil(lambda: win.model.generation == gen and win.model.snapshot is not None
                    and win.model.snapshot.t_s == t, timeout=20_000)
    shown_on, shown_off = _shown(win)
    assert (shown_on, shown_off) == (on, off), f"after {what} at t = {t:g} s"
    # and on screen (new panels show at the next turn of the event loop): every guest tile is
    # one of the new scenario's, once, on its member's panel
    everyone = sorted({u for us in on.values() for u in us} | set(off))

    def visible() -> list[str]:
        return sorted(t.userid for t in win.cluster.findChildren(GuestTile)
                      if t.isVisible() and not t.incoming)

    qtbot.waitUntil(lambda: visible() == everyone, timeout=5000)
    for name, panel in win.cluster.panels.items():
        for tile in panel.tiles:
            assert tile.parent() is panel._area and tile.isVisible(), (what, name, tile.userid)


@pytest.fixture
def switcher(qtbot, monkeypatch) -> Callable[[MainWindow, str, bool], None]:
    """``switch(win, name, running)``: open a bundled scenario (Ctrl+O) or lesson (Ctrl+Shift+L,
    then Start in its briefing when ``running``) as the user does."""
    # a lesson in progress is discarded by a switch: the user says yes
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)

    def switch(win: MainWindow, name: str, running: bool) -> None:
        if running:  # switch while the old scenario's clock runs
            win.set_speed("100x")
            if not win.model.running and win.act_run.isEnabled():
                win.toggle_run()
            t0 = win.model.snapshot.t_s
            qtbot.waitUntil(lambda: win.model.snapshot.t_s > t0 or not win.act_run.isEnabled(),
                            timeout=10_000)
        if name in LESSONS:
            win.training.act_open_lesson.trigger()
            picker = win.training.picker
            picker.select(name)
            assert picker.selected().path == resolve_lesson(name)
            picker.open_button.click()
        else:
            path = str(resolve_scenario(name))
            monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (path, ""))
            win.act_open.trigger()
        if name in LESSONS:
            qtbot.waitUntil(lambda: win.training.briefing_dialog is not None, timeout=10_000)
            brief = win.training.briefing_dialog
            if running:
                brief.start_button.click()  # Start: the new lesson's clock runs
            else:
                brief.reject()

    return switch


@pytest.mark.slow
def test_every_pair_of_scenario_and_lesson_shows_the_new_guests(make_window, qtbot, switcher):
    win = make_window(SCENARIOS[0])
    current = SCENARIOS[0]
    for running in (False, True):
        for s in SCENARIOS:
            for les in LESSONS:
                # scenario -> lesson -> scenario, from wherever the window is
                for target in (s, les, s):
                    if target == current:
                        continue
                    switcher(win, target, running)
                    assert_tiles_match_engine(qtbot, win, f"{current} -> {target}"
                                              f"{' (running)' if running else ''}")
                    current = target


@pytest.mark.slow
def test_fifty_random_switches_always_show_the_new_guests(make_window, qtbot, switcher):
    rng = random.Random(20240611)
    names = [*SCENARIOS, *LESSONS]
    current = "demo"
    win = make_window(current)
    for i in range(50):
        target = rng.choice([n for n in names if n != current])
        running = rng.random() < 0.5
        switcher(win, target, running)
        if rng.random() < 0.3:  # now and then the new one runs a little before it settles
            win.set_speed("max")
            if win.act_run.isEnabled():
                win.toggle_run()
            qtbot.wait(rng.randint(0, 80))
        assert_tiles_match_engine(qtbot, win, f"switch {i}: {current} -> {target}")
        current = target

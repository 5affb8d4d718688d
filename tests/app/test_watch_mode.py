"""Watch mode: the clock slows while a guest moves, so its passes can be followed, and the
user's speed comes back when the move ends."""

from __future__ import annotations

from dataclasses import replace

from ssisim.app import preferences as prefs_io
from ssisim.app.pacing import Move, Watch, Watcher, watch_factor
from ssisim.app.preferences_dialog import PreferencesDialog


def _moves(*spec: tuple[str, float]) -> list[Move]:
    return [Move(key, f"the relocation of {key}", s) for key, s in spec]


def test_the_watch_speed_makes_a_move_last_about_twenty_wall_seconds():
    assert watch_factor(5.0) == 1.0  # shorter than 20 s: real time
    assert watch_factor(300.0) == 10.0  # 30 s at 10x
    assert watch_factor(5000.0) == 100.0  # 50 s at 100x
    w = Watcher()
    watch = w.update(_moves(("LNX01", 3.0)), 10.0)
    assert watch == Watch(("the relocation of LNX01",), 1.0, 10.0)
    assert watch.message() == ("Watching the relocation of LNX01 at 1x; speed returns to 10x "
                               "when it ends")
    # the move ended: the user's speed again
    assert w.update([], 10.0) is None


def test_the_user_speed_wins_when_slow_enough_or_chosen_during_the_move():
    w = Watcher()
    assert w.update(_moves(("A", 3.0)), 1.0) is None  # 1x is slow enough already
    w = Watcher()
    assert w.update(_moves(("A", 3.0)), None).factor == 1.0  # max is slowed too
    w.dismiss()  # the user picked a speed meanwhile: it holds for A
    assert w.update(_moves(("A", 2.0)), None) is None
    watch = w.update(_moves(("A", 2.0), ("B", 400.0)), None)  # B is new: watched
    assert watch.factor == 10.0 and watch.what == ("the relocation of B",)


def test_several_moves_are_watched_at_the_slowest_of_their_speeds():
    watch = Watcher().update(_moves(("BIG", 4000.0), ("SMALL", 4.0)), 100.0)
    assert watch.factor == 1.0
    assert watch.what[0] == "the relocation of SMALL"
    assert watch.message().startswith("Watching the relocation of SMALL and 1 other move at 1x")
    assert watch.message().endswith("speed returns to 100x when they end")


def _relocate_at_10x(win, qtbot, wait_console) -> list[tuple[float, float | None, Watch | None]]:
    """Run at 10x, relocate an idle guest, and note (t, pacing factor, watch) until it ends."""
    win.set_speed("10x")
    win.toggle_run()
    qtbot.waitUntil(lambda: win.model.snapshot.t_s >= 3, timeout=20_000)
    seen: list[tuple[float, float | None, Watch | None]] = []
    win.model.updated.connect(lambda f: seen.append((f.snapshot.t_s, win.worker._pacer.factor,
                                                     f.watch)))
    win.issue_text("VMRELOCATE MOVE USER LNXIDL1 TO MEMB2")
    wait_console(win, "User LNXIDL1 has been relocated from MEMB1 to MEMB2", 30_000)
    qtbot.waitUntil(lambda: len(seen) > 3 and seen[-1][1] == 10.0 and seen[-1][2] is None,
                    timeout=20_000)
    qtbot.wait(600)  # and it stays at the user's speed
    win.toggle_run()
    return seen


def test_a_relocation_at_10x_is_watched_at_1x_then_10x_returns(make_window, qtbot,
                                                               wait_console):
    win = make_window("demo")
    assert win.prefs.watch_moves  # on by default
    seen = _relocate_at_10x(win, qtbot, wait_console)
    watched = [s for s in seen if s[2] is not None]
    assert watched, "the relocation was never watched"
    assert all(w.factor == 1.0 and w.user_factor == 10.0 for _, _, w in watched)
    assert watched[0][2].message() == ("Watching the relocation of LNXIDL1 at 1x; speed "
                                       "returns to 10x when it ends")
    # the worker's pacing dropped to 1x meanwhile (frames report it a moment late: the
    # factor is read as each frame is shown)
    assert 1.0 in [f for _, f, _ in seen]
    # and the speed came back after, for good
    after = seen[seen.index(watched[-1]) + 1:]
    assert after and all(w is None for _, _, w in after) and after[-1][1] == 10.0
    assert win.watch is None and win.watch_label.isHidden()
    assert win.speed.currentText() == "10x"  # the user's choice was never changed


def test_with_watch_mode_off_the_speed_does_not_change(make_window, qtbot, wait_console):
    win = make_window("demo")
    win.apply_preferences(replace(win.prefs, watch_moves=False))
    assert not win.worker.watch_moves
    seen = _relocate_at_10x(win, qtbot, wait_console)
    assert seen and all(f == 10.0 and w is None for _, f, w in seen)
    assert win.watch_label.isHidden()


def test_the_preference_is_kept_and_in_the_dialog(qtbot, settings):
    p = prefs_io.load(settings)
    assert p.watch_moves
    dlg = PreferencesDialog(p)
    qtbot.addWidget(dlg)
    assert dlg.watch.isChecked()
    assert "20 seconds" in dlg.watch.toolTip()
    dlg.watch.setChecked(False)
    prefs_io.save(settings, dlg.result_preferences())
    assert not prefs_io.load(settings).watch_moves

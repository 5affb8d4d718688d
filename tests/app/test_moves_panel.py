"""The other migrations and pausing, live: LPM, Storage vMotion, Linux suspend and CP STOP each
show their phase, a progress bar that grows and the downtime, as LGR does."""

from __future__ import annotations

from pathlib import Path

from ssisim.app.moves import move_lines
from ssisim.cli import resolve_scenario
from ssisim.engine import MigrationSnapshot, PauseSnapshot, Simulation, load_scenario

CASES = Path(__file__).parents[1] / "cases"


def _row(win, key: str):
    win.docks["moves"].show()
    win.docks["moves"].raise_()
    win.moves.refresh(force=True)
    assert key in win.moves.rows, sorted(win.moves.rows)
    return win.moves.rows[key]


def test_lpm_and_storage_vmotion_show_their_passes_progress_and_downtime(make_window, run_to):
    win = make_window("migration-comparison")
    run_to(win, 40)
    lpm = _row(win, "LPM LPMCOMP@30")
    assert lpm.title.text() == "LPMCOMP  HOST1 \u2192 HOST2"
    assert lpm.badge.text() == "LPM"
    assert lpm.status.full.startswith("setting up")
    dbt = _row(win, "VMOTION DBT@30")
    assert dbt.badge.text() == "vMotion"
    assert dbt.status.full == "pass 1 (first)"
    assert "of 163,840 blocks" in dbt.bar.text
    early = dbt.bar.fraction
    assert 0 < early < 0.2
    # the partition migration's first pass starts after its setup, and grows
    run_to(win, 102)
    lpm = _row(win, "LPM LPMCOMP@30")
    assert lpm.status.full == "pass 1 (first)"
    first = lpm.bar.fraction
    assert 0 < first < 1 and "of 4,194,304 pages" in lpm.bar.text
    assert _row(win, "VMOTION DBT@30").bar.fraction > early
    run_to(win, 104)
    assert _row(win, "LPM LPMCOMP@30").bar.fraction > first
    # done: the downtime it cost, as the engine measured it
    run_to(win, 130)
    lpm = _row(win, "LPM LPMCOMP@30")
    m = next(m for m in win.model.snapshot.migrations if m.userid == "LPMCOMP")
    assert m.state == "done" and not lpm.line.active
    assert f"downtime {m.downtime_s:.2f} s" in lpm.detail.text()
    assert 1.0 < m.downtime_s < 5.0
    # those under way are listed first
    lines = win.moves.lines()
    assert [x.active for x in lines] == sorted((x.active for x in lines), reverse=True)


def test_a_suspend_shows_its_phases_and_the_image_written(make_window, run_to):
    win = make_window("scenarios/pause/pause-suspend.toml")
    run_to(win, 301)
    row = _row(win, "suspend WAS01@300")
    assert row.badge.text() == "suspend"
    assert row.title.text() == "WAS01  on Z10LPAR"
    assert row.status.full == "freezing the services (1 of 3)"
    run_to(win, 306)  # the image can hold half the guest's memory: the rest is swapped out first
    row = _row(win, "suspend WAS01@300")
    assert row.status.full == "swapping out what the image cannot hold (2 of 3)"
    run_to(win, 314)
    row = _row(win, "suspend WAS01@300")
    assert row.status.full == "writing the image to swap (3 of 3)"
    writing = row.bar.fraction
    assert 0 < writing < 1 and "image" in row.bar.text
    run_to(win, 318)
    assert _row(win, "suspend WAS01@300").bar.fraction > writing
    run_to(win, 335)
    row = _row(win, "suspend WAS01@300")
    assert row.status.full == "halted: the image is on the swap disk"
    assert not row.line.active and row.bar.fraction == 1.0


def test_a_cp_stop_shows_stopped_until_begin_then_the_wait_for_an_answer(make_window, run_to,
                                                                       wait_console):
    win = make_window("scenarios/pause/pause-stop.toml")
    run_to(win, 310)
    row = _row(win, "stop WAS01@300")
    assert row.badge.text() == "CP STOP"
    assert row.status.full == "stopped until BEGIN"
    assert row.line.stopped and "scheduled" in row.bar.text
    assert "WAS01" in win.moves.summary.text()  # stopped now
    win.issue_text("SEND CP WAS01 BEGIN")
    wait_console(win, "> SEND CP WAS01 BEGIN")
    run_to(win, 311)
    row = _row(win, "stop WAS01@300")
    assert row.status.full == "BEGIN: waiting for the first answer"
    assert 0 < row.bar.fraction < 1


def test_snapshots_carry_the_migrations_and_pauses():
    """The engine's typed records: what the panel draws, with no Qt involved."""
    sim = Simulation(load_scenario(resolve_scenario("migration-comparison")))
    sim.run_until(110)
    snap = sim.snapshot()
    kinds = {(m.kind, m.userid) for m in snap.migrations}
    assert ("LPM", "LPM") in kinds and ("VMOTION", "MIRROR") in kinds
    m = next(m for m in snap.migrations if m.userid == "DBT")
    assert isinstance(m, MigrationSnapshot) and m.unit == "blocks"
    assert m.units_left + m.passes[-1].units == m.pass_units
    lines = {x.key: x for x in move_lines(snap)}
    assert lines["VMOTION DBT@30"].progress == m.passes[-1].units / m.pass_units
    assert lines["LGR LGR@30"].kind == "LGR"
    sim = Simulation(load_scenario(resolve_scenario("scenarios/pause/pause-suspend.toml")))
    sim.run_until(320)
    p = next(p for p in sim.snapshot().pauses if p.userid == "WAS01")
    assert isinstance(p, PauseSnapshot) and p.action == "suspend" and p.active


def _detail(win, userid: str) -> str:
    win.model.select(userid)
    win.detail.refresh(force=True)
    return win.detail.header.text()


def test_a_guest_being_suspended_or_resumed_shows_its_phase_not_the_stand_in_work(make_window,
                                                                                  run_to,
                                                                                  wait_console):
    win = make_window("scenarios/pause/pause-suspend.toml")
    run_to(win, 316)  # WAS01 writes its image: the engine runs a sequential toucher for it
    g = win.model.guest("WAS01")
    assert g.state == "dispatch" and g.workload.startswith("SEQTOUCH")
    tile = win.cluster.tiles["WAS01"]
    assert win.model.state_of("WAS01") == "suspending" and tile.state == "suspending"
    assert tile.workload_word() == "writing image"
    assert "suspending" in tile.toolTip() and "SEQTOUCH" not in tile.toolTip()
    assert "writing the image to swap (3 of 3)" in tile.toolTip()
    header = _detail(win, "WAS01")
    assert "suspending" in header and "writing the image to swap (3 of 3)" in header
    assert "Linux suspend: writing the image to swap (3 of 3), " in header
    assert "M of 384M image" in header  # half of its 768M: the most an image can hold
    assert "Throughput" not in tile.toolTip()  # that of the stand-in work
    # and its throughput chart says it serves nothing, not what the stand-in writes
    assert g.throughput > 1000 and win.model.history.guest("WAS01", "throughput")[-1] == 0.0
    assert "SEQTOUCH" not in header and "running" not in header
    run_to(win, 335)  # halted: the scheduler's own state says it
    assert tile.state == "suspended" and "suspended" in _detail(win, "WAS01")
    win.issue_text("LINUX WAS01 RESUME")
    wait_console(win, "> LINUX WAS01 RESUME")
    run_to(win, 350)  # booted; the image is read back
    g = win.model.guest("WAS01")
    assert g.workload.startswith("SEQTOUCH")
    assert tile.state == "resuming" and tile.workload_word() == "reading image"
    header = _detail(win, "WAS01")
    assert "resuming" in header and "reading the image back (2 of 3)" in header
    assert "SEQTOUCH" not in header and "SEQTOUCH" not in tile.toolTip()
    # the legend names the new states, with what they mean
    assert {"suspending", "resuming"} <= set(win.cluster.legend.entries)


def test_a_cp_stop_shows_stopped_then_resuming_until_the_first_answer(make_window, run_to,
                                                                     wait_console):
    win = make_window("scenarios/pause/pause-stop.toml")
    run_to(win, 310)
    tile = win.cluster.tiles["WAS01"]
    assert tile.state == "stopped" and tile.workload_word() == "CP STOP"
    assert "stopped" in _detail(win, "WAS01")
    win.issue_text("SEND CP WAS01 BEGIN")
    wait_console(win, "> SEND CP WAS01 BEGIN")
    run_to(win, 311)
    assert win.model.state_of("WAS01") == "resuming" and tile.workload_word() == "after BEGIN"
    assert "BEGIN: waiting for the first answer" in _detail(win, "WAS01")


def test_a_partition_resumed_before_its_last_pages_shows_it_runs_on_the_destination(
        make_window, run_to):
    """LPM resumes a partition that never converged on the destination after the switch; its
    last changed pages follow. The row says where it runs and the downtime stays the switch."""
    win = make_window(str(CASES / "lpm-writer-on-slow-links.toml"))
    run_to(win, 105)  # (resumed on P2 at 103.3 s, its last pages there at 108.3 s)
    row = _row(win, "LPM WRITER@10")
    m = next(m for m in win.model.snapshot.migrations if m.userid == "WRITER")
    assert m.state == "post-copy" and row.line.active
    assert row.status.full.startswith("running on P2: pass 5 (final)"), row.status.full
    assert "downtime 2.00 s" in row.detail.text()
    assert 0 < row.bar.fraction < 1
    run_to(win, 130)
    row = _row(win, "LPM WRITER@10")
    assert not row.line.active and "downtime 2.00 s" in row.detail.text()

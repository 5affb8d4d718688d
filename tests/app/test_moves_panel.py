"""The other migrations and pausing, live: LPM, Storage vMotion, Linux suspend and CP STOP each
show their phase, a progress bar that grows and the downtime, as LGR does."""

from __future__ import annotations

from ssisim.app.moves import move_lines
from ssisim.engine import MigrationSnapshot, PauseSnapshot, Simulation, load_scenario

from ssisim.cli import resolve_scenario


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
    run_to(win, 305)
    row = _row(win, "suspend WAS01@300")
    assert row.badge.text() == "suspend"
    assert row.title.text() == "WAS01  on Z10LPAR"
    assert row.status.full == "freezing the services (1 of 2)"
    run_to(win, 318)
    row = _row(win, "suspend WAS01@300")
    assert row.status.full == "writing the image to swap (2 of 2)"
    writing = row.bar.fraction
    assert 0 < writing < 1 and "image" in row.bar.text
    run_to(win, 322)
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
    win.issue("SEND CP WAS01 BEGIN")
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

"""Sweeps: a scenario over varied fields and seeds; the table is the individual runs' figures."""

from __future__ import annotations

import csv
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from ssisim.cli import main
from ssisim.engine import (
    SweepError,
    check_measures,
    find_scenario,
    load_scenario,
    parse_vary,
    plan_sweep,
    run_sweep,
    sweep_table,
)

IDLE = find_scenario("reference/lgr-idle")


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_ranges_and_lists_of_values():
    assert parse_vary("guest.LNX100.storage=16G..64G/16G") == (
        "guest.LNX100.storage", ["16G", "32G", "48G", "64G"])
    assert parse_vary("run.step_s=0.5,1,2") == ("run.step_s", [0.5, 1, 2])
    assert parse_vary("link.SRC-DST.chpids=8,2+4+4+8")[1] == [8, "2+4+4+8"]
    assert parse_vary("run.duration_s=1..3/1")[1] == [1, 2, 3]
    # a low value with a decimal point is a range too (a paging device's service time)
    assert parse_vary("member.SRC.volume.0.service_ms=0.1..0.5/0.1")[1] == [
        0.1, 0.2, 0.3, 0.4, 0.5]
    assert parse_vary("guest.X.storage=1.5G..3G/0.5G")[1] == ["1.5G", "2G", "2.5G", "3G"]
    with pytest.raises(SweepError, match="the step is missing"):
        parse_vary("guest.X.storage=2G..8G")
    for bad in ("guest.X.storage", "run.step_s=", "run.step_s=4..1/1", "run.step_s=1..4/0",
                "run.step_s=1,,2"):
        with pytest.raises(SweepError):
            parse_vary(bad)


def test_the_table_is_what_each_run_gives_on_its_own(capsys, tmp_path: Path):
    sizes = ["20G", "40G"]
    rc, out, err = call(capsys, "sweep", str(IDLE), "--vary",
                        f"guest.LNX100.storage={','.join(sizes)}", "--measure", "relocation_s",
                        "--measure", "quiesce_s", "--csv", str(tmp_path / "t.csv"), "-q",
                        "--workers", "1")
    assert rc == 0, err
    with (tmp_path / "t.csv").open(encoding="utf-8") as f:
        rows = {r["guest.LNX100.storage"]: r for r in csv.DictReader(f)}
    text = IDLE.read_text(encoding="utf-8")
    for size in sizes:
        one = tmp_path / f"idle-{size}.toml"
        one.write_text(text.replace('storage = "100G"', f'storage = "{size}"'), encoding="utf-8")
        rc, js, err = call(capsys, "run", str(one), "--json", "-", "--no-store", "-q")
        assert rc == 0, err
        (rel,) = json.loads(js)["relocations"]
        assert float(rows[size]["relocation_s mean"]) == pytest.approx(rel["relocation_s"])
        assert float(rows[size]["quiesce_s mean"]) == pytest.approx(rel["quiesce_s"])
    # a larger idle guest takes longer to move
    assert float(rows["40G"]["relocation_s mean"]) > float(rows["20G"]["relocation_s mean"])


def test_processes_give_the_same_figures_as_one_process():
    text = IDLE.read_text(encoding="utf-8")
    points = plan_sweep(text, str(IDLE), [parse_vary("guest.LNX100.storage=8G,16G"),
                                          parse_vary("link.SRC-DST.chpids=8,4+8")], 2)
    assert len(points) == 8
    measures = check_measures(["relocation_s", "passes", "throughput.lnx100"], ["LNX100"])
    here = run_sweep(points, measures)
    with ProcessPoolExecutor(2) as ex:
        there = run_sweep(points, measures, executor=ex)
    assert here == there
    rows = sweep_table(points, here, measures)
    assert len(rows) == 4 and all(r["runs"] == 2 for r in rows)


@pytest.mark.parametrize("vary, words", [
    ("guest.NOBODY.storage=4G", "no guest NOBODY; guests: LNX100"),
    ("member.SRC.central=1P", "1P is more than 64T"),
    ("guest.LNX100.workload.rate_pages_s=1e12", "out of range"),
    ("guest.LNX100.workload.fraction=0.5", "seqtouch has no parameter"),
    ("frobnicate=1", "a path starts with"),
    ("link.SRC-DST.chpids=3", "FICON CHPIDs run at 2, 4 or 8 Gbit/s"),
])
def test_a_bad_path_or_value_is_refused_before_anything_runs(capsys, tmp_path: Path, vary, words):
    rc, out, err = call(capsys, "sweep", str(IDLE), "--vary", vary, "--csv",
                        str(tmp_path / "t.csv"))
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err
    assert not (tmp_path / "t.csv").exists() and out == ""


def test_an_unknown_measure_lists_the_valid_ones(capsys):
    rc, _out, err = call(capsys, "sweep", str(IDLE), "--vary", "guest.LNX100.storage=4G",
                         "--measure", "speed")
    assert rc == 1 and "no such measure; measures: relocation_s" in err
    rc, _out, err = call(capsys, "sweep", str(IDLE), "--vary", "guest.LNX100.storage=4G",
                         "--measure", "throughput.NOSUCH")
    assert rc == 1 and "--measure throughput.NOSUCH: no guest NOSUCH; guests: LNX100" in err


@pytest.mark.slow
def test_a_sweep_on_a_local_dask_cluster_equals_the_one_in_process(capsys, tmp_path: Path):
    pytest.importorskip("distributed")
    args = ["sweep", str(IDLE), "--vary", "guest.LNX100.storage=8G,16G", "--seeds", "2",
            "--measure", "relocation_s", "--measure", "pages_moved", "-q"]
    rc, _out, err = call(capsys, *args, "--workers", "1", "--csv", str(tmp_path / "here.csv"))
    assert rc == 0, err
    rc, _out, err = call(capsys, *args, "--cluster", "local:2", "--csv",
                         str(tmp_path / "dask.csv"))
    assert rc == 0, err
    here = (tmp_path / "here.csv").read_text(encoding="utf-8")
    assert here == (tmp_path / "dask.csv").read_text(encoding="utf-8")
    assert here.count("\n") == 3  # a header and two points


def test_a_cluster_address_that_is_neither_local_nor_tcp_is_refused(capsys):
    rc, _out, err = call(capsys, "sweep", str(IDLE), "--vary", "guest.LNX100.storage=8G",
                         "--cluster", "udp://nowhere")
    assert rc == 1 and "write local:N or tcp://HOST:PORT" in err


def test_a_chart_of_each_measure_is_drawn(capsys, tmp_path: Path):
    rc, out, err = call(capsys, "sweep", str(IDLE), "--vary", "guest.LNX100.storage=8G,16G,32G",
                        "--vary", "link.SRC-DST.chpids=8,2+4+4+8", "--measure", "relocation_s",
                        "--measure", "quiesce_s", "--chart", str(tmp_path / "charts"), "-q",
                        "--workers", "1")
    assert rc == 0, err
    for m in ("relocation_s", "quiesce_s"):
        png = tmp_path / "charts" / f"{m}.png"
        assert f"chart: {png}" in out
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_a_relocation_the_run_ended_before_has_no_time_in_the_table(capsys, tmp_path: Path):
    """A run that ends 10 s into a relocation: the run's summary gives the time so far and says
    the move had not ended (never 0 s), and a sweep shows no relocation time for it; one that
    ends during the quiesce gives the time the guest has been stopped so far."""
    short = tmp_path / "short.toml"
    short.write_text(IDLE.read_text(encoding="utf-8").replace("duration_s = 120",
                                                              "duration_s = 70"),
                     encoding="utf-8")
    rc, js, err = call(capsys, "run", str(short), "--json", "-", "--no-store", "-q")
    assert rc == 0, err
    (rel,) = json.loads(js)["relocations"]
    assert rel["ended"] is False and rel["result"] == "moving"
    assert rel["relocation_s"] == pytest.approx(70 - rel["start_s"], abs=1.0)
    rc, out, err = call(capsys, "run", str(short), "--no-store")
    assert rc == 0, err
    (line,) = [ln for ln in out.splitlines() if ln.startswith("LNX100 SRC->DST")]
    assert f">{rel['relocation_s']:.2f}" in line
    rc, out, err = call(capsys, "sweep", str(short), "--vary", "run.duration_s=70,120",
                        "--measure", "relocation_s", "--measure", "quiesce_s", "--measure",
                        "relocations_done", "--csv", str(tmp_path / "t.csv"), "-q", "--workers",
                        "1", "--no-store")
    assert rc == 0, err
    # the table says why the point has no time: not "nothing happened"
    assert "'-' at 1 point(s): a relocation was still under way when the run ended" in out
    assert "run.duration_s=70 (seed" in out and "run.duration_s=120" not in out.split("'-'")[1]
    with (tmp_path / "t.csv").open(encoding="utf-8") as f:
        rows = {r["run.duration_s"]: r for r in csv.DictReader(f)}
    assert rows["70"]["relocation_s mean"] in ("", "-")
    assert float(rows["70"]["relocations_done mean"]) == 0
    assert float(rows["120"]["relocation_s mean"]) == pytest.approx(22.5, abs=0.5)
    # ended 4 s into the quiesce (its last 8.7 s): the guest has been stopped 4 s so far
    rel_s, q_s = float(rows["120"]["relocation_s mean"]), float(rows["120"]["quiesce_s mean"])
    cut = rel["start_s"] + rel_s - q_s + 4
    during = tmp_path / "during.toml"
    during.write_text(short.read_text(encoding="utf-8").replace(
        "duration_s = 70", f"duration_s = {cut:.3f}"), encoding="utf-8")
    rc, js, err = call(capsys, "run", str(during), "--json", "-", "--no-store", "-q")
    assert rc == 0, err
    (rel,) = json.loads(js)["relocations"]
    assert rel["ended"] is False and rel["quiesce_s"] == pytest.approx(4.0, abs=1.0)


def test_held_counts_once_the_throttles_that_hold_the_pages_back_together(capsys,
                                                                        tmp_path: Path):
    """A destination short of frames holds the pages back for several reasons at once (frames,
    its paging queue, the source told to wait): ``throttle_s`` adds their seconds up, ``held_s``
    is the time the pages waited, never more than the relocation took."""
    rc, out, err = call(capsys, "sweep", "lgr-short-destination", "--measure", "relocation_s",
                        "--measure", "throttle_s", "--measure", "held_s", "--csv",
                        str(tmp_path / "t.csv"), "-q", "--workers", "1", "--no-store")
    assert rc == 0, err
    with (tmp_path / "t.csv").open(encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    rel, thr, held = (float(row[f"{k} mean"]) for k in ("relocation_s", "throttle_s", "held_s"))
    assert 0.3 * rel < held <= rel < thr
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    assert "held_s" in capsys.readouterr().out


def test_a_point_where_cp_refuses_the_relocation_says_so(capsys, tmp_path: Path):
    """A destination without the paging space the guest may need: CP refuses the relocation,
    and the table says that is why the point has no time."""
    rc, out, err = call(capsys, "sweep", str(IDLE), "--vary", "member.DST.volume.0.size=1G,256G",
                        "-q", "--workers", "1", "--no-store")
    assert rc == 0, err
    note = [ln for ln in out.splitlines() if ln.startswith("'-' at")]
    assert note == ["'-' at 1 point(s): CP refused a relocation (VMRELOCATE MOVE): "
                    f"member.DST.volume.0.size=1G (seed {load_scenario(IDLE).seed})"], out

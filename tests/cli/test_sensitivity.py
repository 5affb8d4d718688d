"""How far an answer depends on a figure nobody published: `ssisim run --sensitivity` and
`ssisim validate --sensitivity` move each model parameter in turn (docs/model.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssisim.cli import main
from ssisim.engine import SweepError, find_scenario, parse_vary, plan_sweep


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_sweep_can_vary_a_model_parameter() -> None:
    path = find_scenario("reference/lgr-idle")
    points = plan_sweep(path.read_text(), str(path),
                        [parse_vary("model.lgr.max_passes=9,24")], 1)
    assert ["[model.lgr]" in p.text and f"max_passes = {v}" in p.text
            for p, v in zip(points, (9, 24))] == [True, True]
    with pytest.raises(SweepError, match="no parameter 'max_pass'"):
        plan_sweep(path.read_text(), str(path), [parse_vary("model.lgr.max_pass=1,2")], 1)


def test_the_parameter_that_decides_a_result_comes_first(capsys, tmp_path: Path) -> None:
    rc, out, err = run_cli(capsys, "run", "reference/lgr-idle", "--sensitivity", "quiesce_s",
                           "-q", "--workers", "1", "--json", str(tmp_path / "s.json"))
    assert rc == 0, err
    rows = json.loads((tmp_path / "s.json").read_text())
    # an idle guest's quiesce is its two DAT scans: the scan's cost decides it, in proportion;
    # a fifth dearer, the two scans (10.4 s) pass the default MAXQUIESCE of 10 s, and CP
    # cancels the relocation without stopping the guest at all
    assert rows[0]["parameter"] == "lgr.dat_scan_s_per_gb"
    assert rows[0]["low change"] == pytest.approx(-0.2, abs=0.03)
    assert rows[0]["high change"] == -1.0
    moved = {r["parameter"] for r in rows if r.get("low change") or r.get("high change")}
    assert not any(p.startswith(("lpm.", "svmotion.", "pause.")) for p in moved)
    lines = out.splitlines()
    assert lines[2].startswith("lgr.dat_scan_s_per_gb")
    assert "Not moved by the other" in out and "lpm.setup_s" in out
    assert not (tmp_path / "runs.db").exists()  # nothing is stored


def test_validate_names_the_parameters_behind_each_published_figure(capsys) -> None:
    rc, out, err = run_cli(capsys, "validate", "--sensitivity", "--only", "svmotion",
                           "--workers", "1")
    assert rc == 0, err
    block = out.split("IO mirroring | downtime s")[1].split("\n\n")[0].splitlines()
    # IO mirroring's downtime is the switch alone: the switch time moves it one for one
    assert block[1].split() == ["svmotion.switch_s", "-20.0", "%", "+20.0", "%"]


def test_an_unknown_measure_is_one_line(capsys) -> None:
    rc, out, err = run_cli(capsys, "run", "reference/lgr-idle", "--sensitivity", "speed")
    assert rc == 1 and "Traceback" not in err
    assert err.startswith("ssisim: ") and "relocation_s" in err

"""``ssisim validate``: the model reaches the published figures through its mechanisms."""

from __future__ import annotations

import json

import pytest

from ssisim.cli import main


@pytest.mark.slow
def test_validate_holds_and_reports_published_against_simulated(capsys):
    rc = main(["validate", "--json", "-"])
    out = capsys.readouterr().out
    res = json.loads(out)
    bad = [r for r in res["rows"] if not r["ok"]]
    assert rc == 0 and res["ok"], f"rows that do not hold: {bad}"
    cases = {r["case"] for r in res["rows"]}
    assert any("idle 100 GB" in c for c in cases)
    assert any("random changer" in c for c in cases)
    assert any("10 GB central" in c for c in cases), "the pausing timings"
    assert any("2 TB guest" in c for c in cases), "the large-guest figures"
    sources = {r["source"] for r in res["rows"]}
    assert any("Methods to pause" in s for s in sources)
    assert any("Greater than One Terabyte" in s for s in sources)
    for r in res["rows"]:
        assert r["source"], "every figure names its published source"
        if r["error_pct"] is not None:
            tolerance = float(r["rule"].split()[1])  # "within 15 %" / "within 1 %"
            assert tolerance in (1.0, 15.0) and abs(r["error_pct"]) <= tolerance


def test_validate_table_for_people(capsys):
    rc = main(["validate", "--only", "lgr"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "PUBLISHED" in out and "SIMULATED" in out and "All hold." in out
    assert "Live Guest Relocation" in out


def test_validate_unknown_name_is_a_user_error(capsys):
    assert main(["validate", "--only", "nosuch"]) == 1
    assert "unknown validation" in capsys.readouterr().err

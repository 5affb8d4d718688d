"""``ssisim run --json`` carries Storage vMotion and LPM as migrations, shaped like relocations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssisim.cli import main


def test_comparison_run_lists_every_migration(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    rc = main(["run", "migration-comparison", "--db", str(tmp_path / "runs.db"), "--json", "-"])
    out = capsys.readouterr().out
    assert rc == 0
    s = json.loads(out)
    assert [r["result"] for r in s["relocations"]] == ["relocated"]
    migs = s["migrations"]
    assert {m["kind"] for m in migs} == {"vmotion", "lpm"}
    assert len(migs) == 7
    for m in migs:
        assert {"guest", "source", "destination", "options", "result", "message", "passes",
                "quiesce_s", "relocation_s", "throttle_s", "pass_list"} <= set(m)
        assert m[f"{m['unit']}_moved"] == sum(p[m["unit"]] for p in m["pass_list"])
        assert m["result"] in ("moved", "migrated")
    mirror = next(m for m in migs if m["options"] == "METHOD MIRROR")
    assert mirror["quiesce_s"] == min(m["quiesce_s"] for m in migs)


def test_text_summary_has_a_migration_table(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    rc = main(["run", "migration-comparison", "--db", str(tmp_path / "runs.db")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "MIGRATION" in out and "METHOD INCDBT HEAT" in out

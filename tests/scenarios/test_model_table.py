"""A scenario's [model] table: every model parameter in one place, overridable per scenario with
a clear error for what is not a parameter (docs/model.md, "Model parameters")."""

from __future__ import annotations

import pytest

from ssisim.engine import (
    MODEL_SECTIONS,
    Models,
    ScenarioError,
    Simulation,
    build_summary,
    find_scenario,
    loads_scenario,
    model_parameters,
)

IDLE = find_scenario("reference/lgr-idle").read_text(encoding="utf-8")


def relocation(text: str) -> dict:
    sc = loads_scenario(text, "idle.toml")
    sim = Simulation(sc)
    sim.run_until(sc.duration_s)
    (r,) = build_summary(sim)["relocations"]
    return r


def test_a_model_value_in_the_scenario_changes_the_run() -> None:
    as_is = relocation(IDLE)
    faster_scan = relocation(IDLE + "\n[model.lgr]\ndat_scan_s_per_gb = 0.02\n")
    assert as_is["result"] == faster_scan["result"] == "relocated"
    # the quiesce of an idle guest is mostly two DAT scans: half the scan cost, far shorter
    assert faster_scan["quiesce_s"] < as_is["quiesce_s"] * 0.65
    # twice the scan cost: the quiesce would pass the default MAXQUIESCE of 10 s
    slower_scan = relocation(IDLE + "\n[model.lgr]\ndat_scan_s_per_gb = 0.08\n")
    assert slower_scan["result"] == "MAXQUIESCE exceeded"


def test_the_table_leaves_other_parameters_alone() -> None:
    sc = loads_scenario(IDLE + "\n[model.lgr]\nmax_passes = 12\n")
    m = Models.from_table(sc.model)
    assert m.lgr.max_passes == 12 and isinstance(m.lgr.max_passes, int)
    assert m.lgr.dat_scan_s_per_gb == Models().lgr.dat_scan_s_per_gb
    assert m.pause == Models().pause


@pytest.mark.parametrize("table, field, needles", [
    ("[model.lgrr]\nsetup_s = 1", "model.lgrr", ["unknown model section", "lgr", "paging"]),
    ("[model.lgr]\nsetup = 1", "model.lgr.setup", ["no parameter 'setup'", "setup_s"]),
    ("[model.lgr]\nsetup_s = \"fast\"", "model.lgr.setup_s", ["must be a number"]),
    ("[model.lgr]\nsetup_s = -1", "model.lgr.setup_s", ["0 or more"]),
    ("[model.lgr]\nmax_passes = 2.5", "model.lgr.max_passes", ["whole number"]),
    ("[model.lgr]\nsetup_s = inf", "model.lgr.setup_s", ["finite"]),
])
def test_what_is_not_a_parameter_is_refused_with_its_line(table: str, field: str,
                                                           needles: list[str]) -> None:
    text = IDLE + "\n" + table + "\n"
    line = len(text.splitlines())
    with pytest.raises(ScenarioError) as e:
        loads_scenario(text, "idle.toml")
    msg = str(e.value)
    assert msg.startswith("idle.toml:"), msg
    assert field in msg, msg
    for n in needles:
        assert n in msg, msg
    assert int(msg.split(":")[1]) in range(line - 2, line + 1), msg


def test_every_section_lists_plain_numbers_only() -> None:
    for section in MODEL_SECTIONS:
        params = model_parameters(section)
        assert params, section
        for name, kind in params.items():
            assert kind in (int, float), (section, name)
            assert isinstance(Models().value(section, name), float)


def test_docs_list_every_parameter_with_its_value() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "model.md").read_text(encoding="utf-8")
    missing = [f"{s}.{n} = {Models().value(s, n):.6g}" for s in MODEL_SECTIONS
               for n in model_parameters(s)
               if f"| `{s}.{n}` | {Models().value(s, n):.6g} |" not in text]
    assert not missing, f"docs/model.md does not list: {missing}"

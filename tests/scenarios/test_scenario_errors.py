"""Scenario files with mistakes: each error names the file, the line, the field and what is valid.

Every snippet starts from ``MINIMAL`` (a valid scenario) and breaks one thing. Expected line
numbers are found by looking for the offending line in the snippet, so the tests say *which*
line a user would be pointed at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ssisim.engine import ScenarioError, load_scenario, loads_scenario

PATH = "scen/test.toml"

MINIMAL = """\
version = 1

[[member]]
name = "MEMB1"
central = "1G"

[[guest]]
userid = "LNX1"
member = "MEMB1"
storage = "512M"
"""

_MSG = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<field>[^:]+): (?P<msg>.+)$", re.DOTALL)


def line_of(text: str, fragment: str, nth: int = 1) -> int:
    """1-based number of the ``nth`` line of ``text`` that contains ``fragment``."""
    hits = [no for no, line in enumerate(text.splitlines(), 1) if fragment in line]
    assert len(hits) >= nth, f"{fragment!r} occurs {len(hits)} times in the snippet"
    return hits[nth - 1]


def error_of(text: str, path: str = PATH) -> tuple[int, str, str]:
    """Load ``text``, expect a ScenarioError; return (line, field, message) from its text."""
    with pytest.raises(ScenarioError) as info:
        loads_scenario(text, path)
    text_msg = str(info.value)
    m = _MSG.match(text_msg)
    assert m, f"message is not 'path:line: field: message': {text_msg!r}"
    assert m["path"] == path, text_msg
    return int(m["line"]), m["field"], m["msg"]


def test_minimal_scenario_loads_with_documented_defaults() -> None:
    sc = loads_scenario(MINIMAL, PATH)
    assert sc.step_s == 1.0
    assert sc.seed == 1
    assert [m.name for m in sc.members] == ["MEMB1"]
    assert sc.members[0].cpus == 4
    assert sc.members[0].storbuf_pct == 300.0
    assert [g.userid for g in sc.guests] == ["LNX1"]
    assert sc.guests[0].vcpus == 1
    assert sc.guests[0].workload.kind == "idle"
    assert sc.guests[0].member == "MEMB1"
    assert sc.timeline == [] and sc.links == []


def test_load_scenario_reads_a_file(tmp_path: Path) -> None:
    p = tmp_path / "ok.toml"
    p.write_text(MINIMAL)
    sc = load_scenario(p)
    assert [g.userid for g in sc.guests] == ["LNX1"]
    assert sc.path == str(p)


def test_wrong_version() -> None:
    text = MINIMAL.replace("version = 1", "version = 2")
    line, field, msg = error_of(text)
    assert line == line_of(text, "version = 2")
    assert field.endswith("version")
    assert "2" in msg and "not supported" in msg
    assert "1" in msg.split("not supported", 1)[1]  # names the version(s) it does read


def test_missing_version() -> None:
    text = MINIMAL.replace("version = 1\n", "")
    with pytest.raises(ScenarioError, match=r"^scen/test\.toml: scenario\.version: is required"):
        loads_scenario(text, PATH)


def test_missing_required_guest_storage() -> None:
    text = MINIMAL.replace('storage = "512M"\n', "")
    line, field, msg = error_of(text)
    assert line == line_of(text, "[[guest]]")
    assert "guest[0]" in field and "LNX1" in field and field.endswith(".storage")
    assert "required" in msg


def test_bad_size() -> None:
    text = MINIMAL.replace('storage = "512M"', 'storage = "4X"')
    line, field, msg = error_of(text)
    assert line == line_of(text, '"4X"')
    assert field.endswith(".storage")
    assert "4X" in msg
    assert "512M" in msg or "4G" in msg  # shows how a size is written


def test_unknown_field_typo() -> None:
    text = MINIMAL + "vcpu = 2\n"
    line, field, msg = error_of(text)
    assert line == line_of(text, "vcpu = 2")
    assert field.endswith(".vcpu") and "guest[0]" in field
    assert "unknown field" in msg
    assert "vcpus" in msg and "storage" in msg  # lists the valid fields


def test_unknown_member_field_typo() -> None:
    text = MINIMAL.replace('central = "1G"', 'central = "1G"\nstorbuf = 200')
    line, field, msg = error_of(text)
    assert line == line_of(text, "storbuf = 200")
    assert "member[0]" in field and field.endswith(".storbuf")
    assert "unknown field" in msg and "storbuf_pct" in msg


def test_typo_of_required_field_names_the_typo() -> None:
    text = MINIMAL.replace('storage = "512M"', 'storge = "512M"')
    line, field, msg = error_of(text)
    assert line == line_of(text, "storge")
    assert "storge" in field + msg


def test_guest_on_unknown_member() -> None:
    text = MINIMAL.replace('member = "MEMB1"', 'member = "MEMB9"')
    line, field, msg = error_of(text)
    assert line == line_of(text, 'member = "MEMB9"')
    assert field.endswith(".member") and "guest[0]" in field
    assert "MEMB9" in msg and "not a member" in msg
    assert "MEMB1" in msg  # lists the members there are


def test_duplicate_userid() -> None:
    text = MINIMAL + '\n[[guest]]\nuserid = "lnx1"\nmember = "MEMB1"\nstorage = "1G"\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, 'userid = "lnx1"')
    assert "guest[1]" in field and field.endswith("userid")
    assert "LNX1" in msg and "twice" in msg


def test_userid_longer_than_8_characters() -> None:
    text = MINIMAL.replace('userid = "LNX1"', 'userid = "LINUXGUEST1"')
    line, field, msg = error_of(text)
    assert line == line_of(text, "LINUXGUEST1")
    assert field == "guest[0].userid"
    assert "1 to 8" in msg


def test_unknown_workload_type() -> None:
    text = MINIMAL + 'workload = { type = "bogus" }\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, "bogus")
    assert field.endswith(".workload.type")
    assert "bogus" in msg
    for valid in ("idle", "seqtouch", "database"):
        assert valid in msg


def test_unknown_workload_parameter() -> None:
    text = MINIMAL + "\n[guest.workload]\ntype = \"idle\"\nfoo = 3\n"
    line, field, msg = error_of(text)
    assert line == line_of(text, "foo = 3")
    assert field.endswith(".workload.foo")
    assert "foo" in msg
    assert "wss_mb" in msg and "refs_per_s" in msg  # the idle workload's parameters


def test_unknown_workload_parameter_next_to_a_valid_one() -> None:
    text = MINIMAL + "\n[guest.workload]\ntype = \"idle\"\nwss_mb = 64\nrefs = 5\n"
    line, field, msg = error_of(text)
    assert "refs" in msg
    assert field.endswith(".workload.refs")
    assert line == line_of(text, "refs = 5")


def test_out_of_range_workload_parameter() -> None:
    text = (MINIMAL + "\n[guest.workload]\ntype = \"randchange\"\nrate_pages_s = 500\n"
            "fraction = 1.5\n")
    line, field, msg = error_of(text)
    assert line == line_of(text, "fraction = 1.5")
    assert field.endswith(".workload.fraction")
    assert "1.5" in msg and "out of range" in msg
    assert "0 to 1" in msg


def test_out_of_range_workload_parameter_inline() -> None:
    text = MINIMAL + 'workload = { type = "seqtouch", instances = 0 }\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, "instances = 0")
    assert field.endswith(".workload.instances")
    assert "out of range 1 to 4096" in msg


_TWO_MEMBERS = MINIMAL + '\n[[member]]\nname = "MEMB2"\ncentral = "1G"\n'


def test_link_chpid_speed_3() -> None:
    text = _TWO_MEMBERS + '\n[[link]]\nmembers = ["MEMB1", "MEMB2"]\nchpids = [{gbps = 3}]\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, "gbps = 3")
    assert field == "link[0].chpids[0].gbps"
    assert "2, 4 or 8" in msg


def test_a_link_of_more_than_16_ctcs() -> None:
    """An ISFC logical link takes up to sixteen CTC devices, over all its CHPIDs."""
    text = _TWO_MEMBERS + ('\n[[link]]\nmembers = ["MEMB1", "MEMB2"]\n'
                           'chpids = [{gbps = 8, ctcs = 16}, {gbps = 8, ctcs = 4}]\n')
    line, field, msg = error_of(text)
    assert line == line_of(text, "chpids = ")
    assert field == "link[0].chpids"
    assert "at most 16 CTC devices" in msg and "have 20" in msg


@pytest.mark.parametrize("kind", ["appserver", "database", "webserver"])
def test_a_request_that_costs_no_cpu(kind: str) -> None:
    """A request always costs CPU. One of none gave the workload no CPU for its first touches:
    it served nothing, silently (and with disk I/O per request the run ended in an internal
    error)."""
    text = MINIMAL + (f'workload = {{ type = "{kind}", cpu_ms_per_request = 0, '
                      'ios_per_unit = 10 }\n')
    line, field, msg = error_of(text)
    assert line == line_of(text, "cpu_ms_per_request")
    assert field == "guest[0] (LNX1).workload.cpu_ms_per_request"
    assert "out of range 0.001 to" in msg


def test_link_naming_unknown_member() -> None:
    text = _TWO_MEMBERS + '\n[[link]]\nmembers = ["MEMB1", "MEMB7"]\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, '"MEMB7"')
    assert field == "link[0].members"
    assert "MEMB7" in msg and "MEMB1, MEMB2" in msg


def test_timeline_unknown_command_verb() -> None:
    text = MINIMAL + '\n[[timeline]]\nat_s = 10\ncommand = "FROB LNX1"\n'
    line, field, msg = error_of(text)
    assert line == line_of(text, "FROB")
    assert field == "timeline[0].command"
    assert "FROB" in msg and "unknown command" in msg


def test_timeline_unknown_command_lists_valid_commands() -> None:
    text = MINIMAL + '\n[[timeline]]\nat_s = 10\ncommand = "FROB LNX1"\n'
    _line, _field, msg = error_of(text)
    assert "WORKLOAD" in msg and "QUERY" in msg


_FIVE = "version = 1\n" + "".join(
    f'\n[[member]]\nname = "MEMB{i}"\ncentral = "1G"\n' for i in range(1, 6))


def test_more_than_4_members_is_refused() -> None:
    with pytest.raises(ScenarioError) as info:
        loads_scenario(_FIVE, PATH)
    msg = str(info.value)
    assert msg.startswith(PATH)
    assert "member" in msg
    assert "1 to 4" in msg and "5" in msg


def test_more_than_4_members_names_a_line() -> None:
    line, field, msg = error_of(_FIVE)
    assert line in (line_of(_FIVE, "[[member]]", 1), line_of(_FIVE, "[[member]]", 5))
    assert "member" in field
    assert "1 to 4" in msg


def test_toml_syntax_error_line() -> None:
    text = MINIMAL.replace('member = "MEMB1"', 'member = "MEMB1')
    with pytest.raises(ScenarioError) as info:
        loads_scenario(text, PATH)
    msg = str(info.value)
    m = re.match(r"^scen/test\.toml:(\d+): (.*)$", msg)
    assert m, msg
    assert int(m[1]) == line_of(text, 'member = "MEMB1')
    assert "not valid TOML" in m[2]


def test_toml_syntax_error_in_file(tmp_path: Path) -> None:
    p = tmp_path / "broken.toml"
    text = MINIMAL + "\n[[guest]\nuserid = \"X\"\n"
    p.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:{line_of(text, '[[guest]', 2)}: ")
    assert "not valid TOML" in msg


def test_error_in_file_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    text = MINIMAL.replace('storage = "512M"', 'storage = "4X"')
    p.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(p)
    assert str(info.value).startswith(f"{p}:{line_of(text, '4X')}: guest[0] (LNX1).storage: ")


def test_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.toml"
    with pytest.raises(ScenarioError) as info:
        load_scenario(p)
    msg = str(info.value)
    assert msg.startswith(str(p))
    assert "cannot read" in msg

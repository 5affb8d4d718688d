"""``ssisim import``: a shop's user directory, SYSTEM CONFIG and saved CP responses become a
scenario the engine runs, with every value traced to its file and line.

The samples in ``import_samples/`` are a three-member cluster: saved responses for VMPRD1 and
VMPRD2, none for VMPRD3 (so its values are assumed and said to be).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ssisim.cli import main
from ssisim.engine import PAGES_PER_GB, PAGES_PER_MB, GuestConfig, ScenarioConfig, load_scenario

SAMPLES = Path(__file__).parent / "import_samples"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def assert_user_error(rc: int, err: str, *needles: str) -> str:
    """Exit code 1, one ``ssisim: ...`` line on stderr, no traceback."""
    assert rc == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ssisim: ")
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"
    return lines[0]


def full_args(out: Path, folder: Path = SAMPLES) -> list[str]:
    return ["import", "--directory", str(folder / "USER.DIRECT"),
            "--system-config", str(folder / "SYSTEM.CONFIG"),
            "--query-dir", str(folder / "queries"),
            "--workloads", str(folder / "workloads.toml"), "-o", str(out)]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScenarioConfig, str, str]:
    """The samples imported once: the scenario read back, its text, and what was printed."""
    out = tmp_path_factory.mktemp("imp") / "shop.toml"
    import io
    from contextlib import redirect_stderr, redirect_stdout

    so, se = io.StringIO(), io.StringIO()
    with redirect_stdout(so), redirect_stderr(se):
        rc = main(full_args(out))
    assert rc == 0, se.getvalue()
    return load_scenario(out), out.read_text(), so.getvalue()


def guest(sc: ScenarioConfig, userid: str) -> GuestConfig:
    found = [g for g in sc.guests if g.userid == userid]
    assert found, f"{userid} not imported; guests: {[g.userid for g in sc.guests]}"
    return found[0]


# --- what a planner checks first: members, storage, CPUs, paging ------------------------------

def test_members_come_from_the_ssi_statement_in_slot_order(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    assert [m.name for m in sc.members] == ["VMPRD1", "VMPRD2", "VMPRD3"]


def test_member_storage_cpus_and_xstor_come_from_the_saved_responses(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    m1, m2, _ = sc.members
    assert (m1.central_pages, m1.cpus, m1.xstor_pages) == (64 * PAGES_PER_GB, 8, 4 * PAGES_PER_GB)
    assert (m2.central_pages, m2.cpus, m2.xstor_pages) == (48 * PAGES_PER_GB, 6, 0)


def test_paging_volumes_and_their_slots_come_from_query_alloc_page(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    m1 = sc.members[0]
    # TOTAL PAGES "1761K" is 1761 x 1024 slots; the small volume's total is written out
    assert [(v.volid, v.slots, v.rdev) for v in m1.volumes] == [
        ("M01P01", 1761 * 1024, "9A01"), ("M01P02", 1761 * 1024, "9A02"),
        ("M01P03", 600660, "9A03")]
    # VMPRD2's volumes are only in its response, not in SYSTEM CONFIG: the response decides
    assert [v.volid for v in sc.members[1].volumes] == ["M02P01", "M02P02"]


def test_a_member_without_responses_gets_stated_assumptions(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, text, printed = imported
    m3 = sc.members[2]
    assert m3.cpus == 4 and m3.xstor_pages == 0
    # its CP-owned volumes with paging names, as full 3390-9 packs; the RES and spool are not
    assert [(v.volid, v.slots) for v in m3.volumes] == [("M03P01", 10016 * 180),
                                                       ("M03P02", 10016 * 180)]
    # central storage: the logged-on guests placed there (LNXTST1, 2G), no overcommit
    assert m3.central_pages == 2 * PAGES_PER_GB
    assert "4 CPUs for VMPRD3: no INDICATE LOAD" in printed
    assert "no QUERY STORAGE" in printed and "M03P01 on VMPRD3 is a paging volume" in printed
    assert "M03RES not taken as a paging volume" in printed


def test_links_follow_activate_islink_and_missing_pairs_are_assumed(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, printed = imported
    links = {frozenset(link.members): [(c.gbps, c.ctcs) for c in link.chpids]
             for link in sc.links}
    assert links[frozenset(("VMPRD1", "VMPRD2"))] == [(8, 2)]  # 1E00 1E01
    assert links[frozenset(("VMPRD1", "VMPRD3"))] == [(8, 4)]  # 1E10-1E13
    assert links[frozenset(("VMPRD2", "VMPRD3"))] == [(8, 4)]  # no statement: assumed
    assert "no ACTIVATE ISLINK for the pair" in printed


# --- guests: sizes, CPUs, share, reserved, placement ---------------------------------------------

def test_guests_are_the_directory_entries_that_can_log_on(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, printed = imported
    ids = {g.userid for g in sc.guests}
    assert ids == {"TCPIP", "OPERATOR", "MAINT", "LNXDB1", "LNXDB2", "LNXWAS1", "LNXWAS2",
                   "LNXWEB1", "LNXWEB2", "LNXTST1", "LNXBIG1"}
    assert "$ALLOC$" not in ids  # NOLOG
    assert "NOLOG entry (cannot log on): 1" in printed


def test_storage_from_the_user_statement_and_overridden_by_storage(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    assert guest(sc, "LNXDB1").storage_pages == 8 * PAGES_PER_GB
    assert guest(sc, "LNXDB2").storage_pages == 8 * PAGES_PER_GB  # lower case "8g"
    assert guest(sc, "LNXWAS1").storage_pages == 6 * PAGES_PER_GB  # STORAGE 6G over 4G
    assert guest(sc, "TCPIP").storage_pages == 128 * PAGES_PER_MB


def test_query_virtual_storage_gives_current_standby_and_reserved(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    big = guest(imported[0], "LNXBIG1")
    assert (big.storage_pages, big.standby_pages, big.reserved_storage_pages) == (
        32 * PAGES_PER_GB, 16 * PAGES_PER_GB, 8 * PAGES_PER_GB)


def test_virtual_cpus_count_profile_and_own_cpu_statements(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    assert guest(sc, "LNXDB1").vcpus == 4   # 00 01 from the profile, 02 03 its own
    assert guest(sc, "LNXDB2").vcpus == 3   # a tab before "cpu 02"
    assert guest(sc, "LNXWAS1").vcpus == 4  # COMMAND DEFINE CPUS 02-03
    assert guest(sc, "LNXWEB2").vcpus == 2  # the profile's two
    assert guest(sc, "MAINT").vcpus == 1    # no CPU statement


def test_share_and_set_reserved(imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, _ = imported
    assert guest(sc, "LNXDB1").share == 400
    assert guest(sc, "LNXWEB1").share == 50   # SHARE REL 50
    assert guest(sc, "LNXWEB2").share == 100  # the profile's
    assert guest(sc, "LNXDB1").set_reserved_pages == 2 * PAGES_PER_GB  # "2G"
    assert guest(sc, "LNXDB2").set_reserved_pages == 524288  # a page count
    # SHARE ABSOLUTE has no scenario field: it is set at t = 0 by the timeline
    assert [t.command for t in sc.timeline] == ["SET SHARE TCPIP ABSOLUTE 3%"]


def test_placement_follows_query_names_then_the_stated_rule(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, printed = imported
    where = {g.userid: g.member for g in sc.guests}
    assert where["LNXDB1"] == where["LNXWAS1"] == where["MAINT"] == "VMPRD1"
    assert where["LNXDB2"] == where["LNXBIG1"] == "VMPRD2"
    # nowhere in the saved QUERY NAMES: on the member that has none, and said so
    assert where["LNXTST1"] == "VMPRD3" and guest(sc, "LNXTST1").logged_on
    assert "LNXTST1 placed on VMPRD3" in printed
    # an IDENTITY logged on on two members is imported once, and the planner is told
    assert where["TCPIP"] == "VMPRD1"
    assert "TCPIP (IDENTITY) is logged on on VMPRD1, VMPRD2" in printed


def test_workloads_follow_the_map_and_default_to_idle(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, printed = imported
    db = guest(sc, "LNXDB1").workload
    assert db.kind == "database" and db.params["wss_mb"] == 4096
    assert guest(sc, "LNXWEB1").workload.kind == "webserver"
    assert guest(sc, "LNXTST1").workload.kind == "seqtouch"
    assert guest(sc, "MAINT").workload.kind == "idle"
    assert "pattern LNXOLD* matches no imported guest" in printed


# --- where each value came from; what was skipped ------------------------------------------------

def test_each_value_names_its_file_and_line(imported: tuple[ScenarioConfig, str, str]) -> None:
    _, text, _ = imported
    lines = (SAMPLES / "USER.DIRECT").read_text().splitlines()
    n = next(i for i, x in enumerate(lines, 1) if x.startswith("USER LNXDB1"))
    storage = next(x for x in text.splitlines() if x.startswith('storage = "8G"')
                   and f"USER.DIRECT:{n} " in x)
    assert "USER LNXDB1" in storage
    assert "queries/VMPRD1.QUERY-STORAGE.txt:1" in text


def test_passwords_never_reach_the_scenario_or_the_terminal(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    _, text, printed = imported
    for secret in ("DBSECRET1", "dbsecret2", "TCPSECRT", "MAINTPW", "WASPW1", "BIGPW1"):
        assert secret not in text and secret not in printed


def test_a_malformed_statement_is_reported_with_file_and_line_and_the_rest_imported(
        imported: tuple[ScenarioConfig, str, str]) -> None:
    sc, _, printed = imported
    lines = (SAMPLES / "USER.DIRECT").read_text().splitlines()
    n = next(i for i, x in enumerate(lines, 1) if "STORAGE 12X" in x)
    assert f"USER.DIRECT:{n}: STORAGE 12X: not a size (use e.g. 512M, 4G)" in printed
    # the guest keeps the storage of its USER statement; the entries after it are imported
    assert guest(sc, "LNXTST1").storage_pages == 2 * PAGES_PER_GB
    assert guest(sc, "LNXBIG1").storage_pages > 0


def test_statements_not_modelled_are_counted(imported: tuple[ScenarioConfig, str, str]) -> None:
    _, _, printed = imported
    text = (SAMPLES / "USER.DIRECT").read_text()
    mdisks = sum(1 for x in text.splitlines() if x.strip().upper().startswith("MDISK"))
    assert f"MDISK: {mdisks} " in printed
    assert "*DVHOPT: 1 " in printed


def test_continued_statement_is_one_statement(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "D").write_text("USER LNXA PW 1G 2G G\n  CPU 00\n  CPU 01,\n     BASE\n"
                                "  SHARE RELATIVE,\n        300\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    g = guest(load_scenario(tmp_path / "s.toml"), "LNXA")
    assert (g.vcpus, g.share) == (2, 300)


def test_a_continuation_ends_at_a_comment_a_blank_card_or_another_entry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A stray comma at a statement's end must not swallow what follows: the next entry (and
    its password, into the scenario's comments) or a CPU statement."""
    (tmp_path / "D").write_text("USER X PW 2G 4G G\n  LINK MAINT 0190 0190 RR ,\n* comment\n"
                                "  CPU 00\n  CPU 01\nUSER Y PW 1G 2G G ,\n\n"
                                "USER Z SECRETZ 1G 2G G\nUSER W PW 1G 2G G ,\n"
                                "USER V SECRETV 1G 2G G\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    sc = load_scenario(tmp_path / "s.toml")
    assert [g.userid for g in sc.guests] == ["X", "Y", "Z", "W", "V"]
    assert guest(sc, "X").vcpus == 2
    assert "D:2: the statement ends with a comma (continued) but line 3 is a comment" in out
    assert "D:6:" in out and "line 7 is blank" in out
    assert "D:9:" in out and "line 10 is another entry (USER)" in out
    text = (tmp_path / "s.toml").read_text(encoding="utf-8")
    assert "SECRET" not in text and "SECRET" not in out + err


def test_defined_cpus_come_beside_the_cpu_a_guest_logs_on_with(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A virtual machine without CPU statements logs on with CPU 00: COMMAND DEFINE CPU adds
    to it. Sequence fields of letters and digits in columns 73-80 are not part of a statement."""
    seq = " " * 50
    (tmp_path / "D").write_text(
        "USER C1 PW 2G 4G G\n  COMMAND DEFINE CPU 01\n"
        "USER C2 PW 2G 4G G\n  COMMAND DEFINE CPUS 01-3F\n"
        "USER C3 PW 2G 4G G\n  CPU 00\n  CPU 01\n  COMMAND DEFINE CPUS 01-03\n"
        f"USER C4 PW 2G 4G G\n  STORAGE 6G{seq}{' ' * 10}LNXA0040\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    sc = load_scenario(tmp_path / "s.toml")
    assert [guest(sc, u).vcpus for u in ("C1", "C2", "C3")] == [2, 64, 4]
    assert guest(sc, "C4").storage_pages == 6 * PAGES_PER_GB
    assert "LNXA0040" not in (tmp_path / "s.toml").read_text(encoding="utf-8")


def test_storage_over_maxstorage_and_volumes_of_a_member_outside_the_cluster_are_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "D").write_text("USER BIG PW 6G 4G G\nUSER OK PW 2G 4G G\n")
    (tmp_path / "C").write_text("SSI T PDR_VOLUME COM001, SLOT 1 A1, SLOT 2 A2\n"
                                "A1: CP_OWNED SLOT 5 A1P001\nBEGIN A3\n"
                                "  CP_OWNED SLOT 5 A3P001\nEND A3\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "--system-config", str(tmp_path / "C"), "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    assert "D:1: BIG: storage 6G is more than its MAXSTORAGE 4G (line 1)" in out
    assert "OK: storage" not in out
    assert "C:4: CP_OWNED SLOT 5 A3P001 belongs to A3, not a member of the cluster (A1, A2)" in out
    written = (tmp_path / "s.toml").read_text(encoding="utf-8")
    assert "A3P001" not in written.split("[[member]]", 1)[1]


def test_an_islink_of_more_than_16_ctcs_is_reported_and_takes_16(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An ISFC logical link takes up to sixteen CTC devices: a statement naming more is
    reported, and the scenario written loads (with 16)."""
    (tmp_path / "D").write_text("USER A PW 2G 4G G\n")
    (tmp_path / "C").write_text("SSI T PDR_VOLUME COM001, SLOT 1 A1, SLOT 2 A2\n"
                                "A1: ACTIVATE ISLINK 1E00-1E13 NODE A2\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "--system-config", str(tmp_path / "C"), "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    assert "C:2: ISLINK from A1 to A2 names 20 CTC devices" in out and "16 used" in out
    sc = load_scenario(tmp_path / "s.toml")
    assert sum(c.ctcs for c in sc.links[0].chpids) == 16


# --- the command as a planner runs it ------------------------------------------------------------

def test_cli_writes_a_scenario_that_check_and_run_accept(tmp_path: Path) -> None:
    out = tmp_path / "shop.toml"
    proc = subprocess.run([sys.executable, "-m", "ssisim.cli", *full_args(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    chk = subprocess.run([sys.executable, "-m", "ssisim.cli", "check", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert chk.returncode == 0 and "OK (3 members, 11 guests" in chk.stdout, chk.stderr
    run = subprocess.run([sys.executable, "-m", "ssisim.cli", "run", str(out), "--until", "30",
                          "--no-store", "--quiet", "--json", "-"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    # the ABSOLUTE share command ran and CP took it
    assert [c["rc"] for c in summary["commands"]] == [0]


def test_output_dash_writes_the_scenario_to_stdout_and_the_report_to_stderr(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, "import", "--directory", str(SAMPLES / "USER.DIRECT"),
                           "-o", "-")
    assert rc == 0, err
    assert out.startswith("# A scenario imported by")
    assert "guests" in err and "Assumed:" in err


def test_without_system_config_members_come_from_build_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, "import", "--directory", str(SAMPLES / "USER.DIRECT"),
                           "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    sc = load_scenario(tmp_path / "s.toml")
    assert [m.name for m in sc.members] == ["VMPRD1", "VMPRD2", "VMPRD3"]
    # no QUERY NAMES at all: USERs round robin, IDENTITYs on their first BUILD ON member
    assert guest(sc, "TCPIP").member == "VMPRD1"
    assert {g.member for g in sc.guests if g.userid.startswith("LNX")} == {
        "VMPRD1", "VMPRD2", "VMPRD3"}
    assert "round robin" in out


def test_guests_missing_from_every_query_names_are_defined_but_logged_off(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(SAMPLES, tmp_path / "s")
    (tmp_path / "s" / "queries" / "VMPRD3.QUERY-NAMES.txt").write_text(
        "OPERATOR - SYSC , TCPIP    - DSC\n")
    rc, out, err = run_cli(capsys, *full_args(tmp_path / "o.toml", tmp_path / "s"))
    assert rc == 0, err
    tst = guest(load_scenario(tmp_path / "o.toml"), "LNXTST1")
    assert not tst.logged_on


def test_bad_workload_entries_are_reported_and_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "map.toml").write_text('[workloads]\n"LNXDB*" = "web"\n'
                                       '"LNXWEB*" = { type = "webserver", write_frac = 2 }\n'
                                       '"LNXWAS*" = "appserver"\n')
    rc, out, err = run_cli(capsys, "import", "--directory", str(SAMPLES / "USER.DIRECT"),
                           "--workloads", str(tmp_path / "map.toml"),
                           "-o", str(tmp_path / "s.toml"))
    assert rc == 0, err
    assert "map.toml:2: LNXDB*: unknown workload type 'web'" in out
    assert "map.toml:3: LNXWEB*: webserver parameter write_frac=2 is out of range" in out
    sc = load_scenario(tmp_path / "s.toml")
    assert guest(sc, "LNXDB1").workload.kind == "idle"
    assert guest(sc, "LNXWAS1").workload.kind == "appserver"


def test_query_files_outside_the_naming_scheme_are_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(SAMPLES, tmp_path / "s")
    (tmp_path / "s" / "queries" / "notes from the operator.txt").write_text("hello\n")
    rc, out, err = run_cli(capsys, *full_args(tmp_path / "o.toml", tmp_path / "s"))
    assert rc == 0, err
    assert "query file not named NAME.COMMAND.txt: 1" in out


# --- inputs that leave nothing to import ---------------------------------------------------------

def test_unreadable_directory_is_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "nope"),
                           "-o", str(tmp_path / "s.toml"))
    assert_user_error(rc, err, "nope: cannot read the file")
    assert not (tmp_path / "s.toml").exists()


def test_a_directory_without_usable_entries_is_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "D").write_text("* nothing here\nUSER $ALLOC$ NOLOG\n  MDISK 0A00 3390 0 1 X R\n"
                                "USER LNXA PW 12X\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(tmp_path / "D"),
                           "-o", str(tmp_path / "s.toml"))
    assert_user_error(rc, err, "nothing to import")
    assert not (tmp_path / "s.toml").exists()


def test_a_map_that_is_not_toml_is_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "map.toml").write_text("[workloads\n")
    rc, out, err = run_cli(capsys, "import", "--directory", str(SAMPLES / "USER.DIRECT"),
                           "--workloads", str(tmp_path / "map.toml"),
                           "-o", str(tmp_path / "s.toml"))
    assert_user_error(rc, err, "map.toml: not valid TOML")


def test_query_dir_that_is_not_a_folder_is_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, "import", "--directory", str(SAMPLES / "USER.DIRECT"),
                           "--query-dir", str(tmp_path / "none"), "-o", str(tmp_path / "s.toml"))
    assert_user_error(rc, err, "not a folder")

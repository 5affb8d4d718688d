"""``ssisim report``: a stored run as an HTML page with its charts and data, in one folder.

A planner sends the folder to colleagues, so every chart the page names must be there, every
link must stay inside the folder, and the CSV files must hold what the run store holds.
Every call passes ``--db`` inside ``tmp_path``: the user's real run database is never touched.
"""

from __future__ import annotations

import csv
import json
import struct
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ssisim import __version__
from ssisim.cli import main
from ssisim.engine import RunStore
from ssisim.engine.store.store import GUEST_COLUMNS, MEMBER_COLUMNS

NO_RELOCATION = """\
version = 1
name = "Tom & Jerry <b>one</b> member"

[run]
duration_s = 40
sample_s = 5

[[member]]
name = "MEMB1"
central = "1G"
  [[member.volume]]
  volid = "M1P001"
  size = "2G"

[[guest]]
userid = "LNX1"
member = "MEMB1"
storage = "512M"
workload = { type = "seqtouch", buffer_mb = 256, rate_pages_s = 20000 }
"""


class Page(HTMLParser):
    """What a reader of the report sees: figures with their images and captions, links, text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.figures: list[dict[str, str]] = []
        self.links: list[str] = []
        self.tags: set[str] = set()
        self.chunks: list[str] = []
        self._caption: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.add(tag)
        if tag == "figure":
            self.figures.append({"src": "", "alt": "", "caption": ""})
        elif tag == "img":
            self.figures[-1].update(src=a.get("src", ""), alt=a.get("alt", ""))
        elif tag == "figcaption":
            self._caption = []
        elif tag == "a":
            self.links.append(a.get("href", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "figcaption" and self._caption is not None:
            self.figures[-1]["caption"] = "".join(self._caption)
            self._caption = None

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)
        if self._caption is not None:
            self._caption.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.chunks).split())


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG file (and a check that it is one)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    return struct.unpack(">II", head[16:24])


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The short-destination relocation, run once and stored: (database, run id)."""
    db = tmp_path_factory.mktemp("store") / "runs.sqlite"
    assert main(["run", "lgr-short-destination", "--db", str(db), "--quiet"]) == 0
    with RunStore(db) as store:
        return db, store.runs()[0]["id"]


@pytest.fixture(scope="module")
def report(stored: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of that run, written by ``ssisim report``: its folder."""
    db, run_id = stored
    out = tmp_path_factory.mktemp("report") / "lgr"
    assert main(["report", str(run_id), "--out", str(out), "--db", str(db)]) == 0
    return out


def test_report_names_its_charts_and_each_exists(report: Path) -> None:
    page = Page((report / "report.html").read_text(encoding="utf-8"))
    srcs = [f["src"] for f in page.figures]
    # a chart per relocation (passes, throttles), per member (storage, paging), per guest
    assert sorted(srcs) == sorted([
        "relocation-1-passes.png", "relocation-1-throttles.png",
        "member-MEMB1-storage.png", "member-MEMB1-paging.png",
        "member-MEMB2-storage.png", "member-MEMB2-paging.png",
        "guest-LNXBUSY-pages.png", "guest-LNXHOG-pages.png"])
    for f in page.figures:
        png = report / f["src"]
        assert png.is_file(), f["src"]
        assert png.stat().st_size > 10_000, f"{f['src']} looks empty"
        w, h = png_size(png)
        assert w >= 600 and h >= 250, (f["src"], w, h)
        assert f["alt"], f"{f['src']} has no alt text"
        # the caption says what the chart is and of what
        who = f["src"].split("-")[1] if not f["src"].startswith("relocation") else "LNXBUSY"
        assert f["caption"].startswith("Figure ") and who in f["caption"], f
    assert "Figure 1." in page.text and f"Figure {len(srcs)}." in page.text


def test_report_is_self_contained(report: Path) -> None:
    text = (report / "report.html").read_text(encoding="utf-8")
    page = Page(text)
    assert "script" not in page.tags and "link" not in page.tags  # CSS inline, no scripts
    assert "http://" not in text and "https://" not in text and "//" not in "".join(page.links)
    for ref in [f["src"] for f in page.figures] + page.links:
        if ref.startswith("#"):
            continue
        assert not Path(ref).is_absolute() and ".." not in ref, ref
        assert (report / ref).is_file(), f"{ref} is linked but not in the folder"


def test_report_says_which_run_it_is(report: Path, stored: tuple[Path, int]) -> None:
    db, run_id = stored
    with RunStore(db) as store:
        rec = store.run(run_id)
    assert rec is not None
    page = Page((report / "report.html").read_text(encoding="utf-8"))
    t = page.text
    assert "LGR to a short destination" in t
    assert "Seed 7" in t
    assert f"ssisim {__version__}" in t
    assert rec["started_at"] in t and rec["finished_at"] in t
    assert "240 s (0:04:00)" in t
    # the relocation and its passes, as the summary has them
    rel = rec["summary"]["relocations"][0]
    assert "R1: LNXBUSY from MEMB1 to MEMB2" in t
    assert f"{rel['pages_moved']:,}" in t
    for p in rel["pass_list"]:
        assert f"{p['pages']:,}" in t
    assert "destination:frames" in t  # the throttle that held it back


def test_csv_files_hold_what_the_store_holds(report: Path, stored: tuple[Path, int]) -> None:
    db, run_id = stored
    with RunStore(db) as store:
        expected = {
            "members.csv": (MEMBER_COLUMNS, store.member_series(run_id)),
            "guests.csv": (GUEST_COLUMNS, store.guest_series(run_id)),
            "events.csv": (("seq", "t_s", "kind", "member", "userid", "message", "data"),
                           [{**e, "data": e["data_json"]} for e in store.events(run_id)]),
        }
        summary = store.run(run_id)["summary"]
    page = Page((report / "report.html").read_text(encoding="utf-8"))
    for name, (cols, rows) in expected.items():
        assert name in page.links
        with open(report / name, newline="") as f:
            got = list(csv.reader(f))
        assert tuple(got[0]) == cols, name
        assert len(got) - 1 == len(rows) > 0, name
        assert got[1:] == [["" if r[c] is None else str(r[c]) for c in cols] for r in rows], name
    with open(report / "passes.csv", newline="") as f:
        passes = list(csv.DictReader(f))
    rel = summary["relocations"][0]
    assert len(passes) == rel["passes"]
    assert sum(int(p["moved"]) for p in passes) == rel["pages_moved"]
    assert [p["kind"] for p in passes] == [p["kind"] for p in rel["pass_list"]]
    assert json.loads((report / "summary.json").read_text()) == summary


def test_report_of_a_run_without_relocations(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    scenario = tmp_path / "one-member.toml"
    scenario.write_text(NO_RELOCATION)
    db = tmp_path / "runs.sqlite"
    assert run_cli(capsys, "run", str(scenario), "--db", str(db), "--quiet")[0] == 0
    out = tmp_path / "report"
    rc, stdout, err = run_cli(capsys, "report", "1", "--out", str(out), "--db", str(db))
    assert rc == 0, err
    assert str(out / "report.html") in stdout
    text = (out / "report.html").read_text(encoding="utf-8")
    page = Page(text)
    assert sorted(f["src"] for f in page.figures) == [
        "guest-LNX1-pages.png", "member-MEMB1-paging.png", "member-MEMB1-storage.png"]
    assert all((out / f["src"]).stat().st_size > 5_000 for f in page.figures)
    assert "No guest was relocated in this run." in page.text
    assert not list(out.glob("relocation-*"))
    with open(out / "passes.csv", newline="") as f:
        assert list(csv.reader(f)) == [["move", "method", "guest", "source", "destination",
                                        "pass", "kind", "unit", "moved", "start_s", "seconds",
                                        "throttle_s"]]
    # the scenario's name is shown as text, never as markup
    assert "Tom & Jerry <b>one</b> member" in page.text
    assert "<b>one</b>" not in text and "Tom &amp; Jerry &lt;b&gt;one&lt;/b&gt;" in text


def test_unknown_run_id_names_the_stored_runs(capsys: pytest.CaptureFixture[str],
                                              stored: tuple[Path, int], tmp_path: Path) -> None:
    db, run_id = stored
    out = tmp_path / "never"
    rc, _out, err = run_cli(capsys, "report", "999", "--out", str(out), "--db", str(db))
    assert rc == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        (f"ssisim: run 999 is not in {db} (stored runs: {run_id}; `ssisim runs --db {db}` "
         "lists them)")]
    assert not out.exists()


def test_missing_database_is_a_user_error_and_is_not_created(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "nothing.sqlite"
    rc, _out, err = run_cli(capsys, "report", "1", "--out", str(tmp_path / "r"), "--db", str(db))
    assert rc == 1
    assert "does not exist" in err and str(db) in err
    assert not db.exists()


def test_out_must_be_a_folder(capsys: pytest.CaptureFixture[str], stored: tuple[Path, int],
                              tmp_path: Path) -> None:
    db, run_id = stored
    target = tmp_path / "report.html"
    target.write_text("mine")
    rc, _out, err = run_cli(capsys, "report", str(run_id), "--out", str(target), "--db", str(db))
    assert rc == 1
    assert err.strip() == (f"ssisim: {target}: a file of that name exists; a report needs "
                           "a folder")
    assert target.read_text() == "mine"


def test_report_overwrites_its_own_files_and_keeps_the_rest(
        capsys: pytest.CaptureFixture[str], stored: tuple[Path, int], tmp_path: Path) -> None:
    db, run_id = stored
    out = tmp_path / "shared"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    (out / "report.html").write_text("old report")
    (out / "members.csv").write_text("old,data\n")
    rc, _out, err = run_cli(capsys, "report", str(run_id), "--out", str(out), "--db", str(db))
    assert rc == 0, err
    assert (out / "notes.txt").read_text() == "keep me"
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / "members.csv").read_text().startswith("t_s,member,")
    assert not list(out.glob("*.tmp"))


def test_report_needs_an_out_folder(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _out, err = run_cli(capsys, "report", "1")
    assert rc == 1
    assert "--out" in err and "ssisim report --help" in err


def test_report_of_a_lesson_shows_its_objectives(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    assert run_cli(capsys, "run", "lessons/01-first-relocation", "--db", str(db), "--quiet",
                   "--until", "60")[0] == 0
    with RunStore(db) as store:
        summary: dict[str, Any] = store.run(1)["summary"]
    if "objectives" not in summary:
        pytest.skip("this run's summary carries no objectives")
    out = tmp_path / "lesson"
    assert run_cli(capsys, "report", "1", "--out", str(out), "--db", str(db))[0] == 0
    t = Page((out / "report.html").read_text(encoding="utf-8")).text
    assert "Objectives" in t
    for o in summary["objectives"]["objectives"]:
        assert o["text"] in t

"""The bundle's Python helpers: the JSON comparison of `make bundle-check` and the numba cache
folder of the frozen program."""

from __future__ import annotations

from pathlib import Path

import pytest
from installer_paths import load

checks = load("bundle_checks")
launch = load("launch")


def test_equal_documents_have_no_differences() -> None:
    doc = {"seed": 42, "guests": [{"userid": "LNX01", "pages": {"central": 5}}]}
    assert checks.differences(doc, {**doc}) == []


def test_differences_are_named_by_their_path() -> None:
    a = {"seed": 42, "guests": [{"userid": "LNX01", "paged_in": 0}], "t_s": 60.0}
    b = {"seed": 42, "guests": [{"userid": "LNX01", "paged_in": 7}], "t_s": 60.0, "extra": 1}
    assert checks.differences(a, b) == ["$.extra: only in the second",
                                        "$.guests[0].paged_in: 0 != 7"]


def test_true_is_not_one() -> None:
    assert checks.differences({"ok": True}, {"ok": 1}) == ["$.ok: true != 1"]


def test_ignored_keys_are_left_out_at_any_depth() -> None:
    a = {"runs": [{"wall_s": 1.5, "pages": 10}]}
    b = {"runs": [{"wall_s": 2.5, "pages": 10}]}
    assert checks.differences(a, b, frozenset({"wall_s"})) == []
    assert checks.differences(a, b) == ["$.runs[0].wall_s: 1.5 != 2.5"]


def test_lists_of_other_lengths_differ() -> None:
    assert checks.differences([1, 2], [1]) == ["$: 2 items != 1 items"]


def test_compare_json_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.json").write_text('{"t_s": 60.0, "started": "08:00"}')
    (tmp_path / "b.json").write_text('{"t_s": 60.0, "started": "09:00"}')
    a, b = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    assert checks.main(["compare-json", a, b]) == 1
    assert "$.started" in capsys.readouterr().out
    assert checks.main(["compare-json", a, b, "--ignore", "started"]) == 0


def test_a_flat_picture_is_not_a_screenshot(tmp_path: Path) -> None:
    from PIL import Image

    flat = tmp_path / "flat.png"
    Image.new("RGB", (1600, 1000), (240, 240, 240)).save(flat)
    problems, _ = checks.png_problems(flat, 1600, 1000)
    assert problems and "colours" in problems[0]
    problems, _ = checks.png_problems(tmp_path / "none.png", 1600, 1000)
    assert problems == [f"{tmp_path / 'none.png'}: no such file"]


def test_numba_cache_follows_the_engine_sources(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    kernels = tmp_path / "bundle" / "ssisim" / "engine" / "kernels"
    kernels.mkdir(parents=True)
    (kernels / "pages.py").write_text("def k():\n    return 1\n")
    first = launch.numba_cache_dir(tmp_path / "bundle")
    assert first.startswith(str(tmp_path / "cache" / "ssisim" / "numba"))
    assert launch.numba_cache_dir(tmp_path / "bundle") == first
    (kernels / "pages.py").write_text("def k():\n    return 2\n")
    assert launch.numba_cache_dir(tmp_path / "bundle") != first


def test_gui_without_opengl_is_one_clear_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fonts = tmp_path / "fonts.conf"
    fonts.write_text("<fontconfig/>")
    error = launch.check_window(["gui", "demo"], libraries=("libc.so.6", "libssisim-none.so.9"),
                                fonts_conf=str(fonts))
    assert error is not None and "\n" not in error
    assert "lacks libssisim-none.so.9;" in error
    assert "sudo apt-get install -y libgl1 libegl1" in error
    assert capsys.readouterr().err == ""


def test_headless_commands_need_no_opengl(tmp_path: Path) -> None:
    for argv in (["run", "demo"], ["validate"], ["gui", "--help"], []):
        assert launch.check_window(argv, libraries=("libssisim-none.so.9",),
                                   fonts_conf=str(tmp_path / "none")) is None


def test_gui_without_fonts_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FONTCONFIG_FILE", raising=False)
    monkeypatch.delenv("FONTCONFIG_PATH", raising=False)
    assert launch.check_window(["gui"], libraries=("libc.so.6",),
                               fonts_conf=str(tmp_path / "none")) is None
    err = capsys.readouterr().err
    assert "warning: no fontconfig configuration" in err and "boxes" in err


def test_pictures_that_differ_beyond_a_few_pixels_fail(tmp_path: Path) -> None:
    from PIL import Image, ImageDraw

    base = Image.new("RGB", (400, 250), (240, 240, 240))
    ImageDraw.Draw(base).rectangle((10, 10, 200, 100), fill=(40, 160, 80))
    base.save(tmp_path / "a.png")
    clock = base.copy()
    ImageDraw.Draw(clock).rectangle((0, 245, 9, 249), fill=(0, 0, 0))  # 50 px: 0.05 %
    clock.save(tmp_path / "clock.png")
    boxes = base.copy()
    ImageDraw.Draw(boxes).rectangle((250, 150, 290, 180), outline=(0, 0, 0))  # 160 px: 0.16 %
    ImageDraw.Draw(boxes).rectangle((300, 20, 399, 60), fill=(0, 0, 0))  # 4100 px
    boxes.save(tmp_path / "boxes.png")
    a, c, b = (str(tmp_path / f) for f in ("a.png", "clock.png", "boxes.png"))
    assert checks.main(["compare-png", a, a]) == 0
    assert checks.main(["compare-png", a, c]) == 0
    assert checks.main(["compare-png", a, b]) == 1
    assert checks.changed_fraction(Path(a), Path(c)) == 50 / (400 * 250)
    Image.new("RGB", (100, 100)).save(tmp_path / "small.png")
    assert checks.changed_fraction(Path(a), tmp_path / "small.png") == 1.0

"""The menu entry and its icons: valid for desktops, and in the shape install.sh relies on."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest
from installer_paths import ASSETS, INSTALLER, load

DESKTOP = INSTALLER / "ssisim.desktop"


def entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP)
    return parser["Desktop Entry"]


def test_desktop_file_validate() -> None:
    if not shutil.which("desktop-file-validate"):
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    r = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr


def test_entry_opens_the_window_with_the_themed_icon() -> None:
    e = entry()
    assert e["Type"] == "Application"
    assert e["Name"] == "ssisim"
    assert e["Icon"] == "ssisim"
    # install.sh puts the launcher's full path in place of these two
    assert e["Exec"].startswith("ssisim gui")
    assert e["TryExec"] == "ssisim"
    assert e["Terminal"] == "false"


def test_icons_are_square_with_transparent_corners() -> None:
    from PIL import Image

    for size in (48, 128, 256):
        with Image.open(ASSETS / f"ssisim-{size}.png") as im:
            assert im.size == (size, size)
            assert im.mode == "RGBA"
            alpha = im.getchannel("A")
            assert alpha.getpixel((0, 0)) == 0, "the corners show the panel behind the icon"
            assert alpha.getpixel((size // 2, size // 2)) == 255


def test_pngs_are_renderings_of_the_svg(qapp: object, tmp_path: Path) -> None:
    """Whoever changes the SVG renders the PNGs again (installer/render_icons.py)."""
    pytest.importorskip("PySide6.QtSvg")
    from PIL import Image, ImageChops, ImageStat

    render_icons = load("render_icons")
    for size in render_icons.SIZES:
        fresh = tmp_path / f"{size}.png"
        assert render_icons.render(ASSETS / "ssisim.svg", size).save(str(fresh))
        with Image.open(fresh) as a, Image.open(ASSETS / f"ssisim-{size}.png") as b:
            diff = ImageChops.difference(a.convert("RGBA"), b.convert("RGBA"))
            mean = max(ImageStat.Stat(diff).mean)
        assert mean < 1.0, (f"assets/ssisim-{size}.png is not the SVG's rendering "
                            f"(mean difference {mean:.2f})")

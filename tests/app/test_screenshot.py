"""`ssisim gui SCENARIO --run-until S --screenshot PATH` writes a real picture of the window."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QColor, QImage


def test_screenshot_writes_a_png_of_the_window(tmp_path, qtbot):
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    code = ("import sys; from ssisim.cli import main; sys.exit(main(sys.argv[1:]))")
    res = subprocess.run(
        [sys.executable, "-c", code, "gui", "lgr-short-destination", "--run-until", "60",
         "--screenshot", str(out), "--size", "1200x800"],
        check=False, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1200, 800)
    colours = {img.pixel(x, y) for x in range(0, 1200, 7) for y in range(0, 800, 7)}
    assert len(colours) > 100  # a drawn window, not a blank or single-colour image


def _highlighted_in_status_bar(img: QImage) -> int:
    """Pixels of the bottom strip (the status bar) in the highlight blue of watch mode's box."""
    n = 0
    for x in range(img.width()):
        for y in range(img.height() - 24, img.height()):
            c = QColor(img.pixel(x, y))
            n += c.blue() > 150 and c.blue() - c.red() > 60
    return n


def test_a_screenshot_of_the_clock_running_shows_watch_mode(tmp_path):
    """``--screenshot-after``: from --run-until the clock runs at --speed, watch mode on, and
    the picture is taken that many wall seconds later (``make screenshots``'s watch mode)."""
    out = tmp_path / "watch.png"
    still = tmp_path / "still.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    code = ("import sys; from ssisim.cli import main; sys.exit(main(sys.argv[1:]))")
    common = ["gui", "lgr-short-destination", "--run-until", "35", "--theme", "light",
              "--size", "1200x800"]
    for extra, path in ((["--speed", "10x", "--screenshot-after", "2"], out), ([], still)):
        res = subprocess.run([sys.executable, "-c", code, *common, *extra, "--screenshot",
                              str(path)], check=False, env=env, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, res.stderr
    # "Watching the relocation of LNXBUSY at 1x ..." in its highlighted box, only when running
    assert _highlighted_in_status_bar(QImage(str(out))) > 1000
    assert _highlighted_in_status_bar(QImage(str(still))) == 0


def test_screenshot_after_is_checked(capsys):
    from ssisim.cli import main

    assert main(["gui", "demo", "--screenshot-after", "2"]) == 1
    assert "--screenshot-after needs --screenshot PATH" in capsys.readouterr().err
    assert main(["gui", "demo", "--run-until", "5", "--screenshot", "x.png",
                 "--screenshot-after", "0"]) == 1
    assert "more than 0 to 300" in capsys.readouterr().err

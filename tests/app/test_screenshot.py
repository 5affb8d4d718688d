"""`ssisim gui SCENARIO --run-until S --screenshot PATH` writes a real picture of the window."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage


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

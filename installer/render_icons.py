"""Render assets/ssisim.svg to the PNG sizes the desktop menu uses (48, 128 and 256 px).

Run with the developer venv after changing the SVG:
``QT_QPA_PLATFORM=offscreen .venv/bin/python installer/render_icons.py``
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QImage

SIZES = (48, 128, 256)
ASSETS = Path(__file__).resolve().parent.parent / "assets"


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn on a transparent ``size`` x ``size`` image (Qt is imported here only)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG file")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    """Write ``assets/ssisim-<size>.png`` for every size."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    svg = ASSETS / "ssisim.svg"
    for size in SIZES:
        out = ASSETS / f"ssisim-{size}.png"
        if not render(svg, size).save(str(out)):
            raise SystemExit(f"{out}: cannot write the PNG")
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Colours of states, tiers and throttles, and the light and dark palettes of the window.

The state and throttle colours are mid-tone fills chosen to read on light and dark backgrounds
alike; text drawn on them picks black or white by contrast.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from ssisim.engine import THROTTLE_STYLE

#: Guest states shown on tiles, in legend order: the scheduler's states, a relocation's, and
#: those of a guest being paused or let go (suspending, suspended, resuming, stopped).
STATE_ORDER = ("dispatch", "eligible", "dormant", "relocating", "quiesced", "stopped",
               "suspending", "suspended", "resuming", "logged off")
STATE_LABELS = {"dispatch": "running", "eligible": "eligible", "dormant": "dormant",
                "relocating": "relocating", "quiesced": "quiesced", "stopped": "stopped",
                "suspending": "suspending", "suspended": "suspended", "resuming": "resuming",
                "logged off": "logged off", "incoming": "incoming"}
STATE_COLOURS = {
    "dispatch": "#3fa45b",
    "eligible": "#e0a526",
    "dormant": "#6f8fb0",
    "relocating": "#2f7fe0",
    "quiesced": "#d9453b",
    "stopped": "#9b59b6",
    "suspending": "#7d8a99",
    "suspended": "#4c5a6a",
    "resuming": "#3a9e98",
    "logged off": "#a3a3a3",
    "incoming": "#2f7fe0",
}

#: Storage tiers: central, XSTOR, DASD (paging slots).
TIER_COLOURS = {"central": "#3fa45b", "xstor": "#e0a526", "dasd": "#d9453b", "cpu": "#2f7fe0"}

#: Paging rates in the member plots.
RATE_COLOURS = {"page_in_s": "#2f7fe0", "to_xstor_s": "#e0a526", "to_dasd_s": "#d9453b"}

#: One colour per throttle reason (``side:reason``), from the engine's table that the HTML
#: report's charts use too: the same reason has the same colour on screen and on paper.
THROTTLE_COLOURS = {key: colour for key, (_name, colour) in THROTTLE_STYLE.items()}

#: Pass kinds in the pass chart: live passes blue, quiesced passes red.
PASS_COLOURS = {"first": "#2f7fe0", "intermediate": "#5dade2", "penultimate": "#d9453b",
                "final": "#a93226"}

THEMES = ("system", "light", "dark")


def contrast_text(fill: QColor | str) -> QColor:
    """Black or white, whichever reads better on ``fill``."""
    c = QColor(fill)
    lum = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF()
    return QColor("#000000") if lum > 0.45 else QColor("#ffffff")


def is_dark(palette: QPalette) -> bool:
    """True when the palette draws light text on a dark window."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    """A dark palette for the Fusion style."""
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1f2024", QPalette.ColorRole.AlternateBase: "#2b2d31",
        QPalette.ColorRole.ToolTipBase: "#3a3d42", QPalette.ColorRole.ToolTipText: "#f0f0f0",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#35383d",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Link: "#6aa9ff", QPalette.ColorRole.Highlight: "#3d7fd9",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.PlaceholderText:
            "#8a8d93", QPalette.ColorRole.Mid: "#4a4d52", QPalette.ColorRole.Dark: "#1a1b1e",
        QPalette.ColorRole.Light: "#45484d", QPalette.ColorRole.Midlight: "#3c3f44",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7c7f85"))
    return p


def apply_theme(name: str) -> None:
    """Use the ``system``, ``light`` or ``dark`` palette for the whole application."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    if name == "system":
        app.setPalette(app.style().standardPalette())
        return
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)
    app.setPalette(dark_palette() if name == "dark" else app.style().standardPalette())

"""The user's preferences and how they are kept between sessions (QSettings-like storage).

``Preferences`` is plain data; ``load`` and ``save`` take any object with QSettings' ``value``
and ``setValue`` (so tests can use an in-memory store).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .pacing import SPEEDS
from .theme import THEMES


class SettingsStore(Protocol):
    """What ``load`` and ``save`` need of a settings store (QSettings has it)."""

    def value(self, key: str, default: Any = None) -> Any:
        """The value stored under ``key``, or ``default``."""
        ...

    def setValue(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``."""
        ...


@dataclass
class Preferences:
    """What the user chose, kept between sessions."""

    theme: str = "system"  # system, light, dark
    ask_relocation_options: bool = False  # open the options dialog on every drop (not only Shift)
    speed: str = "10x"  # a key of pacing.SPEEDS
    pause_at_end: bool = True  # pause when the scenario's duration is reached
    watch_moves: bool = True  # slow the clock while a guest moves (pacing.Watcher)
    console_history: list[str] = field(default_factory=list)
    last_dir: str = ""
    confirm_hints: bool = True  # ask before a lesson's hint, which costs points
    student: str = ""  # the name session files are saved under (asked once)
    cluster_view: str = "auto"  # auto, compact or detailed (View > Cluster view)


def _as_bool(v: Any) -> bool:
    if isinstance(v, str):
        return v.lower() in ("1", "true", "yes")
    return bool(v)


def load(store: SettingsStore) -> Preferences:
    """Read the preferences, falling back to the defaults for anything missing or odd."""
    p = Preferences()
    theme = str(store.value("prefs/theme", p.theme))
    p.theme = theme if theme in THEMES else p.theme
    p.ask_relocation_options = _as_bool(store.value("prefs/ask_relocation_options", False))
    speed = str(store.value("prefs/speed", p.speed))
    p.speed = speed if speed in SPEEDS else p.speed
    p.pause_at_end = _as_bool(store.value("prefs/pause_at_end", True))
    p.watch_moves = _as_bool(store.value("prefs/watch_moves", True))
    hist = store.value("console/history", [])
    if isinstance(hist, str):
        hist = [hist]
    p.console_history = [str(h) for h in (hist or [])][-200:]
    p.last_dir = str(store.value("prefs/last_dir", "") or "")
    p.confirm_hints = _as_bool(store.value("training/confirm_hints", True))
    p.student = str(store.value("training/student", "") or "")
    view = str(store.value("view/cluster", p.cluster_view))
    p.cluster_view = view if view in ("auto", "compact", "detailed") else p.cluster_view
    return p


def save(store: SettingsStore, p: Preferences) -> None:
    """Write the preferences."""
    store.setValue("prefs/theme", p.theme)
    store.setValue("prefs/ask_relocation_options", p.ask_relocation_options)
    store.setValue("prefs/speed", p.speed)
    store.setValue("prefs/pause_at_end", p.pause_at_end)
    store.setValue("prefs/watch_moves", p.watch_moves)
    store.setValue("console/history", list(p.console_history[-200:]))
    store.setValue("prefs/last_dir", p.last_dir)
    store.setValue("training/confirm_hints", p.confirm_hints)
    store.setValue("training/student", p.student)
    store.setValue("view/cluster", p.cluster_view)


__all__ = ["Preferences", "SettingsStore", "load", "save"]

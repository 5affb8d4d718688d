"""The preferences dialog: theme, options on drop, pause at the scenario's end, watch mode,
lessons."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from .pacing import WATCH_FACTORS, WATCH_WALL_S, speed_label
from .preferences import Preferences
from .theme import THEMES


class PreferencesDialog(QDialog):
    """Edits a copy of the preferences; ``result_preferences()`` after it is accepted."""

    def __init__(self, prefs: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self._prefs = prefs
        self.theme = QComboBox()
        self.theme.addItems(list(THEMES))
        self.theme.setCurrentText(prefs.theme)
        self.ask = QCheckBox("Ask for relocation options on every drop")
        self.ask.setChecked(prefs.ask_relocation_options)
        self.ask.setToolTip("Otherwise hold Shift while dropping to be asked.")
        self.pause = QCheckBox("Pause when the scenario's duration is reached")
        self.pause.setChecked(prefs.pause_at_end)
        self.watch = QCheckBox("Slow down to watch relocations and migrations")
        self.watch.setChecked(prefs.watch_moves)
        self.watch.setToolTip(
            "Watch mode: while a relocation, partition migration or Storage vMotion is under "
            f"way, the clock slows (to {speed_label(WATCH_FACTORS[0])} at least) so that it "
            f"lasts about {WATCH_WALL_S:.0f} seconds and its passes can be followed; the "
            "speed you chose returns when it ends. A speed picked meanwhile holds.")
        self.confirm_hints = QCheckBox("Ask before showing a lesson's hint")
        self.confirm_hints.setChecked(prefs.confirm_hints)
        self.confirm_hints.setToolTip("A hint costs points of the lesson's score; ask first, "
                                      "with its cost.")
        self.student = QLineEdit(prefs.student)
        self.student.setPlaceholderText("asked the first time a session is saved")
        self.student.setToolTip("The name saved session files carry, for the trainer who "
                                "grades them.")
        form = QFormLayout()
        form.addRow("Theme", self.theme)
        form.addRow("", self.ask)
        form.addRow("", self.pause)
        form.addRow("", self.watch)
        form.addRow("", self.confirm_hints)
        form.addRow("Student name", self.student)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)

    def result_preferences(self) -> Preferences:
        """The preferences as edited."""
        return replace(self._prefs, theme=self.theme.currentText(),
                       ask_relocation_options=self.ask.isChecked(),
                       pause_at_end=self.pause.isChecked(),
                       watch_moves=self.watch.isChecked(),
                       confirm_hints=self.confirm_hints.isChecked(),
                       student=self.student.text().strip())

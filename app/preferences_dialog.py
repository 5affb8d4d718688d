"""The preferences dialog: theme, options on drop, pause at the scenario's end."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QVBoxLayout,
    QWidget,
)

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
        form = QFormLayout()
        form.addRow("Theme", self.theme)
        form.addRow("", self.ask)
        form.addRow("", self.pause)
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
                       pause_at_end=self.pause.isChecked())

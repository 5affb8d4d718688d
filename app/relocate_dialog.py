"""The relocation options dialog: TEST or MOVE, SYNC or ASYNC, IMMEDIATE, limits, FORCE STORAGE."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import CPError, VmrelocateMove, VmrelocateTest, parse_command

from .commands import RelocateOptions, relocate_command
from .glossary import TERMS

#: Seconds a MAXQUIESCE or MAXTOTAL limit may be (CP takes 1 to 99,999,999; a day is plenty).
LIMIT_RANGE_S = (1.0, 86400.0)


class _Limit(QWidget):
    """CP's default, a number of seconds, or NOLIMIT."""

    def __init__(self, default_text: str) -> None:
        super().__init__()
        self.mode = QComboBox()
        self.mode.addItems([default_text, "seconds", "NOLIMIT"])
        self.seconds = QDoubleSpinBox()
        self.seconds.setRange(*LIMIT_RANGE_S)
        self.seconds.setDecimals(1)
        self.seconds.setValue(10.0)
        self.seconds.setSuffix(" s")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.mode)
        lay.addWidget(self.seconds)
        self.mode.currentIndexChanged.connect(self._sync)
        self._sync()

    def _sync(self) -> None:
        self.seconds.setEnabled(self.mode.currentIndex() == 1)

    def value(self) -> float | str | None:
        """None (default), seconds, or ``"NOLIMIT"``."""
        i = self.mode.currentIndex()
        return None if i == 0 else (self.seconds.value() if i == 1 else "NOLIMIT")


class RelocateDialog(QDialog):
    """Builds a ``VMRELOCATE`` command; the preview shows exactly what will be issued (its
    canonical text), and Issue is off while CP would refuse it (MAXTOTAL under MAXQUIESCE).

    Parameters
    ----------
    userid : str
        The guest to relocate.
    members : list of str
        Possible destinations.
    destination : str
        The member it was dropped on.
    ask_always : bool
        The preference "ask for options on every drop" (a checkbox here changes it).
    """

    def __init__(self, userid: str, members: list[str], destination: str, ask_always: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Relocate {userid}")
        self.userid = userid
        self.dest = QComboBox()
        self.dest.addItems(members)
        if destination in members:
            self.dest.setCurrentText(destination)
        self.move_button = QRadioButton("MOVE: relocate the guest")
        self.test_button = QRadioButton("TEST: only check whether it could move")
        self.move_button.setChecked(True)
        kind = QButtonGroup(self)
        kind.addButton(self.move_button)
        kind.addButton(self.test_button)
        self.sync_button = QRadioButton("SYNC (the console waits until it ends)")
        self.async_button = QRadioButton("ASYNC (returns at once; relocations may overlap)")
        self.sync_button.setChecked(True)
        mode = QButtonGroup(self)
        mode.addButton(self.sync_button)
        mode.addButton(self.async_button)
        self.immediate = QCheckBox("IMMEDIATE: three passes only (implies MAXQUIESCE NOLIMIT)")
        self.maxquiesce = _Limit("default (10 s)")
        self.maxquiesce.setToolTip(TERMS["quiesce"])
        self.maxtotal = _Limit("default (NOLIMIT)")
        self.maxtotal.setToolTip("Cancel the relocation if it would take longer in all.")
        self.force = QCheckBox("FORCE STORAGE: bypass the optional storage checks")
        self.force.setToolTip("The mandatory check (the guest's current size must fit in the "
                              "destination's central, XSTOR and paging space) still applies.")
        self.ask = QCheckBox("Ask for options on every drop (otherwise hold Shift while dropping)")
        self.ask.setChecked(ask_always)
        self.preview = QLineEdit()
        self.preview.setReadOnly(True)
        form = QFormLayout()
        form.addRow("Destination", self.dest)
        form.addRow("", self.move_button)
        form.addRow("", self.test_button)
        form.addRow("", self.sync_button)
        form.addRow("", self.async_button)
        form.addRow("", self.immediate)
        form.addRow("MAXQUIESCE", self.maxquiesce)
        form.addRow("MAXTOTAL", self.maxtotal)
        form.addRow("", self.force)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.issue_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.issue_button.setText("Issue")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(QLabel("Command:"))
        lay.addWidget(self.preview)
        lay.addWidget(self.ask)
        lay.addWidget(buttons)
        for w in (self.move_button, self.test_button, self.sync_button, self.async_button,
                  self.immediate, self.force):
            w.toggled.connect(self._update)
        for combo in (self.dest, self.maxquiesce.mode, self.maxtotal.mode):
            combo.currentIndexChanged.connect(self._update)
        for spin in (self.maxquiesce.seconds, self.maxtotal.seconds):
            spin.valueChanged.connect(self._update)
        self._update()

    def options(self) -> RelocateOptions:
        """The options chosen (SYNC, CP's default, is left out of the command)."""
        return RelocateOptions(
            test=self.test_button.isChecked(),
            sync=None if self.sync_button.isChecked() else False,
            immediate=self.immediate.isChecked(),
            maxquiesce_s=self.maxquiesce.value(),
            maxtotal_s=self.maxtotal.value(),
            force_storage=self.force.isChecked(),
        )

    def command(self) -> VmrelocateMove | VmrelocateTest:
        """The command the dialog will issue."""
        return relocate_command(self.userid, self.dest.currentText(), self.options())

    def problem(self) -> str | None:
        """CP's message if it would refuse the command as it stands (None: it is valid)."""
        try:
            parse_command(str(self.command()))
        except CPError as e:
            return e.line
        return None

    def _update(self) -> None:
        live = self.move_button.isChecked()
        for w in (self.sync_button, self.async_button, self.immediate, self.maxquiesce,
                  self.maxtotal):
            w.setEnabled(live)
        problem = self.problem()
        self.preview.setText(str(self.command()))
        self.preview.setToolTip(problem or "")
        self.preview.setStyleSheet("color: #d9453b;" if problem else "")
        self.issue_button.setEnabled(problem is None)

"""Change a guest's workload: pick a type and its parameters; issues ``WORKLOAD ... START``."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import WORKLOAD_TYPES, Command

from .commands import workload_command


def parse_workload(text: str) -> tuple[str, dict[str, float]]:
    """``APPSERVER WSS_MB 1536`` (a guest snapshot's workload) -> ``("appserver", {...})``."""
    words = text.split()
    if not words:
        return "none", {}
    kind = words[0].lower()
    values: dict[str, float] = {}
    for name, value in zip(words[1::2], words[2::2]):
        try:
            values[name.lower()] = float(value)
        except ValueError:
            continue
    return kind, values


class WorkloadDialog(QDialog):
    """Type and parameters of a workload, with the command it will issue.

    Parameters
    ----------
    userid : str
        The guest.
    current : str
        Its workload as the snapshot describes it, to start from.
    """

    def __init__(self, userid: str, current: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Workload of {userid}")
        self.userid = userid
        self.kind = QComboBox()
        for k, spec in WORKLOAD_TYPES.items():
            self.kind.addItem(k, k)
            self.kind.setItemData(self.kind.count() - 1, spec["doc"], 3)  # 3: tooltip role
        self.doc = QLabel("")
        self.doc.setWordWrap(True)
        self.form = QFormLayout()
        self.spins: dict[str, QDoubleSpinBox] = {}
        self.preview = QLineEdit()
        self.preview.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Issue")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        top = QFormLayout()
        top.addRow("Type", self.kind)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.doc)
        lay.addLayout(self.form)
        lay.addWidget(QLabel("Command:"))
        lay.addWidget(self.preview)
        lay.addWidget(buttons)
        kind, values = parse_workload(current)
        self._initial = values if kind in WORKLOAD_TYPES else {}
        if kind in WORKLOAD_TYPES:
            self.kind.setCurrentIndex(list(WORKLOAD_TYPES).index(kind))
        self._build()
        self.kind.currentIndexChanged.connect(self._build)

    def params(self) -> dict[str, Any]:
        """The parameter table of the type chosen."""
        return WORKLOAD_TYPES[self.kind.currentData()]["params"]

    def _build(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.spins = {}
        spec = WORKLOAD_TYPES[self.kind.currentData()]
        self.doc.setText(spec["doc"])
        for name, p in spec["params"].items():
            spin = QDoubleSpinBox()
            hi = p.hi if math.isfinite(p.hi) else 1e12
            spin.setRange(p.lo, hi)
            spin.setDecimals(3 if hi <= 1 or p.unit == "fraction" else 2)
            spin.setValue(self._initial.get(name, p.default))
            spin.setToolTip(f"{p.doc} ({p.unit}; default {p.default:g})")
            spin.valueChanged.connect(self._update)
            self.form.addRow(f"{name.upper()} ({p.unit})", spin)
            self.spins[name] = spin
        self._initial = {}
        self._update()

    def set_value(self, name: str, value: float) -> None:
        """Set one parameter (as if typed)."""
        self.spins[name].setValue(value)

    def command(self) -> Command:
        """The ``WORKLOAD userid START type [PARAM value]...`` command."""
        values = {n: s.value() for n, s in self.spins.items()}
        return workload_command(self.userid, self.kind.currentData(), values, self.params())

    def _update(self) -> None:
        self.preview.setText(str(self.command()))

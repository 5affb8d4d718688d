"""The CP console: commands (typed, or issued by gestures) and CP's answers, as CP gives them."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QFontDatabase, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ssisim.engine import VERBS, WORKLOAD_TYPES, Event

from .command_line import CommandLine
from .completion import CommandHistory
from .frames import ConsoleItem, Frame
from .model import SessionModel

#: Events CP would show on the operator's console as messages.
MESSAGE_KINDS = ("RELOCATION_DONE", "RELOCATION_CANCELLED",
                 "RELOCATION_WARNING", "PAGING_FULL", "PAGING_50PCT", "LOGON", "LOGOFF")

ERROR = "#d9453b"
DIM = "#8a8d93"
MESSAGE = "#2f7fe0"


class Console(QWidget):
    """Output of the console and its command line.

    What is typed goes out through ``command_entered`` (the window parses it); answers come
    back from the model's frames, or at once (``refuse``) for text that is no command.
    """

    #: ``(text)``: a command typed, to parse and issue.
    command_entered = Signal(str)

    def __init__(self, model: SessionModel, history: CommandHistory,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setMaximumBlockCount(5000)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.output.setFont(mono)
        self.output.setToolTip("CP's answers to the commands typed below, issued by a drag or a "
                               "menu, or run by the scenario's timeline.")
        self.line = CommandLine(self._words, history)
        self.line.setFont(mono)
        self.hint = QLabel("")
        self.hint.setEnabled(False)
        self.hint.setWordWrap(True)
        small = QFont(self.hint.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.hint.setFont(small)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(2)
        lay.addWidget(self.output, 1)
        lay.addWidget(self.line)
        lay.addWidget(self.hint)
        self.line.command_entered.connect(self.command_entered)
        self.line.hint.connect(self.hint.setText)
        model.updated.connect(self.add_frame)
        model.reset.connect(self._on_reset)

    def _words(self) -> tuple[list[tuple[str, int]], list[str], list[str], list[str]]:
        extra = [k.upper() for k in WORKLOAD_TYPES]
        for spec in WORKLOAD_TYPES.values():
            extra += [p.upper() for p in spec["params"]]
        return list(VERBS), self.model.userids(), self.model.member_names(), extra

    def _append(self, text: str, colour: str | None = None, bold: bool = False,
                italic: bool = False) -> None:
        body = html.escape(text).replace(" ", "&nbsp;")
        style = []
        if colour:
            style.append(f"color:{colour}")
        if bold:
            style.append("font-weight:bold")
        if italic:
            style.append("font-style:italic")
        self.output.appendHtml(f"<span style='{';'.join(style)}'>{body}</span>"
                               if style else body)
        self.output.moveCursor(QTextCursor.MoveOperation.End)

    def text(self) -> str:
        """Everything the console shows, as plain text."""
        return self.output.toPlainText()

    def echo(self, command: str, source: str = "") -> None:
        """Show a command as it is issued: its canonical text (``str(cmd)``), or the text typed
        when it is no command (``source``: what issued it, e.g. ``drag``)."""
        t = self.model.snapshot.t_s if self.model.snapshot is not None else 0.0
        note = f"   ({source})" if source else ""
        self._append(f"[{t:>6.0f}s] > {command}{note}", bold=True)

    def refuse(self, message: str) -> None:
        """CP's answer to text that is no command (``CPError.line``), shown at once in red."""
        self._append(message, colour=ERROR)

    def add_frame(self, frame: Frame) -> None:
        """Show what a frame brought, in the order it happened: answers and CP's messages."""
        items: list[tuple[float, ConsoleItem | Event]] = [(it.seq, it) for it in frame.console]
        for e in frame.events:
            if e.kind not in MESSAGE_KINDS:
                continue
            # a command's own messages are emitted before its COMMAND event: show them after
            # the command's answer, as CP does
            later = [it.seq for it in frame.console if it.seq > e.seq and it.t_s == e.t_s]
            items.append((min(later) + 0.1 if later else float(e.seq), e))
        items.sort(key=lambda pair: pair[0])
        for _, it in items:
            if isinstance(it, ConsoleItem):
                self.add_item(it)
            else:
                self._append(f"[{it.t_s:>6.0f}s] {it.message}", colour=MESSAGE, italic=True)

    def add_item(self, it: ConsoleItem) -> None:
        """Show CP's answer to a command (or a timeline command with its answer)."""
        if it.kind in ("timeline", "session"):
            self._append(f"[{it.t_s:>6.0f}s] {it.kind}: {it.command}", colour=DIM, bold=True)
        elif it.kind == "waiting":
            for line in it.lines:
                self._append(line, colour=DIM, italic=True)
            return
        elif it.delayed:
            self._append(f"[{it.t_s:>6.0f}s] > {it.command}   (ran when the console was free)",
                         bold=True)
        for line in it.lines:
            self._append(line, colour=ERROR if it.rc else None)

    def _on_reset(self) -> None:
        self._append("--- simulation started from the beginning ---", colour=DIM)

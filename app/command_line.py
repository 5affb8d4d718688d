"""The console's input line: Enter issues, Up/Down walk the history, Tab completes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from .completion import CommandHistory, Completion, complete

#: ``() -> (verbs, userids, members, extra words)`` for completion.
WordSource = Callable[[], tuple[list[tuple[str, int]], list[str], list[str], list[str]]]


class CommandLine(QLineEdit):
    """A line for CP commands with a shell-like history and completion of the word at the cursor.

    Parameters
    ----------
    words : callable
        Returns what completion may offer (verbs, user IDs, member names, other words).
    history : CommandHistory
        Commands typed before (kept between sessions by the window).
    """

    #: ``(command)``: Enter was pressed on a non-empty line.
    command_entered = Signal(str)
    #: ``(text)``: candidates to show when Tab leaves a choice ("" clears).
    hint = Signal(str)

    def __init__(self, words: WordSource, history: CommandHistory,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = words
        self.history = history
        self.setPlaceholderText("CP command, e.g. Q ALLOC PAGE   (Tab completes, Up/Down history)")
        self.returnPressed.connect(self._enter)

    def _enter(self) -> None:
        text = self.text().strip()
        if not text:
            return
        self.history.add(text)
        self.clear()
        self.hint.emit("")
        self.command_entered.emit(text)

    def event(self, event: QEvent) -> bool:
        """Take Tab for completion before Qt uses it to move the focus on."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and \
                event.key() == Qt.Key.Key_Tab and not event.modifiers():
            self.complete_word()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Up and Down walk the history."""
        if event.key() == Qt.Key.Key_Up:
            self.setText(self.history.previous(self.text()))
            return
        if event.key() == Qt.Key.Key_Down:
            self.setText(self.history.next(self.text()))
            return
        super().keyPressEvent(event)

    def complete_word(self) -> Completion:
        """Complete the word at the cursor: fully when one candidate fits, else their prefix."""
        verbs, userids, members, extra = self.words()
        text = self.text()
        c = complete(text, self.cursorPosition(), verbs, userids, members, extra)
        if not c.candidates:
            self.hint.emit("no completion")
            return c
        word = c.candidates[0] + " " if len(c.candidates) == 1 else c.common_prefix()
        if len(word.strip()) < c.end - c.start:
            word = text[c.start:c.end]  # never shorten what is typed
        self.setText(text[:c.start] + word + text[c.end:])
        self.setCursorPosition(c.start + len(word))
        self.hint.emit("" if len(c.candidates) == 1 else "  ".join(c.candidates))
        return c

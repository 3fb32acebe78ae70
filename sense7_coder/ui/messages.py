"""The status bar's messages, kept: *View › Messages…* (or a click on the status bar) lists
the last :data:`KEEP` with the time each was shown, newest first, so a message cut to fit the
bar, or gone before it was read, can be read whole. A message shown again straight after
itself is one line with its count, so a key pressed over and over does not push the others out."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..domain.words import count

#: how many messages are kept (the oldest goes when one more comes)
KEEP = 50


@dataclass
class Entry:
    at: datetime  # when it was last shown
    text: str
    times: int = 1  # shown this many times in a row


class MessagesDialog(QDialog):
    """The kept messages, newest first, each with its time; resizable, the text selectable."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Messages")
        self.heading = QLabel(self)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setTabChangesFocus(True)
        self.text.setAccessibleName("Status-bar messages, newest first")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(640, 360)

    def show_entries(self, entries: list[Entry]) -> None:
        self.heading.setText(
            f"The last {count(len(entries), 'message')}, newest first (at most {KEEP} are kept)"
            if entries else "No messages yet")
        self.text.setPlainText("\n".join(
            f"{e.at:%H:%M:%S}  {' '.join(e.text.splitlines())}"
            + (f"  (×{e.times})" if e.times > 1 else "") for e in reversed(entries)))


class MessageLog(QObject):
    """Keeps the window's status-bar messages; a left click on the bar opens them."""

    def __init__(self, window: QMainWindow, keep: int = KEEP) -> None:
        super().__init__(window)
        self.window = window
        self.entries: deque[Entry] = deque(maxlen=keep)
        self.dialog: MessagesDialog | None = None
        bar = window.statusBar()
        bar.installEventFilter(self)
        bar.setAccessibleDescription("Click to read the last messages whole (View › Messages…)")

    def add(self, text: str) -> None:
        if not text.strip():
            return
        last = self.entries[-1] if self.entries else None
        if last is not None and last.text == text:
            last.at, last.times = datetime.now(), last.times + 1
        else:
            self.entries.append(Entry(datetime.now(), text))
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.show_entries(list(self.entries))

    def show(self) -> MessagesDialog:
        """Open (or bring forward, brought up to date) the list of messages."""
        if self.dialog is None:
            self.dialog = MessagesDialog(self.window)
        self.dialog.show_entries(list(self.entries))
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if (event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton):
            self.show()
        return False

"""The status bar's messages, kept: *View › Messages…* (or a click on the status bar) lists
the last :data:`KEEP` with the time each was shown, newest first, so a message cut to fit the
bar, or gone before it was read, can be read whole."""

from __future__ import annotations

from collections import deque
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

    def show_entries(self, entries: list[tuple[datetime, str]]) -> None:
        newest_first = list(reversed(entries))
        self.heading.setText(
            f"The last {count(len(entries), 'message')}, newest first (at most {KEEP} are kept)"
            if entries else "No messages yet")
        self.text.setPlainText("\n".join(f"{at:%H:%M:%S}  {text}" for at, text in newest_first))


class MessageLog(QObject):
    """Keeps the window's status-bar messages; a left click on the bar opens them."""

    def __init__(self, window: QMainWindow, keep: int = KEEP) -> None:
        super().__init__(window)
        self.window = window
        self.entries: deque[tuple[datetime, str]] = deque(maxlen=keep)
        self.dialog: MessagesDialog | None = None
        bar = window.statusBar()
        bar.installEventFilter(self)
        bar.setAccessibleDescription("Click to read the last messages whole (View › Messages…)")

    def add(self, text: str) -> None:
        if text.strip():
            self.entries.append((datetime.now(), text))
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

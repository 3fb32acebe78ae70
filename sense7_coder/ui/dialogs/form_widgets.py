"""Small widgets used by the dialogs' forms."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFocusEvent
from PySide6.QtWidgets import (
    QColorDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from ..palette import message_style


def path_row(parent: QWidget, edit: QLineEdit, label: str,
             choose: Callable[[], None]) -> QHBoxLayout:
    """A path's line edit with a button (``label``) beside it that calls ``choose``; the
    button never takes Enter from the dialog's default button."""
    button = QPushButton(label, parent)
    button.setAutoDefault(False)
    button.clicked.connect(choose)
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    row.addWidget(button)
    return row


class MessageLabel(QLabel):
    """An inline message: hidden when empty, coloured by kind (error, warning, ok, info)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.kind = ""
        self.hide()

    def show_message(self, text: str, kind: str = "info") -> None:
        self.kind = kind if text else ""
        self.setText(text)
        self.setStyleSheet(message_style(kind, self))
        self.setVisible(bool(text))

    def clear_message(self) -> None:
        self.show_message("")


class CommitTextEdit(QPlainTextEdit):
    """A plain-text box that says when the user is done editing (it lost focus after a change)."""

    editingFinished = Signal()

    def __init__(self, parent: QWidget | None = None, *, lines: int = 3) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        # at least `lines` lines; boxes share any spare height of the form between them
        self.setMinimumHeight(self.fontMetrics().lineSpacing() * lines + 14)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._dirty = False
        self.textChanged.connect(self._mark)

    def _mark(self) -> None:
        if not self.signalsBlocked():
            self._dirty = True

    def set_text(self, text: str) -> None:
        self.blockSignals(True)
        self.setPlainText(text)
        self.blockSignals(False)
        self._dirty = False

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.finish()

    def finish(self) -> None:
        if self._dirty:
            self._dirty = False
            self.editingFinished.emit()


class ColorButton(QPushButton):
    """Shows a colour swatch; a click opens the colour chooser. ``colorChosen`` on change."""

    colorChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = ""
        self.setAutoDefault(False)
        self.clicked.connect(self.choose)
        self.set_color("")

    @property
    def color(self) -> str:
        return self._color

    def set_color(self, color: str) -> None:
        self._color = color
        if color:
            text = "#000000" if QColor(color).lightness() > 140 else "#ffffff"
            self.setStyleSheet(f"QPushButton {{ background: {color}; color: {text}; "
                               "border: 1px solid #888; padding: 3px 10px; }")
            self.setText(color)
        else:
            self.setStyleSheet("")
            self.setText("Choose…")

    def choose(self) -> None:
        initial = QColor(self._color) if self._color else QColor("#888888")
        picked = QColorDialog.getColor(initial, self, "Colour of the code")
        if picked.isValid() and picked.name() != self._color:
            self.set_color(picked.name())
            self.colorChosen.emit(picked.name())

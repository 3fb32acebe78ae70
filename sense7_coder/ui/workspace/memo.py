"""A memo per turn, saved when focus leaves it and after a short pause in typing."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QFont, QKeyEvent
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ...domain.models import Unit

IDLE_MS = 1200


class _Editor(QPlainTextEdit):
    def __init__(self, on_leave: Callable[[], None], parent: QWidget) -> None:
        super().__init__(parent)
        self._on_leave = on_leave

    def focusOutEvent(self, e: QFocusEvent) -> None:
        self._on_leave()
        super().focusOutEvent(e)

    def keyPressEvent(self, e: QKeyEvent) -> None:
        if e.key() == Qt.Key.Key_Escape:
            self._on_leave()
            self.clearFocus()
            parent = self.parentWidget()
            if parent is not None:
                parent.escaped.emit()  # type: ignore[attr-defined]
            return
        super().keyPressEvent(e)


class MemoPanel(QWidget):
    """Emits ``save(unit, text)`` when the memo of ``unit`` should be written."""

    save = Signal(object, str)
    escaped = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("Memo for this turn  (Ctrl+M; Esc returns to coding)", self)
        font = QFont(self.label.font())
        font.setWeight(QFont.Weight.DemiBold)
        self.label.setFont(font)
        self.editor = _Editor(self.flush, self)
        self.editor.setPlaceholderText("Notes, doubts, quotes… saved as you type")
        self.editor.setTabChangesFocus(True)
        self.editor.setMinimumHeight(self.editor.fontMetrics().lineSpacing() * 2 + 12)
        self.timer = QTimer(self, singleShot=True, interval=IDLE_MS)
        self.timer.timeout.connect(self.flush)
        self.editor.textChanged.connect(self._edited)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 8)
        layout.setSpacing(4)
        layout.addWidget(self.label)
        layout.addWidget(self.editor, 1)
        self.unit: Unit | None = None
        self._saved_text = ""
        self._loading = False

    def set_unit(self, unit: Unit | None, text: str) -> None:
        """Show the memo of another unit (the pending one is saved first)."""
        self.flush()
        same = unit == self.unit and self.editor.toPlainText().strip() == text.strip()
        self.unit = unit
        self._saved_text = text
        self._loading = True
        if not same and self.editor.toPlainText() != text:
            self.editor.setPlainText(text)
        self._loading = False
        self.editor.setEnabled(unit is not None)

    def _edited(self) -> None:
        if not self._loading:
            self.timer.start()

    def dirty(self) -> bool:
        return self.unit is not None and self.editor.toPlainText().strip() != self._saved_text.strip()

    def flush(self) -> None:
        self.timer.stop()
        if self.dirty():
            text = self.editor.toPlainText()
            self._saved_text = text
            self.save.emit(self.unit, text)

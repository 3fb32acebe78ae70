"""A coder's rationale on a single value, in the code's row of the coding panel.

``Ctrl+R`` on the focused code opens a one-line field under its scale, filled with the
coder's rationale for the value there; ``Enter`` saves it (an emptied field removes it),
``Esc`` leaves it as it was; the keys go back to the coding panel either way. A saved
rationale shows under the scale as *why: …*. Only the coder's own rationales are read here
(:func:`sense7_coder.project.rationales.own`); the others' show where their values are
discussed (reconciliation, a round's review).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...project import rationales
from ...project.changes import Changes
from .code_row import NOT_SET, CodeRow

KEY = "Ctrl+R"
#: added to the coding panel's key hint
HINT = f" · <b>{KEY}</b> why (a rationale for the value)"


class RationaleEdit(QLineEdit):
    """The one-line field: Enter saves, Esc leaves it."""

    escaped = Signal()

    def keyPressEvent(self, e: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if e.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
            return
        super().keyPressEvent(e)


class RationaleLine(QWidget):
    """``why: …`` under a code's scale, and the field that edits it."""

    def __init__(self, code: Code, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.edit = RationaleEdit(self)
        self.edit.setMaxLength(rationales.MAX_CHARS)
        self.edit.setPlaceholderText("Why this value? Enter saves, Esc leaves it")
        self.edit.setAccessibleName(f"{code.label}: rationale for the value")
        self.edit.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.label)
        layout.addWidget(self.edit)
        self.hide()

    def show_text(self, text: str) -> None:
        self.label.setText(f"why: {text}" if text else "")
        self.label.setVisible(bool(text))
        self.setVisible(bool(text) or self.edit.isVisible())


class RowRationales(QObject):
    """Keeps a :class:`RationaleLine` on each row of a workspace's coding panel."""

    def __init__(self, workspace: Any) -> None:
        super().__init__(workspace)
        self.ws = workspace
        self.lines: dict[str, RationaleLine] = {}
        self.texts: dict[str, str] = {}
        self.editing: str | None = None
        sc = QShortcut(QKeySequence(KEY), self.ws)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.setAutoRepeat(False)
        sc.activated.connect(self.edit_focused)
        self.shortcut = sc

    def _line(self, row: CodeRow) -> RationaleLine:
        line = self.lines.get(row.code.key)
        if line is None or line.parent() is not row:  # the rows were built again
            line = RationaleLine(row.code, row)
            layout = row.layout()
            assert isinstance(layout, QVBoxLayout)
            layout.insertWidget(2, line)  # under the scale
            line.edit.returnPressed.connect(lambda key=row.code.key: self.save(key))
            line.edit.escaped.connect(self.leave)
            self.lines[row.code.key] = line
        return line

    def refresh(self, codes: list[Code]) -> None:
        """Show the coder's own rationales of ``codes`` on the unit shown."""
        hint = self.ws.coding.hint
        if HINT not in hint.text():
            hint.setText(hint.text() + HINT)
        conversation = self.ws.conversation
        found = {} if conversation is None else rationales.own(
            self.ws.project, conversation.conversation_id)
        self.texts = {}
        for code in codes:
            unit = self.ws.unit_for(code)
            text = found.get((unit.position, unit.sentence, code.key), "")
            if text and self.ws.coding.value_of(code.key) is not NOT_SET:
                self.texts[code.key] = text
        for key, row in self.ws.coding.rows.items():
            if key in self.texts or key in self.lines:
                self._line(row).show_text(self.texts.get(key, ""))

    def edit_focused(self) -> bool:
        code = self.ws.coding.focused_code()
        if code is None:
            return False
        if self.ws.coding.value_of(code.key) is NOT_SET:
            self.ws.message.emit(f"Give {code.label} a value first: a rationale explains a value")
            return False
        line = self._line(self.ws.coding.rows[code.key])
        line.edit.setText(self.texts.get(code.key, ""))
        line.edit.show()
        line.show()
        line.edit.setFocus()
        line.edit.selectAll()
        self.editing = code.key
        return True

    def leave(self) -> None:
        key, self.editing = self.editing, None
        if key is not None and key in self.lines:
            line = self.lines[key]
            line.edit.hide()
            line.show_text(self.texts.get(key, ""))
        self.ws.coding.setFocus()

    def save(self, key: str) -> bool:
        code = self.ws.project.codebook.get(key)
        line = self.lines.get(key)
        if code is None or line is None or self.ws.conversation is None:
            return False
        unit = self.ws.unit_for(code)
        try:
            changes: Changes = rationales.set_rationale(self.ws.project, unit, key,
                                                        line.edit.text())
        except ProjectError as e:
            self.ws.failed.emit(str(e))
            return False
        text = line.edit.text().strip()
        if text:
            self.texts[key] = text
        else:
            self.texts.pop(key, None)
        self.leave()
        self.ws.hub.publish(changes)
        self.ws.message.emit(f"{code.label}: rationale {'saved' if text else 'removed'}")
        return True

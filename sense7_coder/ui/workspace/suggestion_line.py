"""A model's suggestion on each code's row of the coding panel, and the keys that take it.

Shown only where the lead allows it and blinding lets the coder read it (both decided in
``project/suggestions/view``; this module shows what that returns). ``Y`` takes the focused
code's suggestion, ``Shift+Y`` every suggestion shown for the unit (while no code of the
codebook uses the letter Y); each row's Accept button does the same. A taken value is
saved at once with the source ``suggestion_accepted``.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.models import Unit
from ...project.suggestions import view as sv
from .code_row import NOT_SET, CodeRow

KEY = "Y"
RATIONALE_CHARS = 160
#: added to the coding panel's key hint while suggestions show
HINT = f" · <b>{KEY}</b> take the model's value · <b>Shift+{KEY}</b> all of them"


def _short(text: str, limit: int = RATIONALE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class SuggestionLine(QWidget):
    """``Model: 4 good — rationale  [Accept (Y)]`` under a code's scale."""

    accepted = Signal(str)

    def __init__(self, code: Code, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.shown: sv.RowSuggestion | None = None
        self.text = QLabel(self)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.button = QPushButton("Accept", self)
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.button.setFlat(True)
        self.button.clicked.connect(lambda: self.accepted.emit(self.code.key))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 1, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def _value_text(self, value: Any) -> str:
        label = self.code.level_label(value)
        if self.code.kind == "ordinal" and value is not None and str(value) != label:
            return f"{value} {label}"
        return label

    def show_suggestion(self, shown: sv.RowSuggestion | None, current: Any,
                        key_free: bool) -> None:
        self.shown = shown
        if shown is None:
            self.hide()
            return
        s = shown.chosen
        parts = [f"Model suggests <b>{escape(self._value_text(s.value))}</b>"]
        if s.rationale:
            parts.append(f"— <i>{escape(_short(s.rationale))}</i>")
        if shown.others:
            parts.append("<br/>" + " · ".join(
                f"{escape(r)} <b>{escape(self._value_text(v))}</b>" for r, v in shown.others))
        self.text.setText(" ".join(parts))
        self.text.setToolTip(f"<p>{escape(s.rater)}, run {s.run}"
                             f"{' · spread ' + format(s.spread, '.2f') if s.spread else ''}"
                             f"</p><p>{escape(s.rationale)}</p>" if s.rationale else
                             f"{escape(s.rater)}, run {s.run}")
        same = current is not NOT_SET and current == s.value and \
            type(current) is type(s.value)
        self.button.setEnabled(not same)
        self.button.setText("✓ yours" if same else (f"Accept ({KEY})" if key_free else "Accept"))
        self.button.setToolTip("Your value is the model's" if same else
                               "Take the model's value as yours (recorded as an accepted "
                               "suggestion)")
        self.show()


class RowSuggestions(QObject):
    """Keeps a :class:`SuggestionLine` on each row of a workspace's coding panel."""

    def __init__(self, workspace: Any) -> None:
        super().__init__(workspace)
        self.ws = workspace
        self.lines: dict[str, SuggestionLine] = {}
        self.shown: dict[str, sv.RowSuggestion] = {}
        self.one = self._shortcut(KEY, self.accept_focused)
        self.all = self._shortcut(f"Shift+{KEY}", self.accept_unit)

    def _shortcut(self, key: str, fn: Callable[[], Any]) -> QShortcut:
        sc = QShortcut(QKeySequence(key), self.ws)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.setAutoRepeat(False)
        sc.activated.connect(fn)
        return sc

    def key_free(self) -> bool:
        return all(c.shortcut != KEY for c in self.ws.project.codebook.active)

    def _line(self, row: CodeRow) -> SuggestionLine:
        line = self.lines.get(row.code.key)
        if line is None or line.parent() is not row:  # the rows were built again
            line = SuggestionLine(row.code, row)
            layout = row.layout()
            assert isinstance(layout, QVBoxLayout)
            layout.insertWidget(3, line)  # under the scale and the others' values
            line.accepted.connect(self.accept)
            self.lines[row.code.key] = line
        return line

    def refresh(self, codes: list[Code]) -> None:
        """Show the suggestions of ``codes`` where the coder stands (none where not allowed)."""
        free = self.key_free()
        self.one.setEnabled(free)
        self.all.setEnabled(free)
        items = [(self.ws.unit_for(c), c.key) for c in codes]
        try:
            found = sv.row_suggestions(self.ws.project, items)
        except ProjectError:
            found = {}
        self.shown = {code: found[(unit, code)] for unit, code in items if (unit, code) in found}
        hint = self.ws.coding.hint
        if self.shown and free and HINT not in hint.text():
            hint.setText(hint.text() + HINT)
        for key, row in self.ws.coding.rows.items():
            if key in self.shown or key in self.lines:
                self._line(row).show_suggestion(self.shown.get(key),
                                                self.ws.coding.value_of(key), free)

    # -- taking a suggestion ------------------------------------------------------------------
    def _unit(self, key: str) -> Unit | None:
        code = self.ws.project.codebook.get(key)
        return None if code is None or self.ws.conversation is None else self.ws.unit_for(code)

    def accept(self, key: str) -> bool:
        unit = self._unit(key)
        shown = self.shown.get(key)
        if unit is None or shown is None:
            self.ws.message.emit("No model suggestion to accept here")
            return False
        # the value is read back from the project by the views its change reaches
        if self.ws._write(sv.accept, self.ws.project, unit, key) is None:
            return False
        self.ws.message.emit(f"{shown.code.label}: took the model's "
                             f"{shown.value_text()}")
        return True

    def accept_focused(self) -> None:
        code = self.ws.coding.focused_code()
        if code is not None and self.accept(code.key) and self.ws.auto_advance:
            self.ws.coding.advance_after_rating()

    def accept_unit(self) -> None:
        keys = [k for k in self.ws.coding.visible_keys() if k in self.shown
                and self.lines[k].button.isEnabled()]
        if not keys:
            self.ws.message.emit("No model suggestion to accept here")
            return
        items = [(u, k) for k in keys if (u := self._unit(k)) is not None]
        # one undo step: Ctrl+Z puts back every value the key took
        cmd = self.ws._write(sv.accept_all, self.ws.project, items)
        if cmd is None:
            return
        taken = len(cmd.cells)
        self.ws.message.emit(f"Took the model's values of {taken} code"
                             f"{'s' if taken != 1 else ''}")

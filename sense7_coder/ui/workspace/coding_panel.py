"""The coding panel: every code that applies where the coder stands, with its scale.

Keyboard: Up/Down (and Tab/Shift+Tab) move between codes while the panel has focus; the
window's shortcuts (digits, N, Delete, code letters) act on the focused code.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFocusEvent, QFont, QKeyEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QVBoxLayout, QWidget

from ...domain.codebook.codes import Code, Codebook
from ..elided import WrappedLabel
from .code_row import NOT_SET, CodeRow
from .guidance import FOLDS

SECTIONS = (("turn", "This turn"), ("sentence", "Sentence"), ("conversation", "Whole conversation"))
HINT = ("<b>1–5</b> rate · <b>0</b>/<b>N</b> n/a · <b>Del</b> clear · "
        "<b>↑↓</b> code · <b>Ctrl+Enter</b> done · <b>F1</b> guide")


def hint_text(advance: bool) -> str:
    """The key hint under the codes; says when a rating moves on to the next code."""
    return HINT.replace("<b>1–5</b> rate", "<b>1–5</b> rate, then next") if advance \
        else HINT


def _section_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 0.92)
    font.setCapitalization(QFont.Capitalization.AllUppercase)
    font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
    font.setWeight(QFont.Weight.DemiBold)
    label.setFont(font)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setContentsMargins(4, 2, 0, 1)
    return label


class CodingPanel(QScrollArea):
    chosen = Signal(str, object)  # code key, value (None = not applicable)
    cleared = Signal(str)
    focusedCodeChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.inner = QWidget(self)
        self.inner.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.layout_ = QVBoxLayout(self.inner)
        self.layout_.setContentsMargins(8, 2, 8, 4)
        self.layout_.setSpacing(2)
        self.setWidget(self.inner)

        # the turn's title and status stay in view above the scrolling codes (the workspace
        # places ``header`` over the panel)
        self.header = QWidget()
        self.title = QLabel(self.header)
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.12)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.status = QLabel(self.header)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        head = QVBoxLayout(self.header)
        head.setContentsMargins(10, 6, 10, 2)
        head.setSpacing(1)
        head.addWidget(self.title)
        head.addWidget(self.status)
        self.empty = QLabel(self.inner)
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.hint = WrappedLabel(HINT, self.inner)
        self.hint.setWordWrap(True)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        small = QFont(self.hint.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.hint.setFont(small)

        self.rows: dict[str, CodeRow] = {}
        self.section_labels: dict[str, QLabel] = {}
        self.focused_key: str | None = None
        self.codebook: Codebook | None = None

    # -- building -----------------------------------------------------------------------------
    def set_codebook(self, codebook: Codebook) -> None:
        """Build one row per active code (hidden until it applies)."""
        self.codebook = codebook
        shown = self.inner.isVisible()
        if shown:  # one layout for the whole codebook, not one per row (see show_codes)
            self.inner.hide()
        try:
            self._build_rows(codebook)
        finally:
            if shown:
                self.inner.show()

    def _build_rows(self, codebook: Codebook) -> None:
        while self.layout_.count():
            item = self.layout_.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None and w not in (self.empty, self.hint):
                w.deleteLater()
        self.rows.clear()
        self.section_labels.clear()
        self.layout_.addWidget(self.empty)
        for unit, text in SECTIONS:
            codes = [c for c in codebook.active if c.unit == unit]
            if not codes:
                continue
            label = _section_label(text, self.inner)
            self.section_labels[unit] = label
            self.layout_.addWidget(label)
            for code in codes:
                row = CodeRow(code, self.inner)
                row.chosen.connect(self.chosen)
                row.cleared.connect(self.cleared)
                row.focusRequested.connect(self.focus_code)
                row.hide()
                self.rows[code.key] = row
                self.layout_.addWidget(row)
        self.layout_.addStretch(1)
        self.layout_.addWidget(self.hint)
        self.focused_key = None

    def show_codes(self, codes: list[Code], *, title: str, status: str,
                   sentence_label: str | None = None, empty: str = "") -> None:
        """Show exactly these codes (in codebook order); keep focus on the same code if shown."""
        keys = {c.key for c in codes}
        changed = [(row, key in keys) for key, row in self.rows.items()
                   if row.isHidden() == (key in keys)]
        # rows shown or hidden one by one inside the visible panel cost a layout each
        # (1,000 codes took 20 s to open): toggled while the panel is hidden, one layout
        hide = len(changed) > 20 and self.inner.isVisible()
        focus = QApplication.focusWidget()
        if hide:
            self.inner.hide()
        for row, shown in changed:
            row.setVisible(shown)
        if hide:
            self.inner.show()
            if focus is not None and self.inner.isAncestorOf(focus) and focus.isVisible():
                focus.setFocus()  # hiding the panel moved the keyboard focus away
        for unit, label in self.section_labels.items():
            label.setVisible(any(c.unit == unit for c in codes))
            if unit == "sentence":
                label.setText(sentence_label or "Sentence")
        self.title.setText(title)
        self.status.setText(status)
        self.empty.setText(empty)
        self.empty.setVisible(bool(empty))
        visible = self.visible_keys()
        if self.focused_key not in visible:
            self.focus_code(visible[0] if visible else None)

    def set_row(self, key: str, value: Any = NOT_SET, others: str | None = None) -> None:
        row = self.rows.get(key)
        if row is not None:
            row.set_value(value)
            row.set_others(others)

    def value_of(self, key: str) -> Any:
        row = self.rows.get(key)
        return row.value if row is not None else NOT_SET

    # -- focus --------------------------------------------------------------------------------
    def visible_keys(self) -> list[str]:
        return [k for k, r in self.rows.items() if not r.isHidden()]

    def focused_code(self) -> Code | None:
        row = self.rows.get(self.focused_key or "")
        return row.code if row is not None else None

    def focus_code(self, key: str | None) -> None:
        if key == self.focused_key:
            return
        old = self.rows.get(self.focused_key or "")
        if old is not None:
            old.set_focused(False)
        self.focused_key = key
        row = self.rows.get(key or "")
        if row is not None:
            row.set_focused(True)
            self.fold_guidance(row)
            self.reveal(row)
            self.focusedCodeChanged.emit(key)

    _folding = False

    def resizeEvent(self, e: QResizeEvent) -> None:
        super().resizeEvent(e)
        if self._folding or e.size().height() == e.oldSize().height():
            return
        row = self.rows.get(self.focused_key or "")
        if row is not None and row.focused and row.description.has_content():
            self._folding = True
            try:
                self.fold_guidance(row)  # decide again for the new height
            finally:
                self._folding = False

    def fold_guidance(self, row: Any) -> bool:
        """Show as much of the focused code's guidance as lets every code fit in view: all
        of it, the description and level anchors, the description alone (one line), or none
        (it stays in the row's tooltip and F1). Where the codes need scrolling anyway, the
        description and anchors stay open under the code. True when anything was folded."""
        guidance = row.description
        if not guidance.isVisibleTo(row):
            return False

        def fits() -> bool:
            for w in (guidance, row, self.inner, self.viewport(), self):
                QApplication.sendPostedEvents(w, QEvent.Type.LayoutRequest)
            QApplication.sendEvent(self, QEvent(QEvent.Type.LayoutRequest))  # resizes inner
            keys = self.visible_keys()
            if not keys:
                return True
            # the height the scroll area really gives the codes (word-wrapped labels make
            # any size hint taller than what is laid out)
            return self.inner.height() <= self.viewport().height()

        for fold in FOLDS:
            guidance.set_fold(fold)
            if fits():
                return fold != FOLDS[0]
        guidance.set_fold("anchors")
        return True

    def reveal(self, row: QWidget) -> None:
        """Scroll so the whole row shows, its description (shown when focused) included."""
        for w in (row, self.inner, self):  # lay out now, not on the next turn of the event loop
            QApplication.sendPostedEvents(w, QEvent.Type.LayoutRequest)
        self.ensureWidgetVisible(row, 0, 8)

    def focus_shortcut(self, letter: str) -> bool:
        for key in self.visible_keys():
            if self.rows[key].code.shortcut == letter.upper():
                self.focus_code(key)
                return True
        return False

    def move_focus(self, step: int, *, wrap: bool = True) -> bool:
        keys = self.visible_keys()
        if not keys:
            return False
        i = keys.index(self.focused_key) if self.focused_key in keys else -step
        j = i + step
        if not 0 <= j < len(keys):
            if not wrap:
                return False
            j %= len(keys)
        self.focus_code(keys[j])
        return True

    #: the focus just moved on by itself after a rating: the next Down keeps it there, so
    #: a coder who presses Down out of habit never skips a code
    advanced_by_rating = False

    def advance_after_rating(self) -> bool:
        moved = self.move_focus(1, wrap=False)
        self.advanced_by_rating = moved
        return moved

    def keyPressEvent(self, e: QKeyEvent) -> None:
        advanced, self.advanced_by_rating = self.advanced_by_rating, False
        if e.key() == Qt.Key.Key_Down and not e.modifiers():
            if not advanced:
                self.move_focus(1)
        elif e.key() == Qt.Key.Key_Up and not e.modifiers():
            self.move_focus(-1)
        else:
            super().keyPressEvent(e)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: A002 - Qt's name
        if self.hasFocus() and self.move_focus(1 if next else -1, wrap=False):
            return True
        return super().focusNextPrevChild(next)

    def focusInEvent(self, e: QFocusEvent) -> None:
        super().focusInEvent(e)
        self.viewport().update()

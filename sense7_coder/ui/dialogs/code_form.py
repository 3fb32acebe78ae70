"""The form that edits one code of the codebook.

The form only holds what the user typed; :meth:`CodeForm.build` turns it into a validated
:class:`Code` (raising :class:`CodebookError` with a readable reason). ``edited`` is emitted
whenever the user has finished a change that should be saved (a field left, a choice made,
a level added), so that the editor can save at once.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...domain.codebook.codes import APPLIES_TO, KINDS, UNITS, Code, code_from_dict, default_levels
from ...domain.errors import CodebookError
from ...domain.models import RATING_KEYS
from .form_widgets import ColorButton, CommitTextEdit
from .levels_model import LevelsModel

KIND_HELP = {
    "ordinal": "ordered levels with whole-number values (e.g. 1-5)",
    "nominal": "unordered categories with text values",
    "binary": "present (1) or absent (0)",
}
NO_RATING = "(none)"


class CodeForm(QWidget):
    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._code: Code | None = None
        self._loading = False

        self.key_edit = QLineEdit()
        self.key_edit.setReadOnly(True)
        self.key_edit.setToolTip("The key exports and merges match on; it cannot change once the code exists.")
        self.label_edit = QLineEdit()
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(list(KINDS))
        self.unit_combo = QComboBox()
        self.unit_combo.addItems(list(UNITS))
        self.applies_combo = QComboBox()
        self.applies_combo.addItems(list(APPLIES_TO))
        self.kind_help = QLabel()
        self.kind_help.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.levels = LevelsModel()
        self.levels_view = QTableView()
        self.levels_view.setModel(self.levels)
        self.levels_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.levels_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.levels_view.setWordWrap(True)
        self.levels_view.verticalHeader().setVisible(False)
        header = self.levels_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.levels_view.setMinimumHeight(170)
        self.add_level_button = QPushButton("Add level")
        self.remove_level_button = QPushButton("Remove")
        self.level_up_button = QPushButton("Up")
        self.level_down_button = QPushButton("Down")

        self.allow_na_check = QCheckBox("Coders may mark it not applicable (stored as missing, not 0)")
        self.description_edit = CommitTextEdit(lines=4)
        self.include_edit = CommitTextEdit(lines=3)
        self.exclude_edit = CommitTextEdit(lines=3)
        self.examples_edit = CommitTextEdit(lines=4)
        self.examples_edit.setPlaceholderText("One example per line")
        self.shortcut_edit = QLineEdit()
        self.shortcut_edit.setMaxLength(1)
        self.shortcut_edit.setFixedWidth(40)
        self.shortcut_edit.setToolTip("One letter; pressing it in the workspace selects this code")
        self.color_button = ColorButton()
        self.clear_color_button = QPushButton("No colour")
        self.group_edit = QLineEdit()
        self.group_edit.setPlaceholderText("optional, e.g. affective")
        self.rating_combo = QComboBox()
        self.rating_combo.addItems([NO_RATING, *RATING_KEYS])
        self.rating_combo.setToolTip("The users' own rating this code is compared with in agreement reports")
        self.usage_label = QLabel()
        self.usage_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self._layout()
        self._connect()
        self.load(None)

    # -- layout ----------------------------------------------------------------------------
    def _layout(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.usage_label)
        form.addRow("Key", key_row)
        form.addRow("Label", self.label_edit)
        kind_row = QHBoxLayout()
        for text, widget in (("", self.kind_combo), ("Unit", self.unit_combo),
                             ("Applies to", self.applies_combo)):
            if text:
                kind_row.addSpacing(12)
                kind_row.addWidget(QLabel(text))
            kind_row.addWidget(widget)
        kind_row.addStretch(1)
        form.addRow("Kind", kind_row)
        form.addRow("", self.kind_help)
        level_buttons = QHBoxLayout()
        for b in (self.add_level_button, self.remove_level_button, self.level_up_button,
                  self.level_down_button):
            level_buttons.addWidget(b)
        level_buttons.addStretch(1)
        levels_box = QVBoxLayout()
        levels_box.addWidget(self.levels_view)
        levels_box.addLayout(level_buttons)
        form.addRow("Levels", levels_box)
        form.addRow("", self.allow_na_check)
        form.addRow("Description", self.description_edit)
        form.addRow("Include when", self.include_edit)
        form.addRow("Exclude when", self.exclude_edit)
        form.addRow("Examples", self.examples_edit)
        extra = QHBoxLayout()
        extra.addWidget(self.shortcut_edit)
        extra.addSpacing(12)
        extra.addWidget(QLabel("Colour"))
        extra.addWidget(self.color_button)
        extra.addWidget(self.clear_color_button)
        extra.addSpacing(12)
        extra.addWidget(QLabel("Group"))
        extra.addWidget(self.group_edit, 1)
        form.addRow("Shortcut", extra)
        rating_row = QHBoxLayout()
        rating_row.addWidget(self.rating_combo)
        rating_row.addStretch(1)
        form.addRow("User's rating", rating_row)
        outer = QVBoxLayout(self)
        outer.addLayout(form)
        outer.addStretch(1)
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)

    def _connect(self) -> None:
        self.label_edit.editingFinished.connect(self._user_edit)
        self.shortcut_edit.editingFinished.connect(self._user_edit)
        self.group_edit.editingFinished.connect(self._user_edit)
        for box in (self.description_edit, self.include_edit, self.exclude_edit, self.examples_edit):
            box.editingFinished.connect(self._user_edit)
        self.kind_combo.currentTextChanged.connect(self._kind_changed)
        for combo in (self.unit_combo, self.applies_combo, self.rating_combo):
            combo.currentIndexChanged.connect(self._user_edit)
        self.unit_combo.currentTextChanged.connect(self._unit_changed)
        self.allow_na_check.toggled.connect(self._user_edit)
        self.color_button.colorChosen.connect(self._user_edit)
        self.clear_color_button.clicked.connect(self._clear_color)
        self.levels.edited.connect(self._user_edit)
        self.add_level_button.clicked.connect(self.add_level)
        self.remove_level_button.clicked.connect(self.remove_level)
        self.level_up_button.clicked.connect(lambda: self.move_level(-1))
        self.level_down_button.clicked.connect(lambda: self.move_level(1))

    # -- loading ---------------------------------------------------------------------------
    @property
    def code(self) -> Code | None:
        """The code as stored (what the form reverts to)."""
        return self._code

    def mark_saved(self, code: Code, usage: int) -> None:
        """The project now holds ``code`` (what the form shows): keep the widgets as they are."""
        self._code = code
        self.usage_label.setText(usage_text(usage))

    def load(self, code: Code | None, usage: int = 0) -> None:
        self._loading = True
        try:
            self._code = code
            self.setEnabled(code is not None)
            c = code or Code(key="", label="")
            self.key_edit.setText(c.key)
            self.label_edit.setText(c.label)
            self.kind_combo.setCurrentText(c.kind)
            self.unit_combo.setCurrentText(c.unit)
            self.applies_combo.setCurrentText(c.applies_to)
            self.levels.set_levels(c.levels if code else [])
            self.allow_na_check.setChecked(c.allow_na)
            self.description_edit.set_text(c.description)
            self.include_edit.set_text(c.include)
            self.exclude_edit.set_text(c.exclude)
            self.examples_edit.set_text("\n".join(c.examples))
            self.shortcut_edit.setText(c.shortcut)
            self.color_button.set_color(c.color)
            self.group_edit.setText(c.group)
            self.rating_combo.setCurrentText(c.user_rating or NO_RATING)
            if code is None:
                self.usage_label.setText("")
            else:
                self.usage_label.setText(usage_text(usage))
            self._sync_enabled()
        finally:
            self._loading = False

    def _sync_enabled(self) -> None:
        kind = self.kind_combo.currentText()
        binary = kind == "binary"
        self.levels.value_editable = not binary
        self.add_level_button.setEnabled(not binary)
        self.remove_level_button.setEnabled(not binary)
        self.kind_help.setText(KIND_HELP.get(kind, ""))
        self.applies_combo.setEnabled(self.unit_combo.currentText() != "conversation")

    # -- reading ---------------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        """The form as a code in the codebook's JSON form (not yet validated)."""
        kind = self.kind_combo.currentText()
        levels: list[dict[str, Any]] = []
        for value, label, description in self.levels.rows():
            raw: Any = value
            if kind in ("ordinal", "binary"):
                try:
                    raw = int(value)
                except ValueError:
                    raw = value
            levels.append({"value": raw, "label": label or value, "description": description})
        examples = [line.strip() for line in self.examples_edit.toPlainText().splitlines()
                    if line.strip()]
        rating = self.rating_combo.currentText()
        return {
            "key": self.key_edit.text().strip(),
            "label": self.label_edit.text().strip(),
            "kind": kind,
            "unit": self.unit_combo.currentText(),
            "applies_to": self.applies_combo.currentText(),
            "levels": levels,
            "allow_na": self.allow_na_check.isChecked(),
            "description": self.description_edit.toPlainText().strip(),
            "include": self.include_edit.toPlainText().strip(),
            "exclude": self.exclude_edit.toPlainText().strip(),
            "examples": examples,
            "shortcut": self.shortcut_edit.text().strip(),
            "color": self.color_button.color,
            "group": self.group_edit.text().strip(),
            "user_rating": None if rating == NO_RATING else rating,
            "retired": self._code.retired if self._code else False,
        }

    def build(self) -> Code:
        """The edited code, validated. Raises CodebookError naming what is wrong."""
        values = self.values()
        if not values["label"]:
            raise CodebookError(f"code '{values['key']}': the label cannot be empty")
        return code_from_dict(values, "code")

    def finish_editing(self) -> None:
        """Flush a text box that still has the focus (before switching codes or closing)."""
        for box in (self.description_edit, self.include_edit, self.exclude_edit, self.examples_edit):
            box.finish()

    # -- user actions ----------------------------------------------------------------------
    def _user_edit(self, *_: object) -> None:
        if not self._loading:
            self.edited.emit()

    def _kind_changed(self, kind: str) -> None:
        if self._loading:
            return
        rows = self.levels.rows()
        if kind == "binary":
            self.levels.set_levels(default_levels("binary"))
        elif kind == "ordinal" and not all(_is_int(r[0]) for r in rows):
            self.levels.set_levels(default_levels("ordinal"))
        self._sync_enabled()
        self.edited.emit()

    def _unit_changed(self, _unit: str) -> None:
        self._sync_enabled()

    def _clear_color(self) -> None:
        if self.color_button.color:
            self.color_button.set_color("")
            self._user_edit()

    def set_color(self, color: str) -> None:
        """Set the colour as if chosen in the colour dialog."""
        self.color_button.set_color(color)
        self._user_edit()

    def _selected_level(self) -> int:
        index = self.levels_view.currentIndex()
        return index.row() if index.isValid() else -1

    def add_level(self) -> None:
        rows = self.levels.rows()
        after = self._selected_level()
        at = after + 1 if after >= 0 else len(rows)
        if self.kind_combo.currentText() == "ordinal":
            numbers = [int(r[0]) for r in rows if _is_int(r[0])]
            value = str(max(numbers) + 1 if numbers else 1)
        else:
            taken = {r[0] for r in rows}
            n = len(rows) + 1
            while f"level_{n}" in taken:
                n += 1
            value = f"level_{n}"
        self.levels.insert_level(at, value, value)
        self.levels_view.setCurrentIndex(self.levels.index(at, 1))

    def remove_level(self) -> None:
        row = self._selected_level()
        if row >= 0:
            self.levels.remove_level(row)

    def move_level(self, delta: int) -> None:
        row = self._selected_level()
        if row >= 0 and self.levels.move_level(row, delta):
            self.levels_view.setCurrentIndex(self.levels.index(row + delta, 0))


def usage_text(usage: int) -> str:
    if not usage:
        return "not used yet"
    return f"used by {usage} coding{'s' if usage != 1 else ''} or decision{'s' if usage != 1 else ''}"


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True

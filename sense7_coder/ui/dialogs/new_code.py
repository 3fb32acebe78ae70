"""A small dialog asking for what a new code needs before it can exist: key, label, kind, levels."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...domain.codebook.codes import (
    APPLIES_TO,
    KEY_RE,
    KINDS,
    UNITS,
    Code,
    code_from_dict,
    parse_levels_spec,
)
from ...domain.errors import CodebookError
from .form_widgets import MessageLabel

DEFAULT_SPEC = {"ordinal": "1..5", "binary": "0 = absent, 1 = present", "nominal": ""}


class NewCodeDialog(QDialog):
    def __init__(self, taken_keys: Collection[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New code")
        self.setMinimumWidth(460)
        self._taken = set(taken_keys)
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("lower-case letters, digits and _, e.g. validation")
        self.label_edit = QLineEdit()
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(list(KINDS))
        self.unit_combo = QComboBox()
        self.unit_combo.addItems(list(UNITS))
        self.applies_combo = QComboBox()
        self.applies_combo.addItems(list(APPLIES_TO))
        self.levels_edit = QLineEdit(DEFAULT_SPEC["ordinal"])
        self.levels_edit.setPlaceholderText("a range like 1..5 or a list like question,advice,other")
        self.message = MessageLabel()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add code")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Key", self.key_edit)
        form.addRow("Label", self.label_edit)
        form.addRow("Kind", self.kind_combo)
        form.addRow("Unit", self.unit_combo)
        form.addRow("Applies to", self.applies_combo)
        form.addRow("Levels", self.levels_edit)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.kind_combo.currentTextChanged.connect(self._kind_changed)
        self._code: Code | None = None

    def _kind_changed(self, kind: str) -> None:
        self.levels_edit.setText(DEFAULT_SPEC.get(kind, ""))
        self.levels_edit.setEnabled(kind != "binary")

    def build(self) -> Code:
        """The new code from the fields. Raises CodebookError naming what is wrong."""
        key = self.key_edit.text().strip()
        if not KEY_RE.match(key):
            raise CodebookError(
                "the key must start with a lower-case letter and hold only lower-case letters, "
                f"digits and single _ (at most 40; '__' separates code and coder in exports), "
                f"got {key!r}"
            )
        if key in self._taken:
            raise CodebookError(f"a code with key '{key}' already exists; choose another key")
        kind = self.kind_combo.currentText()
        data: dict[str, Any] = {
            "key": key,
            "label": self.label_edit.text().strip() or key,
            "kind": kind,
            "unit": self.unit_combo.currentText(),
            "applies_to": self.applies_combo.currentText(),
        }
        if kind != "binary":  # binary codes get 0 = absent, 1 = present
            spec = self.levels_edit.text().strip()
            if not spec:
                raise CodebookError("give the levels: a range like 1..5 or a list like a,b,c")
            data["levels"] = [{"value": lv.value, "label": lv.label}
                              for lv in parse_levels_spec(spec, kind)]
        return code_from_dict(data, "new code")

    def accept(self) -> None:
        try:
            self._code = self.build()
        except CodebookError as e:
            self.message.show_message(str(e), "error")
            return
        super().accept()

    @property
    def code(self) -> Code | None:
        return self._code

"""The adjudicator's controls: a button per level (and not applicable), accept the majority,
a rationale, clear the decision."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...domain.codebook.codes import Code
from ...project.reconcile import Disagreement
from .reconcile_models import long_value

#: keys that pick a level: 1..9 are the levels in order, 0 (or N) is not applicable
LEVEL_KEYS = "123456789"
PER_ROW = 6


class DecisionBox(QGroupBox):
    """Emits what the adjudicator chose; the window writes it to the project."""

    decide = Signal(object)  # a level value, or None for not applicable
    acceptMajority = Signal()
    clearDecision = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Consensus", parent)
        self.code: Code | None = None
        self.buttons: dict[str, QPushButton] = {}  # repr(value) -> button
        self.grid = QGridLayout()
        self.grid.setSpacing(6)
        self.majority_button = QPushButton("Accept the majority  (M)", self)
        self.majority_button.setAutoDefault(False)
        self.majority_button.clicked.connect(self.acceptMajority.emit)
        self.clear_button = QPushButton("Clear decision  (Del)", self)
        self.clear_button.setAutoDefault(False)
        self.clear_button.clicked.connect(self.clearDecision.emit)
        self.rationale = QLineEdit(self)
        self.rationale.setPlaceholderText("Rationale (optional): why this value")
        self.state = QLabel(self)
        self.state.setWordWrap(True)
        actions = QHBoxLayout()
        actions.addWidget(self.majority_button)
        actions.addWidget(self.clear_button)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(self.grid)
        layout.addWidget(self.rationale)
        layout.addLayout(actions)
        layout.addWidget(self.state)

    def set_code(self, code: Code | None) -> None:
        """One button per level of ``code`` (keys 1-9), and not applicable (0 or N)."""
        if code is self.code:
            return
        self.code = code
        for b in self.buttons.values():
            self.grid.removeWidget(b)
            b.deleteLater()
        self.buttons = {}
        if code is None:
            return
        choices: list[tuple[Any, str]] = []
        for i, level in enumerate(code.levels):
            key = LEVEL_KEYS[i] if i < len(LEVEL_KEYS) else ""
            text = long_value(code, level.value)
            choices.append((level.value, f"{text}  ({key})" if key else text))
        if code.allow_na:
            choices.append((None, "not applicable  (0)"))
        for i, (value, text) in enumerate(choices):
            b = QPushButton(text, self)
            b.setCheckable(True)
            b.setAutoDefault(False)
            b.setToolTip(f"Set the consensus to {long_value(code, value)}")
            b.clicked.connect(lambda _=False, v=value: self._clicked(v))
            self.grid.addWidget(b, i // PER_ROW, i % PER_ROW)
            self.buttons[repr(value)] = b

    def _clicked(self, value: Any) -> None:
        self.decide.emit(value)

    def button_for(self, value: Any) -> QPushButton | None:
        return self.buttons.get(repr(value))

    def value_for_key(self, key: str) -> tuple[bool, Any]:
        """(found, value) for a key press: '1'..'9' a level, '0'/'N' not applicable."""
        code = self.code
        if code is None:
            return False, None
        if key in ("0", "N", "n"):
            return code.allow_na, None
        if key in LEVEL_KEYS and LEVEL_KEYS.index(key) < len(code.levels):
            return True, code.levels[LEVEL_KEYS.index(key)].value
        return False, None

    def show_state(self, d: Disagreement | None, can_decide: bool) -> None:
        """Reflect the current unit: its decision, whether a majority exists, who may act."""
        code = self.code
        decided = d.consensus if d is not None else None
        for b in self.buttons.values():
            b.setChecked(False)
            b.setEnabled(can_decide and d is not None)
        chosen = self.button_for(decided.get("value")) if decided is not None else None
        if chosen is not None:
            chosen.setChecked(True)
        if d is not None and d.has_majority:
            self.majority_button.setText(f"Accept the majority: {long_value(code, d.majority)}  (M)")
            self.majority_button.setEnabled(can_decide)
        else:
            self.majority_button.setText("No majority to accept")
            self.majority_button.setEnabled(False)
        self.clear_button.setEnabled(can_decide and decided is not None)
        self.rationale.setEnabled(can_decide and d is not None)
        if d is None:
            self.state.setText("")
        elif decided is None:
            self.state.setText("Not decided yet. Pick a level, or accept the majority."
                               if can_decide else "Not decided yet.")
        else:
            why = (f" — “{html.escape(decided['rationale'])}”" if decided.get("rationale")
                   else "")
            who = html.escape(decided.get("adjudicator") or "?")
            value = html.escape(long_value(code, decided.get("value")))
            self.state.setText(f"<b>Decided: {value}</b> by {who}{why}")

"""One code in the coding panel: its name, shortcut, scale buttons and others' values."""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...domain.codebook.codes import Code
from ..elided import WrappedLabel
from .guidance import Guidance

NOT_SET = object()  # no value coded yet (as opposed to None = not applicable)
MAX_BUTTONS = 7
DEFAULT_COLOUR = "#7a8494"


def code_colour(code: Code) -> QColor:
    return QColor(code.color or DEFAULT_COLOUR)


def code_tooltip(code: Code) -> str:
    parts = [f"<b>{html.escape(code.label)}</b>"]
    if code.shortcut:
        parts[0] += f" &nbsp;<span>(key {html.escape(code.shortcut)})</span>"
    if code.description:
        parts.append(html.escape(code.description))
    if code.include:
        parts.append(f"<b>Include:</b> {html.escape(code.include)}")
    if code.exclude:
        parts.append(f"<b>Exclude:</b> {html.escape(code.exclude)}")
    return "<p>" + "</p><p>".join(parts) + "</p>"


def level_tooltip(code: Code, index: int) -> str:
    lv = code.levels[index]
    head = f"<b>{html.escape(str(lv.value))} — {html.escape(lv.label)}</b>"
    if code.kind == "nominal" or str(lv.value) == lv.label:
        head = f"<b>{html.escape(lv.label)}</b>"
    key = "" if code.kind == "nominal" and index >= 9 else f" &nbsp;(key {_key_for(code, index)})"
    body = f"<br/>{html.escape(lv.description)}" if lv.description else ""
    return f"<p style='white-space: normal'>{head}{key}{body}</p>"


def tip_text(tip: str) -> str:
    """A tooltip's words without its markup (a button's accessible name)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", tip)).split())


def _key_for(code: Code, index: int) -> str:
    value = code.levels[index].value
    if code.kind in ("ordinal", "binary") and isinstance(value, int) and 0 <= value <= 9:
        return str(value)
    return str(index + 1)


class CodeRow(QWidget):
    """A code with its scale. Emits ``chosen(key, value)`` (None = n/a) or ``cleared(key)``."""

    chosen = Signal(str, object)
    cleared = Signal(str)
    focusRequested = Signal(str)

    def __init__(self, code: Code, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.value: Any = NOT_SET
        self.focused = False
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setToolTip(code_tooltip(code))
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

        self.title = QLabel(code.label, self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("title")
        self.key_label = QLabel(code.shortcut, self)
        self.key_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.key_label.setToolTip(f"Press {code.shortcut} to focus this code" if code.shortcut else "")
        self.value_label = QLabel(self)
        self.value_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.others_label = WrappedLabel("", self)
        self.others_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.others_label.setTextFormat(Qt.TextFormat.RichText)
        self.others_label.setWordWrap(True)  # six long names wrap instead of widening
        self.others_label.hide()
        # the focused code's guidance (description, level anchors, include/exclude), one
        # line each, folded by the panel so that every code stays in view
        self.description = Guidance(code, self)
        self.description.hide()

        self.buttons: list[QToolButton] = []
        self.na_button: QToolButton | None = None
        self.combo: QComboBox | None = None
        self.group = QButtonGroup(self)
        self.group.setExclusive(False)
        scale = QHBoxLayout()
        scale.setSpacing(2)
        if len(code.levels) > MAX_BUTTONS:
            self.combo = QComboBox(self)
            self.combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.combo.addItem("—", NOT_SET)
            for lv in code.levels:
                self.combo.addItem(lv.label, lv.value)
            if code.allow_na:
                self.combo.addItem("not applicable", None)
            self.combo.activated.connect(self._combo_chosen)
            self.combo.setAccessibleName(f"{code.label}: choose a value")
            scale.addWidget(self.combo, 1)
        else:
            for i, lv in enumerate(code.levels):
                text = str(lv.value) if code.kind == "ordinal" else lv.label
                self.buttons.append(self._button(text, level_tooltip(code, i)))
                scale.addWidget(self.buttons[-1])
            if code.allow_na:
                self.na_button = self._button("n/a", "<b>Not applicable</b> (key 0 or N): this "
                                              "code cannot be judged on this unit")
                scale.addWidget(self.na_button)
            scale.addSpacing(8)
            # the others' values sit inline beside the scale (a compact row per code)
            scale.addWidget(self.others_label, 1)
            scale.addStretch(0)  # takes the room only while no others' values show
        self.group.idClicked.connect(self._button_clicked)

        head = QHBoxLayout()
        head.setSpacing(8)
        head.addWidget(self.title, 1)
        head.addWidget(self.value_label)
        head.addWidget(self.key_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 1, 8, 2)
        layout.setSpacing(1)
        layout.addLayout(head)
        layout.addLayout(scale)
        if self.combo is not None:  # a long list of choices takes the width of the row
            layout.addWidget(self.others_label)
        layout.addWidget(self.description)
        self._restyle()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The height the row takes at its width (its word-wrapped labels would otherwise
        ask for the height of a narrow column, and push other codes out of view)."""
        hint = super().sizeHint()
        if self.width() > 0 and self.hasHeightForWidth():
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, e: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(e)
        if e.size().width() != e.oldSize().width():
            self.updateGeometry()

    def _button(self, text: str, tip: str) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setCheckable(True)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.setAutoRaise(False)
        metrics = b.fontMetrics()
        b.setMinimumSize(max(26, metrics.horizontalAdvance(text) + 14), metrics.height() + 4)
        b.setAccessibleName(f"{self.code.label}: {tip_text(tip)}")
        self.group.addButton(b, len(self.group.buttons()))
        return b

    # -- state --------------------------------------------------------------------------------
    def set_value(self, value: Any) -> None:
        self.value = value
        na_id = len(self.code.levels)
        for b in self.group.buttons():
            i = self.group.id(b)
            checked = (value is None and i == na_id) or (
                value is not NOT_SET and value is not None and i < na_id
                and self.code.levels[i].value == value
            )
            b.setChecked(checked)
        if self.combo is not None:
            i = self.combo.findData(value) if value is not NOT_SET else 0
            self.combo.setCurrentIndex(max(i, 0))
        if value is NOT_SET:
            self.value_label.setText("")
        elif self.code.kind == "ordinal" or value is None:
            self.value_label.setText(self.code.level_label(value))
        else:
            self.value_label.setText("")

    def set_others(self, text: str | None) -> None:
        """Show (rich text) what other coders chose, or hide the line."""
        self.others_label.setVisible(bool(text))
        self.others_label.setText(text or "")

    def set_focused(self, focused: bool) -> None:
        self.focused = focused
        self.description.setVisible(focused and self.description.has_content())
        self._restyle()

    def _restyle(self) -> None:
        colour = code_colour(self.code)
        if self.focused:
            tint = QColor(colour)
            tint.setAlpha(40)
            bg = f"rgba({tint.red()},{tint.green()},{tint.blue()},{tint.alpha()})"
            bar = colour.name()
            width = 5
        else:
            bg = "transparent"
            faded = QColor(colour)
            faded.setAlpha(110)
            bar = f"rgba({faded.red()},{faded.green()},{faded.blue()},{faded.alpha()})"
            width = 3
        weight = 600 if self.focused else 500
        ink = "#000000" if colour.lightness() > 165 else "#ffffff"  # readable on the code's colour
        self.setStyleSheet(
            f"CodeRow {{ background: {bg}; border-left: {width}px solid {bar}; border-radius: 3px; }}"
            f"QLabel#title {{ font-weight: {weight}; }}"
            "QToolButton { padding: 1px 4px; border-radius: 3px; "
            "border: 1px solid palette(mid); background: palette(button); }"
            f"QToolButton:checked {{ background: {colour.name()}; color: {ink}; "
            f"border: 1px solid {colour.darker(130).name()}; font-weight: 600; }}"
            "QToolButton:hover:!checked { border: 1px solid palette(highlight); }"
        )

    # -- input --------------------------------------------------------------------------------
    def _button_clicked(self, i: int) -> None:
        na_id = len(self.code.levels)
        value = None if i == na_id else self.code.levels[i].value
        self.focusRequested.emit(self.code.key)
        if value == self.value and type(value) is type(self.value):
            self.cleared.emit(self.code.key)
        else:
            self.chosen.emit(self.code.key, value)
        self.set_value(self.value)  # the panel sets the real value once it is saved

    def _combo_chosen(self, i: int) -> None:
        assert self.combo is not None
        value = self.combo.itemData(i)
        self.focusRequested.emit(self.code.key)
        if value is NOT_SET:
            self.cleared.emit(self.code.key)
        else:
            self.chosen.emit(self.code.key, value)
        self.set_value(self.value)

    def mousePressEvent(self, e: QMouseEvent) -> None:
        self.focusRequested.emit(self.code.key)
        super().mousePressEvent(e)

    # -- keys ---------------------------------------------------------------------------------
    def value_for_key(self, key: str) -> Any:
        """The value a key press means for this code; NOT_SET if the key means nothing."""
        code = self.code
        if key.upper() == "N":
            return None if code.allow_na else NOT_SET
        if not key.isdigit():
            return NOT_SET
        digit = int(key)
        if code.kind in ("ordinal", "binary"):
            if digit in code.values:
                return digit
            if digit == 0:
                return None if code.allow_na else NOT_SET
            return NOT_SET
        if digit == 0:
            return None if code.allow_na else NOT_SET
        return code.levels[digit - 1].value if digit <= len(code.levels) else NOT_SET

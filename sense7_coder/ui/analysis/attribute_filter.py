"""Filters on conversation attributes (NAME = VALUE, every one must hold), like the command
line's ``--attribute NAME=VALUE``.

The attributes are what the sources carried per conversation (the SENSE-7 tasks'
PreTaskDesiredEmpathy, PostTaskExperience_Successful, ...). One value per name: adding a
name again replaces its value.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

PairRole = int(Qt.ItemDataRole.UserRole)
NO_ATTRIBUTES = "No conversation in this project has attributes."


class AttributeFilter(QGroupBox):
    """Pick an attribute and a value, add it; the list shows the filters in force."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Conversation attributes", parent)
        self._values_of: Callable[[str], list[str]] = lambda _name: []
        self.name = QComboBox(self)
        self.name.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.name.setMinimumContentsLength(10)
        self.name.setToolTip("An attribute the conversations carry from their source")
        self.value = QComboBox(self)
        self.value.setEditable(True)
        self.value.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.value.setMinimumContentsLength(6)
        self.value.setToolTip("The value it must have (pick one, or type it)")
        self.add_button = QPushButton("Add", self)
        self.add_button.setToolTip("Keep only the conversations whose attribute has this value")
        self.list = QListWidget(self)
        self.list.setUniformItemSizes(True)
        rows = self.list.fontMetrics().height() + 6
        self.list.setFixedHeight(3 * rows + 2 * self.list.frameWidth())
        self.list.setToolTip("Conversations must match every filter listed")
        self.remove_button = QPushButton("Remove", self)
        self.clear_button = QPushButton("Clear", self)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        for b in (self.add_button, self.remove_button, self.clear_button):
            b.setAutoDefault(False)

        pick = QGridLayout()
        pick.setContentsMargins(0, 0, 0, 0)
        pick.addWidget(QLabel("Name", self), 0, 0)
        pick.addWidget(self.name, 0, 1, 1, 2)
        pick.addWidget(QLabel("Value", self), 1, 0)
        pick.addWidget(self.value, 1, 1)
        pick.addWidget(self.add_button, 1, 2)
        pick.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(pick)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addStretch(1)

        self.name.currentIndexChanged.connect(self._name_changed)
        self.value.editTextChanged.connect(self._update_buttons)
        self.add_button.clicked.connect(self.add_current)
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button.clicked.connect(self.clear)
        self.list.currentRowChanged.connect(self._update_buttons)
        self.set_names([], self._values_of)

    # -- choices ------------------------------------------------------------------------
    def set_names(self, names: list[str], values_of: Callable[[str], list[str]]) -> None:
        """The attribute names to offer; ``values_of(name)`` lists a name's values."""
        self._values_of = values_of
        wanted = self.name.currentText()
        self.name.blockSignals(True)
        self.name.clear()
        self.name.addItems(names)
        if wanted in names:
            self.name.setCurrentIndex(names.index(wanted))
        self.name.blockSignals(False)
        self.note.setText("" if names else NO_ATTRIBUTES)
        self.note.setVisible(not names)
        for w in (self.name, self.value):
            w.setEnabled(bool(names))
        self._name_changed()

    def _name_changed(self, *_: object) -> None:
        name = self.name.currentText()
        self.value.blockSignals(True)
        self.value.clear()
        if name:
            self.value.addItems(self._values_of(name))
        self.value.blockSignals(False)
        self._update_buttons()

    def _update_buttons(self, *_: object) -> None:
        self.add_button.setEnabled(bool(self.name.currentText() and self.value.currentText().strip()))
        self.remove_button.setEnabled(self.list.currentRow() >= 0)
        self.clear_button.setEnabled(self.list.count() > 0)

    # -- the filters --------------------------------------------------------------------
    def filters(self) -> dict[str, str]:
        """NAME -> VALUE, in the order added (empty = no attribute filter)."""
        out: dict[str, str] = {}
        for i in range(self.list.count()):
            name, value = self.list.item(i).data(PairRole)
            out[str(name)] = str(value)
        return out

    def set_filters(self, filters: dict[str, str]) -> None:
        self.list.clear()
        for name, value in filters.items():
            item = QListWidgetItem(f"{name} = {value}", self.list)
            item.setData(PairRole, (name, value))
        self._update_buttons()
        self.changed.emit()

    def add(self, name: str, value: str) -> None:
        """Add ``name = value`` (replacing a value already asked for ``name``)."""
        name, value = name.strip(), value.strip()
        if not name or not value:
            return
        filters = self.filters()
        filters.pop(name, None)
        filters[name] = value
        self.set_filters(filters)
        self.list.setCurrentRow(self.list.count() - 1)

    def add_current(self) -> None:
        self.add(self.name.currentText(), self.value.currentText())

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        filters = self.filters()
        filters.pop(list(filters)[row])
        self.set_filters(filters)

    def clear(self) -> None:
        if self.list.count():
            self.set_filters({})

    def summary(self) -> str:
        """'PreTaskDesiredEmpathy = 3, ...' or '' when there is no attribute filter."""
        return ", ".join(f"{k} = {v}" for k, v in self.filters().items())

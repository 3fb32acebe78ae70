"""Project › Conversation attributes: a sheet of every conversation's attributes
(participant, model, topic, the columns its source carried), sortable by any column and
filtered by a text; a lead edits a cell (saved at once, in the history), anyone else
reads. Double-click on a conversation's id goes to it."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QTableView,
    QWidget,
)

from ..domain.attributes import shown, typed_value
from ..domain.errors import ProjectError
from ..project import Project
from ..project.attributes import attribute_sheet, set_attribute
from ..project.changes import NOTHING, Changes
from .table_tools import table_window

#: columns of the sheet that are not attributes one can edit
FIXED = ("conversation_id", "turns")
_VALUE = Qt.ItemDataRole.UserRole + 1


def natural_key(text: str) -> list[tuple[int, int | str]]:
    """Text as a researcher orders it: the numbers in it by value ("c2" before "c10")."""
    return [(0, int(part)) if part.isdigit() else (1, part.casefold())
            for part in re.split(r"(\d+)", text) if part]


class _Sorted(QSortFilterProxyModel):
    """Numbers sort as numbers, text as text with its numbers by value; empty cells last."""

    def lessThan(self, left: Any, right: Any) -> bool:  # noqa: N802 (Qt's name)
        a, b = left.data(_VALUE), right.data(_VALUE)
        if a is None or b is None:
            return a is not None and b is None
        num = (int, float)
        if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool):
            return bool(a < b)
        return natural_key(str(a)) < natural_key(str(b))


class AttributesDialog(QDialog):
    goTo = Signal(str, int)  # conversation id, turn
    #: an attribute of a conversation was edited: what changed (the list and the transcript
    #: show attributes)
    edited = Signal(object)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle(f"Conversation attributes — {project.path.name}")
        self.lead = project.is_lead()
        self._quiet = False
        self.model = QStandardItemModel(self)
        self.proxy = _Sorted(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.view = QTableView(self)
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # Qt would start descending
        self.view.verticalHeader().hide()
        self.view.doubleClicked.connect(self._double_clicked)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter: text in any cell")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter_changed)
        self.column_box = QComboBox(self)
        self.column_box.currentIndexChanged.connect(
            lambda _i: self._filter_changed(self.filter.text()))
        self.count = QLabel(self)
        top = QHBoxLayout()
        top.addWidget(self.filter, 3)
        top.addWidget(QLabel("in", self))
        top.addWidget(self.column_box, 1)
        table_window(self, [top], self.view, self.count)
        self.resize(1000, 560)
        self.load()
        self.model.itemChanged.connect(self._item_changed)

    def load(self) -> None:
        self._quiet = True
        sheet = attribute_sheet(self.project)
        self.columns = list(sheet.columns)
        self.model.clear()
        self.model.setHorizontalHeaderLabels(self.columns)
        for row in sheet.itertuples(index=False):
            items = []
            for name, value in zip(self.columns, row, strict=True):
                value = None if value is None or value != value else value  # NaN: empty
                item = QStandardItem(shown(value))
                item.setData(value, _VALUE)
                editable = self.lead and name not in FIXED
                item.setEditable(editable)
                if name == "conversation_id":
                    item.setToolTip("Double-click to go to this conversation")
                items.append(item)
            self.model.appendRow(items)
        self._quiet = False
        self.column_box.blockSignals(True)
        self.column_box.clear()
        self.column_box.addItem("any column", -1)
        for i, name in enumerate(self.columns):
            self.column_box.addItem(name, i)
        self.column_box.blockSignals(False)
        self.view.resizeColumnsToContents()
        self._count()

    def show_changes(self, changes: Changes) -> None:
        """Another program changed conversations or settings: the sheet is read again."""
        if self.isVisible() and (changes.conversations or changes.everything
                                 or changes.settings or changes.coders):
            self.load()

    def _filter_changed(self, text: str) -> None:
        column = self.column_box.currentData()
        self.proxy.setFilterKeyColumn(-1 if column is None else int(column))
        self.proxy.setFilterFixedString(text)
        self._count()

    def _count(self) -> None:
        shown_n, total = self.proxy.rowCount(), self.model.rowCount()
        where = "" if shown_n == total else f" of {total}"
        how = ("double-click a cell to edit it (saved at once, in the history)" if self.lead
               else "only a lead can edit them")
        self.count.setText(f"{shown_n}{where} conversation{'s' if total != 1 else ''} · {how}")

    def _item_changed(self, item: QStandardItem) -> None:
        if self._quiet:
            return
        name = self.columns[item.column()]
        cid = self.model.item(item.row(), 0).text()
        before = item.data(_VALUE)
        value = typed_value(item.text(), before)
        try:
            changed = set_attribute(self.project, cid, name, value)
        except ProjectError as e:
            QMessageBox.warning(self, "Attribute not changed", str(e))
            changed = NOTHING
            value = before
        self._quiet = True
        item.setText(shown(value))
        item.setData(value, _VALUE)
        self._quiet = False
        if changed:
            self.edited.emit(changed)

    def _double_clicked(self, index: Any) -> None:
        source = self.proxy.mapToSource(index)
        if self.columns[source.column()] != "conversation_id":
            return
        self.goTo.emit(self.model.item(source.row(), 0).text(), 0)
        self.accept()

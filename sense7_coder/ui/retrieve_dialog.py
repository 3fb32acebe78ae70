"""Analysis › Retrieve coded units: every unit coded X (or X = a value), by a coder, in
conversations with an attribute, with its text; spans with their text and context.
Copy puts the table on the clipboard (tab-separated, with a header), Export writes it;
double-click goes to the turn in the workspace."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ..project import Project
from ..project.attributes import filter_choices
from ..project.changes import Changes
from ..project.team.tables import retrieve
from .analysis.stale import changes_figures
from .table_tools import ask_csv_path, copy_export_buttons, copy_table, table_window, write_table

COLUMNS = ("Coder", "Conversation", "Turn", "Sentence", "Value", "Text", "Context")
_ANY = object()
_NA = object()


def _filled(value: Any) -> bool:
    """A cell with something in it (not empty, None or NaN)."""
    return value is not None and value == value and str(value).strip() != ""


class RetrieveDialog(QDialog):
    goTo = Signal(str, int)  # conversation id, turn

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle(f"Retrieve coded units — {project.path.name}")
        self.code_box = QComboBox(self)
        for code in project.codebook.codes:
            self.code_box.addItem(code.label, code.key)
        self.value_box = QComboBox(self)
        self.coder_box = QComboBox(self)
        self.coder_box.addItem("Any coder", None)
        blind = project.sight().works_blind
        for c in project.coders():
            if not blind or c["name"] == project.coder:
                self.coder_box.addItem(c["name"], c["name"])
        self.attribute_box = QComboBox(self)
        self.attribute_value_box = QComboBox(self)
        self.choices = filter_choices(project)
        self.attribute_box.addItem("Any conversation", None)
        for name in self.choices:
            self.attribute_box.addItem(name, name)
        self.code_box.currentIndexChanged.connect(self._fill_values)
        self.value_box.currentIndexChanged.connect(lambda _i: self.run())
        self.coder_box.currentIndexChanged.connect(lambda _i: self.run())
        self.attribute_box.currentIndexChanged.connect(self._fill_attribute_values)
        self.attribute_value_box.currentIndexChanged.connect(lambda _i: self.run())
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for i in range(len(COLUMNS) - 2):
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.cellDoubleClicked.connect(self._go)
        self.count = QLabel(self)
        row = QHBoxLayout()
        for label, box, stretch in (("Code", self.code_box, 2), ("Value", self.value_box, 1),
                                    ("Coder", self.coder_box, 1)):
            row.addWidget(QLabel(label, self))
            row.addWidget(box, stretch)
        row2 = QHBoxLayout()
        row2.addWidget(QLabel("Conversations with", self))
        row2.addWidget(self.attribute_box, 1)
        row2.addWidget(QLabel("=", self))
        row2.addWidget(self.attribute_value_box, 1)
        row2.addStretch(1)
        self.copy_button, self.export_button = copy_export_buttons(
            self, self.copy, self.export,
            "Copy the table (tab-separated, with a header) to paste into a spreadsheet or a "
            "report")
        table_window(self, [row, row2], self.table, self.count,
                     (self.copy_button, self.export_button))
        self.resize(1100, 600)
        self._fill_attribute_values()
        self._fill_values()

    def _fill_values(self) -> None:
        code = self.project.code(self.code_box.currentData())
        self.value_box.blockSignals(True)
        self.value_box.clear()
        self.value_box.addItem("Any value", _ANY)
        for level in code.levels:
            text = str(level.value) + (f" {level.label}" if level.label else "")
            self.value_box.addItem(text, level.value)
        if code.allow_na and code.unit != "span":
            self.value_box.addItem("Not applicable", _NA)
        self.value_box.blockSignals(False)
        self.run()

    def _fill_attribute_values(self) -> None:
        name = self.attribute_box.currentData()
        self.attribute_value_box.blockSignals(True)
        self.attribute_value_box.clear()
        for value in self.choices.get(name, []) if name else []:
            self.attribute_value_box.addItem(value, value)
        self.attribute_value_box.setEnabled(bool(name))
        self.attribute_value_box.blockSignals(False)
        if hasattr(self, "frame"):
            self.run()

    def choose(self, code: str, value: Any = _ANY, coder: str | None = None,
               attribute: tuple[str, str] | None = None) -> None:
        self.code_box.setCurrentIndex(self.code_box.findData(code))
        i = self.value_box.findData(value)
        self.value_box.setCurrentIndex(max(i, 0))
        self.coder_box.setCurrentIndex(max(self.coder_box.findData(coder), 0))
        self.attribute_box.setCurrentIndex(
            max(self.attribute_box.findData(attribute[0]), 0) if attribute else 0)
        if attribute is not None:
            self.attribute_value_box.setCurrentIndex(
                max(self.attribute_value_box.findData(attribute[1]), 0))
        self.run()

    def show_changes(self, changes: Changes) -> None:
        """Codings changed (here or in another program): the table is read again."""
        if self.isVisible() and changes_figures(changes):
            self.run()

    def run(self) -> None:
        key = self.code_box.currentData()
        chosen = self.value_box.currentData()
        coder = self.coder_box.currentData()
        name = self.attribute_box.currentData()
        wanted = self.attribute_value_box.currentData()
        attributes = {name: wanted} if name and wanted is not None else None
        extra: dict[str, Any] = {"coders": [coder] if coder else None,
                                 "attributes": attributes}
        if chosen is _ANY:
            frame = retrieve(self.project, key, **extra)
        else:
            frame = retrieve(self.project, key, None if chosen is _NA else chosen, True,
                             **extra)
        self.frame = frame
        self.table.setRowCount(len(frame))
        for i, r in enumerate(frame.itertuples(index=False)):
            value = f"{r.value} {r.level_label}".strip() if r.level_label else str(r.value)
            text = " ".join(str(r.text).split())
            for j, cell in enumerate((r.coder, r.conversation_id, str(r.turn), str(r.sentence),
                                      value, text, str(r.context))):
                item = QTableWidgetItem(cell)
                if j >= len(COLUMNS) - 2:
                    item.setToolTip(str(r.text) if j == len(COLUMNS) - 2 else str(r.context))
                self.table.setItem(i, j, item)
        # a column no row fills (no sentence codes, no spans) gives its room to the text
        for j, column in ((3, "sentence"), (len(COLUMNS) - 1, "context")):
            self.table.setColumnHidden(j, not any(_filled(v) for v in frame[column]))
        n = len(frame)
        blind = self.project.sight().works_blind
        self.count.setText(f"{n} coded unit{'s' if n != 1 else ''}"
                           + (" (yours only: blind coding)" if blind else "")
                           + " · double-click one to go to it")

    def copy(self) -> None:
        copy_table(self.frame)
        self.count.setText(f"copied {len(self.frame)} rows to the clipboard")

    def export(self) -> None:
        name = ask_csv_path(self, "Export the retrieved units", "segments.csv")
        if name:
            self.export_to(name)

    def export_to(self, path: str) -> None:
        if write_table(self, self.frame, path):
            self.count.setText(f"wrote {path}: {len(self.frame)} rows")

    def _go(self, row: int, _column: int) -> None:
        r = self.frame.iloc[row]
        turn = int(r["turn"]) if str(r["turn"]) else 0
        self.goTo.emit(str(r["conversation_id"]), turn)
        self.accept()

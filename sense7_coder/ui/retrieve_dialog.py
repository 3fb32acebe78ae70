"""Analysis › Retrieve coded units: every unit coded X (or X = a value), with its text;
double-click goes to the turn in the workspace."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..project import Project
from ..project.team_tables import retrieve

COLUMNS = ("Coder", "Conversation", "Turn", "Sentence", "Value", "Text")
_ANY = object()
_NA = object()


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
        self.code_box.currentIndexChanged.connect(self._fill_values)
        self.value_box.currentIndexChanged.connect(lambda _i: self.run())
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for i in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.cellDoubleClicked.connect(self._go)
        self.count = QLabel(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Code", self))
        row.addWidget(self.code_box, 2)
        row.addWidget(QLabel("Value", self))
        row.addWidget(self.value_box, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(buttons)
        self.resize(980, 560)
        self._fill_values()

    def _fill_values(self) -> None:
        code = self.project.code(self.code_box.currentData())
        self.value_box.blockSignals(True)
        self.value_box.clear()
        self.value_box.addItem("Any value", _ANY)
        for level in code.levels:
            text = str(level.value) + (f" {level.label}" if level.label else "")
            self.value_box.addItem(text, level.value)
        if code.allow_na:
            self.value_box.addItem("Not applicable", _NA)
        self.value_box.blockSignals(False)
        self.run()

    def choose(self, code: str, value: Any = _ANY) -> None:
        self.code_box.setCurrentIndex(self.code_box.findData(code))
        i = self.value_box.findData(value)
        self.value_box.setCurrentIndex(max(i, 0))
        self.run()

    def run(self) -> None:
        key = self.code_box.currentData()
        chosen = self.value_box.currentData()
        if chosen is _ANY:
            frame = retrieve(self.project, key)
        else:
            frame = retrieve(self.project, key, None if chosen is _NA else chosen, True)
        self.frame = frame
        self.table.setRowCount(len(frame))
        for i, r in enumerate(frame.itertuples(index=False)):
            value = f"{r.value} {r.level_label}".strip() if r.level_label else str(r.value)
            text = " ".join(str(r.text).split())
            for j, cell in enumerate((r.coder, r.conversation_id, str(r.turn), str(r.sentence),
                                      value, text)):
                item = QTableWidgetItem(cell)
                if j == len(COLUMNS) - 1:
                    item.setToolTip(str(r.text))
                self.table.setItem(i, j, item)
        n = len(frame)
        blind = self.project.blind_coding and not self.project.is_lead()
        self.count.setText(f"{n} coded unit{'s' if n != 1 else ''}"
                           + (" (yours only: blind coding)" if blind else "")
                           + " · double-click one to go to it")

    def _go(self, row: int, _column: int) -> None:
        r = self.frame.iloc[row]
        turn = int(r["turn"]) if str(r["turn"]) else 0
        self.goTo.emit(str(r["conversation_id"]), turn)
        self.accept()



"""Analysis › Co-occurrence of codes: a heat map of how often codes occur together (in the
same turn, the same conversation, or in overlapping spans), or of how codes spread over a
conversation attribute (model, participant, an imported column). Copy and export as for
every table; double-click a cell to retrieve its units."""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ..domain.errors import Sense7Error
from ..project import Project
from ..project.attributes import filter_choices
from ..project.changes import Changes
from ..project.queries import codes_by_attribute_table, cooccurrence_table
from ..project.selection import Selection
from .analysis.stale import changes_figures
from .table_tools import ask_csv_path, copy_export_buttons, copy_table, table_window, write_table

SCOPES = (("Same turn", "turn"), ("Same conversation", "conversation"),
          ("Overlapping spans", "span"))
LOW = QColor("#ffffff")
HIGH = QColor("#c0392b")


def heat(value: float, top: float) -> QColor:
    """The cell colour of ``value`` on a scale from white (0) to red (``top``)."""
    t = 0.0 if top <= 0 else max(0.0, min(1.0, value / top))
    return QColor(round(LOW.red() + (HIGH.red() - LOW.red()) * t),
                  round(LOW.green() + (HIGH.green() - LOW.green()) * t),
                  round(LOW.blue() + (HIGH.blue() - LOW.blue()) * t))


class CooccurrenceDialog(QDialog):
    retrieveCode = Signal(str)  # a code key

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle(f"Co-occurrence of codes — {project.path.name}")
        self.what_box = QComboBox(self)
        self.what_box.addItem("Codes × codes", None)
        for name in filter_choices(project):
            self.what_box.addItem(f"Codes × {name}", name)
        self.scope_box = QComboBox(self)
        for label, scope in SCOPES:
            self.scope_box.addItem(label, scope)
        self.hide_unused = QCheckBox("Hide codes never present", self)
        self.hide_unused.setChecked(True)
        self.hide_unused.toggled.connect(lambda _on: self.run())
        self.what_box.currentIndexChanged.connect(lambda _i: self.run())
        self.scope_box.currentIndexChanged.connect(lambda _i: self.run())
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.cellDoubleClicked.connect(self._retrieve)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("Show", self))
        row.addWidget(self.what_box, 1)
        row.addWidget(QLabel("counted in", self))
        row.addWidget(self.scope_box, 1)
        row.addWidget(self.hide_unused)
        row.addStretch(1)
        table_window(self, [row], self.table, self.note,
                     copy_export_buttons(self, self.copy, self.export))
        self.resize(980, 620)
        self.frame = pd.DataFrame()
        self.run()

    def show_changes(self, changes: Changes) -> None:
        """Codings changed (here or in another program): the table is read again."""
        if self.isVisible() and changes_figures(changes):
            self.run()

    def run(self) -> None:
        by = self.what_box.currentData()
        scope = self.scope_box.currentData()
        self.scope_box.setEnabled(by is None)
        try:
            if by is None:
                frame = cooccurrence_table(self.project, Selection(), scope)
                note = {"turn": "Turns in which both codes are present (by any coder)",
                        "conversation": "Conversations in which both codes are present",
                        "span": "Pairs of overlapping spans of the two codes"}[scope]
                note += "; the diagonal: how often the code is present."
            else:
                frame = codes_by_attribute_table(self.project, by, Selection())
                note = f"Units (turns, or conversations for conversation codes) with each code, by {by}."
        except Sense7Error as e:
            frame = pd.DataFrame()
            note = str(e)
        if self.hide_unused.isChecked() and len(frame):
            frame = _used(frame, square=by is None)
        self.frame = frame
        self.note.setText(note + " Double-click a row to retrieve its units.")
        self._fill(frame, diagonal=by is None)

    def _fill(self, frame: pd.DataFrame, diagonal: bool) -> None:
        book = self.project.codebook
        columns = [c for c in frame.columns if c != "code"]
        self.table.clear()
        self.table.setRowCount(len(frame))
        self.table.setColumnCount(len(columns))
        label = {c.key: c.label for c in book.codes}
        self.table.setHorizontalHeaderLabels([str(c) for c in columns])
        for j, c in enumerate(columns):
            header = self.table.horizontalHeaderItem(j)
            if header is not None and str(c) in label:
                header.setToolTip(label[str(c)])
        self.table.setVerticalHeaderLabels([label.get(str(k), str(k))
                                            for k in frame.get("code", [])])
        values = frame[columns].to_numpy() if columns else None
        off = [values[i, j] for i in range(len(frame)) for j in range(len(columns))
               if not (diagonal and i == j)] if values is not None else []
        top = float(max(off)) if off else 0.0
        for i in range(len(frame)):
            for j in range(len(columns)):
                value = int(values[i, j]) if values is not None else 0
                item = QTableWidgetItem(str(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if diagonal and i == j:
                    item.setBackground(QColor("#e6e6e6"))
                    item.setToolTip("how often this code is present")
                else:
                    item.setBackground(heat(value, top))
                    if top and value / top > 0.6:
                        item.setForeground(QColor("#ffffff"))
                self.table.setItem(i, j, item)
        self.table.horizontalHeader().setMinimumSectionSize(72)
        self.table.resizeColumnsToContents()

    def copy(self) -> None:
        copy_table(self.frame)

    def export(self) -> None:
        name = ask_csv_path(self, "Export the table", "cooccurrence.csv")
        if name:
            write_table(self, self.frame, name)

    def _retrieve(self, row: int, _column: int) -> None:
        key: Any = self.frame["code"].iloc[row] if len(self.frame) else None
        if key is not None:
            self.retrieveCode.emit(str(key))


def _used(frame: pd.DataFrame, square: bool) -> pd.DataFrame:
    """The table without the codes that are never present."""
    keys = list(frame["code"])
    values = frame.drop(columns="code")
    if square:
        kept = [k for i, k in enumerate(keys) if int(values.iloc[i, i]) > 0]
        return frame[frame["code"].isin(kept)][["code", *kept]].reset_index(drop=True)
    return frame[values.sum(axis=1) > 0].reset_index(drop=True)

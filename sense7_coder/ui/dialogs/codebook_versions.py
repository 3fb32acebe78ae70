"""The codebook's versions: every recorded version (number, date, by whom, codings set under
it, what changed), the differences between any two, and the export of one (JSON or
REFI-QDA .qdc). Reads only; the versions are recorded by the codebook changes themselves."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...domain.errors import Sense7Error
from ...domain.words import count
from ...project import Project
from ...project.codebook import versions as cv
from .. import file_dialogs
from ..screen import fit_to_screen
from .form_widgets import MessageLabel

COLUMNS = ("Version", "Date (UTC)", "By", "Codings", "What changed")


class CodebookVersionsDialog(QDialog):
    """The versions of ``project``'s codebook and the differences between two."""

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle("Codebook versions")
        fit_to_screen(self, 900, 620)
        self.versions = cv.versions(project)
        self.table = self._version_table()
        self.old = QComboBox(self)
        self.new = QComboBox(self)
        for v in self.versions:
            self.old.addItem(f"version {v.number}", v.number)
            self.new.addItem(f"version {v.number}", v.number)
        if len(self.versions) >= 2:
            self.old.setCurrentIndex(len(self.versions) - 2)
        self.new.setCurrentIndex(len(self.versions) - 1)
        self.diff = QPlainTextEdit(self)
        self.diff.setReadOnly(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.diff.setFont(mono)
        self.message = MessageLabel()
        self.export_button = QPushButton("Export the newer version…")
        self.export_button.setToolTip("Write the codebook as the version on the right "
                                      "recorded it (JSON or REFI-QDA .qdc)")
        before = cv.unversioned_codings(project)
        note = QLabel(("No version yet: the first is recorded at the first codebook change "
                       "or coding." if not self.versions else
                       "A version is recorded whenever a code's label, description, levels, "
                       "anchors, include/exclude notes or examples change.")
                      + (f" {before} codings were set before versions were recorded."
                         if before else ""))
        note.setWordWrap(True)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Compare"))
        pick.addWidget(self.old)
        pick.addWidget(QLabel("with"))
        pick.addWidget(self.new)
        pick.addStretch(1)
        pick.addWidget(self.export_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 2)
        layout.addLayout(pick)
        layout.addWidget(self.diff, 3)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.old.currentIndexChanged.connect(self.show_diff)
        self.new.currentIndexChanged.connect(self.show_diff)
        self.export_button.clicked.connect(self._ask_export)
        self.export_button.setEnabled(bool(self.versions))
        self.show_diff()

    def _version_table(self) -> QTableWidget:
        table = QTableWidget(len(self.versions), len(COLUMNS), self)
        table.setHorizontalHeaderLabels(COLUMNS)
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        for row, v in enumerate(self.versions):
            cells = (str(v.number), v.at[:16].replace("T", " "), v.by or "–", str(v.codings),
                     v.changed)
            for col, text in enumerate(cells):
                table.setItem(row, col, QTableWidgetItem(text))
        table.horizontalHeader().setSectionResizeMode(len(COLUMNS) - 1,
                                                      QHeaderView.ResizeMode.Stretch)
        table.resizeColumnsToContents()
        table.resizeRowsToContents()
        return table

    def show_diff(self) -> None:
        """The differences between the two versions chosen, one line each."""
        old, new = self.old.currentData(), self.new.currentData()
        if old is None or new is None:
            self.diff.setPlainText("")
            return
        try:
            lines = cv.diff(self.project, int(old), int(new))
        except Sense7Error as e:
            self.diff.setPlainText(str(e))
            return
        head = f"Version {old} → {new}: " + (f"{count(len(lines), 'difference')} (+ added, − removed, "
                                             "~ changed: old -> new)" if lines
                                             else "no difference in what the codes mean")
        self.diff.setPlainText("\n".join([head, "", *lines]))

    def export_version(self, number: int, path: str | Path) -> bool:
        try:
            cv.export_at(self.project, number, path)
        except Sense7Error as e:
            self.message.show_message(f"Could not write {path}: {e}", "error")
            return False
        self.message.show_message(f"Exported codebook version {number} to {path}.", "ok")
        return True

    def _ask_export(self) -> None:
        number = self.new.currentData()
        if number is None:
            return
        default = str(self.project.path.with_name(f"codebook-v{number}.json"))
        path, chosen = file_dialogs.save_file(
            self, f"Export codebook version {number}", default,
            "Codebook files (*.json);;REFI-QDA codebook (*.qdc)")
        if path:
            if not Path(path).suffix:
                path += ".qdc" if "qdc" in chosen else ".json"
            self.export_version(int(number), path)

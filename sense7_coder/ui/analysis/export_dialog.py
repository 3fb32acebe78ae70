"""Export the project as a tidy table (CSV, .xlsx or .sav by the file's extension): long,
wide, consensus, agreement or codebook.

The export (:func:`sense7_coder.project.export.export_project`) runs on the TaskRunner with
its own project connection; the file appears only once complete. The filters are the
agreement window's (codes, coders, assistants, participants, conversation attributes); those
an export kind does not use are switched off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...domain.agreement_settings import AgreementSettings
from ...domain.export.kinds import EXPORT_KIND_TABLE, EXPORT_KINDS_BY_KEY
from ...domain.words import count
from ...project import Project
from ...project.export import ExportSummary, export_project
from ...project.selection import Selection
from .. import file_dialogs
from ..dialogs.form_widgets import path_row
from ..palette import error_style
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .filters import AnalysisFilters
from .settings_boxes import draws_box

#: the whole coded project for another QDA tool, offered beside every kind's table formats
QDPX_FILTER = "REFI-QDA project for other QDA tools (*.qdpx)"


class ExportDialog(QDialog):
    def __init__(self, project: Project, parent: QWidget | None = None,
                 kind: str = "long") -> None:
        super().__init__(parent)
        self.project = project
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.summary: ExportSummary | None = None
        self.error: str | None = None
        self._path_edited = False
        self.setWindowTitle(f"Export — {project.path.name}")
        self.setMinimumWidth(760)

        self.kind = QComboBox(self)
        for k in EXPORT_KIND_TABLE:
            self.kind.addItem(k.label, k.key)
            self.kind.setItemData(self.kind.count() - 1, k.description,
                                  Qt.ItemDataRole.ToolTipRole)
        self.about = QLabel(self)
        self.about.setWordWrap(True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path = QLineEdit(self)
        self.path.textEdited.connect(self._edited)
        file_row = path_row(self, self.path, "Browse…", self.browse)
        self.neutralise = QCheckBox("Neutralise spreadsheet formulas", self)
        self.neutralise.setChecked(True)
        self.neutralise.setToolTip(
            "CSV only: text cells starting with = + - @ get a leading ' so that Excel or LibreOffice show "
            "them as text instead of running them; cells already starting with ' get one more. "
            "Importing codings takes exactly one ' off again, so the file reads back exactly.")
        self.provenance = QCheckBox("Say how each value was made (provenance columns)", self)
        self.provenance.setToolTip(
            "Long, wide, consensus: add source (coded, imported, merged, suggestion_accepted, "
            "majority, adjudicated), blind, after_reveal, set_at and origin; a value changed "
            "after the reveal comes as a second value beside the blind one.")
        self.include_users = QCheckBox("Compare with the users' own ratings", self)
        self.include_users.setChecked(True)
        self.bootstrap = draws_box(self, " bootstrap draws", "no intervals")
        self.filters = AnalysisFilters(self, horizontal=True)
        self.filters.setMinimumHeight(230)
        self.filters.load(project)

        form = QFormLayout()
        form.addRow("What", self.kind)
        form.addRow("", self.about)
        form.addRow("File", file_row)
        form.addRow("", self.neutralise)
        form.addRow("", self.provenance)
        form.addRow("Agreement", self.include_users)
        form.addRow("", self.bootstrap)
        form.addRow("Filters", self.filters)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.set_kind(kind)
        self._kind_changed()

    def set_kind(self, kind: str) -> None:
        index = self.kind.findData(kind)
        if index >= 0:
            self.kind.setCurrentIndex(index)

    def _edited(self, _text: str) -> None:
        self._path_edited = True

    def _kind_changed(self, *_: object) -> None:
        kind = self.kind.currentData()
        row = EXPORT_KINDS_BY_KEY[kind]
        self.about.setText(row.description)
        for w in (self.include_users, self.bootstrap):
            w.setEnabled(kind == "agreement")
        self.provenance.setEnabled(row.provenance and kind != "final")
        self.filters.set_enabled_filters(row.selections)
        if not self._path_edited:
            suffix = Path(self.path.text()).suffix or ".csv"
            self.path.setText(str(self.project.path.with_name(
                f"{self.project.path.stem}-{kind}{suffix}")))

    def browse(self) -> None:
        row = EXPORT_KINDS_BY_KEY[self.kind.currentData()]
        name, chosen = file_dialogs.save_file(
            self, "Export to", self.path.text(), f"{row.file_filters()};;{QDPX_FILTER}")
        if name:
            suffix = next((f".{x}" for x in (*row.formats, "qdpx") if f"*.{x}" in chosen),
                          f".{row.formats[0]}")
            self.path.setText(name if Path(name).suffix else name + suffix)
            self._path_edited = True

    def export(self) -> Task | None:
        """Start the export (on the TaskRunner); None when the file name is missing."""
        if self.task is not None and not self.task.done:
            return self.task
        text = self.path.text().strip()
        if not text:
            self._error("Give the file to write.")
            return None
        empty = self.filters.empty_choice()
        if empty:
            self._error(f"No {empty} ticked: tick at least one.")
            return None
        out, kind, raw = Path(text), self.kind.currentData(), not self.neutralise.isChecked()
        provenance = self.provenance.isChecked() and self.provenance.isEnabled()
        selection = self.filters.apply_to(Selection(
            include_users=self.include_users.isChecked()))
        settings = AgreementSettings(bootstrap=self.bootstrap.value())

        qdpx = out.suffix.lower() == ".qdpx"  # the whole coded project for another QDA tool

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> Any:
            if qdpx:
                from ...project.exchange import export_qdpx

                return export_qdpx(project, out, progress=progress, cancel=cancel)
            return export_project(project, out, kind, selection, settings, raw=raw,
                                  progress=progress, cancel=cancel, provenance=provenance)

        if qdpx:
            kind = "REFI-QDA project"

        self.error = None
        self.status.setStyleSheet("")
        self.status.setText(f"Writing {out.name}…")
        self.export_button.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Export",
            label=f"Exporting {kind} to {out.name}…", on_result=self._done,
            on_error=self._failed, on_cancelled=self._cancelled,
            on_finished=lambda: self.export_button.setEnabled(True))
        return self.task

    def wait(self, timeout_s: float = 60.0) -> bool:
        return self.task is None or self.task.wait(timeout_s)

    def _done(self, summary: Any) -> None:
        self.status.setStyleSheet("")
        if not isinstance(summary, ExportSummary):  # a .qdpx project
            self.status.setText(summary.line().replace("wrote", "Wrote", 1) + ".")
            self.close_button.setFocus()
            return
        self.summary = summary
        sources = ""
        if summary.sources is not None:
            sources = " Rows by source: " + (", ".join(
                f"{n} {source}" for source, n in summary.sources.items() if n) or "none") + "."
        self.status.setText(f"Wrote {summary.path}: {count(summary.rows, 'row')}, "
                            f"{count(summary.columns, 'column')}.{sources}")
        self.close_button.setFocus()

    def _failed(self, error: TaskError) -> None:
        self._error(error.message)

    def _cancelled(self) -> None:
        self.status.setStyleSheet("")
        self.status.setText("Cancelled; no file was written.")

    def _error(self, text: str) -> None:
        self.error = text
        self.status.setStyleSheet(error_style(self))
        self.status.setText(text)

"""File › Import REFI-QDA project: a ``.qdpx`` from QualCoder, ATLAS.ti, MAXQDA or NVivo
(or sense7-coder) into the open project. Choosing the file checks it at once (nothing
written: what would come in, what is left out, or the one reason it is refused); Import
writes it in one transaction off the GUI thread."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...project import Project
from ...project.refi.importing import QdpxImportSummary, import_qdpx
from .. import file_dialogs
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project

FILTER = "REFI-QDA projects (*.qdpx);;All files (*)"


class QdpxImportDialog(QDialog):
    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.path: Path | None = None
        #: the chosen file's check has ended (tests wait for it)
        self.checked = False
        self.summary: QdpxImportSummary | None = None
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.setWindowTitle("Import a REFI-QDA project (.qdpx)")
        self.file_label = QLabel("No file chosen", self)
        choose = QPushButton("&Choose file…", self)
        choose.clicked.connect(self._ask)
        self.report = QPlainTextEdit(self)
        self.report.setReadOnly(True)
        self.report.setPlaceholderText(
            "Codes become the codebook (span codes), users coders, texts conversations "
            "(split into turns when they are 'User: ...' transcripts), coded selections "
            "spans (or turn codings), notes memos.")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.import_button = self.buttons.addButton("&Import",
                                                    QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.setEnabled(False)
        self.import_button.clicked.connect(self.start_import)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.file_label, 1)
        row.addWidget(choose)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.report, 1)
        layout.addWidget(self.buttons)
        self.resize(720, 360)

    def _ask(self) -> None:
        name = file_dialogs.open_file(self, "Choose a REFI-QDA project",
                                      str(self.project.path.parent), FILTER)
        if name:
            self.set_file(Path(name))

    def set_file(self, path: Path) -> Task:
        """Check ``path`` off the GUI thread (a dry run: every check the import makes, nothing
        kept) and say what it would bring, or why it cannot be imported."""
        self.path = path
        self.checked = False
        self.file_label.setText(str(path))
        self.import_button.setEnabled(False)
        self.report.setPlainText(f"Checking {path.name}…")

        def job(project: Project, _progress: ProgressFn, _cancel: CancelFn
                ) -> QdpxImportSummary:
            return import_qdpx(project, path, dry_run=True)

        def checked(summary: QdpxImportSummary) -> None:
            if self.path == path:
                self.report.setPlainText("\n".join(summary.lines()))
                self.import_button.setEnabled(True)
                self.checked = True

        def refused(error: TaskError) -> None:
            if self.path == path:
                self.report.setPlainText(f"Cannot be imported: {error.message}")
                self.checked = True

        return self.runner.start(with_own_project(self.project, job),
                                 title="Checking a REFI-QDA project", on_result=checked,
                                 on_error=refused, show_progress=False)

    def start_import(self) -> Task | None:
        if self.path is None:
            return None
        path = self.path

        def job(project: Project, _progress: ProgressFn, _cancel: CancelFn
                ) -> QdpxImportSummary:
            return import_qdpx(project, path)

        self.import_button.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Importing a REFI-QDA project",
            label=f"Importing {path.name}…", on_result=self._done, on_error=self._failed)
        return self.task

    def _done(self, summary: QdpxImportSummary) -> None:
        self.summary = summary
        self.project.changed_elsewhere()
        self.report.setPlainText("\n".join(summary.lines()))
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setFocus()

    def _failed(self, error: TaskError) -> None:
        self.report.setPlainText(f"Nothing was imported: {error.message}")

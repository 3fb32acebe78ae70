"""Merge coders' project files into the open project: a dry run first, then the merge.

Both runs (:func:`sense7_coder.project.merge.merging.merge`) go on the TaskRunner with their own
connection to the target. The dry run lists what would be added and every conflict; Merge
is offered only after a dry run of the same files and choice, and only when it would not be
refused.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...domain.models import Unit
from ...paths import PROJECT_SUFFIX
from ...project import Project
from ...project.merge.merging import Conflict, MergeConflicts, MergeReport, merge
from .. import file_dialogs
from ..palette import error_style
from ..screen import fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .table_model import Column, RowsModel, table_view

CONFLICT_CHOICES = (("refuse", "Refuse the merge if any value conflicts"),
                    ("keep-target", "Keep this project's values where they conflict"),
                    ("keep-source", "Take the files' values where they conflict (corrections)"),
                    ("newest", "Keep the value set last where they conflict"))

_KEPT = {"target": "this project's", "source": "the file's"}


def _where(unit: Unit) -> str:
    if unit.position == 0:
        return "whole conversation"
    return f"turn {unit.position}" + (f", sentence {unit.sentence}" if unit.sentence else "")


def _show(value: object) -> str:
    return "NA" if value is None else str(value)


def conflict_columns() -> list[Column[Conflict]]:
    return [
        Column("File", lambda c: Path(c.source).name, tooltip=lambda c: c.source),
        Column("What", lambda c: c.kind),
        Column("Coder", lambda c: c.coder or "consensus"),
        Column("Code", lambda c: c.code or "—"),
        Column("Conversation", lambda c: c.unit.conversation_id),
        Column("Where", lambda c: _where(c.unit)),
        Column("This project", lambda c: _show(c.target_value), tooltip=lambda c: _show(c.target_value)),
        Column("The file", lambda c: _show(c.source_value), tooltip=lambda c: _show(c.source_value)),
        Column("Kept", lambda c: _KEPT.get(c.kept or "", "—"), tooltip=lambda c: c.why or None),
    ]


class MergeDialog(QDialog):
    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.dry_report: MergeReport | None = None
        self.report: MergeReport | None = None
        self.merged = False
        self.error: str | None = None
        self._checked: tuple[list[str], str] | None = None
        self.setWindowTitle(f"Merge coders' files into {project.path.name}")
        fit_to_screen(self, 860, 560)

        intro = QLabel(
            "Each coder coded in a copy of this project. Add their files: the dry run shows "
            "what they would add and every unit where a coder's value differs between the "
            "files. Nothing is written until you press Merge, and then all at once.", self)
        intro.setWordWrap(True)
        self.sources = QListWidget(self)
        self.sources.setMaximumHeight(120)
        add = QPushButton("Add files…", self)
        remove = QPushButton("Remove", self)
        for b in (add, remove):
            b.setAutoDefault(False)
        add.clicked.connect(self.add_dialog)
        remove.clicked.connect(self.remove_selected)
        side = QVBoxLayout()
        side.addWidget(add)
        side.addWidget(remove)
        side.addStretch(1)
        files = QHBoxLayout()
        files.addWidget(self.sources, 1)
        files.addLayout(side)
        self.on_conflict = QComboBox(self)
        for key, text in CONFLICT_CHOICES:
            self.on_conflict.addItem(text, key)
        self.on_conflict.currentIndexChanged.connect(self._changed)
        form = QFormLayout()
        form.addRow("On conflict", self.on_conflict)
        self.output = QPlainTextEdit(self)
        self.output.setReadOnly(True)
        self.output.setPlaceholderText("Run the dry run to see what would change.")
        self.conflict_model: RowsModel[Conflict] = RowsModel(conflict_columns(), self)
        self.conflict_view = table_view(self.conflict_model, self)
        self.conflict_view.horizontalHeader().setStretchLastSection(True)
        self.conflict_label = QLabel(self)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.dry_button = self.buttons.addButton("Dry run", QDialogButtonBox.ButtonRole.ActionRole)
        self.merge_button = self.buttons.addButton("Merge", QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.dry_button.clicked.connect(self.dry_run)
        self.merge_button.clicked.connect(self.run_merge)
        self.close_button.clicked.connect(self._close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(files)
        layout.addLayout(form)
        layout.addWidget(self.output, 2)
        layout.addWidget(self.conflict_label)
        layout.addWidget(self.conflict_view, 2)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._changed()

    # -- files ---------------------------------------------------------------------------------
    def source_paths(self) -> list[str]:
        return [self.sources.item(i).text() for i in range(self.sources.count())]

    def set_sources(self, paths: list[str | Path]) -> None:
        self.sources.clear()
        self.add_sources(paths)

    def add_sources(self, paths: list[str | Path]) -> None:
        have = set(self.source_paths())
        for p in paths:
            if str(p) not in have:
                self.sources.addItem(str(p))
                have.add(str(p))
        self._changed()

    def add_dialog(self) -> None:
        names = file_dialogs.open_files(
            self, "Coders' project files", str(self.project.path.parent),
            f"sense7-coder projects (*{PROJECT_SUFFIX});;All files (*)")
        if names:
            self.add_sources(list(names))

    def remove_selected(self) -> None:
        for item in self.sources.selectedItems():
            self.sources.takeItem(self.sources.row(item))
        self._changed()

    def _changed(self, *_: object) -> None:
        """Files or the conflict choice changed: a new dry run is needed before merging."""
        ready = self._checked == (self.source_paths(), self.on_conflict.currentData())
        report = self.dry_report
        refused = (report is not None and report.conflicts
                   and self.on_conflict.currentData() == "refuse")
        self.merge_button.setEnabled(bool(ready and report is not None and not refused
                                          and report.additions and not self.merged))
        self.dry_button.setEnabled(bool(self.source_paths()))

    # -- running -------------------------------------------------------------------------------
    def _start(self, dry: bool) -> Task | None:
        if self.task is not None and not self.task.done:
            return self.task
        sources = self.source_paths()
        if not sources:
            self._error("Add the coders' project files first.")
            return None
        on_conflict = self.on_conflict.currentData()

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> MergeReport:
            try:
                return merge(project, sources, dry_run=dry, on_conflict=on_conflict,
                             progress=progress, cancel=cancel)
            except MergeConflicts as e:
                if dry:
                    return e.report
                raise

        self.error = None
        self.status.setStyleSheet("")
        self.status.setText("Checking the files…" if dry else "Merging…")
        for b in (self.dry_button, self.merge_button):
            b.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Merge",
            label=("Checking" if dry else "Merging") + f" {len(sources)} file"
                  + ("s" if len(sources) != 1 else "") + "…",
            on_result=(lambda r: self._dry_done(r, sources, on_conflict)) if dry else self._merged,
            on_error=self._failed, on_cancelled=self._cancelled, on_finished=self._changed)
        return self.task

    def dry_run(self) -> Task | None:
        """Check the files without writing anything; lists changes and conflicts."""
        return self._start(True)

    def run_merge(self) -> Task | None:
        """Merge for real (after a dry run of the same files and choice)."""
        return self._start(False)

    def wait(self, timeout_s: float = 60.0) -> bool:
        return self.task is None or self.task.wait(timeout_s)

    def _show(self, report: MergeReport) -> None:
        self.output.setPlainText("\n".join(report.lines()))
        self.conflict_model.set_rows(report.conflicts)
        n = len(report.conflicts)
        self.conflict_label.setText(f"<b>{n} conflict{'s' if n != 1 else ''}</b>" if n
                                    else "No conflicts.")

    def _dry_done(self, report: MergeReport, sources: list[str], on_conflict: str) -> None:
        self.dry_report = report
        self._checked = (sources, on_conflict)
        self._show(report)
        n = len(report.conflicts)
        if n and on_conflict == "refuse":
            self._error(f"{n} conflict{'s' if n != 1 else ''}: the merge would be refused. "
                        "Resolve them in the coders' files, or choose which values to keep.")
        elif not report.additions:
            self._message("Nothing new in these files: there is nothing to merge.")
        else:
            self._message("Dry run done; nothing was written. Press Merge to add it all.")

    def _merged(self, report: MergeReport) -> None:
        self.report = report
        self.merged = report.written
        self._show(report)
        self._message(f"Merged: {report.additions} additions written to {self.project.path.name}.")
        self.close_button.setFocus()

    def _failed(self, error: TaskError) -> None:
        self._error(error.message)

    def _cancelled(self) -> None:
        self._message("Cancelled; nothing was written.")

    def _message(self, text: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(text)

    def _error(self, text: str) -> None:
        self.error = text
        self.status.setStyleSheet(error_style(self))
        self.status.setText(text)

    def _close(self) -> None:
        if self.merged:
            self.accept()
        else:
            self.reject()

"""Coding › Assignments and packages: the lead assigns conversations to coders, sees each
coder's progress against their assignment and writes coder packages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import Sense7Error
from ..project import Project
from ..project.assignments import AssignReport, assign, progress
from ..project.changes import SETTINGS
from ..project.judgments import attribute_list
from ..project.package import PackageSummary, make_package
from ..project.suggestions.view import order_queues, set_shown_in_workspace, shown_in_workspace
from . import file_dialogs
from .palette import error_style
from .tasks import CancelFn, ProgressFn, TaskError, TaskRunner, with_own_project
from .wording import error_text

PROGRESS_COLUMNS = ("Coder", "Conversations", "Overlap", "Turns done", "Turns to code", "Done")


class TeamDialog(QDialog):
    """Assign conversations, watch each coder's progress, write coder packages."""

    #: what the dialog changed (assignments, the team's settings), as a Changes
    changed = Signal(object)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.runner = TaskRunner(self)
        self.setWindowTitle(f"Assignments and packages — {project.path.name}")
        lead = project.is_lead() or (project.coder is not None and not any(
            c["role"] == "adjudicator" for c in project.coders()))
        self.lead = lead and project.package_coder is None

        self.table = QTableWidget(0, len(PROGRESS_COLUMNS), self)
        self.table.setHorizontalHeaderLabels(PROGRESS_COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(self.fontMetrics().height() * 11)  # five coders or so
        self.empty = QLabel("No conversations are assigned yet.", self)

        coders = [c["name"] for c in project.coders() if c["role"] == "coder"]
        self.coders_edit = QLineEdit(", ".join(coders), self)
        self.coders_edit.setPlaceholderText("ana, ben, cai")
        self.overlap = QSpinBox(self)
        self.overlap.setRange(0, 100)
        self.overlap.setSuffix(" %")
        self.overlap.setValue(20)
        self.overlap.setToolTip("Share of the conversations every coder codes, for reliability")
        self.per_coder = QSpinBox(self)
        self.per_coder.setRange(0, 1_000_000)
        self.per_coder.setSpecialValueText("all selected")
        self.per_coder.setToolTip("Conversations per coder in this run (0: split them all)")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2_000_000_000)
        self.shuffle = QCheckBox("Each coder sees the conversations in an order of their own",
                                 self)
        self.by_uncertainty = QCheckBox("Then order each listed coder's queue by the model's "
                                        "uncertainty (least sure first)", self)
        self.by_uncertainty.setToolTip("Runs of a model that disagree, or the baseline's "
                                       "spread, put a conversation early in the queue")
        self.assign_button = QPushButton("Assign", self)
        self.assign_button.setAutoDefault(False)
        self.assign_button.clicked.connect(self.run_assign)
        form = QFormLayout()
        form.addRow("Coders", self.coders_edit)
        form.addRow("Overlap", self.overlap)
        form.addRow("Per coder", self.per_coder)
        form.addRow("Seed", self.seed)
        form.addRow("", self.shuffle)
        form.addRow("", self.by_uncertainty)
        form.addRow("", self.assign_button)
        self.assign_box = QGroupBox("Assign the conversations not assigned yet", self)
        self.assign_box.setLayout(form)

        self.package_coder = QComboBox(self)
        self.package_button = QPushButton("Write package…", self)
        self.package_button.setAutoDefault(False)
        self.package_button.clicked.connect(self.ask_package)
        row = QHBoxLayout()
        row.addWidget(QLabel("Coder", self))
        row.addWidget(self.package_coder, 1)
        row.addWidget(self.package_button)
        note = QLabel("A project file with only this coder's conversations, blind coding on, "
                      "without the other coders' work. Merge it back when it returns.", self)
        note.setWordWrap(True)
        box = QVBoxLayout()
        box.addLayout(row)
        box.addWidget(note)
        self.package_box = QGroupBox("Coder package", self)
        self.package_box.setLayout(box)

        self.hide_boxes: dict[str, QCheckBox] = {}
        hidden = set(project.hidden_attributes)
        blind_row = QGridLayout()
        blind_row.addWidget(QLabel("Hide until the conversation is done (and leave out of "
                                   "blind packages):", self), 0, 0, 1, 4)
        for i, (name, judged) in enumerate(attribute_list(project)):
            check = QCheckBox(f"{name} (users' judgment)" if judged else name, self)
            if judged:
                check.setToolTip("The import marked this attribute as the users' own judgment "
                                 "(a rating, feedback or survey score): hidden from blind "
                                 "coders unless you untick it")
            check.setChecked(name in hidden)
            check.toggled.connect(lambda _on: self._save_blinding())
            self.hide_boxes[name] = check
            blind_row.addWidget(check, 1 + i // 4, i % 4)
        self.require_all = QCheckBox("A turn can be marked done only when every applicable "
                                     "code has a value", self)
        self.require_all.setChecked(project.require_all_codes)
        self.require_all.toggled.connect(lambda _on: self._save_blinding())
        self.lock_revealed = QCheckBox("Lock a turn's values once they are revealed (off: a "
                                       "later change is kept beside the blind value)", self)
        self.lock_revealed.setChecked(project.lock_after_reveal)
        self.lock_revealed.toggled.connect(lambda _on: self._save_blinding())
        blind_box = QVBoxLayout()
        blind_box.addLayout(blind_row)
        blind_box.addWidget(self.require_all)
        blind_box.addWidget(self.lock_revealed)
        self.show_suggestions = QCheckBox("Show a model's suggestions on each code's row (a "
                                          "blind coder sees one after their own value and "
                                          "the reveal)", self)
        self.show_suggestions.setChecked(shown_in_workspace(project))
        self.show_suggestions.toggled.connect(self._save_suggestions)
        blind_box.addWidget(self.show_suggestions)
        self.blind_group = QGroupBox("Blind coders (the users' ratings and other coders' "
                                     "values are always hidden until done)", self)
        self.blind_group.setLayout(blind_box)

        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if not self.lead:
            self.assign_box.setEnabled(False)
            self.package_box.setEnabled(False)
            self.blind_group.setEnabled(False)
            self.status.setText(
                f"<span style='{error_style(self)}'>Only a lead (an adjudicator) can assign "
                "conversations and write packages.</span>")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.rounds_button = buttons.addButton("Calibration rounds…",
                                               QDialogButtonBox.ButtonRole.ActionRole)
        self.rounds_button.setToolTip("Each round's α per code against its threshold, what "
                                      "to discuss, and the main coding's drift")
        self.rounds_button.clicked.connect(self.show_rounds)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Progress against each coder's assignment</b>", self))
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.assign_box)
        layout.addWidget(self.package_box)
        layout.addWidget(self.blind_group)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.resize(760, 760)
        self.refresh()

    def show_rounds(self) -> None:
        from .rounds_dialog import RoundsDialog

        RoundsDialog(self.project, self).exec()

    def _save_blinding(self) -> None:
        try:
            self.project.hidden_attributes = [n for n, b in self.hide_boxes.items()
                                              if b.isChecked()]
            self.project.require_all_codes = self.require_all.isChecked()
            if self.project.lock_after_reveal != self.lock_revealed.isChecked():
                self.project.lock_after_reveal = self.lock_revealed.isChecked()
        except Sense7Error as e:
            self.status.setText(f"<span style='{error_style(self)}'>{error_text(e)}</span>")
            return
        self.changed.emit(SETTINGS)

    def _save_suggestions(self, on: bool) -> None:
        try:
            changes = set_shown_in_workspace(self.project, on)
        except Sense7Error as e:
            self.status.setText(f"<span style='{error_style(self)}'>{e}</span>")
            return
        self.changed.emit(changes)

    # -- progress ---------------------------------------------------------------------------
    def refresh(self) -> None:
        rows = progress(self.project)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            share = f"{100 * r['done'] / r['turns']:.0f} %" if r["turns"] else "–"
            cells = (r["coder"], r["conversations"], r["overlap"] or 0, r["done"], r["turns"],
                     share)
            for j, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.empty.setVisible(not rows)
        current = self.package_coder.currentText()
        self.package_coder.clear()
        self.package_coder.addItems([r["coder"] for r in rows])
        if current:
            self.package_coder.setCurrentText(current)
        self.package_button.setEnabled(bool(rows))

    def progress_rows(self) -> list[list[str]]:
        def text(i: int, j: int) -> str:
            item = self.table.item(i, j)
            return item.text() if item is not None else ""

        return [[text(i, j) for j in range(self.table.columnCount())]
                for i in range(self.table.rowCount())]

    # -- assigning --------------------------------------------------------------------------
    def run_assign(self) -> Any:
        coders = [c.strip() for c in self.coders_edit.text().split(",") if c.strip()]
        overlap = self.overlap.value() / 100
        per = self.per_coder.value() or None
        seed, shuffle = self.seed.value(), self.shuffle.isChecked()
        by_uncertainty = self.by_uncertainty.isChecked()

        def job(project: Project, progress_: ProgressFn, cancel: CancelFn
                ) -> tuple[AssignReport, list[str]]:
            progress_(0, 0)
            report = assign(project, coders, overlap=overlap, per_coder=per, seed=seed,
                            shuffle=shuffle)
            return report, order_queues(project, coders) if by_uncertainty else []

        self.assign_button.setEnabled(False)
        return self.runner.start(
            with_own_project(self.project, job), title="Assign",
            label="Assigning conversations…", on_result=self._assigned,
            on_error=self._failed, on_finished=lambda: self.assign_button.setEnabled(True))

    def _assigned(self, result: tuple[AssignReport, list[str]]) -> None:
        report, ordered = result
        self.project.changed_elsewhere()
        self.status.setText("<br>".join(report.lines() + ordered))
        self.refresh()
        self.changed.emit(report.changes)

    def _failed(self, error: TaskError) -> None:
        self.status.setText(f"<span style='{error_style(self)}'>{error.message}</span>")

    # -- packages ---------------------------------------------------------------------------
    def ask_package(self) -> None:
        coder = self.package_coder.currentText()
        if not coder:
            return
        suggested = str(self.project.path.with_name(f"{self.project.path.stem}-{coder}.sense7"))
        path, _ = file_dialogs.save_file(self, f"Package for {coder}", suggested,
                                         "sense7-coder projects (*.sense7)")
        if path:
            self.write_package(coder, Path(path))

    def write_package(self, coder: str, path: Path) -> Any:
        seed, shuffle = self.seed.value(), self.shuffle.isChecked()

        def job(project: Project, progress_: ProgressFn, cancel: CancelFn) -> PackageSummary:
            progress_(0, 0)
            return make_package(project, coder, path, shuffle=shuffle, seed=seed)

        return self.runner.start(
            with_own_project(self.project, job), title="Coder package",
            label=f"Writing {path.name}…",
            on_result=lambda s: self.status.setText(s.line()), on_error=self._failed)

"""Import conversations: pick files, preview them as they will be read, map columns and
speakers, see every problem, then import off the GUI thread with progress and Cancel.

Every choice re-runs a check (a preview of each file and a dry run against the project) on
a worker with its own project connection; Import is enabled only when the latest check is
clean, and imports exactly the files and options that were checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...domain.importers import FORMATS, MAP_FIELDS, ImportOptions
from ...domain.importers.formats import IMPORT_FORMATS, dialog_filter
from ...domain.models import ROLES
from ...domain.words import count
from ...project import Project
from ...project.imports import ImportSummary, import_files
from .. import file_dialogs
from ..screen import fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .import_check import ImportCheck, Message, check_import, counted
from .import_models import FIELD_TIPS, ChoiceDelegate, ChoiceTableModel
from .import_panels import MessageList, PreviewPanel

FILE_FILTER = dialog_filter()
AUTOMATIC = "(automatic)"
CHOOSE = "(choose a role)"
DEBOUNCE_MS = 250


class ImportDialog(QDialog):
    """Import conversation files into ``project``. After exec(), ``summary`` holds what was
    imported (None when nothing was)."""

    imported = Signal(object)  # ImportSummary

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.summary: ImportSummary | None = None
        self.check: ImportCheck | None = None
        self._paths: list[Path] = []
        self._generation = 0
        self._checked: tuple[int, list[Path], ImportOptions] | None = None
        self._check_task: Task | None = None
        self._import_task: Task | None = None
        self.runner = TaskRunner(self)
        self.setWindowTitle("Import conversations")
        fit_to_screen(self, 1180, 820)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.check_now)
        self._build()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.file_list = QListWidget()
        self.file_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.file_list.setMaximumHeight(76)
        self.add_button = QPushButton("Add files…")
        self.remove_button = QPushButton("Remove")
        self.format_combo = QComboBox()
        self.format_combo.addItems(list(FORMATS))
        for i, fmt in enumerate(IMPORT_FORMATS, start=1):
            self.format_combo.setItemData(
                i, f"{fmt.name} ({', '.join(fmt.endings)}); automatic: {fmt.sniffing}",
                Qt.ItemDataRole.ToolTipRole)
        self.format_combo.setToolTip("auto recognises the format from the file name and content")
        self.detected_label = QLabel()
        files_box = QGroupBox("Files")
        grid = QGridLayout(files_box)
        grid.addWidget(self.file_list, 0, 0, 3, 1)
        grid.addWidget(self.add_button, 0, 1)
        grid.addWidget(self.remove_button, 1, 1)
        fmt_row = QHBoxLayout()
        fmt_row.addWidget(QLabel("Format"))
        fmt_row.addWidget(self.format_combo)
        fmt_row.addSpacing(16)
        fmt_row.addWidget(self.detected_label, 1)
        grid.addLayout(fmt_row, 3, 0, 1, 2)
        hint = QLabel("Several files are imported together, all or nothing. The SENSE-7 "
                      "Tasks and Messages CSV files form one pair.")
        hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        grid.addWidget(hint, 4, 0, 1, 2)

        self.preview = PreviewPanel()
        self.preview_model = self.preview.model

        self.mapping_model = ChoiceTableModel(("Field", "Source column"), AUTOMATIC)
        self.mapping_view = self._choice_view(self.mapping_model)
        self.roles_model = ChoiceTableModel(("Speaker in the file", "Role"), CHOOSE)
        self.roles_view = self._choice_view(self.roles_model)
        self.roles_empty = QLabel()
        self.roles_empty.setWordWrap(True)
        self.roles_empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        roles_page = QWidget()
        rp = QVBoxLayout(roles_page)
        rp.addWidget(self.roles_view, 1)
        rp.addWidget(self.roles_empty)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.mapping_view, "Columns")
        self.tabs.addTab(roles_page, "Speakers")

        self.messages = MessageList()
        checks_box = QGroupBox("Checks (nothing is written until you press Import)")
        cv = QVBoxLayout(checks_box)
        cv.addWidget(self.messages)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(checks_box)
        lower.addWidget(self.tabs)
        lower.setStretchFactor(0, 3)
        lower.setStretchFactor(1, 2)
        lower.setSizes([690, 460])
        main = QSplitter(Qt.Orientation.Vertical)
        main.addWidget(self.preview)
        main.addWidget(lower)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 2)
        main.setSizes([440, 270])

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.hide()
        self.status_label = QLabel("Add the files to import.")
        self._cancel_note = ""
        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.import_button.setEnabled(False)
        bottom = QHBoxLayout()
        bottom.addWidget(self.progress)
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.buttons)

        layout = QVBoxLayout(self)
        layout.addWidget(files_box)
        layout.addWidget(main, 1)
        layout.addLayout(bottom)
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)

        self.add_button.clicked.connect(self._ask_files)
        self.remove_button.clicked.connect(self._remove_selected)
        self.format_combo.currentTextChanged.connect(self._options_changed)
        self.mapping_model.changed.connect(self._options_changed)
        self.roles_model.changed.connect(self._options_changed)
        self.import_button.clicked.connect(self.start_import)
        self.close_button.clicked.connect(self.reject)
        self._fill_mapping([])
        self._fill_roles({})
        self._show_check(None)

    def _choice_view(self, model: ChoiceTableModel) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.setItemDelegateForColumn(1, ChoiceDelegate(view))
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        view.horizontalHeader().setStretchLastSection(True)
        view.verticalHeader().setDefaultSectionSize(28)
        view.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        return view

    # -- choices ---------------------------------------------------------------------------
    @property
    def paths(self) -> list[Path]:
        return list(self._paths)

    def options(self) -> ImportOptions:
        return ImportOptions(format=self.format_combo.currentText(),
                             roles=self.roles_model.chosen(), mapping=self.mapping_model.chosen())

    def set_files(self, paths: Sequence[str | Path]) -> None:
        """Choose the files to import (replacing any chosen before) and check them."""
        self._paths = []
        for p in paths:
            path = Path(p)
            if path not in self._paths:
                self._paths.append(path)
        self.file_list.clear()
        for path in self._paths:
            item = QListWidgetItem(path.name)
            item.setToolTip(str(path))
            self.file_list.addItem(item)
        self._options_changed()

    def _ask_files(self) -> None:
        start = str(self._paths[-1].parent) if self._paths else str(self.project.path.parent)
        names = file_dialogs.open_files(self, "Choose conversation files", start, FILE_FILTER)
        if names:
            self.set_files([*self._paths, *names])

    def _remove_selected(self) -> None:
        rows = {i.row() for i in self.file_list.selectedIndexes()}
        self.set_files([p for i, p in enumerate(self._paths) if i not in rows])

    def _options_changed(self, *_: object) -> None:
        self._generation += 1
        self.import_button.setEnabled(False)
        self._timer.start()

    def _fill_mapping(self, columns: list[str]) -> None:
        current = self.mapping_model.chosen()
        rows = [(f, current.get(f)) for f in MAP_FIELDS]
        self.mapping_model.set_rows(rows, [*columns, *(v for v in current.values() if v not in columns)],
                                    FIELD_TIPS)
        self._open_editors(self.mapping_view, self.mapping_model)

    def _fill_roles(self, seen: dict[str, str | None]) -> None:
        current = self.roles_model.chosen()
        names = [*current, *(n for n in seen if n not in current)]
        self.roles_model.set_rows([(n, current.get(n) or seen.get(n)) for n in names], list(ROLES))
        self._open_editors(self.roles_view, self.roles_model)
        self.roles_view.setVisible(bool(names))
        self.roles_empty.setVisible(not names)
        self.roles_empty.setText(
            "The files give each message's role (user, assistant, system) directly; there are "
            "no speaker names to map." if self.check is not None and any(g.ok for g in self.check.groups) else
            "Speaker names (e.g. Seeker, Coach) appear here once the files have been read, "
            "so that you can say which role each one has.")

    @staticmethod
    def _open_editors(view: QTableView, model: ChoiceTableModel) -> None:
        for row in range(model.rowCount()):
            view.openPersistentEditor(model.index(row, 1))

    # -- checking ----------------------------------------------------------------------------
    def check_now(self) -> Task | None:
        """Start checking the current files and options at once (cancelling an older check)."""
        self._timer.stop()
        if self._check_task is not None and not self._check_task.done:
            self._check_task.cancel()
        self._check_task = None
        if not self._paths:
            self._checked = None
            self._show_check(None)
            self.status_label.setText("Add the files to import.")
            return None
        generation, paths, options = self._generation, list(self._paths), self.options()
        self._checked = (generation, paths, options)

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> tuple[int, ImportCheck]:
            return generation, check_import(project, paths, options, progress, cancel)

        self.status_label.setText(self._cancel_note + "Reading and checking the files…")
        self.progress.setRange(0, 0)
        self.progress.show()
        self._check_task = self.runner.start(
            with_own_project(self.project, job), title="Checking files",
            on_result=self._check_done, on_error=self._check_failed, show_progress=False)
        self._check_task.progressed.connect(self._check_progress)
        return self._check_task

    def wait_for_check(self, timeout_s: float = 30.0) -> bool:
        """Run a pending check now and wait for its outcome (tests and scripts)."""
        if self._timer.isActive() or (self._checked is None and self._paths):
            self.check_now()
        task = self._check_task
        return task is None or task.wait(timeout_s)

    def _check_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(done * 1000 // total)

    def _check_done(self, result: tuple[int, ImportCheck]) -> None:
        generation, check = result
        if generation != self._generation:
            return  # the user changed something meanwhile; a newer check is on its way
        self.progress.hide()
        self._show_check(check)

    def _check_failed(self, error: TaskError) -> None:
        self.progress.hide()
        self.check = None
        self.import_button.setEnabled(False)
        self._set_messages([Message("error", error.message)])
        self.status_label.setText("The check failed; nothing can be imported.")

    def _show_check(self, check: ImportCheck | None) -> None:
        self.check = check
        groups = check.groups if check else []
        self.preview.show_groups(groups)
        if check is None:
            self.detected_label.setText("")
            self._set_messages([])
            self.import_button.setEnabled(False)
            return
        self._fill_mapping(check.columns)
        speakers = check.speakers()
        self._fill_roles(speakers)
        if any(role is None for role in speakers.values()):
            self.tabs.setCurrentIndex(1)  # a speaker needs a role: show where to give it
        formats = sorted({g.format for g in groups})
        detected = f"Read as: {', '.join(formats)}"
        if check.summary is not None:
            detected += (f"  ·  {counted(check.summary.conversations, 'new conversation')}, "
                         f"{counted(check.summary.turns, 'turn')}")
        self.detected_label.setText(detected)
        messages = check.messages()
        self._set_messages(messages)
        errors = sum(m.kind == "error" for m in messages)
        can_import = check.ok and check.new_conversations > 0
        self.import_button.setEnabled(can_import)
        if errors:
            self.status_label.setText(
                f"{errors} problem{'s' if errors > 1 else ''} to fix before importing; "
                "nothing has been written.")
        elif can_import:
            self.status_label.setText(self._cancel_note + "Ready to import.")
        else:
            self.status_label.setText(self._cancel_note + "Nothing new to import.")

    def _set_messages(self, messages: Sequence[Message]) -> None:
        self.messages.set_messages(messages)

    def message_items(self) -> list[Message]:
        """What the messages list shows (kind, text)."""
        return self.messages.messages()

    # -- importing ---------------------------------------------------------------------------
    def start_import(self) -> Task | None:
        """Import the checked files with the checked options (only when the check was clean)."""
        check = self.check
        if (check is None or not check.ok or self._checked is None
                or self._checked[0] != self._generation or not self.import_button.isEnabled()):
            return None
        _, paths, options = self._checked

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> ImportSummary:
            return import_files(project, paths, options, progress=progress, cancel=cancel)

        self._set_busy(True)
        self._cancel_note = ""
        self.status_label.setText("Importing…")
        self._import_task = self.runner.start(
            with_own_project(self.project, job), title="Importing conversations",
            label=f"Importing {count(check.new_conversations, 'conversation')} from "
                  f"{count(len(paths), 'file')}…",
            on_result=self._import_done, on_error=self._import_failed,
            on_cancelled=self._import_cancelled)
        return self._import_task

    def _set_busy(self, busy: bool) -> None:
        for w in (self.import_button, self.add_button, self.remove_button, self.format_combo,
                  self.tabs):
            w.setEnabled(not busy)

    def _import_done(self, summary: ImportSummary) -> None:
        self.summary = summary
        self.project.changed_elsewhere()
        self._set_busy(False)
        self.import_button.setEnabled(False)
        self.close_button.setText("Close")
        lines = [Message("ok", f"Imported {counted(summary.conversations, 'conversation')} "
                               f"({counted(summary.turns, 'turn')}) into {self.project.path.name}.")]
        for f in summary.files:
            source = " + ".join(Path(s).name for s in f.source.split(" + "))
            text = (f"{source}: {counted(f.conversations, 'conversation')}, "
                    f"{counted(f.turns, 'turn')}, {counted(f.user_ratings, 'user rating')}")
            if f.already_present:
                text += f"; {f.already_present} were already there and were skipped"
            lines.append(Message("info", text))
            lines.extend(Message("warning", f"{source}: {w}") for w in f.warnings)
        self._set_messages(lines)
        self.status_label.setText(f"Done: {counted(summary.conversations, 'conversation')} imported.")
        self.imported.emit(summary)

    def _import_failed(self, error: TaskError) -> None:
        self._set_busy(False)
        self.import_button.setEnabled(False)
        self._set_messages([Message("error", f"Nothing was imported: {error.message}")])
        self.status_label.setText("The import failed; the project is unchanged.")
        if error.details:
            self.messages.item(0).setToolTip(error.details)

    def _import_cancelled(self) -> None:
        self._set_busy(False)
        # said until the next import, also after the check that follows
        self._cancel_note = "Import cancelled; nothing was written. "
        self.status_label.setText(self._cancel_note.strip())
        self._options_changed()  # check again (the project may have changed meanwhile)

    def done(self, result: int) -> None:
        if self._import_task is not None and not self._import_task.done:
            return  # the progress dialog's Cancel stops an import; it cannot be abandoned
        self._timer.stop()
        if self._check_task is not None and not self._check_task.done:
            self._check_task.cancel()
        if self.summary is not None:
            result = QDialog.DialogCode.Accepted.value
        super().done(result)

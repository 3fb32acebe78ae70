"""The codebook editor: list the project's codes, edit one at a time, save every change at once.

Every change goes through :mod:`sense7_coder.project.codebook.editing`, which refuses changes that
would orphan stored codings (a level in use, the kind of a used code, ...). A refusal is shown
above the form and the form returns to what the project holds; a form that does not validate
shows why and keeps what was typed so it can be fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListView,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...domain.codebook.codes import Code
from ...domain.errors import CodebookError, ProjectError, Sense7Error
from ...domain.words import count
from ...project import Project
from ...project.codebook import editing as ops
from .. import file_dialogs
from ..screen import fit_to_screen
from .code_form import CodeForm
from .code_list import CodeListModel
from .form_widgets import MessageLabel
from .new_code import NewCodeDialog


class CodebookEditorDialog(QDialog):
    """Edit the codebook of ``project``. Changes are saved as they are made."""

    codebook_changed = Signal()

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.changed = False
        self._reloading = False
        cb = project.codebook
        self.setWindowTitle(f"Codebook: {cb.title or cb.name}")
        fit_to_screen(self, 1040, 760)

        self.model = CodeListModel(self._persist_order)
        self.list_view = QListView()
        self.list_view.setModel(self.model)
        self.list_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list_view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list_view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list_view.setDropIndicatorShown(True)
        self.list_view.setSpacing(1)
        self.list_view.setIconSize(QSize(14, 14))
        self.add_button = QPushButton("Add…")
        self.up_button = QPushButton("Move up")
        self.down_button = QPushButton("Move down")
        self.retire_button = QPushButton("Retire")
        self.retire_button.setToolTip("Hide the code from coding; its codings stay and still export")
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Only codes nobody has used can be deleted; retire the others")

        self.message = MessageLabel()
        self.form = CodeForm()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)

        self.import_button = QPushButton("Import codebook file…")
        self.import_button.setToolTip("Add the codes of a codebook file and update the known ones")
        self.export_button = QPushButton("Export codebook file…")
        self.versions_button = QPushButton("Versions…")
        self.versions_button.setToolTip("Every version of the codebook, what changed between "
                                        "two, and the export of any")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Codes (drag to reorder; retired codes are greyed)"))
        left_layout.addWidget(self.list_view, 1)
        grid = QGridLayout()
        grid.addWidget(self.add_button, 0, 0)
        grid.addWidget(self.retire_button, 0, 1)
        grid.addWidget(self.delete_button, 0, 2)
        grid.addWidget(self.up_button, 1, 0)
        grid.addWidget(self.down_button, 1, 1)
        left_layout.addLayout(grid)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.message)
        right_layout.addWidget(scroll, 1)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 720])
        bottom = QHBoxLayout()
        bottom.addWidget(self.import_button)
        bottom.addWidget(self.export_button)
        bottom.addWidget(self.versions_button)
        bottom.addStretch(1)
        bottom.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)
            b.setDefault(False)

        self.list_view.selectionModel().currentChanged.connect(self._current_changed)
        self.form.edited.connect(self.commit)
        self.add_button.clicked.connect(self._ask_new_code)
        self.up_button.clicked.connect(lambda: self.move_current(-1))
        self.down_button.clicked.connect(lambda: self.move_current(1))
        self.retire_button.clicked.connect(lambda: self.retire_current())
        self.delete_button.clicked.connect(lambda: self.delete_current(confirm=True))
        self.import_button.clicked.connect(self._ask_import)
        self.export_button.clicked.connect(self._ask_export)
        self.versions_button.clicked.connect(self.show_versions)

        self._reload()

    # -- state -----------------------------------------------------------------------------
    def current_key(self) -> str | None:
        code = self.model.code_at(self.list_view.currentIndex().row())
        return code.key if code else None

    def select_code(self, key: str) -> None:
        row = self.model.row_of(key)
        if row >= 0:
            self.list_view.selectionModel().setCurrentIndex(
                self.model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def _usage(self, key: str) -> int:
        return ops.code_usage(self.project, key)

    def _reload(self, select: str | None = None) -> None:
        select = select or self.current_key()
        self.project.invalidate_codebook()
        self.model.set_codes(self.project.codebook.codes)
        if select is None or self.model.row_of(select) < 0:
            first = self.model.code_at(0)
            select = first.key if first else None
        self.form.load(None)
        self._reloading = True
        try:
            if select is not None:
                self.select_code(select)
        finally:
            self._reloading = False
        self._sync_buttons()

    def _sync_buttons(self) -> None:
        key = self.current_key()
        code = self.project.codebook.get(key) if key else None
        row = self.model.row_of(key) if key else -1
        self.retire_button.setEnabled(code is not None)
        self.retire_button.setText("Unretire" if code and code.retired else "Retire")
        self.delete_button.setEnabled(code is not None and self._usage(code.key) == 0)
        self.up_button.setEnabled(row > 0)
        self.down_button.setEnabled(0 <= row < self.model.rowCount() - 1)

    def _current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if not self._reloading:
            self.message.clear_message()  # it was about the code being left
        old = self.model.code_at(previous.row()) if previous.isValid() else None
        if old is not None and self.form.code is not None and self.form.code.key == old.key:
            self.commit(revert_invalid=True)
        code = self.model.code_at(current.row()) if current.isValid() else None
        if code is not None:
            code = self.project.codebook.get(code.key) or code
        self.form.load(code, self._usage(code.key) if code else 0)
        self._sync_buttons()

    def _run(self, action: Callable[[], object], done: str) -> bool:
        """Do one project change; show the refusal or ``done``. True when it was saved."""
        try:
            action()
        except (ProjectError, CodebookError) as e:
            self.project.invalidate_codebook()
            self.message.show_message(f"Not saved: {e}", "error")
            return False
        self.changed = True
        self.codebook_changed.emit()
        self.message.show_message(done, "ok")
        return True

    # -- saving the form -------------------------------------------------------------------
    def commit(self, revert_invalid: bool = False) -> bool:
        """Save the form if it differs from the project. False when refused or invalid."""
        stored = self.form.code
        if stored is None:
            return True
        try:
            code = self.form.build()
        except CodebookError as e:
            if revert_invalid:
                self.message.show_message(f"Changes to '{stored.label}' were not saved: {e}", "error")
                self.form.load(stored, self._usage(stored.key))
            else:
                self.message.show_message(f"Not saved yet: {e}", "error")
            return False
        if code == stored:
            if self.message.kind == "error" and not revert_invalid:
                self.message.clear_message()
            return True
        if not self._run(lambda: ops.update_code(self.project, code), f"Saved '{code.label}'."):
            fresh = self.project.codebook.get(stored.key) or stored
            self.form.load(fresh, self._usage(fresh.key))
            return False
        saved = self.project.codebook.get(code.key) or code
        self.form.mark_saved(saved, self._usage(saved.key))
        self.model.replace(saved)
        return True

    # -- list actions ------------------------------------------------------------------------
    def add_code(self, code: Code) -> bool:
        self.commit(revert_invalid=True)
        if self._run(lambda: ops.add_code(self.project, code), f"Added '{code.label}'."):
            self._reload(select=code.key)
            return True
        return False

    def _ask_new_code(self) -> None:
        dialog = NewCodeDialog([c.key for c in self.project.codebook.codes], self)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.code is not None:
            self.add_code(dialog.code)

    def retire_current(self, retired: bool | None = None) -> bool:
        key = self.current_key()
        if key is None:
            return False
        self.commit(revert_invalid=True)
        code = self.project.code(key)
        retire = (not code.retired) if retired is None else retired
        what = "Retired" if retire else "Brought back"
        suffix = " (hidden from coding; its codings stay)" if retire else ""
        ok = self._run(lambda: ops.retire_code(self.project, key, retire),
                       f"{what} '{code.label}'{suffix}.")
        self._reload(select=key)
        return ok

    def delete_current(self, confirm: bool = True) -> bool:
        key = self.current_key()
        if key is None:
            return False
        label = self.project.code(key).label
        if confirm:
            answer = QMessageBox.question(
                self, "Delete code", f"Delete the code '{label}' ({key})? It has no codings.")
            if answer != QMessageBox.StandardButton.Yes:
                return False
        row = self.model.row_of(key)
        ok = self._run(lambda: ops.delete_code(self.project, key), f"Deleted '{label}'.")
        neighbour = self.model.code_at(row + 1) or self.model.code_at(row - 1)
        self._reload(select=neighbour.key if ok and neighbour else key)
        return ok

    def move_current(self, delta: int) -> bool:
        key = self.current_key()
        if key is None:
            return False
        moved = self.model.move(self.model.row_of(key), delta)
        if moved:
            self.select_code(key)
        self._sync_buttons()
        return moved

    def _persist_order(self, keys: list[str]) -> bool:
        return self._run(lambda: ops.reorder_codes(self.project, keys), "Saved the new order.")

    # -- files -------------------------------------------------------------------------------
    def import_codebook_file(self, path: str | Path) -> bool:
        self.commit(revert_invalid=True)
        counts: dict[str, int] = {}
        notes: list[str] = []

        def apply() -> None:
            book = ops.read_codebook_file(path)  # never the project file itself
            result = ops.apply_codebook(self.project, book, notes)
            counts.update(added=result.added, updated=result.updated)

        ok = self._run(apply, f"Imported {Path(path).name}.")
        if ok:
            self.message.show_message(
                f"Imported {Path(path).name}: {count(counts.get('added', 0), 'code')} added, "
                f"{counts.get('updated', 0)} updated."
                + "".join(f" Note: {n[:1].upper()}{n[1:]}." for n in notes), "ok")
        self._reload()
        return ok

    def export_codebook_file(self, path: str | Path) -> bool:
        self.commit(revert_invalid=True)
        try:  # through the project layer: whole or not at all, never over a project file
            if Path(path).suffix.lower() == ".qdc":  # REFI-QDA
                from ...project.exchange import export_qdc

                export_qdc(self.project, path)
            else:
                ops.export_codebook(self.project, path)
        except Sense7Error as e:
            self.message.show_message(f"Could not write {path}: {e}", "error")
            return False
        self.message.show_message(f"Exported the codebook to {path}.", "ok")
        return True

    def _ask_import(self) -> None:
        path = file_dialogs.open_file(
            self, "Import codebook file", "", "Codebook files (*.json);;REFI-QDA codebooks (*.qdc *.qdpx);;All files (*)")
        if path:
            self.import_codebook_file(path)

    def _ask_export(self) -> None:
        name = f"{self.project.codebook.name or 'codebook'}.json"
        default = str(self.project.path.with_name(name))
        path, chosen = file_dialogs.save_file(
            self, "Export codebook file", default,
            "Codebook files (*.json);;REFI-QDA codebook (*.qdc)")
        if path:
            if not Path(path).suffix:
                path += ".qdc" if "qdc" in chosen else ".json"
            self.export_codebook_file(path)

    def show_versions(self) -> None:
        from .codebook_versions import CodebookVersionsDialog

        self.commit(revert_invalid=True)
        dialog = CodebookVersionsDialog(self.project, self)
        dialog.exec()

    # -- closing -----------------------------------------------------------------------------
    def done(self, result: int) -> None:
        self.form.finish_editing()
        self.commit(revert_invalid=True)
        super().done(result)

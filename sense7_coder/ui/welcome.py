"""The welcome screen: recent projects, new project, open, the demo."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..domain.codebook.codes import Codebook
from ..domain.errors import CodebookError, Sense7Error
from ..domain.words import count, sentence
from ..paths import PROJECT_SUFFIX
from ..resources import bundled_codebooks, resolve_codebook
from . import file_dialogs

FROM_FILE = "__file__"


class WelcomePage(QWidget):
    openPath = Signal(str)
    newProject = Signal()
    openProject = Signal()
    openDemo = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("sense7-coder", self)
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 2.0)
        font.setWeight(QFont.Weight.DemiBold)
        title.setFont(font)
        subtitle = QLabel(
            "Code human–AI conversations on the SENSE-7 empathy dimensions, beside the "
            "users' own ratings; measure and reconcile agreement.", self)
        subtitle.setWordWrap(True)
        subtitle.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.new_button = QPushButton("New project…", self)
        self.open_button = QPushButton("Open project…", self)
        self.demo_button = QPushButton("Open the demo", self)
        self.demo_button.setToolTip("A dozen fictional conversations with users' ratings and "
                                    "three coders, to try everything safely")
        for b in (self.new_button, self.open_button, self.demo_button):
            b.setMinimumHeight(b.sizeHint().height() + 8)
        self.new_button.clicked.connect(self.newProject)
        self.open_button.clicked.connect(self.openProject)
        self.demo_button.clicked.connect(self.openDemo)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.demo_button)
        buttons.addStretch(1)

        recent_label = QLabel("Recent projects", self)
        bold = QFont(recent_label.font())
        bold.setWeight(QFont.Weight.DemiBold)
        recent_label.setFont(bold)
        self.recent = QListWidget(self)
        self.recent.setAlternatingRowColors(False)
        self.recent.setStyleSheet("QListWidget::item { padding: 6px 4px; }")
        self.recent.itemActivated.connect(self._activated)
        self.empty = QLabel("No recent projects yet. Start with the demo, or create a "
                            "project and import conversations.", self)
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        column = QVBoxLayout()
        column.setSpacing(10)
        column.addWidget(title)
        column.addWidget(subtitle)
        column.addSpacing(12)
        column.addLayout(buttons)
        column.addSpacing(16)
        column.addWidget(recent_label)
        column.addWidget(self.recent)
        column.addWidget(self.empty)
        tip = QLabel("Keyboard: Ctrl+N new · Ctrl+O open · F1 lists every shortcut", self)
        tip.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        column.addSpacing(8)
        column.addWidget(tip)
        column.addStretch(1)
        holder = QWidget(self)
        holder.setLayout(column)
        holder.setMaximumWidth(720)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(40, 48, 40, 40)
        outer.addStretch(1)
        outer.addWidget(holder, 4)
        outer.addStretch(1)

    def set_recent(self, files: list[str]) -> None:
        self.recent.clear()
        for f in files:
            path = Path(f)
            exists = path.exists()
            when = ""
            if exists:
                stamp = dt.datetime.fromtimestamp(path.stat().st_mtime)
                when = f"  ·  changed {stamp:%d %b %Y, %H:%M}"
            item = QListWidgetItem(f"{path.name}\n{path.parent}{when}" if exists
                                   else f"{path.name}  (missing: open it to locate or remove "
                                        f"it)\n{path.parent}")
            item.setData(Qt.ItemDataRole.UserRole, f)
            item.setToolTip(f)
            if not exists:
                item.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText))
            self.recent.addItem(item)
        self.recent.setVisible(bool(files))
        self.empty.setVisible(not files)
        rows = sum(self.recent.sizeHintForRow(i) for i in range(min(len(files), 8)))
        self.recent.setFixedHeight(rows + 2 * self.recent.frameWidth() + 4)
        if files:
            self.recent.setCurrentRow(0)

    def _activated(self, item: QListWidgetItem) -> None:
        self.openPath.emit(item.data(Qt.ItemDataRole.UserRole))


class NewProjectDialog(QDialog):
    """Choose a codebook (bundled or a file) and where the new project file goes."""

    def __init__(self, folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New project")
        self.setMinimumWidth(520)
        self.codebook_box = QComboBox(self)
        for name in bundled_codebooks():
            try:
                book = resolve_codebook(name)
                label = f"{book.title or book.name}  ({count(len(book.active), 'code')})"
            except CodebookError:
                continue
            self.codebook_box.addItem(label, name)
        self.codebook_box.addItem("From a codebook file…", FROM_FILE)
        self.codebook_box.activated.connect(self._codebook_chosen)
        self._codebook_file: str | None = None
        self.path = QLineEdit(str(folder / f"my-study{PROJECT_SUFFIX}"), self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Codebook", self.codebook_box)
        form.addRow("Project file", row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.codebook: Codebook | None = None

    def _codebook_chosen(self, _i: int) -> None:
        if self.codebook_box.currentData() != FROM_FILE:
            return
        name = file_dialogs.open_file(
            self, "Codebook file", "",
            "Codebooks (*.json *.qdc *.qdpx);;REFI-QDA codebooks (*.qdc *.qdpx);;All files (*)")
        if not name:
            self.codebook_box.setCurrentIndex(0)
            return
        self._codebook_file = name
        self.codebook_box.setItemText(self.codebook_box.currentIndex(), Path(name).name)

    def _browse(self) -> None:
        name, _ = file_dialogs.save_file(
            self, "New project file", self.path.text(), f"sense7-coder projects (*{PROJECT_SUFFIX})")
        if name:
            if not name.endswith(PROJECT_SUFFIX):
                name += PROJECT_SUFFIX
            self.path.setText(name)

    def project_path(self) -> Path:
        text = self.path.text().strip()
        if text and not text.endswith(PROJECT_SUFFIX):
            text += PROJECT_SUFFIX
        return Path(text).expanduser()

    def accept(self) -> None:
        choice = self.codebook_box.currentData()
        try:
            source = self._codebook_file if choice == FROM_FILE else choice
            if not source:
                raise CodebookError("choose a codebook file")
            self.codebook = resolve_codebook(source)
        except CodebookError as e:
            QMessageBox.warning(self, "New project", sentence(str(e)))
            return
        path = self.project_path()
        if not path.name or path.name == PROJECT_SUFFIX:
            QMessageBox.warning(self, "New project", "Give the project file a name.")
            return
        if path.exists():
            QMessageBox.warning(self, "New project",
                                f"{path} already exists; choose another name.")
            return
        # the form stays open on any error, so nothing typed is lost
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # e.g. ~/Documents not made yet
        except OSError as e:
            QMessageBox.warning(self, "New project", f"Cannot make the folder {path.parent}: "
                                f"{e.strerror or e}. Choose another folder.")
            return
        from ..project import Project

        try:
            Project.create(path, self.codebook).close()
        except Sense7Error as e:
            QMessageBox.warning(self, "Cannot create the project", sentence(str(e)))
            return
        except OSError as e:
            QMessageBox.warning(self, "Cannot create the project",
                                f"{path}: {e.strerror or e}. Choose another folder or name.")
            return
        super().accept()


def default_folder(documents: str | Path | None, home: Path | None = None) -> Path:
    """Where a new project goes by default: the Documents folder when there is one, else
    the home folder (a Documents folder that does not exist is made only on Create)."""
    home = home or Path.home()
    if documents:
        folder = Path(documents)
        if folder.is_dir() or (folder.parent.is_dir() and folder.parent != folder):
            return folder
    return home

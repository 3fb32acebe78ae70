"""Who is coding? Pick an existing coder of the project or add a new one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import ProjectError
from ..project import Project
from ..project.project import ROLES


class CoderDialog(QDialog):
    """Lists the project's coders with their role; a name typed below creates a new one."""

    def __init__(self, project: Project, suggested: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle("Who is coding?")
        self.setMinimumWidth(380)
        intro = QLabel(
            "Everything you code in this project is recorded under your name. "
            "Choose yourself from the list, or type a new name.", self)
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setStyleSheet("QListWidget::item { padding: 3px 4px; }")
        for c in project.coders():
            item = QListWidgetItem(f"{c['name']}    ({c['role']})")
            item.setData(Qt.ItemDataRole.UserRole, c["name"])
            self.list.addItem(item)
        self.list.itemDoubleClicked.connect(lambda _i: self.accept())
        rows = max(1, min(self.list.count(), 8))
        self.list.setMaximumHeight(self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 6
                                   if self.list.count() else 40)
        self.list.currentItemChanged.connect(self._picked)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText("Your name or initials")
        self.role = QComboBox(self)
        self.role.addItems(list(ROLES))
        self.role.setToolTip("Adjudicators may also record the consensus value of a unit")
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Role", self.role)
        note = QLabel("The role of an existing coder is kept unless you change it here.", self)
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Code as this coder")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        if self.list.count():
            layout.addWidget(self.list)
        else:
            self.list.hide()
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self._initial_role: str | None = None
        if suggested:
            self.name.setText(suggested)
            for i in range(self.list.count()):
                if self.list.item(i).data(Qt.ItemDataRole.UserRole) == suggested:
                    self.list.setCurrentRow(i)
        self.name.setFocus()
        self.name.selectAll()

    def _picked(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        self.name.setText(name)
        role = self.project.coder_role(name) or "coder"
        self._initial_role = role
        self.role.setCurrentText(role)

    def coder_name(self) -> str:
        return self.name.text().strip()

    def accept(self) -> None:
        name = self.coder_name()
        if not name:
            QMessageBox.information(self, "Who is coding?", "Please type a name or choose one.")
            return
        existing = {c["name"]: c["role"] for c in self.project.coders()}
        role = self.role.currentText()
        try:
            if name in existing and existing[name] == role:
                self.project.set_coder(name)
            else:
                self.project.set_coder(name, role)
        except ProjectError as e:
            QMessageBox.warning(self, "Who is coding?", str(e))
            return
        super().accept()

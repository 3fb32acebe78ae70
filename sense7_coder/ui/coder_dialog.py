"""Who is coding? Pick an existing coder of the project or add a new one (always a coder).

Roles are changed apart from choosing who codes, by a lead only: the *Roles* box acts on
the coder selected in the list and is greyed for everyone else. Taking a lead identity asks
for the lead passphrase where the project has one.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import ProjectError
from ..domain.words import sentence
from ..project import Project
from ..project.coders import ROLES
from ..project.identity import PassphraseNeeded
from .wording import error_text

#: asks the lead passphrase for a name; None when the person cancels (tests replace it)
PassphraseAsker = Callable[[QWidget | None, str], str | None]


def ask_passphrase(parent: QWidget | None, name: str) -> str | None:
    text, ok = QInputDialog.getText(
        parent, "Lead passphrase", f"'{name}' is a lead of this project. Lead passphrase:",
        QLineEdit.EchoMode.Password)
    return text if ok else None


def take_identity(project: Project, name: str, parent: QWidget | None,
                  asker: PassphraseAsker | None = None) -> bool:
    """Code as ``name``, asking the lead passphrase when it is needed; False when the person
    cancelled. A wrong passphrase raises :class:`ProjectError`."""
    try:
        project.set_coder(name)
    except PassphraseNeeded:
        passphrase = (asker or ask_passphrase)(parent, name)
        if passphrase is None:
            return False
        project.set_coder(name, passphrase=passphrase)
    return True


class CoderDialog(QDialog):
    """Lists the project's coders with their role; a name typed below creates a new coder."""

    def __init__(self, project: Project, suggested: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.asker: PassphraseAsker | None = None  # None: ask_passphrase
        self.setWindowTitle("Who is coding?")
        self.setMinimumWidth(420)
        package = project.package_coder
        intro = QLabel(
            f"This is the coder package of <b>{_escape(package)}</b>: it codes only as "
            f"{_escape(package)}." if package else
            "Everything you code in this project is recorded under your name. "
            "Choose yourself from the list, or type a new name (a new name is a coder).", self)
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setStyleSheet("QListWidget::item { padding: 3px 4px; }")
        self.list.itemDoubleClicked.connect(lambda _i: self.accept())
        self.list.currentItemChanged.connect(self._picked)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText("Your name or initials")
        self.name.textEdited.connect(self._typed)
        form = QFormLayout()
        form.addRow("Name", self.name)

        self.roles_box = QGroupBox("Roles (a lead's to change)", self)
        self.role = QComboBox(self)
        self.role.addItems(list(ROLES))
        self.role.setToolTip("Adjudicators lead the study: they see what blind coding hides "
                             "and may record the consensus")
        self.role_button = QPushButton("Give the selected coder this role", self)
        self.role_button.setAutoDefault(False)
        self.role_button.clicked.connect(self.change_role)
        self.passphrase_button = QPushButton("Lead passphrase…", self)
        self.passphrase_button.setAutoDefault(False)
        self.passphrase_button.setToolTip(
            "Asked whenever someone takes a lead identity here; it keeps out casual peeking "
            "and accidents, not someone who edits the file with other tools")
        self.passphrase_button.clicked.connect(self.change_passphrase)
        row = QHBoxLayout()
        row.addWidget(self.role)
        row.addWidget(self.role_button, 1)
        roles = QVBoxLayout(self.roles_box)
        roles.addLayout(row)
        roles.addWidget(self.passphrase_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.roles_note = QLabel(self)
        self.roles_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.roles_note.setWordWrap(True)
        roles.addWidget(self.roles_note)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Code as this coder")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addLayout(form)
        layout.addWidget(self.roles_box)
        layout.addWidget(buttons)
        self._fill()
        if package:
            self.name.setText(package)
            self.name.setReadOnly(True)
            self.roles_box.hide()
        elif suggested:
            self.name.setText(suggested)
            self._select(suggested)
        self.name.setFocus()
        self.name.selectAll()

    # -- the list -------------------------------------------------------------------------
    def _fill(self) -> None:
        current = self.list.currentItem()
        selected = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        blocked = self.list.blockSignals(True)
        self.list.clear()
        for c in self.project.coders():
            item = QListWidgetItem(f"{c['name']}    ({c['role']})")
            item.setData(Qt.ItemDataRole.UserRole, c["name"])
            self.list.addItem(item)
        self.list.blockSignals(blocked)
        self.list.setVisible(self.list.count() > 0)
        rows = max(1, min(self.list.count(), 8))
        self.list.setMaximumHeight(self.list.sizeHintForRow(0) * rows
                                   + 2 * self.list.frameWidth() + 6 if self.list.count() else 40)
        if selected:
            self._select(selected)
        self._update_roles()

    def _select(self, name: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(i)

    def _picked(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.name.setText(item.data(Qt.ItemDataRole.UserRole))
        self._update_roles()

    def _typed(self, text: str) -> None:
        """A typed name that is not the selected coder's leaves the list: it is who will
        code, never whose role the Roles box changes."""
        if self.selected_coder() not in (None, text.strip()):
            self.list.setCurrentRow(-1)
            self.list.clearSelection()

    def selected_coder(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _may_lead(self) -> bool:
        """Whether the person now at the file may change roles (a lead, or anyone while
        the study has no lead yet)."""
        try:
            self.project.require_lead("change roles")
        except ProjectError:
            return False
        return True

    def _update_roles(self) -> None:
        lead = self._may_lead()
        selected = self.selected_coder()
        self.role.setEnabled(lead and selected is not None)
        self.role_button.setEnabled(lead and selected is not None)
        self.passphrase_button.setEnabled(lead)
        if selected is not None:
            self.role.setCurrentText(self.project.coder_role(selected) or "coder")
        if not lead:
            self.roles_note.setText("Only a lead (an adjudicator) changes roles: code as a "
                                    "lead to change one.")
        elif selected is None:
            self.roles_note.setText("Select a coder in the list to change their role.")
        else:
            state = "set" if self.project.lead_passphrase_set else "not set"
            self.roles_note.setText(f"Lead passphrase: {state}.")

    # -- a lead's controls --------------------------------------------------------------------
    def change_role(self) -> None:
        name = self.selected_coder()
        if name is None:
            return
        try:
            self.project.set_role(name, self.role.currentText())
        except ProjectError as e:
            QMessageBox.warning(self, "Roles", sentence(error_text(e)))
        self._fill()

    def change_passphrase(self) -> None:
        first, ok = QInputDialog.getText(
            self, "Lead passphrase", "New lead passphrase (leave empty to remove it):",
            QLineEdit.EchoMode.Password)
        if not ok:
            return
        if first:
            again, ok = QInputDialog.getText(self, "Lead passphrase", "Type it again:",
                                             QLineEdit.EchoMode.Password)
            if not ok:
                return
            if again != first:
                QMessageBox.warning(self, "Lead passphrase", "The two did not match; nothing "
                                    "was changed.")
                return
        try:
            self.project.set_lead_passphrase(first or None)
        except ProjectError as e:
            QMessageBox.warning(self, "Lead passphrase", sentence(error_text(e)))
        self._update_roles()

    # -- choosing who codes ---------------------------------------------------------------------
    def coder_name(self) -> str:
        return self.name.text().strip()

    def accept(self) -> None:
        name = self.coder_name()
        if not name:
            QMessageBox.information(self, "Who is coding?", "Please type a name or choose one.")
            return
        try:
            if not take_identity(self.project, name, self, self.asker):
                return
        except ProjectError as e:
            QMessageBox.warning(self, "Who is coding?", sentence(error_text(e)))
            return
        super().accept()


def _escape(text: str | None) -> str:
    from html import escape

    return escape(text or "")

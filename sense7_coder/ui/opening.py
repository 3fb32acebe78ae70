"""What opening a project asks and says around the main window: a recent project that
moved, a data file opened as a project (offered for import), the notes of what lay beside
the file, the backup made on opening, and who codes in this window (never, without
asking, a coder another window on the file writes as)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ..domain.errors import Sense7Error
from ..domain.importers.formats import importable
from ..domain.words import sentence
from ..project import Project
from .coder_dialog import take_identity
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .analysis.menu import AnalysisMenu
    from .settings import Settings
    from .who_codes import Presence


class OpeningWindow(Protocol):
    """What opening asks of the main window (:class:`.main_window.MainWindow`)."""

    settings: Settings
    project: Project | None
    presence: Presence
    analysis: AnalysisMenu
    notes_box: QMessageBox | None
    backups: TaskRunner | None

    def open_project(self, path: str | Path, coder: str | None = None) -> bool: ...
    def ask_location(self, path: Path) -> str: ...
    def ask_coder(self, project: Project, suggested: str | None) -> bool: ...
    def confirm_same_coder(self, project: Project, same: list[Any]) -> bool: ...
    def show_welcome(self) -> None: ...
    def show_message(self, text: str, ms: int = 6000) -> None: ...
    def import_conversations(self, files: list[Path] | None = None) -> None: ...
    def new_project(self) -> None: ...
    def window(self) -> QWidget:
        """The window itself, as a widget: the parent of what opening shows."""


def locate_missing(window: OpeningWindow, path: Path) -> bool:
    """A recent project no longer where it was: locate it (and open it), or take it off
    the list. True when it was opened."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Project not found",
                      f"{path.name} is no longer at {path.parent}.", parent=window.window())
    box.setInformativeText("It may have been moved, renamed or deleted. Locate it, or "
                           "remove it from the recent projects.")
    locate = box.addButton("Locate…", QMessageBox.ButtonRole.AcceptRole)
    remove = box.addButton("Remove from the list", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    if clicked is remove:
        window.settings.remove_recent(path)
    elif clicked is locate:
        found = window.ask_location(path)
        if found:
            window.settings.remove_recent(path)
            if window.open_project(found):
                return True
    if window.project is None:
        window.show_welcome()
    return False


def show_notes(window: OpeningWindow, project: Project) -> None:
    """What opening found beside the project (a journal set aside, a sync client's
    conflicted copies to merge...), in a message that does not stop the window."""
    box = QMessageBox(QMessageBox.Icon.Information, "Found beside the project",
                      "\n\n".join(project.notes), QMessageBox.StandardButton.Ok, window.window())
    copies = project.conflicted_copies()
    if copies:
        merge = box.addButton("Merge them…", QMessageBox.ButtonRole.AcceptRole)
        merge.clicked.connect(lambda: window.analysis.merge_files(copies))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setObjectName("besideNotes")
    box.open()
    window.notes_box = box


def back_up_later(window: OpeningWindow, path: Path) -> None:
    """The project's backup on opening (when one is due), copied on a worker thread so
    that the window is there at once."""
    if window.backups is None:
        window.backups = TaskRunner(window.window())

    def saved(target: Path | None) -> None:
        if target is not None:
            window.show_message(f"Backup saved in {target.parent.name}", 5000)

    window.backups.start(lambda _progress, _cancel: Project.back_up(path),
                         title="Backup", on_result=saved, show_progress=False,
                         on_error=lambda e: window.show_message(
                             f"Could not back up {path.name}: {e.message}", 10000))


def offer_import(window: OpeningWindow, path: Path, error: str) -> bool:
    """A conversations file opened as a project: say so and offer to import it (into the
    open project, or a new one). True when the question was asked."""
    if not importable(path.name) or "not an SQLite file" not in error:
        return False
    where = ("into the open project" if window.project is not None
             else "into a new project (create it first)")
    box = QMessageBox(QMessageBox.Icon.Information, "This is a data file, not a project",
                      f"{path.name} holds conversations or ratings, not a sense7-coder "
                      "project.", parent=window.window())
    box.setInformativeText(f"Import it {where} with File › Import conversations…")
    go = box.addButton("Import…" if window.project is not None else "New project…",
                       QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    if box.clickedButton() is go:
        if window.project is not None:
            window.import_conversations([path])
        else:
            window.new_project()
    return True


def choose_coder(window: OpeningWindow, project: Project, coder: str | None) -> bool:
    """Who codes in this window; never, without asking, a coder another window on the
    file (in any program) writes as."""
    chosen = pick_coder(window, project, coder)
    for _ in range(5):
        same = window.presence.same_coder(project) if chosen else []
        if not same or window.confirm_same_coder(project, same):
            return chosen
        if project.package_coder is not None:  # a package codes only as its coder
            return False
        chosen = window.ask_coder(project, None)
    return False


def pick_coder(window: OpeningWindow, project: Project, coder: str | None) -> bool:
    """The coder remembered or given, taken where no other window codes on the file;
    else asked for."""
    if project.package_coder is not None:  # a package codes only as its coder
        return True
    known = {c["name"] for c in project.coders()}
    remembered = window.settings.last_coder(project.path)
    if not coder and (open_in_another_window(window, project.path)
                      or window.presence.others(project)):
        # two people at one machine (or two programs): the second window asks
        return window.ask_coder(project, None)
    try:
        if coder:
            return take_identity(project, coder, window.window()) or window.ask_coder(project, coder)
        if remembered and remembered in known:
            return (take_identity(project, remembered, window.window())
                    or window.ask_coder(project, remembered))
    except Sense7Error as e:
        QMessageBox.warning(window.window(), "Who is coding?", sentence(str(e)))
    return window.ask_coder(project, remembered)


def open_in_another_window(window: OpeningWindow, path: Path) -> bool:
    """Does another window of this program have ``path`` open?"""
    for widget in QApplication.topLevelWidgets():
        other = getattr(widget, "project", None) if isinstance(widget, type(window)) else None
        if widget is not window and other is not None and other.path.resolve() == path.resolve():
            return True
    return False


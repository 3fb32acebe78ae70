"""A window's place in the file's record of open windows (see :mod:`..project.windows`):
it records itself when it takes a coder, follows a switch of coder, leaves when it
closes; and the questions a window asks from that record -- who is coding, when another
window is open on the file (in any program), and whether to write as a coder another
window writes as already."""

from __future__ import annotations

import contextlib
from html import escape

from PySide6.QtWidgets import QMessageBox, QWidget

from ..domain.errors import Sense7Error
from ..project import Project
from ..project import windows as project_windows
from ..project.windows import OpenWindow


class Presence:
    """This window's row in the record (none while no project is open)."""

    def __init__(self) -> None:
        self.id: int | None = None

    def others(self, project: Project) -> list[OpenWindow]:
        """The other windows open on the file (none when the record cannot be read)."""
        try:
            return project_windows.others(project, self.id)
        except Sense7Error:
            return []

    def same_coder(self, project: Project) -> list[OpenWindow]:
        try:
            return project_windows.same_coder(project, project.coder, self.id)
        except Sense7Error:
            return []

    def enter(self, project: Project) -> None:
        """Record this window as coding as the project's coder (a file that cannot take
        the record -- busy for long -- is coded without it: nothing else depends on it)."""
        self.id = None
        if project.coder is not None:
            try:
                self.id = project_windows.enter(project, project.coder)
            except Sense7Error:
                self.id = None

    def switch(self, project: Project) -> None:
        if project.coder is None:
            return
        if self.id is None:
            self.enter(project)
            return
        with contextlib.suppress(Sense7Error):
            self.id = project_windows.switch(project, self.id, project.coder)

    def leave(self, project: Project) -> None:
        window, self.id = self.id, None
        if window is not None:
            with contextlib.suppress(Sense7Error):  # left: the next window deletes it
                project_windows.leave(project, window)


def confirm_same_coder(parent: QWidget, project: Project, same: list[OpenWindow]) -> bool:
    """Ask before this window writes as a coder another open window writes as."""
    coder = escape(project.coder or "")
    where = "<br>".join(escape(w.line()) for w in same)
    box = QMessageBox(QMessageBox.Icon.Warning, "Already coding in another window",
                      f"<b>{coder}</b> is already coding in another window on "
                      f"{escape(project.path.name)}:<br>{where}", parent=parent)
    box.setInformativeText(
        f"Both windows would write as {coder}: a value set in one replaces the other's, "
        "and the history cannot tell them apart. Code as someone else here, or go on as "
        f"{coder} in both windows.")
    go_on = box.addButton(f"Code as {coder} here too", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setObjectName("sameCoder")
    box.exec()
    return box.clickedButton() is go_on

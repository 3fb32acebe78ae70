"""Coding › Team folder: the lead links the project to a folder a sync service carries,
invites coders and sees, per coder, when her files last arrived, what was applied and what
was refused and why; a coder sees what she sent and whether the lead has read it. The
window's poll syncs whenever something moved (project/team/view.py decides, cheaply).

Installed on a window by :func:`install` (menu item and poll timer)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import Sense7Error
from ..project.changes import Changes
from ..project.team.view import TeamView, TeamWatch, team_view
from . import file_dialogs
from .palette import error_style
from .wording import error_text

POLL_MS = 2000
LEAD_COLUMNS = ("Coder", "Computers", "Files applied", "Refused", "Last arrived",
                "Why the last was refused")
CODER_COLUMNS = ("Coder", "Files sent", "Not yet read by the lead", "Last sent")


def install(win: Any) -> TeamWatch:
    """Add *Team folder…* to the window's Coding menu and sync on a poll of its own."""
    watch = TeamWatch()
    action = QAction("Team &folder…", win)
    action.setStatusTip("Code together through a folder Dropbox, OneDrive, Nextcloud, "
                        "Syncthing or a network share carries")
    action.triggered.connect(lambda: TeamFolderDialog(win, watch).exec())
    menu = win.menus["coding"]
    after = win.actions_.all.get("team")
    actions = menu.actions()
    index = actions.index(after) + 1 if after in actions else len(actions)
    menu.insertAction(actions[index] if index < len(actions) else None, action)
    timer = QTimer(win, interval=POLL_MS)
    timer.timeout.connect(lambda: poll(win, watch))
    timer.start()
    win.team_watch = watch
    return watch


def poll(win: Any, watch: TeamWatch, force: bool = False) -> None:
    project = getattr(win, "project", None)
    if project is None or (QApplication.activeModalWidget() is not None and not force):
        return
    try:
        report = watch.poll(project, force)
    except Sense7Error as e:
        watch.error = error_text(e)
        return
    except OSError as e:  # the folder unreachable (a network share away): try again later
        watch.error = str(e)
        return
    watch.error = ""
    if report is None:
        return
    if report.side == "lead" and report.applied:
        win.publish_changes(Changes(everything=True), outside=True)
        win.show_message("Team folder: " + "; ".join(
            f"{n} change file(s) from {c}" for c, n in sorted(report.applied.items())), 8000)
    elif report.refused:
        win.show_message(f"Team folder: {len(report.refused)} file(s) refused "
                         "(Coding › Team folder…)", 8000)


class TeamFolderDialog(QDialog):
    def __init__(self, win: Any, watch: TeamWatch, parent: QWidget | None = None) -> None:
        super().__init__(parent or win)
        self.win, self.watch = win, watch
        self.setWindowTitle("Team folder")
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 0, self)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.lines = QLabel(self)
        self.lines.setWordWrap(True)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        self.link_button = QPushButton("&Link to a folder…", self)
        self.invite_button = QPushButton("&Invite a coder…", self)
        self.sync_button = QPushButton("&Sync now", self)
        self.take_button = QPushButton("Take the lead's &new package", self)
        self.take_button.setToolTip("Closes the project, moves your work into the package "
                                    "the lead sent (new assignments or codebook) and opens "
                                    "it again")
        self.take_button.clicked.connect(self.take_package)
        for b in (self.link_button, self.invite_button, self.sync_button, self.take_button):
            buttons.addWidget(b)
        self.link_button.clicked.connect(self.link)
        self.invite_button.clicked.connect(self.invite)
        self.sync_button.clicked.connect(self.sync_now)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (self.summary, self.table, self.lines, self.message):
            layout.addWidget(w)
        layout.addLayout(buttons)
        layout.addWidget(close)
        self.resize(760, 360)
        self.refresh()

    def refresh(self) -> None:
        project = self.win.project
        view = team_view(project, self.watch.keys) if project is not None else None
        self.link_button.setVisible(view is None and project is not None
                                    and project.package_coder is None)
        self.invite_button.setVisible(view is not None and view.side == "lead")
        self.sync_button.setEnabled(view is not None)
        self.take_button.setVisible(self.watch.new_package)
        if view is None:
            self.summary.setText("This project is not linked to a team folder. A lead links "
                                 "it here; a coder joins from her invitation with "
                                 "'sense7-coder team join'.")
            self.table.setRowCount(0)
            return
        self.summary.setText(self._summary(view))
        self._fill(view)
        report = self.watch.report
        self.lines.setText(
            f"Last sync {self.watch.when}: " + "; ".join(map(short_names, report.lines()[:8]))
            if report else "")
        if self.watch.error:
            self.message.setStyleSheet(error_style())
            self.message.setText(self.watch.error)

    @staticmethod
    def _summary(view: TeamView) -> str:
        if view.side == "lead":
            return (f"Linked to {view.folder}. Each coder's changes arrive sealed to you; "
                    "they are applied as a merge of her package would apply them.")
        return (f"Joined through {view.folder}. Your changes go to the lead sealed to the "
                "lead alone; files the lead has read are taken out of the folder.")

    def _fill(self, view: TeamView) -> None:
        if view.side == "lead":
            columns: tuple[str, ...] = LEAD_COLUMNS
            rows: list[tuple[Any, ...]] = [
                (r["coder"], r["machines"], r["applied"], r["refused"],
                 r["last"][:16].replace("T", " "), short_names(r["why"])) for r in view.rows]
        else:
            columns = CODER_COLUMNS
            rows = [(r["coder"], r["sent"], r["unread"], r["last"][:16].replace("T", " "))
                    for r in view.rows]
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(list(columns))
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(str(value)))
        self.table.horizontalHeader().setSectionResizeMode(
            len(columns) - 1, QHeaderView.ResizeMode.Stretch)

    def _run(self, job: Any) -> None:
        self.message.setStyleSheet("")
        self.message.setText("")
        try:
            job()
        except Sense7Error as e:
            self.message.setStyleSheet(error_style())
            self.message.setText(error_text(e))
        self.watch.forget()
        self.refresh()

    def link(self) -> None:
        from ..project.team.folder import link

        folder = file_dialogs.choose_folder(self, "The team folder (synced, shared)")
        if folder:
            self._run(lambda: link(self.win.project, Path(folder)))

    def invite(self) -> None:
        from ..project.team.folder import invite

        coders = [c["name"] for c in self.win.project.coders() if c["role"] == "coder"]
        for coder in coders:
            if team_has(self.win.project, coder, self.watch.keys):
                continue
            out, _ = file_dialogs.save_file(self, f"Invitation of {coder} (hand it to her "
                                            "privately)", f"{coder}.invitation",
                                            "Invitations (*.invitation)")
            if out:
                self._run(lambda c=coder, o=out: invite(self.win.project, c, o))
            return

    def take_package(self) -> None:
        """Let go of the package, move her work into the lead's new one, open it again."""
        from ..project.team.folder import coder_state
        from ..project.team.sync import sync_coder

        project = self.win.project
        if project is None:
            return
        path, coder = project.path, project.coder
        state = coder_state(path, self.watch.keys)
        if state is None:
            return
        self.win.close_project(show_welcome=False)
        try:
            report = sync_coder(state)  # nothing in this program holds the file now
            self.watch.report = report
            self.watch.new_package = False
        except Sense7Error as e:
            self.watch.error = error_text(e)
        finally:
            self.win.open_project(path, coder)
        self.watch.forget()
        self.refresh()

    def sync_now(self) -> None:
        self._run(lambda: poll(self.win, self.watch, force=True))


_NAME = re.compile(r"\b([cjpa])-[0-9a-f]+-([0-9a-f]{16})-([0-9]{10})-[0-9a-f]{64}\.s7t")
_KIND = {"c": "change", "j": "join", "p": "package", "a": "acknowledgement"}


def short_names(text: str) -> str:
    """A team file's name as a person reads it: its kind, counter and computer."""
    return _NAME.sub(lambda m: f"{_KIND[m[1]]} {int(m[3])} of computer {m[2][:6]}", text)


def team_has(project: Any, coder: str, keys: Any = None) -> bool:
    view = team_view(project, keys)
    return view is not None and any(r["coder"] == coder for r in view.rows)

"""The main window: welcome screen or workspace, menus, status bar, and the project's life."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
)

from .. import APP_NAME
from ..domain.errors import Sense7Error
from ..domain.words import count, sentence
from ..paths import PROJECT_SUFFIX
from ..project import Project
from ..project import workspace as ws
from ..project.changes import EVERYTHING, NOTHING, Changes
from ..project.sharing import keep_connected
from . import file_dialogs, opening, qda_windows
from .accessibility import FocusFrame, name_controls, name_workspace
from .coder_dialog import CoderDialog, take_identity
from .help import MarkdownDialog, about_html, user_guide_markdown
from .menus import build_menus, keys_back_after_menus
from .messages import MessageLog
from .screen import fit_to_screen
from .settings import Settings
from .sight_actions import apply_sight, show_tips
from .tasks import TaskRunner
from .welcome import NewProjectDialog, WelcomePage, default_folder
from .who_codes import Presence, confirm_same_coder
from .workspace.view import Workspace

POLL_MS = 2000
#: how often at most the coder's place is written to the settings file
POSITION_MS = 1000
#: files that hold data to import, not projects
PROJECT_ACTIONS = (
    "import", "close", "undo", "redo", "find", "memo", "focus_codes", "next_turn", "prev_turn",
    "next_unfinished", "next_sentence", "prev_sentence", "next_conversation",
    "prev_conversation", "done", "reopen", "blind", "coder", "codebook", "toggle_list",
    "toggle_side", "auto_advance", "team", "history", "retrieve", "cooccurrence", "attributes",
    "import_qdpx",
)


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.project: Project | None = None
        self.workspace: Workspace | None = None
        #: the worker copying the backup made on opening (:func:`.opening.back_up_later`)
        self.backups: TaskRunner | None = None
        #: this window's row in the file's record of open windows (who codes where)
        self.presence = Presence()
        #: the message saying what opening found beside the project (see _show_notes)
        self.notes_box: QMessageBox | None = None
        self.focus_frame = FocusFrame(self)  # the focused list, table or text box is framed
        self.stack = QStackedWidget(self)
        self.welcome = WelcomePage(self)
        self.stack.addWidget(self.welcome)
        self.setCentralWidget(self.stack)
        self.welcome.openPath.connect(self.open_recent)
        self.welcome.newProject.connect(self.new_project)
        self.welcome.openProject.connect(self.open_dialog)
        self.welcome.openDemo.connect(self.open_demo)

        w = lambda name: (lambda *_: getattr(self.workspace, name)() if self.workspace else None)  # noqa: E731
        slots: dict[str, Callable[..., Any]] = {
            "new": self.new_project, "open": self.open_dialog, "demo": self.open_demo,
            "import": lambda: self.import_conversations(), "close": self.close_project, "quit": self.close,
            "undo": w("undo"), "redo": w("redo"), "find": self.focus_search,
            "memo": lambda: self.workspace and self.workspace.memo.editor.setFocus(),
            "focus_codes": lambda: self.workspace and self.workspace.coding.setFocus(),
            "next_turn": lambda: self.workspace and self.workspace.move_turn(1),
            "prev_turn": lambda: self.workspace and self.workspace.move_turn(-1),
            "next_unfinished": w("next_unfinished"),
            "next_sentence": lambda: self.workspace and self.workspace.move_sentence(1),
            "prev_sentence": lambda: self.workspace and self.workspace.move_sentence(-1),
            "next_conversation": lambda: self.workspace and self.workspace.move_conversation(1),
            "prev_conversation": lambda: self.workspace and self.workspace.move_conversation(-1),
            "done": w("mark_done_and_next"), "reopen": w("reopen"),
            "blind": self.set_blind, "coder": self.switch_coder, "codebook": self.edit_codebook,
            "team": self.show_team, "history": self.show_turn_history,
            "retrieve": self.show_retrieve,
            "cooccurrence": lambda: qda_windows.show_cooccurrence(self),
            "attributes": lambda: qda_windows.show_attributes(self),
            "import_qdpx": lambda: qda_windows.import_qdpx(self),
            "toggle_list": self._toggle_list, "toggle_side": self._toggle_side,
            "auto_advance": self._set_auto_advance,
            "shortcuts": self.show_shortcuts, "messages": lambda: self.message_log.show(),
            "guide": self.show_guide, "about": self.show_about,
        }
        self.actions_, self.menus = build_menus(self, slots)
        self.menus["recent"].aboutToShow.connect(self._fill_recent_menu)
        from .analysis.menu import AnalysisMenu  # agreement, reconcile, export, merge

        self.analysis = AnalysisMenu(self)
        keys_back_after_menus(self, self.menus.values(), self.focus_main)
        show_tips(self, self.menus.values())  # a greyed item says why (tooltip, status)

        bar = self.statusBar()
        self.message_log = MessageLog(self)  # View › Messages…: the last ones, whole
        self.project_label = QLabel(self)
        self.coder_label = QLabel(self)
        self.progress_label = QLabel(self)
        self.saved_label = QLabel(self)
        for label in (self.project_label, self.coder_label, self.progress_label, self.saved_label):
            label.setContentsMargins(8, 0, 8, 0)
            bar.addPermanentWidget(label)
        self._codable_total = 0

        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self.check_elsewhere)
        # where the coder is, written to the settings file at most once per POSITION_MS
        # (and on closing): a write on every key would cost a file write per move
        self._position: tuple[Path, str, int, int] | None = None
        self._position_saver = QTimer(self, interval=POSITION_MS, singleShot=True)
        self._position_saver.timeout.connect(self._save_position)
        fit_to_screen(self, 1280, 800)
        geometry = self.settings.window_state("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.show_welcome()

    # -- hooks for other panels ---------------------------------------------------------------
    def add_analysis_action(self, action: QAction) -> None:
        """Add an action (agreement, reconciliation...) to the Analysis menu."""
        menu = self.menus["analysis"]
        menu.addAction(action)
        menu.menuAction().setVisible(True)

    # -- screens ------------------------------------------------------------------------------
    def show_welcome(self) -> None:
        self.welcome.set_recent(self.settings.recent_files())
        if not self.welcome.recent.accessibleName():
            self.welcome.recent.setAccessibleName("Recent projects")
        self.stack.setCurrentWidget(self.welcome)
        self.setWindowTitle(APP_NAME)
        self._enable_project_actions(False)
        for label in (self.project_label, self.coder_label, self.progress_label, self.saved_label):
            label.setText("")
        self.focus_main()

    def _enable_project_actions(self, on: bool) -> None:
        for name in PROJECT_ACTIONS:
            self.actions_.all[name].setEnabled(on)
        for action in self.analysis.menu_actions.values():
            action.setEnabled(on)

    def focus_main(self) -> None:
        """Put the keyboard where work happens: the codes, or the welcome screen's list."""
        if self.workspace is not None and self.stack.currentWidget() is self.workspace:
            self.workspace.coding.setFocus()
        elif self.welcome.recent.count():
            self.welcome.recent.setFocus()
        else:
            self.welcome.demo_button.setFocus()

    def _update_title(self) -> None:
        if self.project is not None:
            self.setWindowTitle(f"{self.project.path.name} — {APP_NAME}")
            self.setWindowFilePath(str(self.project.path))

    # -- opening and closing ------------------------------------------------------------------
    def open_recent(self, path: str | Path) -> bool:
        """Open a recent project; a missing one can be located or taken off the list."""
        path = Path(path)
        return self.open_project(path) if path.exists() else opening.locate_missing(self, path)

    def ask_location(self, path: Path) -> str:
        """Where a missing project is now (tests replace this)."""
        start = path.parent if path.parent.exists() else self._documents()
        return file_dialogs.open_file(
            self, f"Locate {path.name}", str(start),
            f"sense7-coder projects (*{PROJECT_SUFFIX});;All files (*)")

    def open_project(self, path: str | Path, coder: str | None = None) -> bool:
        """Open a project file (asking who codes unless ``coder`` is given or remembered)."""
        path = Path(path)
        try:
            # the backup on opening is copied off the GUI thread once the window is up
            # (an upgrade of an older file still backs up first, before it changes)
            project = Project.open(path, backup=False)
        except Sense7Error as e:
            if opening.offer_import(self, path, str(e)):
                return False
            QMessageBox.critical(self, "Cannot open the project", sentence(str(e)))
            return False
        except OSError as e:
            QMessageBox.critical(self, "Cannot open the project", f"{path}: {e.strerror or e}")
            return False
        if not opening.choose_coder(self, project, coder):
            project.close()
            return False
        self.close_project(show_welcome=False)
        self.project = project
        self.presence.enter(project)
        self.settings.add_recent(path)
        self.settings.set_last_coder(path, project.coder or "")
        self.workspace = Workspace(project, self)
        self.workspace.saved.connect(self._saved)
        self.workspace.moved.connect(self._moved)
        self.workspace.message.connect(lambda text: self.show_message(text, 8000))
        self.workspace.failed.connect(self._failed)
        self.workspace.hub.changed.connect(self._changed)
        name_workspace(self.workspace)
        name_controls(self)
        state = self.settings.window_state("split")
        if state is not None:
            self.workspace.split.restoreState(state)
        right = self.settings.window_state("right_split")
        if right is not None:
            self.workspace.right_split.restoreState(right)
        self.stack.addWidget(self.workspace)
        self.stack.setCurrentWidget(self.workspace)
        self._enable_project_actions(True)
        self._update_lead_actions()
        self.actions_.toggle_list.setChecked(True)
        self.actions_.toggle_side.setChecked(True)
        self.workspace.auto_advance = self.settings.auto_advance()
        self.actions_.auto_advance.setChecked(self.workspace.auto_advance)
        last = self.settings.last_position(path)
        if not (last and self.workspace.go_to(*last)):
            self.workspace.open_first()
        if self.workspace.conversation is None:
            self.workspace.refresh_panel()
        self._codable_total = ws.codable_total(project)
        self._update_title()
        self._update_status()
        self.saved_label.setText("All changes saved")
        self.workspace.coding.setFocus()
        self.poll.start()
        opening.back_up_later(self, path)
        if project.notes:
            opening.show_notes(self, project)
        return True

    def confirm_same_coder(self, project: Project, same: list[Any]) -> bool:
        """Go on as a coder other windows write as (tests replace this)?"""
        return confirm_same_coder(self, project, same)

    def ask_coder(self, project: Project, suggested: str | None) -> bool:
        """Show the coder dialog; True when a coder was chosen (tests replace this)."""
        dialog = CoderDialog(project, suggested, self)
        return dialog.exec() == QDialog.DialogCode.Accepted

    def close_project(self, *, show_welcome: bool = True) -> None:
        if self.project is not None and self.workspace is not None:
            self.workspace.memo.flush()
            self._remember_layout()
            self.poll.stop()
            self.stack.removeWidget(self.workspace)
            self.workspace.deleteLater()
            self.workspace = None
            self.presence.leave(self.project)
            self.project.close()
            self.project = None
        if show_welcome:
            self.show_welcome()

    def _remember_layout(self) -> None:
        self._save_position()
        self.settings.set_window_state("geometry", self.saveGeometry())
        if self.workspace is not None:
            self.settings.set_window_state("split", self.workspace.split.saveState())
            self.settings.set_window_state("right_split", self.workspace.right_split.saveState())
        self.settings.sync()

    def closeEvent(self, e: QCloseEvent) -> None:
        self._remember_layout()
        self.close_project(show_welcome=False)
        super().closeEvent(e)

    def _documents(self) -> Path:
        recent = self.settings.recent_files()
        if recent and Path(recent[0]).parent.exists():
            return Path(recent[0]).parent
        docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return default_folder(docs)

    def new_project(self) -> None:
        dialog = NewProjectDialog(self._documents(), self)
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.codebook is None:
            return  # the dialog created the file (and stayed open on any error)
        if self.open_project(dialog.project_path()):
            self.show_message("New project: import conversations with File ▸ Import", 8000)

    def open_dialog(self) -> None:
        name = file_dialogs.open_file(
            self, "Open project", str(self._documents()),
            f"sense7-coder projects (*{PROJECT_SUFFIX});;All files (*)")
        if name:
            self.open_project(name)

    def open_demo(self) -> None:
        from ..project.demo import build_demo

        try:
            path = build_demo()
        except (Sense7Error, OSError) as e:
            QMessageBox.critical(self, "Cannot build the demo", sentence(str(e)))
            return
        self.open_project(path)

    def _fill_recent_menu(self) -> None:
        menu = self.menus["recent"]
        menu.clear()
        for f in self.settings.recent_files():
            a = menu.addAction(f)
            a.triggered.connect(lambda _=False, f=f: self.open_recent(f))
        if menu.isEmpty():
            menu.addAction("No recent projects").setEnabled(False)

    # -- coder and settings -------------------------------------------------------------------
    def switch_coder(self) -> None:
        if self.project is None or self.workspace is None:
            return
        self.workspace.memo.flush()
        before = self.project.coder
        if not self.ask_coder(self.project, self.project.coder):
            return
        same = self.presence.same_coder(self.project)
        if same and not self.confirm_same_coder(self.project, same) and before:
            take_identity(self.project, before, self)  # back to who coded here
        self.coder_changed()

    def _update_lead_actions(self) -> None:
        """Blind coding is the lead's to switch: a coder sees it, greyed, with the reason; so
        are the items that would show a blind coder what blinding hides."""
        if self.project is None:
            return
        project = self.project
        lead = project.package_coder is None and (project.is_lead() or not any(
            c["role"] == "adjudicator" for c in project.coders()))
        blind = self.actions_.blind
        blind.setEnabled(lead)
        blind.setChecked(project.blind_coding)
        blind.setToolTip("Hide other coders' values and the users' ratings of a turn from "
                         "each coder until they mark it done (a lead sees everything)"
                         + ("" if lead else "; only a lead, an adjudicator, can switch it"))
        # what shows every coder's work is greyed for a coder working blind, with why
        apply_sight({**self.actions_.all, **self.analysis.menu_actions}, project.sight())

    def coder_changed(self) -> None:
        """Show everything again for the (new) current coder."""
        if self.project is None or self.workspace is None:
            return
        self._update_lead_actions()
        self.presence.switch(self.project)
        self.settings.set_last_coder(self.project.path, self.project.coder or "")
        # everything a view shows is this coder's: the same as a change of coders
        self.workspace.hub.publish(Changes(coders=True))

    def set_blind(self, on: bool) -> None:
        if self.project is None or self.workspace is None:
            return
        try:
            self.project.blind_coding = bool(on)
        except Sense7Error as e:
            blocked = self.actions_.blind.blockSignals(True)
            self.actions_.blind.setChecked(self.project.blind_coding)  # unchanged
            self.actions_.blind.blockSignals(blocked)
            self.show_message(str(e), 10000)
            return
        self.workspace.hub.publish(Changes(settings=True))
        if not on:
            text = "Blind coding off"
        elif self.project.is_lead():  # a lead sees everything: only the coders are blind
            text = ("Blind coding on: coders see others' values and the users' ratings of a "
                    "turn only once they mark it done; you lead, and see everything")
        else:
            text = ("Blind coding on: others' values and users' ratings stay hidden until you "
                    "mark a turn done")
        self.show_message(text, 6000)

    def _set_auto_advance(self, on: bool) -> None:
        self.settings.set_auto_advance(bool(on))
        if self.workspace is not None:
            self.workspace.auto_advance = bool(on)
            self.workspace.refresh_panel()  # the hint line says what a rating does

    def _toggle_list(self, on: bool) -> None:
        if self.workspace is not None:
            self.workspace.list_panel.setVisible(bool(on))

    def _toggle_side(self, on: bool) -> None:
        if self.workspace is not None:
            self.workspace.ratings.setVisible(bool(on))
            self.workspace.memo.setVisible(bool(on))

    def focus_search(self) -> None:
        if self.workspace is not None:
            self.actions_.toggle_list.setChecked(True)
            self.workspace.list_panel.show()
            self.workspace.list_panel.search.setFocus()
            self.workspace.list_panel.search.selectAll()

    # -- other dialogs (imported when first used) -----------------------------------
    def import_conversations(self, files: list[Path] | None = None) -> None:
        if self.project is None or self.workspace is None:
            return
        if files and all(Path(f).suffix.lower() == ".qdpx" for f in files):
            qda_windows.import_qdpx(self, Path(files[0]))
            return
        from .dialogs.import_dialog import ImportDialog

        dialog = ImportDialog(self.project, self)
        if files:
            dialog.set_files(files)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        self._after_dialog(EVERYTHING if accepted else NOTHING)  # an import

    def edit_codebook(self) -> None:
        if self.project is None or self.workspace is None:
            return
        from .dialogs.codebook_editor import CodebookEditorDialog

        CodebookEditorDialog(self.project, self).exec()
        self._after_dialog(Changes(codebook=True))

    def show_team(self) -> None:
        if self.project is None or self.workspace is None:
            return
        from .team_dialog import TeamDialog

        dialog = TeamDialog(self.project, self)
        # roles, assignments and the team's settings, each as the dialog names it
        dialog.changed.connect(self._after_dialog)
        dialog.exec()

    def show_turn_history(self) -> None:
        ws_ = self.workspace
        if self.project is None or ws_ is None or not ws_.conversation_id:
            return
        from .history_dialog import TurnHistoryDialog

        TurnHistoryDialog(self.project, ws_.conversation_id, ws_.position, self).exec()

    def show_retrieve(self) -> None:
        if self.project is None or self.workspace is None:
            return
        from .retrieve_dialog import RetrieveDialog

        dialog = RetrieveDialog(self.project, self)
        self.listen(dialog.show_changes)
        dialog.goTo.connect(lambda cid, pos: self.workspace and self.workspace.go_to(cid, pos))
        dialog.exec()

    def _after_dialog(self, changes: Changes) -> None:
        if self.project is None or self.workspace is None:
            return
        # a dialog may write through its own connection: its writes are counted as seen
        # and what it changed goes to every view
        self.workspace.hub.publish_outside_work(changes)

    def publish_changes(self, changes: Changes, *, outside: bool = False) -> None:
        """Tell every view what another panel of this window changed in the project
        (``outside``: written through a connection of its own, such as a merge's)."""
        if self.workspace is None:
            return
        if outside:
            self.workspace.hub.publish_outside_work(changes)
        else:
            self.workspace.hub.publish(changes)

    def listen(self, slot: Callable[[Changes], None]) -> None:
        """Call ``slot`` with every change the open project's views hear of (a window over
        the project follows them; it stops hearing when it or the project closes)."""
        if self.workspace is not None:
            self.workspace.hub.changed.connect(slot)

    def _changed(self, changes: Changes) -> None:
        """The status bar and the undo items follow every change (the views listen too)."""
        if self.project is None:
            return
        if changes.everything or changes.codebook or changes.conversations:
            self._codable_total = ws.codable_total(self.project)
        if changes.progress:
            self._update_status()
        if changes.everything or changes.coders or changes.settings:
            self._update_lead_actions()  # a role or blind coding may have changed
        self._update_undo()

    # -- status -------------------------------------------------------------------------------
    def check_elsewhere(self) -> None:
        """The poll: what another window or program wrote reaches the views as changes."""
        if self.project is None or self.workspace is None:
            return
        reconnected = keep_connected(self.project)  # a lost hold on the file, mended
        if reconnected:
            self.show_message(reconnected, 10000)
        if QApplication.activeModalWidget() is not None:
            # a dialog of this window may be writing through its own connection (an
            # import): its writes are counted as seen when it closes (_after_dialog), not
            # reported as another window's
            return
        try:
            changes = self.workspace.hub.poll()  # published to every view
        except Exception:  # noqa: BLE001 - a failing poll must never break the window
            return
        if not changes.empty:
            self.show_message("Updated: this project was changed in another window", 5000)

    def _saved(self) -> None:
        self.saved_label.setText(f"All changes saved · {dt.datetime.now():%H:%M:%S}")
        self._update_status()
        self._update_undo()

    def _failed(self, text: str) -> None:
        self.saved_label.setText("Last change NOT saved")
        QMessageBox.warning(self, "Not saved", sentence(text))

    def show_message(self, text: str, ms: int = 6000) -> None:
        """A status-bar message that fits: elided to the room beside the permanent labels,
        the whole text in the tooltip and in View › Messages…"""
        self.message_log.add(text)
        bar = self.statusBar()
        room = bar.width() - sum(w.width() + 12 for w in (
            self.project_label, self.coder_label, self.progress_label, self.saved_label)
            if w.isVisible()) - 24
        shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(room, 120))
        bar.setToolTip(text if shown != text else "")
        bar.showMessage(shown, ms)

    def _moved(self) -> None:
        # a message about the turn just left must not stand beside the next one
        self.statusBar().clearMessage()
        self.statusBar().setToolTip("")
        if self.project is not None and self.workspace is not None and self.workspace.conversation_id:
            wsp = self.workspace
            self._position = (self.project.path, wsp.conversation_id or "", wsp.position,
                              wsp.sentence)
            if not self._position_saver.isActive():
                self._position_saver.start()

    def _save_position(self) -> None:
        self._position_saver.stop()
        if self._position is not None:
            self.settings.set_last_position(*self._position)
            self._position = None

    def _update_status(self) -> None:
        if self.project is None:
            return
        self.project_label.setText(self.project.path.name)
        role = self.project.coder_role() or "coder"
        coder = escape(self.project.coder or "")  # a name is text, never markup
        self.coder_label.setText(f"Coding as <b>{coder}</b> ({role})")
        done = ws.coder_done(self.project)
        self.progress_label.setText(f"{done} / {count(self._codable_total, 'turn')} done")
        self._update_undo()

    def _update_undo(self) -> None:
        if self.project is None:
            return
        for name, label in (("undo", self.project.undo_label), ("redo", self.project.redo_label)):
            a = self.actions_.all[name]
            a.setText(f"&{name.capitalize()} {label}" if label else f"&{name.capitalize()}")
            a.setEnabled(label is not None)

    # -- help ---------------------------------------------------------------------------------
    def show_about(self) -> None:
        QMessageBox.about(self, "About sense7-coder", about_html())

    def show_shortcuts(self) -> None:
        """F1: the focused code's guide first, every code's anchors, then the shortcuts."""
        from .help import shortcuts_and_guide

        MarkdownDialog("Coding guide and keyboard shortcuts", shortcuts_and_guide(
            self.project.codebook if self.project is not None else None,
            self.workspace.coding.focused_key if self.workspace is not None else None),
            self).exec()

    def show_guide(self) -> None:
        MarkdownDialog("User guide", user_guide_markdown(), self).exec()

"""Application start-up, the None guard, and the menu hooks to the other dialogs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog

from sense7_coder.domain.models import Conversation, Turn
from sense7_coder.store import conversations as store_conv

pytestmark = pytest.mark.gui
REPO = Path(__file__).resolve().parents[1]


def test_many_qt_calls_do_not_exhaust_none() -> None:
    """PySide6 6.12 on Python 3.11 drops a reference to None per void call; we must survive."""
    script = textwrap.dedent("""
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        import sense7_coder.ui
        from PySide6.QtWidgets import QApplication, QLabel
        app = QApplication([])
        label = QLabel()
        for i in range(200_000):
            label.setText("x")
            label.setVisible(i % 2 == 0)
        print("alive")
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "alive" in done.stdout


class _FakeImport(QDialog):
    """Stands in for the import dialog: adds one conversation, as a real import would."""

    def __init__(self, project, parent=None) -> None:
        super().__init__(parent)
        self.project = project

    def exec(self) -> int:
        conv = Conversation("new-1", model="NewModel", turns=[
            Turn(1, "user", "Hello"), Turn(2, "assistant", "Hi, how can I help?")])
        with self.project.pdb.atomic() as db:
            store_conv.insert_conversations(db, [conv])
        return QDialog.DialogCode.Accepted


def test_import_menu_refreshes_list_and_progress(gui, demo_project: Path, monkeypatch) -> None:
    import sense7_coder.ui.dialogs.import_dialog as module

    monkeypatch.setattr(module, "ImportDialog", _FakeImport)
    w = gui.open(demo_project)
    before = w.workspace.list_panel.model.rowCount()
    total = w._codable_total
    w.actions_.all["import"].trigger()
    assert w.workspace.list_panel.model.rowCount() == before + 1
    assert w.workspace.list_panel.model_box.findData("NewModel") >= 0
    assert w._codable_total == total + 1
    w.workspace.go_to("new-1")
    assert w.workspace.position == 2


def test_codebook_editor_menu_rebuilds_the_coding_panel(gui, demo_project: Path,
                                                        monkeypatch) -> None:
    import sense7_coder.ui.dialogs.codebook_editor as module

    class FakeEditor(QDialog):
        def __init__(self, project, parent=None) -> None:
            super().__init__(parent)
            self.project = project

        def exec(self) -> int:
            from sense7_coder.project.codebook import editing as codebook_ops

            codebook_ops.retire_code(self.project, "relational")
            return QDialog.DialogCode.Accepted

    monkeypatch.setattr(module, "CodebookEditorDialog", FakeEditor)
    w = gui.open(demo_project)
    assert "relational" in w.workspace.coding.visible_keys()
    w.actions_.codebook.trigger()
    assert "relational" not in w.workspace.coding.visible_keys()
    assert "overall" in w.workspace.coding.visible_keys()



def test_application_has_its_icon(qapp) -> None:
    from sense7_coder.ui.app import make_app

    app = make_app()
    assert not app.windowIcon().pixmap(64).isNull()


def test_opening_backs_up_on_a_worker_while_coding_goes_on(gui, qtbot, demo_project: Path,
                                                             monkeypatch) -> None:
    """The backup on opening does not hold up the window: the coder saves a coding while
    the worker's backup is still pending, and the copy that follows is a healthy file."""
    import sqlite3
    import threading

    from sense7_coder.store import backups as store_backups
    from sense7_coder.store import db as store_db

    started, release = threading.Event(), threading.Event()
    real = store_db.copy_to_backups

    def slow_backup(path: Path, source: sqlite3.Connection) -> Path | None:
        started.set()
        release.wait(10)
        return real(path, source)

    monkeypatch.setattr(store_db, "copy_to_backups", slow_backup)
    backups = store_backups.backups_dir(demo_project)
    window = gui.open(demo_project)  # returns while the backup is still waiting
    assert started.wait(5)
    assert not store_backups.own_backups(demo_project)
    conv, pos = window.workspace.conversation.conversation_id, window.workspace.position
    code = window.project.codebook.codes[0].key
    from sense7_coder.domain.models import Unit

    window.project.set_value(Unit(conv, pos, 0), code, 4)
    release.set()
    qtbot.waitUntil(lambda: bool(store_backups.own_backups(demo_project)), timeout=10000)
    assert backups.is_dir()
    qtbot.waitUntil(lambda: "Backup saved in" in window.statusBar().currentMessage(), timeout=5000)
    assert gui.stored(demo_project, "dana", conv, pos, code) == 4
    with sqlite3.connect(store_backups.own_backups(demo_project)[-1]) as copy:
        assert copy.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_the_window_paints_on_its_own_thread_unless_the_user_says_otherwise() -> None:
    """Qt's thread pool for fills is off (the hand-off cost more than the fill), set before
    Qt reads it; a value the user set stays."""
    script = textwrap.dedent("""
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from sense7_coder.ui.app import make_app
        make_app()
        print(repr(os.environ.get("QT_NO_GUI_THREADPOOL")))
    """)
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    own = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=120, check=True)
    assert own.stdout.strip().splitlines()[-1] == "'1'"
    users = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={**env, "QT_NO_GUI_THREADPOOL": "yes"}, timeout=120, check=True)
    assert users.stdout.strip().splitlines()[-1] == "'yes'"


class _ImportOnItsOwnConnection(QDialog):
    """An import as the real dialog runs it: a background task writes through a connection
    of its own while the dialog is open, and the window's 2-second poll comes meanwhile."""

    def __init__(self, project, parent=None) -> None:
        super().__init__(parent)
        self.project = project
        self.window = parent

    def exec(self) -> int:
        from sense7_coder.project import Project

        self.setModal(True)
        self.show()
        with Project.open(self.project.path, backup=False) as own:
            conv = Conversation("new-2", model="NewModel", turns=[
                Turn(1, "user", "Hello"), Turn(2, "assistant", "Hi there.")])
            with own.pdb.atomic() as db:
                store_conv.insert_conversations(db, [conv])
        self.window.check_elsewhere()  # the poll, while the dialog is still open
        self.hide()
        return QDialog.DialogCode.Accepted


def test_the_windows_own_import_is_not_reported_as_another_windows(
        gui, demo_project: Path, monkeypatch) -> None:
    import sense7_coder.ui.dialogs.import_dialog as module

    monkeypatch.setattr(module, "ImportDialog", _ImportOnItsOwnConnection)
    w = gui.open(demo_project)
    before = w.workspace.list_panel.model.rowCount()
    w.actions_.all["import"].trigger()
    w.check_elsewhere()  # the next poll, after the dialog closed
    assert w.workspace.list_panel.model.rowCount() == before + 1
    said = [e.text for e in w.message_log.entries]
    assert not any("changed in another window" in t for t in said), said

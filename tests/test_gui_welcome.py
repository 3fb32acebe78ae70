"""Starting up: welcome screen, recent files, opening errors, new project, help."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QMessageBox

from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.ui import help as ui_help
from sense7_coder.ui.coder_dialog import CoderDialog
from sense7_coder.ui.main_window import MainWindow
from sense7_coder.ui.settings import Settings
from sense7_coder.ui.welcome import NewProjectDialog

pytestmark = pytest.mark.gui


def _window(qtbot) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def test_welcome_lists_recent_projects(qtbot, demo_project: Path, tmp_path: Path) -> None:
    Settings().add_recent(demo_project)
    Settings().add_recent(tmp_path / "gone.sense7")
    w = _window(qtbot)
    assert w.windowTitle() == "sense7-coder"
    assert w.stack.currentWidget() is w.welcome
    items = [w.welcome.recent.item(i).text() for i in range(w.welcome.recent.count())]
    assert items[0].startswith("gone.sense7  (missing: open it to locate or remove it)")
    assert items[1].startswith(demo_project.name)
    assert not w.actions_.undo.isEnabled() and not w.actions_.done.isEnabled()


def test_a_bad_file_gives_a_message_not_a_traceback(qtbot, tmp_path: Path, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _p, _t, text: shown.append(text))
    bad = tmp_path / "notes.sense7"
    bad.write_text("just some text, not a project")
    w = _window(qtbot)
    assert not w.open_project(bad)
    assert not w.open_project(tmp_path / "absent.sense7")
    assert "not a sense7-coder project" in shown[0]
    assert "no such project file" in shown[1]
    assert w.stack.currentWidget() is w.welcome


def test_new_project_dialog_creates_a_project_with_the_chosen_codebook(qtbot, tmp_path: Path,
                                                                       monkeypatch) -> None:
    dialog = NewProjectDialog(tmp_path)
    qtbot.addWidget(dialog)
    dialog.codebook_box.setCurrentIndex(dialog.codebook_box.findData("tactics"))
    dialog.path.setText(str(tmp_path / "study"))
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.project_path() == tmp_path / "study.sense7"
    assert dialog.codebook is not None and dialog.codebook.name == "tactics"

    w = _window(qtbot)
    monkeypatch.setattr("sense7_coder.ui.main_window.NewProjectDialog",
                        lambda *_a: _Accepted(dialog))
    monkeypatch.setattr(w, "ask_coder", lambda p, _s: (p.set_coder("ines"), True)[1])
    w.new_project()
    assert w.project is not None and w.project.codebook.name == "tactics"
    assert w.workspace.conversation is None
    assert "Import conversations" in w.workspace.coding.empty.text()
    assert str((tmp_path / "study.sense7").resolve()) in Settings().recent_files()


def test_a_new_project_starts_from_a_refi_qda_codebook(qtbot, tmp_path: Path, monkeypatch) -> None:
    """The codebook file chooser offers .qdc files, and the dialog reads one."""
    from sense7_coder.ui import file_dialogs
    from sense7_coder.ui.welcome import FROM_FILE

    qdc = Path(__file__).parent / "refi" / "qualcoder-style.qdc"
    filters: list[str] = []

    def choose(_parent, _title, _start, file_filter):
        filters.append(file_filter)
        return str(qdc)

    monkeypatch.setattr(file_dialogs, "open_file", choose)
    dialog = NewProjectDialog(tmp_path)
    qtbot.addWidget(dialog)
    at = dialog.codebook_box.findData(FROM_FILE)
    dialog.codebook_box.setCurrentIndex(at)
    dialog.codebook_box.activated.emit(at)  # as a person's choice in the list does
    assert "*.qdc" in filters[0]
    dialog.path.setText(str(tmp_path / "from-qualcoder"))
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.codebook is not None and dialog.codebook.name == "qualcoder-style"
    assert len(dialog.codebook.codes) > 0


class _Accepted:
    def __init__(self, dialog: NewProjectDialog) -> None:
        self.codebook, self._d = dialog.codebook, dialog

    def exec(self) -> QDialog.DialogCode:
        return QDialog.DialogCode.Accepted

    def project_path(self) -> Path:
        return self._d.project_path()


def test_coder_dialog_lists_coders_and_creates_new_ones(qtbot, demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        dialog = CoderDialog(p)
        qtbot.addWidget(dialog)
        texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
        assert any(t.startswith("alice") and "(coder)" in t for t in texts)
        dialog.list.setCurrentRow(1)
        assert dialog.coder_name() == "bashir"
        dialog.name.setText("gail")
        dialog.accept()
        assert p.coder == "gail" and p.coder_role("gail") == "coder"  # a new name codes


def test_closing_returns_to_welcome_and_remembers_layout(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    w.actions_.close.trigger()
    assert w.project is None and w.stack.currentWidget() is w.welcome
    assert Settings().window_state("split") is not None
    assert Settings().last_coder(demo_project) == "dana"


def test_help_about_and_analysis_hook(gui, qtbot, demo_project: Path) -> None:
    versions = ui_help.versions()
    assert set(versions) == {"sense7-coder", "Qt", "PySide6", "Python", "SQLite", "numpy",
                             "scipy", "pandas", "krippendorff", "matplotlib", "openpyxl",
                             "pyreadstat", "spacy", "xmlschema"}
    assert all(versions.values())
    # the libraries as installed (a bundle without their metadata would say otherwise)
    assert versions["scipy"] == importlib.metadata.version("scipy")
    assert versions["krippendorff"] == importlib.metadata.version("krippendorff")
    assert "SQLite" in ui_help.about_html()
    assert ui_help.user_guide_markdown().strip()
    w = gui.open(demo_project)
    # the analysis windows (agreement, reconcile, export, merge) hook in themselves
    assert w.menus["analysis"].menuAction().isVisible()
    action = QAction("Extra analysis…", w)
    w.add_analysis_action(action)
    assert w.menus["analysis"].menuAction().isVisible()
    assert action in w.menus["analysis"].actions()


def test_open_errors_keep_the_current_project(gui, qtbot, demo_project: Path, tmp_path: Path,
                                              monkeypatch) -> None:
    monkeypatch.setattr(QMessageBox, "critical", lambda *_a: None)
    w = gui.open(demo_project)
    assert not w.open_project(tmp_path / "missing.sense7")
    assert w.project is not None and w.project.path == demo_project
    with pytest.raises(ProjectError):
        Project.open(tmp_path / "missing.sense7")


def test_new_project_in_a_documents_folder_not_made_yet(qtbot, tmp_path: Path,
                                                       monkeypatch) -> None:
    """The default ~/Documents/my-study.sense7 works where ~/Documents does not exist yet,
    and an error keeps the form open with what was typed."""
    from PySide6.QtWidgets import QMessageBox

    from sense7_coder.ui.welcome import default_folder

    home = tmp_path / "home"
    home.mkdir()
    docs = home / "Documents"
    assert default_folder(str(docs), home) == docs  # made on Create, not before
    assert not docs.exists()
    assert default_folder(str(tmp_path / "gone" / "deeper" / "Documents"), home) == home
    assert default_folder(None, home) == home
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text, *_a: warned.append(text))
    dialog = NewProjectDialog(docs)
    qtbot.addWidget(dialog)
    assert dialog.project_path() == docs / "my-study.sense7"
    dialog.show()
    dialog.accept()
    assert warned == [] and dialog.result() == QDialog.DialogCode.Accepted
    assert (docs / "my-study.sense7").is_file()
    with Project.open(docs / "my-study.sense7", backup=False) as p:
        assert p.codebook.name == "sense7"

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    dialog = NewProjectDialog(docs)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.path.setText(str(blocker / "study"))
    dialog.accept()
    assert len(warned) == 1 and warned[0].startswith("Cannot make the folder")
    assert dialog.isVisible() and dialog.path.text() == str(blocker / "study")  # still open

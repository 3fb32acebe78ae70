"""Every file dialog of the window, on the folder that holds the open project, then another
program on the same file: nothing the window writes afterwards is lost.

A file dialog reads the files it lists; shown in the window's process, listing the
project's folder dropped the window's SQLite locks, and the next command run on the file
deleted the log the window went on writing into (its values never reached the file). The
dialogs run in a child process (ui/file_dialogs.py, ui/picker.py); here each one runs for
real, offscreen: Qt's own dialog lists the folder, waits until it is loaded, and picks a
file (SENSE7_CODER_PICKER_SCRIPT).
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.ui import file_dialogs, picker
from tests.test_sharing import ENV, REPO, cli

pytestmark = [pytest.mark.gui,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX advisory locks")]
UI = REPO / "sense7_coder" / "ui"
CHATS = ("conversation_id,role,text\n"
         "n1,user,My manager moved the deadline again.\n"
         "n1,assistant,That sounds draining. Which part is due first?\n")


def dialog_call_sites() -> set[tuple[str, str]]:
    """(module, function) of every place under ui/ that shows a file dialog."""
    found = set()
    for path in UI.rglob("*.py"):
        if path.name in ("file_dialogs.py", "picker.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or node.name == "ask_csv_path":
                continue
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and (
                        (isinstance(call.func, ast.Attribute)
                         and isinstance(call.func.value, ast.Name)
                         and call.func.value.id == "file_dialogs")
                        or (isinstance(call.func, ast.Name) and call.func.id == "ask_csv_path")):
                    found.add((path.stem, node.name))
    return found


class Picks:
    """Runs the real picker with a script per dialog; records who asked and its answer."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any) -> None:
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.qtbot = qtbot
        self.project_name = next(folder.glob("*.sense7")).name
        self.asked: list[tuple[tuple[str, str], dict[str, Any], dict[str, Any]]] = []
        run = file_dialogs._run

        def recorded(request: dict[str, Any], answer: Path) -> str:
            problem = run(request, answer)
            assert problem == "", problem
            self.asked.append((_caller(), request, json.loads(answer.read_text("utf-8"))))
            return problem

        monkeypatch.setattr(file_dialogs, "_run", recorded)

    def next(self, pick: list[str] | None) -> None:
        """The next dialog lists the folder and picks ``pick`` (names in it, or paths);
        None: cancels once the folder is listed."""
        script = {"folder": str(self.folder),
                  "pick": None if pick is None else [str(self.folder / p) for p in pick]}
        self.monkeypatch.setenv(picker.SCRIPT_ENV, json.dumps(script))

    def run(self, pick: list[str] | None, action: Callable[[], object]) -> Any:
        self.next(pick)
        before = len(self.asked)
        result = action()
        assert len(self.asked) == before + 1, "no file dialog was shown"
        _, request, reply = self.asked[-1]
        assert reply["listed"]  # it listed the project's own folder (what its filter shows)
        shown = request["filters"].split(";;")[0]  # the filter the dialog starts with
        if request["mode"] != "folder" and ("(*)" in shown or "*.sense7" in shown):
            assert self.project_name in reply["listed"]
        expected = [] if pick is None else [str(self.folder / p) for p in pick]
        assert reply["paths"] == expected
        return result

    def keep(self, widget: Any) -> Any:
        """A dialog closed with the test."""
        self.qtbot.addWidget(widget)
        return widget


def _caller() -> tuple[str, str]:
    for frame in inspect.stack()[2:]:
        module = Path(frame.filename).stem
        if module not in ("file_dialogs", "table_tools", "test_gui_file_dialogs"):
            return module, frame.function
    return "", ""


def codings_seen_by_another_process(path: Path, coder: str) -> dict[tuple[str, int, str], Any]:
    code = ("import json, sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
            "print(json.dumps(c.execute('SELECT conversation_id, position, code, value "
            "FROM codings WHERE coder = ?', [sys.argv[2]]).fetchall()))")
    run = subprocess.run([sys.executable, "-c", code, str(path), coder], capture_output=True,
                         text=True, timeout=60, check=True)
    return {(c, p, k): v for c, p, k, v in json.loads(run.stdout)}


def wal_held_is_on_disk(path: Path) -> bool:
    """The -wal this process has open is the one on disk (no deleted log written into)."""
    wal = path.with_name(path.name + "-wal")
    if not wal.exists():
        return False
    on_disk = (wal.stat().st_dev, wal.stat().st_ino)
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.removesuffix(" (deleted)") == str(wal.resolve()):
            st = os.stat(f"/proc/self/fd/{fd}")
            held.add((st.st_dev, st.st_ino))
    return held == {on_disk}


def file_menu(w: Any, picks: Picks) -> None:
    """Open (cancelled: opening would make new connections), locate, new project (its file,
    its codebook from a file), import conversations (and import them), .qdpx import."""
    from sense7_coder.ui.dialogs.import_dialog import ImportDialog
    from sense7_coder.ui.dialogs.qdpx_import import QdpxImportDialog
    from sense7_coder.ui.welcome import FROM_FILE, NewProjectDialog

    folder, project = picks.folder, w.project
    picks.run(None, w.open_dialog)
    assert w.project is project
    assert picks.run([project.path.name], lambda: w.ask_location(folder / "moved.sense7")) \
        == str(project.path)
    new = picks.keep(NewProjectDialog(folder))
    picks.run(["fresh.sense7"], new._browse)
    assert new.project_path() == folder / "fresh.sense7"
    at = new.codebook_box.findData(FROM_FILE)
    new.codebook_box.setCurrentIndex(at)
    (folder / "book.json").write_text(json.dumps(
        {"name": "book", "codes": [{"key": "warmth"}]}), encoding="utf-8")
    picks.run(["book.json"], lambda: new.codebook_box.activated.emit(at))
    imp = picks.keep(ImportDialog(project, w))
    (folder / "chats.csv").write_text(CHATS, encoding="utf-8")
    picks.run(["chats.csv"], imp._ask_files)
    assert imp.wait_for_check(60)
    task = imp.start_import()
    assert task is not None and task.wait(60) and task.error is None, task and task.error
    imp.close()
    picks.run(None, picks.keep(QdpxImportDialog(project, w))._ask)  # (there is none)


def codebook_and_team(w: Any, picks: Picks) -> None:
    """The codebook exported, then one to import (cancelled), a version exported; a package
    for ana; a team folder linked and an invitation asked for."""
    from sense7_coder.ui.dialogs.codebook_editor import CodebookEditorDialog
    from sense7_coder.ui.team_dialog import TeamDialog

    book = picks.keep(CodebookEditorDialog(w.project, w))
    picks.run(["codebook-out.json"], book._ask_export)
    assert (picks.folder / "codebook-out.json").exists()
    picks.run(None, book._ask_import)
    from sense7_coder.ui.dialogs.codebook_versions import CodebookVersionsDialog

    versions = picks.keep(CodebookVersionsDialog(w.project, book))
    picks.run(["codebook-v1.qdc"], versions._ask_export)  # a version, as REFI-QDA
    assert (picks.folder / "codebook-v1.qdc").exists()
    book.reject()
    team = picks.keep(TeamDialog(w.project, w))
    team.package_coder.setCurrentText("ana")
    picks.run(["ana.sense7"], team.ask_package)
    picks.qtbot.waitUntil(lambda: "for ana" in team.status.text(), timeout=60_000)
    # the team folder: link one (a folder beside the project), write an invitation
    from sense7_coder.project.team.view import TeamWatch
    from sense7_coder.ui.team_folder_panel import TeamFolderDialog

    (picks.folder / "team").mkdir()
    panel = picks.keep(TeamFolderDialog(w, TeamWatch()))
    picks.run(["team"], panel.link)
    assert panel.message.text() == "", panel.message.text()
    # the first coder without an invitation (the demo's alice, who has no assignment: the
    # invitation is refused in the panel's message once the dialog has been shown)
    picks.run(["alice.invitation"], panel.invite)
    assert ((picks.folder / "alice.invitation").exists()
            or "assigned" in panel.message.text()), panel.message.text()


def exports_and_analyses(w: Any, picks: Picks) -> None:
    """The export dialog, retrieval, co-occurrence; the analyses' folder and predictions
    (cancelled); agreement's plot, figures, methods paragraph and diagnostics; merge."""
    from sense7_coder.ui.analysis.export_dialog import ExportDialog
    from sense7_coder.ui.analysis.merge_dialog import MergeDialog
    from sense7_coder.ui.cooccurrence_dialog import CooccurrenceDialog
    from sense7_coder.ui.retrieve_dialog import RetrieveDialog

    project = w.project
    export = picks.keep(ExportDialog(project, w))
    export.set_kind("long")
    picks.run(["long.csv"], export.browse)
    export.export()
    assert export.wait(60) and export.error is None, export.error
    picks.run(["segments.csv"], picks.keep(RetrieveDialog(project, w)).export)
    picks.run(["cooc.csv"], picks.keep(CooccurrenceDialog(project, w)).export)
    analyses = w.analysis.analyses()
    picks.run([""], analyses._choose_dir)
    assert analyses.out_dir.text() == str(picks.folder)
    picks.run(None, analyses.import_dialog)
    agreement = w.analysis.agreement()
    agreement.run()
    assert agreement.wait(120) and agreement.error is None, agreement.error
    picks.run(["alpha.png"], agreement.save_plot_dialog)
    picks.run(["agreement.csv"], agreement.export_dialog)
    methods = agreement.methods_dialog()
    picks.run(["methods.md"], methods.save_dialog)
    methods.close()
    picks.run([""], agreement.results.save_diagnostics_dialog)
    merge = picks.keep(MergeDialog(project, w))
    picks.run(["ana.sense7"], merge.add_dialog)
    assert merge.source_paths() == [str(picks.folder / "ana.sense7")]
    merge.reject()


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc/self/fd")
def test_every_file_dialog_beside_another_program_loses_nothing(
        gui: Any, demo_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QApplication

    folder = demo_project.parent
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "config"))  # Qt's dialog history
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "data"))  # the team folder's keys
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        assign(p, ["ana", "ben"], overlap=0.25, seed=1)
    w = gui.open(demo_project, coder="lee")
    picks = Picks(folder, monkeypatch, gui.qtbot)
    file_menu(w, picks)
    codebook_and_team(w, picks)
    exports_and_analyses(w, picks)
    assert {who for who, _, _ in picks.asked} == dialog_call_sites()  # every one of them

    # another program on the same file, then the window codes, as a person does
    assert cli("info", str(demo_project)).returncode == 0
    w.activateWindow()
    w.workspace.coding.setFocus()
    gui.qtbot.waitUntil(lambda: QApplication.focusWidget() is w.workspace.coding, timeout=5000)
    where = (w.workspace.conversation_id, w.workspace.position, w.workspace.coding.focused_key)
    gui.press(w, "4")
    seen = codings_seen_by_another_process(demo_project, "lee")
    assert seen.get(where) == 4  # a third process sees the value
    assert wal_held_is_on_disk(demo_project)
    conn = sqlite3.connect(demo_project)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def test_a_picker_that_fails_says_so_once(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that cannot show its dialog: one warning, nothing chosen."""
    from PySide6.QtWidgets import QMessageBox, QWidget

    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: warned.append(text))
    monkeypatch.setattr(file_dialogs, "picker_command",
                        lambda: (sys.executable, ["-c", "import sys; sys.exit('no display')"]))
    parent = QWidget()
    qtbot.addWidget(parent)
    assert file_dialogs.open_file(parent, "Open project", "", "") == ""
    assert warned == ["The file dialog could not be shown: it ended with status 1: no display."]


def test_the_bundle_starts_the_picker_with_the_flag_the_window_passes() -> None:
    entry = (REPO / "packaging" / "entry.py").read_text(encoding="utf-8")
    assert f'PICKER_FLAG = "{file_dialogs.PICKER_FLAG}"' in entry
    assert "sense7_coder.ui.picker" in entry


def test_the_picker_refuses_a_bad_request_in_one_line(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "sense7_coder.ui.picker", '{"mode": "x"}',
                          str(tmp_path / "a.json")], capture_output=True, text=True,
                         env=ENV, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == "sense7-coder file dialog: bad request (unknown mode 'x')"

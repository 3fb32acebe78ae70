"""Who is coding? in the window: a typed name is a new coder, roles are a lead's explicit
control, the lead passphrase is asked, a package codes as its coder, and a lead working
with blind coding on is neither told values are hidden nor stopped on a reveal step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.project.package import make_package
from sense7_coder.store import history as store_history
from sense7_coder.ui import coder_dialog
from sense7_coder.ui.coder_dialog import CoderDialog

SECRET = "open sesame"


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    p = make_project(tmp_path)
    p.set_coder("lee", "adjudicator")
    code(p, "ana", {("c1", 2, "overall"): 4})
    p.set_coder("lee")
    yield p
    p.close()


def _row(dialog: CoderDialog, name: str) -> int:
    return next(i for i in range(dialog.list.count())
                if dialog.list.item(i).data(Qt.ItemDataRole.UserRole) == name)


def test_a_typed_name_never_takes_the_selected_rows_role(qtbot: Any, study: Project) -> None:
    dialog = CoderDialog(study, "lee")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.list.setCurrentRow(_row(dialog, "lee"))
    assert dialog.role.currentText() == "adjudicator"
    dialog.name.clear()
    qtbot.keyClicks(dialog.name, "alice")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert study.coder == "alice" and study.coder_role("alice") == "coder"
    assert not study.is_lead()
    switch = store_history.rows(study.db, kinds=("identity",))
    assert (switch[-1]["before"], switch[-1]["after"]) == ("lee", "alice")


def test_only_a_lead_changes_roles_from_the_roles_box(qtbot: Any, study: Project,
                                                      tmp_path: Path) -> None:
    study.set_coder("ana")
    dialog = CoderDialog(study, "ana")
    qtbot.addWidget(dialog)
    assert not dialog.role_button.isEnabled() and not dialog.passphrase_button.isEnabled()
    assert "Only a lead" in dialog.roles_note.text()
    study.set_coder("lee")
    dialog = CoderDialog(study, "lee")
    qtbot.addWidget(dialog)
    dialog.list.setCurrentRow(_row(dialog, "ana"))
    assert dialog.role_button.isEnabled()
    dialog.role.setCurrentText("adjudicator")
    qtbot.mouseClick(dialog.role_button, Qt.MouseButton.LeftButton)
    assert study.coder_role("ana") == "adjudicator"
    assert "ana    (adjudicator)" in [dialog.list.item(i).text()
                                      for i in range(dialog.list.count())]
    dialog.grab().save(str(tmp_path / "coder_dialog.png"))


def test_taking_a_lead_identity_in_the_window_asks_the_passphrase(
        qtbot: Any, study: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    study.set_lead_passphrase(SECRET)
    study.close()
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: warnings.append(text))
    answers = iter(["guess", None, SECRET])
    asked: list[str] = []

    def ask(_parent: object, name: str) -> str | None:
        asked.append(name)
        return next(answers)

    monkeypatch.setattr(coder_dialog, "ask_passphrase", ask)
    with Project.open(study.path, backup=False) as p:
        p.set_coder("ana")
        dialog = CoderDialog(p, "lee")
        qtbot.addWidget(dialog)
        dialog.accept()  # a wrong passphrase: refused, said why
        assert p.coder == "ana" and warnings and warnings[-1].startswith("Wrong lead passphrase")
        dialog.accept()  # cancelled: nothing changes, the dialog stays
        assert p.coder == "ana" and dialog.result() == 0
        dialog.accept()
        assert p.coder == "lee" and p.is_lead() and asked == ["lee"] * 3


def test_a_package_opens_as_its_coder_in_the_window(gui: Any, qtbot: Any, study: Project,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from sense7_coder.ui.main_window import MainWindow

    monkeypatch.setattr(MainWindow, "ask_coder", lambda *_a: False)  # never asked
    assign(study, ["ana"])
    make_package(study, "ana", tmp_path / "ana.sense7")
    w = gui.open(tmp_path / "ana.sense7", coder=None)  # no dialog: it knows who codes
    assert w.project.coder == "ana"
    dialog = CoderDialog(w.project)
    qtbot.addWidget(dialog)
    assert dialog.name.text() == "ana" and dialog.name.isReadOnly()
    assert not dialog.roles_box.isVisibleTo(dialog)


def test_a_lead_coding_blind_is_not_stopped_on_a_reveal_step(gui: Any, qtbot: Any,
                                                              demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")
    w = gui.open(demo_project)
    ws = w.workspace
    messages: list[str] = []
    ws.message.connect(messages.append)
    w.actions_.blind.trigger()
    assert ws.project.blind_coding
    bar = w.statusBar()
    assert "you lead" in bar.currentMessage() + bar.toolTip()
    row = ws.coding.rows["overall"]
    assert "alice" in row.others_label.text()  # the lead sees the others' values
    assert "Hidden" not in ws.ratings.shown_text()
    assert "shows the users' ratings" not in ws.coding.status.text()
    gui.press(w, "4", "D", "D")  # rate, then done: a lead goes straight on
    assert ws.position == 4
    assert not any("shown now" in m for m in messages)

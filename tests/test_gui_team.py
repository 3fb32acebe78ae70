"""The team screens: assignments and packages, a coder's own list, the turn history,
retrieval, and blinding that the window keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.ui.history_dialog import TurnHistoryDialog
from sense7_coder.ui.retrieve_dialog import RetrieveDialog
from sense7_coder.ui.team_dialog import TeamDialog


def make_lead(path: Path, coders: tuple[str, ...] = ("ana", "ben")) -> None:
    with Project.open(path, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        assign(p, list(coders), overlap=0.25, seed=1)


def test_lead_assigns_sees_progress_and_writes_a_package(qtbot: Any, demo_project: Path,
                                                         tmp_path: Path) -> None:
    with Project.open(demo_project, backup=False) as project:
        project.set_coder("lee", "adjudicator")
        dialog = TeamDialog(project)
        qtbot.addWidget(dialog)
        assert dialog.assign_box.isEnabled() and dialog.empty.isVisibleTo(dialog)
        dialog.coders_edit.setText("ana, ben")
        dialog.overlap.setValue(25)
        assert dialog.run_assign().wait(30)
        assert "assigned 12 conversations (3 overlap conversations to every coder)" in \
            dialog.status.text()
        rows = dialog.progress_rows()
        assert [(r[0], r[1], r[2]) for r in rows] == [("ana", "8", "3"), ("ben", "7", "3")]
        out = tmp_path / "ana.sense7"
        assert dialog.write_package("ana", out).wait(30)
        assert "8 conversations for ana" in dialog.status.text()
    with Project.open(out, backup=False) as pkg:
        assert pkg.info()["conversations"] == 8 and pkg.package_coder == "ana"


def test_a_coder_cannot_assign(qtbot: Any, demo_project: Path) -> None:
    make_lead(demo_project)
    with Project.open(demo_project, backup=False) as project:
        project.set_coder("ana")
        dialog = TeamDialog(project)
        qtbot.addWidget(dialog)
        assert not dialog.assign_box.isEnabled() and not dialog.package_box.isEnabled()
        assert "Only a lead" in dialog.status.text()
        assert [r[0] for r in dialog.progress_rows()] == ["ana", "ben"]


def test_coder_list_shows_own_assignment_and_hides_the_model(gui: Any, demo_project: Path
                                                             ) -> None:
    make_lead(demo_project)
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee")
        p.blind_coding = True
        p.hidden_attributes = ["model"]
        mine = len(p.db.execute("SELECT 1 FROM assignments WHERE coder = 'ana'").fetchall())
    w = gui.open(demo_project, coder="ana")
    panel = w.workspace.list_panel
    assert panel.mine.isChecked() and panel.model.rowCount() == mine
    assert panel.count_label.text() == f"{mine} of 12 conversations"
    assert panel.assignment.text().startswith("Your assignment: 0 of ")
    assert panel.model.data(panel.model.index(0, 2)) == "(hidden)"
    assert panel.model_box.isHidden()
    assert w.workspace.conversation.model is None  # nor in the transcript
    panel.mine.setChecked(False)
    assert panel.model.rowCount() == 12


def test_turn_history_shows_changes_and_keeps_blinding(qtbot: Any, demo_project: Path) -> None:
    from sense7_coder.domain.models import Unit

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        p.blind_coding = True
        p.set_coder("zoe")
        p.set_value(Unit("101", 2), "overall", 2)
        p.set_value(Unit("101", 2), "overall", 3)
        dialog = TurnHistoryDialog(p, "101", 2)
        qtbot.addWidget(dialog)
        assert {r["coder"] for r in dialog.rows} == {"zoe"}  # blind: only her own
        cells = [dialog.table.item(0, j).text() for j in range(1, 7)]  # newest first
        assert cells == ["zoe", "change coding", "overall", "2", "3", "edit"]
        assert "Blind coding" in dialog.note.text()
        p.set_coder("lee")
        lead = TurnHistoryDialog(p, "101", 2)
        qtbot.addWidget(lead)
        assert {"alice", "zoe"} <= {r["coder"] for r in lead.rows}


def test_retrieve_lists_units_of_a_value_and_goes_to_one(qtbot: Any, demo_project: Path
                                                         ) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        dialog = RetrieveDialog(p)
        qtbot.addWidget(dialog)
        dialog.choose("overall", 5)
        n = dialog.table.rowCount()
        assert n > 0 and all(v == 5 for v in dialog.frame["value"])
        assert dialog.table.item(0, 5).text()  # the turn's text
        with qtbot.waitSignal(dialog.goTo) as got:
            dialog.table.cellDoubleClicked.emit(0, 0)
        assert got.args == [str(dialog.frame.iloc[0]["conversation_id"]),
                            int(dialog.frame.iloc[0]["turn"])]
        dialog.choose("overall")
        assert dialog.table.rowCount() > n


def test_blind_coder_cannot_open_reconciliation_or_unblind(gui: Any, demo_project: Path
                                                           ) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        p.blind_coding = True
    w = gui.open(demo_project, coder="ana")
    seen: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(0, answer)
    assert w.analysis.reconcile() is None
    assert seen and "only a lead" in seen[0]
    QTimer.singleShot(0, answer)
    assert w.analysis.agreement() is None  # nor the agreement with them and the users
    assert "users' own ratings" in seen[1]
    QTimer.singleShot(0, answer)
    w.analysis.export()  # nor an export holding their values
    assert "they hold every coder's values" in seen[2]
    w.actions_.blind.trigger()  # a coder's click changes nothing
    assert w.project.blind_coding and w.actions_.blind.isChecked()


# -- walkthrough fixes ---------------------------------------------------------------------------

def test_down_after_a_rating_never_skips_a_code(gui: Any, demo_project: Path) -> None:
    from PySide6.QtCore import Qt

    w = gui.open(demo_project)
    ws = w.workspace
    assert "rate, then next" in ws.coding.hint.text()  # the hint line says so
    assert ws.coding.focused_key == "overall"
    gui.press(w, "4")  # rated: the focus moved on by itself
    assert ws.coding.focused_key == "affective"
    gui.press(w, Qt.Key.Key_Down)  # out of habit: stays on affective
    assert ws.coding.focused_key == "affective"
    gui.press(w, Qt.Key.Key_Down)  # a second Down moves
    assert ws.coding.focused_key == "cognitive"
    w.actions_.auto_advance.trigger()  # off: the hint says nothing of moving
    assert "then next" not in ws.coding.hint.text()
    gui.press(w, "3")
    assert ws.coding.focused_key == "cognitive"


def test_list_columns_elide_in_the_middle_with_the_full_model_as_tip(gui: Any,
                                                                     demo_project: Path) -> None:
    from PySide6.QtCore import Qt

    w = gui.open(demo_project)
    panel = w.workspace.list_panel
    assert panel.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    model = panel.model.data(panel.model.index(0, 2))
    assert model and panel.model.data(panel.model.index(0, 2),
                                      Qt.ItemDataRole.ToolTipRole) == model


def test_status_messages_fit_and_clear_when_the_turn_changes(gui: Any, demo_project: Path
                                                             ) -> None:
    from PySide6.QtCore import Qt

    w = gui.open(demo_project)
    bar = w.statusBar()
    gui.press(w, "4", "D")  # seven codes left empty: the long question
    asked = bar.currentMessage()
    assert asked.startswith("Press Ctrl+Enter")
    assert bar.toolTip().startswith("Press Ctrl+Enter (or D) again to mark turn 2 done")
    assert "Relational continuity" in bar.toolTip()  # cut to fit: the whole text in the tip
    room = bar.width() - sum(x.width() for x in (w.project_label, w.coder_label,
                                                  w.progress_label, w.saved_label))
    assert bar.fontMetrics().horizontalAdvance(asked) <= room
    gui.press(w, "D")  # done: the move clears the question, then says what happened
    assert (bar.toolTip() or bar.currentMessage()).startswith("Turn 2 done")
    gui.press(w, Qt.Key.Key_PageDown)
    assert bar.currentMessage() == "" and bar.toolTip() == ""


def _click_in_next_box(text: str, seen: list[str]) -> None:
    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox), box
        seen.append(f"{box.text()} {box.informativeText()}")
        next(b for b in box.buttons() if b.text() == text).click()

    QTimer.singleShot(0, answer)


def test_a_missing_recent_project_can_be_located_or_removed(qtbot: Any, demo_project: Path,
                                                            tmp_path: Path) -> None:
    from sense7_coder.ui.main_window import MainWindow
    from sense7_coder.ui.settings import Settings

    moved = tmp_path / "moved" / demo_project.name
    moved.parent.mkdir()
    gone = tmp_path / "gone.sense7"
    Settings().add_recent(gone)
    Settings().add_recent(tmp_path / "old-place.sense7")
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert "open it to locate or remove it" in w.welcome.recent.item(0).text()
    seen: list[str] = []
    _click_in_next_box("Remove from the list", seen)
    assert not w.open_recent(gone)
    assert "is no longer at" in seen[0]
    assert str(gone) not in Settings().recent_files()
    demo_project.rename(moved)
    w.ask_location = lambda _path: str(moved)  # type: ignore[method-assign]
    w.ask_coder = lambda project, _s: (project.set_coder("dana"), True)[1]  # type: ignore
    _click_in_next_box("Locate…", seen)
    assert w.open_recent(tmp_path / "old-place.sense7")
    assert w.project is not None and w.project.path == moved
    assert Settings().recent_files()[0] == str(moved)
    assert str(tmp_path / "old-place.sense7") not in Settings().recent_files()


def test_opening_a_csv_as_a_project_offers_to_import_it(gui: Any, demo_project: Path,
                                                        tmp_path: Path, monkeypatch: Any
                                                        ) -> None:
    w = gui.open(demo_project)
    data = tmp_path / "chats.csv"
    data.write_text("conversation_id,turn,role,text\nx,1,user,hi\n", encoding="utf-8")
    asked: list[Any] = []
    monkeypatch.setattr(w, "import_conversations", lambda files=None: asked.append(files))
    seen: list[str] = []
    _click_in_next_box("Import…", seen)
    assert not w.open_project(data)
    assert "holds conversations or ratings, not a sense7-coder project" in seen[0]
    assert asked == [[data]]
    assert w.project is not None and w.project.path == demo_project  # still open


def test_search_hits_are_marked_in_the_transcript(gui: Any, demo_project: Path) -> None:
    from PySide6.QtCore import Qt

    w = gui.open(demo_project)
    ws = w.workspace
    gui.press(w, "F", modifier=Qt.KeyboardModifier.ControlModifier)
    gui.press(w, "deadline", Qt.Key.Key_Return)
    text = ws.transcript.toPlainText().casefold()
    assert text.count("deadline") >= 1
    assert ws.transcript.search_hits() == text.count("deadline")
    marked = [s.cursor.selectedText().casefold() for s in ws.transcript.extraSelections()]
    assert marked.count("deadline") == text.count("deadline")
    ws.list_panel.search.clear()
    assert ws.transcript.search_hits() == 0



def test_a_second_window_on_one_file_asks_who_is_coding(gui: Any, qtbot: Any,
                                                        demo_project: Path) -> None:
    from sense7_coder.ui.main_window import MainWindow

    first = gui.open(demo_project, coder="dana")
    assert first.project.coder == "dana"
    second = MainWindow()
    qtbot.addWidget(second)
    asked: list[Any] = []

    def ask(project: Any, suggested: Any) -> bool:
        asked.append(suggested)
        project.set_coder("emil")
        return True

    second.ask_coder = ask  # type: ignore[method-assign]
    assert second.open_project(demo_project)  # dana is remembered, yet it asks
    assert asked == [None] and second.project.coder == "emil"
    assert first.project.coder == "dana"


def test_turn_history_newest_first_and_a_long_memo_never_widens_it(qtbot: Any,
                                                                  demo_project: Path) -> None:
    from sense7_coder.domain.models import Unit

    memo = "A long memo about this turn. " * 40
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("zoe")
        p.set_value(Unit("101", 2), "overall", 2)
        p.set_memo(Unit("101", 2), memo)
        dialog = TurnHistoryDialog(p, "101", 2)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        times = [dialog.rows[i]["at"] for i in range(len(dialog.rows))]
        assert times == sorted(times, reverse=True)
        assert "memo" in dialog.table.item(0, 2).text()  # the latest change on top
        after = dialog.table.item(0, 5)
        assert after.toolTip().strip() == memo.strip()  # the whole text on hover
        table = dialog.table
        used = sum(table.columnWidth(j) for j in range(table.columnCount()))
        assert used <= table.viewport().width() + 2  # Time, Coder, What stay in view
        assert table.horizontalScrollBar().maximum() == 0
        assert dialog.isSizeGripEnabled()
        dialog.resize(dialog.width() + 200, dialog.height() + 100)  # resizable
        qtbot.waitUntil(lambda: dialog.width() > 900, timeout=1000)

"""The coding workspace driven by keyboard like a coder would, checked in the project file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.ui.main_window import MainWindow
from sense7_coder.ui.workspace.code_row import NOT_SET

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier


def test_keyboard_only_coding_is_saved_at_once(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    assert (ws.conversation_id, ws.position) == ("101", 2)  # first unfinished turn
    assert ws.coding.focused_key == "overall"
    gui.press(w, "4", "3", "N")  # overall, affective, cognitive (auto-advance)
    gui.press(w, "C", "5")  # jump back to cognitive by its letter
    gui.press(w, "R", "2", Qt.Key.Key_Up, Qt.Key.Key_Up)  # response = 2, focus back up
    assert ws.coding.focused_key == "cognitive"
    gui.press(w, Qt.Key.Key_Delete)  # clear cognitive
    assert gui.stored(demo_project, "dana", "101", 2, "overall") == 4
    assert gui.stored(demo_project, "dana", "101", 2, "affective") == 3
    assert gui.stored(demo_project, "dana", "101", 2, "cognitive") is gui.MISSING
    assert gui.stored(demo_project, "dana", "101", 2, "response") == 2
    gui.press(w, "C", "0")  # 0 = not applicable
    assert gui.stored(demo_project, "dana", "101", 2, "cognitive") is None

    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)  # codes left empty: it asks first
    assert not gui.stored_done(demo_project, "dana", "101", 2)
    assert "Press Ctrl+Enter (or D) again" in (w.statusBar().toolTip() or w.statusBar().currentMessage())
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)  # done, on to the next unfinished turn
    assert gui.stored_done(demo_project, "dana", "101", 2)
    assert (ws.conversation_id, ws.position) == ("101", 4)
    assert ws.coding.focused_key == "overall"
    gui.press(w, "5", Qt.Key.Key_PageUp)  # previous turn
    assert ws.position == 2
    assert ws.coding.value_of("response") == 2
    assert gui.stored(demo_project, "dana", "101", 4, "overall") == 5
    assert "1 / " in w.progress_label.text()
    assert w.saved_label.text().startswith("All changes saved")
    assert w.project_label.text() == demo_project.name
    assert demo_project.name in w.windowTitle() and "sense7-coder" in w.windowTitle()


def test_values_out_of_scale_are_refused_without_writing(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    gui.press(w, "7")
    assert gui.stored(demo_project, "dana", "101", 2, "overall") is gui.MISSING
    assert w.workspace.coding.focused_key == "overall"


def test_undo_redo_name_the_change_and_move_back_to_it(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    gui.press(w, "A", "4")
    assert w.actions_.undo.text() == "&Undo set Affective understanding to good"
    gui.press(w, Qt.Key.Key_PageDown, Qt.Key.Key_PageDown)
    assert ws.position == 6
    gui.press(w, "z", modifier=CTRL)
    assert gui.stored(demo_project, "dana", "101", 2, "affective") is gui.MISSING
    assert ws.position == 2  # the view went back to the turn that changed
    assert ws.coding.value_of("affective") is NOT_SET
    assert w.actions_.redo.text() == "&Redo set Affective understanding to good"
    assert not w.actions_.undo.isEnabled()
    gui.press(w, Qt.Key.Key_PageDown)
    gui.press(w, "z", modifier=CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert gui.stored(demo_project, "dana", "101", 2, "affective") == 4
    assert ws.position == 2
    assert ws.coding.value_of("affective") == 4


def test_switching_coder_keeps_each_coders_work_apart(gui, qtbot, demo_project: Path, monkeypatch) -> None:
    w = gui.open(demo_project)
    gui.press(w, "3")
    ws = w.workspace

    def as_erin(project: Project, suggested: str | None) -> bool:
        project.set_coder("erin")
        return True

    monkeypatch.setattr(w, "ask_coder", as_erin)
    w.actions_.coder.trigger()
    assert "erin" in w.coder_label.text()
    ws = w.workspace
    ws.go_to("101", 2)
    assert ws.coding.value_of("overall") is NOT_SET  # dana's value is not erin's
    assert "dana <b>3</b>" in ws.coding.rows["overall"].others_label.text()
    ws.coding.setFocus()
    gui.press(w, "O", "5")
    assert gui.stored(demo_project, "erin", "101", 2, "overall") == 5
    assert gui.stored(demo_project, "dana", "101", 2, "overall") == 3


def test_blind_coding_hides_until_done(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    w.actions_.blind.trigger()
    assert ws.project.blind_coding
    row = ws.coding.rows["overall"]
    assert "hidden until you mark it done" in row.others_label.text()
    assert "alice" not in row.others_label.text()
    assert "Hidden while blind coding" in ws.ratings.shown_text()
    assert "very good" not in ws.ratings.shown_text()

    gui.press(w, "4", "D", "D")  # rate, then done (D twice: codes are empty); it stays
    assert ws.position == 2
    assert "alice <b>5</b>" in row.others_label.text()
    assert "overall: 5 very good" in ws.ratings.shown_text()
    gui.press(w, "D")  # the second press goes on to turn 4
    assert ws.position == 4
    assert "hidden" in ws.coding.rows["overall"].others_label.text()
    gui.press(w, Qt.Key.Key_PageUp)
    assert ws.position == 2
    assert "alice <b>5</b>" in row.others_label.text()
    with Project.open(demo_project, backup=False) as p:
        assert p.blind_coding

    w.actions_.blind.trigger()  # off again: everything shows on unfinished turns too
    gui.press(w, Qt.Key.Key_PageDown)
    assert "alice" in ws.coding.rows["overall"].others_label.text()


def test_reopening_restores_coder_and_last_position(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    w.workspace.go_to("105", 4)
    w.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    assert again.open_project(demo_project)  # no coder given: remembered, no dialog
    assert again.project.coder == "dana"
    assert (again.workspace.conversation_id, again.workspace.position) == ("105", 4)
    assert again.workspace.list_panel.current_id() == "105"


def test_the_place_is_remembered_within_a_second_without_closing(gui, qtbot, monkeypatch,
                                                                demo_project: Path) -> None:
    w = gui.open(demo_project)
    writes: list[tuple[str, int, int]] = []
    write = w.settings.set_last_position
    monkeypatch.setattr(w.settings, "set_last_position",
                        lambda path, *place: (writes.append(place), write(path, *place)))
    for _ in range(6):
        gui.press(w, Qt.Key.Key_PageDown)
    ws = w.workspace
    place = (ws.conversation_id, ws.position, ws.sentence)
    assert len(writes) < 6  # not a settings-file write on every key
    qtbot.waitUntil(lambda: w.settings.last_position(demo_project) == place, timeout=3000)
    assert writes[-1] == place


def test_memo_is_saved_when_leaving_it(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    gui.press(w, "m", modifier=CTRL)
    assert w.workspace.memo.editor.hasFocus()
    gui.press(w, "Unsure: tone or content?")
    gui.press(w, Qt.Key.Key_Escape)
    assert w.workspace.coding.hasFocus()
    with Project.open(demo_project, backup=False) as p:
        assert p.turn_state("101", "dana")["memos"][(2, 0)] == "Unsure: tone or content?"
    assert "edit memo" in w.actions_.undo.text()


def test_another_window_changing_the_file_is_shown(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")
        other.set_value(Unit("101", 2), "overall", 1)
    gui.press(w, "R")
    w.check_elsewhere()
    assert "frank <b>1</b>" in w.workspace.coding.rows["overall"].others_label.text()
    assert w.workspace.coding.focused_key == "response"  # the coder's place is kept
    assert (w.workspace.conversation_id, w.workspace.position) == ("101", 2)


def test_auto_advance_can_be_turned_off_and_is_remembered(gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    w.actions_.auto_advance.trigger()  # off
    gui.press(w, "4")
    assert w.workspace.coding.focused_key == "overall"
    w.close()
    again = gui.open(demo_project)
    assert not again.actions_.auto_advance.isChecked()
    assert not again.workspace.auto_advance


def test_the_list_shows_only_what_the_project_has_and_long_ids_whole(gui, tmp_path: Path) -> None:
    from sense7_coder.domain.models import Conversation, Turn
    from sense7_coder.resources import resolve_codebook
    from sense7_coder.store import conversations as store_conv

    # like ESConv: long ids with a shared beginning, no participants, no models
    path = tmp_path / "esconv-like.sense7"
    convs = [Conversation(f"FailedESConv-{i}", turns=[Turn(1, "user", "hi"),
                                                      Turn(2, "assistant", "hello")])
             for i in range(1, 40)]
    with Project.create(path, resolve_codebook("sense7")) as p, p.pdb.atomic() as db:
        store_conv.insert_conversations(db, convs)
    w = gui.open(path)
    panel = w.workspace.list_panel
    table = panel.table
    assert table.isColumnHidden(1) and table.isColumnHidden(2)  # nothing to show there
    assert panel.participant_box.isHidden() and panel.model_box.isHidden()
    widest = table.fontMetrics().horizontalAdvance("FailedESConv-39")
    assert table.columnWidth(0) > widest  # read whole, not "Fail…nv-39"

    demo = gui.synthetic(tmp_path / "models.sense7", 5)
    from sense7_coder.project.assignments import assign

    with Project.open(demo, backup=False) as p:  # dana has an assignment to follow
        p.set_coder("lee", "adjudicator")
        assign(p, ["dana"], overlap=0.0, seed=1)
    w2 = gui.open(demo)
    assert w2.workspace.list_panel.mine.isChecked()
    table2 = w2.workspace.list_panel.table
    assert not table2.isColumnHidden(1) and not table2.isColumnHidden(2)
    assert table2.columnWidth(0) > table2.fontMetrics().horizontalAdvance("c00004")
    table2.horizontalHeader().resizeSection(0, 150)  # the coder widens it by hand
    assert w2.workspace.set_done(True)
    assert table2.columnWidth(0) == 150  # marking a turn done keeps it


def test_a_message_that_is_not_utf8_is_shown_and_coded(gui, demo_project: Path) -> None:
    """Another tool wrote bytes that are not UTF-8 into a message and a memo: the window
    still opens on that conversation, shows the rest of the text, and coding is saved."""
    import sqlite3

    conn = sqlite3.connect(demo_project)
    conn.execute("UPDATE turns SET text = CAST(X'48656c6c6fff' AS TEXT) "
                 "WHERE conversation_id = '101' AND position = 2")
    conn.execute("INSERT INTO coders (name, role) VALUES ('dana', 'coder')")
    conn.execute("INSERT INTO memos VALUES ('dana', '101', 2, 0, CAST(X'4d656d6ffe' AS TEXT), "
                 "NULL)")
    conn.commit()
    conn.close()
    w = gui.open(demo_project)
    ws = w.workspace
    assert (ws.conversation_id, ws.position) == ("101", 2)
    assert "Hello\ufffd" in ws.transcript.toPlainText()
    assert ws.memo.editor.toPlainText() == "Memo\ufffd"
    gui.press(w, "4")
    assert gui.stored(demo_project, "dana", "101", 2, "overall") == 4


def test_moving_on_to_a_conversation_another_window_removed_says_so(gui,
                                                                    demo_project: Path) -> None:
    import sqlite3

    w = gui.open(demo_project)
    ws = w.workspace
    assert ws.conversation_id == "101"
    conn = sqlite3.connect(demo_project)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM conversations WHERE conversation_id = '102'")
    conn.commit()
    conn.close()
    assert not ws.move_conversation(1)  # the list, read before, still shows 102
    assert ws.conversation_id == "101"
    assert "no longer in the project" in (w.statusBar().toolTip() or w.statusBar().currentMessage())


def test_others_are_named_safely_and_a_crowd_is_counted(gui, demo_project: Path) -> None:
    """A coder's name is text, not markup; beyond six other coders their values are
    counted by level (3,000 crowd names made the coding panel wider than the window)."""
    with Project.open(demo_project, backup=False) as project:
        project.set_coder("<img src='x'> Ann & co")
        project.set_value(Unit("101", 2), "overall", 4)
    w = gui.open(demo_project)
    w.workspace.go_to("101", 2)
    label = w.workspace.coding.rows["overall"].others_label.text()
    assert "&lt;img src=&#x27;x&#x27;&gt; Ann &amp; co <b>4</b>" in label
    with Project.open(demo_project, backup=False) as project:
        for i in range(12):
            project.set_coder(f"crowd {i:02d}")
            project.set_value(Unit("101", 2), "overall", 1 + i % 3)
    w.workspace.refresh_all()
    w.workspace.go_to("101", 2)
    label = w.workspace.coding.rows["overall"].others_label.text()
    with Project.open(demo_project, backup=False) as project:
        others = project.db.conn.execute(
            "SELECT count(*) FROM codings WHERE conversation_id = '101' AND position = 2 "
            "AND code = 'overall' AND coder <> ?", [w.project.coder]).fetchone()[0]
    assert others > 12 and label.startswith(f"Others ({others}): ")
    assert "crowd 07" not in label and "<b>1</b> ×" in label and "<b>3</b> ×" in label
    assert w.workspace.coding.rows["overall"].others_label.wordWrap()

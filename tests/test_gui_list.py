"""The conversation list: lazy model, search and filters, and Qt's model checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtTest import QAbstractItemModelTester

from sense7_coder.project import Project
from sense7_coder.store.conversations import ConversationFilter
from sense7_coder.ui.workspace.conversation_model import (
    PAGE,
    ConversationIdRole,
    ConversationListModel,
    ProgressRole,
)

pytestmark = pytest.mark.gui
FATAL = QAbstractItemModelTester.FailureReportingMode.Fatal


def _ids(model: ConversationListModel) -> list[str]:
    return [model.conversation_id(r) or "" for r in range(model.rowCount())]


def test_model_passes_qt_model_tester_through_filter_changes(qtbot, demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as project:
        project.set_coder("alice")
        model = ConversationListModel(project)
        QAbstractItemModelTester(model, FATAL)
        assert model.rowCount() == 12 and model.columnCount() == 4
        model.set_filter(ConversationFilter(models=["GPT4"]))
        model.set_filter(ConversationFilter(text="no such words anywhere"))
        assert model.rowCount() == 0
        model.set_filter(ConversationFilter())
        model.refresh_rows()
        model.refresh_conversation("103")
        index = model.index(0, 3)
        assert model.data(index) == "4/4"  # alice finished every turn of 101
        assert model.data(index, ProgressRole) == (4, 4)
        assert model.data(model.index(2, 0), ConversationIdRole) == "103"


def test_large_list_fetches_rows_lazily(gui, qtbot, tmp_path: Path) -> None:
    path = gui.synthetic(tmp_path / "big.sense7", 3000, turns=2)
    with Project.open(path, backup=False) as project:
        project.set_coder("x")
        model = ConversationListModel(project)
        QAbstractItemModelTester(model, FATAL)
        assert model.rowCount() == 3000
        assert model.conversation_id(2999) == "c02999"
        assert model.row_of("c01234") == 1234
        fetched = model.pages_fetched
        model.data(model.index(2998, 2))
        assert model.pages_fetched == fetched  # same page, no new query
        assert fetched <= 3 + 3000 // PAGE  # never more than one query per page


def test_search_and_filters_narrow_the_list(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = w.workspace.list_panel
    panel.model_box.setCurrentIndex(panel.model_box.findData("GPT4"))
    with Project.open(demo_project, backup=False) as p:
        gpt4 = {c for c in _all_ids(p) if p.conversation(c).model == "GPT4"}
    assert set(_ids(panel.model)) == gpt4 and gpt4
    assert "of 12 conversations" in panel.count_label.text()
    panel.model_box.setCurrentIndex(0)
    panel.participant_box.setCurrentIndex(panel.participant_box.findData("P03"))
    assert set(_ids(panel.model)) == {"105", "106"}
    panel.participant_box.setCurrentIndex(0)

    qtbot.keyClicks(panel.search, "Manager")
    qtbot.waitUntil(lambda: panel.model.rowCount() < 12, timeout=2000)
    with Project.open(demo_project, backup=False) as p:
        expected = {c for c in _all_ids(p)
                    if any("manager" in t.text.lower() for t in p.conversation(c).turns)}
    assert set(_ids(panel.model)) == expected and expected
    panel.search.clear()
    panel.apply_filter()
    panel.search.setText("107")
    panel.apply_filter()
    assert _ids(panel.model) == ["107"]
    panel.search.clear()
    panel.apply_filter()


def test_status_filter_follows_this_coders_work(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel, ws = w.workspace.list_panel, w.workspace
    done_i, started_i, new_i = (panel.status_box.findText(t) for t in ("Done", "In progress", "Not started"))
    panel.status_box.setCurrentIndex(new_i)
    assert panel.model.rowCount() == 12
    ws.go_to("110")
    for _ in ws.codable:
        ws.mark_done_and_next()  # nothing coded: the first press asks,
        ws.mark_done_and_next()  # the second marks it done
    panel.status_box.setCurrentIndex(done_i)
    assert _ids(panel.model) == ["110"]
    ws.go_to("111")
    ws.choose("overall", 3)
    panel.status_box.setCurrentIndex(started_i)
    assert _ids(panel.model) == ["111"]
    panel.status_box.setCurrentIndex(0)
    assert panel.model.rowCount() == 12
    row = panel.model.row_of("110")
    assert panel.model.data(panel.model.index(row, 3)) == "2/2"


def test_next_conversation_follows_the_filtered_list(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel, ws = w.workspace.list_panel, w.workspace
    panel.model_box.setCurrentIndex(panel.model_box.findData("IC"))
    ids = _ids(panel.model)
    ws.go_to(ids[0])
    w.actions_.next_conversation.trigger()
    assert ws.conversation_id == ids[1]
    w.actions_.prev_conversation.trigger()
    assert ws.conversation_id == ids[0]


def _all_ids(p: Project) -> list[str]:
    return [r[0] for r in p.db.execute("SELECT conversation_id FROM conversations")]


def test_the_list_follows_the_coder_a_page_at_a_time(gui, qtbot, tmp_path: Path) -> None:
    """Moving from conversation to conversation, the list scrolls only when the open one
    leaves sight, then brings it near the top (two rows of context above it); arrow keys in
    the list still scroll it row by row."""
    from PySide6.QtCore import Qt

    path = gui.synthetic(tmp_path / "many.sense7", 200, turns=2)
    w = gui.open(path)
    ws = w.workspace
    table = ws.list_panel.table
    shown = table.rowAt(table.viewport().height() - 1) - table.rowAt(0)
    assert shown > 5
    seen_tops = []
    for _ in range(shown + 4):
        assert ws.move_conversation(1)
        row = ws.list_panel.model.row_of(ws.conversation_id)
        top = table.rowAt(0)
        bottom = table.rowAt(table.viewport().height() - 1)
        assert top <= row < bottom  # always in sight, never cut off
        seen_tops.append(top)
    assert seen_tops[0] == 0 and len(set(seen_tops)) == 2  # one jump, not one per move
    jumped = seen_tops[-1]
    assert ws.list_panel.model.row_of(ws.conversation_id) - jumped <= shown
    assert table.rowAt(0) == jumped
    for _ in range(3):  # back up past the top: it pages the other way
        assert ws.move_conversation(-1)
    assert table.rowAt(0) <= ws.list_panel.model.row_of(ws.conversation_id)
    table.setFocus()
    table.setCurrentIndex(ws.list_panel.model.index(table.rowAt(
        table.viewport().height() - 1) - 1, 0))
    top = table.rowAt(0)
    for _ in range(4):
        qtbot.keyClick(table, Qt.Key.Key_Down)
    assert table.rowAt(0) > top  # the keyboard still scrolls the list


def test_long_model_names_and_ids_elide_in_the_middle_with_the_whole_text_on_hover(
        gui, qtbot, demo_project: Path) -> None:
    from PySide6.QtCore import Qt

    model = "GPT-4o prompted to be especially empathic"
    participant = "participant-0000-long-identifier-7f3a"
    with Project.open(demo_project, backup=False) as p, p.db.conn:
        p.db.conn.execute("INSERT INTO participants (participant_id) VALUES (?)",
                          [participant])
        p.db.conn.execute("UPDATE conversations SET model = ?, participant_id = ? "
                          "WHERE conversation_id = '101'", [model, participant])
    w = gui.open(demo_project)
    w.resize(1280, 800)
    panel = w.workspace.list_panel
    table = panel.table
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle  # "GPT-4o…empathic"
    row = next(r for r in range(panel.model.rowCount())
               if panel.model.conversation_id(r) == "101")
    tip = Qt.ItemDataRole.ToolTipRole
    assert panel.model.data(panel.model.index(row, 2), tip) == model
    assert f"Participant {participant}" in panel.model.data(panel.model.index(row, 1), tip)
    assert "Conversation 101" in panel.model.data(panel.model.index(row, 0), tip)


def test_setting_a_code_leaves_the_list_alone_and_a_done_mark_updates_its_row(
        gui, qtbot, demo_project: Path) -> None:
    """A row shows the conversation and its progress: a value set re-reads nothing of the
    list (it re-read and repainted the row at every key press), a done mark shows at once."""
    from PySide6.QtWidgets import QApplication

    window = gui.open(demo_project)
    ws = window.workspace
    model = ws.list_panel.model
    row = model.row_of(ws.conversation_id)
    done_before = model.data(model.index(row, 3), ProgressRole)[0]
    if ws.position not in ws.codable:
        ws.move_turn(1)
    fetched = model.pages_fetched
    code = next(c.key for c in ws.project.codebook.active if c.unit == "turn")
    assert ws.choose(code, 1)
    QApplication.processEvents()
    assert model.pages_fetched == fetched
    undone = ws.position not in ws.state.done
    assert ws.set_done(undone)
    QApplication.processEvents()
    assert model.pages_fetched == fetched + 1
    expected = done_before + (1 if undone else -1)
    assert model.data(model.index(row, 3), ProgressRole)[0] == expected

"""The window's views refresh from one signal of changes: its own key presses, undo, and
what a second program writes to the same file (seen by the poll)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.changes import Changes
from sense7_coder.ui.workspace.code_row import NOT_SET

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier
HERE = ("101", 2, 0)


def heard(window: Any) -> list[Changes]:
    got: list[Changes] = []
    window.workspace.hub.changed.connect(got.append)
    return got


def test_a_key_press_and_its_undo_reach_the_views_as_changes(gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    got = heard(w)
    gui.press(w, "4")
    assert got == [Changes(units=frozenset({HERE}))]
    assert w.workspace.coding.value_of("overall") == 4
    gui.press(w, "z", modifier=CTRL)
    assert got[-1] == Changes(units=frozenset({HERE}))
    assert w.workspace.coding.value_of("overall") is NOT_SET  # read back from the file
    gui.press(w, "d")  # asks first: codes are empty
    gui.press(w, "d")
    assert got[-1] == Changes(done=frozenset({("101", 2)}))


def test_a_second_program_writing_reaches_the_views_through_the_signal(
        gui, demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")  # a coder the window knows from the start
    w = gui.open(demo_project)
    got = heard(w)
    gui.press(w, "R")
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")
        other.set_value(Unit("101", 2), "overall", 1)
        other.set_done("102", 2)
    w.check_elsewhere()
    assert got == [Changes(units=frozenset({HERE}), done=frozenset({("102", 2)}))]
    assert "frank <b>1</b>" in w.workspace.coding.rows["overall"].others_label.text()
    assert w.workspace.coding.focused_key == "response"  # the coder's place is kept
    w.check_elsewhere()
    assert len(got) == 1  # nothing new: nothing published


def test_an_import_elsewhere_reloads_the_list(gui, demo_project: Path, tmp_path: Path) -> None:
    w = gui.open(demo_project)
    got = heard(w)
    rows = w.workspace.list_panel.model.rowCount()
    src = tmp_path / "more.jsonl"
    src.write_text('{"conversation_id": "n1", "messages": [{"role": "user", "content": "hi"}, '
                   '{"role": "assistant", "content": "Hello."}]}\n', encoding="utf-8")
    from sense7_coder.project.imports import import_files

    with Project.open(demo_project, backup=False) as other:
        import_files(other, [src])
    w.check_elsewhere()
    assert got and got[-1].everything
    assert w.workspace.list_panel.model.rowCount() == rows + 1


def test_a_decision_in_the_reconcile_window_reaches_the_workspace_as_a_change(
        gui, demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")
    w = gui.open(demo_project)
    got = heard(w)
    panel = w.analysis.reconcile()
    assert panel is not None and panel.wait(30)
    d = panel.current
    assert d is not None
    assert panel.decide(d.values[next(iter(d.values))])
    u = d.unit
    assert got[-1] == Changes(consensus=frozenset({(u.conversation_id, u.position, u.sentence)}))
    assert d.consensus is not None and d.consensus["adjudicator"] == "dana"  # read back
    assert w.actions_.undo.isEnabled()

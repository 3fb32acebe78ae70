"""A model's suggestions on the coding panel's rows, driven by keyboard like a coder would."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.suggestions.stored import NewSuggestion, store_run
from sense7_coder.project.suggestions.view import set_shown_in_workspace

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier
TURN = Unit("101", 2)
VALUES = {"overall": 3, "affective": 4, "cognitive": 2, "response": 5}


def _prepare(path: Path, *, show: bool, blind: bool = False) -> None:
    with Project.open(path, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        store_run(p, "judge", "llm", "turn",
                  [NewSuggestion(TURN, k, "ok", v, f"the reply {k} reads as {v}")
                   for k, v in VALUES.items()], requests=1)
        set_shown_in_workspace(p, show)
        p.blind_coding = blind


def _source(path: Path, coder: str, code: str) -> tuple[object, ...] | None:
    with Project.open(path, backup=False) as p:
        return p.db.execute(
            "SELECT value, source FROM codings WHERE coder = ? AND conversation_id = '101' "
            "AND position = 2 AND code = ?", [coder, code]).fetchone()


def _line(w, key: str):
    return w.workspace.model_suggestions.lines.get(key)


def test_shown_only_when_the_lead_allows_it(gui, demo_project: Path) -> None:
    _prepare(demo_project, show=False)
    w = gui.open(demo_project)
    assert (w.workspace.conversation_id, w.workspace.position) == ("101", 2)
    assert all(line.isHidden() for line in w.workspace.model_suggestions.lines.values())
    gui.press(w, "Y")
    assert _source(demo_project, "dana", "overall") is None
    w.close()


def test_keys_take_a_suggestion_with_its_provenance(gui, demo_project: Path) -> None:
    _prepare(demo_project, show=True)
    w = gui.open(demo_project)
    ws = w.workspace
    line = _line(w, "affective")
    assert line is not None and line.isVisible()
    assert "Model suggests" in line.text.text() and "4 good" in line.text.text()
    assert "the reply affective reads as 4" in line.text.text()
    assert ws.coding.focused_key == "overall"
    gui.press(w, "Y")  # the focused code's suggestion, then on to the next code
    assert _source(demo_project, "dana", "overall") == (3, "suggestion_accepted")
    assert ws.coding.value_of("overall") == 3  # read back through the change, not patched
    assert ws.coding.focused_key == "affective"
    assert _line(w, "overall").button.text() == "✓ yours"
    gui.press(w, "R", "1")  # the coder's own value stays the coder's
    gui.press(w, Qt.Key.Key_Y, modifier=Qt.KeyboardModifier.ShiftModifier)  # the rest
    assert _source(demo_project, "dana", "affective") == (4, "suggestion_accepted")
    assert _source(demo_project, "dana", "cognitive") == (2, "suggestion_accepted")
    assert _source(demo_project, "dana", "response") == (5, "suggestion_accepted")
    assert _source(demo_project, "dana", "prosocial") is None  # no suggestion there
    assert w.actions_.undo.text() == "&Undo take the model's values of 3 codes"
    gui.press(w, "z", modifier=CTRL)  # one step puts back all three
    assert [_source(demo_project, "dana", k) for k in ("affective", "cognitive", "response")
            ] == [None, None, (1, "coded")]  # the coder's own value is back
    assert _source(demo_project, "dana", "overall") == (3, "suggestion_accepted")
    w.close()


def test_a_blind_coder_sees_it_after_own_value_and_reveal(gui, demo_project: Path) -> None:
    _prepare(demo_project, show=True, blind=True)
    w = gui.open(demo_project, coder="dora")
    ws = w.workspace
    assert (ws.conversation_id, ws.position) == ("101", 2)
    lines = ws.model_suggestions.lines
    assert all(line.isHidden() for line in lines.values())
    gui.press(w, "A", "2")  # own value of affective, not revealed yet
    assert all(line.isHidden() for line in lines.values())
    gui.press(w, "Y")
    assert _source(demo_project, "dora", "affective")[0] == 2  # nothing taken
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)  # done with codes left empty: revealed
    assert (ws.conversation_id, ws.position) == ("101", 2)
    assert _line(w, "affective").isVisible()
    assert "4 good" in _line(w, "affective").text.text()
    for key in ("overall", "cognitive", "response"):  # no own value there: still hidden
        assert _line(w, key) is None or _line(w, key).isHidden()
    w.close()


def test_the_analysis_window_shows_the_evaluation_per_dimension(qtbot, demo_project: Path,
                                                                tmp_path: Path) -> None:
    from sense7_coder.project.prediction.predictors import run_baseline
    from sense7_coder.ui.analysis.analysis_panel import AnalysisPanel

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        run_baseline(p, level="turn")
        panel = AnalysisPanel(p)
        qtbot.addWidget(panel)
        panel.out_dir.setText(str(tmp_path / "out"))
        panel.show()
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert panel.wait(180) and panel.error is None, panel.error
        panel.table_choice.setCurrentIndex(panel.table_choice.findData(
            "evaluation_per_dimension"))
        model = panel.table_model
        header = [model.headerData(c, Qt.Orientation.Horizontal) for c in
                  range(model.columnCount())]
        assert {"accuracy_low", "spearman_high"} <= set(header)
        assert model.index(0, 0).data() == "baseline" and model.index(0, 2).data() == "overall"
        i = panel.figure_choice.findText("evaluation per dimension")
        assert i >= 0
        panel.figure_choice.setCurrentIndex(i)
        assert not panel.figure.pixmap().isNull()
        panel.close()


def test_typing_y_in_the_memo_is_text_not_an_accept(gui, demo_project: Path) -> None:
    _prepare(demo_project, show=True)
    w = gui.open(demo_project)
    ws = w.workspace
    ws.memo.editor.setFocus()
    gui.qtbot.waitUntil(lambda: ws.memo.editor.hasFocus(), timeout=2000)
    gui.press(w, "Yes")
    gui.press(w, Qt.Key.Key_Y, modifier=Qt.KeyboardModifier.ShiftModifier)
    assert ws.memo.editor.toPlainText().lower() == "yesy"  # both went into the text
    assert _source(demo_project, "dana", "overall") is None
    assert _source(demo_project, "dana", "affective") is None
    w.close()


def test_the_team_dialog_allows_suggestions_and_orders_queues(qtbot, demo_project: Path
                                                              ) -> None:
    from sense7_coder.project.assignments import assigned_to
    from sense7_coder.project.suggestions.view import shown_in_workspace
    from sense7_coder.ui.team_dialog import TeamDialog

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        for model, value in (("a", 1), ("b", 5)):  # two models apart on conversation 107
            store_run(p, model, "llm", "turn",
                      [NewSuggestion(Unit("107", 2), "affective", "ok", value, "")])
        dialog = TeamDialog(p)
        qtbot.addWidget(dialog)
        assert not dialog.show_suggestions.isChecked()
        dialog.show_suggestions.setChecked(True)
        assert shown_in_workspace(p)
        dialog.coders_edit.setText("ana")
        dialog.by_uncertainty.setChecked(True)
        assert dialog.run_assign().wait(30)
        assert "ana: queue ordered by the model's uncertainty" in dialog.status.text()
        assert assigned_to(p, "ana")[0] == "107"
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("ana")
        dialog = TeamDialog(p)
        qtbot.addWidget(dialog)
        assert dialog.show_suggestions.isChecked() and not dialog.show_suggestions.isEnabled()


def test_the_key_hint_names_the_accept_keys_only_while_suggestions_show(gui, demo_project: Path
                                                                       ) -> None:
    _prepare(demo_project, show=True)
    w = gui.open(demo_project)
    ws = w.workspace
    assert "take the model's value" in ws.coding.hint.text()
    ws.go_to("102", 2)  # no suggestion there
    assert "take the model's value" not in ws.coding.hint.text()
    w.close()


def test_an_accepted_suggestion_is_undone_like_any_value(gui, demo_project: Path) -> None:
    _prepare(demo_project, show=True)
    w = gui.open(demo_project)
    gui.press(w, "Y")
    assert _source(demo_project, "dana", "overall") == (3, "suggestion_accepted")
    assert w.actions_.undo.text() == "&Undo set Overall empathy to neutral"
    gui.press(w, "z", modifier=CTRL)
    assert _source(demo_project, "dana", "overall") is None
    gui.press(w, "z", modifier=CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert _source(demo_project, "dana", "overall") == (3, "suggestion_accepted")
    w.close()

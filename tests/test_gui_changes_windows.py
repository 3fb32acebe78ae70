"""The analysis windows follow the window's one signal of changes: what the main window or a
second program writes marks the agreement and analysis figures out of date, reads the
retrieval table again, and reaches the reconciliation queue; what a window writes itself
goes out as a change the other views hear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.changes import PREDICTIONS, Changes

pytestmark = pytest.mark.gui


def heard(window: Any) -> list[Changes]:
    got: list[Changes] = []
    window.workspace.hub.changed.connect(got.append)
    return got


def ran_agreement(w: Any) -> Any:
    panel = w.analysis.agreement()
    assert panel is not None
    panel.bootstrap.setValue(0)
    assert panel.run() is not None and panel.wait(60)
    assert panel.error is None and panel.report is not None
    assert not panel.stale
    return panel


def test_a_coding_by_a_second_program_marks_the_open_agreement_figures_out_of_date(
        gui: Any, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = ran_agreement(w)
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")
        other.set_value(Unit("101", 2), "overall", 1)
    w.check_elsewhere()
    assert panel.stale
    assert "changed since these figures were computed" in panel.status.text()
    assert "frank" in panel.filters.lists["coders"].keys()  # noqa: SIM118 (a CheckList)
    assert panel.run() is not None and panel.wait(60)
    assert not panel.stale and panel.status.text().startswith("Done")


def test_a_memo_alone_leaves_the_agreement_figures_as_they_are(
        gui: Any, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = ran_agreement(w)
    w.workspace.hub.publish(Changes(memos=frozenset({("101", 2, 0)})))
    assert not panel.stale and panel.status.text().startswith("Done")


def test_a_coding_in_the_main_window_marks_the_agreement_figures_out_of_date(
        gui: Any, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = ran_agreement(w)
    panel.hide()  # back to the main window; the agreement window still hears
    assert w.workspace.choose("overall", 4)  # what the key 4 does in the coding panel
    assert gui.stored(demo_project, "dana", "101", 2, "overall") == 4
    assert panel.stale


def test_the_retrieval_table_reads_a_second_program_s_coding_at_once(
        gui: Any, qtbot: Any, demo_project: Path) -> None:
    from sense7_coder.ui.retrieve_dialog import RetrieveDialog

    w = gui.open(demo_project)
    dialog = RetrieveDialog(w.project, w)
    qtbot.addWidget(dialog)
    w.listen(dialog.show_changes)
    dialog.show()
    dialog.choose("overall")
    before = dialog.table.rowCount()
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")
        other.set_value(Unit("101", 2), "overall", 1)
    w.check_elsewhere()
    assert dialog.table.rowCount() == before + 1
    coders = {dialog.table.item(i, 0).text() for i in range(dialog.table.rowCount())}
    assert "frank" in coders


def test_the_reconcile_window_reads_its_queue_again_after_a_coding_elsewhere(
        gui: Any, demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")
    w = gui.open(demo_project)
    panel = w.analysis.reconcile()
    assert panel is not None and panel.wait(30)
    d = panel.current
    assert d is not None
    u = d.unit
    # its own decision comes back through the signal: nothing to read again
    assert panel.decide(d.values[next(iter(d.values))])
    assert not panel.stale
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("frank")
        other.set_value(Unit(u.conversation_id, u.position, u.sentence), d.code,
                        d.values[next(iter(d.values))])
    w.check_elsewhere()
    if panel.isActiveWindow():  # read again at once
        assert panel.load_task is not None and panel.wait(30)
        assert any("frank" in x.values for x in panel.queue if x.unit == u and x.code == d.code)
    else:  # read again when the user comes back to it
        assert panel.stale
        assert "read again when you come back" in panel.status.text()


def test_predictions_imported_in_the_analysis_window_reach_the_views(
        gui: Any, demo_project: Path, tmp_path: Path) -> None:
    w = gui.open(demo_project)
    got = heard(w)
    panel = w.analysis.analyses()
    assert panel is not None and panel.wait(60)
    f = tmp_path / "judge.csv"
    f.write_text("conversation_id,score\n101,3.6\n", encoding="utf-8")
    panel.import_predictions(f)
    assert panel.wait(60) and panel.error is None, panel.error
    assert PREDICTIONS in got
    assert "stored 1 conversation-level scores of 'judge'" in panel.status.text()
    w.check_elsewhere()  # written through the job's own connection: not "another window"
    assert "another window" not in w.statusBar().currentMessage()


def test_an_attribute_edited_in_the_sheet_reaches_the_views_when_it_closes(
        gui: Any, demo_project: Path, monkeypatch: Any) -> None:
    from sense7_coder.ui import qda_windows
    from sense7_coder.ui.attributes_dialog import FIXED, AttributesDialog

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")  # a lead edits attributes
    w = gui.open(demo_project)
    got = heard(w)
    edited: list[str] = []

    def edit_one(dialog: AttributesDialog) -> int:
        column = next(i for i, name in enumerate(dialog.columns) if name not in FIXED)
        edited.append(dialog.model.item(0, 0).text())
        dialog.model.item(0, column).setText("edited here")
        return 0

    monkeypatch.setattr(AttributesDialog, "exec", edit_one)
    qda_windows.show_attributes(w)
    assert edited and got == [Changes(conversations=frozenset(edited))]


def test_an_open_attribute_sheet_reads_a_second_program_s_edit(
        gui: Any, qtbot: Any, demo_project: Path) -> None:
    from sense7_coder.project.attributes import set_attribute
    from sense7_coder.ui.attributes_dialog import FIXED, AttributesDialog

    w = gui.open(demo_project)
    dialog = AttributesDialog(w.project, w)
    qtbot.addWidget(dialog)
    w.listen(dialog.show_changes)
    dialog.show()
    name = next(n for n in dialog.columns if n not in FIXED)
    cid = dialog.model.item(0, 0).text()
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("lee", "adjudicator")
        assert set_attribute(other, cid, name, "from elsewhere")
    w.check_elsewhere()
    row = next(i for i in range(dialog.model.rowCount()) if dialog.model.item(i, 0).text() == cid)
    assert dialog.model.item(row, dialog.columns.index(name)).text() == "from elsewhere"


def test_a_models_run_stored_by_a_second_program_shows_on_the_coding_rows(
        gui: Any, demo_project: Path) -> None:
    from sense7_coder.project.suggestions.stored import NewSuggestion, store_run
    from sense7_coder.project.suggestions.view import set_shown_in_workspace

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        set_shown_in_workspace(p, True)
    w = gui.open(demo_project)
    got = heard(w)
    assert (w.workspace.conversation_id, w.workspace.position) == ("101", 2)
    assert "affective" not in w.workspace.model_suggestions.shown  # no run yet
    with Project.open(demo_project, backup=False) as other:
        other.set_coder("lee", "adjudicator")
        store_run(other, "judge", "llm", "turn",
                  [NewSuggestion(Unit("101", 2), "affective", "ok", 4, "names the loss")],
                  requests=1)
    w.check_elsewhere()
    assert got == [Changes(suggestions=True)]  # named, not a reload of everything
    line = w.workspace.model_suggestions.lines["affective"]
    assert line.isVisible() and "names the loss" in line.text.text()


def test_the_team_dialog_names_what_it_changed(gui: Any, demo_project: Path,
                                               monkeypatch: Any) -> None:
    from sense7_coder.ui.team_dialog import TeamDialog

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")
    w = gui.open(demo_project)
    got = heard(w)

    def show_suggestions(dialog: TeamDialog) -> int:
        dialog._save_suggestions(True)
        dialog._save_suggestions(True)  # already so: nothing to tell
        return 0

    monkeypatch.setattr(TeamDialog, "exec", show_suggestions)
    w.show_team()
    assert got == [Changes(settings=True)]

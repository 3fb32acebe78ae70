"""What the command line could do and the analysis windows now do too (offscreen, on the demo
project): accept every strict majority in one undo step, filter the agreement by conversation
attributes, and export only some codes, coders and conversations."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from PySide6.QtCore import QAbstractItemModel, Qt, QTimer
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QApplication, QMessageBox

from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.reconcile import accept_majorities
from sense7_coder.project.selection import Selection
from sense7_coder.store.conversations import ConversationFilter, conversation_rowids
from sense7_coder.ui.analysis.agreement_panel import AgreementPanel
from sense7_coder.ui.analysis.export_dialog import ExportDialog
from sense7_coder.ui.analysis.reconcile_panel import ReconcilePanel

pytestmark = pytest.mark.gui

ATTRIBUTE, VALUE = "PreTaskDesiredEmpathy", "3"


def watch(*models: QAbstractItemModel) -> list[QAbstractItemModelTester]:
    return [QAbstractItemModelTester(m, QAbstractItemModelTester.FailureReportingMode.Fatal)
            for m in models]


@pytest.fixture
def project(demo_project: Path) -> Iterator[Project]:
    p = Project.open(demo_project, backup=False)
    yield p
    p.close()


def stored_consensus(path: Path) -> list[tuple[Any, ...]]:
    """Read through a second connection: what is really in the file."""
    with Project.open(path, backup=False) as p:
        return sorted(tuple(r) for r in p.db.execute(
            "SELECT conversation_id, position, sentence, code, value, adjudicator, rationale "
            "FROM consensus"))


def stored_codings(path: Path) -> list[tuple[Any, ...]]:
    with Project.open(path, backup=False) as p:
        return sorted(tuple(r) for r in p.db.execute(
            "SELECT coder, conversation_id, position, sentence, code, value FROM codings"))


def batch_on_a_copy(demo: Path, folder: Path, codes: list[str]) -> list[tuple[Any, ...]]:
    """What the command line's consensus --accept-majority writes, on a copy of the file."""
    copy = folder / "copy.sense7"
    shutil.copyfile(demo, copy)
    with Project.open(copy, backup=False) as p:
        p.set_coder("dana", "adjudicator")
        accept_majorities(p, Selection(codes=codes))
    return stored_consensus(copy)


def answer_next_box(accept: bool, seen: list[str]) -> None:
    """Answer the confirmation the next click opens, as a person would, noting its text."""

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox), box
        seen.append(f"{box.text()} {box.informativeText()}")
        wanted = QMessageBox.ButtonRole.AcceptRole if accept else QMessageBox.ButtonRole.RejectRole
        next(b for b in box.buttons() if box.buttonRole(b) == wanted).click()

    QTimer.singleShot(0, answer)


def open_reconcile(qtbot: Any, project: Project) -> ReconcilePanel:
    panel = ReconcilePanel(project)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.wait(30)
    return panel


def focus_queue(qtbot: Any, panel: ReconcilePanel) -> None:
    panel.activateWindow()
    panel.queue_view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.queue_view, timeout=3000)


# -- reconcile: every strict majority at once ---------------------------------------------------


def test_accept_every_majority_is_one_batch_and_one_undo_step(
        qtbot: Any, project: Project, demo_project: Path, tmp_path: Path) -> None:
    expected = batch_on_a_copy(demo_project, tmp_path, [])
    before = stored_codings(demo_project)
    project.set_coder("dana", "adjudicator")
    panel = open_reconcile(qtbot, project)
    testers = watch(panel.queue_model, panel.values_model, panel.pivot_model)
    queue = list(panel.queue)
    total = len(queue)
    with_majority = [d for d in queue if d.has_majority]
    assert 0 < len(with_majority) < total and panel.progress.text() == f"0 of {total} decided"

    seen: list[str] = []
    answer_next_box(True, seen)
    qtbot.mouseClick(panel.accept_all_button, Qt.MouseButton.LeftButton)
    assert panel.batch.task is not None and panel.batch.wait(60)
    assert f"<b>{len(with_majority)}</b> of the {total} open disagreements" in seen[0]
    assert "one undo step" in seen[0]

    # the file holds what the command line writes: majorities and unanimous units
    assert len(expected) > len(with_majority)
    assert stored_consensus(demo_project) == expected
    assert {r[5:] for r in expected} == {("dana", "majority of coders")}
    assert stored_codings(demo_project) == before  # the coders' own codings never change
    for d in queue:
        assert d.decided == d.has_majority
        if d.has_majority:
            assert d.consensus is not None and d.consensus["value"] == d.majority
    assert panel.progress.text() == f"{len(with_majority)} of {total} decided"
    assert f"Accepted the majority on {len(expected)} units: {len(with_majority)} open" in \
        panel.status.text()
    assert project.undo_label == f"accept the majority on {len(expected)} units"
    assert panel.accept_all_button.isEnabled()

    # one Ctrl+Z takes the whole batch back, in the file and in the queue; Ctrl+Y again
    focus_queue(qtbot, panel)
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stored_consensus(demo_project) == []
    assert not any(d.decided for d in panel.queue)
    assert panel.progress.text() == f"0 of {total} decided"
    assert project.undo_label is None
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert stored_consensus(demo_project) == expected
    assert stored_codings(demo_project) == before
    del testers


def test_accept_every_majority_asks_first_and_keeps_to_the_code_shown(
        qtbot: Any, project: Project, demo_project: Path, tmp_path: Path) -> None:
    project.set_coder("alice")  # a coder cannot decide
    panel = open_reconcile(qtbot, project)
    assert not panel.accept_all_button.isEnabled()
    assert panel.accept_every_majority() is None
    assert "Only an adjudicator" in panel.status.text()

    panel.become_adjudicator("dana")
    assert panel.accept_all_button.isEnabled()
    seen: list[str] = []
    answer_next_box(False, seen)  # Cancel in the confirmation: nothing is written
    qtbot.mouseClick(panel.accept_all_button, Qt.MouseButton.LeftButton)
    assert seen and panel.batch.task is None
    assert stored_consensus(demo_project) == []

    panel.show_filter.setCurrentIndex(panel.show_filter.findData("open"))
    panel.code_filter.setCurrentIndex(panel.code_filter.findData("relational"))
    shown = list(panel.queue_model.rows)
    majorities = sum(d.has_majority for d in shown)
    answer_next_box(True, seen)
    qtbot.mouseClick(panel.accept_all_button, Qt.MouseButton.LeftButton)
    assert panel.batch.wait(60)
    assert f"<b>{majorities}</b> of the {len(shown)} open disagreements on Relational " \
        "continuity" in seen[-1]
    assert stored_consensus(demo_project) == batch_on_a_copy(demo_project, tmp_path,
                                                             ["relational"])
    assert {r[3] for r in stored_consensus(demo_project)} == {"relational"}
    # the undecided view now lists only the units without a majority
    assert [d.has_majority for d in panel.queue_model.rows] == [False] * (len(shown) - majorities)


# -- agreement: conversation attributes ---------------------------------------------------------


def pick_attribute(panel_filters: Any, name: str, value: str) -> None:
    box = panel_filters.attributes
    box.name.setCurrentIndex(box.name.findText(name))
    box.value.setCurrentText(value)
    box.add_button.click()


def units_of_first_code(panel: AgreementPanel) -> int:
    m = panel.results.code_model
    cols = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())]
    return int(m.index(0, cols.index("Units")).data())


def run(panel: AgreementPanel) -> None:
    task = panel.run()
    assert task is not None and panel.wait(60) and panel.error is None, panel.error


def test_an_attribute_filter_narrows_the_agreement(qtbot: Any, project: Project,
                                                   demo_project: Path) -> None:
    # the demo's Tasks attributes are conversation attributes; some conversations have it
    matching = conversation_rowids(project.db, ConversationFilter(attributes={ATTRIBUTE: VALUE}))
    assert 0 < len(matching) < project.info()["conversations"]

    panel = AgreementPanel(project)
    qtbot.addWidget(panel)
    box = panel.filters.attributes
    testers = watch(panel.results.code_model, box.list.model(), box.name.model(),
                    box.value.model())
    panel.bootstrap.setValue(0)
    run(panel)
    every = units_of_first_code(panel)

    assert ATTRIBUTE in [box.name.itemText(i) for i in range(box.name.count())]
    box.name.setCurrentIndex(box.name.findText(ATTRIBUTE))
    assert [box.value.itemText(i) for i in range(box.value.count())] == ["1", "2", "3"]
    pick_attribute(panel.filters, ATTRIBUTE, VALUE)
    assert box.filters() == {ATTRIBUTE: VALUE}
    assert "press Run" in panel.status.text()
    run(panel)
    with Project.open(demo_project, backup=False) as other:
        report = project_agreement(other,
                                   Selection(attributes={ATTRIBUTE: VALUE}),
                                   AgreementSettings(bootstrap=0))
    alpha = next(r for r in report.for_code("overall") if r.measure == "krippendorff_alpha"
                 and "users" not in r.coders and "consensus" not in r.coders)
    assert 0 < units_of_first_code(panel) == alpha.n_units < every
    assert f"{ATTRIBUTE} = {VALUE}" in panel.summary.text()

    # one value per name: adding it again replaces the value; a value nobody has is refused
    pick_attribute(panel.filters, ATTRIBUTE, "7")
    assert box.filters() == {ATTRIBUTE: "7"} and box.list.count() == 1
    assert panel.run() is None or panel.wait(60)
    assert panel.error is not None and "no conversation has the attribute" in panel.error
    box.list.setCurrentRow(0)
    box.remove_button.click()
    assert box.filters() == {}
    run(panel)
    assert units_of_first_code(panel) == every
    del testers


# -- export: the same filters -----------------------------------------------------------------


def export(dialog: ExportDialog, path: Path) -> pd.DataFrame:
    dialog.path.setText(str(path))
    task = dialog.export()
    assert task is not None and dialog.wait(60) and dialog.error is None, dialog.error
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_export_writes_only_the_coders_and_conversations_chosen(
        qtbot: Any, project: Project, tmp_path: Path) -> None:
    dialog = ExportDialog(project)
    qtbot.addWidget(dialog)
    lists = dialog.filters.lists
    testers = watch(*(c.list.model() for c in lists.values()),
                    dialog.filters.attributes.list.model())
    dialog.set_kind("long")
    everything = export(dialog, tmp_path / "all.csv")
    assert set(everything["coder"]) == {"alice", "bashir", "chen"}

    lists["coders"].set_checked(["bashir"])
    table = export(dialog, tmp_path / "bashir.csv")
    assert set(table["coder"]) == {"bashir"}
    assert len(table) == (everything["coder"] == "bashir").sum() > 0

    pick_attribute(dialog.filters, ATTRIBUTE, VALUE)
    lists["codes"].set_checked(["overall", "affective"])
    narrow = export(dialog, tmp_path / "narrow.csv")
    matching = {str(r[0]) for r in project.db.execute(
        "SELECT conversation_id FROM conversations WHERE json_extract(attributes, ?) = ?",
        [f"$.{ATTRIBUTE}", int(VALUE)])}
    assert set(narrow["conversation_id"]) <= matching and len(narrow) > 0
    assert set(narrow["code"]) == {"overall", "affective"} and set(narrow["coder"]) == {"bashir"}
    assert len(narrow) < len(table)

    lists["coders"].set_all(False)
    assert dialog.export() is None and dialog.error == "No coders ticked: tick at least one."
    del testers


def test_export_switches_off_the_filters_a_kind_does_not_use(
        qtbot: Any, project: Project, tmp_path: Path) -> None:
    dialog = ExportDialog(project)
    qtbot.addWidget(dialog)
    tabs = dialog.filters.tabs
    enabled: Callable[[], list[str]] = lambda: [  # noqa: E731
        key for i, (key, _t) in enumerate(tabs.NAMES) if tabs.isTabEnabled(i)]
    dialog.filters.lists["coders"].set_all(False)  # would refuse a long export
    pick_attribute(dialog.filters, ATTRIBUTE, "7")  # no conversation has it
    dialog.filters.lists["codes"].set_checked(["overall"])
    dialog.set_kind("codebook")
    assert enabled() == ["codes"] and not dialog.filters.attributes.isEnabled()
    book = export(dialog, tmp_path / "codebook.csv")
    assert set(book["code"]) == {"overall"}
    dialog.set_kind("consensus")
    assert enabled() == ["codes", "models", "participants"]
    assert dialog.filters.attributes.isEnabled()


def test_decisions_made_elsewhere_reach_the_reconcile_window(
        qtbot: Any, demo_project: Path) -> None:
    """Decisions made in another window or program: the queue shows them decided and the
    coders' alpha with the consensus is computed, instead of 'No decisions yet'."""
    from sense7_coder.project.changes import Changes

    with Project.open(demo_project, backup=False) as project, \
            Project.open(demo_project, backup=False) as other:
        project.set_coder("dana", "adjudicator")
        panel = ReconcilePanel(project)
        qtbot.addWidget(panel)
        assert panel.wait(30)
        assert "No decisions yet" in panel.consensus.note.text()
        queue = list(panel.queue_model.rows)
        other.set_coder("dana", "adjudicator")
        decided = queue[:3]
        for d in decided:
            value = next(iter(d.values.values()))
            other.set_consensus(d.unit, d.code, value)
        changes = Changes(consensus=frozenset(
            (d.unit.conversation_id, d.unit.position, d.unit.sentence) for d in decided))
        panel.show_changes(changes)  # as the main window's watch publishes it
        assert all(d.decided for d in decided)
        assert panel.progress.text().startswith("3 of ")
        assert panel.wait(30)
        assert panel.pivot_model.rowCount() >= 1
        assert "No decisions yet" not in panel.consensus.note.text()


def test_agreement_restricted_to_one_codebook_version_changes_the_figures(
        qtbot: Any, project: Project) -> None:
    import copy

    from sense7_coder.domain.models import Unit
    from sense7_coder.project.codebook.editing import update_code

    key = "overall"
    pairs = project.db.execute(
        "SELECT conversation_id, position, sentence FROM codings WHERE code = ? "
        "GROUP BY conversation_id, position, sentence HAVING COUNT(*) >= 2 "
        "ORDER BY conversation_id, position LIMIT 3", [key]).fetchall()
    coders = [r[0] for r in project.db.execute(
        "SELECT DISTINCT coder FROM codings WHERE code = ? ORDER BY coder LIMIT 2", [key])]
    lead = project.db.execute("SELECT name FROM coders WHERE role = 'adjudicator'").fetchone()
    project.set_coder(lead[0] if lead else "dana", "adjudicator")
    revised = copy.deepcopy(project.code(key))
    revised.description = "Revised after the first round"
    update_code(project, revised)
    for coder in coders:  # three units coded again by two coders under the new version
        project.set_coder(coder)
        for cid, pos, sent in pairs:
            project.set_value(Unit(cid, pos, sent), key, 1)
    panel = AgreementPanel(project)
    qtbot.addWidget(panel)
    panel.bootstrap.setValue(0)
    panel.filters.lists["codes"].set_checked([key])
    numbers = [panel.version.itemData(i) for i in range(panel.version.count())]
    assert numbers[0] is None and len(numbers) >= 3  # every version, then each by number

    def units(number: int | None) -> int:
        panel.version.setCurrentIndex(panel.version.findData(number)
                                      if number is not None else 0)
        assert panel.selection().codebook_version == number
        panel.run()
        assert panel.wait(60) and panel.error is None, panel.error
        row = next(r for r in range(panel.results.code_model.rowCount())
                   if panel.results.code_model.index(r, 0).data() in (key, project.code(key)
                                                                      .label))
        cols = [panel.results.code_model.headerData(c, Qt.Orientation.Horizontal)
                for c in range(panel.results.code_model.columnCount())]
        return int(panel.results.code_model.index(row, cols.index("Units")).data())

    every, latest = units(None), units(numbers[-1])
    assert latest == len(pairs) and every > latest
    assert f"codebook version {numbers[-1]}" in panel.summary.text()
    assert units(None) == every  # every version again: the figures come back

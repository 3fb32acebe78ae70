"""The analysis windows driven as a researcher would (offscreen): agreement, reconciliation,
export and merge, on the demo project."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QApplication, QWidget

from sense7_coder.domain.agreement import ALPHA, pairwise_matrix
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.export.tables import LONG_COLUMNS
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.selection import Selection
from sense7_coder.resources import resolve_codebook
from sense7_coder.ui.analysis.agreement_panel import AgreementPanel
from sense7_coder.ui.analysis.agreement_plot import PlotItem, svg_bytes, x_range
from sense7_coder.ui.analysis.export_dialog import ExportDialog
from sense7_coder.ui.analysis.merge_dialog import MergeDialog
from sense7_coder.ui.analysis.reconcile_panel import ReconcilePanel
from sense7_coder.ui.analysis.report_rows import BAND_TEXT

pytestmark = pytest.mark.gui

SENSE7_LABELS = [c.label for c in resolve_codebook("sense7").codes]
CI_RE = re.compile(r"^\[-?\d\.\d{3}, -?\d\.\d{3}\]$")


class Models:
    """Qt's model tester on every model given, in Fatal mode (a broken model aborts)."""

    def __init__(self) -> None:
        self.testers: list[QAbstractItemModelTester] = []

    def watch(self, *models: QAbstractItemModel) -> None:
        for m in models:
            self.testers.append(QAbstractItemModelTester(
                m, QAbstractItemModelTester.FailureReportingMode.Fatal))


@pytest.fixture
def models() -> Models:
    return Models()


@pytest.fixture
def project(demo_project: Path) -> Iterator[Project]:
    p = Project.open(demo_project, backup=False)
    yield p
    p.close()


def cell(model: QAbstractItemModel, row: int, header: str, role: int = Qt.ItemDataRole.DisplayRole
         ) -> Any:
    cols = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    return model.index(row, cols.index(header)).data(role)


def column(model: QAbstractItemModel, header: str) -> list[Any]:
    return [cell(model, r, header) for r in range(model.rowCount())]


def activate(qtbot: Any, widget: QWidget, focus: QWidget) -> None:
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    focus.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is focus, timeout=3000)


def stored_consensus(path: Path) -> list[tuple[Any, ...]]:
    with Project.open(path, backup=False) as p:
        return sorted(tuple(r) for r in p.db.execute(
            "SELECT conversation_id, position, code, value, adjudicator, rationale FROM consensus"))


def stored_codings(path: Path) -> list[tuple[Any, ...]]:
    with Project.open(path, backup=False) as p:
        return sorted(tuple(r) for r in p.db.execute(
            "SELECT coder, conversation_id, position, sentence, code, value FROM codings"))


# -- agreement ---------------------------------------------------------------------------------


def run_panel(qtbot: Any, project: Project, models: Models, bootstrap: int = 40) -> AgreementPanel:
    panel = AgreementPanel(project)
    qtbot.addWidget(panel)
    models.watch(panel.results.code_model, panel.results.pair_model, panel.results.users_model)
    panel.bootstrap.setValue(bootstrap)
    panel.show()
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.wait(60)
    assert panel.error is None, panel.error
    return panel


def test_agreement_shows_every_sense7_code_with_alpha_interval_and_band(
        qtbot: Any, project: Project, models: Models, demo_project: Path) -> None:
    panel = run_panel(qtbot, project, models)
    m = panel.results.code_model
    assert column(m, "Code") == SENSE7_LABELS
    with Project.open(demo_project, backup=False) as other:
        expected = project_agreement(other, Selection(), AgreementSettings(bootstrap=40))
    for row, code in enumerate(resolve_codebook("sense7").codes):
        alpha = next(r for r in expected.for_code(code.key)
                     if r.measure == ALPHA and "users" not in r.coders
                     and "consensus" not in r.coders)
        assert cell(m, row, "α") == f"{alpha.value:.3f}"
        assert CI_RE.match(cell(m, row, "95% CI")), cell(m, row, "95% CI")
        assert cell(m, row, "Band") == BAND_TEXT[alpha.band()]
        assert int(cell(m, row, "Units")) == alpha.n_units > 0
        assert cell(m, row, "α", Qt.ItemDataRole.BackgroundRole) is not None
        assert "bootstrap" in cell(m, row, "α", Qt.ItemDataRole.ToolTipRole)
    # an undefined figure is a dash with its reason on hover
    assert set(column(m, "Fleiss' κ")) == {"—"}
    assert "Fleiss' kappa needs a fixed number" in cell(m, 0, "Fleiss' κ",
                                                        Qt.ItemDataRole.ToolTipRole)
    assert [it.label for it in panel.results.plot.items] == SENSE7_LABELS
    # the demo's intervals span .667: no band is claimed, and the window says the rule
    assert "inconclusive" in panel.results.band_label.text()
    assert "only when the whole 95% interval lies in it" in cell(
        m, 0, "Band", Qt.ItemDataRole.ToolTipRole)


def test_an_undefined_alpha_is_a_dash_with_its_reason(qtbot: Any, models: Models,
                                                     tmp_path: Path) -> None:
    from analysis_support import code, make_project

    study = make_project(tmp_path)
    same = {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 4, ("c1", 2, "affective"): 2,
            ("c2", 2, "affective"): 5}
    code(study, "alice", same)
    code(study, "bashir", same)
    panel = AgreementPanel(study)
    qtbot.addWidget(panel)
    models.watch(panel.results.code_model)
    panel.filters.lists["codes"].set_checked(["overall", "affective"])
    panel.bootstrap.setValue(0)
    panel.run()
    assert panel.wait(60) and panel.error is None, panel.error
    m = panel.results.code_model
    assert column(m, "Code") == ["Overall empathy", "Affective understanding"]
    assert cell(m, 0, "α") == "—" and cell(m, 0, "Band") == "undefined"
    assert "no variation" in cell(m, 0, "α", Qt.ItemDataRole.ToolTipRole)
    # two units: a perfect alpha, but too few units to read a band from
    assert cell(m, 1, "α") == "1.000" and cell(m, 1, "Band") == BAND_TEXT["too few units"]
    assert cell(m, 1, "95% CI") == ""  # no bootstrap asked
    assert [it.value for it in panel.results.plot.items] == [None, 1.0]
    study.close()


def test_pair_matrix_and_users_view(qtbot: Any, project: Project, models: Models) -> None:
    panel = run_panel(qtbot, project, models, bootstrap=0)
    panel.tabs.setCurrentIndex(2)  # Codes, Coefficients, Coder pairs, ...
    panel.results.pair_code.setCurrentIndex(panel.results.pair_code.findData("overall"))
    m = panel.results.pair_model
    raters = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(1, m.columnCount())]
    assert raters == ["alice", "bashir", "chen", "users"]
    assert panel.report is not None
    for weights in ("quadratic", "linear", "none"):
        panel.results.pair_weights.setCurrentIndex(panel.results.pair_weights.findData(weights))
        table = pairwise_matrix(panel.report, "overall", weights=weights)
        assert cell(m, 0, "bashir") == f"{table.loc['alice', 'bashir']:.3f}"
        assert cell(m, 0, "alice") == ""  # the diagonal
    quadratic = pairwise_matrix(panel.report, "overall", weights="quadratic")
    assert quadratic.loc["alice", "bashir"] != pairwise_matrix(
        panel.report, "overall", weights="none").loc["alice", "bashir"]

    u = panel.results.users_model
    assert panel.results.users_stack.currentWidget() is panel.results.users_view
    assert u.rowCount() == 3 * len(SENSE7_LABELS)  # three coders per code, no consensus yet
    assert set(column(u, "Rater")) == {"alice", "bashir", "chen"}
    assert all(float(v) > 0 for v in column(u, "Spearman's ρ"))
    quadratic_kappas = column(u, "Cohen's κ quadratic")
    panel.results.users_weights.setCurrentIndex(panel.results.users_weights.findData("linear"))
    assert column(u, "Cohen's κ linear") != quadratic_kappas


def test_users_view_explains_when_users_are_left_out(qtbot: Any, project: Project,
                                                    models: Models) -> None:
    panel = AgreementPanel(project)
    qtbot.addWidget(panel)
    models.watch(panel.results.users_model)
    panel.bootstrap.setValue(0)
    panel.include_users.setChecked(False)
    panel.run()
    assert panel.wait(60)
    assert panel.results.users_model.rowCount() == 0
    assert panel.results.users_stack.currentWidget() is panel.results.users_empty
    assert "Compare with the users" in panel.results.users_empty.text()


def test_plot_saves_as_png_and_svg_and_the_table_as_csv(
        qtbot: Any, project: Project, models: Models, tmp_path: Path) -> None:
    panel = run_panel(qtbot, project, models, bootstrap=20)
    png, svg = panel.save_plot(tmp_path / "alpha.png"), panel.save_plot(tmp_path / "alpha.svg")
    assert png.stat().st_size > 1000 and svg.stat().st_size > 1000
    image = QImage(str(png))
    assert not image.isNull() and image.width() >= 1000
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    texts = " ".join(t for t in root.itertext())
    assert "Overall empathy" in texts and ".800 good" in texts

    task = panel.export_table(tmp_path / "figures.csv")
    assert task is not None and task.wait(30) and task.error is None
    table = pd.read_csv(tmp_path / "figures.csv")
    assert panel.report is not None and len(table) == len(panel.report.records)
    assert {"code", "measure", "value", "ci_low", "ci_high", "band",
            "n_units"} <= set(table.columns)


def test_plot_of_an_undefined_alpha_says_so() -> None:
    items = [PlotItem("Relational continuity", None, None, None, "undefined",
                      "no unit has values from two raters")]
    text = svg_bytes(items).decode("utf-8")
    assert "undefined — no unit has values from two raters" in text


def test_plot_axis_starts_at_zero_unless_an_interval_reaches_below() -> None:
    assert x_range([PlotItem("a", 0.5, 0.046, 0.9, "low")]) == (0.0, 1.0)
    assert x_range([PlotItem("a", 0.5, -0.094, 0.9, "low")]) == (-0.1, 1.0)
    assert x_range([PlotItem("a", -2.0, -3.0, 0.1, "low")]) == (-1.0, 1.0)


def test_filters_change_the_figures_and_bad_choices_are_refused(
        qtbot: Any, project: Project, models: Models) -> None:
    panel = run_panel(qtbot, project, models, bootstrap=0)
    all_units = int(cell(panel.results.code_model, 0, "Units"))
    panel.filters.lists["models"].set_checked(["GPT4"])
    assert "press Run" in panel.status.text()
    panel.run()
    assert panel.wait(60) and panel.error is None
    assert 0 < int(cell(panel.results.code_model, 0, "Units")) < all_units
    assert "GPT4" in panel.summary.text()

    panel.filters.lists["coders"].set_all(False)
    assert panel.run() is None
    assert panel.error == "No coders ticked: tick at least one."


def test_cancelling_keeps_the_previous_figures(qtbot: Any, project: Project,
                                               models: Models) -> None:
    panel = run_panel(qtbot, project, models, bootstrap=0)
    shown = column(panel.results.code_model, "α")
    panel.bootstrap.setValue(20000)
    task = panel.run()
    assert task is not None
    task.cancel()
    assert panel.wait(60) and task.was_cancelled
    assert "Cancelled" in panel.status.text()
    assert column(panel.results.code_model, "α") == shown


# -- reconciliation ----------------------------------------------------------------------------


def open_reconcile(qtbot: Any, project: Project, models: Models) -> ReconcilePanel:
    panel = ReconcilePanel(project)
    qtbot.addWidget(panel)
    models.watch(panel.queue_model, panel.values_model, panel.pivot_model)
    assert panel.wait(30)
    activate(qtbot, panel, panel.queue_view)
    return panel


def test_only_an_adjudicator_decides(qtbot: Any, project: Project, models: Models,
                                     demo_project: Path) -> None:
    project.set_coder("alice")
    panel = open_reconcile(qtbot, project, models)
    assert "only an adjudicator" in panel.role_label.text()
    assert not panel.decision.majority_button.isEnabled()
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_3)
    assert "Only an adjudicator" in panel.status.text()
    assert stored_consensus(demo_project) == []

    panel.become_adjudicator("dana")
    # adjudicating is a separate identity: the workspace still writes alice's codings
    assert project.adjudicator == "dana" and project.coder_role("dana") == "adjudicator"
    assert project.coder == "alice"
    assert "Adjudicating as <b>dana</b>" in panel.role_label.text()
    assert "your codings stay <b>alice</b>'s" in panel.role_label.text()


def test_adjudicator_accepts_majority_sets_values_and_undoes(
        qtbot: Any, project: Project, models: Models, demo_project: Path) -> None:
    project.set_coder("dana", "adjudicator")
    before = stored_codings(demo_project)
    panel = open_reconcile(qtbot, project, models)
    queue = panel.queue_model.rows
    total = len(queue)
    assert total > 0 and panel.progress.text() == f"0 of {total} decided"
    # the queue is furthest apart first; its first unit has no majority to accept
    assert [d.spread for d in queue] == sorted((d.spread for d in queue), reverse=True)
    first = queue[0]
    assert panel.current is first and not first.has_majority
    assert panel.where.text().count(first.unit.conversation_id)
    assert panel.transcript.position == first.unit.position
    assert column(panel.values_model, "Coder") == list(first.values)
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_M)
    assert "no value has a strict majority" in panel.status.text()
    assert stored_consensus(demo_project) == []

    # the first queued unit that has a majority: one key
    row = next(i for i, d in enumerate(queue) if d.has_majority)
    target = queue[row]
    panel.select_row(row)
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_M)
    u = target.unit
    assert stored_consensus(demo_project) == [
        (u.conversation_id, u.position, target.code, target.majority, "dana",
         "majority of coders")]
    assert target.decided and panel.progress.text() == f"1 of {total} decided"
    assert panel.current is not target and not panel.current.decided  # moved on

    # a value with a rationale: typing in the rationale never sets a value
    other = panel.current
    panel.decision.rationale.setFocus()
    qtbot.keyClicks(panel.decision.rationale, "user rated 4; the reply missed her goal")
    assert len(stored_consensus(demo_project)) == 1
    panel.queue_view.setFocus()
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_2)
    v = other.unit
    assert (v.conversation_id, v.position, other.code, 2, "dana",
            "user rated 4; the reply missed her goal") in stored_consensus(demo_project)
    assert panel.progress.text() == f"2 of {total} decided"
    assert stored_codings(demo_project) == before  # coders' own codings never change

    # the adjudicator's agreement with the consensus appears once computed
    assert panel.wait(30)
    assert panel.pivot_model.rowCount() >= 1
    assert panel.pivot_model.columnCount() == 4  # code + three coders

    # Ctrl+Z takes the last decision back, in the file and in the queue
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(stored_consensus(demo_project)) == 1 and not other.decided
    assert panel.current is other
    assert panel.progress.text() == f"1 of {total} decided"
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert len(stored_consensus(demo_project)) == 2 and other.decided


def test_enter_accepts_the_majority_with_the_typed_rationale_and_n_means_not_applicable(
        qtbot: Any, project: Project, models: Models, demo_project: Path) -> None:
    project.set_coder("dana", "adjudicator")
    panel = open_reconcile(qtbot, project, models)
    row = next(i for i, d in enumerate(panel.queue_model.rows) if d.has_majority)
    target = panel.queue_model.rows[row]
    panel.select_row(row)
    panel.decision.rationale.setFocus()
    qtbot.keyClicks(panel.decision.rationale, "two of three agree; fine")
    qtbot.keyClick(panel.decision.rationale, Qt.Key.Key_Return)  # Enter while typing: nothing
    assert stored_consensus(demo_project) == []
    panel.queue_view.setFocus()
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Return)
    u = target.unit
    assert stored_consensus(demo_project) == [
        (u.conversation_id, u.position, target.code, target.majority, "dana",
         "two of three agree; fine")]
    other = panel.current
    assert other is not None and other is not target
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_N)
    assert other.consensus is not None and other.consensus["value"] is None
    assert (other.unit.conversation_id, other.unit.position, other.code, None, "dana", "") in \
        stored_consensus(demo_project)
    panel.select_row(panel.queue_model.rows.index(other))
    qtbot.keyClick(panel.queue_view, Qt.Key.Key_Delete)
    assert not other.decided and len(stored_consensus(demo_project)) == 1


def test_queue_filters_by_code_and_state(qtbot: Any, project: Project, models: Models) -> None:
    project.set_coder("dana", "adjudicator")
    panel = open_reconcile(qtbot, project, models)
    total = panel.queue_model.rowCount()
    panel.code_filter.setCurrentIndex(panel.code_filter.findData("relational"))
    assert 0 < panel.queue_model.rowCount() < total
    assert {d.code for d in panel.queue_model.rows} == {"relational"}
    assert panel.progress.text().endswith(f"of {panel.queue_model.rowCount()} decided")
    panel.decide(3)
    panel.show_filter.setCurrentIndex(panel.show_filter.findData("decided"))
    assert [d.decided for d in panel.queue_model.rows] == [True]
    panel.show_filter.setCurrentIndex(panel.show_filter.findData("open"))
    assert panel.queue_model.rowCount() > 0
    assert not any(d.decided for d in panel.queue_model.rows)


# -- export and merge --------------------------------------------------------------------------


def test_export_long_through_the_dialog(qtbot: Any, project: Project, tmp_path: Path) -> None:
    project.set_coder("=SUM(A1:A9)")  # a coder name a spreadsheet would run as a formula
    project.set_value(Unit("101", 2), "overall", 4)
    dialog = ExportDialog(project)
    qtbot.addWidget(dialog)
    assert dialog.neutralise.isChecked()
    dialog.set_kind("long")
    dialog.path.setText(str(tmp_path / "long.csv"))
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert dialog.wait(60) and dialog.error is None, dialog.error
    table = pd.read_csv(tmp_path / "long.csv", dtype=str, keep_default_na=False)
    # the demo's tactic span codes add their spans, with start and end; the turns'
    # own attributes (the demo's message ids) follow as turn_<name> columns
    extra = [c for c in table.columns if c.startswith("turn_")]
    assert extra, table.columns
    assert list(table.columns) == [*LONG_COLUMNS, "start", "end", *extra]
    spans = project.db.execute("SELECT count(*) FROM spans").fetchone()[0]
    assert len(table) == project.info()["codings"] + spans
    assert "'=SUM(A1:A9)" in set(table["coder"])
    assert dialog.summary is not None and f"{len(table)} rows" in dialog.status.text()

    dialog.neutralise.setChecked(False)
    dialog.path.setText(str(tmp_path / "raw.csv"))
    dialog.export()
    assert dialog.wait(60) and dialog.error is None
    raw = pd.read_csv(tmp_path / "raw.csv", dtype=str, keep_default_na=False)
    assert "=SUM(A1:A9)" in set(raw["coder"])


def test_export_as_spss_through_the_dialog(qtbot: Any, project: Project,
                                          tmp_path: Path) -> None:
    import pyreadstat

    dialog = ExportDialog(project, kind="long")
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "long.sav"))
    dialog.set_kind("wide")  # the proposed name follows the kind and keeps the format
    assert dialog.path.text().endswith("-wide.sav")
    dialog.path.setText(str(tmp_path / "wide.sav"))
    dialog.export()
    assert dialog.wait(60) and dialog.error is None, dialog.error
    _, meta = pyreadstat.read_sav(tmp_path / "wide.sav", metadataonly=True)
    assert meta.variable_value_labels["overall__alice"][5.0] == "very good"
    dialog.path.setText(str(tmp_path / "long.ods"))
    dialog.export()
    assert dialog.wait(30)
    assert dialog.error is not None and "unknown export format" in dialog.error


def test_export_refi_project_through_the_dialog(qtbot: Any, project: Project,
                                                tmp_path: Path) -> None:
    import zipfile

    dialog = ExportDialog(project, kind="long")
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "study.qdpx"))
    dialog.export()
    assert dialog.wait(60) and dialog.error is None, dialog.error
    assert "12 conversations" in dialog.status.text()
    with zipfile.ZipFile(tmp_path / "study.qdpx") as z:
        assert "project.qde" in z.namelist()
        assert sum(n.startswith("sources/") for n in z.namelist()) == 12


def test_export_reports_a_bad_destination(qtbot: Any, project: Project, tmp_path: Path) -> None:
    dialog = ExportDialog(project, kind="codebook")
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "missing-folder" / "codebook.csv"))
    dialog.export()
    assert dialog.wait(30)
    assert dialog.error is not None and "does not exist" in dialog.error


def copy_with(demo: Path, folder: Path, name: str, coder: str,
              values: dict[tuple[str, int, str], Any]) -> Path:
    path = folder / name
    shutil.copyfile(demo, path)
    with Project.open(path, backup=False) as p:
        p.set_coder(coder)
        for (cid, pos, code), value in values.items():
            p.set_value(Unit(cid, pos), code, value)
    return path


def test_merge_two_copies_through_the_dialog(qtbot: Any, project: Project, models: Models,
                                             demo_project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "coders"
    folder.mkdir()
    erin = copy_with(demo_project, folder, "erin.sense7", "erin",
                     {("101", 2, "overall"): 4, ("101", 4, "overall"): 5})
    fay = copy_with(demo_project, folder, "fay.sense7", "fay", {("101", 2, "overall"): 3})
    dialog = MergeDialog(project)
    qtbot.addWidget(dialog)
    models.watch(dialog.conflict_model)
    dialog.set_sources([erin, fay])
    assert not dialog.merge_button.isEnabled()  # a dry run comes first
    qtbot.mouseClick(dialog.dry_button, Qt.MouseButton.LeftButton)
    assert dialog.wait(60) and dialog.error is None, dialog.error
    text = dialog.output.toPlainText()
    assert "erin.sense7: would add 2 codings" in text and "fay.sense7: would add 1 coding" in text
    assert "dry run: nothing was written" in text
    assert dialog.conflict_model.rowCount() == 0
    assert stored_codings(demo_project) == stored_codings(demo_project)
    assert not any(r[0] in ("erin", "fay") for r in stored_codings(demo_project))
    assert dialog.merge_button.isEnabled()

    qtbot.mouseClick(dialog.merge_button, Qt.MouseButton.LeftButton)
    assert dialog.wait(60) and dialog.error is None and dialog.merged
    merged = stored_codings(demo_project)
    assert ("erin", "101", 4, 0, "overall", 5) in merged
    assert ("fay", "101", 2, 0, "overall", 3) in merged
    assert "Merged: " in dialog.status.text()
    assert not dialog.merge_button.isEnabled()


def test_merge_lists_conflicts_and_refuses_until_told_to_keep_ours(
        qtbot: Any, project: Project, models: Models, demo_project: Path,
        tmp_path: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        cid, pos, value = p.db.execute(
            "SELECT conversation_id, position, value FROM codings WHERE coder = 'alice' AND "
            "code = 'overall' AND value IS NOT NULL LIMIT 1").fetchone()
    changed = 1 if value != 1 else 2
    source = copy_with(demo_project, tmp_path, "alice-copy.sense7", "alice",
                       {(cid, pos, "overall"): changed})
    with Project.open(source, backup=False) as p:  # and something new besides
        p.set_coder("gus")
        p.set_value(Unit("101", 2), "overall", 5)
    dialog = MergeDialog(project)
    qtbot.addWidget(dialog)
    models.watch(dialog.conflict_model)
    dialog.set_sources([source])
    dialog.dry_run()
    assert dialog.wait(60)
    m = dialog.conflict_model
    assert m.rowCount() >= 1
    assert cell(m, 0, "Coder") == "alice" and cell(m, 0, "Code") == "overall"
    assert cell(m, 0, "This project") == str(value) and cell(m, 0, "The file") == str(changed)
    assert "refused" in (dialog.error or "")
    assert not dialog.merge_button.isEnabled()

    dialog.on_conflict.setCurrentIndex(dialog.on_conflict.findData("keep-target"))
    assert not dialog.merge_button.isEnabled()  # the choice changed: dry run again
    dialog.dry_run()
    assert dialog.wait(60) and dialog.merge_button.isEnabled()
    dialog.run_merge()
    assert dialog.wait(60) and dialog.merged
    rows = stored_codings(demo_project)
    assert ("alice", cid, pos, 0, "overall", value) in rows  # ours kept
    assert ("gus", "101", 2, 0, "overall", 5) in rows
    assert cell(m, 0, "Kept") == "this project's"


def test_merge_takes_a_coders_correction_when_told_to(
        qtbot: Any, project: Project, models: Models, demo_project: Path,
        tmp_path: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        cid, pos, value = p.db.execute(
            "SELECT conversation_id, position, value FROM codings WHERE coder = 'alice' AND "
            "code = 'overall' AND value IS NOT NULL LIMIT 1").fetchone()
    changed = 1 if value != 1 else 2
    source = copy_with(demo_project, tmp_path, "alice-copy.sense7", "alice",
                       {(cid, pos, "overall"): changed})
    dialog = MergeDialog(project)
    qtbot.addWidget(dialog)
    models.watch(dialog.conflict_model)
    assert [dialog.on_conflict.itemData(i) for i in range(dialog.on_conflict.count())] == [
        "refuse", "keep-target", "keep-source", "newest"]
    dialog.set_sources([source])
    dialog.on_conflict.setCurrentIndex(dialog.on_conflict.findData("newest"))
    dialog.dry_run()
    assert dialog.wait(60) and dialog.merge_button.isEnabled()
    m = dialog.conflict_model
    assert cell(m, 0, "Kept") == "the file's"  # her correction is the newer value
    dialog.run_merge()
    assert dialog.wait(60) and dialog.merged
    assert ("alice", cid, pos, 0, "overall", changed) in stored_codings(demo_project)


# -- the main window's Analysis menu -----------------------------------------------------------


def test_analysis_menu_opens_the_windows_and_closes_them_with_the_project(
        qtbot: Any, gui: Any, demo_project: Path) -> None:
    window = gui.open(demo_project, coder="dana")
    assert window.menus["analysis"].menuAction().isVisible()
    texts = [a.text() for a in window.menus["analysis"].actions()]
    assert texts[:2] == ["&Agreement…", "&Reconcile disagreements…"]
    export = window.analysis.menu_actions["export"]
    assert export.text() == "&Export tables…"  # not only CSV: the tip names every format
    assert all(f in export.statusTip() for f in ("CSV", ".xlsx", ".sav", ".qdpx"))
    window.analysis.menu_actions["agreement"].trigger()
    agreement = window.analysis.panels["agreement"]
    assert isinstance(agreement, AgreementPanel) and agreement.isVisible()
    window.analysis.menu_actions["reconcile"].trigger()
    reconcile = window.analysis.panels["reconcile"]
    assert isinstance(reconcile, ReconcilePanel) and reconcile.project is window.project
    assert reconcile.wait(30)
    window.project.set_coder("dana", "adjudicator")
    first = reconcile.current
    assert first is not None and reconcile.decide(1)
    assert "consensus" in window.actions_.undo.text()  # the main window's undo knows it
    activate(qtbot, window, window.workspace.coding)
    window.actions_.undo.trigger()  # undone from the main window...
    activate(qtbot, reconcile, reconcile.queue_view)  # ...the queue catches up on return
    assert reconcile.wait(30)
    again = next(d for d in reconcile.queue if (d.unit, d.code) == (first.unit, first.code))
    assert not again.decided
    assert stored_consensus(demo_project) == []
    window.close_project()
    qtbot.waitUntil(lambda: not window.analysis.panels, timeout=3000)


def test_coefficients_tab_and_methods_paragraph(qtbot: Any, project: Project, models: Models,
                                                tmp_path: Path) -> None:
    panel = run_panel(qtbot, project, models, bootstrap=60)
    rows = panel.results.coef_model.rows
    names = {r.name for r in rows if r.code == "overall"}
    assert {"Gwet's AC1", "Brennan–Prediger", "Gwet's AC2 (quadratic)",
            "ICC2 (absolute, single)", "ICC3k (consistency, mean)"} <= names
    assert any(r.record.level == "applicability" for r in rows)
    # diagnostics: a pair's confusion matrix over the declared 1..5 scale, each coder's bias
    res = panel.results
    res.diag_code.setCurrentIndex(res.diag_code.findData("overall"))
    assert res.diag_pair.count() >= 3  # three coders: at least three pairs
    assert [r.level for r in res.confusion_model.rows] == ["1", "2", "3", "4", "5"]
    a, b = res.diag_pair.currentData()
    both = len(project.db.execute(
        "SELECT 1 FROM codings x JOIN codings y USING (conversation_id, position, sentence, code)"
        " WHERE x.code = 'overall' AND x.coder = ? AND y.coder = ? AND x.value IS NOT NULL"
        " AND y.value IS NOT NULL", [a, b]).fetchall())
    assert sum(sum(r.counts.values()) for r in res.confusion_model.rows) == both
    assert {r.coder for r in res.coder_model.rows} == {"alice", "bashir", "chen"}
    saved = res.save_diagnostics(tmp_path)
    assert sorted(p.name for p in saved) == ["agreement-bias.csv", "agreement-confusion.csv",
                                             "agreement-drift.csv"]
    assert panel.methods_button.isEnabled()
    dialog = panel.methods_dialog()
    assert dialog is not None
    qtbot.addWidget(dialog)
    text = dialog.text.toPlainText()
    assert text.startswith("## Inter-rater agreement") and "60 draws, seed 0" in text
    dialog.fmt.setCurrentIndex(dialog.fmt.findData("latex"))
    assert "\\begin{tabular}" in dialog.text.toPlainText()
    saved = dialog.save(tmp_path / "methods.tex")
    assert saved.read_text(encoding="utf-8") == dialog.text.toPlainText()
    # never over the open project file (that would destroy it)
    for save in (dialog.save, panel.save_plot):
        with pytest.raises(ProjectError, match="open project file"):
            save(project.path)
    assert panel.export_table(project.path) is None
    assert "open project file" in panel.status.text()
    assert project.coders()
    # the minimum number of units is a project setting, kept when the window runs
    panel.min_units.setValue(3)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.wait(60) and panel.error is None
    from sense7_coder.project.agreement import min_units_setting
    assert min_units_setting(project) == 3
    assert all(r.min_units == 3 for r in panel.report.records)  # type: ignore[union-attr]


def test_a_crowds_values_are_counted_in_the_queue() -> None:
    """Up to six coders' values are listed; a crowd's are counted level by level."""
    from sense7_coder.ui.analysis.reconcile_models import values_text, values_tip

    code = resolve_codebook("sense7").get("overall")
    few = {"alice": 4, "bashir": 2, "chen": None}
    assert values_text(code, few) == "4  2  n/a"
    assert values_tip(code, few).splitlines()[0] == "alice: 4 good"
    crowd = {f"w{i:04d}": (None if i % 10 == 0 else 1 + i % 5) for i in range(3000)}
    assert values_text(code, crowd) == "1×300  2×600  3×600  4×600  5×600  n/a×300"
    assert values_tip(code, crowd).splitlines()[:2] == ["3,000 coders", "1: 300"]


def test_a_plot_that_cannot_be_drawn_says_so_in_its_place(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A bundle without Pillow drew nothing and told only stderr; the plot now says why."""
    from sense7_coder.domain import plots
    from sense7_coder.domain.errors import Sense7Error
    from sense7_coder.ui.analysis import agreement_plot

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise ModuleNotFoundError("No module named 'PIL'")

    monkeypatch.setattr(agreement_plot, "render_image", broken)
    plot = agreement_plot.AlphaPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 300)
    plot.items = [PlotItem("Overall empathy", 0.8, 0.7, 0.9, "good")]
    image = plot.grab().toImage()
    assert plot.failure == ("The plot could not be drawn: ModuleNotFoundError: "
                            "No module named 'PIL'")
    assert plot.toolTip() == plot.failure
    # the words are drawn where the plot would be: not a blank white rectangle
    colours = {image.pixelColor(x, y).name() for x in range(0, 600, 3) for y in range(0, 300, 3)}
    assert len(colours) > 1
    monkeypatch.setattr(plots, "save", broken)
    with pytest.raises(Sense7Error, match="could not draw the plot .*No module named 'PIL'"):
        plot.save(tmp_path / "alpha.png")

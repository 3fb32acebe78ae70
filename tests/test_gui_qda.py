"""The attribute sheet, the retrieval view (coder and attribute filters, spans with
context, copy) and the co-occurrence heat map, driven offscreen; the turn attribute tag in
the transcript heading."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.models import Conversation, Turn
from sense7_coder.project import Project
from sense7_coder.project.attributes import attribute_history, attribute_sheet
from sense7_coder.project.codebook.editing import add_code
from sense7_coder.project.spans import editing as project_spans

pytest.importorskip("PySide6")


@pytest.fixture
def study(tmp_path: Path, qtbot: Any) -> Iterator[Project]:
    project = make_project(tmp_path)
    for c in ({"key": "warmth", "label": "Warmth", "kind": "binary", "unit": "span"},
              {"key": "ask", "label": "Ask", "kind": "binary", "unit": "span"}):
        add_code(project, code_from_dict(c))
    code(project, "alice", {("c1", 2, "validation"): 1, ("c1", 2, "strategy"): "advice",
                            ("c3", 2, "validation"): 1, ("c3", 4, "strategy"): "question"})
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project_spans.add(project, "c1", 2, 12, 40, "ask")
    code(project, "bashir", {("c1", 2, "validation"): 1, ("c2", 2, "strategy"): "advice"})
    project.set_coder("lee", "adjudicator")
    yield project
    project.close()


def test_attribute_sheet_sorts_filters_and_a_lead_edits(study: Project, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from sense7_coder.ui.attributes_dialog import AttributesDialog

    dialog = AttributesDialog(study)
    qtbot.addWidget(dialog)
    assert dialog.columns == ["conversation_id", "participant_id", "model", "topic", "turns",
                              "week"]
    # opens in the order of the ids, first to last (Qt alone would start descending)
    assert [dialog.proxy.index(i, 0).data() for i in range(dialog.proxy.rowCount())] == \
        ["c1", "c2", "c3", "c4"]
    dialog.view.sortByColumn(dialog.columns.index("model"), Qt.SortOrder.DescendingOrder)
    first = dialog.proxy.index(0, dialog.columns.index("model")).data()
    assert first == "IC"
    dialog.filter.setText("GPT4")
    assert dialog.proxy.rowCount() == 2 and "2 of 4" in dialog.count.text()
    dialog.filter.setText("")
    item = dialog.model.item(0, dialog.columns.index("week"))
    assert item.isEditable()
    assert not dialog.model.item(0, 0).isEditable()  # the id is no attribute
    item.setText("7")
    assert attribute_sheet(study)["week"].tolist()[0] == "7"
    assert [(r["code"], r["after"]) for r in attribute_history(study)] == [("week", "7")]


def test_a_coder_reads_the_sheet_but_cannot_edit(study: Project, qtbot: Any) -> None:
    from sense7_coder.ui.attributes_dialog import AttributesDialog

    study.set_coder("alice")
    dialog = AttributesDialog(study)
    qtbot.addWidget(dialog)
    assert not dialog.model.item(0, dialog.columns.index("week")).isEditable()
    assert "only a lead" in dialog.count.text()


def test_retrieval_filters_by_coder_and_attribute_and_copies(study: Project, qtbot: Any
                                                            ) -> None:
    from PySide6.QtWidgets import QApplication

    from sense7_coder.ui.retrieve_dialog import RetrieveDialog

    dialog = RetrieveDialog(study)
    qtbot.addWidget(dialog)
    dialog.choose("validation")
    assert dialog.table.rowCount() == 3
    # turn codings fill neither the sentence nor the context column: both give way
    assert dialog.table.isColumnHidden(3) and dialog.table.isColumnHidden(6)
    dialog.choose("validation", coder="bashir")
    assert dialog.table.rowCount() == 1
    dialog.choose("strategy", attribute=("model", "IC"))
    assert [dialog.table.item(i, 1).text() for i in range(dialog.table.rowCount())] == ["c2"]
    dialog.choose("strategy", attribute=("week", "2"))
    assert [dialog.table.item(i, 1).text() for i in range(dialog.table.rowCount())] == ["c3"]
    dialog.choose("ask")
    assert dialog.table.item(0, 5).text() == "draining. Which meeting matt"
    assert "«" in dialog.table.item(0, 6).text()
    assert not dialog.table.isColumnHidden(6)  # a span's context shows
    dialog.copy()
    lines = QApplication.clipboard().text().splitlines()
    assert lines[0].split("\t")[:3] == ["coder", "conversation_id", "turn"]
    assert len(lines) == 2 and lines[1].split("\t")[0] == "alice"


def test_cooccurrence_heat_map(study: Project, qtbot: Any, tmp_path: Path) -> None:
    from sense7_coder.ui.cooccurrence_dialog import HIGH, CooccurrenceDialog

    dialog = CooccurrenceDialog(study)
    qtbot.addWidget(dialog)
    keys = list(dialog.frame["code"])
    v, s = keys.index("validation"), keys.index("strategy")
    assert dialog.table.item(v, s).text() == "1"
    dialog.scope_box.setCurrentIndex(dialog.scope_box.findData("span"))
    keys = list(dialog.frame["code"])
    assert keys == ["warmth", "ask"]
    cell = dialog.table.item(0, 1)
    assert cell.text() == "1" and cell.background().color() == HIGH  # the largest count
    dialog.what_box.setCurrentIndex(dialog.what_box.findData("model"))
    assert [dialog.table.horizontalHeaderItem(i).text()
            for i in range(dialog.table.columnCount())] == ["GPT4", "IC"]
    dialog.hide_unused.setChecked(False)
    assert len(dialog.frame) == len(study.codebook.codes)


def test_cooccurrence_screenshot(study: Project, qtbot: Any) -> None:
    """The README's picture: SENSE7_SHOTS=FOLDER pytest tests/test_gui_qda.py -k screenshot"""
    shots = os.environ.get("SENSE7_SHOTS")
    if not shots:
        pytest.skip("set SENSE7_SHOTS to a folder to write the screenshot")
    import random

    from sense7_coder.ui.cooccurrence_dialog import CooccurrenceDialog

    rng = random.Random(7)
    for coder in ("alice", "bashir"):
        values: dict[tuple[Any, ...], Any] = {}
        for cid in ("c1", "c2", "c3", "c4"):
            for pos in (2, 4):
                if rng.random() < 0.7:
                    values[(cid, pos, "validation")] = 1
                if rng.random() < 0.6:
                    values[(cid, pos, "strategy")] = rng.choice(["advice", "question"])
                if rng.random() < 0.5:
                    values[(cid, pos, "affective")] = rng.randint(1, 5)
                if rng.random() < 0.4:
                    values[(cid, pos, "prosocial")] = rng.randint(1, 5)
        code(study, coder, values)
        project_spans.add(study, "c2", 2, 0, 21, "warmth")
        project_spans.add(study, "c2", 2, 12, 40, "ask")
    study.set_coder("lee")
    dialog = CooccurrenceDialog(study)
    qtbot.addWidget(dialog)
    dialog.resize(900, 440)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(Path(shots) / "cooccurrence.png"))


def test_the_sheet_orders_ids_by_their_numbers() -> None:
    from sense7_coder.ui.attributes_dialog import natural_key

    ids = ["c10", "C2", "c1", "b", "10", "9", "c2a"]
    assert sorted(ids, key=natural_key) == ["9", "10", "b", "c1", "C2", "c2a", "c10"]


def test_transcript_heading_tags_turn_attributes() -> None:
    from sense7_coder.ui.workspace.transcript_text import turn_header

    conv = Conversation("e1", [Turn(2, "assistant", "How are you?")])
    conv.turns[0].attributes = {"strategy": "Question", "note": "x" * 80}
    _role, meta = turn_header(conv, conv.turns[0])
    assert "strategy: Question" in meta
    assert "…" in meta and len(meta) < 120


def test_qdpx_import_dialog_checks_then_imports(study: Project, qtbot: Any,
                                                tmp_path: Path) -> None:
    from test_refi_import import qualcoder_style_qde, write_qdpx

    from sense7_coder.ui.dialogs.qdpx_import import QdpxImportDialog

    bad = tmp_path / "bad.qdpx"
    bad.write_bytes(b"no zip")
    dialog = QdpxImportDialog(study)
    qtbot.addWidget(dialog)
    dialog.set_file(bad)
    qtbot.waitUntil(lambda: dialog.checked, timeout=20000)
    assert "Cannot be imported" in dialog.report.toPlainText()
    assert not dialog.import_button.isEnabled()
    good = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    dialog.set_file(good)
    qtbot.waitUntil(lambda: dialog.checked, timeout=20000)
    assert "would import 2 conversations" in dialog.report.toPlainText()
    assert study.conversation("interview 1") is None  # the check wrote nothing
    task = dialog.start_import()
    assert task is not None
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=20000)
    assert "imported 2 conversations" in dialog.report.toPlainText()
    study.changed_elsewhere()
    assert study.conversation("interview 1") is not None

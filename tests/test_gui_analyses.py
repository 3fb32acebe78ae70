"""The Analysis window (offscreen): analyses, figures, tables and predictors on the demo."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from sense7_coder.project import Project
from sense7_coder.project.prediction.predictors import (
    import_predictions,
    set_suggestions_allowed,
    suggestions,
    targets,
)
from sense7_coder.ui.analysis.analysis_panel import AnalysisPanel

pytestmark = pytest.mark.gui


@pytest.fixture
def project(demo_project: Path) -> Iterator[Project]:
    p = Project.open(demo_project, backup=False)
    p.set_coder("lead", "adjudicator")
    yield p
    p.close()


def test_analysis_window_runs_shows_figures_tables_and_predictors(
        qtbot: Any, project: Project, tmp_path: Path) -> None:
    panel = AnalysisPanel(project)
    qtbot.addWidget(panel)
    panel.out_dir.setText(str(tmp_path / "out"))
    panel.filters.lists["models"].set_checked(["GPT4", "GPT4-empathy"])
    panel.show()
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.wait(120) and panel.error is None, panel.error
    assert (tmp_path / "out" / "index.html").exists()
    assert panel.figure_choice.count() >= 6
    panel.figure_choice.setCurrentIndex(0)
    assert not panel.figure.pixmap().isNull()
    panel.table_choice.setCurrentIndex(panel.table_choice.findData("means_by_assistant"))
    shown = {panel.table_model.index(r, 0).data() for r in range(panel.table_model.rowCount())}
    assert shown == {"GPT4", "GPT4-empathy"}  # the filter held

    panel.tabs.setCurrentIndex(2)
    assert panel.train_baseline().wait(120)
    assert panel.wait(60) and panel.error is None, panel.error
    assert [r["predictor"] for r in panel.evaluation] == ["baseline"]
    assert panel.eval_model.rowCount() == 1
    text = panel.eval_model.index(0, 3).data()
    assert "±" not in text and text.count(".") == 1  # one run: no SD
    if os.environ.get("SENSE7_SCREENSHOTS"):
        panel.resize(1280, 800)
        panel.tabs.setCurrentIndex(0)
        panel.grab().save(str(Path(os.environ["SENSE7_SCREENSHOTS"]) / "analysis.png"))
        panel.tabs.setCurrentIndex(2)
        panel.grab().save(str(Path(os.environ["SENSE7_SCREENSHOTS"]) / "predictors.png"))


def test_suggestions_need_the_leads_permission_and_never_show_blind(
        project: Project, tmp_path: Path) -> None:
    truth = targets(project, "turn")
    (cid, pos), _ = next(iter(truth.items()))
    f = tmp_path / "m.csv"
    f.write_text("conversation_id,turn,score\n" + f"{cid},{pos},3.25\n")
    import_predictions(project, f, "m")
    assert suggestions(project, cid, pos) == []  # not allowed yet
    set_suggestions_allowed(project, True)
    assert suggestions(project, cid, pos) == ["m: 3.2 (this turn)"]
    project.blind_coding = True
    assert suggestions(project, cid, pos) == []


def test_workspace_shows_suggestions_beside_the_ratings_only_when_allowed(
        gui: Any, demo_project: Path, tmp_path: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        f = tmp_path / "judge.csv"
        f.write_text("conversation_id,score\n101,3.6\n")
        import_predictions(p, f)
        set_suggestions_allowed(p, True)
    w = gui.open(demo_project)
    ws = w.workspace
    assert ws.conversation_id == "101" and ws.position == 2
    assert "Model suggestions: judge: 3.6 (conversation)" in ws.ratings.shown_text()
    # blind coding hides them like everything else a coder could lean on
    ws.project.blind_coding = True
    ws.refresh_panel()
    assert "suggestions" not in ws.ratings.shown_text()


def test_llm_judge_from_the_window_with_its_prompt_stored(
        qtbot: Any, project: Project) -> None:
    from sense7_coder.project.prediction.predictors import llm_prompt
    from tests.test_llm_judge import FakeServer, score_by_length

    server = FakeServer(score_by_length)
    try:
        panel = AnalysisPanel(project)
        qtbot.addWidget(panel)
        prompt = 'Rate the empathy from 1 to 5. Answer {"score": n}.'
        task = panel.run_llm(server.url, "local", runs=1, concurrency=2, prompt=prompt,
                             retries=0, backoff_s=0.01)
        assert task.wait(60) and panel.wait(60) and panel.error is None, panel.error
        assert llm_prompt(project) == prompt
        assert server.requests[0]["messages"][0]["content"] == prompt
        assert [r["predictor"] for r in panel.evaluation] == ["llm:local"]
        assert "12 requests sent" in panel.status.text()
    finally:
        server.stop()
    # the endpoint gone: one clear line in the window, nothing else changes
    task = panel.run_llm(server.url, "other", retries=0)
    assert task.wait(60)
    assert panel.error is not None and "not reachable" in panel.error


def test_cancel_in_the_window_ends_a_dripping_llm_request_within_a_second(
        qtbot: Any, project: Project) -> None:
    import time

    from tests.test_llm_endpoints import Server, drip

    server = Server(drip)  # sends its answer one byte every 0.3 s
    try:
        panel = AnalysisPanel(project)
        qtbot.addWidget(panel)
        task = panel.run_llm(server.url, "local", concurrency=2, retries=0, timeout_s=60.0)
        qtbot.waitUntil(lambda: len(server.seen) == 2, timeout=20_000)
        task.cancel()  # what the progress dialog's Cancel button does
        asked = time.monotonic()
        assert task.wait(5) and task.was_cancelled
        assert time.monotonic() - asked < 1.0
        assert "cancelled" in panel.status.text()
    finally:
        server.stop()

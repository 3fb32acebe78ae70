"""Packages by allow-list: what an importer knows to be the users' own judgments (ESConv's
feedback and survey scores, a SENSE-7 workbook's post-task ratings) is marked at import,
hidden from blind coders by default and never in a blind package (project/judgments.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import codebook

from sense7_coder.cli import main
from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.project.imports import import_files
from sense7_coder.project.judgments import attribute_list
from sense7_coder.project.package import make_package


@pytest.fixture
def esconv(tmp_path: Path, shared_data: Path) -> Iterator[Project]:
    project = Project.create(tmp_path / "esconv.sense7", codebook())
    import_files(project, [shared_data / "esconv" / "FailedESConv.json"])
    project.set_coder("lee", "adjudicator")
    yield project
    project.close()


def judged_keys(text: Any) -> set[str]:
    """Keys of a stored attributes text that are the users' judgments."""
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    return {k for k in data if k == "feedback" or k.startswith("survey_")}


def test_esconv_marks_feedback_and_survey_scores_as_the_users_judgments(
        esconv: Project) -> None:
    marked = {name for name, judged in attribute_list(esconv) if judged}
    assert "feedback" in marked
    assert {"survey_seeker_empathy", "survey_seeker_relevance"} <= marked
    assert not {"strategy", "emotion_type", "problem_type", "model"} & marked
    # hidden from blind coders by default; the lead sees it and can choose to show it
    esconv.blind_coding = True
    assert {"feedback", "survey_seeker_empathy"} <= set(esconv.hidden_attributes)
    esconv.hidden_attributes = [n for n in esconv.hidden_attributes if n != "feedback"]
    assert "feedback" not in esconv.hidden_attributes
    assert "survey_seeker_empathy" in esconv.hidden_attributes
    shown = esconv.db.execute("SELECT after FROM history WHERE kind = 'setting' AND "
                              "code = 'shown_attributes'").fetchall()
    assert shown == [("feedback",)]  # the lead's choice is a history row


def test_a_blind_esconv_package_holds_no_users_judgment_anywhere(
        esconv: Project, tmp_path: Path) -> None:
    esconv.blind_coding = True
    esconv.set_coder("ana")
    esconv.set_coder("lee")
    ids = [r[0] for r in esconv.db.execute("SELECT conversation_id FROM conversations")]
    assign(esconv, ["ana"], conversations=None)
    out = tmp_path / "ana.sense7"
    summary = make_package(esconv, "ana", out)
    assert summary.conversations == len(ids)
    line = summary.line()
    assert "strategy" in line.split("left out")[0]  # what it holds, named
    assert "feedback" in line.split("left out")[1] and "survey_seeker_empathy" in line
    con = sqlite3.connect(out)
    try:
        assert con.execute("SELECT COUNT(*) FROM user_ratings").fetchone() == (0,)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = "
                                            "'table' AND name NOT LIKE 'sqlite_%'")]
        found = []
        for table in tables:
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            for row in con.execute(f"SELECT * FROM {table}"):
                for column, value in zip(columns, row, strict=True):
                    if judged_keys(value) or (table != "meta" and isinstance(value, str)
                          and ('"feedback"' in value or "survey_" in value)):
                        found.append((table, column, value))
        assert found == []
        turns = con.execute("SELECT attributes FROM turns WHERE attributes LIKE "
                            "'%strategy%'").fetchall()
        assert turns  # what the lead did not hide is still there
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        assert meta["package_coder"] == "ana"
    finally:
        con.close()


def test_sense7_post_task_ratings_are_judgments_pre_task_answers_are_not(
        tmp_path: Path) -> None:
    tasks = tmp_path / "Tasks.csv"
    tasks.write_text("TaskId,PID,Model,PreTaskChoice,PreTaskImportance,"
                     "PostTaskEmpathy_Overall,PostTaskExperience_Helpful\n"
                     "t1,P1,GPT4,work,4,very good,5\n", encoding="utf-8")
    messages = tmp_path / "Messages.csv"
    messages.write_text("TaskId,MessageId,Role,Content,EmpathyOverall\n"
                        "t1,1,user,Hello,\nt1,2,assistant,Hi there,good\n", encoding="utf-8")
    project = Project.create(tmp_path / "s7.sense7", codebook())
    import_files(project, [tasks, messages])
    marked = {name for name, judged in attribute_list(project) if judged}
    assert marked == {"PostTaskEmpathy_Overall", "PostTaskExperience_Helpful"}
    project.close()


@pytest.mark.gui
def test_the_attribute_list_marks_the_users_judgments(qtbot: Any, esconv: Project) -> None:
    from sense7_coder.ui.team_dialog import TeamDialog

    esconv.blind_coding = True
    dialog = TeamDialog(esconv)
    qtbot.addWidget(dialog)
    box = dialog.hide_boxes["feedback"]
    assert box.text() == "feedback (users' judgment)" and box.isChecked()
    assert "users' own judgment" in box.toolTip()
    assert dialog.hide_boxes["strategy"].text() == "strategy"
    assert not dialog.hide_boxes["strategy"].isChecked()
    box.setChecked(False)  # the lead shows it
    assert "feedback" not in esconv.hidden_attributes


def test_package_cli_names_what_it_holds(esconv: Project, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    esconv.blind_coding = True
    assign(esconv, ["ana"])
    path = esconv.path
    esconv.close()
    assert main(["package", str(path), "ana", str(tmp_path / "a.sense7"), "--as", "lee"]) == 0
    out = capsys.readouterr().out
    assert "left out:" in out and "feedback" in out.split("left out:")[1]


def test_a_project_imported_before_the_marking_learns_its_judgments_by_name(
        esconv: Project) -> None:
    from sense7_coder.store.later_migrations import mark_judgments_by_name

    with esconv.pdb.atomic() as db:
        db.execute("DELETE FROM meta WHERE key = 'judgment_attributes'")
    assert not [n for n, judged in attribute_list(esconv) if judged]
    with esconv.pdb.atomic() as db:  # what upgrading such a file does
        mark_judgments_by_name(db)
    marked = {n for n, judged in attribute_list(esconv) if judged}
    assert "feedback" in marked and "survey_seeker_empathy" in marked
    assert "strategy" not in marked

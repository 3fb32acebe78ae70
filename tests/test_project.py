"""Coding actions through the project facade: saved at once, validated, undoable."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.domain.codebook.codes import code_from_dict, codebook_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.store import conversations as store_conv

BOOK = codebook_from_dict(
    {
        "name": "t",
        "codes": [
            {"key": "affective", "label": "Affective understanding",
             "levels": [{"value": i, "label": lab} for i, lab in
                        enumerate(["very poor", "poor", "neutral", "good", "very good"], 1)],
             "user_rating": "affective", "shortcut": "A"},
            {"key": "questioning", "label": "Questioning", "kind": "binary", "unit": "sentence"},
            {"key": "topic", "label": "Topic", "kind": "nominal", "unit": "conversation",
             "levels": [{"value": "work"}, {"value": "health"}]},
        ],
    }
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.create(tmp_path / "p.sense7", BOOK)
    conv = Conversation(
        "c1",
        [Turn(1, "user", "My deadline moved up."),
         Turn(2, "assistant", "That sounds stressful. What is due first?"),
         Turn(3, "user", "The report."),
         Turn(4, "assistant", "Let's plan it.")],
    )
    with p.pdb.atomic() as db:
        store_conv.insert_conversations(db, [conv])
    p.set_coder("alice")
    yield p
    p.close()


def reopen_value(project: Project, coder: str, unit: Unit, code: str) -> object:
    with Project.open(project.path, backup=False) as other:
        return other.turn_state(unit.conversation_id, coder)["codings"].get(
            (unit.position, unit.sentence, code), "missing"
        )


def test_value_is_saved_the_moment_it_is_set(project: Project) -> None:
    project.set_value(Unit("c1", 2), "affective", 4)
    assert reopen_value(project, "alice", Unit("c1", 2), "affective") == 4


def test_labels_and_na_are_accepted(project: Project) -> None:
    project.set_value(Unit("c1", 2), "affective", "very good")
    assert reopen_value(project, "alice", Unit("c1", 2), "affective") == 5
    project.set_value(Unit("c1", 2), "affective", None)
    assert reopen_value(project, "alice", Unit("c1", 2), "affective") is None


def test_undo_redo_name_the_action_and_restore_values(project: Project) -> None:
    u = Unit("c1", 2)
    project.set_value(u, "affective", 2)
    project.set_value(u, "affective", 4)
    assert project.undo_label == "set Affective understanding to good"
    project.undo()
    assert reopen_value(project, "alice", u, "affective") == 2
    assert project.redo_label == "set Affective understanding to good"
    project.undo()
    assert reopen_value(project, "alice", u, "affective") == "missing"
    assert project.undo() is None
    project.redo()
    project.redo()
    assert reopen_value(project, "alice", u, "affective") == 4
    # a new action after undo drops the redo branch
    project.undo()
    project.set_value(u, "affective", 1)
    assert project.redo_label is None


def test_done_and_memo_are_undoable(project: Project) -> None:
    project.set_done("c1", 2)
    project.set_memo(Unit("c1", 2), "asks a follow-up question")
    state = project.turn_state("c1")
    assert state["done"] == {2}
    assert state["memos"] == {(2, 0): "asks a follow-up question"}
    project.undo()
    project.undo()
    state = project.turn_state("c1")
    assert state["done"] == set() and state["memos"] == {}


@pytest.mark.parametrize(
    ("unit", "code", "value", "message"),
    [
        (Unit("c1", 2), "affective", 7, "not a level"),
        (Unit("c1", 2), "affective", "great", "not a level"),
        (Unit("c1", 9), "affective", 3, "no turn 9"),
        (Unit("nope", 2), "affective", 3, "no turn"),
        (Unit("c1", 2), "nosuch", 3, "no code"),
        (Unit("c1", 2), "topic", "work", "whole conversations"),
        (Unit("c1", 2), "questioning", 1, "sentence"),
        (Unit("c1", 2, 1), "questioning", None, "not applicable"),
    ],
)
def test_invalid_actions_are_refused_and_write_nothing(
    project: Project, unit: Unit, code: str, value: object, message: str
) -> None:
    with pytest.raises(ProjectError, match=message):
        project.set_value(unit, code, value)  # type: ignore[arg-type]
    assert project.info()["codings"] == 0
    assert project.undo_label is None


def test_coder_identity_owns_every_write(project: Project) -> None:
    project.set_value(Unit("c1", 2), "affective", 3)
    project.set_coder("bashir")
    assert project.undo_label is None  # switching coder starts a fresh undo history
    project.set_value(Unit("c1", 2), "affective", 5)
    assert reopen_value(project, "alice", Unit("c1", 2), "affective") == 3
    assert reopen_value(project, "bashir", Unit("c1", 2), "affective") == 5
    state = project.turn_state("c1")
    assert [o["coder"] for o in state["others"]] == ["alice"]


def test_only_adjudicators_set_consensus(project: Project) -> None:
    with pytest.raises(ProjectError, match="adjudicator"):
        project.set_consensus(Unit("c1", 2), "affective", 4)
    project.set_coder("lead", role="adjudicator")
    project.set_consensus(Unit("c1", 2), "affective", 4, "two of three said good")
    assert project.info()["consensus"] == 1
    project.undo()
    assert project.info()["consensus"] == 0


def test_next_unfinished_walks_assistant_turns(project: Project) -> None:
    assert project.next_unfinished() == ("c1", 2)
    project.set_done("c1", 2)
    assert project.next_unfinished(("c1", 2)) == ("c1", 4)
    project.set_done("c1", 4)
    assert project.next_unfinished(("c1", 4)) is None


def test_codebook_changes_that_orphan_codings_are_refused(project: Project) -> None:
    project.set_value(Unit("c1", 2), "affective", 5)
    code = project.code("affective")
    code.levels = code.levels[:4]
    with pytest.raises(ProjectError, match="level"):
        codebook_ops.update_code(project, code)
    project.invalidate_codebook()
    code = project.code("affective")
    code.kind = "nominal"
    with pytest.raises(ProjectError, match="kind"):
        codebook_ops.update_code(project, code)
    with pytest.raises(ProjectError, match="retire"):
        codebook_ops.delete_code(project, "affective")
    project.invalidate_codebook()
    assert len(project.code("affective").levels) == 5
    # relabelling is fine and saved
    code = project.code("affective")
    code.label = "Affective (feelings)"
    codebook_ops.update_code(project, code)
    with Project.open(project.path, backup=False) as other:
        assert other.code("affective").label == "Affective (feelings)"


def test_codebook_add_retire_reorder(project: Project) -> None:
    codebook_ops.add_code(
        project, code_from_dict({"key": "warmth", "kind": "ordinal", "shortcut": "W"})
    )
    with pytest.raises(ProjectError, match="shortcut 'A'"):
        codebook_ops.add_code(project, code_from_dict({"key": "again", "shortcut": "A"}))
    codebook_ops.retire_code(project, "questioning")
    assert [c.key for c in project.codebook.active] == ["affective", "topic", "warmth"]
    codebook_ops.reorder_codes(project, ["warmth", "topic", "questioning", "affective"])
    assert [c.key for c in project.codebook.codes][0] == "warmth"
    codebook_ops.delete_code(project, "warmth")
    assert project.codebook.get("warmth") is None


def test_blind_coding_is_a_project_setting(project: Project) -> None:
    assert project.blind_coding is False
    project.blind_coding = True
    with Project.open(project.path, backup=False) as other:
        assert other.blind_coding is True

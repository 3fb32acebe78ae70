"""Span coding: storage (m011), the row validator and the project API (blinding,
provenance, history, undo)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_support import conversation_lines, make_project

from sense7_coder.domain import rows
from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.spans import SpanKey
from sense7_coder.project import Project
from sense7_coder.project.codebook.editing import add_code
from sense7_coder.project.spans import editing as project_spans

#: turn 2 of every study conversation (c1 here)
TURN2 = "That sounds draining. Which meeting matters most to you? (c1)"
SPAN_CODES = [
    {"key": "warmth", "label": "Warmth", "kind": "binary", "unit": "span"},
    {"key": "move", "label": "Move", "kind": "nominal", "unit": "span", "applies_to": "any",
     "levels": [{"value": "ask"}, {"value": "reflect"}]},
]


def with_span_codes(project: Project) -> Project:
    for c in SPAN_CODES:
        add_code(project, code_from_dict(c))
    return project


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = with_span_codes(make_project(tmp_path))
    p.set_coder("alice")
    yield p
    p.close()


def test_a_span_is_stored_with_its_offsets_provenance_and_history(project: Project) -> None:
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    (span,) = project_spans.spans(project, "c1")
    assert span.key == SpanKey("alice", "c1", 2, 0, 21, "warmth")
    assert span.text_of(TURN2) == "That sounds draining."
    assert (span.value, span.source, span.blind, span.origin) == (1, "coded", False, None)
    row = project.db.execute(
        "SELECT action, kind, coder, position, code, after FROM history "
        "WHERE kind = 'span'").fetchone()
    assert tuple(row) == ("set", "span", "alice", 2, "warmth", "0-21: 1")


@pytest.mark.parametrize(("start", "end", "words"), [
    (0, len(TURN2) + 1, r"ends outside its turn.s text \(61 characters\)"),
    (5, 5, "not after its start"),
    (9, 3, "not after its start"),
    (-1, 4, "span start -1 is not from 0"),
    ("3", 8, "span start '3' is not a whole number"),
])
def test_a_span_outside_the_text_or_backwards_is_refused(
        project: Project, start: object, end: object, words: str) -> None:
    with pytest.raises(ProjectError, match=words):
        project_spans.add(project, "c1", 2, start, end, "warmth")  # type: ignore[arg-type]
    assert project_spans.spans(project, "c1") == []


def test_codes_turns_and_values_are_checked(project: Project) -> None:
    with pytest.raises(ProjectError, match="applies to turns, not to spans"):
        project_spans.add(project, "c1", 2, 0, 4, "validation")
    with pytest.raises(ProjectError, match="applies to assistant turns; turn 1"):
        project_spans.add(project, "c1", 1, 0, 4, "warmth")
    with pytest.raises(ProjectError, match="no turn 9"):
        project_spans.add(project, "c1", 9, 0, 4, "warmth")
    with pytest.raises(ProjectError, match="needs one of its levels"):
        project_spans.add(project, "c1", 1, 0, 4, "move")
    with pytest.raises(ProjectError, match="not a level of code .move."):
        project_spans.add(project, "c1", 1, 0, 4, "move", "shout")
    project_spans.add(project, "c1", 1, 0, 4, "move", "ask")  # 'any' reaches a user turn
    assert [s.value for s in project_spans.spans(project, "c1")] == ["ask"]


def test_offsets_count_code_points_as_refi_qda_does(tmp_path: Path) -> None:
    line = json.loads(conversation_lines().splitlines()[0])
    line["messages"][1]["content"] = "I 💙 you 🐍 code"  # 2 astral characters
    project = with_span_codes(make_project(tmp_path, conversations=json.dumps(line) + "\n"))
    project.set_coder("alice")
    project_spans.add(project, "c1", 2, 4, 7, "warmth")
    project_spans.add(project, "c1", 2, 10, 14, "warmth")  # to the last character
    text = project.conversation("c1").turns[1].text  # type: ignore[union-attr]
    assert [s.text_of(text) for s in project_spans.spans(project, "c1")] == ["you", "code"]
    with pytest.raises(ProjectError, match=r"\(14 characters\)"):
        project_spans.add(project, "c1", 2, 10, 15, "warmth")
    project.close()


def test_resize_recode_memo_delete_each_undo_and_redo(project: Project) -> None:
    key = SpanKey("alice", "c1", 2, 0, 21, "warmth")
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project_spans.change(project, key, start=5, end=20)
    resized = key.moved(5, 20)
    project_spans.change(project, resized, code="move", value="reflect")
    recoded = resized.moved(code="move")
    project_spans.set_memo(project, recoded, "reflects the feeling")
    states = []

    def now() -> list[tuple[object, ...]]:
        return [(s.key, s.value, s.memo) for s in project_spans.spans(project, "c1")]

    states.append(now())
    assert states[0] == [(recoded, "reflect", "reflects the feeling")]
    project_spans.delete(project, recoded)
    assert now() == []
    expected = [
        [(recoded, "reflect", "reflects the feeling")],
        [(recoded, "reflect", "")],
        [(resized, 1, "")],
        [(key, 1, "")],
        [],
    ]
    for want in expected:
        project.undo()
        assert now() == want
    for want in reversed(expected[:-1]):
        project.redo()
        assert now() == want
    kinds = [tuple(r) for r in project.db.execute(
        "SELECT action, kind FROM history WHERE kind LIKE 'span%' ORDER BY id")]
    assert ("change", "span memo") in kinds and ("clear", "span") in kinds


def test_someone_elses_span_cannot_be_changed_and_a_clash_is_refused(project: Project) -> None:
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project_spans.add(project, "c1", 2, 22, 40, "warmth")
    with pytest.raises(ProjectError, match="already is"):
        project_spans.change(project, SpanKey("alice", "c1", 2, 22, 40, "warmth"),
                             start=0, end=21)
    project.set_coder("bob")
    with pytest.raises(ProjectError, match="not yours"):
        project_spans.delete(project, SpanKey("alice", "c1", 2, 0, 21, "warmth"))
    assert len(project_spans.spans(project, "c1")) == 2


def test_a_blind_coder_sees_others_spans_only_after_done_and_then_cannot_change_theirs(
        project: Project) -> None:
    project.set_coder("lead", "adjudicator")
    project.blind_coding = True
    project.set_coder("bob")
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    assert project_spans.spans(project, "c1")[0].blind is True
    project.set_coder("alice")
    project_spans.add(project, "c1", 2, 22, 40, "warmth")
    assert [s.coder for s in project_spans.spans(project, "c1")] == ["alice"]
    with pytest.raises(ProjectError, match="codes blind"):
        project_spans.all_spans(project)
    project.set_done("c1", 2)
    assert sorted(s.coder for s in project_spans.spans(project, "c1")) == ["alice", "bob"]
    mine = SpanKey("alice", "c1", 2, 22, 40, "warmth")
    with pytest.raises(ProjectError, match="spans set blind stay"):
        project_spans.change(project, mine, end=41)
    with pytest.raises(ProjectError, match="spans set blind stay"):
        project_spans.add(project, "c1", 2, 0, 4, "warmth")
    project.set_coder("lead")
    assert len(project_spans.all_spans(project)) == 2


def test_undo_of_a_span_changed_in_another_window_is_refused(project: Project) -> None:
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    with Project.open(project.path) as other:
        other.set_coder("alice")
        project_spans.set_memo(other, SpanKey("alice", "c1", 2, 0, 21, "warmth"), "later")
    with pytest.raises(ProjectError, match="'warmth' span 0-21 .* was changed in another"):
        project.undo()
    assert project_spans.spans(project, "c1")[0].memo == "later"


def test_spans_survive_importing_the_same_conversations_again(project: Project,
                                                             tmp_path: Path) -> None:
    from sense7_coder.project.imports import import_files

    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    again = tmp_path / "again.jsonl"
    again.write_text(conversation_lines(), encoding="utf-8")
    import_files(project, [again])
    assert len(project_spans.spans(project, "c1")) == 1


def test_the_row_validator_names_the_field() -> None:
    with pytest.raises(rows.RowError) as e:
        rows.span("alice", "c1", 2, 0, 99, "warmth", "", text_length=10)
    assert e.value.field == "end"
    with pytest.raises(rows.RowError) as e:
        rows.span("alice", "c1", 0, 0, 5, "warmth", "", text_length=10)
    assert e.value.field == "position"
    assert rows.span("alice", "c1", 1, 0, 10, "warmth", "", text_length=10) == (0, 10)


def test_a_hand_edited_span_of_the_wrong_kind_is_refused_on_opening(project: Project) -> None:
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    path = project.path
    project.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE spans SET start = 'x'")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="table spans, row 1: its start is text 'x'"):
        Project.open(path)


def test_undo_cannot_take_back_a_blind_span_once_its_turn_was_revealed(
        project: Project) -> None:
    project.set_coder("lead", "adjudicator")
    project.blind_coding = True
    project.set_coder("alice")
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project.set_done("c1", 2)
    project.undo()  # the done mark goes; the turn was revealed all the same
    with pytest.raises(ProjectError, match="revealed to 'alice'"):
        project.undo()
    assert len(project_spans.own_spans(project, "c1")) == 1


def test_nudging_a_spans_end_by_character_and_word_stays_inside_the_text() -> None:
    from sense7_coder.domain.spans import nudged_end

    text = "That is a lot to carry. Ok"
    assert nudged_end(text, 0, 16, True, False) == 17
    assert nudged_end(text, 0, 16, True, True) == 22  # " carry"
    assert nudged_end(text, 0, 22, True, True) == 26  # ". Ok"
    assert nudged_end(text, 0, 26, True, False) is None  # at the end of the text
    assert nudged_end(text, 0, 23, False, True) == 16  # "carry." back to "to"
    assert nudged_end(text, 0, 8, False, True) == 4  # "That is " back to "That"
    assert nudged_end(text, 0, 4, False, True) is None  # never empty
    assert nudged_end(text, 5, 6, False, False) is None
    assert nudged_end("héllo wörld", 0, 5, True, True) == 11  # words in any script

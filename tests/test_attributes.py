"""Attributes in sight: the sheet of conversation attributes, a lead's edits with history
(refused to coders, checked like imported ones), and turn attributes carried by the long,
segments and final exports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.domain.attributes import typed_value
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.attributes import (
    attribute_history,
    attribute_sheet,
    set_attribute,
)
from sense7_coder.project.export import export_frame
from sense7_coder.project.imports import import_codings, import_files
from sense7_coder.project.selection import Selection


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    yield project
    project.close()


def test_sheet_shows_every_conversation_with_its_attributes(study: Project) -> None:
    sheet = attribute_sheet(study)
    assert list(sheet.columns) == ["conversation_id", "participant_id", "model", "topic",
                                   "turns", "week"]
    assert sheet["conversation_id"].tolist() == ["c1", "c2", "c3", "c4"]
    assert sheet["week"].tolist() == ["1", "1", "2", "2"]
    assert sheet["model"].tolist() == ["GPT4", "IC", "GPT4", "IC"]


def test_lead_edits_attribute_with_history(study: Project) -> None:
    assert set_attribute(study, "c1", "week", "3")
    assert set_attribute(study, "c1", "site", "Berlin")
    assert set_attribute(study, "c2", "model", "GPT4o")
    assert not set_attribute(study, "c1", "site", "Berlin")  # nothing changed
    assert set_attribute(study, "c1", "week", None)
    sheet = attribute_sheet(study).set_index("conversation_id")
    assert sheet.loc["c2", "model"] == "GPT4o"
    assert sheet.loc["c1", "site"] == "Berlin" and pd.isna(sheet.loc["c1", "week"])
    rows = [(r["conversation_id"], r["action"], r["code"], r["before"], r["after"], r["actor"])
            for r in attribute_history(study)]
    assert rows == [("c1", "change", "week", "1", "3", "lee"),
                    ("c1", "set", "site", None, "Berlin", "lee"),
                    ("c2", "change", "model", "IC", "GPT4o", "lee"),
                    ("c1", "clear", "week", "3", None, "lee")]
    # the filter on attributes sees the edit
    from sense7_coder.store.conversations import ConversationFilter, conversation_rowids
    assert len(conversation_rowids(study.db,
                                   ConversationFilter(attributes={"site": "Berlin"}))) == 1


def test_a_coder_may_not_edit_attributes(study: Project) -> None:
    study.set_coder("ana")
    with pytest.raises(ProjectError, match="only a lead"):
        set_attribute(study, "c1", "week", "9")
    assert attribute_sheet(study)["week"].tolist()[0] == "1"


@pytest.mark.parametrize(("name", "value", "message"), [
    ("", "x", "attribute name"),
    ("week", "a\u200bb", r"U\+200B"),
    ("week", "x" * 5000, "5,000 characters"),
    ("week", float("nan"), "finite"),
    ("week", ["a"], "text, a number"),
    ("turns", "3", "not an attribute"),
])
def test_bad_edits_are_refused_and_nothing_is_written(study: Project, name: str, value: object,
                                                      message: str) -> None:
    before = attribute_sheet(study)
    with pytest.raises(ProjectError, match=message):
        set_attribute(study, "c1", name, value)
    assert attribute_sheet(study).equals(before)
    assert attribute_history(study) == []


def test_unknown_conversation(study: Project) -> None:
    with pytest.raises(ProjectError, match="no conversation 'c9'"):
        set_attribute(study, "c9", "week", "1")


def test_blind_coder_does_not_see_hidden_attributes(study: Project) -> None:
    study.blind_coding = True
    study.hidden_attributes = ["model", "week"]
    study.set_coder("ana")
    assert list(attribute_sheet(study).columns) == ["conversation_id", "participant_id",
                                                    "topic", "turns"]


def test_typed_values_keep_their_kind() -> None:
    assert typed_value("4", 3) == 4 and typed_value("4.5") == 4.5
    assert typed_value("4", "3") == "4"
    assert typed_value("true", False) is True
    assert typed_value("  ") is None
    assert typed_value("nan") == "nan"


def _strategy_chats(tmp_path: Path) -> Path:
    lines = []
    for cid in ("e1", "e2"):
        lines.append(json.dumps({"conversation_id": cid, "messages": [
            {"role": "user", "content": "I lost my job."},
            {"role": "assistant", "content": "That is hard. How are you coping?",
             "strategy": "Question"},
            {"role": "user", "content": "Badly."},
            {"role": "assistant", "content": "Many people feel that way.",
             "strategy": "Affirmation and Reassurance"},
        ]}))
    path = tmp_path / "strategies.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_turn_attributes_in_long_segments_and_final(study: Project, tmp_path: Path) -> None:
    import_files(study, [_strategy_chats(tmp_path)])
    code(study, "ana", {("e1", 2, "validation"): 1, ("e1", 4, "validation"): 0,
                        ("c1", 2, "validation"): 1})
    study.set_coder("lee")
    options = Selection(codes=("validation",))
    for kind in ("long", "segments", "final"):
        table = export_frame(study, kind, options).set_index(["conversation_id", "turn"])
        assert table.loc[("e1", 2), "turn_strategy"] == "Question", kind
        assert table.loc[("e1", 4), "turn_strategy"] == "Affirmation and Reassurance", kind
        assert table.loc[("c1", 2), "turn_strategy"] == "", kind


def test_long_with_turn_attributes_reads_back(study: Project, tmp_path: Path) -> None:
    import_files(study, [_strategy_chats(tmp_path)])
    code(study, "ana", {("e1", 2, "validation"): 1})
    study.set_coder("lee")
    out = tmp_path / "long.csv"
    export_frame(study, "long", Selection()).to_csv(out, index=False)
    fresh = make_project(tmp_path, "fresh.sense7")
    import_files(fresh, [_strategy_chats(tmp_path)])
    assert import_codings(fresh, out).codings == 1
    fresh.close()


def test_hand_edited_attributes_are_not_overwritten(study: Project) -> None:
    study.db.execute("UPDATE conversations SET attributes = '[1, 2' WHERE conversation_id = 'c2'")
    with pytest.raises(ProjectError, match="not a JSON object"):
        set_attribute(study, "c2", "week", "3")
    assert study.db.execute("SELECT attributes FROM conversations WHERE conversation_id = 'c2'"
                            ).fetchone()[0] == "[1, 2"
    sheet = attribute_sheet(study).set_index("conversation_id")  # still shown, as empty
    assert pd.isna(sheet.loc["c2", "week"])


def test_turn_attributes_wait_for_a_blind_coders_done(study: Project, tmp_path: Path) -> None:
    import_files(study, [_strategy_chats(tmp_path)])
    study.blind_coding = True
    study.set_coder("ana")
    conv = study.conversation_for_coder("e1")
    assert conv is not None and all(t.attributes == {} for t in conv.turns)
    study.set_done("e1", 2)
    conv = study.conversation_for_coder("e1")
    assert conv is not None
    assert [t.attributes for t in conv.turns][1:4] == [{"strategy": "Question"}, {}, {}]
    study.set_coder("lee")
    lead = study.conversation_for_coder("e1")
    assert lead is not None and lead.turns[3].attributes == {
        "strategy": "Affirmation and Reassurance"}

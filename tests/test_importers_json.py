"""JSON and JSON Lines: native and common chat layouts, the real mint-empathy file, errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, preview, read_files

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MINT = SHARED_DATA / "mint-empathy" / "training" / "conversations_322.json"


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def read(path: Path, **kw: Any) -> Any:
    return read_files([path], ImportOptions(**kw))[0]


def test_mint_empathy_training_conversations() -> None:
    if not MINT.exists():
        pytest.skip("shared data not available")
    batch = read(MINT)
    convs = batch.conversations
    assert len(convs) == 322
    assert sum(len(c.turns) for c in convs) == 3438
    roles = Counter(t.role for c in convs for t in c.turns)
    assert roles == {"user": 1719, "assistant": 1719}
    assert {t.speaker for c in convs for t in c.turns} == {"seeker", "supporter"}
    assert sum(1 for c in convs for t in c.turns if t.text == "") == 14  # kept, they are real
    sense7 = [c for c in convs if c.attributes.get("source") == "sense-7"]
    assert len(sense7) == 69
    assert sum(len(c.turns) for c in sense7) == 714
    assert Counter(c.model for c in sense7) == {
        "GPT4": 24, "Llama2-70b": 18, "GPT4-empathy": 17, "IC": 10}
    first = convs[0]
    assert (first.conversation_id, first.model) == ("T10", "IC")
    assert first.turns[0].text.startswith("my boss is confusing")
    assert [t.position for t in first.turns] == list(range(1, len(first.turns) + 1))
    assert first.source == "conversations_322.json"
    assert len({c.conversation_id for c in convs}) == 322


NATIVE = {
    "conversation_id": "n1",
    "participant_id": "P7",
    "model": "gpt-4",
    "topic": "deadline",
    "attributes": {"condition": "empathic"},
    "study": "pilot",
    "messages": [
        {"role": "user", "content": "I am stressed", "time_offset": 0},
        {"role": "assistant", "content": "That sounds hard.", "time_offset": "4.5",
         "ratings": {"overall": 4, "Affective": "very good", "relational": "unknown"},
         "comment": "nice", "id": "m2"},
        {"role": "system", "content": None},
    ],
}


def test_native(tmp_path: Path) -> None:
    batch = read(write_json(tmp_path / "native.json", NATIVE))
    (conv,) = batch.conversations
    assert (conv.conversation_id, conv.participant_id, conv.model, conv.topic) == (
        "n1", "P7", "gpt-4", "deadline")
    assert conv.attributes == {"condition": "empathic", "study": "pilot"}
    user, reply, system = conv.turns
    assert reply.ratings == {"overall": 4, "affective": 5, "relational": None}
    assert (reply.comment, reply.time_offset, reply.attributes) == ("nice", 4.5, {"id": "m2"})
    assert user.time_offset == 0.0 and user.ratings == {}
    assert (system.role, system.text) == ("system", "")
    assert [p.participant_id for p in batch.participants] == ["P7"]


def test_common_layouts(tmp_path: Path) -> None:
    openai = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
              {"role": "assistant", "content": "hello"}]
    batch = read(write_json(tmp_path / "bare.json", openai))
    assert [c.conversation_id for c in batch.conversations] == ["bare-1"]
    assert [t.text for t in batch.conversations[0].turns] == ["hi", "hello"]
    sharegpt = {"conversations": [
        {"id": "s1", "conversations": [{"from": "human", "value": "q"},
                                        {"from": "gpt", "value": "a"}]},
        {"conversations": [{"from": "human", "value": "q2"}]},
    ]}
    batch = read(write_json(tmp_path / "share.json", sharegpt))
    assert [c.conversation_id for c in batch.conversations] == ["s1", "share-2"]
    assert [(t.role, t.speaker) for t in batch.conversations[0].turns] == [
        ("user", "human"), ("assistant", "gpt")]
    dialog = {"id": 7, "dialog": [{"speaker": "usr", "text": "x"}, {"speaker": "sys", "text": "y"}]}
    batch = read(write_json(tmp_path / "dialog.json", dialog), roles={"sys": "assistant"})
    assert batch.conversations[0].conversation_id == "7"
    assert [t.role for t in batch.conversations[0].turns] == ["user", "assistant"]


def test_mapping_renames_keys(tmp_path: Path) -> None:
    data = [{"uuid": "u1", "messages": [{"role": "user", "body": "hi", "content": "ignored"}]}]
    batch = read(write_json(tmp_path / "m.json", data),
                 mapping={"conversation_id": "uuid", "text": "body"})
    conv = batch.conversations[0]
    assert conv.conversation_id == "u1" and conv.turns[0].text == "hi"
    assert conv.turns[0].attributes == {"content": "ignored"}


def test_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    lines = [json.dumps(NATIVE), "", json.dumps([{"role": "user", "content": "solo"}])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batch = read(path)
    assert [c.conversation_id for c in batch.conversations] == ["n1", "chats-2"]
    assert batch.conversations[1].turns[0].text == "solo"


def test_bad_line_in_the_middle_of_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    good = json.dumps({"conversation_id": "a", "messages": [{"role": "user", "content": "x"}]})
    path.write_text("\n".join([good, good.replace('"a"', '"b"'), '{"conversation_id": "c", ',
                               good.replace('"a"', '"d"')]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 3"
    assert "not valid JSON" in e.value.message
    assert str(e.value).startswith(f"{path}, line 3: ")


def test_truncated_json_names_line_and_column(tmp_path: Path) -> None:
    text = json.dumps([NATIVE, NATIVE], indent=2)
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    last_line = text[: len(text) // 2].count("\n") + 1
    assert e.value.location is not None
    assert e.value.location.startswith(f"line {last_line}, column ")
    assert "is the file complete?" in e.value.message


@pytest.mark.parametrize(
    ("data", "location", "field", "expect"),
    [
        ([{"messages": [{"role": "user", "content": "a"}, {"role": "wizard", "content": "b"}]}],
         "conversation 1, message 2", "role", "unknown role 'wizard'"),
        ([{"conversation_id": "x", "messages": [
            {"role": "assistant", "content": "a", "ratings": {"overall": 9}}]}],
         "conversation 1 (id 'x'), message 1", "ratings.overall", "'9' is not a rating"),
        ([{"messages": [{"role": "assistant", "content": "a", "ratings": {"warmth": 3}}]}],
         "conversation 1, message 1", "ratings.warmth", "unknown rating 'warmth'"),
        ([{"conversation_id": "x", "messages": []}, {"conversation_id": "x", "messages": []}],
         "conversation 2", "conversation_id", "conversation id 'x' appears twice"),
        ([{"messages": [{"role": "user"}]}], "conversation 1", None,
         "no list of messages"),
        ([{"messages": [{"role": "user", "content": {"a": 1}}]}],
         "conversation 1, message 1", "content", "must be text"),
    ],
)
def test_errors_name_where_and_field(tmp_path: Path, data: Any, location: str,
                                     field: str | None, expect: str) -> None:
    path = write_json(tmp_path / "bad.json", data)
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.file == str(path)
    assert e.value.location == location
    assert e.value.field == field
    assert expect in e.value.message


def test_unknown_role_fixed_with_roles(tmp_path: Path) -> None:
    path = write_json(tmp_path / "r.json", [{"messages": [
        {"role": "Coach", "content": "a"}, {"role": "Client", "content": "b"}]}])
    with pytest.raises(InputError, match="unknown role 'Coach'") as e:
        read(path)
    assert e.value.hint is not None
    assert (e.value.hint.option, e.value.hint.value) == ("roles", "Coach=user")
    batch = read(path, roles={"coach": "assistant"})
    assert [t.role for t in batch.conversations[0].turns] == ["assistant", "user"]


def test_not_a_conversation(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a conversation"):
        read(write_json(tmp_path / "x.json", {"name": "not chats"}))
    with pytest.raises(InputError, match="no conversations"):
        read(write_json(tmp_path / "e.json", []))


def test_preview_json_columns(tmp_path: Path) -> None:
    result = preview(write_json(tmp_path / "native.json", NATIVE), ImportOptions(), n=2)
    assert result.ok and result.format == "json" and len(result.frame) == 2
    assert {"conversation_id", "messages", "role", "content", "ratings"} <= set(result.columns)
    assert result.frame.loc[1, "affective"] == 5

"""Long CSV (one row per message): columns, roles, order, ratings, errors, speed."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.domain.errors import Cancelled, InputError
from sense7_coder.domain.importers import ImportOptions, detect_format, preview, read_files


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def read(path: Path, **kw: object) -> object:
    return read_files([path], ImportOptions(**kw))[0]  # type: ignore[arg-type]


GOOD = (
    "conversation_id,position,role,text,participant_id,model,overall,rating_affective,"
    "relational,comment,time_offset,conversation.condition,annotator_note\n"
    "c1,2,assistant,\"Hello, how can I help?\",p1,gpt-4,4,good,unknown,kind,3.5,A,checked\n"
    "c1,1,user,Hi,p1,,,,,,0,A,\n"
    "c2,1,Human,\"line one\nline two\",p2,llama,,,,,,B,\n"
    "c2,2,Bot,NA,p2,llama,very poor,1,,,,B,\n"
    "c1,3,user,,p1,gpt-4,,,,,,A,007\n"
)


def test_long_csv(tmp_path: Path) -> None:
    path = write(tmp_path / "chats.csv", GOOD)
    assert detect_format(path) == "csv"
    batch = read(path)
    c1, c2 = batch.conversations
    assert (c1.conversation_id, c1.participant_id, c1.model) == ("c1", "p1", "gpt-4")
    assert c1.attributes == {"condition": "A"}
    assert [(t.position, t.role, t.text) for t in c1.turns] == [
        (1, "user", "Hi"), (2, "assistant", "Hello, how can I help?"), (3, "user", "")]
    reply = c1.turns[1]
    assert reply.ratings == {"overall": 4, "affective": 4, "relational": None}
    assert (reply.comment, reply.time_offset) == ("kind", 3.5)
    assert reply.attributes == {"annotator_note": "checked"}
    assert c1.turns[2].attributes == {"annotator_note": "007"}  # leading zeros stay text
    assert c1.turns[0].ratings == {} and c1.turns[0].speaker is None
    assert [t.role for t in c2.turns] == ["user", "assistant"]
    assert [t.speaker for t in c2.turns] == ["Human", "Bot"]
    assert c2.turns[0].text == "line one\nline two"
    assert c2.turns[1].text == "NA"
    assert c2.turns[1].ratings == {"overall": 1, "affective": 1}
    assert [p.participant_id for p in batch.participants] == ["p1", "p2"]


def test_speaker_column_with_roles_and_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "s.csv", "Conv;Who;Body\nx;Alice;hi\nx;Coach;hello\n")
    with pytest.raises(InputError) as e:
        read(path, mapping={"conversation_id": "Conv", "text": "Body", "speaker": "Who"})
    assert e.value.field == "Who" and e.value.location == "line 2"
    assert "unknown speaker 'Alice'" in e.value.message
    assert e.value.hint is not None and e.value.hint.value == "Alice=user"
    batch = read(path, mapping={"conversation_id": "Conv", "text": "Body", "speaker": "Who"},
                 roles={"alice": "user", "Coach": "assistant"})
    turns = batch.conversations[0].turns
    assert [(t.role, t.speaker, t.text) for t in turns] == [
        ("user", "Alice", "hi"), ("assistant", "Coach", "hello")]


def test_without_ids_conversations_split_where_position_restarts(tmp_path: Path) -> None:
    path = write(tmp_path / "log.csv",
                 "turn,role,text\n1,user,a\n2,assistant,b\n1,user,c\n2,assistant,d\n3,user,e\n")
    batch = read(path)
    assert [c.conversation_id for c in batch.conversations] == ["log-1", "log-2"]
    assert [len(c.turns) for c in batch.conversations] == [2, 3]
    single = read(write(tmp_path / "one.csv", "role,text\nuser,a\nassistant,b\n"))
    assert [c.conversation_id for c in single.conversations] == ["one-1"]


@pytest.mark.parametrize(
    ("body", "location", "field", "expect"),
    [
        ("c1,1,user,hi,\nc1,1,assistant,yo,\n", "line 3", "position",
         "position 1 appears twice in conversation 'c1' (also line 2)"),
        ("c1,1,user,hi,\nc1,2,assistant,yo,9\n", "line 3", "overall", "'9' is not a rating"),
        ("c1,1,user,hi,\nc1,2,assistant,yo,great\n", "line 3", "overall",
         "'great' is not a rating"),
        ("c1,1,user,hi,\n,2,assistant,yo,\n", "line 3", "conversation_id",
         "the conversation id is empty"),
        ("c1,one,user,hi,\n", "line 2", "position", "'one' is not a number"),
        ("c1,1,wizard,hi,\n", "line 2", "role", "unknown role 'wizard'"),
        ("c1,1,user,\"never closed,\n", "line 2", None, "quoted cell starting on this line"),
        ("c1,1,user,a\nc1,2,user,hi,,extra\n", "line 3", None,
         "this row has 6 cells but the header has 5"),
    ],
)
def test_errors_name_line_and_field(tmp_path: Path, body: str, location: str,
                                    field: str | None, expect: str) -> None:
    path = write(tmp_path / "bad.csv", "conversation_id,position,role,text,overall\n" + body)
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.file == str(path)
    assert e.value.location == location
    assert e.value.field == field
    assert expect in e.value.message


def test_line_numbers_count_multiline_cells_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "ml.csv",
                 "conversation_id,role,text,overall\n"
                 "c1,user,\"a\nb\nc\",\n\nc1,assistant,fine,\nc1,assistant,ok,10\n")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 7"


def test_conversation_level_columns_must_agree(tmp_path: Path) -> None:
    path = write(tmp_path / "m.csv", "conversation_id,role,text,model\nc1,user,a,gpt\n"
                                     "c1,assistant,b,llama\n")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 3" and e.value.field == "model"
    assert "'llama'" in e.value.message and "'gpt' on line 2" in e.value.message


def test_missing_columns_listed(tmp_path: Path) -> None:
    path = write(tmp_path / "m.csv", "conversation_id,who,words\nc1,user,a\n")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.field == "text" and e.value.location == "line 1"
    assert "columns present: conversation_id, who, words" in e.value.message
    with pytest.raises(InputError) as e:
        read(path, mapping={"text": "words"})
    assert e.value.field == "role" and "role (or speaker)" in e.value.message
    with pytest.raises(InputError) as e:
        read(path, mapping={"text": "wordz"})
    assert "column 'wordz' (chosen for text) is not in the table" in e.value.message
    assert e.value.hint is not None and e.value.hint.option == "map"


def test_duplicate_header_and_header_only(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        read(write(tmp_path / "d.csv", "role,text,text\nuser,a,b\n"))
    assert "column 'text' appears twice" in e.value.message
    with pytest.raises(InputError) as e:
        read(write(tmp_path / "h.csv", "role,text\n"))
    assert "no rows" in e.value.message


def test_ids_unique_across_files(tmp_path: Path) -> None:
    a = write(tmp_path / "a.csv", "conversation_id,role,text\nc1,user,hi\n")
    b = write(tmp_path / "b.csv", "conversation_id,role,text\nc2,user,hi\nc1,user,yo\n")
    with pytest.raises(InputError) as e:
        read_files([a, b], ImportOptions())
    assert e.value.file == str(b) and "'c1' is also in" in e.value.message


def _big_csv(path: Path, rows: int) -> Path:
    lines = ["conversation_id,position,role,text,overall,affective"]
    for i in range(rows):
        role = "user" if i % 2 == 0 else "assistant"
        rating = f"{i % 5 + 1},good" if role == "assistant" else ","
        lines.append(f"c{i // 10},{i % 10 + 1},{role},message number {i},{rating}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_progress_and_cancel(tmp_path: Path) -> None:
    path = _big_csv(tmp_path / "big.csv", 20_000)
    seen: list[tuple[int, int]] = []
    batch = read_files([path], ImportOptions(), progress=lambda d, t: seen.append((d, t)))[0]
    assert len(batch.conversations) == 2000
    assert len(seen) > 5 and seen[-1][0] == seen[-1][1]
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    calls = {"n": 0}

    def cancel() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    with pytest.raises(Cancelled):
        read_files([path], ImportOptions(), cancel=cancel)


def test_200k_rows_parse_whole(tmp_path: Path) -> None:
    """A large file reads to its last row (its speed: benchmarks/bench_import_parse.py)."""
    path = _big_csv(tmp_path / "big.csv", 200_000)
    batch = read_files([path], ImportOptions())[0]
    assert len(batch.conversations) == 20_000
    assert batch.conversations[-1].turns[-1].ratings == {"overall": 5, "affective": 4}


def test_preview_reports_error_and_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "p.csv", "conversation_id,role,words\nc1,user,a\n")
    result = preview(path, ImportOptions())
    assert not result.ok and result.frame.empty
    assert result.columns == ["conversation_id", "role", "words"]
    assert len(result.messages) == 1 and "field 'text'" in result.messages[0]
    fixed = preview(path, ImportOptions(mapping={"text": "words"}))
    assert fixed.ok and fixed.frame.loc[0, "text"] == "a" and fixed.turns == 1

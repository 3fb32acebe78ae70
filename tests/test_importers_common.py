"""Options, ratings, encodings, empty files and format detection, across formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import (
    FORMATS,
    MAP_FIELDS,
    ImportOptions,
    detect_format,
    parse_mapping,
    parse_rating,
    parse_roles,
    read_files,
)


def test_parse_roles() -> None:
    assert parse_roles("Seeker=user, Supporter = assistant") == {
        "Seeker": "user", "Supporter": "assistant"}
    assert parse_roles("") == {}
    assert parse_roles("Narrator=SYSTEM") == {"Narrator": "system"}
    with pytest.raises(ValueError, match="'Seeker' is not NAME=VALUE"):
        parse_roles("Seeker")
    with pytest.raises(ValueError, match="role 'client' for 'Seeker' must be one of user, "
                                         "assistant, system"):
        parse_roles("Seeker=client")
    with pytest.raises(ValueError, match="'seeker' is given twice"):
        parse_roles("Seeker=user,seeker=assistant")


def test_parse_mapping() -> None:
    assert parse_mapping("text=Content,conversation_id=Conv") == {
        "text": "Content", "conversation_id": "Conv"}
    assert parse_mapping("Overall=Score") == {"overall": "Score"}
    assert "transcript" in MAP_FIELDS and "relational" in MAP_FIELDS
    with pytest.raises(ValueError, match="'body' is not a field; fields: conversation_id"):
        parse_mapping("body=Content")
    with pytest.raises(ValueError, match="field 'text' is given twice"):
        parse_mapping("text=a,text=b")
    with pytest.raises(ValueError, match="is not NAME=VALUE"):
        parse_mapping("text=")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("very poor", 1), ("Poor", 2), ("neutral", 3), (" good ", 4), ("VERY GOOD", 5),
     ("very_good", 5), ("4", 4), ("4.0", 4), (5, 5), (2.0, 2), ("unknown", None),
     ("N/A", None), ("NA", None), ("not applicable", None)],
)
def test_parse_rating(raw: object, expected: int | None) -> None:
    assert parse_rating(raw) == expected


@pytest.mark.parametrize("raw", ["7", "0", "great", "3.5", 6, -1, True])
def test_parse_rating_refuses(raw: object) -> None:
    with pytest.raises(ValueError, match="is not a rating"):
        parse_rating(raw)


def test_formats_listed() -> None:
    assert FORMATS == ("auto", "sense7-xlsx", "sense7-csv", "csv", "json", "jsonl", "esconv",
                       "transcript")
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        read_files([], ImportOptions(format="xml"))


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("a.csv", "conversation_id,role,text\n", "csv"),
        ("a.tsv", "speaker\ttext\n", "csv"),
        ("a.csv", "conversation_id,full_conversation\n", "transcript"),
        ("a.csv", "TaskId,PID,Model\n", "sense7-csv"),
        ("a.csv", "TaskId,MessageId,Role,Content\n", "sense7-csv"),
        ("a.json", '[{"messages": [{"role": "user", "content": "hi"}]}]', "json"),
        ("a.json", '{"a": 1}\n{"a": 2}\n', "jsonl"),
        ("a.json", '[{"dialog": [{"speaker": "speaker", "annotation": {}, "content": "x"}]}]',
         "esconv"),
        ("a.jsonl", "{}", "jsonl"),
        ("a.txt", "User: hi", "transcript"),
    ],
)
def test_detect_format(tmp_path: Path, name: str, content: str, fmt: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == fmt


def test_unknown_ending(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK")
    with pytest.raises(InputError, match="cannot tell the format"):
        read_files([path], ImportOptions())
    with pytest.raises(InputError, match="no such file"):
        read_files([tmp_path / "missing.csv"], ImportOptions())


LATIN1 = {
    "chats.csv": "conversation_id,role,text\nc1,user,ok\nc1,assistant,très bien\n",
    "chats.json": '[{"messages": [{"role": "user", "content": "d\u00e9j\u00e0 vu"}]}]',
    "chats.jsonl": '{"messages": [{"role": "user", "content": "ok"}]}\n'
                   '{"messages": [{"role": "user", "content": "na\u00efve"}]}\n',
    "chat.txt": "User: hi\nAssistant: caf\u00e9\n",
    "tasks.csv": "conversation_id,transcript\nc1,User: ol\u00e9\n",
}
LATIN1_LINES = {"chats.csv": 3, "chats.json": 1, "chats.jsonl": 2, "chat.txt": 2,
                "tasks.csv": 2}


@pytest.mark.parametrize("name", sorted(LATIN1))
def test_latin1_bytes_are_refused_with_offset_and_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    text = LATIN1[name]
    path.write_bytes(text.encode("latin-1"))
    fmt = "transcript" if name == "tasks.csv" else "auto"
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions(format=fmt))
    assert e.value.file == str(path)
    assert "not UTF-8 text" in e.value.message
    offset = next(i for i, b in enumerate(text.encode("latin-1")) if b >= 0x80)
    assert f"byte offset {offset}" in e.value.message
    assert e.value.location == f"line {LATIN1_LINES[name]}"


@pytest.mark.parametrize("name", sorted(LATIN1))
def test_utf8_with_bom_is_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + LATIN1[name].encode("utf-8"))
    fmt = "transcript" if name == "tasks.csv" else "auto"
    batch = read_files([path], ImportOptions(format=fmt))[0]
    texts = [t.text for c in batch.conversations for t in c.turns]
    assert any(ch in t for t in texts for ch in "èéàïé")
    if name == "chats.csv":
        assert batch.conversations[0].conversation_id == "c1"  # BOM not part of the header


@pytest.mark.parametrize("name", ["e.csv", "e.json", "e.jsonl", "e.txt", "e.tsv"])
@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf"])
def test_empty_files(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions())
    assert e.value.file == str(path)
    assert e.value.message == "the file is empty"


def test_utf16_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "u.csv"
    path.write_bytes("conversation_id,role,text\nc,user,x\n".encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        read_files([path], ImportOptions())

"""Streamed imports: JSON arrays and JSON Lines are read one conversation at a time.

The import writes as it reads, in one transaction: what lands is what reading the file
whole gives, a refused file is refused with the very message the whole-file reader gives
(naming line and column), and nothing of a refused call is left in the project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, jsonchat, jsonstream, read_files
from sense7_coder.project import Project
from sense7_coder.project import imports as project_imports
from sense7_coder.project.imports import import_files


def conversation(i: int, turns: int = 3, **extra: Any) -> dict[str, Any]:
    return {"conversation_id": f"c{i}", "model": "m", **extra,
            "messages": [{"role": "user" if k % 2 == 0 else "assistant",
                          "content": f"message {k} of {i} \u00e9 \ud83d\ude00"}
                         for k in range(turns)]}


def many(n: int) -> list[dict[str, Any]]:
    return [conversation(i, turns=1 + i % 4) for i in range(1, n + 1)]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.create(tmp_path / "study.sense7")
    yield p
    p.close()


@pytest.fixture
def no_whole_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails the test if a file is read whole (parsed as one JSON text)."""
    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(jsonchat, "json_text", refuse)
    monkeypatch.setattr(jsonchat, "load_json", refuse)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Conversations written 3 at a time, and files read 64 bytes at a time: every file
    here spans many chunks of both."""
    monkeypatch.setattr(project_imports, "CHUNK", 3)
    monkeypatch.setattr(jsonstream, "CHUNK", 64)


def stored(project: Project) -> list[tuple[str, int, str, str]]:
    return [tuple(r) for r in project.db.execute(
        "SELECT conversation_id, position, role, text FROM turns "
        "ORDER BY conversation_id, position").fetchall()]


def whole(path: Path, **kw: Any) -> list[tuple[str, int, str, str]]:
    batch = read_files([path], ImportOptions(**kw))[0]
    return sorted((c.conversation_id, t.position, t.role, t.text)
                  for c in batch.conversations for t in c.turns)


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_is_imported_one_conversation_at_a_time(
        tmp_path: Path, project: Project, small_chunks: None, indent: int | None) -> None:
    path = tmp_path / "chats.json"
    path.write_text(json.dumps(many(20), indent=indent), encoding="utf-8")
    expected = whole(path)
    with pytest.MonkeyPatch.context() as mp:  # read whole, and the import may not
        mp.setattr(jsonchat, "json_text", lambda *a, **k: pytest.fail("read whole"))
        mp.setattr(jsonchat, "load_json", lambda *a, **k: pytest.fail("read whole"))
        summary = import_files(project, [path])
    assert summary.conversations == 20 and summary.turns == len(expected)
    assert stored(project) == expected
    assert {r[0] for r in project.db.execute("SELECT model FROM conversations")} == {"m"}


def test_json_lines_are_imported_one_line_at_a_time(
        tmp_path: Path, project: Project, small_chunks: None, no_whole_reading: None) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in many(11)) + "\n\n", encoding="utf-8")
    summary = import_files(project, [path])
    assert summary.conversations == 11
    assert [r[0] for r in project.db.execute(
        "SELECT conversation_id FROM conversations ORDER BY rowid")] == [
        f"c{i}" for i in range(1, 12)]


def test_a_dry_run_streams_and_writes_nothing(
        tmp_path: Path, project: Project, small_chunks: None, no_whole_reading: None) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in many(7)), encoding="utf-8")
    summary = import_files(project, [path], dry_run=True)
    assert (summary.conversations, summary.dry_run) == (7, True)
    assert stored(project) == []


def test_a_second_import_counts_what_is_there(
        tmp_path: Path, project: Project, small_chunks: None) -> None:
    path = tmp_path / "chats.json"
    path.write_text(json.dumps(many(8)), encoding="utf-8")
    import_files(project, [path])
    again = import_files(project, [path])
    assert (again.conversations, again.already_present) == (0, 8)


# what the whole-file reader refuses, each with its message: the import says the same
BAD = {
    "truncated": lambda text: text[: len(text) // 2],
    "trailing comma": lambda text: text[:-1] + ",]",
    "missing comma": lambda text: text.replace('}, {"conversation_id": "c5"',
                                               '} {"conversation_id": "c5"'),
    "extra data": lambda text: text + "\n[1]",
    "lone surrogate": lambda text: text.replace("message 0 of 6", "message \\ud800 of 6"),
    "too deep": lambda text: text.replace('"model": "m"', '"model": "m", "x": '
                                          + "[" * 250 + "]" * 250, 1),
    "a bad record late": lambda text: text.replace('"role": "user", "content": "message 0 of 9 ',
                                                   '"role": "robot", "content": "message 0 of 9 '),
    "an id twice": lambda text: text.replace('"conversation_id": "c9"',
                                             '"conversation_id": "c2"'),
    "a NUL byte": lambda text: text.replace("message 1 of 7", "message 1 \x00of 7"),
    "a number too long": lambda text: text.replace('"model": "m"', '"model": "m", "n": '
                                                   + "9" * 5000, 1),
    "nothing": lambda text: "[]",
    "empty": lambda text: "",
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_refused_file_is_refused_with_the_whole_readers_message_and_nothing_lands(
        tmp_path: Path, project: Project, small_chunks: None, kind: str, suffix: str) -> None:
    if suffix == ".jsonl" and kind in ("missing comma", "nothing"):
        pytest.skip("a JSON Lines file has no commas between records; [] is a conversation")
    items = many(10)
    text = json.dumps(items) if suffix == ".json" else "\n".join(json.dumps(c) for c in items)
    path = tmp_path / f"chats{suffix}"
    path.write_text(BAD[kind](text), encoding="utf-8", errors="surrogatepass")
    with pytest.raises(InputError) as whole_error:
        read_files([path], ImportOptions())
    with pytest.raises(InputError) as streamed_error:
        import_files(project, [path])
    assert str(streamed_error.value) == str(whole_error.value)
    assert stored(project) == []
    assert project.db.execute("SELECT count(*) FROM conversations").fetchone()[0] == 0


def test_other_layouts_are_read_whole_as_before(tmp_path: Path, project: Project,
                                                small_chunks: None) -> None:
    """An object holding the conversations, a bare list of messages: read whole."""
    held = tmp_path / "held.json"
    held.write_text(json.dumps({"conversations": many(5)}), encoding="utf-8")
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(conversation(99)["messages"]), encoding="utf-8")
    expected = sorted(whole(held) + whole(bare))
    import_files(project, [held, bare])
    assert stored(project) == expected


def test_an_id_in_two_files_is_refused_naming_both(tmp_path: Path, project: Project,
                                                  small_chunks: None) -> None:
    first = tmp_path / "a.jsonl"
    first.write_text("\n".join(json.dumps(c) for c in many(6)), encoding="utf-8")
    second = tmp_path / "b.json"
    second.write_text(json.dumps([conversation(40), conversation(4)]), encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_files(project, [first, second])
    assert e.value.message == f"conversation id 'c4' is also in {first}; ids must be unique"
    assert e.value.file == str(second)
    assert stored(project) == []


def test_a_cancel_part_way_leaves_nothing(tmp_path: Path, project: Project,
                                          small_chunks: None) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in many(400)), encoding="utf-8")
    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 5

    from sense7_coder.domain.errors import Cancelled

    with pytest.raises(Cancelled):
        import_files(project, [path], cancel=cancel)
    assert stored(project) == []


# -- long CSV: a chunk of rows at a time ---------------------------------------------------

CSV_HEADER = "conversation_id,turn,role,text,model,overall,mood\n"


def csv_rows(n: int) -> list[str]:
    rows = []
    for i in range(1, n + 1):
        turns = 1 + i % 4
        for k in reversed(range(1, turns + 1)):  # positions out of file order
            text = f'"line one of {i}\nline two, with a comma"' if k == 2 else f"msg {k} of {i}"
            rows.append(f"c{i},{k},{'user' if k % 2 else 'assistant'},{text},m{i % 3},"
                        f"{'' if k % 2 else 1 + i % 5},{'' if i % 3 else 'calm'}\n")
        if i % 5 == 0:
            rows.append(",,,,,,\n")  # a blank row, dropped
    return rows


@pytest.fixture
def small_csv_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from sense7_coder.domain.importers import csvstream

    monkeypatch.setattr(csvstream, "ROWS", 4)
    monkeypatch.setattr(project_imports, "CHUNK", 3)


def stored_full(project: Project) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in project.db.execute(
        "SELECT t.conversation_id, t.position, t.role, t.text, t.attributes, c.model, "
        "(SELECT group_concat(rating || '=' || value) FROM user_ratings u WHERE "
        "u.conversation_id = t.conversation_id AND u.position = t.position) "
        "FROM turns t JOIN conversations c USING (conversation_id) "
        "ORDER BY t.conversation_id, t.position").fetchall()]


def test_a_long_csv_is_imported_a_chunk_at_a_time(
        tmp_path: Path, small_csv_chunks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from sense7_coder.domain.importers import csv_long

    path = tmp_path / "chats.csv"
    path.write_text(CSV_HEADER + "".join(csv_rows(23)), encoding="utf-8")
    # the reference: the file read whole, written as before
    with Project.create(tmp_path / "reference.sense7") as reference:
        from sense7_coder.store import conversations as store_conv

        batch = read_files([path], ImportOptions())[0]
        with reference.pdb.atomic() as db:
            store_conv.insert_conversations(db, batch.conversations, batch.participants)
        expected = stored_full(reference)
    monkeypatch.setattr(csv_long, "read_csv_table",
                        lambda *a, **k: pytest.fail("the file was read whole"))
    with Project.create(tmp_path / "streamed.sense7") as streamed:
        summary = import_files(streamed, [path])
        assert stored_full(streamed) == expected
    assert summary.conversations == 23 and summary.turns == len(expected)


def test_a_csv_whose_conversations_lie_apart_is_read_whole_and_imported(
        tmp_path: Path, project: Project, small_csv_chunks: None) -> None:
    path = tmp_path / "apart.csv"
    rows = csv_rows(6)
    path.write_text(CSV_HEADER + "".join(rows[1:] + rows[:1]), encoding="utf-8")
    expected = whole(path)
    import_files(project, [path])
    assert stored(project) == expected


CSV_BAD = {
    "an empty id late": lambda rows: rows[:-3] + [",1,user,hello,m1,,\n"] + rows[-3:],
    "an unknown role late": lambda rows: rows[:-2] + ["c99,1,robot,hi,m1,,\n"],
    "a position twice": lambda rows: rows + ["c98,1,user,a,m1,,\n", "c98,1,user,b,m1,,\n"],
    "a model that changes": lambda rows: rows + ["c97,1,user,a,m1,,\n", "c97,2,user,b,m2,,\n"],
    "a row too long": lambda rows: rows[:-4] + ["c96,1,user,a,m1,,,extra,cells\n"] + rows[-4:],
    "a quote never closed": lambda rows: rows[:-2] + ['c95,1,user,"never closed,m1,,\n'],
    "a NUL byte": lambda rows: rows + ["c94,1,user,a\x00b,m1,,\n"],
    "a rating off the scale": lambda rows: rows + ["c93,1,user,a,m1,9,\n"],
    "a header alone": lambda rows: [],
}


@pytest.mark.parametrize("kind", sorted(CSV_BAD))
def test_a_refused_csv_is_refused_with_the_whole_readers_message_and_nothing_lands(
        tmp_path: Path, project: Project, small_csv_chunks: None, kind: str) -> None:
    path = tmp_path / "chats.csv"
    path.write_text(CSV_HEADER + "".join(CSV_BAD[kind](csv_rows(12))), encoding="utf-8")
    with pytest.raises(InputError) as whole_error:
        read_files([path], ImportOptions())
    with pytest.raises(InputError) as streamed_error:
        import_files(project, [path])
    assert str(streamed_error.value) == str(whole_error.value)
    assert project.db.execute("SELECT count(*) FROM conversations").fetchone()[0] == 0

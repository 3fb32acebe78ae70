"""Merging checks every row of the source as the API checks what a coder enters.

Each source here is a healthy project file edited by hand with raw SQL (schema untouched,
so only the row checks can catch it). The merge is refused whole, the problems are listed
naming the source, and the target is unchanged.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.project.merge.merging import merge
from sense7_coder.store import conversations as store_conv
from sense7_coder.store.schema import SCHEMA_VERSION
from sense7_coder.store.trust import expected_schema

BOOK = {"name": "t", "codes": [
    {"key": "affective"},
    {"key": "topic", "kind": "nominal", "levels": [{"value": "a", "label": "a"},
                                                   {"value": "b", "label": "b"}],
     "allow_na": False},
    {"key": "hedge", "kind": "binary", "unit": "sentence"},
]}


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "target.sense7"
    with Project.create(path, codebook_from_dict(BOOK)) as p:
        with p.pdb.atomic() as db:
            turns = [Turn(i, "user" if i % 2 else "assistant", f"Sentence one. Sentence {i}.")
                     for i in range(1, 7)]
            store_conv.insert_conversations(db, [Conversation("c1", turns)])
        p.set_coder("alice")
        p.set_value(Unit("c1", 2), "affective", 3)
    return path


def past_the_guard(sql: str) -> str:
    """A hand edit of the history, as another tool can make it: the trigger that keeps the
    history append-only dropped for the edit and put back as it was (so that the file's
    schema is still sense7-coder's)."""
    guard = next(entry[3] for entry in expected_schema(SCHEMA_VERSION)
                 if entry[1] == "history_no_update")
    return f"DROP TRIGGER history_no_update; {sql} {guard};"


def source_with(target: Path, folder: Path, sql: str) -> Path:
    """A coder's copy of the target with a valid coding by 'bob', then ``sql`` applied."""
    path = folder / "bob.sense7"
    shutil.copyfile(target, path)
    with Project.open(path, backup=False) as p:
        p.set_coder("bob")
        p.set_value(Unit("c1", 4), "affective", 4)
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return path


def rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return [*conn.execute("SELECT * FROM codings ORDER BY coder, position, code"),
                *conn.execute("SELECT * FROM coders ORDER BY name")]
    finally:
        conn.close()


def insert(coder: str, position: int, code: str, value: str, sentence: int = 0) -> str:
    return (f"INSERT INTO codings(coder, conversation_id, position, sentence, code, value, "
            f"updated_at) VALUES ('{coder}', 'c1', {position}, {sentence}, '{code}', "
            f"{value}, '2024-01-01');")


CASES = {
    "turn that does not exist": (insert("bob", 99, "affective", "2"), "no turn 99"),
    "conversation that does not exist": (
        "PRAGMA foreign_keys = OFF; INSERT INTO codings(coder, conversation_id, position, "
        "sentence, code, value, updated_at) VALUES ('bob', 'ghost', 2, 0, 'affective', 2, NULL);", "conversation 'ghost'"),
    "sentence that does not exist": (insert("bob", 2, "hedge", "1", sentence=9),
                                     "no sentence 9"),
    "value off the scale": ("UPDATE codings SET value = 9 WHERE coder = 'bob';",
                            "values 9 that are not levels"),
    "number stored as text": ("UPDATE codings SET value = '4' WHERE coder = 'bob';",
                              "values 4 that are not levels"),
    "not applicable where not allowed": (insert("bob", 2, "topic", "NULL"),
                                         "marked not applicable in this file"),
    "code on the wrong role": (insert("bob", 3, "affective", "2"), "coded on user turns"),
    "sentence code on a turn": (insert("bob", 2, "hedge", "1"), "give a sentence"),
    "turn code on a sentence": (insert("bob", 2, "affective", "2", sentence=1),
                                "whole turns, not sentences"),
    "unknown role": ("UPDATE coders SET role = 'root' WHERE name = 'bob';", "role 'root'"),
    "NULL coder name": ("INSERT INTO coders VALUES (NULL, 'coder', NULL);",
                        "coder name None"),
    "blank coder name": ("INSERT INTO coders VALUES ('  ', 'coder', NULL);",
                         "coder name '  '"),
    "turn with an unknown role": (
        "INSERT INTO conversations(conversation_id, n_turns) VALUES ('c2', 1);"
        "INSERT INTO turns(conversation_id, position, role, text) VALUES "
        "('c2', 1, 'robot', 'hi');", "role 'robot'"),
    "memo on a missing turn": (
        "INSERT INTO memos VALUES ('bob', 'c1', 42, 0, 'note', NULL);", "no turn 42"),
    "turn marked done twice over": (
        "INSERT INTO turn_status VALUES ('bob', 'c1', 2, 7, NULL);", "done is 7"),
    "memo that is not UTF-8": (
        "INSERT INTO memos VALUES ('bob', 'c1', 4, 0, CAST(X'4f6bff' AS TEXT), NULL);",
        "table 'memos', row 1, column 'text' holds bytes that are not UTF-8"),
    "turn text that is not UTF-8": (
        "UPDATE turns SET text = CAST(X'48656c6c6fff' AS TEXT) WHERE position = 3;",
        "table 'turns', row 3, column 'text'"),
    "coder name with a line break": (
        "INSERT INTO coders VALUES ('eve' || char(10) || 'mallory', 'coder', NULL);",
        "U+000A"),
    "coder name with a zero-width space": (
        "INSERT INTO coders VALUES ('bob' || char(8203), 'coder', NULL);", "U+200B"),
    "coder name with a direction override": (
        "INSERT INTO coders VALUES (char(8238) || 'bob', 'coder', NULL);", "U+202E"),
    "coder name with an escape": (
        "INSERT INTO coders VALUES ('bob' || char(27) || '[31m', 'coder', NULL);", "U+001B"),
    "coding by a coder with a newline": (
        "INSERT INTO coders VALUES ('b' || char(10) || 'b', 'coder', NULL);"
        "INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
        "VALUES ('b' || char(10) || 'b', 'c1', 2, 0, 'affective', 2);",
        "U+000A"),
    "conversation id with a line separator": (
        "INSERT INTO conversations(conversation_id, n_turns) VALUES ('c' || char(8232), 1);"
        "INSERT INTO turns(conversation_id, position, role, text) VALUES "
        "('c' || char(8232), 1, 'user', 'hi');", "U+2028"),
    "user rating of 999": (
        "INSERT INTO user_ratings VALUES ('c1', 1, 'overall', 999);", "rating 999"),
    "user rating of 0": (
        "INSERT INTO user_ratings VALUES ('c1', 1, 'overall', 0);", "rating 0"),
    "sentence past the end of its text": (
        "INSERT INTO sentences VALUES ('c1', 1, 1, 0, 5000);", "not within its turn's text"),
    "an impossible turn count": (
        "UPDATE conversations SET n_turns = 1000000000000 WHERE conversation_id = 'c1';",
        "turn count"),
    "a turn count that is not its turns": (
        "INSERT INTO conversations(conversation_id, n_turns) VALUES ('c2', 7);"
        "INSERT INTO turns(conversation_id, position, role, text) VALUES ('c2', 1, 'user', 'hi');",
        "not the number of its turns (1)"),
    "an infinite time offset": (
        "UPDATE turns SET time_offset = 1e999 WHERE position = 2;", "time offset inf"),
    "history that pretends to be a local edit": (
        past_the_guard("UPDATE history SET origin = '' WHERE coder = 'bob';"),
        "field 'origin'"),
    "history with a binary field": (
        past_the_guard("UPDATE history SET after = X'00ff' WHERE coder = 'bob';"),
        "field 'after'"),
    "consensus off the scale": (
        "INSERT INTO consensus(conversation_id, position, sentence, code, value, adjudicator, "
        "rationale, decided_at) VALUES ('c1', 2, 0, 'affective', 0, NULL, '', NULL);",
        "values 0 that are not levels"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hand_edited_source_is_refused_and_the_target_unchanged(
        target: Path, tmp_path: Path, case: str) -> None:
    sql, named = CASES[case]
    source = source_with(target, tmp_path, sql)
    before = rows(target)
    with Project.open(target, backup=False) as p:
        with pytest.raises(ProjectError) as err:
            merge(p, [source])
        message = str(err.value)
        assert str(source) in message and named in message
        assert "\n" not in message
        assert p.info()["codings"] == 1  # still readable
    assert rows(target) == before


def test_a_clean_source_still_merges(target: Path, tmp_path: Path) -> None:
    source = source_with(target, tmp_path, "")
    with Project.open(target, backup=False) as p:
        report = merge(p, [source])
        assert report.written and report.sources[0].codings == 1
        assert p.info()["codings"] == 2


def test_the_first_few_problems_are_listed_and_the_rest_counted(
        target: Path, tmp_path: Path) -> None:
    sql = "".join(insert("bob", 2 * k + 20, "affective", "2") for k in range(8))
    source = source_with(target, tmp_path, sql)
    with Project.open(target, backup=False) as p, pytest.raises(ProjectError) as err:
        merge(p, [source])
    message = str(err.value)
    assert message.count("no turn") == 5 and "and 3 more" in message
    assert "merge refused" in message and "nothing was changed" in message


def test_a_real_number_for_an_ordinal_level_is_refused(target: Path, tmp_path: Path) -> None:
    """4.0 is no level as the API stores it (4): the per-row check names the row."""
    source = source_with(target, tmp_path,
                         "UPDATE codings SET value = 4.0 WHERE coder = 'bob';")
    with Project.open(target, backup=False) as p, pytest.raises(ProjectError) as err:
        merge(p, [source])
    assert "codings row" in str(err.value) and "not stored as" in str(err.value)

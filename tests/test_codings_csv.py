"""Coders' codings CSV: columns, units, values, duplicates, existence checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.codings_csv import read_codings_csv
from sense7_coder.domain.errors import InputError
from sense7_coder.domain.models import Coding, Unit

CODEBOOK = codebook_from_dict({
    "name": "test",
    "codes": [
        {"key": "affective", "kind": "ordinal",
         "levels": [{"value": i, "label": label} for i, label in
                    enumerate(["very poor", "poor", "neutral", "good", "very good"], 1)]},
        {"key": "validation", "kind": "binary", "unit": "sentence", "allow_na": False},
        {"key": "disclosure", "kind": "binary", "unit": "turn", "applies_to": "user"},
        {"key": "helpful", "kind": "nominal", "unit": "conversation",
         "levels": [{"value": "yes"}, {"value": "no"}]},
    ],
})
TURNS = {("c1", 1): "user", ("c1", 2): "assistant", ("c2", 1): "user"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "codings.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_every_unit_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "Coder,conversation_id,turn,sentence,code,value\n"
                           "alice,c1,2,,affective,good\n"
                           "bob,c1,2,,affective,NA\n"
                           "alice,c1,2,3,validation,present\n"
                           "alice,c1,1,,disclosure,1\n"
                           "alice,c2,,,helpful,no\n"
                           "bob,c2,0,0,helpful,yes\n")
    rows = read_codings_csv(path, CODEBOOK, turns=TURNS)
    assert rows == [
        (2, Coding("alice", Unit("c1", 2, 0), "affective", 4)),
        (3, Coding("bob", Unit("c1", 2, 0), "affective", None)),
        (4, Coding("alice", Unit("c1", 2, 3), "validation", 1)),
        (5, Coding("alice", Unit("c1", 1, 0), "disclosure", 1)),
        (6, Coding("alice", Unit("c2", 0, 0), "helpful", "no")),
        (7, Coding("bob", Unit("c2", 0, 0), "helpful", "yes")),
    ]


@pytest.mark.parametrize(
    ("row", "field", "expect"),
    [
        ("alice,c1,2,,warmth,3", "code", "unknown code 'warmth' (codebook 'test' has: affective"),
        ("alice,c1,2,,affective,7", "value", "'7' is not a level of code 'affective'"),
        ("alice,c1,2,,affective,great", "value", "'great' is not a level"),
        ("alice,c1,,,affective,3", "turn", "coded on turns; give the turn number"),
        ("alice,c1,x,,affective,3", "turn", "turn 'x' is not a whole number"),
        ("alice,c1,0,,affective,3", "turn", "turn 0 is not a turn number"),
        ("alice,c2,1,,helpful,yes", "turn", "coded on whole conversations; leave turn empty"),
        ("alice,c1,2,,validation,1", "sentence", "coded on sentences; give the sentence number"),
        ("alice,c1,2,1,affective,3", "sentence", "not coded on sentences"),
        ("alice,c1,2,1,validation,", "value", "does not allow not-applicable"),
        (",c1,2,,affective,3", "coder", "the coder is empty"),
        ("alice,,2,,affective,3", "conversation_id", "the conversation id is empty"),
        # a row cut short (a truncated file): its code is missing, not an unknown code ''
        ("alice,c1,2,,,3", "code", "the code is empty"),
        ("alice,c1,2", "code", "the code is empty"),
        ("alice,c9,2,,affective,3", "conversation_id", "no conversation 'c9' in the project"),
        ("alice,c2,5,,affective,3", "turn", "conversation 'c2' has no turn 5"),
        ("alice,c1,1,,affective,3", "turn", "applies to assistant turns; turn 1 of 'c1' is a user"),
        ("alice,c1,2,,disclosure,1", "turn", "applies to user turns"),
        ("alice,c1,2,,affective,4\nalice,c1,2,,affective,5", "code",
         "coded 'affective' on this unit already on line 2"),
    ],
)
def test_bad_rows_name_line_and_field(tmp_path: Path, row: str, field: str, expect: str) -> None:
    path = write(tmp_path, "coder,conversation_id,turn,sentence,code,value\n" + row + "\n")
    with pytest.raises(InputError) as e:
        read_codings_csv(path, CODEBOOK, turns=TURNS)
    line = 2 + row.count("\n")
    assert (e.value.file, e.value.location, e.value.field) == (str(path), f"line {line}", field)
    assert expect in e.value.message


def test_existence_by_callback_or_pairs(tmp_path: Path) -> None:
    path = write(tmp_path, "coder,conversation_id,turn,code,value\nalice,c1,2,affective,5\n")
    asked: list[tuple[str, int]] = []

    def known(cid: str, pos: int) -> bool:
        asked.append((cid, pos))
        return pos == 0

    with pytest.raises(InputError, match="conversation 'c1' has no turn 2"):
        read_codings_csv(path, CODEBOOK, known=known)
    assert asked == [("c1", 0), ("c1", 2)]
    assert len(read_codings_csv(path, CODEBOOK, known={("c1", 0), ("c1", 2)})) == 1
    with pytest.raises(InputError, match="no conversation 'c1'"):
        read_codings_csv(path, CODEBOOK, conversations={"c2"})
    assert len(read_codings_csv(path, CODEBOOK)) == 1  # nothing to check against


def test_missing_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "coder,conversation,turn,code,value\nalice,c1,2,affective,5\n")
    with pytest.raises(InputError) as e:
        read_codings_csv(path, CODEBOOK)
    assert e.value.field == "conversation_id" and e.value.location == "line 1"
    assert "columns present: coder, conversation, turn, code, value" in e.value.message


def test_sentence_code_without_sentence_column(tmp_path: Path) -> None:
    path = write(tmp_path, "coder,conversation_id,turn,code,value\nalice,c1,2,validation,1\n")
    with pytest.raises(InputError) as e:
        read_codings_csv(path, CODEBOOK)
    assert e.value.field == "sentence" and "the file has no sentence column" in e.value.message


def test_demo_codings_against_demo_project() -> None:
    """The bundled demo codings read against the bundled demo conversations."""
    from sense7_coder.domain.importers import ImportOptions, read_files
    from sense7_coder.resources import demo_dir, resolve_codebook

    demo = demo_dir()
    if not (demo / "codings.csv").exists():
        pytest.skip("demo data not bundled")
    batch = read_files([demo / "Tasks.csv", demo / "Messages.csv"], ImportOptions())[0]
    turns: dict[Any, str] = {(c.conversation_id, t.position): t.role
                             for c in batch.conversations for t in c.turns}
    rows = read_codings_csv(demo / "codings.csv", resolve_codebook("sense7"), turns=turns)
    assert rows and all(turns[(c.unit.conversation_id, c.unit.position)] == "assistant"
                        for _, c in rows)
    assert len({c.coder for _, c in rows}) >= 2


def test_a_crowds_new_coders_are_summed_up_in_one_short_line() -> None:
    from sense7_coder.domain.names import names_text

    crowd = [f"crowd-worker-{i:05d}" for i in range(3000)]
    line = names_text(crowd, "coders")
    assert line == "crowd-worker-00000, crowd-worker-00001, crowd-worker-00002, ... (3,000 coders)"
    assert names_text(crowd[:6]) == ", ".join(crowd[:6])

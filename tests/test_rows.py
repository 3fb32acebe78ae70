"""One validator per kind of row, and every path that writes a row agrees with it.

The property tests throw generated codings at the project API (what the window calls),
at ``import-codings`` (a CSV file) and at ``merge`` (a project file edited by hand), and
check that each path accepts exactly the rows :mod:`sense7_coder.domain.rows` and the
project's unit checks accept -- no path lets through what another refuses; and users'
ratings and time offsets at a conversation file and at merge alike.
"""

from __future__ import annotations

import csv
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sense7_coder.cli import main
from sense7_coder.domain import rows
from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.errors import InputError, ProjectError
from sense7_coder.domain.export.tables import neutralise_text
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.project.imports import import_codings, import_rater_files
from sense7_coder.project.merge.merging import merge
from sense7_coder.store import conversations as store_conv

BOOK = {"name": "t", "codes": [
    {"key": "affective"},
    {"key": "topic", "kind": "nominal", "levels": [{"value": "a", "label": "a"},
                                                   {"value": "b", "label": "b"}]},
    {"key": "overall_tone", "unit": "conversation"},
]}
#: a few examples each, so that the suite stays quick; no deadline (files are written)
#: the same examples on every run (a suite that passes passes again), a bounded number
BOUNDED = settings(max_examples=40, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.function_scoped_fixture])


def _template(folder: Path) -> Path:
    path = folder / "template.sense7"
    with Project.create(path, codebook_from_dict(BOOK)) as p:
        with p.pdb.atomic() as db:
            turns = [Turn(i, "user" if i % 2 else "assistant", f"Sentence one. Sentence {i}.")
                     for i in range(1, 5)]
            store_conv.insert_conversations(db, [Conversation("c1", turns)])
        p.set_coder("alice")
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _template(tmp_path_factory.mktemp("rows"))


@pytest.fixture(scope="module")
def shared(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """One project the API and import-codings write into, example after example."""
    path = tmp_path_factory.mktemp("shared") / "shared.sense7"
    shutil.copyfile(template, path)
    with Project.open(path, backup=False) as p:
        yield p


# -- generated rows ----------------------------------------------------------------------------

#: letters, spaces and the characters a name must not hold (controls, zero-width, bidi,
#: separators), plus whatever else Unicode offers
_ODD = "\n\r\t\x1b\x7f\x85\u200b\u200d\u202e\u2066\u2028\u2029\ufeff\u00ad"
names = st.one_of(
    st.sampled_from(["alice", "bob", " bob ", "", "  ", "carol smith"]),
    st.text(alphabet=st.sampled_from("ab ō'=é" + _ODD), max_size=6),
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=5),
)
conversation_ids = st.one_of(st.just("ghost"), names)


@st.composite
def codings(draw: st.DrawFn) -> tuple[Any, ...]:
    """A coding that the project takes, with at most one field replaced by anything."""
    code, value = draw(st.sampled_from([("affective", 3), ("affective", 5), ("topic", "a"),
                                        ("topic", None), ("overall_tone", 1)]))
    row = [draw(st.sampled_from(["alice", "bob", "carol smith"])), "c1",
           0 if code == "overall_tone" else draw(st.sampled_from([2, 4])), code, value]
    field = draw(st.sampled_from(["none", "coder", "conversation", "turn", "code", "value"]))
    if field == "coder":
        row[0] = draw(names)
    elif field == "conversation":
        row[1] = draw(conversation_ids)
    elif field == "turn":
        row[2] = draw(st.integers(-1, 6))
    elif field == "code":
        row[3] = draw(st.sampled_from(["affective", "topic", "overall_tone", "nope"]))
    elif field == "value":
        row[4] = draw(st.one_of(st.integers(-1, 7), st.sampled_from(["a", "b", "c", "3"]),
                                st.none()))
    return tuple(row)


def validator_accepts(project: Project, coder: Any, cid: Any, position: Any, code: Any,
                      value: Any, *, as_stored: bool = True) -> bool:
    """The row validator, then the project's unit and scale checks (the same the API runs).
    ``as_stored``: the value must also be kept as it is (a file's stored value is never
    converted); otherwise a value the checks convert (the text "3" for level 3, as typed
    or read from a CSV cell) counts as accepted."""
    try:
        rows.coding_key(coder, cid, position, 0, code)
        checked = project.checked_value(Unit(cid, position), code, value)
    except (rows.RowError, ProjectError):
        return False
    return not as_stored or (type(checked) is type(value) and checked == value)


def api_accepts(project: Project, coder: str, cid: str, position: int, code: str,
                value: Any) -> bool:
    try:
        project.set_coder(coder)
        project.set_value(Unit(cid, position), code, value)
    except ProjectError:
        return False
    return True


def csv_accepts(project: Project, folder: Path, coder: str, cid: str, position: int,
                code: str, value: Any) -> bool:
    path = folder / "codings.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, quoting=csv.QUOTE_ALL)
        out.writerow(["coder", "conversation_id", "turn", "code", "value"])
        out.writerow([neutralise_text(coder), neutralise_text(cid), position, code,
                      "NA" if value is None else value])
    try:
        import_codings(project, path)
    except InputError:
        return False
    return True


def merge_accepts(template: Path, folder: Path, coder: str, cid: str, position: int,
                  code: str, value: Any) -> bool:
    target, source = folder / "target.sense7", folder / "source.sense7"
    for path in (target, source):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(template, path)
    conn = sqlite3.connect(source)
    with conn:  # a hand edit: no checks of sense7-coder's, foreign keys off
        conn.execute("INSERT OR IGNORE INTO coders VALUES (?, 'coder', NULL)", [coder])
        conn.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
                     "VALUES (?, ?, ?, 0, ?, ?)",
                     [coder, cid, position, code, value])
    conn.close()
    with Project.open(target, backup=False) as p:
        try:
            merge(p, [source], on_conflict="keep-target")
        except ProjectError:
            return False
        return True


@BOUNDED
@given(row=codings())
def test_api_and_import_codings_accept_exactly_what_the_validator_accepts(
        shared: Project, tmp_path: Path, row: tuple[Any, ...]) -> None:
    coder, cid, position, code, value = row
    # both take a name as typed: surrounding spaces are taken off first
    coder = coder.strip()
    cid = cid.strip()
    expected = validator_accepts(shared, coder, cid, position, code, value, as_stored=False)
    assert api_accepts(shared, coder, cid, position, code, value) == expected
    assert csv_accepts(shared, tmp_path, coder, cid, position, code, value) == expected


@BOUNDED
@given(row=codings())
def test_merge_accepts_exactly_what_the_validator_accepts(
        template: Path, shared: Project, tmp_path: Path, row: tuple[Any, ...]) -> None:
    coder, cid, position, code, value = row
    expected = validator_accepts(shared, coder, cid, position, code, value)
    assert merge_accepts(template, tmp_path, coder, cid, position, code, value) == expected


# -- the paths one by one --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bob\u200b", "\u202ebob", "b\u2066ob", "bo\nb", "b\x1bob",
                                  "\ufeffbob", "x" * 1001])
def test_the_api_refuses_a_coder_name_no_export_could_show(template: Path, tmp_path: Path,
                                                           name: str) -> None:
    path = tmp_path / "p.sense7"
    shutil.copyfile(template, path)
    with Project.open(path, backup=False) as p:
        with pytest.raises(ProjectError):
            p.set_coder(name)
        with pytest.raises(ProjectError):
            p.set_adjudicator(name)
        assert [c["name"] for c in p.coders()] == ["alice"]


def test_import_codings_names_the_line_of_a_zero_width_coder(template: Path,
                                                             tmp_path: Path) -> None:
    path = tmp_path / "p.sense7"
    shutil.copyfile(template, path)
    data = tmp_path / "codings.csv"
    data.write_text("coder,conversation_id,turn,code,value\nbob,c1,2,affective,3\n"
                    "bo\u200bb,c1,4,affective,3\n", encoding="utf-8")
    with Project.open(path, backup=False) as p:
        with pytest.raises(InputError) as err:
            import_codings(p, data)
        assert "line 3" in str(err.value) and "U+200B" in str(err.value)
        assert p.info()["codings"] == 0


@pytest.mark.parametrize(("turn", "named"), [
    ("0", "turn '0' is not a turn number"),
    ("1", "applies to assistant turns; turn 1 of 'c1' is a user turn"),
    ("2.5", "turn '2.5' is not a turn number"),
    ("-2", "turn '-2' is not a turn number"),
])
def test_import_ratings_refuses_turn_zero_and_turns_the_code_does_not_apply_to(
        template: Path, tmp_path: Path, turn: str, named: str) -> None:
    path = tmp_path / "p.sense7"
    shutil.copyfile(template, path)
    data = tmp_path / "expert_ratings.csv"
    data.write_text(f"conversation_id,step,affective\nc1,2,4\nc1,{turn},3\n", encoding="utf-8")
    with Project.open(path, backup=False) as p:
        with pytest.raises(InputError) as err:
            import_rater_files(p, [data], turn_column="step")
        assert "line 3" in str(err.value) and named in str(err.value)
        assert p.info()["codings"] == 0


def test_ratings_imported_by_turn_can_be_merged_again(template: Path, tmp_path: Path) -> None:
    """What import-ratings writes passes merge's checks (it used to write turn 0)."""
    lead, copy = tmp_path / "lead.sense7", tmp_path / "expert.sense7"
    shutil.copyfile(template, lead)
    shutil.copyfile(template, copy)
    data = tmp_path / "expert_ratings.csv"
    data.write_text("conversation_id,step,affective,overall_tone\nc1,2,4,5\nc1,4,3,\n",
                    encoding="utf-8")
    assert main(["import-ratings", str(copy), str(data), "--turn-column", "step"]) == 0
    with Project.open(lead, backup=False) as p:
        report = merge(p, [copy])
        assert report.written and report.sources[0].codings == 3


def test_a_name_from_a_conversation_file_is_checked_as_the_api_checks_it(
        template: Path, tmp_path: Path) -> None:
    from sense7_coder.project.imports import import_files

    path = tmp_path / "p.sense7"
    shutil.copyfile(template, path)
    data = tmp_path / "chats.jsonl"
    data.write_text('{"conversation_id": "c\u200b2", "messages": [{"role": "user", '
                    '"content": "hi"}]}\n', encoding="utf-8")
    with Project.open(path, backup=False) as p:
        with pytest.raises(InputError) as err:
            import_files(p, [data])
        assert "U+200B" in str(err.value)
        assert p.info()["conversations"] == 1


# -- the validators themselves -----------------------------------------------------------------

@pytest.mark.parametrize(("check", "args", "field"), [
    (rows.user_rating, ("c1", 1, "overall", 999), "value"),
    (rows.user_rating, ("c1", 1, "overall", 0), "value"),
    (rows.user_rating, ("c1", 1, "overall", True), "value"),
    (rows.user_rating, ("c1", 1, "mood", 3), "rating"),
    (rows.turn, ("c1", 1, "user", None, "hi", float("inf"), None, "{}"), "time_offset"),
    (rows.turn, ("c1", 1, "user", None, "hi", float("nan"), None, "{}"), "time_offset"),
    (rows.turn, ("c1", 0, "user", None, "hi", None, None, "{}"), "position"),
    (rows.turn, ("c1", 1, "user", None, b"hi", None, None, "{}"), "text"),
    (rows.history, ("2024-01-01", "bob", "set", "coding", "c1", 2, 0, "affective", None, 3,
                    "window", "bob", ""), "origin"),
    (rows.history, ("2024-01-01", "bob", "set", "coding", "c1", 2, 0, "affective", None,
                    b"\x00", "window", "bob", None), "after"),
    (rows.history, (b"2024", "bob", "set", "coding", "c1", 2, 0, "a", None, 3, None, None,
                    None), "at"),
    (rows.assignment, ("bob", "c1", 2, 0, None), "overlap"),
    (rows.done_mark, ("bob", "c1", 2, 7, None), "done"),
    (rows.memo, ("bob", "c1", 2, 0, "  ", None), "text"),
])
def test_each_validator_names_the_field_it_refuses(check: Any, args: tuple[Any, ...],
                                                   field: str) -> None:
    with pytest.raises(rows.RowError) as err:
        check(*args)
    assert err.value.field == field


def test_valid_rows_pass() -> None:
    rows.user_rating("c1", 1, "overall", 5)
    rows.turn("c1", 1, "user", None, "hi", 12.5, None, "{}")
    rows.sentence("c1", 1, 1, 0, 14, text_length=14)
    rows.history("2024-01-01T10:00:00.000+00:00", "bob", "change", "coding", "c1", 2, 0,
                 "affective", 2, 3, "window", "bob", "bob.sense7")
    rows.coder("bob", "adjudicator", "2024-01-01T10:00:00")
    with pytest.raises(rows.RowError):
        rows.sentence("c1", 1, 1, 0, 15, text_length=14)



def test_assign_refuses_a_coder_name_the_api_refuses(template: Path, tmp_path: Path) -> None:
    from sense7_coder.project.assignments import assign

    path = tmp_path / "p.sense7"
    shutil.copyfile(template, path)
    with Project.open(path, backup=False) as p:
        p.set_coder("lead", "adjudicator")
        with pytest.raises(ProjectError, match=r"U\+200B"):
            assign(p, ["bob", "e\u200bve"])
        assert sorted(c["name"] for c in p.coders()) == ["alice", "lead"]


# -- users' ratings and time offsets: a conversation file and a merged file agree ------------

users_turns = st.tuples(
    st.sampled_from(["overall", "affective", "mood"]),
    st.one_of(st.integers(-2, 8), st.integers(10**6, 10**7)),
    st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True, width=64),
              st.integers(-5, 10**6)),
)


def _conversation_file_accepts(template: Path, folder: Path, key: str, rating: int,
                               offset: float | int | None) -> bool:
    import json

    from sense7_coder.project.imports import import_files

    path = folder / "p.sense7"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(template, path)
    data = folder / "chats.jsonl"
    message: dict[str, Any] = {"role": "user", "content": "hi", "ratings": {key: rating}}
    if offset is not None:
        message["time_offset"] = offset
    data.write_text(json.dumps({"conversation_id": "c2", "messages": [message]}) + "\n",
                    encoding="utf-8")
    with Project.open(path, backup=False) as p:
        try:
            import_files(p, [data])
        except InputError:
            return False
        return True


def _merged_file_accepts(template: Path, folder: Path, key: str, rating: int,
                         offset: float | int | None) -> bool:
    target, source = folder / "target.sense7", folder / "source.sense7"
    for path in (target, source):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(template, path)
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("INSERT INTO conversations(conversation_id, n_turns, imported_at) "
                     "VALUES ('c2', 1, '2024-01-01T00:00:00')")
        conn.execute("INSERT INTO turns(conversation_id, position, role, text, time_offset) "
                     "VALUES ('c2', 1, 'user', 'hi', ?)", [offset])
        conn.execute("INSERT INTO user_ratings VALUES ('c2', 1, ?, ?)", [key, rating])
    conn.close()
    with Project.open(target, backup=False) as p:
        try:
            merge(p, [source])
        except ProjectError:
            return False
        return True


def _rating_row_accepted(key: str, rating: int, offset: float | int | None) -> bool:
    try:
        rows.user_rating("c2", 1, key, rating)
        rows.time_offset(offset)
    except rows.RowError:
        return False
    return True


@BOUNDED
@given(row=users_turns)
def test_users_ratings_and_time_offsets_are_accepted_alike_by_import_and_merge(
        template: Path, tmp_path: Path, row: tuple[Any, ...]) -> None:
    key, rating, offset = row
    expected = _rating_row_accepted(key, rating, offset)
    assert _conversation_file_accepts(template, tmp_path, key, rating, offset) == expected
    assert _merged_file_accepts(template, tmp_path, key, rating, offset) == expected

"""The fast (packed) read of codings and users' ratings gives exactly what a plain query
gives: every value, not applicable, names with quotes, filters, chunk edges, and the
values that do not fit (text levels, large numbers) through the ordinary read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.project import Project
from sense7_coder.store import frames
from sense7_coder.store import packed as engine
from sense7_coder.store.conversations import ConversationFilter

KEY = ["coder", "conversation_id", "position", "sentence", "code"]


def plain_codings(project: Project, where: str = "", params: tuple[Any, ...] = ()
                  ) -> list[tuple[Any, ...]]:
    rows = project.db.conn.execute(
        "SELECT k.coder, k.conversation_id, k.position, k.sentence, k.code, k.value "
        f"FROM codings k JOIN conversations c ON c.conversation_id = k.conversation_id {where}",
        params).fetchall()
    return sorted(rows, key=lambda r: tuple(map(str, r)))


def as_rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    rows = [(r.coder, r.conversation_id, int(r.position), int(r.sentence), r.code, r.value)
            for r in frame.itertuples(index=False)]
    for r in rows:  # values stay Python ints (3 never becomes 3.0) or None
        assert r[5] is None or type(r[5]) in (int, str)
    return sorted(rows, key=lambda r: tuple(map(str, r)))


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    monkeypatch.setattr(engine, "PACK_ROWS", 3)  # many chunks, and edges between them
    project = make_project(tmp_path)
    code(project, "alice", {
        ("c1", 2, "overall"): 4, ("c3", 4, "overall"): None, ("c1", 2, 2, "question"): 1,
        ("c1", 0, "quality"): 5, ("c2", 2, "validation"): 0, ("c4", 4, "affective"): 1,
    })
    code(project, "o'brien", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 2,
                              ("c1", 0, "quality"): None})
    yield project
    project.close()


def test_packed_codings_equal_a_plain_query(study: Project) -> None:
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)
    only = frames.coding_values_frame(study.db, codes=["overall"], coders=["o'brien"])
    assert as_rows(only) == plain_codings(
        study, "WHERE k.code = 'overall' AND k.coder = ?", ("o'brien",))
    gpt = frames.coding_values_frame(study.db, conversations=ConversationFilter(
        models=["GPT4"]))
    assert as_rows(gpt) == plain_codings(study, "WHERE c.model = 'GPT4'")
    empty = frames.coding_values_frame(study.db, coders=["nobody"])
    assert len(empty) == 0 and list(empty.columns) == list(frames.VALUE_COLUMNS)


def test_values_that_do_not_fit_are_read_the_ordinary_way(study: Project) -> None:
    code(study, "alice", {("c1", 2, "strategy"): "advice"})  # a nominal (text) level
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)
    with study.pdb.atomic() as db:  # a number beyond 16 bits, written by another tool
        db.conn.execute("UPDATE codings SET value = 70000 WHERE coder = 'alice' "
                        "AND code = 'strategy'")
    got = as_rows(frames.coding_values_frame(study.db))
    assert got == plain_codings(study) and any(r[5] == 70000 for r in got)


def test_packed_user_ratings_equal_a_plain_query_in_order(study: Project) -> None:
    sql = ("SELECT u.conversation_id, u.position, u.rating, u.value FROM user_ratings u "
           "JOIN conversations c ON c.conversation_id = u.conversation_id {} "
           "ORDER BY c.rowid, u.position, u.rating")
    for categorical in (False, True):
        frame = frames.user_ratings_frame(study.db, categorical=categorical)
        got = [(r.conversation_id, int(r.position), r.rating, None if pd.isna(r.value)
                else int(r.value)) for r in frame.itertuples(index=False)]
        assert got == study.db.conn.execute(sql.format("")).fetchall()
    assert isinstance(frame["rating"].dtype, pd.CategoricalDtype)
    assert any(v is None for *_, v in got)  # c3's "unknown" rating: not applicable
    only = frames.user_ratings_frame(study.db, ratings=["overall"],
                                     conversations=ConversationFilter(models=["IC"]))
    assert sorted(set(only["conversation_id"])) == ["c2", "c4"]
    assert set(only["rating"]) == {"overall"}
    assert str(only["value"].dtype) == "Int64"


def test_user_ratings_read_the_ordinary_way_are_the_same_frame(study: Project) -> None:
    packed = frames.user_ratings_frame(study.db, categorical=True)
    with study.pdb.atomic() as db:  # a value beyond 16 bits, written by another tool
        db.conn.execute("UPDATE user_ratings SET value = 70000 WHERE rowid = "
                        "(SELECT min(rowid) FROM user_ratings WHERE value IS NOT NULL)")
    plain = frames.user_ratings_frame(study.db, categorical=True)
    for name in ("conversation_id", "rating"):  # Categoricals on either path
        assert isinstance(plain[name].dtype, pd.CategoricalDtype)
    for name in ("conversation_id", "position", "rating"):
        assert list(plain[name]) == list(packed[name])
    changed = [(int(a), None if pd.isna(b) else int(b))
               for a, b in zip(plain["value"], packed["value"], strict=True)
               if not pd.isna(a) and (pd.isna(b) or a != b)]
    assert len(changed) == 1 and changed[0][0] == 70000


def test_packed_export_frame_equals_the_ordinary_read(study: Project,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def both(**kw: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
        packed = frames.codings_frame(study.db, **kw)
        with monkeypatch.context() as m:
            m.setattr(frames, "_packed_codings_frame", lambda *a, **k: None)
            plain = frames.codings_frame(study.db, **kw)
        return packed, plain

    for kw in ({}, {"categorical": True}, {"codes": ["overall", "quality"]},
               {"coders": ["o'brien"], "conversations": ConversationFilter(models=["GPT4"])}):
        packed, plain = both(**kw)
        assert list(packed.columns) == list(plain.columns) and len(packed) == len(plain)
        for name in packed.columns:  # same rows in the same order, value for value
            assert packed[name].astype(object).tolist() == plain[name].astype(object).tolist()
            assert str(packed[name].dtype) == str(plain[name].dtype), name
    packed, _ = both()
    rows = {(r.coder, r.conversation_id, r.position, r.code): r for r in packed.itertuples()}
    assert rows[("alice", "c3", 4, "overall")].user_rating == "NA"  # the user: not applicable
    assert rows[("alice", "c1", 2, "overall")].user_rating == 4
    assert pd.isna(rows[("alice", "c1", 0, "quality")].role)  # conversation level: no turn
    assert rows[("alice", "c2", 2, "validation")].user_rating is None  # no user rating key


def test_saving_times_are_read_as_times_whatever_wrote_them(
        study: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    def saved(frame: pd.DataFrame) -> dict[tuple[Any, ...], Any]:
        return {(r.coder, r.conversation_id, int(r.position), int(r.sentence), r.code):
                r.saved_at for r in frame.itertuples(index=False)}

    # sense7-coder's own writes: ISO 8601 with milliseconds and an offset
    packed = saved(frames.coding_values_frame(study.db, times=True))
    stamps = dict(((r[0], r[1], r[2], r[3], r[4]), r[5]) for r in study.db.conn.execute(
        "SELECT coder, conversation_id, position, sentence, code, updated_at FROM codings"))
    assert all(s.endswith("+00:00") for s in stamps.values())
    assert packed == {k: pd.Timestamp(v).tz_convert(None) for k, v in stamps.items()}
    with monkeypatch.context() as m:  # the ordinary read gives the same times
        m.setattr(frames, "_fits", lambda *a, **k: False)
        assert saved(frames.coding_values_frame(study.db, times=True)) == packed

    # a file edited by another tool: another offset, no offset, a day-first date, nothing,
    # and a text that is no time at all
    edits = {"c1": "2026-03-01T10:00:00+02:00", "c2": "2026-03-01 09:30:00",
             "c3": "01/03/2026 11:00", "c4": None}
    with study.pdb.atomic() as db:
        for cid, stamp in edits.items():
            db.conn.execute("UPDATE codings SET updated_at = ? WHERE conversation_id = ? "
                            "AND coder = 'alice'", [stamp, cid])
        db.conn.execute("UPDATE codings SET updated_at = 'yesterday' WHERE coder = 'o''brien' "
                        "AND conversation_id = 'c2'")
    got = saved(frames.coding_times_frame(study.db))
    assert got[("alice", "c1", 2, 0, "overall")] == pd.Timestamp("2026-03-01 08:00:00")
    assert got[("alice", "c2", 2, 0, "validation")] == pd.Timestamp("2026-03-01 09:30:00")
    assert got[("alice", "c3", 4, 0, "overall")].month in (1, 3)  # read, in some order
    assert pd.isna(got[("alice", "c4", 4, 0, "affective")])  # unknown
    assert pd.isna(got[("o'brien", "c2", 2, 0, "overall")])  # unreadable: left out of drift
    assert frames.saving_times([]).dtype == "datetime64[ns]"

    # a text holding the packed read's separator: read the ordinary way, nothing shifted
    with study.pdb.atomic() as db:
        db.conn.execute("UPDATE codings SET updated_at = '2026-03-02\x1f10:00' "
                        "WHERE coder = 'alice' AND conversation_id = 'c1' AND code = 'quality'")
    again = saved(frames.coding_times_frame(study.db))
    odd = again.pop(("alice", "c1", 0, 0, "quality"))
    alone = frames.saving_times(["2026-03-02\x1f10:00"])[0]  # as pandas reads it alone
    assert odd == alone or (pd.isna(odd) and pd.isna(alone))
    got.pop(("alice", "c1", 0, 0, "quality"))
    assert again.keys() == got.keys()
    assert all(again[k] == got[k] or (pd.isna(again[k]) and pd.isna(got[k])) for k in got)


def test_saving_times_another_tool_broke_leave_the_others_readable(
        study: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes that are not UTF-8, a blob, a number and a megabyte of text where a saving
    time belongs: those times are unknown, every other one is read, nothing stops."""
    def times(frame: pd.DataFrame) -> dict[tuple[Any, ...], Any]:
        return {(r.coder, r.conversation_id, int(r.position), int(r.sentence), r.code):
                r.saved_at for r in frame.itertuples(index=False)}

    before = times(frames.coding_times_frame(study.db))
    rowids = [r[0] for r in study.db.conn.execute("SELECT rowid FROM codings ORDER BY rowid")]
    broken = {rowids[0]: "CAST(X'3230FF' AS TEXT)", rowids[1]: "X'FF00FE'",
              rowids[2]: "1700000000", rowids[3]: "printf('%.*c', 1000000, '9')"}
    with study.pdb.atomic() as db:
        for rowid, sql in broken.items():
            db.conn.execute(f"UPDATE codings SET updated_at = {sql} WHERE rowid = ?", [rowid])
    names = {tuple(r[1:]): r[0] for r in study.db.conn.execute(
        "SELECT rowid, coder, conversation_id, position, sentence, code FROM codings")}
    for packed in (True, False):
        with monkeypatch.context() as m:
            if not packed:
                m.setattr(frames, "_fits", lambda *a, **k: False)
            after = times(frames.coding_times_frame(study.db))
        assert after.keys() == before.keys()
        for key, saved in after.items():
            if names[key] in (rowids[0], rowids[1]):  # not text a time can be read from
                assert pd.isna(saved)
            elif names[key] not in broken:
                assert saved == before[key]


@pytest.mark.parametrize("rowids", [
    {"c2": -7},  # a file edited by hand: a negative rowid reads the ordinary way
    {"c2": 3_000_000, "c4": 70_000},  # past one code point: sent as two
    {"c3": 2**40},  # past the packed range: the ordinary way
])
def test_any_conversation_rowid_reads_the_right_conversation(
        study: Project, rowids: dict[str, int]) -> None:
    with study.pdb.atomic() as db:
        for cid, rowid in rowids.items():
            db.conn.execute("UPDATE conversations SET rowid = ? WHERE conversation_id = ?",
                            [rowid, cid])
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)
    frame = frames.coding_values_frame(study.db, categorical=True)
    assert sorted(((r.coder, r.conversation_id, r.position, r.sentence, r.code,
                    None if pd.isna(r.value) else int(r.value))
                   for r in frame.itertuples(index=False)),
                  key=lambda r: tuple(map(str, r))) == plain_codings(study)
    ratings = frames.user_ratings_frame(study.db)
    assert sorted((r.conversation_id, int(r.position), r.rating)
                  for r in ratings.itertuples(index=False)) == sorted(
        study.db.conn.execute("SELECT conversation_id, position, rating FROM user_ratings"))
    export = frames.codings_frame(study.db)
    order = [r[0] for r in study.db.conn.execute(
        "SELECT conversation_id FROM conversations ORDER BY rowid")]
    seen = list(dict.fromkeys(export["conversation_id"]))
    assert seen == [c for c in order if c in seen]  # import (rowid) order kept
    assert as_rows(export) == plain_codings(study)


def test_sparse_coding_rowids_are_read_in_few_chunks(study: Project) -> None:
    """A file edited by hand with a coding at rowid 2**62 (and one below zero): the packed
    read steps through the rows that are there, not through 2**62 / PACK_ROWS empty
    ranges (the agreement job never returned), and reads what a plain query reads."""
    with study.pdb.atomic() as db:
        db.conn.execute("UPDATE codings SET rowid = 4611686018427387904 "
                        "WHERE rowid = (SELECT max(rowid) FROM codings)")
        db.conn.execute("UPDATE codings SET rowid = -5 WHERE rowid = (SELECT min(rowid) "
                        "FROM codings WHERE rowid > 0)")
    rows = study.db.conn.execute("SELECT count(*) FROM codings").fetchone()[0]
    chunks = engine._chunks(study.db, "codings", -5, 4611686018427387904)
    assert len(chunks) == -(-rows // engine.PACK_ROWS)  # PACK_ROWS rows each
    assert chunks[0][0] == -5 and chunks[-1][1] == 4611686018427387904
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)
    assert len(frames.codings_frame(study.db)) == rows


def test_a_crowd_of_coders_is_read_packed_and_right(study: Project,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond a few coders the packed read looks each name up in its table (a CASE over
    3,000 crowd workers took 14x longer than a plain fetch); the rows stay the same."""
    crowd = [f"crowd {i:02d}" for i in range(40)]
    for i, name in enumerate(crowd):
        code(study, name, {("c1", 2, "overall"): 1 + i % 5, ("c2", 2, "overall"): None,
                           ("c4", 4, "affective"): 1 + i % 2})
    plain = plain_codings(study)
    export_plain = frames.codings_frame(study.db)  # the reference, before the patch below
    with monkeypatch.context() as m:
        def no_fallback(*_a: Any, **_k: Any) -> None:
            raise AssertionError("read the ordinary way")
        m.setattr(frames, "_frame", no_fallback)
        assert as_rows(frames.coding_values_frame(study.db)) == plain
        compact = frames.coding_values_frame(study.db, categorical=True)
        compact["value"] = pd.Series([None if v != v else int(v) for v in compact["value"]],
                                     dtype=object)
        assert as_rows(compact) == plain
        # every coder named (the read then tests no row against the names), in any order
        everyone = [r[0] for r in study.db.conn.execute(
            "SELECT name FROM coders ORDER BY name DESC")]
        assert as_rows(frames.coding_values_frame(study.db, coders=everyone)) == plain
        some = frames.coding_values_frame(study.db, coders=["crowd 07", "alice"])
        assert as_rows(some) == plain_codings(
            study, "WHERE k.coder IN ('crowd 07', 'alice')")
        export = frames.codings_frame(study.db)
    with monkeypatch.context() as m:
        m.setattr(frames, "_packed_codings_frame", lambda *a, **k: None)
        ordinary = frames.codings_frame(study.db)
    assert len(export) == len(ordinary) == len(plain)
    for name in export.columns:  # same rows in the same order (coders by name)
        assert export[name].astype(object).tolist() == ordinary[name].astype(object).tolist()
    assert len(export_plain) == len(export)


def test_a_coder_moved_out_of_the_packed_range_is_still_read(study: Project) -> None:
    for i in range(30):
        code(study, f"crowd {i:02d}", {("c1", 2, "overall"): 1 + i % 5})
    study.db.conn.execute("UPDATE coders SET rowid = 1 << 40 WHERE name = 'crowd 03'")
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)


def test_units_come_in_import_order_whatever_order_they_were_saved_in(
        tmp_path: Path) -> None:
    """Conversation by conversation as imported (not by id), then turn: the same codings
    saved in another order give the same units in the same order, and so the same
    bootstrap intervals."""
    from analysis_support import conversation_lines

    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project.agreement import project_agreement
    from sense7_coder.project.selection import Selection

    lines = conversation_lines([("zeta", "P1", "GPT4", 4, 5), ("alpha", "P1", "IC", 2, 3),
                                ("mid", "P2", "GPT4", 5, 1)])
    alice = {(cid, pos, "overall"): (i + pos) % 5 + 1
             for i, cid in enumerate(("zeta", "alpha", "mid")) for pos in (2, 4)}
    bob = {key: value % 5 + 1 if key[0] == "mid" else value for key, value in alice.items()}
    projects = []
    for name, order in (("saved-forwards", 1), ("saved-backwards", -1)):
        (tmp_path / name).mkdir()
        project = make_project(tmp_path / name, conversations=lines)
        for coder, values in (("alice", alice), ("bob", bob))[::order]:
            code(project, coder, dict(list(values.items())[::order]))
        projects.append(project)
    units = [[(r.conversation_id, r.position) for r in
              frames.coding_values_frame(p.db, categorical=True).itertuples()]
             for p in projects]
    expected = [(cid, pos) for cid in ("zeta", "alpha", "mid") for pos in (2, 4)
                for _ in range(2)]
    assert units == [expected, expected]
    options = (Selection(codes=("overall",)), AgreementSettings(bootstrap=200, seed=3))
    reports = [project_agreement(p, *options).records for p in projects]
    intervals = [[(r.measure, r.level, r.ci_low, r.ci_high) for r in records]
                 for records in reports]
    assert intervals[0] == intervals[1]
    assert any(low is not None for _, _, low, _ in intervals[0])
    # a text value sends the read the ordinary way: in the same order
    code(projects[1], "carol", {("zeta", 4, "strategy"): "advice",
                                ("alpha", 2, "strategy"): "question"})
    frame = frames.coding_values_frame(projects[1].db)
    assert "advice" in set(frame["value"])
    place = {"zeta": 0, "alpha": 1, "mid": 2}
    keys = [(place[r.conversation_id], r.position) for r in frame.itertuples()]
    assert keys == sorted(keys) and len(keys) == len(expected) + 2
    for project in projects:
        project.close()


def test_codings_of_a_conversation_not_in_the_project_are_left_out(study: Project) -> None:
    """Another tool wrote codings for a conversation the project does not hold: the read
    conversation by conversation leaves them out, as the ordinary join does."""
    conn = study.db.conn
    conn.execute("PRAGMA foreign_keys = OFF")
    with study.pdb.atomic():
        conn.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                     "value) VALUES ('alice', 'ghost', 2, 0, 'overall', 3)")
        conn.execute("INSERT INTO user_ratings(conversation_id, position, rating, value) "
                     "VALUES ('ghost', 2, 'overall', 4)")
    conn.execute("PRAGMA foreign_keys = ON")
    assert "ghost" not in set(frames.coding_values_frame(study.db)["conversation_id"])
    assert as_rows(frames.coding_values_frame(study.db)) == plain_codings(study)
    assert "ghost" not in set(frames.user_ratings_frame(study.db)["conversation_id"])
    assert "ghost" not in set(frames.codings_frame(study.db)["conversation_id"])


def test_conversation_ids_that_differ_only_in_bytes_not_utf8_are_read(
        study: Project) -> None:
    """Another tool renamed two conversations to ids that are not UTF-8 and read alike
    (each bad byte shows as U+FFFD): every coding and rating of both is still read."""
    conn = study.db.conn
    conn.execute("PRAGMA foreign_keys = OFF")
    with study.pdb.atomic():
        for cid, raw in (("c1", "54ff"), ("c2", "54fe")):
            for table in ("conversations", "turns", "codings", "user_ratings"):
                conn.execute(f"UPDATE {table} SET conversation_id = CAST(x'{raw}' AS TEXT) "
                             "WHERE conversation_id = ?", (cid,))
    conn.execute("PRAGMA foreign_keys = ON")
    for categorical in (False, True):
        frame = frames.coding_values_frame(study.db, categorical=categorical)
        assert len(frame) == len(plain_codings(study))
        odd = frame[frame["conversation_id"].astype(str) == "T\ufffd"]
        assert len(odd) == 7  # the 5 codings of c1 and the 2 of c2
        units = frames.user_ratings_frame(study.db, categorical=categorical)
        assert len(units[units["conversation_id"].astype(str) == "T\ufffd"]) == 8


def test_a_conversation_too_big_for_one_text_is_read_the_ordinary_way(
        study: Project) -> None:
    """One conversation's packed text longer than SQLite's longest string (a billion bytes,
    some 50 million codings; lowered here): read row by row instead, nothing lost."""
    import sqlite3

    with study.pdb.atomic():
        study.db.conn.executemany(
            "INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
            "VALUES ('alice', 'c1', 2, ?, 'question', 1)", [(s,) for s in range(3, 153)])
    expected = plain_codings(study)
    # c1's 155 codings need 3,100 bytes (5 code points of 4 bytes each); the longest SQL
    # statement here is shorter than 2,000
    study.db.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2000)
    assert as_rows(frames.coding_values_frame(study.db)) == expected
    assert len(frames.codings_frame(study.db)) == len(expected)
    assert len(frames.user_ratings_frame(study.db)) == 16


def test_selecting_every_code_coder_and_rating_still_leaves_out_unknown_names(
        study: Project) -> None:
    """Another tool wrote codings of a code and a coder the project does not define, and
    users' ratings under a name SENSE-7 does not ask for. Selecting every code, coder and
    rating (the read then tests no row against the selection) still leaves them out,
    as a selection does; conversations with nothing else read are left out too."""
    from sense7_coder.domain.models import RATING_KEYS

    conn = study.db.conn
    conn.execute("PRAGMA foreign_keys = OFF")
    with study.pdb.atomic():
        conn.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                     "value) VALUES ('alice', 'c1', 2, 0, 'ghost code', 3), "
                     "('ghost coder', 'c2', 2, 0, 'overall', 4)")
        conn.execute("DELETE FROM user_ratings WHERE conversation_id = 'c4'")
        conn.execute("INSERT INTO user_ratings(conversation_id, position, rating, value) "
                     "VALUES ('c4', 4, 'ghost rating', 4), ('c1', 2, 'ghost rating', 2)")
    conn.execute("PRAGMA foreign_keys = ON")
    keys = [r[0] for r in conn.execute("SELECT key FROM codes")]
    names = [r[0] for r in conn.execute("SELECT name FROM coders")]
    for categorical in (False, True):
        every = frames.coding_values_frame(study.db, codes=keys, coders=names,
                                           categorical=categorical)
        assert as_rows(every.astype({"value": object}).where(every.notna(), None)) == \
            plain_codings(study, "WHERE k.code IN (SELECT key FROM codes) "
                                 "AND k.coder IN (SELECT name FROM coders)")
        assert {"ghost code", "ghost coder"}.isdisjoint({*every["code"], *every["coder"]})
        rated = frames.user_ratings_frame(study.db, ratings=list(RATING_KEYS),
                                          categorical=categorical)
        assert "ghost rating" not in set(rated["rating"])
        assert "c4" not in set(rated["conversation_id"])
        if categorical:
            assert "c4" not in list(rated["conversation_id"].cat.categories)
        plain = conn.execute(
            "SELECT u.conversation_id, u.position, u.rating, u.value FROM user_ratings u "
            "JOIN conversations c ON c.conversation_id = u.conversation_id "
            "WHERE u.rating <> 'ghost rating' ORDER BY c.rowid, u.position, u.rating"
        ).fetchall()
        assert [(r.conversation_id, int(r.position), r.rating,
                 None if pd.isna(r.value) else int(r.value))
                for r in rated.itertuples(index=False)] == plain

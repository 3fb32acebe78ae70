"""A project file may hold only sense7-coder's own schema: anything else is refused, unrun."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
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

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    path = tmp_path / "clean.sense7"
    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    with Project.create(path, book) as p:
        with p.pdb.atomic() as db:
            turns = [Turn(i, "user" if i % 2 else "assistant", f"m{i}") for i in range(1, 9)]
            store_conv.insert_conversations(db, [Conversation("c1", turns)])
        p.set_coder("alice")
        p.set_value(Unit("c1", 2), "affective", 3)
    return path


def tamper(path: Path, sql: str) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return path


def snapshot(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT coder, conversation_id, position, sentence, code, value, "
                            "updated_at FROM codings ORDER BY 1, 2, 3, 4, 5").fetchall()
    finally:
        conn.close()


HOSTILE = {
    "rewriting trigger": (
        "CREATE TRIGGER sneaky AFTER INSERT ON codings BEGIN "
        "UPDATE codings SET value = 1 WHERE rowid = new.rowid; END;",
        "trigger 'sneaky' on table 'codings'"),
    "raising trigger": (
        "CREATE TRIGGER block BEFORE INSERT ON codings BEGIN SELECT RAISE(ABORT, 'no'); END;",
        "trigger 'block'"),
    "deleting trigger": (
        "CREATE TRIGGER wipe AFTER UPDATE ON codings BEGIN DELETE FROM codings; END;",
        "trigger 'wipe'"),
    "recursive view": (
        "CREATE VIEW loop AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n FROM r;", "view 'loop'"),
    "extra index": ("CREATE INDEX extra ON codings(value);", "index 'extra' on table 'codings'"),
    "added column": ("ALTER TABLE coders ADD COLUMN secret TEXT;", "table 'coders' differs"),
    "dropped table": ("DROP TABLE memos;", "table 'memos' is missing"),
    "replaced table": (
        "DROP TABLE predictions; CREATE TABLE predictions (conversation_id, predictor, run, "
        "score, reasoning);", "table 'predictions' differs"),
    "table of its own": ("CREATE TABLE notes (x);", "table 'notes' that sense7-coder did not"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_open_refuses_a_foreign_schema_object_and_runs_nothing(clean: Path, case: str) -> None:
    sql, named = HOSTILE[case]
    path = tamper(clean, sql)
    before = path.read_bytes()
    with pytest.raises(ProjectError, match="refused") as err:
        Project.open(path)
    assert named in str(err.value)
    assert "\n" not in str(err.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("case", ["rewriting trigger", "raising trigger", "recursive view"])
def test_merge_refuses_a_source_with_a_foreign_object(clean: Path, tmp_path: Path,
                                                      case: str) -> None:
    source = tmp_path / "source.sense7"
    shutil.copyfile(clean, source)
    with Project.open(source, backup=False) as p:
        p.set_coder("bob")
        p.set_value(Unit("c1", 4), "affective", 5)
    tamper(source, HOSTILE[case][0])
    before = snapshot(clean)
    with Project.open(clean, backup=False) as target, pytest.raises(ProjectError) as err:
        merge(target, [source])
    assert HOSTILE[case][1] in str(err.value) and str(source) in str(err.value)
    assert snapshot(clean) == before


def test_info_on_a_file_with_a_recursive_view_answers_at_once(clean: Path) -> None:
    tamper(clean, HOSTILE["recursive view"][0] + HOSTILE["rewriting trigger"][0])
    done = subprocess.run([sys.executable, "-m", "sense7_coder", "info", str(clean)], cwd=REPO,
                          env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "refused" in done.stderr and "trigger 'sneaky'" in done.stderr


def test_a_trigger_added_while_nobody_looked_never_rewrites_a_coding(clean: Path) -> None:
    tamper(clean, HOSTILE["rewriting trigger"][0])
    with pytest.raises(ProjectError), Project.open(clean, backup=False) as p:
        p.set_coder("alice")
        p.set_value(Unit("c1", 6), "affective", 5)
    assert snapshot(clean) == [("alice", "c1", 2, 0, "affective", 3, snapshot(clean)[0][6])]


def test_statistics_tables_sqlite_makes_itself_are_accepted(clean: Path) -> None:
    tamper(clean, "ANALYZE;")
    with Project.open(clean, backup=False) as p:
        assert p.info()["codings"] == 1


def test_every_schema_version_is_built_from_the_migrations() -> None:
    """Each version's schema grows from the one before (nothing hard-coded here)."""
    names = [{e[1] for e in expected_schema(v)} for v in range(SCHEMA_VERSION + 1)]
    assert names[0] == set()
    assert {"codings", "coders", "_sqlite_migrations"} <= names[1]
    assert all(len(names[v]) >= 1 for v in range(1, SCHEMA_VERSION + 1))


def test_the_migrations_record_written_by_another_sqlite_utils_version_is_accepted(
        clean: Path) -> None:
    """Its SQL is the library's, not ours: only its columns are compared."""
    tamper(clean, """
        CREATE TABLE m2 ([id] INTEGER NOT NULL PRIMARY KEY, [migration_set] TEXT,
                         [name] TEXT, [applied_at] TEXT);
        INSERT INTO m2 SELECT * FROM _sqlite_migrations;
        DROP TABLE _sqlite_migrations;
        ALTER TABLE m2 RENAME TO _sqlite_migrations;
        CREATE UNIQUE INDEX other_name ON _sqlite_migrations(migration_set, name);
    """)
    with Project.open(clean, backup=False) as p:
        assert p.info()["codings"] == 1


def test_a_trigger_on_the_migrations_record_is_still_refused(clean: Path) -> None:
    tamper(clean, "CREATE TRIGGER t AFTER INSERT ON _sqlite_migrations BEGIN "
                  "DELETE FROM codings; END;")
    with pytest.raises(ProjectError, match="trigger 't'"):
        Project.open(clean, backup=False)


def test_migrations_split_their_scripts_as_sqlite_utils_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The migrations run their scripts statement by statement with a splitter of their
    own (50 ms less at every opening); every version's schema, triggers with their
    semicolons included, is what sqlite-utils' executescript builds."""
    from sense7_coder.store import schema, trust

    build = trust.expected_schema.__wrapped__
    ours = [build(v) for v in range(1, schema.SCHEMA_VERSION + 1)]
    monkeypatch.setattr(schema, "_script", lambda db, sql: db.executescript(sql))
    theirs = [build(v) for v in range(1, schema.SCHEMA_VERSION + 1)]
    assert ours == theirs
    assert any(kind == "trigger" for kind, *_ in ours[-1]) and len(ours[-1]) > 20

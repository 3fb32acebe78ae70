"""A hostile user and a careless team against the project file: nothing lost, nothing run."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *map(str, args)],
                          capture_output=True, text=True, env=ENV, timeout=120)


def dump(path: Path) -> list[str]:
    """Everything the file holds, as SQL (read through SQLite, the -wal included)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# -- an output file is never a project file ---------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("p.json", ("codebook", "{p}", "export", "{p}")),
    ("p.qdc", ("codebook", "{p}", "export", "{p}")),
    ("p.qdpx", ("export-qdpx", "{p}", "{p}")),
])
def test_an_export_over_the_open_project_file_is_refused(
        demo_project: Path, name: str, args: tuple[str, ...]) -> None:
    project = demo_project.with_name(name)
    demo_project.rename(project)
    before = dump(project)
    line = one_line(cli(*(a.format(p=project) for a in args)))
    assert str(project) in line and "open project file" in line
    assert dump(project) == before


def test_a_codebook_import_from_a_project_file_is_refused(demo_project: Path) -> None:
    link = demo_project.with_name("book.json")
    os.link(demo_project, link)
    before = dump(demo_project)
    line = one_line(cli("codebook", demo_project, "import", link))
    assert str(link) in line and "sense7-coder project file" in line
    assert dump(demo_project) == before


def test_an_export_over_another_project_file_is_refused(demo_project: Path,
                                                        tmp_path: Path) -> None:
    other = tmp_path / "colleague.json"
    shutil.copyfile(demo_project, other)
    before = dump(other)
    for args in (("codebook", demo_project, "export", other),
                 ("export", demo_project, "--kind", "long", other)):
        line = one_line(cli(*args))
        assert str(other) in line and "sense7-coder project file" in line
    assert dump(other) == before


# -- the record of applied upgrades must agree with the tables --------------------------------

def old_project(path: Path, version: int) -> Path:
    """A project file as the first ``version`` migrations left it."""
    from sqlite_utils import Database

    from sense7_coder.store.schema import APPLICATION_ID, migrations

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    names = [m.name for m in migrations._migrations]
    migrations.apply(Database(conn), stop_before=names[version] if version < len(names) else None)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()
    return path


def test_an_old_file_claiming_upgrades_it_lacks_is_refused_untouched(tmp_path: Path) -> None:
    from sense7_coder.store.schema import migrations

    path = old_project(tmp_path / "old.sense7", 1)
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES (?, ?, '')",
            [(migrations.name, m.name) for m in migrations._migrations[1:]])
    conn.close()
    before = dump(path)
    for _ in range(2):  # refused, and refused the same way again: nothing was written
        line = one_line(cli("info", path))
        assert str(path) in line and "record of applied upgrades" in line
    assert dump(path) == before


def test_a_file_missing_its_upgrade_record_is_refused(demo_project: Path) -> None:
    conn = sqlite3.connect(demo_project)
    with conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm002_sentences'")
    conn.close()
    before = dump(demo_project)
    line = one_line(cli("info", demo_project))
    assert str(demo_project) in line and "record of applied upgrades" in line
    assert dump(demo_project) == before


# -- the backups folder may hold files the researcher put there -------------------------------

def test_backups_neither_delete_nor_stop_for_other_files_in_the_folder(tmp_path: Path) -> None:
    import time

    from sense7_coder.domain.codebook.codes import codebook_from_dict
    from sense7_coder.project import Project
    from sense7_coder.store.backups import backups_dir

    path = tmp_path / "b.sense7"
    Project.create(path, codebook_from_dict({"name": "t", "codes": [{"key": "a"}]})).close()
    folder = backups_dir(path)
    folder.mkdir()
    mine = [folder / f"aaa-notes-{i}.sqlite" for i in range(6)]
    for f in mine:
        f.write_text("the researcher's own file", encoding="utf-8")
    future = folder / "zzz-copy.sqlite"  # newer than any change to come
    future.write_text("a copy made by hand", encoding="utf-8")
    later = time.time() + 3600
    os.utime(future, (later, later))
    made = []
    for i in range(7):
        with Project.open(path) as p:
            p.set_setting("touch", str(i))
        t = time.time() + i + 1
        os.utime(path, (t, t))
        made.append({f.name for f in folder.glob("b-*.sqlite")})
    assert made[0], "no backup made: a newer file of the researcher's stopped it"
    assert all(f.read_text(encoding="utf-8") for f in [*mine, future])
    assert 1 <= len(made[-1]) <= 5


# -- a merge source whose last change was interrupted -----------------------------------------

def test_a_merge_source_with_an_interrupted_change_is_refused_not_half_read(
        demo_project: Path, tmp_path: Path) -> None:
    source = tmp_path / "colleague.sense7"
    shutil.copyfile(demo_project, source)
    conn = sqlite3.connect(source, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    # a change killed before its commit: its pages are in the file, the undo in -journal
    crash = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA cache_size = 1')\n"
        "c.execute('BEGIN')\n"
        "c.execute(\"INSERT INTO coders (name, role) VALUES ('mallory', 'coder')\")\n"
        "c.execute(\"INSERT INTO codings(coder, conversation_id, position, sentence, code, value,"
        " updated_at) SELECT 'mallory', conversation_id, position, sentence,"
        " code, value, updated_at FROM codings WHERE coder = 'alice'\")\n"
        "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", crash, str(source)], check=True, timeout=60)
    assert source.with_name(source.name + "-journal").stat().st_size > 0
    before = dump(demo_project)
    line = one_line(cli("merge", demo_project, source))
    assert str(source) in line and "interrupted" in line
    assert dump(demo_project) == before
    # as the message says: opened once, the interrupted change is undone; nothing of it merges
    assert cli("info", source).returncode == 0
    assert cli("merge", demo_project, source).returncode == 0
    assert not [line for line in dump(demo_project) if "mallory" in line]


# -- the migrations record is held to its known shapes ----------------------------------------

_RECORD = "INSERT INTO mm SELECT {cols} FROM _sqlite_migrations; DROP TABLE _sqlite_migrations; " \
          "ALTER TABLE mm RENAME TO _sqlite_migrations;"
_ALL = "id, migration_set, name, applied_at"


@pytest.mark.parametrize("sql, named", [
    ("CREATE TABLE mm (migration_set TEXT, name TEXT, applied_at TEXT, "
     "PRIMARY KEY (migration_set, name)) WITHOUT ROWID;"
     + _RECORD.format(cols="migration_set, name, applied_at"), "table '_sqlite_migrations'"),
    ("CREATE TABLE mm (id INTEGER PRIMARY KEY, migration_set TEXT, "
     "name TEXT REFERENCES coders(name), applied_at TEXT);" + _RECORD.format(cols=_ALL),
     "table '_sqlite_migrations'"),
    ("CREATE TABLE mm (id INTEGER PRIMARY KEY, migration_set TEXT, name TEXT, "
     "applied_at TEXT CHECK (applied_at <> 'x'));" + _RECORD.format(cols=_ALL),
     "table '_sqlite_migrations'"),
    ("CREATE UNIQUE INDEX one_set ON _sqlite_migrations(applied_at);",
     "index 'one_set' on table '_sqlite_migrations'"),
], ids=["without rowid", "foreign key", "check", "index"])
def test_a_changed_migrations_record_is_refused(demo_project: Path, sql: str,
                                                named: str) -> None:
    conn = sqlite3.connect(demo_project)
    conn.executescript("PRAGMA foreign_keys = OFF;" + sql)
    conn.close()
    before = dump(demo_project)
    line = one_line(cli("info", demo_project))
    assert str(demo_project) in line and "refused" in line and named in line
    assert dump(demo_project) == before


# -- odd files where a project should be -------------------------------------------------------

def test_an_empty_file_is_named_as_empty(tmp_path: Path, demo_project: Path) -> None:
    empty = tmp_path / "empty.sense7"
    empty.touch()
    for args in (("info", empty), ("merge", demo_project, empty)):
        line = one_line(cli(*args))
        assert str(empty) in line and "empty" in line and "another program" not in line
    assert empty.stat().st_size == 0


def test_a_folder_in_place_of_the_wal_is_named(demo_project: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference.sense7"
    shutil.copyfile(demo_project, reference)
    wal = demo_project.with_name(demo_project.name + "-wal")
    wal.mkdir()
    line = one_line(cli("info", demo_project))
    assert str(demo_project) in line and wal.name in line and "read-only" not in line
    wal.rmdir()
    assert dump(demo_project) == dump(reference)


# -- a merge source whose codebook rows were edited by hand ------------------------------------

@pytest.mark.parametrize("levels", [
    "not json", "[1, 2]", '{"a": 1}', '[{"label": "x"}]', "[" * 100_000 + "]" * 100_000,
], ids=["text", "numbers", "object", "no values", "deep"])
def test_a_merge_source_with_unreadable_levels_is_refused(demo_project: Path, tmp_path: Path,
                                                          levels: str) -> None:
    source = tmp_path / "colleague.sense7"
    shutil.copyfile(demo_project, source)
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("UPDATE codes SET levels = ? WHERE key = 'affective'", [levels])
    conn.close()
    before = dump(demo_project)
    line = one_line(cli("merge", demo_project, source))
    assert str(source) in line and "'affective'" in line and "levels" in line
    assert dump(demo_project) == before


# -- a -wal left beside the file by another project --------------------------------------------

def test_a_foreign_wal_is_reported_with_the_problem_not_a_heading(demo_project: Path,
                                                                    tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import codebook_from_dict
    from sense7_coder.project import Project

    other = tmp_path / "other" / "b.sense7"
    other.parent.mkdir()
    Project.create(other, codebook_from_dict({"name": "t", "codes": [{"key": "a"}]})).close()
    leave = (
        "import os, sys\n"
        "from sense7_coder.domain.models import Conversation, Turn\n"
        "from sense7_coder.project import Project\n"
        "from sense7_coder.store import conversations as store_conv\n"
        "p = Project.open(sys.argv[1], backup=False)\n"
        "with p.pdb.atomic() as db:\n"
        "    store_conv.insert_conversations(db, [Conversation(f'x{i}', [Turn(j, 'user', 'w' * 300)"
        " for j in range(1, 30)]) for i in range(60)])\n"
        "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", leave, str(other)], env=ENV, check=True, timeout=60)
    wal = other.with_name(other.name + "-wal")
    assert wal.stat().st_size > 0
    reference = tmp_path / "reference.sense7"
    shutil.copyfile(demo_project, reference)
    shutil.copyfile(wal, demo_project.with_name(demo_project.name + "-wal"))
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "damaged (" in proc.stderr and "*** in database" not in proc.stderr
    assert f"restore {demo_project}" in proc.stderr
    assert demo_project.read_bytes() == reference.read_bytes()  # nothing written into it


def test_a_deleted_history_context_row_does_not_block_writes(tmp_path: Path) -> None:
    """A hand-edited file without the one row of who-writes-why still takes codings."""
    from sense7_coder.cli import main as cli_main
    from sense7_coder.project.demo import build_demo

    path = build_demo(tmp_path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM history_context")
        cid = conn.execute("SELECT conversation_id FROM turns WHERE role = 'assistant' "
                           "AND position = 2 LIMIT 1").fetchone()[0]
    conn.close()
    codings = tmp_path / "c.csv"
    codings.write_text(f"coder,conversation_id,turn,code,value\nzed,{cid},2,overall,4\n",
                       encoding="utf-8")
    assert cli_main(["import-codings", str(path), str(codings)]) == 0
    conn = sqlite3.connect(path)
    row = conn.execute("SELECT source FROM history WHERE coder = 'zed'").fetchone()
    conn.close()
    assert row is not None and row[0] == "import codings"

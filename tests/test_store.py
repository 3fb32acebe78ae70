"""The project file: creation, defensive opening, migrations, backups, transactions."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.store import conversations as store_conv
from sense7_coder.store.backups import backups_dir, own_backups
from sense7_coder.store.schema import APPLICATION_ID, SCHEMA_VERSION, migrations

BOOK = codebook_from_dict(
    {"name": "t", "codes": [{"key": "affective", "label": "Affective", "user_rating": "affective"}]}
)


def _conv(cid: str, n: int = 2) -> Conversation:
    turns = [
        Turn(i, "user" if i % 2 else "assistant", f"message {i} of {cid}",
             ratings={} if i % 2 else {"affective": 4, "relational": None})
        for i in range(1, n + 1)
    ]
    return Conversation(cid, turns, participant_id="P1", model="GPT4")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.create(tmp_path / "p.sense7", BOOK)
    with p.pdb.atomic() as db:
        store_conv.insert_conversations(db, [_conv("c1", 4), _conv("c2", 2)])
    yield p
    p.close()


def test_new_project_is_marked_and_versioned(tmp_path: Path) -> None:
    with Project.create(tmp_path / "x.sense7", BOOK):
        pass
    conn = sqlite3.connect(tmp_path / "x.sense7")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "taken.sense7"
    target.write_text("precious notes")
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(target, BOOK)
    assert target.read_text() == "precious notes"


def test_counts_and_ratings(project: Project) -> None:
    info = project.info()
    assert info["conversations"] == 2
    assert info["turns"] == 6
    # 'relational' was not applicable: stored but not counted as a rating
    assert info["user_ratings"] == 3
    conv = project.conversation("c1")
    assert conv is not None
    assert conv.turns[1].ratings == {"affective": 4, "relational": None}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"this is a text file, not a project\n" * 10, "not an SQLite file"),
        (b"SQLite format 3\x00" + b"\x00" * 200, "damaged"),
    ],
)
def test_garbage_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    bad = tmp_path / "bad.sense7"
    bad.write_bytes(content)
    with pytest.raises(ProjectError, match=message):
        Project.open(bad)
    assert bad.read_bytes() == content


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    Database(other)["things"].insert({"a": 1})
    before = other.read_bytes()
    with pytest.raises(ProjectError, match="another program"):
        Project.open(other)
    assert other.read_bytes() == before


def test_truncated_project_is_refused(project: Project, tmp_path: Path) -> None:
    project.set_coder("alice")
    project.set_value(Unit("c1", 2), "affective", 3)
    path = project.path
    project.close()
    data = path.read_bytes()
    damaged = tmp_path / "damaged.sense7"
    # keep the header, cut pages out of the middle
    damaged.write_bytes(data[:4096] + b"\xff" * 4096 + data[8192:])
    with pytest.raises(ProjectError, match=r"damaged|not a project"):
        Project.open(damaged)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sense7"
    Project.create(path, BOOK).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="newer version"):
        Project.open(path)


def test_older_schema_is_migrated_keeping_data(tmp_path: Path) -> None:
    """A file written by the first release (schema 1) opens and gains the later tables."""
    path = tmp_path / "old.sense7"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    db = Database(conn, execute_plugins=False)
    migrations.apply(db, stop_before="m002_sentences")
    conn.execute("PRAGMA user_version = 1")
    with db.atomic():
        store_conv.insert_conversations(db, [_conv("old-1", 2)])
    assert "sentences" not in db.table_names()
    conn.close()

    # without the backup on opening (as the window opens, copying it later on a worker):
    # an upgrade backs the file up first all the same
    with Project.open(path, backup=False) as project:
        assert project.info()["conversations"] == 1
        assert "sentences" in project.db.table_names()
        assert "predictions" in project.db.table_names()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    # the pre-migration state was backed up first
    (backup,) = backups_dir(path).glob("*.sqlite")
    conn = sqlite3.connect(backup)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


def test_backups_rotate(tmp_path: Path) -> None:
    path = tmp_path / "b.sense7"
    Project.create(path, BOOK).close()
    import os
    import time

    for i in range(8):
        with Project.open(path) as p:
            p.set_setting("touch", str(i))
        t = time.time() + i + 1
        os.utime(path, (t, t))
    kept = list(backups_dir(path).glob("*.sqlite"))
    assert 1 <= len(kept) <= 5
    # a backup is itself a healthy project
    with Project.open(sorted(kept)[-1], backup=False) as b:
        assert b.codebook.name == "t"


def test_disk_full_leaves_nothing_half_written(project: Project) -> None:
    """SQLITE_FULL mid-transaction: a clear message and the project as it was."""
    before = project.info()
    page_count = project.db.execute("PRAGMA page_count").fetchone()[0]
    project.db.execute(f"PRAGMA max_page_count = {page_count + 2}")
    big = [_conv(f"big-{i}", 40) for i in range(200)]
    with pytest.raises(ProjectError, match="disk is full"), project.pdb.atomic() as db:
        store_conv.insert_conversations(db, big)
    assert project.info() == before


def test_two_connections_write_safely(project: Project) -> None:
    """Two windows on one file: both can save; each sees the other's work."""
    second = Project.open(project.path, backup=False)
    try:
        project.set_coder("alice")
        second.set_coder("bashir")
        project.set_value(Unit("c1", 2), "affective", 2)
        second.set_value(Unit("c1", 2), "affective", 5)
        assert second.changed_elsewhere() is True
        assert project.changed_elsewhere() is True
        assert project.info()["codings"] == 2
        assert second.turn_state("c1", "alice")["codings"] == {(2, 0, "affective"): 2}
    finally:
        second.close()


def test_search_finds_ids_topics_and_message_text(tmp_path: Path) -> None:
    from sense7_coder.store.conversations import ConversationFilter, conversation_rowids

    with Project.create(tmp_path / "s.sense7", BOOK) as p:
        a = _conv("alpha", 2)
        a.topic = "Fixing a spreadsheet formula"
        b = _conv("beta_1", 2)
        b.turns[0].text = "My manager gave 100% vague feedback"
        with p.pdb.atomic() as db:
            store_conv.insert_conversations(db, [a, b])

        def found(text: str) -> int:
            return len(conversation_rowids(p.db, ConversationFilter(text=text)))

        assert found("spreadsheet") == 1  # topic
        assert found("100%") == 1  # message text, % taken literally
        assert found("a_1") == 1  # id, _ taken literally
        assert found("nothing like this") == 0


def test_an_older_file_upgraded_by_another_process_during_the_check_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two windows open the same older file at once; the first upgrades it while the
    second is still checking it. The second's check reads one state of the file (here
    the old one) and opens it, instead of refusing a file that looked edited by hand
    (new record of upgrades, old tables)."""
    from sense7_coder.store import trust

    last = list(migrations._migrations)[-1].name
    path = tmp_path / "old.sense7"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    old = Database(conn, execute_plugins=False)
    migrations.apply(old, stop_before=last)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    with old.atomic():
        store_conv.insert_conversations(old, [_conv("old-1", 2)])

    real = trust.schema_of
    upgraded = []

    def upgraded_meanwhile(checked: sqlite3.Connection) -> Any:
        found = real(checked)
        on_file = checked.execute("PRAGMA database_list").fetchone()[2] == str(path)
        if on_file and not upgraded:  # the other window upgrades between the check's reads
            upgraded.append(True)
            with old.atomic():
                migrations.apply(old)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return found

    monkeypatch.setattr(trust, "schema_of", upgraded_meanwhile)
    with Project.open(path, backup=False) as project:
        assert project.info()["conversations"] == 1
    conn.close()
    assert upgraded
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_opening_an_unchanged_project_makes_no_new_backup(tmp_path: Path) -> None:
    """Opening makes an empty write-ahead log; that is no change to back up. Before, every
    opening copied the whole file and rotated out the older backups for copies of the same
    state. A saved change still gets its backup at the next opening."""
    import os
    import time

    path = tmp_path / "b.sense7"
    Project.create(path, BOOK).close()
    Project.open(path).close()
    first = own_backups(path)
    for _ in range(3):
        with Project.open(path) as p:
            p.info()
            assert own_backups(path) == first
    with Project.open(path, backup=False) as p:
        p.set_setting("touch", "1")
        # another window keeps the file open: the change is still in the log
        later = time.time() + 5
        with Project.open(path, backup=False):
            wal = path.with_name(path.name + "-wal")
            assert wal.stat().st_size > 0
            os.utime(wal, (later, later))
            Project.open(path).close()
            assert len(own_backups(path)) == len(first) + 1

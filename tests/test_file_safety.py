"""The project file's safety: stored values keep their type, read-only places and
failed writes give one clear message, backups and merges never keep half of something."""

from __future__ import annotations

import copy
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project, state
from sqlite_utils import Database

from sense7_coder.cli import main
from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.project.export import export_frame
from sense7_coder.project.merge.merging import merge
from sense7_coder.store import codes as store_codes
from sense7_coder.store import codings as store_codings
from sense7_coder.store import conversations as store_conv
from sense7_coder.store import db as store_db
from sense7_coder.store.backups import backups_dir
from sense7_coder.store.db import ProjectDB, backup_project
from sense7_coder.store.merge import staging as store_merge
from sense7_coder.store.schema import APPLICATION_ID, migrations

#: a nominal code whose levels look like numbers (ESConv-style numbered strategies)
NUMBERED = {"key": "strategy", "kind": "nominal",
            "levels": [{"value": "1", "label": "question"}, {"value": "2", "label": "other"},
                       {"value": "007", "label": "bond"}]}


def _conv(cid: str) -> Conversation:
    return Conversation(cid, [Turn(1, "user", f"hello from {cid}"),
                              Turn(2, "assistant", f"hello back, {cid}")])


def _new_project(path: Path) -> Project:
    project = Project.create(path)
    with project.pdb.atomic() as db:
        store_conv.insert_conversations(db, [_conv("c1"), _conv("c2")])
    codebook_ops.add_code(project, code_from_dict(NUMBERED))
    return project


def _stored(project: Project, table: str = "codings") -> list[tuple[Any, str]]:
    return [tuple(r) for r in project.db.execute(
        f"SELECT value, typeof(value) FROM {table} ORDER BY conversation_id")]


def _schema3_project(path: Path) -> None:
    """A file as the first release wrote it (schema 3: ``value ANY``), with numbered levels."""
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    db = Database(conn, execute_plugins=False)
    migrations.apply(db, stop_before="m004_untyped_values")
    conn.execute("PRAGMA user_version = 3")
    with db.atomic():
        store_conv.insert_conversations(db, [_conv("c1"), _conv("c2")])
        store_codes.upsert_code(db, code_from_dict(NUMBERED), 1)
        store_codings.ensure_coder(db, "alice", "adjudicator")
        # as that release wrote them (its tables have none of today's columns)
        conn.executemany("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                         "value) VALUES ('alice', ?, 2, 0, 'strategy', ?)",
                         [("c1", "007"), ("c2", "2")])
        conn.execute("INSERT INTO consensus(conversation_id, position, sentence, code, value, "
                     "adjudicator, rationale) VALUES ('c1', 2, 0, 'strategy', '1', 'alice', '')")
    # what the old schema did to them
    assert conn.execute("SELECT value FROM codings ORDER BY conversation_id").fetchall() == [
        (7,), (2,)]
    conn.close()


# -- coded values keep their type --------------------------------------------------------------

def test_nominal_levels_that_look_like_numbers_keep_their_text(tmp_path: Path) -> None:
    project = _new_project(tmp_path / "p.sense7")
    project.set_coder("alice")
    project.set_value(Unit("c1", 2), "strategy", "007")
    project.set_value(Unit("c2", 2), "strategy", "question")
    assert _stored(project) == [("007", "text"), ("1", "text")]
    # the codebook can still be edited (the levels in use are levels of the code)
    renamed = copy.deepcopy(project.code("strategy"))
    renamed.label = "Strategy used"
    codebook_ops.update_code(project, renamed)
    long = export_frame(project, "long")
    assert long["value"].astype(str).tolist() == ["007", "1"]
    assert long["level_label"].astype(str).tolist() == ["bond", "question"]
    project.close()


def test_an_old_file_gets_its_nominal_levels_back_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.sense7"
    _schema3_project(path)
    with Project.open(path) as project:
        assert _stored(project) == [("007", "text"), ("2", "text")]
        assert _stored(project, "consensus") == [("1", "text")]
        # the tables were rebuilt with everything else intact
        assert project.info()["codings"] == 2
        indexes = {r[0] for r in project.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'codings'")}
        assert {"codings_unit", "codings_code"} <= indexes
        project.set_coder("bob")
        project.set_value(Unit("c1", 2), "strategy", "2")
    assert list(backups_dir(path).glob("*.sqlite")), "the file was backed up before upgrading"


def test_merging_an_old_file_matches_its_numbered_levels(tmp_path: Path) -> None:
    source = tmp_path / "old.sense7"
    _schema3_project(source)
    target = _new_project(tmp_path / "target.sense7")
    report = merge(target, [source])
    assert report.written and not report.conflicts
    assert _stored(target) == [("007", "text"), ("2", "text")]
    assert _stored(target, "consensus") == [("1", "text")]
    target.close()


# -- read-only places --------------------------------------------------------------------------

@pytest.fixture
def read_only() -> Iterator[list[Path]]:
    """Paths to make read-only for a test (their modes are restored afterwards)."""
    paths: list[Path] = []
    yield paths
    for p in paths:
        p.chmod(0o755 if p.is_dir() else 0o644)


def _make_read_only(paths: list[Path], *items: Path) -> None:
    for item in items:
        item.chmod(0o555 if item.is_dir() else 0o444)
        paths.append(item)
    if os.access(items[0], os.W_OK):
        pytest.skip("file permissions are not enforced for this user (root)")


def test_a_project_in_a_read_only_folder_gives_one_clear_message(
    tmp_path: Path, read_only: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "share"
    folder.mkdir()
    _new_project(folder / "study.sense7").close()
    _make_read_only(read_only, folder, folder / "study.sense7")
    with pytest.raises(ProjectError, match="read-only.*Copy the project"):
        Project.open(folder / "study.sense7")
    assert main(["info", str(folder / "study.sense7")]) == 2
    err = capsys.readouterr().err.strip()
    assert "read-only" in err and "damaged" not in err and len(err.splitlines()) == 1
    with pytest.raises(ProjectError, match="read-only"):
        Project.create(folder / "new.sense7")
    assert not (folder / "new.sense7").exists()


def test_a_coders_file_in_a_read_only_folder_can_be_merged(
    tmp_path: Path, read_only: list[Path]
) -> None:
    target = make_project(tmp_path, "lead.sense7")
    target.close()
    share = tmp_path / "share"
    share.mkdir()
    shutil.copy(tmp_path / "lead.sense7", share / "alice.sense7")
    with Project.open(share / "alice.sense7", backup=False) as alice:
        code(alice, "alice", {("c1", 2, "overall"): 4})
    _make_read_only(read_only, share)
    with Project.open(tmp_path / "lead.sense7", backup=False) as lead:
        report = merge(lead, [share / "alice.sense7"])
        assert report.written and report.sources[0].codings == 1


def test_a_read_only_source_with_unsaved_changes_beside_it_is_refused(
    tmp_path: Path, read_only: list[Path]
) -> None:
    target = make_project(tmp_path, "lead.sense7")
    target.close()
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(tmp_path / "lead.sense7", work / "alice.sense7")
    writer = sqlite3.connect(work / "alice.sense7")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO coders(name, role) VALUES ('alice', 'coder')")
    writer.commit()
    share = tmp_path / "share"
    share.mkdir()
    for name in ("alice.sense7", "alice.sense7-wal"):  # copied while the window was open
        shutil.copy(work / name, share / name)
    writer.close()
    _make_read_only(read_only, share)
    with Project.open(tmp_path / "lead.sense7", backup=False) as lead, \
            pytest.raises(ProjectError, match="alice.sense7-wal"):
        merge(lead, [share / "alice.sense7"])


# -- failures leave nothing half done ----------------------------------------------------------

class _FailingBackup(sqlite3.Connection):
    """A connection whose online backup fails once it has written the copy (a full disk)."""

    def backup(self, target: sqlite3.Connection, **kwargs: Any) -> None:  # type: ignore[override]
        super().backup(target, **kwargs)
        raise sqlite3.OperationalError("database or disk is full")


def test_a_failed_backup_leaves_no_copy_that_passes_for_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "p.sense7"
    _new_project(path).close()
    conn = sqlite3.connect(path, factory=_FailingBackup)
    assert backup_project(ProjectDB(path, Database(conn, execute_plugins=False))) is None
    conn.close()
    assert list(backups_dir(path).iterdir()) == []
    # the next opening still backs the project up
    Project.open(path, backup=True).close()
    assert len(list(backups_dir(path).glob("*.sqlite"))) == 1


def test_a_project_that_cannot_be_created_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(db: Database) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store_db.migrations, "apply", disk_full)
    with pytest.raises(ProjectError, match="disk is full|could not"):
        Project.create(tmp_path / "new.sense7")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    Project.create(tmp_path / "new.sense7").close()  # trying again works


def test_any_sqlite_failure_in_a_transaction_is_one_clear_error(tmp_path: Path) -> None:
    project = _new_project(tmp_path / "p.sense7")
    with pytest.raises(ProjectError, match="nothing was changed.*FOREIGN KEY"), \
            project.pdb.atomic() as db:
        store_codings.put_coding(db, "nobody", Unit("c1", 2), "strategy", "1")
    assert project.info()["codings"] == 0
    project.close()


class _RacingSource:
    """The source's connection, while its coder's window adds a coder and a coding between
    the merge's reading of the coders and of the codings."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.raced = False

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.startswith('SELECT "coder"') and sql.endswith("FROM codings") and not self.raced:
            self.raced = True
            window = sqlite3.connect(self.path)
            window.execute("INSERT INTO coders(name, role) VALUES ('zed', 'coder')")
            window.execute("INSERT INTO codings(coder, conversation_id, position, sentence, "
                           "code, value) VALUES ('zed', 'c1', 2, 0, 'overall', 3)")
            window.commit()
            window.close()
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_a_merge_reads_the_source_as_one_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    lead.close()
    shutil.copy(tmp_path / "lead.sense7", tmp_path / "alice.sense7")
    with Project.open(tmp_path / "alice.sense7", backup=False) as alice:
        code(alice, "alice", {("c1", 2, "overall"): 4})
    opened = store_merge.open_source
    monkeypatch.setattr(store_merge, "open_source",
                        lambda path: _RacingSource(opened(path), Path(path)))
    with Project.open(tmp_path / "lead.sense7", backup=False) as lead:
        report = merge(lead, [tmp_path / "alice.sense7"])
        assert report.written
        got = state(lead)
    assert [c[0] for c in got["codings"]] == ["alice"]
    assert ("zed", "coder") not in got["coders"]


def test_codings_on_turns_the_targets_code_does_not_apply_to_are_refused(tmp_path: Path
                                                                         ) -> None:
    make_project(tmp_path, "lead.sense7").close()
    shutil.copy(tmp_path / "lead.sense7", tmp_path / "alice.sense7")
    with Project.open(tmp_path / "alice.sense7", backup=False) as alice:
        wider = copy.deepcopy(alice.code("overall"))
        wider.applies_to = "any"
        codebook_ops.update_code(alice, wider)
        code(alice, "alice", {("c1", 1, "overall"): 3})  # a user turn
    with Project.open(tmp_path / "lead.sense7", backup=False) as lead:
        before = state(lead)
        with pytest.raises(ProjectError, match="'overall' is coded on user turns in this file, "
                                               "but applies to assistant turns"):
            merge(lead, [tmp_path / "alice.sense7"])
        assert state(lead) == before


def test_a_new_project_needs_a_file_name_in_a_folder_that_exists(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="the folder .*missing does not exist"):
        Project.create(tmp_path / "missing" / "study.sense7")
    with pytest.raises(ProjectError, match="is a folder; give a file name"):
        Project.create(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_backups_folder_that_cannot_be_written_does_not_stop_opening(
    tmp_path: Path, read_only: list[Path]
) -> None:
    path = tmp_path / "p.sense7"
    _new_project(path).close()
    folder = backups_dir(path)
    folder.mkdir()
    _make_read_only(read_only, folder)
    with Project.open(path) as project:
        assert project.info()["conversations"] == 2
    assert list(folder.iterdir()) == []

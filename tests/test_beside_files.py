"""Files found beside a project (a journal, a -wal, the backups folder, half-written files):
none of them damages the project, none is followed elsewhere, each is named in one line."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *map(str, args)],
                          capture_output=True, text=True, env=ENV, timeout=120)


def dump(path: Path) -> list[str]:
    """Everything the file holds, as SQL, read from a copy (the file itself untouched)."""
    copy = path.with_name("dump-" + path.name)
    shutil.copyfile(path, copy)
    conn = sqlite3.connect(copy)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
        copy.unlink()


def hot_journal_of_another_database(folder: Path) -> Path:
    """A rollback journal left by a change killed half-way, in a database of its own."""
    other = folder / "other.db"
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("CREATE TABLE u (y)")
    conn.executemany("INSERT INTO u VALUES (?)", [("b" * 500,)] * 300)
    conn.close()
    crash = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA cache_size = 1')\n"
        "c.execute('BEGIN')\n"
        "c.execute('DELETE FROM u')\n"
        "c.execute('INSERT INTO u SELECT y FROM u')\n"
        "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", crash, str(other)], check=True, timeout=60)
    journal = other.with_name(other.name + "-journal")
    assert journal.stat().st_size > 0
    return journal


def _other(tmp_path: Path) -> Path:
    folder = tmp_path / "other"
    folder.mkdir(exist_ok=True)
    return folder


# -- a rollback journal beside a project in WAL mode -------------------------------------------

@pytest.mark.parametrize("command", [
    ("info", "{p}"),
    ("agreement", "{p}"),
    ("export", "{p}", "{out}", "--kind", "long"),
])
def test_a_journal_copied_beside_a_project_is_set_aside_not_played_back(
        demo_project: Path, tmp_path: Path, command: tuple[str, ...]) -> None:
    journal = hot_journal_of_another_database(_other(tmp_path))
    beside = demo_project.with_name(demo_project.name + "-journal")
    shutil.copyfile(journal, beside)
    before = dump(demo_project)
    out = tmp_path / "out.csv"
    proc = cli(*(a.format(p=demo_project, out=out) for a in command))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if "journal" in ln]
    assert len(notes) == 1 and "set aside" in notes[0] and beside.name in notes[0]
    assert dump(demo_project) == before  # the project as it was, every row
    assert not beside.exists()
    kept = list(tmp_path.glob(beside.name + ".set-aside-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == journal.read_bytes()  # kept, whole
    assert cli("info", demo_project).returncode == 0  # and the project opens again


def test_the_window_s_opening_sets_a_journal_aside_and_says_so(demo_project: Path,
                                                               tmp_path: Path) -> None:
    from sense7_coder.project import Project

    beside = demo_project.with_name(demo_project.name + "-journal")
    shutil.copyfile(hot_journal_of_another_database(_other(tmp_path)), beside)
    before = dump(demo_project)
    with Project.open(demo_project, backup=False) as project:
        assert project.info()["conversations"] > 0
        assert any("set aside" in note for note in project.notes)
    assert dump(demo_project) == before


def test_a_journal_that_appears_while_the_window_is_open_is_set_aside_by_its_jobs(
        demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job of the window opens its own connection: the journal must not wait for the
    window to close to be played back, nor make the job wait for a lock (the job's
    connections get no busy timeout here: a wait would fail at once, not take long)."""
    from sense7_coder.project import Project
    from sense7_coder.store import db as store_db

    before = dump(demo_project)
    window = Project.open(demo_project, backup=False)
    try:
        beside = demo_project.with_name(demo_project.name + "-journal")
        shutil.copyfile(hot_journal_of_another_database(_other(tmp_path)), beside)
        monkeypatch.setattr(store_db, "BUSY_TIMEOUT_S", 0.0)
        with Project.open(demo_project, backup=False) as job:
            assert job.info()["conversations"] > 0
            assert any("set aside" in note for note in job.notes)
        assert not beside.exists()
    finally:
        window.close()
    assert dump(demo_project) == before


def test_a_journal_beside_the_file_a_project_link_points_to_is_set_aside(
        demo_project: Path, tmp_path: Path) -> None:
    """SQLite looks for side files beside the file a link leads to: so does the check."""
    real = tmp_path / "real" / demo_project.name
    real.parent.mkdir()
    shutil.move(demo_project, real)
    demo_project.symlink_to(real)
    beside = real.with_name(real.name + "-journal")
    shutil.copyfile(hot_journal_of_another_database(_other(tmp_path)), beside)
    before = dump(real)
    proc = cli("info", demo_project)
    assert proc.returncode == 0, proc.stderr
    assert "set aside" in proc.stderr and not beside.exists()
    assert dump(real) == before


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_a_wal_or_shm_that_is_a_link_is_refused(demo_project: Path, tmp_path: Path,
                                                suffix: str) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    link = demo_project.with_name(demo_project.name + suffix)
    link.symlink_to(target)
    before = demo_project.read_bytes()
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "is a link" in proc.stderr
    assert demo_project.read_bytes() == before and target.read_bytes() == b""


def test_a_journal_that_cannot_be_moved_aside_refuses_the_project_untouched(
        demo_project: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write into a read-only folder")
    beside = demo_project.with_name(demo_project.name + "-journal")
    shutil.copyfile(hot_journal_of_another_database(_other(tmp_path)), beside)
    before = demo_project.read_bytes()
    demo_project.parent.chmod(0o555)
    try:
        proc = cli("info", demo_project)
    finally:
        demo_project.parent.chmod(0o755)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and beside.name in proc.stderr
    assert demo_project.read_bytes() == before


# -- a -wal that was not written for this file ----------------------------------------------

def _beside_a_log_of_its_copy(original: Path, tmp_path: Path) -> Path:
    """Copy ``original``; let the original grow, the copy change in place and keep the
    change in its -wal; put that -wal beside the original. Returns the copy."""
    copy = tmp_path / "copy" / original.name
    copy.parent.mkdir()
    shutil.copyfile(original, copy)
    conn = sqlite3.connect(original, isolation_level=None)  # the original goes on
    conn.execute("INSERT INTO meta(key, value) VALUES ('grown', ?)", ["g" * 200_000])
    conn.close()
    leave = ("import os, sqlite3, sys\n"
             "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "c.execute(\"UPDATE turns SET speaker = 'copy' WHERE rowid = 1\")\n"
             "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", leave, str(copy)], check=True, timeout=60)
    wal = copy.with_name(copy.name + "-wal")
    assert wal.stat().st_size > 0
    shutil.copyfile(wal, original.with_name(original.name + "-wal"))
    return copy


def test_a_wal_made_on_a_copy_is_refused_when_the_file_has_changed_since(
        demo_project: Path, tmp_path: Path) -> None:
    """The copy's log holds the copy's pages: played into the original, which went on and
    grew meanwhile, they would quietly replace the original's own."""
    copy = _beside_a_log_of_its_copy(demo_project, tmp_path)
    before = demo_project.read_bytes()
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "-wal" in line and "not written for this" in line
    assert demo_project.read_bytes() == before
    # beside the file it was written for, the same log is the copy's latest change
    assert cli("info", copy).returncode == 0
    assert any("'copy'" in ln for ln in dump(copy))


def test_a_wal_made_on_a_copy_of_the_same_size_is_told_by_the_index_beside_the_file(
        demo_project: Path, tmp_path: Path) -> None:
    """Both changed in place, neither grew: the -shm the original was left with indexes a
    log of other salts. Played back, the copy's pages would quietly replace the
    original's."""
    copy = tmp_path / "copy" / demo_project.name
    copy.parent.mkdir()
    shutil.copyfile(demo_project, copy)
    leave = ("import os, sqlite3, sys\n"
             "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "c.execute('UPDATE turns SET speaker = ? WHERE rowid = 1', [sys.argv[2]])\n"
             "os._exit(0)\n")
    for path, who in ((demo_project, "original"), (copy, "copy")):  # left open, as by a kill
        subprocess.run([sys.executable, "-c", leave, str(path), who], check=True, timeout=60)
    assert demo_project.with_name(demo_project.name + "-shm").exists()
    shutil.copyfile(copy.with_name(copy.name + "-wal"),
                    demo_project.with_name(demo_project.name + "-wal"))
    before = demo_project.read_bytes()
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "salts" in proc.stderr
    assert demo_project.read_bytes() == before


def test_a_merge_source_beside_a_log_of_its_copy_is_refused(demo_project: Path,
                                                            tmp_path: Path) -> None:
    source = tmp_path / "colleague" / "colleague.sense7"
    source.parent.mkdir()
    shutil.copyfile(demo_project, source)
    _beside_a_log_of_its_copy(source, tmp_path)
    before, source_before = dump(demo_project), source.read_bytes()
    proc = cli("merge", demo_project, source)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "not written for this" in proc.stderr
    assert dump(demo_project) == before and source.read_bytes() == source_before


def test_a_wal_with_another_page_size_or_database_is_refused(demo_project: Path,
                                                             tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("PRAGMA page_size = 8192")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES ('y')")
    held = other.with_name(other.name + "-wal").read_bytes()  # while it is still open
    conn.close()
    beside = demo_project.with_name(demo_project.name + "-wal")
    beside.write_bytes(held)
    before = demo_project.read_bytes()
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "pages are 8192 bytes" in proc.stderr
    assert demo_project.read_bytes() == before
    # the same page size, another program's database: its first page gives it away
    conn = sqlite3.connect(tmp_path / "third.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    beside.write_bytes((tmp_path / "third.db-wal").read_bytes())
    conn.close()
    magic, _v, page = struct.unpack(">3I", beside.read_bytes()[:12])
    assert page == 4096
    proc = cli("info", demo_project)
    assert proc.returncode != 0 and "another database's" in proc.stderr
    assert demo_project.read_bytes() == before


# -- the backups folder ----------------------------------------------------------------------

def test_a_backups_folder_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import codebook_from_dict
    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.project import Project
    from sense7_coder.project.restore import list_backups, restore_backup
    from sense7_coder.store.backups import backups_dir

    path = tmp_path / "b.sense7"
    Project.create(path, codebook_from_dict({"name": "t", "codes": [{"key": "a"}]})).close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # files of someone else's that happen to carry backup names
    theirs = [elsewhere / f"b-2020010{i}-000000-000000.sqlite" for i in range(1, 8)]
    for f in theirs:
        f.write_text("not yours to delete", encoding="utf-8")
    backups_dir(path).symlink_to(elsewhere, target_is_directory=True)
    for i in range(7):
        with Project.open(path) as p:
            p.set_setting("touch", str(i))
            assert any("is a link" in note for note in p.notes)
        t = time.time() + i + 1
        os.utime(path, (t, t))
    assert sorted(elsewhere.iterdir()) == sorted(theirs)  # nothing deleted, nothing added
    with pytest.raises(ProjectError, match="is a link"):
        list_backups(path)
    with pytest.raises(ProjectError, match="is a link"):
        restore_backup(path, theirs[0])
    assert path.is_file() and sorted(elsewhere.iterdir()) == sorted(theirs)


def test_half_written_backups_left_by_a_kill_are_cleaned_up(tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import codebook_from_dict
    from sense7_coder.project import Project
    from sense7_coder.store.backups import STALE_PART_S, backups_dir

    path = tmp_path / "b.sense7"
    Project.create(path, codebook_from_dict({"name": "t", "codes": [{"key": "a"}]})).close()
    folder = backups_dir(path)
    folder.mkdir()
    old = time.time() - STALE_PART_S - 60
    stale = [folder / ".b-20200101-000000-000000.sqlite.part",
             folder / ".b-20200101-000000-000000.sqlite.part-journal"]
    live = folder / ".b-20200101-000001-000000.sqlite.part"  # another window, writing now
    mine = folder / ".my-notes.sqlite.part"  # not one of sense7-coder's names
    for f in [*stale, live, mine]:
        f.write_bytes(b"x" * 1000)
    for f in [*stale, mine]:
        os.utime(f, (old, old))
    with Project.open(path, backup=True):
        pass
    assert not any(f.exists() for f in stale)
    assert live.exists() and mine.exists()
    assert list(folder.glob("b-*.sqlite"))  # and the backup itself was made


# -- a package gets its name only when it is complete ----------------------------------------

def test_a_package_killed_while_written_leaves_nothing_under_its_name(tmp_path: Path) -> None:
    from analysis_support import conversation_lines, make_project

    from sense7_coder.project.assignments import assign

    lines = conversation_lines([(f"k{i:02d}", "P1", "GPT4", 3, 4) for i in range(6)])
    project = make_project(tmp_path, "study.sense7", lines)
    assign(project, ["a"], seed=0)
    project.close()
    out = tmp_path / "a.sense7"
    kill = (
        "import os, sys\n"
        "from sense7_coder.store import package\n"
        "real = package.copy_share\n"
        "def dying(*args, **kwargs):\n"
        "    real(*args, **kwargs)\n"
        "    os._exit(9)  # killed with the package written but not committed\n"
        "package.copy_share = dying\n"
        "from sense7_coder.cli import main\n"
        "main(['package', sys.argv[1], 'a', sys.argv[2]])\n")
    killed = subprocess.run([sys.executable, "-c", kill, str(project.path), str(out)],
                            env=ENV, timeout=120)
    assert killed.returncode == 9
    assert not out.exists()  # no damaged file under the name the coder is sent
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("a.sense7")] == []
    left = set(tmp_path.iterdir())  # the killed one's hidden .part files
    proc = cli("package", project.path, "a", out)
    assert proc.returncode == 0, proc.stderr
    assert set(tmp_path.iterdir()) - left == {out}  # nothing else left behind
    assert cli("info", out).returncode == 0


def test_what_a_killed_package_left_is_cleaned_up_by_the_next(tmp_path: Path) -> None:
    from analysis_support import conversation_lines, make_project

    from sense7_coder.project.assignments import assign
    from sense7_coder.project.package import make_package
    from sense7_coder.store.backups import STALE_PART_S

    lines = conversation_lines([(f"k{i:02d}", "P1", "GPT4", 3, 4) for i in range(4)])
    project = make_project(tmp_path, "study.sense7", lines)
    assign(project, ["a"], seed=0)
    out = tmp_path / "a.sense7"
    stale = [tmp_path / f".a.sense7.0123456789ab.part{s}" for s in ("", "-wal", "-shm")]
    live = tmp_path / ".a.sense7.ba9876543210.part"  # another window's, being written
    other = tmp_path / ".b.sense7.0123456789ab.part"  # another package's name
    old = time.time() - STALE_PART_S - 60
    for f in [*stale, live, other]:
        f.write_bytes(b"x")
    for f in [*stale, other]:
        os.utime(f, (old, old))
    make_package(project, "a", out)
    project.close()
    assert not any(f.exists() for f in stale)
    assert live.exists() and other.exists() and out.is_file()

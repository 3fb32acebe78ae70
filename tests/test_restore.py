"""`sense7-coder restore`: list the backups, bring one back without losing the current file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.store import conversations as store_conv
from sense7_coder.store.backups import backups_dir

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *args], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=120)


def values(path: Path) -> dict[int, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT position, value FROM codings"))
    finally:
        conn.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one backup (turn 2 coded) and, since, turn 4 coded too."""
    path = tmp_path / "study.sense7"
    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    with Project.create(path, book) as p:
        with p.pdb.atomic() as db:
            turns = [Turn(i, "user" if i % 2 else "assistant", f"m{i}") for i in range(1, 9)]
            store_conv.insert_conversations(db, [Conversation("c1", turns)])
        p.set_coder("alice")
        p.set_value(Unit("c1", 2), "affective", 3)
    time.sleep(0.02)
    with Project.open(path) as p:  # the window's open: makes the backup
        p.set_coder("alice")
        p.set_value(Unit("c1", 4), "affective", 5)
    assert len(list(backups_dir(path).glob("*.sqlite"))) == 1
    return path


LEAVE_WAL = """
import os, sys
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
p = Project.open(sys.argv[1], backup=False)
p.set_coder("alice")
p.set_value(Unit("c1", 6), "affective", 1)
os._exit(0)  # dies without closing: the change stays in the -wal beside the file
"""


def test_listing_shows_the_backups_newest_first(project: Path) -> None:
    time.sleep(0.02)
    with Project.open(project) as p:
        p.set_coder("bob")
    done = cli("restore", str(project))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"2 backups of {project}, newest first:"
    names = [line.split()[-1] for line in lines[1:3]]
    assert names == sorted(names, reverse=True)
    assert all(" KB " in line or " bytes " in line for line in lines[1:3])


def test_restore_beside_a_stale_wal_gives_a_healthy_file_and_keeps_the_current_one(
        project: Path) -> None:
    done = subprocess.run([sys.executable, "-c", LEAVE_WAL, str(project)], cwd=REPO, env=ENV,
                          timeout=60)
    assert done.returncode == 0
    wal = project.with_name(project.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0

    done = cli("restore", str(project), "1")
    assert done.returncode == 0, done.stderr
    assert "kept as" in done.stdout
    assert not wal.exists()
    with Project.open(project, backup=False) as p:  # healthy, and the backup's content
        assert p.turn_state("c1", "alice")["codings"] == {(2, 0, "affective"): 3}
    kept = [b for b in backups_dir(project).glob("*before-restore.sqlite")]
    assert len(kept) == 1
    # the replaced file kept its -wal: nothing it held is lost
    assert values(kept[0]) == {2: 3, 4: 5, 6: 1}


def test_restore_is_refused_while_another_process_has_the_project_open(project: Path) -> None:
    if not Path("/proc/locks").exists():
        pytest.skip("no way to see other processes' locks on this system")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom sense7_coder.project import Project\n"
         "p = Project.open(sys.argv[1], backup=False)\nprint('open', flush=True)\n"
         "time.sleep(60)", str(project)], cwd=REPO, env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        before = project.read_bytes()
        done = cli("restore", str(project), "1")
        assert done.returncode == 2
        assert f"process {holder.pid}" in done.stderr and "nothing was changed" in done.stderr
        assert project.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()


def test_a_damaged_backup_is_not_restored(project: Path) -> None:
    bad = backups_dir(project) / "bad.sqlite"
    bad.write_bytes(b"not a project" * 100)
    before = values(project)
    done = cli("restore", str(project), "bad.sqlite")
    assert done.returncode == 2 and "nothing was changed" in done.stderr
    assert values(project) == before


def test_a_damaged_project_says_how_to_restore_and_restore_repairs_it(project: Path) -> None:
    size = project.stat().st_size
    with project.open("r+b") as fh:  # no connection is open in this test: damage every page
        for page in range(1, size // 4096):  # but the first (the header stays readable)
            fh.seek(page * 4096 + 8)
            fh.write(b"\xff" * 64)
    with pytest.raises(ProjectError) as err:
        Project.open(project)
    message = str(err.value)
    assert "damaged" in message and f"sense7-coder restore {project}" in message
    assert "\n" not in message and len(message) < 600
    done = cli("restore", str(project), "1")
    assert done.returncode == 0, done.stderr
    with Project.open(project, backup=False) as p:
        assert p.info()["codings"] == 1


KILL_AT_RENAME = """
import os, sys
from pathlib import Path
from sense7_coder.project.restore import restore_backup
import sense7_coder.store.restore as r
calls = 0
real = os.replace
def replace(a, b):
    global calls
    calls += 1
    if calls == int(sys.argv[3]):
        os._exit(9)  # killed at this rename, before it happens
    real(a, b)
r.os.replace = replace
restore_backup(Path(sys.argv[1]), Path(sys.argv[2]))
print("done", calls)
"""


@pytest.mark.parametrize("stale_wal", [False, True], ids=["closed", "with its -wal"])
def test_a_kill_at_any_rename_of_restore_leaves_a_whole_project(project: Path,
                                                                stale_wal: bool) -> None:
    """Killed at any point, the project file is there, healthy, with the current or the
    restored content, and the current content is never lost."""
    if stale_wal:
        subprocess.run([sys.executable, "-c", LEAVE_WAL, str(project)], env=ENV, check=True)
    current = values(project)
    (backup,) = backups_dir(project).glob("*.sqlite")
    restored = values(backup)
    folder = project.parent
    snapshot = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    for kill_at in range(1, 6):
        proc = subprocess.run([sys.executable, "-c", KILL_AT_RENAME, str(project), str(backup),
                               str(kill_at)], env=ENV, capture_output=True, text=True)
        assert project.is_file(), f"killed at rename {kill_at}: the project file is gone"
        assert values(project) in (current, restored)
        kept = [values(p) for p in backups_dir(project).glob("*before-restore.sqlite")]
        assert values(project) == current or current in kept
        if proc.returncode == 0:
            break
        for p in folder.rglob("*"):  # start again from the same files
            if p.is_file() and p not in snapshot:
                p.unlink()
        for p, data in snapshot.items():
            p.write_bytes(data)
    assert proc.returncode == 0 and values(project) == restored

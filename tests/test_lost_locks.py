"""The guard for a process that lost its locks on an open project (store/lock_guard.py).

Code in the process that opens and closes the project's -shm or the file itself (here done
on purpose, as a file dialog or a thumbnailer would) releases SQLite's POSIX locks; the
next program to close the file then deletes the write-ahead log our connection still
writes into. Every write first notices that and reconnects, so what the API acknowledges
is in the file every other process sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.sharing import keep_all_connected, keep_connected
from sense7_coder.store import lock_guard
from tests.test_sharing import (
    ENV,
    cli,
    codings_seen_by_another_process,
    deleted_wal_open,
    make_project,
)

pytestmark = pytest.mark.skipif(not lock_guard.supported(),
                                reason="the guard reads Linux's /proc/locks")


def drop_locks(path: Path) -> None:
    """What a file dialog listing the folder does to this process's locks."""
    for name in (path.name, path.name + "-shm"):
        open(path.with_name(name), "rb").close()  # noqa: SIM115 - the point is the close


def wal_on_disk_is_ours(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and lock_guard.open_files(path)["-wal"] == {
        (wal.stat().st_dev, wal.stat().st_ino)}


@pytest.fixture
def window(tmp_path: Path):
    path = tmp_path / "shared.sense7"
    make_project(path)
    p = Project.open(path, backup=False)
    p.set_coder("alice")
    p.set_value(Unit("c1", 2), "affective", 3)
    yield p
    p.close()


def test_a_write_after_another_program_deleted_the_log_lands_in_the_file(window) -> None:
    path = window.path
    assert lock_guard.problem(path) is None
    drop_locks(path)
    assert "lost its locks" in (lock_guard.problem(path) or "")
    assert cli("info", str(path)).returncode == 0  # believes it was the last: deletes the log
    assert "deleted or replaced" in (lock_guard.problem(path) or "")
    window.set_value(Unit("c1", 4), "affective", 4)
    assert codings_seen_by_another_process(path) == 2
    assert deleted_wal_open() == []
    assert wal_on_disk_is_ours(path)
    assert any("reconnected" in note for note in window.notes)
    # and it stays so: the next program's open and close takes nothing from it
    assert cli("info", str(path)).returncode == 0
    window.set_value(Unit("c1", 6), "affective", 2)
    assert codings_seen_by_another_process(path) == 3


def test_locks_lost_before_anyone_came_are_taken_again_at_the_next_write(window) -> None:
    path = window.path
    drop_locks(path)
    window.set_value(Unit("c1", 4), "affective", 4)  # reconnects first; the log stays
    assert lock_guard.problem(path) is None
    assert cli("info", str(path)).returncode == 0
    assert wal_on_disk_is_ours(path)
    window.set_value(Unit("c1", 6), "affective", 2)
    assert codings_seen_by_another_process(path) == 3


def test_a_log_another_program_left_when_killed_survives_the_reconnection(window) -> None:
    """The old connections close without folding or deleting anything: the -wal on disk
    may hold another program's acknowledged work (it was killed before it closed)."""
    path = window.path
    drop_locks(path)
    assert cli("info", str(path)).returncode == 0
    killed = ("import os, sys; from sense7_coder.project import Project;"
              "from sense7_coder.domain.models import Unit;"
              "p = Project.open(sys.argv[1], backup=False); p.set_coder('ben');"
              "p.set_value(Unit('c1', 8), 'affective', 5); os._exit(0)")
    subprocess.run([sys.executable, "-c", killed, str(path)], check=True, timeout=60, env=ENV)
    assert path.with_name(path.name + "-wal").exists()  # its only copy of ben's value
    window.set_value(Unit("c1", 4), "affective", 4)
    assert codings_seen_by_another_process(path) == 3
    with Project.open(path, backup=False) as other:
        assert other.turn_state("c1", "ben")["codings"] == {(8, 0, "affective"): 5}


def test_every_connection_of_the_window_thread_is_made_again(window) -> None:
    """Two windows of one process on the file (SQLite shares one lock state between them):
    both are reconnected, and both write where other programs see it."""
    path = window.path
    second = Project.open(path, backup=False)
    try:
        second.set_coder("bea")
        drop_locks(path)
        assert cli("info", str(path)).returncode == 0
        window.set_value(Unit("c1", 4), "affective", 4)
        second.set_value(Unit("c1", 4), "affective", 1)
        assert codings_seen_by_another_process(path) == 3
        assert window.pdb.generation == second.pdb.generation == 1
        assert deleted_wal_open() == []
    finally:
        second.close()


def test_a_connection_in_use_by_a_background_job_defers_the_reconnection(window) -> None:
    """Nothing is closed under a job. While the log on disk is still this process's, a
    write goes on into it (every program sees it); once another program deleted it, a
    write is refused in one line, nothing written, until the job has closed its
    connection and the window's next look has reconnected."""
    path = window.path
    opened, finish = threading.Event(), threading.Event()

    def job() -> None:
        with Project.open(path, backup=False):
            opened.set()
            finish.wait(30)

    worker = threading.Thread(target=job)
    worker.start()
    try:
        assert opened.wait(30)
        drop_locks(path)
        window.set_value(Unit("c1", 4), "affective", 4)
        assert codings_seen_by_another_process(path) == 2
        assert keep_connected(window) is None  # the poll waits for the job too
        assert cli("info", str(path)).returncode == 0  # the locks still gone: deletes the log
        with pytest.raises(ProjectError, match="background job.*Nothing was changed"):
            window.set_value(Unit("c1", 6), "affective", 2)
    finally:
        finish.set()
        worker.join(30)
    assert keep_all_connected() != []  # the window's look after a dialog mends it
    window.set_value(Unit("c1", 6), "affective", 2)
    assert cli("info", str(path)).returncode == 0
    window.set_value(Unit("c1", 8), "affective", 1)
    assert codings_seen_by_another_process(path) == 4
    assert deleted_wal_open() == []


def test_the_guard_reads_no_file_of_the_project(window) -> None:
    """Looking costs no lock: the checks themselves never open the file or its side files."""
    path = window.path
    for _ in range(3):
        assert lock_guard.problem(path) is None
        assert keep_connected(window) is None
    assert cli("info", str(path)).returncode == 0
    assert wal_on_disk_is_ours(path)
    assert os.path.exists(path.with_name(path.name + "-shm"))


@pytest.mark.gui
def test_the_window_mends_a_lost_hold_on_its_poll_and_says_so(gui, demo_project: Path) -> None:
    """Something in the window's process read the project (a platform plugin, say): the
    2-second poll reconnects before anyone writes, and the status bar says so."""
    w = gui.open(demo_project, coder="zoe")
    drop_locks(demo_project)
    assert cli("info", str(demo_project)).returncode == 0  # deletes the log under the window
    w.check_elsewhere()  # what the poll's timer calls
    assert any("reconnected to the project" in e.text for e in w.message_log.entries)
    assert lock_guard.problem(demo_project) is None
    where = (w.workspace.conversation_id, w.workspace.position, w.workspace.coding.focused_key)
    gui.press(w, "4")
    code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute("
            "'SELECT value FROM codings WHERE coder = ? AND conversation_id = ? AND position = ?"
            " AND code = ?', sys.argv[2:]).fetchone()[0])")
    seen = subprocess.run([sys.executable, "-c", code, str(demo_project), "zoe", *map(str, where)],
                          capture_output=True, text=True, timeout=60, check=True)
    assert seen.stdout.strip() == "4"
    assert wal_on_disk_is_ours(demo_project)

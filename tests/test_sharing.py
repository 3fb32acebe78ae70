"""One project file shared by a window, its background jobs and other processes.

Nothing written is lost: no plain file handle on the project file is ever opened and closed
while a connection to it is open (closing any descriptor of a file drops every POSIX lock the
process holds on it, after which another process deletes the write-ahead log under us).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.store import conversations as store_conv

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def make_project(path: Path, turns: int = 40) -> None:
    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    with Project.create(path, book) as p, p.pdb.atomic() as db:
        rows = [Turn(i, "user" if i % 2 else "assistant", f"m{i}") for i in range(1, turns + 1)]
        store_conv.insert_conversations(db, [Conversation("c1", rows)])


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *args], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=120)


def deleted_wal_open() -> list[str]:
    """The write-ahead logs this process still has open although they were deleted."""
    fd_dir = Path("/proc/self/fd")
    if not fd_dir.exists():
        return []
    out = []
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.endswith("(deleted)") and ("-wal" in target or "-shm" in target):
            out.append(target)
    return out


def codings_seen_by_another_process(path: Path) -> int:
    code = ("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
            "print(c.execute('SELECT COUNT(*) FROM codings').fetchone()[0])")
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, timeout=60)
    return int(run.stdout)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX advisory locks")
def test_reopening_in_the_same_process_keeps_the_other_connections_safe(tmp_path: Path) -> None:
    path = tmp_path / "shared.sense7"
    make_project(path)
    window = Project.open(path, backup=False)
    try:
        window.set_coder("alice")
        window.set_value(Unit("c1", 2), "affective", 3)
        job = Project.open(path, backup=False)  # what a background job does
        job.close()
        assert cli("info", str(path)).returncode == 0  # another process opens and closes
        window.set_value(Unit("c1", 4), "affective", 4)
        assert deleted_wal_open() == []
        # the second value is visible to everyone, not only to this connection
        assert codings_seen_by_another_process(path) == 2
    finally:
        window.close()
    with Project.open(path, backup=False) as p:
        state = p.turn_state("c1", "alice")["codings"]
    assert state == {(2, 0, "affective"): 3, (4, 0, "affective"): 4}
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


def assistant_turns(path: Path, limit: int) -> list[tuple[str, int]]:
    conn = sqlite3.connect(path)
    try:
        return [(r[0], r[1]) for r in conn.execute(
            "SELECT conversation_id, position FROM turns WHERE role = 'assistant' "
            "ORDER BY conversation_id, position LIMIT ?", [limit])]
    finally:
        conn.close()


@pytest.mark.gui
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX advisory locks")
def test_window_jobs_beside_another_process_lose_nothing(gui, demo_project: Path,
                                                         tmp_path: Path) -> None:
    """The issue's steps: the window runs Agreement and Export on its task runner, a terminal
    runs `info` and `import-codings`, the window codes between them, then quits."""
    from sense7_coder.ui.analysis.export_dialog import ExportDialog

    units = assistant_turns(demo_project, 12)
    window = gui.open(demo_project, coder="zoe")
    project = window.project
    saved: dict[tuple[str, int], int] = {}

    def code(i: int) -> None:
        cid, pos = units[i]
        value = i % 5 + 1
        project.set_value(Unit(cid, pos), "affective", value)
        saved[(cid, pos)] = value

    code(0)
    panel = window.analysis.agreement()
    assert panel is not None
    panel.run()
    assert panel.wait(60) and panel.error is None, panel.error
    assert cli("info", str(demo_project)).returncode == 0
    code(1)
    codings = tmp_path / "yuri.csv"
    codings.write_text("coder,conversation_id,turn,code,value\n" + "".join(
        f"yuri,{cid},{pos},affective,2\n" for cid, pos in units[:6]), encoding="utf-8")
    done = cli("import-codings", str(demo_project), str(codings))
    assert done.returncode == 0, done.stderr
    code(2)
    dialog = ExportDialog(project, window)
    gui.qtbot.addWidget(dialog)
    dialog.set_kind("long")
    dialog.path.setText(str(tmp_path / "long.csv"))
    dialog.export()
    assert dialog.wait(60) and dialog.error is None, dialog.error
    assert cli("info", str(demo_project)).returncode == 0
    code(3)
    assert deleted_wal_open() == []
    dialog.close()
    window.close()  # quit: the window closes its project

    conn = sqlite3.connect(demo_project)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        mine = {(r[0], r[1]): r[2] for r in conn.execute(
            "SELECT conversation_id, position, value FROM codings "
            "WHERE coder = 'zoe' AND code = 'affective'")}
        theirs = conn.execute(
            "SELECT COUNT(*) FROM codings WHERE coder = 'yuri'").fetchone()[0]
    finally:
        conn.close()
    assert mine == saved
    assert theirs == 6


def test_the_open_project_file_is_never_read_or_written_as_an_ordinary_file(
        tmp_path: Path) -> None:
    """Choosing the project itself (or its -wal) to import or export to is refused before any
    file handle is opened on it."""
    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.project.export import export_project
    from sense7_coder.project.imports import import_codings, import_files

    path = tmp_path / "shared.sense7"
    make_project(path)
    with Project.open(path, backup=False) as p:
        p.set_coder("alice")
        p.set_value(Unit("c1", 2), "affective", 3)
        wal = path.with_name(path.name + "-wal")
        for attempt in (lambda: import_files(p, [path]), lambda: import_codings(p, wal),
                        lambda: export_project(p, path, "long")):
            with pytest.raises(ProjectError, match="open project file"):
                attempt()
        assert cli("info", str(path)).returncode == 0
        p.set_value(Unit("c1", 4), "affective", 4)
        assert deleted_wal_open() == []
        assert codings_seen_by_another_process(path) == 2

"""The history is append-only across processes: a row one program wrote is never changed,
deleted or replaced by another -- a window and the command line writing in turn on one
file both find every row, with its id and contents, after both have closed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from analysis_support import conversation_lines, make_project

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.store.history import COLUMNS

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}

#: a window's process: the Project API held open, writing when told to, printing the
#: history rows each write added; "quit" closes the project
WINDOW = textwrap.dedent("""
    import json, sys
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project
    from sense7_coder.store.history import COLUMNS
    project = Project.open(sys.argv[1], backup=False)
    project.set_coder("ann")
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        i = int(line)
        last = project.db.execute("SELECT COALESCE(MAX(id), 0) FROM history").fetchone()[0]
        project.set_value(Unit(f"k{i % 3:02d}", 2), "overall", i % 5 + 1)
        project.set_memo(Unit(f"k{i % 3:02d}", 2), f"memo {i}")
        rows = project.db.execute(f"SELECT {', '.join(COLUMNS)} FROM history WHERE id > ? "
                                  "ORDER BY id", [last]).fetchall()
        print(json.dumps([list(r) for r in rows]), flush=True)
    project.close()
""")


def history(path: Path, after: int = 0) -> list[list[Any]]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [list(r) for r in conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM history WHERE id > ? ORDER BY id", [after])]
    finally:
        conn.close()


def test_a_window_and_the_command_line_writing_in_turn_keep_every_history_row(
        tmp_path: Path) -> None:
    project = make_project(tmp_path, "study.sense7", conversation_lines(
        [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(3)]))
    path = project.path
    project.close()
    window = subprocess.Popen([sys.executable, "-c", WINDOW, str(path)], cwd=REPO, env=ENV,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert window.stdin is not None and window.stdout is not None
    assert window.stdout.readline().strip() == "ready"
    start = history(path)  # the window's coder recorded too
    written: list[tuple[str, list[list[Any]]]] = []  # who wrote which rows, in turn
    try:
        for i in range(4):
            window.stdin.write(f"{i}\n")
            window.stdin.flush()
            rows = json.loads(window.stdout.readline())
            assert [r[4] for r in rows] == ["coding", "memo"], rows
            written.append(("window", rows))
            last = max(r[0] for _who, rs in written for r in rs)
            cli = subprocess.run(
                [sys.executable, "-m", "sense7_coder", "codebook", str(path), "add",
                 f"extra{i}", "--kind", "binary"],
                cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120)
            assert cli.returncode == 0, cli.stderr
            rows = history(path, last)
            assert [r[4] for r in rows] == ["code"] and rows[0][8] == f"extra{i}", rows
            written.append(("command line", rows))
        window.stdin.write("quit\n")
        window.stdin.flush()
        assert window.wait(timeout=120) == 0
    finally:
        if window.poll() is None:
            window.kill()
            window.wait()
    # the last to close folded the log in (read here read-only, which leaves one behind)
    assert not path.with_name(path.name + "-wal").exists()
    # after both closed: every row where it was written, as it was written, nothing else
    ids = [r[0] for _who, rows in written for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert history(path) == start + [r for _who, rows in written for r in rows]


@pytest.fixture
def coded(tmp_path: Path) -> Path:
    with make_project(tmp_path, "study.sense7", conversation_lines(
            [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(2)])) as project:
        project.set_coder("ann")
        project.set_value(Unit("k00", 2), "overall", 3)
        return project.path


@pytest.mark.parametrize("sql", [
    "UPDATE history SET after = '5' WHERE kind = 'coding'",
    "DELETE FROM history WHERE kind = 'coding'",
    "INSERT OR REPLACE INTO history(id, at, action, kind) "
    "SELECT id, at, 'set', 'coding' FROM history WHERE kind = 'coding'",
    "REPLACE INTO history(id, at, action, kind) SELECT MAX(id), '2020', 'set', 'x' "
    "FROM history",
], ids=["update", "delete", "insert-or-replace", "replace"])
def test_no_program_changes_deletes_or_replaces_a_history_row(coded: Path, sql: str) -> None:
    before = history(coded)
    conn = sqlite3.connect(coded, isolation_level=None)  # another tool, through SQLite
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    finally:
        conn.close()
    with Project.open(coded, backup=False) as project:
        with pytest.raises(ProjectError) as refused, project.pdb.atomic() as db:
            db.execute(sql)
        assert str(coded) in str(refused.value) and "append-only" in str(refused.value)
        # and what the API writes is still appended
        project.set_coder("ann")
        project.set_value(Unit("k01", 2), "overall", 2)
    after = history(coded)
    assert after[:len(before)] == before and len(after) == len(before) + 1

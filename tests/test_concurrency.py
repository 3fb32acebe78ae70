"""Several processes writing one project file at once: every writer waits its turn.

Writing transactions start with BEGIN IMMEDIATE, so a second writer waits for the first
(SQLite's busy timeout) instead of failing on a snapshot another process made stale.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.models import Conversation, Turn, Unit
from sense7_coder.project import Project
from sense7_coder.store import conversations as store_conv

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
CONVERSATIONS, TURNS = 20, 200  # 100 assistant turns each: 2,000 units
WRITES = CONVERSATIONS * TURNS // 2

CODER = textwrap.dedent(
    """
    import sys
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project
    project = Project.open(sys.argv[1], backup=False)
    project.set_coder(sys.argv[2])
    refused = 0
    for c in range(CONVERSATIONS):
        for pos in range(2, TURNS + 1, 2):
            try:
                project.set_value(Unit(f"c{c}", pos), "affective", (c + pos) % 5 + 1)
            except Exception as e:  # count, report and go on: the test says how many
                refused += 1
                print(e, file=sys.stderr)
    project.close()
    print(refused)
    """
).replace("CONVERSATIONS", str(CONVERSATIONS)).replace("TURNS", str(TURNS))


def make_project(path: Path) -> None:
    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    convs = [Conversation(f"c{c}", [Turn(i, "user" if i % 2 else "assistant", f"m{c}-{i}")
                                    for i in range(1, TURNS + 1)]) for c in range(CONVERSATIONS)]
    with Project.create(path, book) as p, p.pdb.atomic() as db:
        store_conv.insert_conversations(db, convs)


def test_three_coders_an_agreement_and_a_merge_at_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.sense7"
    make_project(path)
    source = tmp_path / "source.sense7"
    shutil.copyfile(path, source)
    with Project.open(source, backup=False) as p:
        p.set_coder("merged")
        for c in range(CONVERSATIONS):
            p.set_value(Unit(f"c{c}", 2), "affective", 3)

    def start(*args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, *args], cwd=REPO, env=ENV, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    coders = [start("-c", CODER, str(path), name) for name in ("ann", "ben", "cat")]
    others = [start("-m", "sense7_coder", "agreement", str(path)),
              start("-m", "sense7_coder", "merge", str(path), str(source))]
    outcomes = [p.communicate(timeout=300) for p in coders + others]
    for proc, (_out, err) in zip(coders + others, outcomes, strict=True):
        assert proc.returncode == 0, err[-2000:]
    refused = [int(out.split()[-1]) for out, _ in outcomes[:3]]
    assert refused == [0, 0, 0], [err[-500:] for _, err in outcomes[:3]]

    conn = sqlite3.connect(path)
    try:
        counts = dict(conn.execute("SELECT coder, COUNT(*) FROM codings GROUP BY coder"))
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    assert counts == {"ann": WRITES, "ben": WRITES, "cat": WRITES, "merged": CONVERSATIONS}


def test_a_writer_that_waited_too_long_says_who_holds_the_file(tmp_path: Path,
                                                               monkeypatch) -> None:
    import pytest

    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.store import db as store_db

    path = tmp_path / "held.sense7"
    make_project(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys, time\n"
         "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE')\nprint('holding', flush=True)\ntime.sleep(60)",
         str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        monkeypatch.setattr(store_db, "BUSY_TIMEOUT_S", 0.5)
        with Project.open(path, backup=False) as p, pytest.raises(ProjectError) as err:
            p.set_coder("alice")
        message = str(err.value)
        assert "busy" in message and "nothing was changed" in message and "\n" not in message
        if Path("/proc/locks").exists():
            assert f"process {holder.pid}" in message
    finally:
        holder.kill()
        holder.wait()
    with Project.open(path, backup=False) as p:  # the holder is gone: writing works again
        p.set_coder("alice")
        p.set_value(Unit("c1", 2), "affective", 2)

"""A crash or a kill loses nothing that was reported as saved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sense7_coder.domain.codebook.codes import codebook_from_dict
from sense7_coder.domain.models import Conversation, Turn
from sense7_coder.project import Project
from sense7_coder.store import conversations as store_conv

REPO = Path(__file__).resolve().parents[1]

CODER = textwrap.dedent(
    """
    import sys
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project
    project = Project.open(sys.argv[1], backup=False)
    project.set_coder("alice")
    i = 0
    while True:  # code until killed, reporting each saved action
        position = 2 * (i % 50) + 2
        value = (i // 50) % 5 + 1  # each pass over the turns changes every value
        project.set_value(Unit("c1", position), "affective", value)
        project.set_done("c1", position)
        print(i, position, value, flush=True)
        i += 1
    """
)


def test_killed_coder_loses_nothing_reported_saved(tmp_path: Path) -> None:
    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    path = tmp_path / "crash.sense7"
    with Project.create(path, book) as p, p.pdb.atomic() as db:
        turns = [Turn(i, "user" if i % 2 else "assistant", f"m{i}") for i in range(1, 101)]
        store_conv.insert_conversations(db, [Conversation("c1", turns)])

    proc = subprocess.Popen(
        [sys.executable, "-c", CODER, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    reported: dict[int, int] = {}
    for line in proc.stdout:
        _i, position, value = map(int, line.split())
        reported[position] = value
        if len(reported) == 50 and _i > 120:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    with Project.open(path) as p:  # integrity-checked on open
        state = p.turn_state("c1", "alice")
    for position, value in reported.items():
        # the last reported value of every turn is there, or the next pass's value if that
        # was saved just before the kill and not yet reported
        stored = state["codings"][(position, 0, "affective")]
        assert stored in (value, value % 5 + 1), (position, stored, value)
        assert position in state["done"]


def _counts(path: Path) -> tuple[int, int]:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return (conn.execute("SELECT COUNT(*) FROM codings").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0])
    finally:
        conn.close()


def _big_pair(tmp_path: Path) -> tuple[Path, Path, int]:
    """A target and a source holding 40 more conversations and 6,000 codings."""
    from sense7_coder.store import codings as store_codings

    book = codebook_from_dict({"name": "t", "codes": [{"key": "affective"}]})
    convs = [Conversation(f"c{c}", [Turn(i, "user" if i % 2 else "assistant", f"m{c}-{i}")
                                    for i in range(1, 101)]) for c in range(40)]
    target, source = tmp_path / "target.sense7", tmp_path / "source.sense7"
    Project.create(target, book).close()
    with Project.create(source, book) as p, p.pdb.atomic() as db:
        store_conv.insert_conversations(db, convs)
        for coder in ("ann", "ben", "cat"):
            store_codings.ensure_coder(db, coder)
            store_codings.insert_codings(db, [(coder, f"c{c}", pos, 0, "affective", pos % 5 + 1)
                                              for c in range(40) for pos in range(2, 101, 2)])
    return target, source, 6000


def _kill_after(args: list[str], delay: float) -> int | None:
    """Run the command line; kill -9 it after ``delay`` s. Its exit status if it ended first."""
    import time

    proc = subprocess.Popen([sys.executable, "-m", "sense7_coder", *args], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is not None:
        return proc.returncode
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return None


def test_a_merge_killed_at_any_moment_lands_whole_or_not_at_all(tmp_path: Path) -> None:
    target, source, n = _big_pair(tmp_path)
    outcome = None
    delay = 0.3
    while outcome is None and delay < 20:
        outcome = _kill_after(["merge", str(target), str(source)], delay)
        codings, conversations = _counts(target)
        # all or nothing (a kill just after the commit, before the report, keeps it all)
        assert (codings, conversations) in ((0, 0), (n, 40)), (delay, codings)
        delay *= 1.6
    assert outcome == 0
    assert _counts(target) == (n, 40)


def test_codings_import_killed_at_any_moment_lands_whole_or_not_at_all(tmp_path: Path) -> None:
    target, source, n = _big_pair(tmp_path)
    target = source  # import into the project that holds the conversations
    csv = tmp_path / "dora.csv"
    csv.write_text("coder,conversation_id,turn,code,value\n" + "".join(
        f"dora,c{c},{pos},affective,{pos % 5 + 1}\n" for c in range(40) for pos in range(2, 101, 2)),
        encoding="utf-8")
    outcome = None
    delay = 0.3
    while outcome is None and delay < 20:
        outcome = _kill_after(["import-codings", str(target), str(csv)], delay)
        codings, _ = _counts(target)
        assert codings in (n, n + 2000), (delay, codings)
        delay *= 1.6
    assert outcome == 0
    assert _counts(target)[0] == n + 2000

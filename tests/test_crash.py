"""A crash or a kill loses nothing that was reported as saved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sense7_coder.domain.codebook import codebook_from_dict
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

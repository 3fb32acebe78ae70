"""What another window or program wrote to the project since a mark: read from the history
table (which triggers fill for codings, done marks, memos, consensus, assignments, codes,
roles, settings and conversation attributes), from the conversations' and turns' row ids
(imports, which the history does not follow) and from the models' runs and prompts (which
the history does not follow either); the record of open windows changes no value shown."""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

from sqlite_utils import Database

from .windows import fingerprint

#: (last history id, conversations, last conversation row id, last turn row id, the state
#: of the models' runs and prompts, the windows recorded open)
Mark = tuple[int, int, int, int, str, str]


def mark(db: Database) -> Mark:
    """Where the file stands now (cheap: a few index look-ups). A file without a history
    table (older than schema 5) counts its history as empty: every change then reads as
    unexplained, which reloads everything."""
    row = db.execute(
        "SELECT (SELECT COUNT(*) FROM conversations), "
        "(SELECT COALESCE(MAX(rowid), 0) FROM conversations), "
        "(SELECT COALESCE(MAX(rowid), 0) FROM turns)").fetchone()
    try:
        last = db.execute("SELECT COALESCE(MAX(id), 0) FROM history").fetchone()[0]
    except sqlite3.OperationalError as e:
        if "no such table" not in str(e):
            raise
        last = 0
    return (int(last), int(row[0]), int(row[1]), int(row[2]), _models_state(db),
            fingerprint(db))


def _models_state(db: Database) -> str:
    """A fingerprint of the models' runs and the prompts (every run's number and start,
    every prompt's code, text and stamp; "" in a file older than suggestions). Read whole,
    not as counts and latest stamps: two edits of a prompt within one tick of the clock,
    or a deleted last run whose number the next run takes again, leave those unchanged.
    Both tables hold a few rows a code or a run, so reading them costs little."""
    try:
        runs = db.execute(
            "SELECT run, COALESCE(started_at, '') FROM suggestion_runs ORDER BY run"
        ).fetchall()
        prompts = db.execute(
            "SELECT code, prompt, COALESCE(updated_at, '') FROM code_prompts ORDER BY code"
        ).fetchall()
    except sqlite3.OperationalError as e:
        if "no such table" not in str(e):
            raise
        return ""
    digest = hashlib.blake2b(digest_size=16)
    for row in (*runs, ("--",), *prompts):
        digest.update(repr(tuple(row)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def history_after(db: Database, last_id: int, limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` history rows written after ``last_id`` (kind, conversation_id,
    position, sentence), oldest first."""
    cols = ("kind", "conversation_id", "position", "sentence")
    return [dict(zip(cols, r, strict=True)) for r in db.execute(
        f"SELECT {', '.join(cols)} FROM history WHERE id > ? ORDER BY id LIMIT ?",
        [last_id, limit])]

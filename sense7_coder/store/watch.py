"""What another window or program wrote to the project since a mark: read from the history
table (which triggers fill for codings, done marks, memos, consensus, assignments, codes,
roles and settings) and from the conversations' and turns' row ids (imports, which the
history does not follow)."""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlite_utils import Database

#: (last history id, conversations, last conversation row id, last turn row id)
Mark = tuple[int, int, int, int]


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
    return int(last), int(row[0]), int(row[1]), int(row[2])


def history_after(db: Database, last_id: int, limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` history rows written after ``last_id`` (kind, conversation_id,
    position, sentence), oldest first."""
    cols = ("kind", "conversation_id", "position", "sentence")
    return [dict(zip(cols, r, strict=True)) for r in db.execute(
        f"SELECT {', '.join(cols)} FROM history WHERE id > ? ORDER BY id LIMIT ?",
        [last_id, limit])]

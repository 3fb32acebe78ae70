"""What another window or program wrote to the project since a mark: read from the history
table (which triggers fill for codings, done marks, memos, consensus, assignments, codes,
roles, settings and conversation attributes), from the conversations' and turns' row ids
(imports, which the history does not follow) and from the models' runs and prompts (which
the history does not follow either); the record of open windows changes no value shown."""

from __future__ import annotations

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
    """The runs (how many, the last) and the prompts (how many, the last edit) of the
    models, as one comparable text ("" in a file older than suggestions)."""
    try:
        row = db.execute(
            "SELECT (SELECT COUNT(*) FROM suggestion_runs), "
            "(SELECT COALESCE(MAX(run), 0) FROM suggestion_runs), "
            "(SELECT COUNT(*) FROM code_prompts), "
            "(SELECT COALESCE(MAX(updated_at), '') FROM code_prompts)").fetchone()
    except sqlite3.OperationalError as e:
        if "no such table" not in str(e):
            raise
        return ""
    return "/".join(str(v) for v in row)


def history_after(db: Database, last_id: int, limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` history rows written after ``last_id`` (kind, conversation_id,
    position, sentence), oldest first."""
    cols = ("kind", "conversation_id", "position", "sentence")
    return [dict(zip(cols, r, strict=True)) for r in db.execute(
        f"SELECT {', '.join(cols)} FROM history WHERE id > ? ORDER BY id LIMIT ?",
        [last_id, limit])]

"""SQL for the record of the windows open on a project file (table ``coder_windows``,
schema m013): one row per window, who codes in it and which program holds it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlite_utils import Database

COLUMNS = ("id", "coder", "host", "pid", "started_at")


def windows(db: Database) -> list[dict[str, Any]]:
    """Every window recorded, oldest first (none in a file older than m013)."""
    try:
        rows = db.execute(f"SELECT {', '.join(COLUMNS)} FROM coder_windows ORDER BY id")
    except sqlite3.OperationalError as e:
        if "no such table" not in str(e):
            raise
        return []
    return [dict(zip(COLUMNS, r, strict=True)) for r in rows]


def add(db: Database, coder: str, host: str, pid: int) -> int:
    """Record a window; its id. The caller holds the write transaction."""
    cur = db.execute(
        "INSERT INTO coder_windows(coder, host, pid, started_at) "
        "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))", [coder, host, pid])
    return int(cur.lastrowid or 0)


def set_coder(db: Database, window: int, coder: str) -> bool:
    """The window's coder is now ``coder``; False when its row is gone."""
    cur = db.execute("UPDATE coder_windows SET coder = ? WHERE id = ?", [coder, window])
    return cur.rowcount > 0


def remove(db: Database, ids: Sequence[int]) -> None:
    db.conn.executemany("DELETE FROM coder_windows WHERE id = ?", [(i,) for i in ids])


def fingerprint(db: Database) -> str:
    """Which windows are recorded, as one comparable text ("" before m013)."""
    try:
        row = db.execute("SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(MAX(id), 0) "
                         "FROM coder_windows").fetchone()
    except sqlite3.OperationalError as e:
        if "no such table" not in str(e):
            raise
        return ""
    return "/".join(str(v) for v in row)

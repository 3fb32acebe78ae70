"""Which coder codes which conversation (the ``assignments`` table of schema 5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from .codings import now

COLUMNS = ("coder", "conversation_id", "overlap", "ord", "assigned_at")


def all_assignments(db: Database) -> list[dict[str, Any]]:
    """Every assignment, by coder and the coder's presentation order."""
    return [dict(zip(COLUMNS, r, strict=True)) for r in db.execute(
        f"SELECT {', '.join('a.' + c for c in COLUMNS)} FROM assignments a "
        "JOIN conversations c ON c.conversation_id = a.conversation_id "
        "ORDER BY a.coder, a.ord, c.rowid"
    )]


def conversation_order(db: Database) -> list[tuple[int, str]]:
    """(rowid, conversation_id) of every conversation, in import order."""
    return [(r[0], r[1]) for r in db.execute(
        "SELECT rowid, conversation_id FROM conversations ORDER BY rowid")]


def conversations_of(db: Database, coder: str) -> list[str]:
    """The coder's assigned conversations in their presentation order."""
    return [r[0] for r in db.execute(
        "SELECT a.conversation_id FROM assignments a JOIN conversations c "
        "ON c.conversation_id = a.conversation_id WHERE a.coder = ? ORDER BY a.ord, c.rowid",
        [coder],
    )]


def insert(db: Database, rows: Iterable[tuple[str, str, int, int]]) -> int:
    """Add (coder, conversation_id, overlap, ord) rows; existing ones are left as they are."""
    stamp = now()
    cur = db.conn.executemany(
        "INSERT OR IGNORE INTO assignments(coder, conversation_id, overlap, ord, assigned_at) "
        "VALUES (?,?,?,?,?)",
        [(*r, stamp) for r in rows],
    )
    return int(cur.rowcount)


def progress(db: Database) -> list[dict[str, Any]]:
    """Per coder: assigned conversations, assistant turns in them, turns the coder marked done."""
    return [
        {"coder": r[0], "conversations": r[1], "overlap": r[2], "turns": r[3] or 0,
         "done": r[4] or 0}
        for r in db.execute(
            "SELECT a.coder, COUNT(*), SUM(a.overlap), "
            "SUM((SELECT COUNT(*) FROM turns t WHERE t.conversation_id = a.conversation_id "
            "AND t.role = 'assistant')), "
            "SUM((SELECT COUNT(*) FROM turn_status s JOIN turns t "
            "ON t.conversation_id = s.conversation_id AND t.position = s.position "
            "WHERE s.coder = a.coder AND s.conversation_id = a.conversation_id "
            "AND s.done = 1 AND t.role = 'assistant')) "
            "FROM assignments a GROUP BY a.coder ORDER BY a.coder"
        )
    ]


def insert_merged(db: Database) -> int:
    """The staged source's assignments this file lacks (for conversations it holds)."""
    cur = db.execute(
        "INSERT INTO assignments(coder, conversation_id, overlap, ord, assigned_at) "
        "SELECT s.coder, s.conversation_id, CASE WHEN s.overlap THEN 1 ELSE 0 END, "
        "CAST(s.ord AS INTEGER), s.assigned_at FROM temp.m_assignments s "
        "WHERE typeof(s.coder) = 'text' "
        "AND EXISTS (SELECT 1 FROM coders k WHERE k.name = s.coder) "
        "AND EXISTS (SELECT 1 FROM conversations c WHERE c.conversation_id = s.conversation_id) "
        "AND NOT EXISTS (SELECT 1 FROM assignments t WHERE t.coder = s.coder "
        "AND t.conversation_id = s.conversation_id)"
    )
    return int(cur.rowcount)


def reorder(db: Database, coder: str, conversation_ids: Iterable[str]) -> int:
    """Give ``coder``'s assignments the presentation order of ``conversation_ids``."""
    cur = db.conn.executemany(
        "UPDATE assignments SET ord = ? WHERE coder = ? AND conversation_id = ?",
        [(i, coder, cid) for i, cid in enumerate(conversation_ids, start=1)])
    return int(cur.rowcount)

"""The audit trail: the ``history`` table, written by the triggers of schema 5.

Every change to a coding, a done mark, a memo, a consensus decision, an assignment or a
code appends a row (``at, coder, action, kind, conversation_id, position, sentence, code,
before, after, source, actor``). ``action`` is ``set`` (no row before), ``change`` or
``clear`` (no row after); within a ``set`` or ``change`` a NULL value means "not
applicable". ``source`` and ``actor`` come from ``history_context``, which
:func:`stamp_context` fills at the start of each write transaction. Rows merged in from
another file keep their fields and carry that file's name in ``origin``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlite_utils import Database

from ..domain.rows import HISTORY_KINDS

COLUMNS = ("id", "at", "coder", "action", "kind", "conversation_id", "position", "sentence",
           "code", "before", "after", "source", "actor", "origin")
#: the columns that identify an event (two files holding the same event hold them equal)
EVENT = COLUMNS[1:13]
KINDS = HISTORY_KINDS
#: kinds a merge never brings: a merge changes neither this file's codebook, nor its
#: coders' roles, nor its settings, nor its conversations (what happened to them in a
#: package stays there)
LOCAL_KINDS = ("code", "role", "setting", "attribute")
ACTIONS = ("set", "change", "clear")


def stamp_context(db: Database, actor: str | None, source: str) -> None:
    """Who writes and why, for the triggers of this transaction (no-op before schema 5)."""
    try:
        # an upsert, so that a file whose context row was deleted by hand still records
        # who wrote instead of refusing every write
        db.execute("INSERT INTO history_context(id, actor, source) VALUES (1, ?, ?) "
                   "ON CONFLICT(id) DO UPDATE SET actor = excluded.actor, "
                   "source = excluded.source", [actor, source])
    except sqlite3.OperationalError as e:  # a file not yet upgraded has no such table
        if "no such table" not in str(e):
            raise


def record_identity(db: Database, before: str | None, after: str) -> None:
    """A history row saying who works at this file from now on (``before``: who did). The
    caller holds the write transaction, whose context names the source and actor."""
    db.execute(
        "INSERT INTO history(at, coder, action, kind, before, after, source, actor) "
        "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, 'identity', ?, ?, source, actor "
        "FROM history_context WHERE id = 1",
        [after, "set" if before is None else "change", before, after])


def rows(db: Database, conversation_id: str | None = None, position: int | None = None,
         kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """History rows in the order they were written (optionally of one conversation/turn)."""
    sql = f"SELECT {', '.join(COLUMNS)} FROM history"
    where: list[str] = []
    params: list[Any] = []
    if conversation_id is not None:
        where.append("conversation_id = ?")
        params.append(conversation_id)
    if position is not None:
        where.append("position = ?")
        params.append(position)
    if kinds:
        where.append(f"kind IN ({','.join('?' * len(kinds))})")
        params += list(kinds)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY id"
    return [dict(zip(COLUMNS, r, strict=True)) for r in db.execute(sql, params)]


def insert_merged(db: Database, origin: str) -> int:
    """Copy the staged source's history events this file does not hold yet.

    Only well-formed rows come in (a known kind and action, a time). Codebook events stay
    out: a merge never changes this file's codebook. The source's own
    ``origin`` is kept when it has one, else it becomes ``origin``.
    """
    on = " AND ".join(f"t.{c} IS s.{c}" for c in EVENT)
    cols = ", ".join(EVENT)
    kinds = ",".join(f"'{k}'" for k in KINDS)
    actions = ",".join(f"'{a}'" for a in ACTIONS)
    cur = db.execute(
        f"INSERT INTO history({cols}, origin) SELECT {', '.join('s.' + c for c in EVENT)}, "
        "COALESCE(s.origin, ?) FROM temp.m_history s "
        f"WHERE s.kind IN ({kinds}) AND s.action IN ({actions}) AND typeof(s.at) = 'text' "
        f"AND s.kind NOT IN ({','.join(repr(k) for k in LOCAL_KINDS)}) "
        "AND (s.position IS NULL OR typeof(s.position) = 'integer') "
        f"AND NOT EXISTS (SELECT 1 FROM history t WHERE {on}) ORDER BY s.id",
        [origin],
    )
    return int(cur.rowcount)

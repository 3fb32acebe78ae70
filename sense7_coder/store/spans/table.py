"""Coded spans (table ``spans``, migration m011): single statements and bulk reads.

The project layer wraps each action in one transaction, checks offsets against the turn's
text (:func:`sense7_coder.domain.rows.span`) and records it for undo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlite_utils import Database

from ...domain.spans import Span, SpanKey
from ..codings import MISSING, now

if TYPE_CHECKING:
    import pandas as pd

    from ..conversations import ConversationFilter

_COLUMNS = ("coder, conversation_id, position, start, end, code, value, memo, source, blind, "
            "origin")
_WHERE = ("coder = ? AND conversation_id = ? AND position = ? AND start = ? AND end = ? "
          "AND code = ?")


def _key(key: SpanKey) -> list[Any]:
    return [key.coder, key.conversation_id, key.position, key.start, key.end, key.code]


def _span(r: Any) -> Span:
    return Span(SpanKey(r[0], r[1], r[2], r[3], r[4], r[5]), r[6], r[7], r[8], bool(r[9]),
                r[10])


def get_span(db: Database, key: SpanKey) -> Span | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM spans WHERE {_WHERE}", _key(key)).fetchone()
    return None if row is None else _span(row)


def put_span(db: Database, span: Span) -> None:
    """Insert or replace one span (its value, memo and how it was made)."""
    db.execute(
        f"INSERT INTO spans({_COLUMNS}, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(coder, conversation_id, position, start, end, code) DO UPDATE SET "
        "value = excluded.value, memo = excluded.memo, source = excluded.source, "
        "blind = excluded.blind, origin = excluded.origin, updated_at = excluded.updated_at",
        [*_key(span.key), span.value, span.memo, span.source, int(span.blind), span.origin,
         now()],
    )


def delete_span(db: Database, key: SpanKey) -> None:
    db.execute(f"DELETE FROM spans WHERE {_WHERE}", _key(key))


def insert_spans(db: Database, spans: Iterable[Span]) -> int:
    """Bulk insert/replace (an import: the caller holds the transaction). A span already
    holding the same value keeps how and when it was made; a span without a memo (none or
    empty) keeps the memo the project holds."""
    stamp = now()
    data = [(*_key(s.key), s.value, s.memo, s.source, int(s.blind), s.origin, stamp)
            for s in spans]
    db.conn.executemany(
        f"INSERT INTO spans({_COLUMNS}, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(coder, conversation_id, position, start, end, code) DO UPDATE SET "
        "value = excluded.value, memo = COALESCE(NULLIF(excluded.memo, ''), spans.memo), "
        "source = excluded.source, blind = excluded.blind, origin = excluded.origin, "
        "updated_at = excluded.updated_at "
        "WHERE spans.value IS NOT excluded.value "
        "OR (COALESCE(excluded.memo, '') <> '' AND excluded.memo IS NOT spans.memo)",
        data,
    )
    return len(data)


def spans_of_conversation(db: Database, conversation_id: str, coder: str | None = None,
                          position: int | None = None) -> list[Span]:
    """The spans of a conversation (of one coder, of one turn), in text order."""
    sql = f"SELECT {_COLUMNS} FROM spans WHERE conversation_id = ?"
    params: list[Any] = [conversation_id]
    if position is not None:
        sql += " AND position = ?"
        params.append(position)
    if coder is not None:
        sql += " AND coder = ?"
        params.append(coder)
    sql += " ORDER BY position, start, end, code, coder"
    return [_span(r) for r in db.execute(sql, params)]


def all_spans(db: Database, code: str | None = None,
              conversation_ids: Iterable[str] | None = None) -> list[Span]:
    """Every span of the project (of one code; of some conversations), in text order."""
    sql = f"SELECT {_COLUMNS} FROM spans"
    params: list[Any] = []
    if code is not None:
        sql += " WHERE code = ?"
        params.append(code)
    sql += " ORDER BY conversation_id, position, start, end, code, coder"
    rows = [_span(r) for r in db.execute(sql, params)]
    if conversation_ids is not None:
        wanted = set(conversation_ids)
        rows = [s for s in rows if s.conversation_id in wanted]
    return rows


def count_spans(db: Database) -> int:
    return int(db.execute("SELECT count(*) FROM spans").fetchone()[0])


def spanned_turns(db: Database) -> list[tuple[str, str, int]]:
    """(coder, conversation_id, position) of every turn with at least one span."""
    return [(r[0], r[1], r[2]) for r in db.execute(
        "SELECT DISTINCT coder, conversation_id, position FROM spans")]


def mark_spans_merged(db: Database, after_rowid: int, origin: str) -> int:
    cur = db.execute("UPDATE spans SET source = 'merged', origin = ? WHERE rowid > ?",
                     [origin, after_rowid])
    return int(cur.rowcount)


__all__ = ["MISSING", "all_spans", "count_spans", "delete_span", "get_span", "insert_spans",
           "put_span", "spanned_turns", "spans_of_conversation"]


#: the columns of :func:`spans_frame`
SPAN_COLUMNS = ("coder", "conversation_id", "participant_id", "model", "position", "sentence",
                "role", "code", "value", "start", "end", "memo", "source", "blind", "origin",
                "updated_at")


def spans_frame(db: Database, *, codes: Sequence[str] = (), coders: Sequence[str] = (),
                conversations: ConversationFilter | None = None) -> pd.DataFrame:
    """Every span (of some codes, coders, conversations) with its conversation's
    participant and model and its turn's role, in conversation and text order."""
    import pandas as pd

    from ..frames import _chosen, _where

    where, params = _where(conversations, _chosen(codes, coders, "s."))
    sql = ("SELECT s.coder, s.conversation_id, c.participant_id, c.model, s.position, 0, "
           "t.role, s.code, s.value, s.start, s.end, s.memo, s.source, s.blind, s.origin, "
           "s.updated_at FROM spans s "
           "JOIN conversations c ON c.conversation_id = s.conversation_id "
           "LEFT JOIN turns t ON t.conversation_id = s.conversation_id "
           "AND t.position = s.position "
           "LEFT JOIN codes d ON d.key = s.code"
           f"{where} ORDER BY c.rowid, s.position, s.start, s.end, d.ord, s.code, s.coder")
    rows = db.execute(sql, params).fetchall()
    return pd.DataFrame([tuple(r) for r in rows], columns=list(SPAN_COLUMNS))

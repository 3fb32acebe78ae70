"""Predictions of empathy levels (conversation and turn level) and the LLM judge's answers.

Conversation-level scores live in ``predictions``, turn-level ones in ``turn_predictions``;
a predictor's stored scores at one level are replaced as a whole, so a re-run never mixes
with an older one. Writes run inside the caller's ``ProjectDB.atomic()``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database

from .conversations import ConversationFilter, _filter_sql

#: (conversation_id, position or None for conversation level, run, score, reasoning)
PredictionRow = tuple[str, int | None, int, float | None, str]


def replace_predictions(db: Database, predictor: str, level: str,
                        rows: Iterable[PredictionRow]) -> int:
    """Replace every stored score of ``predictor`` at ``level`` with ``rows``."""
    if level == "turn":
        db.execute("DELETE FROM turn_predictions WHERE predictor = ?", [predictor])
        sql = ("INSERT INTO turn_predictions (conversation_id, position, predictor, run, score, "
               "reasoning) VALUES (?, ?, ?, ?, ?, ?)")
        params: list[tuple[Any, ...]] = [(c, p, predictor, r, s, why)
                                         for c, p, r, s, why in rows]
    else:
        db.execute("DELETE FROM predictions WHERE predictor = ?", [predictor])
        sql = ("INSERT INTO predictions (conversation_id, predictor, run, score, reasoning) "
               "VALUES (?, ?, ?, ?, ?)")
        params = [(c, predictor, r, s, why) for c, _p, r, s, why in rows]
    db.conn.executemany(sql, params)
    return len(params)


def predictions(db: Database, level: str, predictor: str | None = None,
                conversations: ConversationFilter | None = None) -> list[dict[str, Any]]:
    """Stored scores: predictor, conversation_id, position (turn level), run, score."""
    where, params = _filter_sql(conversations or ConversationFilter())
    if predictor is not None:
        where += (" AND " if where else " WHERE ") + "p.predictor = ?"
        params.append(predictor)
    if level == "turn":
        sql = ("SELECT p.predictor, p.conversation_id, p.position, p.run, p.score "
               "FROM turn_predictions p JOIN conversations c "
               f"ON c.conversation_id = p.conversation_id{where} "
               "ORDER BY p.predictor, c.rowid, p.position, p.run")
        cols: tuple[str, ...] = ("predictor", "conversation_id", "position", "run", "score")
    else:
        sql = ("SELECT p.predictor, p.conversation_id, p.run, p.score "
               "FROM predictions p JOIN conversations c "
               f"ON c.conversation_id = p.conversation_id{where} "
               "ORDER BY p.predictor, c.rowid, p.run")
        cols = ("predictor", "conversation_id", "run", "score")
    return [dict(zip(cols, r, strict=True)) for r in db.execute(sql, params)]


def predictor_counts(db: Database) -> dict[str, dict[str, int]]:
    """predictor -> {"conversation": n, "turn": n} stored scores."""
    out: dict[str, dict[str, int]] = {}
    for level, table in (("conversation", "predictions"), ("turn", "turn_predictions")):
        if not db[table].exists():
            continue
        for name, n in db.execute(f"SELECT predictor, COUNT(*) FROM {table} GROUP BY predictor"):
            out.setdefault(name, {"conversation": 0, "turn": 0})[level] = int(n)
    return dict(sorted(out.items()))


def turn_texts(db: Database, conversations: ConversationFilter | None = None
               ) -> list[tuple[str, str | None, str | None, str | None, int, str, str]]:
    """Every turn: conversation_id, participant_id, model, topic, position, role, text,
    in import order."""
    where, params = _filter_sql(conversations or ConversationFilter())
    sql = ("SELECT t.conversation_id, c.participant_id, c.model, c.topic, t.position, t.role, "
           "t.text FROM turns t JOIN conversations c ON c.conversation_id = t.conversation_id"
           f"{where} ORDER BY c.rowid, t.position")
    return [tuple(r) for r in db.execute(sql, params)]


def turn_keys(db: Database, conversation_ids: Sequence[str] | None = None
              ) -> dict[tuple[str, int], str]:
    """(conversation_id, position) -> role of every turn."""
    rows = db.execute("SELECT conversation_id, position, role FROM turns")
    return {(c, p): r for c, p, r in rows}


def llm_answer(db: Database, request_key: str) -> tuple[str, float | None] | None:
    row = db.execute("SELECT reply, score FROM llm_answers WHERE request_key = ?",
                     [request_key]).fetchone()
    return (row[0], row[1]) if row else None


def save_llm_answer(db: Database, request_key: str, conversation_id: str, api_model: str,
                    run: int, reply: str, score: float | None) -> None:
    db.execute(
        "INSERT OR REPLACE INTO llm_answers (request_key, conversation_id, api_model, run, "
        "reply, score, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [request_key, conversation_id, api_model, run, reply, score,
         dt.datetime.now(dt.UTC).isoformat(timespec="seconds")],
    )


def conversation_table(db: Database, conversations: ConversationFilter | None = None
                       ) -> list[tuple[str, str | None, str | None, str | None, str]]:
    """conversation_id, participant_id, model, topic, attributes (JSON text), import order."""
    where, params = _filter_sql(conversations or ConversationFilter())
    sql = ("SELECT c.conversation_id, c.participant_id, c.model, c.topic, c.attributes "
           f"FROM conversations c{where} ORDER BY c.rowid")
    return [tuple(r) for r in db.execute(sql, params)]


def scores_of(db: Database, conversation_id: str, position: int
              ) -> list[tuple[str, str, float | None]]:
    """(predictor, 'turn' or 'conversation', mean score over runs) for one turn and its
    conversation."""
    rows = db.execute(
        "SELECT predictor, 'turn', AVG(score) FROM turn_predictions "
        "WHERE conversation_id = ? AND position = ? GROUP BY predictor "
        "UNION ALL SELECT predictor, 'conversation', AVG(score) FROM predictions "
        "WHERE conversation_id = ? GROUP BY predictor ORDER BY 1, 2 DESC",
        [conversation_id, position, conversation_id])
    return [(r[0], r[1], r[2]) for r in rows]

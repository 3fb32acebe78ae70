"""Rationales on single values (table ``value_rationales``, migration m018): one short text
per coder, unit and code. Who may read or write them is the project's (:mod:`..project.rationales`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlite_utils import Database

from ..domain.models import Unit
from .codings import now

RationaleKey = tuple[str, str, int, int, str]


def put(db: Database, coder: str, unit: Unit, code: str, text: str) -> None:
    """Set (or, with an empty ``text``, remove) ``coder``'s rationale of ``code`` on ``unit``."""
    key = [coder, unit.conversation_id, unit.position, unit.sentence, code]
    if not text:
        db.execute("DELETE FROM value_rationales WHERE coder = ? AND conversation_id = ? "
                   "AND position = ? AND sentence = ? AND code = ?", key)
        return
    db.execute(
        "INSERT INTO value_rationales(coder, conversation_id, position, sentence, code, text, "
        "updated_at) VALUES (?,?,?,?,?,?,?) "
        "ON CONFLICT(coder, conversation_id, position, sentence, code) "
        "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
        [*key, text, now()])


def of_conversations(db: Database, conversation_ids: Sequence[str] | None = None,
                     coder: str | None = None) -> dict[RationaleKey, str]:
    """(coder, conversation, position, sentence, code) -> text, for some conversations (None:
    all) and optionally one coder."""
    sql = ("SELECT coder, conversation_id, position, sentence, code, text "
           "FROM value_rationales WHERE 1 = 1")
    params: list[object] = []
    if conversation_ids is not None:
        sql += f" AND conversation_id IN ({', '.join('?' * len(conversation_ids))})"
        params += list(conversation_ids)
    if coder is not None:
        sql += " AND coder = ?"
        params.append(coder)
    out = {}
    for c, cid, pos, sent, code, text in db.execute(sql, params):
        if isinstance(text, str):  # a hand-edited non-text value is not shown as one
            out[(str(c), str(cid), int(pos), int(sent), str(code))] = text
    return out


def all_rows(db: Database) -> list[tuple[object, ...]]:
    return list(db.execute(
        "SELECT r.coder, r.conversation_id, r.position, r.sentence, r.code, k.value, r.text, "
        "r.updated_at FROM value_rationales r LEFT JOIN codings k ON k.coder = r.coder AND "
        "k.conversation_id = r.conversation_id AND k.position = r.position AND "
        "k.sentence = r.sentence AND k.code = r.code JOIN conversations c ON "
        "c.conversation_id = r.conversation_id ORDER BY c.rowid, r.position, r.sentence, "
        "r.code, r.coder"))

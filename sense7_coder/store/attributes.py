"""Conversation and turn attributes: the sheet of every conversation's attributes, a
lead's edit of one of them, and the attributes of turns for the exports.

Edits are followed by the history (migration ``m012_attributes``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlite_utils import Database

from .conversations import json_object

#: attributes kept in their own columns of ``conversations``
COLUMNS = ("participant_id", "model", "topic")


def sheet_rows(db: Database) -> Iterator[tuple[str, str | None, str | None, str | None,
                                               int, dict[str, Any]]]:
    """(conversation_id, participant_id, model, topic, n_turns, attributes) of every
    conversation in import order."""
    for r in db.execute("SELECT conversation_id, participant_id, model, topic, n_turns, "
                        "attributes FROM conversations ORDER BY rowid"):
        yield r[0], r[1], r[2], r[3], int(r[4] or 0), json_object(r[5])


def conversation_attributes(db: Database, conversation_id: str
                            ) -> dict[str, Any] | str | None:
    """The attributes object of one conversation (None: no such conversation; the stored
    text itself when it is not a JSON object: changed by another program)."""
    row = db.execute("SELECT attributes FROM conversations WHERE conversation_id = ?",
                     [conversation_id]).fetchone()
    if row is None:
        return None
    found = json_object(row[0])
    if not found and str(row[0]).strip() not in ("", "{}"):
        return str(row[0])
    return found


def get_column(db: Database, conversation_id: str, column: str) -> Any:
    if column not in COLUMNS:
        raise ValueError(column)
    row = db.execute(f"SELECT {column} FROM conversations WHERE conversation_id = ?",
                     [conversation_id]).fetchone()
    return None if row is None else row[0]


def put_column(db: Database, conversation_id: str, column: str, value: str | None) -> None:
    if column not in COLUMNS:
        raise ValueError(column)
    if column == "participant_id" and value is not None:
        db.execute("INSERT OR IGNORE INTO participants(participant_id) VALUES (?)", [value])
    db.execute(f"UPDATE conversations SET {column} = ? WHERE conversation_id = ?",
               [value, conversation_id])


def put_attributes(db: Database, conversation_id: str, attributes: dict[str, Any]) -> None:
    db.execute("UPDATE conversations SET attributes = ? WHERE conversation_id = ?",
               [json.dumps(attributes, ensure_ascii=False, sort_keys=True), conversation_id])


def turn_attributes(db: Database, conversation_ids: Iterable[str] | None = None
                    ) -> dict[tuple[str, int], dict[str, Any]]:
    """(conversation_id, position) -> the turn's attributes, for turns that have any."""
    wanted = None if conversation_ids is None else set(conversation_ids)
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for cid, pos, text in db.execute(
            "SELECT conversation_id, position, attributes FROM turns "
            "WHERE attributes IS NOT NULL AND attributes NOT IN ('', '{}')"):
        if wanted is not None and cid not in wanted:
            continue
        attrs = json_object(text)
        if attrs:
            out[(cid, int(pos))] = attrs
    return out


def turn_attribute_names(db: Database) -> list[str]:
    """Names of the attributes turns carry (ESConv's strategy and feedback...), sorted."""
    return [r[0] for r in db.execute(
        "SELECT DISTINCT j.key FROM turns t, json_each(t.attributes) j "
        "WHERE t.attributes IS NOT NULL AND t.attributes NOT IN ('', '{}') "
        "AND json_valid(t.attributes) AND json_type(t.attributes) = 'object' ORDER BY 1")]

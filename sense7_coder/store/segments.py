"""Retrieval: the coded units of a code (optionally of one value), with their text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlite_utils import Database

from .conversations import ConversationFilter, _filter_sql

COLUMNS = ("coder", "conversation_id", "position", "sentence", "code", "value", "text")


def coding_where(
    alias: str,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    value: Any = None,
    with_value: bool = False,
    conversations: ConversationFilter | None = None,
) -> tuple[str, list[Any]]:
    """The WHERE clause (empty when nothing is asked) and its parameters that keep the rows
    of table ``alias`` (codings or spans, joined to ``conversations c``) of some
    conversations, codes and coders, holding ``value`` when ``with_value``."""
    from .frames import _chosen, _where

    extra = _chosen(codes, coders, f"{alias}.")
    if with_value:
        extra.append((f"{alias}.value IS ?", [value]))
    return _where(conversations, extra)


def coded_segments(
    db: Database,
    *,
    codes: Sequence[str] = (),
    value: Any = None,
    with_value: bool = False,
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Codings with the text they apply to: the sentence's text for sentence codings, the
    turn's for turn codings, empty for whole conversations. ``with_value``: only codings
    holding ``value`` (None = not applicable)."""
    where, params = coding_where("k", codes=codes, coders=coders, value=value,
                                 with_value=with_value, conversations=conversations)
    yield from db.execute(
        "SELECT k.coder, k.conversation_id, k.position, k.sentence, k.code, k.value, "
        "CASE WHEN k.position = 0 THEN '' "
        "WHEN k.sentence > 0 AND s.start IS NOT NULL "
        "THEN substr(t.text, s.start + 1, s.end - s.start) ELSE t.text END "
        "FROM codings k JOIN conversations c ON c.conversation_id = k.conversation_id "
        "LEFT JOIN turns t ON t.conversation_id = k.conversation_id AND t.position = k.position "
        "LEFT JOIN sentences s ON s.conversation_id = k.conversation_id "
        "AND s.position = k.position AND s.sentence = k.sentence"
        f"{where} ORDER BY c.rowid, k.position, k.sentence, k.code, k.coder",
        params,
    )


def turn_texts(db: Database, conversations: ConversationFilter | None = None
               ) -> Iterator[tuple[str, int, str]]:
    """(conversation_id, position, text) of every turn."""
    sql, params = _filter_sql(conversations or ConversationFilter())
    yield from db.execute(
        "SELECT t.conversation_id, t.position, t.text FROM turns t JOIN conversations c "
        f"ON c.conversation_id = t.conversation_id{sql}", params)


def sentence_spans(db: Database) -> Iterator[tuple[str, int, int, int, int]]:
    """(conversation_id, position, sentence, start, end) of every stored sentence."""
    yield from db.execute("SELECT conversation_id, position, sentence, start, end FROM sentences")


def conversation_meta(db: Database) -> Iterator[tuple[str, str | None, str | None]]:
    """(conversation_id, participant_id, model) of every conversation."""
    yield from db.execute("SELECT conversation_id, participant_id, model FROM conversations")

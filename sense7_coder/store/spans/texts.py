"""Spans read with their turn's text, for retrieval, queries and exports."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlite_utils import Database

from ..conversations import ConversationFilter
from ..segments import coding_where


def coded_spans(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    value: Any = None,
    with_value: bool = False,
    conversations: ConversationFilter | None = None,
) -> Iterator[tuple[str, str, int, int, int, str, Any, str, str]]:
    """(coder, conversation_id, position, start, end, code, value, memo, turn text) of
    every span (of some codes, coders, conversations; holding ``value`` when
    ``with_value``), in conversation order, then turn, offsets, code, coder."""
    where, params = coding_where("s", codes=codes, coders=coders, value=value,
                                 with_value=with_value, conversations=conversations)
    yield from db.execute(
        "SELECT s.coder, s.conversation_id, s.position, s.start, s.end, s.code, s.value, "
        "s.memo, COALESCE(t.text, '') FROM spans s "
        "JOIN conversations c ON c.conversation_id = s.conversation_id "
        "LEFT JOIN turns t ON t.conversation_id = s.conversation_id "
        "AND t.position = s.position"
        f"{where} ORDER BY c.rowid, s.position, s.start, s.end, s.code, s.coder",
        params,
    )

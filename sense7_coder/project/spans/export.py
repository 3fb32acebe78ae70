"""Spans in the ``long`` export: one row per span, with ``start`` and ``end``.

A long export of a codebook with span codes gains the columns ``start`` and ``end``
(code-point offsets into the turn's text, end exclusive; empty on the other rows) and one
row per span after the other codings; ``import-codings`` reads such a file back. With
``--provenance`` a span row carries how it was made like any coding (``set_at`` is when
it was last changed); with turn text, the span's own stretch of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...domain.export.tables import LONG_COLUMNS, categorical
from ...store.spans import table as store_spans

if TYPE_CHECKING:
    import pandas as pd

    from ...store.conversations import ConversationFilter
    from ..project import Project


def long_with_spans(project: Project, table: pd.DataFrame, keys: list[str],
                    coders: Sequence[str],
                    conversations: ConversationFilter | None) -> pd.DataFrame:
    """``table`` (a long export) with the spans of the span codes among ``keys`` (none
    named: every active span code)."""
    import pandas as pd

    book = project.codebook
    named = keys or [c.key for c in book.active]
    span_keys = [k for k in named if (c := book.get(k)) is not None and c.unit == "span"]
    if not span_keys:
        return table
    spans = store_spans.spans_frame(project.db, codes=span_keys, coders=list(coders),
                                    conversations=conversations)
    labels = []
    for key, value in zip(spans["code"], spans["value"], strict=True):
        code = book.get(key)
        labels.append(code.level_label(value) if code is not None else None)
    rows = pd.DataFrame({
        "coder": spans["coder"], "conversation_id": spans["conversation_id"],
        "participant_id": spans["participant_id"], "model": spans["model"],
        "turn": spans["position"], "sentence": None, "role": spans["role"],
        "code": spans["code"], "value": spans["value"], "level_label": labels,
        "user_rating": None,
        "user_rating_na": None,
    }, columns=list(LONG_COLUMNS))
    extra = {"source": spans["source"], "blind": spans["blind"], "after_reveal": 0,
             "set_at": spans["updated_at"], "origin": spans["origin"]}
    for column in table.columns:
        if column not in rows.columns:
            rows[column] = extra.get(column)
    if "text" in table.columns:
        rows["text"] = _span_texts(project, spans)
    both = pd.concat([table.astype(object), rows[table.columns].astype(object)],
                     ignore_index=True)
    for column in ("start", "end"):
        both[column] = pd.array([None] * len(table) + [int(v) for v in spans[column]],
                                dtype="Int64")
    for column in ("coder", "conversation_id", "code", "role", "model", "participant_id"):
        both[column] = categorical(both[column])
    return both


def _span_texts(project: Project, spans: pd.DataFrame) -> list[str | None]:
    from ...store import conversations as store_conv

    cache: dict[tuple[str, int], str | None] = {}
    out = []
    for cid, pos, start, end in zip(spans["conversation_id"], spans["position"],
                                    spans["start"], spans["end"], strict=True):
        if (cid, pos) not in cache:
            cache[(cid, pos)] = store_conv.turn_text(project.db, cid, int(pos))
        text = cache[(cid, pos)]
        out.append(None if text is None else text[int(start):int(end)])
    return out

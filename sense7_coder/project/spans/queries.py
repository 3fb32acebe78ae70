"""Spans for retrieval, the ``segments`` export and the co-occurrence of overlapping
spans: each span's text and some context around it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...store.conversations import ConversationFilter
from ...store.spans import texts as span_rows
from ..agreement import check_request
from ..project import Project
from ..selection import Selection

#: characters of context shown on each side of a span
CONTEXT = 60


def context_of(text: str, start: int, end: int, width: int = CONTEXT) -> str:
    """The span in its turn: up to ``width`` characters each side, the span in «»."""
    before = text[max(0, start - width):start]
    after = text[end:end + width]
    lead = "…" if start - width > 0 else ""
    tail = "…" if end + width < len(text) else ""
    return " ".join(f"{lead}{before}«{text[start:end]}»{after}{tail}".split())


def span_rows_of(project: Project, *, codes: list[str] | None = None,
                 coders: list[str] | None = None, value: Any = None,
                 with_value: bool = False, conversations: ConversationFilter | None = None
                 ) -> list[tuple[Any, ...]]:
    """(coder, conversation_id, turn, start, end, code, value, text, context) of spans."""
    out = []
    for coder, cid, pos, start, end, key, val, _memo, text in span_rows.coded_spans(
            project.db, codes=codes or (), coders=coders or (), value=value,
            with_value=with_value, conversations=conversations):
        out.append((coder, cid, pos, start, end, key, val, text[start:end],
                    context_of(text, start, end)))
    return out


def query_codes(project: Project, selection: Selection) -> list[Code]:
    """The codes a query or retrieval counts: those asked for, else every active code,
    span codes too (the agreement's choice leaves span codes out: they have figures of
    their own). The filters' names are checked as the agreement checks them."""
    book = project.codebook
    if selection.codes:
        if any(book.get(k) is None for k in selection.codes):
            check_request(project, selection)  # refuses, naming the unknown code
        codes = [c for k in dict.fromkeys(selection.codes) if (c := book.get(k)) is not None]
    else:
        codes = list(book.active)
    plain = tuple(c.key for c in codes if c.unit != "span")
    if plain:
        check_request(project, replace(selection, codes=plain))
    else:
        names = {c["name"] for c in project.coders()}
        unknown = [c for c in selection.coders if c not in names]
        if unknown:
            raise ProjectError(f"no coder '{unknown[0]}' in this project")
    return codes


def span_frame(project: Project, selection: Selection) -> tuple[list[str], pd.DataFrame]:
    """The chosen span codes and their spans (``conversation_id, position, start, end,
    code``) by the chosen coders in the chosen conversations."""
    keys = [c.key for c in query_codes(project, selection) if c.unit == "span"]
    found = span_rows_of(project, codes=keys, coders=list(selection.coders),
                         conversations=selection.conversation_filter()) if keys else []
    frame = pd.DataFrame([(r[1], r[2], r[3], r[4], r[5]) for r in found],
                         columns=["conversation_id", "position", "start", "end", "code"])
    return keys, frame

"""Queries over a project's codings, as tables the window shows and ``export`` writes:

* ``cooccurrence`` -- codes x codes (see :mod:`sense7_coder.domain.cooccurrence`), in one
  of the scopes ``turn`` (both codes present in the same turn), ``conversation`` (in the
  same conversation) or ``span`` (overlapping spans);
* ``codes-by-attribute`` -- codes x the values of one conversation attribute (``model``,
  ``participant_id``, ``topic`` or any imported attribute): in how many turns (or
  conversations, for conversation-level codes) each code is present.

Both count what the chosen coders (default: all) applied, so they show what blind coding
hides: only a lead, or anyone in a project that does not code blind, may run them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..domain import cooccurrence as co
from ..domain.attributes import shown
from ..domain.errors import ProjectError
from ..store import attributes as store_attrs
from ..store import frames
from .project import Project
from .selection import Selection

QUERY_KINDS = ("cooccurrence", "codes-by-attribute")
SCOPES = co.SCOPES


def _present(project: Project, selection: Selection) -> tuple[list[str], pd.DataFrame]:
    from .spans.queries import query_codes

    selected = query_codes(project, selection)
    keys = [c.key for c in selected]
    codings = frames.codings_frame(project.db, codes=keys, coders=selection.coders,
                                   conversations=selection.conversation_filter())
    binary = {c.key for c in selected if c.kind == "binary"}
    present = co.presences(codings, binary)
    if any(c.unit == "span" for c in selected):  # a span code is present in its turn
        from .spans.queries import span_frame

        _keys, spans = span_frame(project, selection)
        present = pd.concat([present, spans[["conversation_id", "position", "code"]]],
                            ignore_index=True).drop_duplicates().reset_index(drop=True)
    return keys, present


def cooccurrence_table(project: Project, selection: Selection | None = None,
                       scope: str = "turn") -> pd.DataFrame:
    selection = selection or Selection()
    project.require_unblinded("see which codes occur together (it shows every coder's codes)")
    if scope not in SCOPES:
        raise ProjectError(f"the scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if scope == "span":
        return _span_table(project, selection)
    keys, present = _present(project, selection)
    return co.cooccurrence(present, keys, scope)


def _span_table(project: Project, selection: Selection) -> pd.DataFrame:
    from .spans import queries as span_queries

    keys, spans = span_queries.span_frame(project, selection)
    return co.span_cooccurrence(spans, keys)


def attribute_values(project: Project, name: str) -> dict[str, Any]:
    """conversation id -> the value of attribute ``name`` (a column or an imported one)."""
    if project.hides(name):
        raise ProjectError(f"'{name}' is hidden from coders working blind")
    out: dict[str, Any] = {}
    known = False
    for cid, pid, model, topic, _n, attributes in store_attrs.sheet_rows(project.db):
        fixed = {"participant_id": pid, "model": model, "topic": topic}
        if name in fixed:
            known = True
            value = fixed[name]
        else:
            known = known or name in attributes
            value = attributes.get(name)
        out[cid] = None if value is None else shown(value)  # 4.0 and 4 are one value
    if not known and out:
        names = sorted({"participant_id", "model", "topic",
                        *(k for *_, a in store_attrs.sheet_rows(project.db) for k in a)})
        raise ProjectError(f"no conversation has the attribute '{name}' (there are: "
                           f"{', '.join(names)})")
    return out


def codes_by_attribute_table(project: Project, by: str = "model",
                             selection: Selection | None = None) -> pd.DataFrame:
    selection = selection or Selection()
    project.require_unblinded("tabulate codes by an attribute (it shows every coder's codes)")
    values = attribute_values(project, by)
    keys, present = _present(project, selection)
    return co.code_by_attribute(present, keys, values)


def query_table(project: Project, kind: str, selection: Selection,
                scope: str = "turn", by: str = "model") -> pd.DataFrame:
    if kind == "cooccurrence":
        return cooccurrence_table(project, selection, scope)
    if kind == "codes-by-attribute":
        return codes_by_attribute_table(project, by, selection)
    raise ProjectError(f"no query kind {kind!r}")

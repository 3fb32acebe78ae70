"""Queries over codings: which codes occur together, and how codes spread over an attribute.

* :func:`cooccurrence` -- a codes x codes matrix: in how many units (turns, or whole
  conversations) both codes are present (the diagonal: in how many the code is). A code is
  present in a unit when any of the chosen coders applied it there: a binary code with 1,
  any other code with a value (not "not applicable"). Sentence codes count at their turn;
  in the conversation scope every unit counts at its conversation.
* :func:`span_cooccurrence` -- a codes x codes matrix of overlapping spans: how many
  pairs of spans of the two codes share at least one character of a turn (the diagonal:
  how many spans the code has). Spans of one code that overlap each other are not counted
  off the diagonal.
* :func:`code_by_attribute` -- codes x the values of one conversation attribute: in how
  many units the code is present in conversations with that value.

Every table is a DataFrame whose first column is ``code`` (the row's code), so that it is
written as it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

SCOPES = ("turn", "conversation", "span")


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def presences(codings: pd.DataFrame, binary: Iterable[str]) -> pd.DataFrame:
    """The rows of ``codings`` (``conversation_id, position, code, value``) where the code
    is present: ``conversation_id, position, code``, each unit and code once."""
    if not len(codings):
        return pd.DataFrame(columns=["conversation_id", "position", "code"])
    binary = set(binary)
    code = codings["code"].astype(str)
    value = codings["value"]
    present = []
    for k, v in zip(code, value, strict=True):
        if _missing(v):
            present.append(False)
        elif k in binary:
            present.append(str(v).strip() in ("1", "1.0", "True", "true"))
        else:
            present.append(True)
    kept = codings.loc[present, ["conversation_id", "position", "code"]].astype(
        {"conversation_id": str, "code": str})
    kept["position"] = kept["position"].astype(int)
    return kept.drop_duplicates().reset_index(drop=True)


def _square(counts: pd.DataFrame, codes: Sequence[str]) -> pd.DataFrame:
    counts = counts.reindex(index=list(codes), columns=list(codes), fill_value=0).fillna(0)
    table = counts.astype(int)
    table.insert(0, "code", list(codes))
    return table.reset_index(drop=True)


def cooccurrence(present: pd.DataFrame, codes: Sequence[str], scope: str = "turn"
                 ) -> pd.DataFrame:
    """Units (``scope`` turn or conversation) in which both codes are present."""
    if scope not in ("turn", "conversation"):
        raise ValueError(f"scope must be turn or conversation, got {scope!r}")
    unit = ["conversation_id", "position"] if scope == "turn" else ["conversation_id"]
    p = present[present["code"].isin(list(codes))]
    if not len(p):
        return _square(pd.DataFrame(), codes)
    marks = p[[*unit, "code"]].drop_duplicates()
    marks = marks.assign(_unit=marks[unit].astype(str).agg("\x1f".join, axis=1))
    indicator = pd.crosstab(marks["_unit"], marks["code"]).clip(upper=1)
    return _square(indicator.T @ indicator, codes)


def span_cooccurrence(spans: pd.DataFrame, codes: Sequence[str]) -> pd.DataFrame:
    """Pairs of overlapping spans (``conversation_id, position, start, end, code``; end
    exclusive) of two codes; the diagonal counts each code's spans."""
    s = spans[spans["code"].astype(str).isin(list(codes))].reset_index(drop=True)
    s = s.assign(_id=range(len(s)), code=s["code"].astype(str),
                 conversation_id=s["conversation_id"].astype(str))
    counts = pd.DataFrame(0, index=list(codes), columns=list(codes))
    for key, n in s["code"].value_counts().items():
        counts.loc[key, key] = int(n)
    if len(s) > 1:
        pairs = s.merge(s, on=["conversation_id", "position"], suffixes=("_a", "_b"))
        pairs = pairs[(pairs["_id_a"] != pairs["_id_b"])
                      & (pairs["code_a"] != pairs["code_b"])
                      & (pairs["start_a"] < pairs["end_b"])
                      & (pairs["start_b"] < pairs["end_a"])]
        for (a, b), n in pairs.groupby(["code_a", "code_b"]).size().items():
            counts.loc[a, b] = int(n)
    return _square(counts, codes)


def code_by_attribute(present: pd.DataFrame, codes: Sequence[str],
                      attribute: Mapping[str, Any], missing: str = "(none)") -> pd.DataFrame:
    """Units in which each code is present, by the value ``attribute`` (conversation id ->
    value) gives their conversation; conversations without it under ``missing``."""
    p = present[present["code"].isin(list(codes))]
    values = [missing if _missing(v := attribute.get(c)) or v == "" else str(v)
              for c in p["conversation_id"]]
    every = sorted({missing if _missing(v) or v == "" else str(v)
                    for v in attribute.values()}, key=lambda v: (v == missing, v.casefold()))
    if len(p):
        table = pd.crosstab(p["code"].to_numpy(), pd.Series(values, dtype=object).to_numpy())
    else:
        table = pd.DataFrame()
    table = table.reindex(index=list(codes), columns=every, fill_value=0).fillna(0).astype(int)
    table.insert(0, "code", list(codes))
    table.columns.name = None
    return table.reset_index(drop=True)

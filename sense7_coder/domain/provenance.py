"""How each value was made, as export columns, and the final dataset (pure pandas).

Every coding and consensus value records its ``source``: ``coded`` (set in the window or
through the API), ``imported`` (``import-codings``, rater files), ``merged`` (from another
project file), ``suggestion_accepted`` (a model's suggestion the coder took),
``majority`` (the coders' strict majority, accepted as the consensus) or ``adjudicated``
(decided by an adjudicator); ``blind`` (its coder worked blind to the others' values as
it was set), ``after_reveal`` (a blind coder changed it after the turn was revealed to
them: the blind value stays beside it), ``set_at`` and ``origin`` (the file a merged or
imported value came from).

The final dataset (export kind ``final``) has one row per unit and code: the consensus
where there is one; else, for a unit only one coder coded, that coder's (latest) value;
else ``unresolved``, with every coder's value in ``values``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .codebook.codes import Codebook
from .export.tables import CONSENSUS_COLUMNS, NA_FLAG, NA_TEXT, UNIT_META, categorical

SOURCES = ("coded", "imported", "merged", "suggestion_accepted", "majority", "adjudicated")
#: the source of a final row no one has resolved yet
UNRESOLVED = "unresolved"
PROVENANCE = ("source", "blind", "after_reveal", "set_at", "origin")
KEY = ("coder", "conversation_id", "position", "sentence", "code")
FINAL_COLUMNS = (
    *UNIT_META, "code", "value", "level_label", "source", "decided_by", "blind",
    "after_reveal", "set_at", "origin", "values", "user_rating", "user_rating_na",
)


def _key_index(frame: pd.DataFrame, key: Sequence[str] = KEY) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [np.asarray(frame[k], dtype=np.int64) if k in ("position", "sentence")
         else np.asarray(frame[k], dtype=object).astype(str) for k in key])


def _take(values: Any, at: np.ndarray, default: object) -> np.ndarray:
    """``values[at]`` as objects, ``default`` where ``at`` is -1 (no such row)."""
    out = np.empty(len(at), dtype=object)
    out.fill(default)
    hit = at >= 0
    out[hit] = np.asarray(values, dtype=object)[at[hit]]
    return out


def aligned(codings: pd.DataFrame, provenance: pd.DataFrame) -> pd.DataFrame:
    """``provenance`` (one row per coding key) in the row order of ``codings``; a coding
    with no such row (none should be) reads as coded, not blind."""
    at = _key_index(provenance).get_indexer(_key_index(codings))
    out = {}
    for column, default in (("source", "coded"), ("blind", 0), ("set_at", None),
                            ("origin", None)):
        out[column] = _take(provenance[column], at, default)
    frame = pd.DataFrame(out, index=codings.index)
    # 1 or 0 as the file says (a hand-edited file may say anything: not 1 reads as 0)
    frame["blind"] = np.array([1 if v == 1 else 0 for v in frame["blind"]], dtype=np.int64)
    return frame


def long_with_provenance(table: pd.DataFrame, codings: pd.DataFrame,
                         provenance: pd.DataFrame, revised_table: pd.DataFrame,
                         revised: pd.DataFrame) -> pd.DataFrame:
    """The ``long`` export with the provenance columns, and a second row (``after_reveal``
    1) for each value a coder changed after the reveal, right after its blind value."""
    prov = aligned(codings, provenance)
    table = table.copy()
    table["source"] = categorical(prov["source"])
    table["blind"] = prov["blind"].to_numpy()
    table["after_reveal"] = 0
    table["set_at"] = prov["set_at"].to_numpy()
    table["origin"] = categorical(prov["origin"])
    if revised.empty:
        return table
    extra = revised_table.copy()
    extra["source"] = "coded"
    extra["blind"] = 0
    extra["after_reveal"] = 1
    extra["set_at"] = revised["set_at"].to_numpy()
    extra["origin"] = None
    # the blind value of the same key first (a revision of an empty blind value: at the end)
    at = _key_index(codings).get_indexer(_key_index(revised))
    order = np.concatenate([np.arange(len(table), dtype=np.float64),
                            np.where(at >= 0, at + 0.5, len(table) + np.arange(len(at)))])
    both = pd.concat([table.astype(object), extra[table.columns].astype(object)],
                     ignore_index=True)
    return both.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)


def wide_with_provenance(table: pd.DataFrame, codings: pd.DataFrame,
                         provenance: pd.DataFrame, revised: pd.DataFrame) -> pd.DataFrame:
    """The ``wide`` export with, after each ``<code>__<coder>`` column, its provenance
    as ``<code>__<coder>__source``, ``__blind``, ``__set_at``, ``__origin`` and
    ``__after_reveal`` (the value changed after the reveal; empty when none)."""
    keys = ["conversation_id", "position", "sentence"]
    prov = aligned(codings, provenance)
    cells = pd.DataFrame({k: np.asarray(codings[k], dtype=object) for k in keys})
    cells["column"] = (np.asarray(codings["code"], dtype=object).astype(str) + "__"
                       + np.asarray(codings["coder"], dtype=object).astype(str))
    for column in ("source", "blind", "set_at", "origin"):
        cells[column] = prov[column].to_numpy()
    if not revised.empty:
        rev = pd.DataFrame({k: np.asarray(revised[k], dtype=object) for k in keys})
        rev["column"] = (revised["code"].astype(str) + "__" + revised["coder"].astype(str)
                         ).to_numpy()
        rev["after_reveal"] = [NA_TEXT if v is None else v for v in revised["value"]]
    unit = pd.DataFrame({
        "conversation_id": table["conversation_id"].astype(object).to_numpy(),
        "position": pd.to_numeric(table["turn"].astype(object), errors="coerce")
        .fillna(0).astype(np.int64).to_numpy(),
        "sentence": pd.to_numeric(table["sentence"].astype(object), errors="coerce")
        .fillna(0).astype(np.int64).to_numpy(),
    })
    out = table.copy()
    value_columns = [c for c in table.columns if c not in UNIT_META
                     and not (c.endswith(NA_FLAG) and c[:-len(NA_FLAG)] in table.columns)]
    added: dict[str, Any] = {}
    for column in ("source", "blind", "set_at", "origin", "after_reveal"):
        src = cells if column != "after_reveal" else (rev if not revised.empty else None)
        if src is None:
            grid = pd.DataFrame(index=pd.MultiIndex.from_frame(unit))
        else:
            src = src.assign(position=src["position"].astype(np.int64),
                             sentence=src["sentence"].astype(np.int64))
            grid = src.pivot(index=keys, columns="column", values=column)
        at = grid.index.get_indexer(pd.MultiIndex.from_frame(unit)) if len(grid) else \
            np.full(len(unit), -1)
        for name in value_columns:
            values: Any = _take(grid[name] if name in grid.columns
                                else np.full(len(grid), None, dtype=object), at, None)
            if column == "blind":
                values = pd.array([None if _missing(v) else int(v) for v in values],
                                  dtype="Int64")
            added[f"{name}__{column}"] = values
    ordered = list(UNIT_META)
    for name in value_columns:
        ordered.append(name)
        for column in ("source", "blind", "set_at", "origin", "after_reveal"):
            out[f"{name}__{column}"] = added[f"{name}__{column}"]
            ordered.append(f"{name}__{column}")
    return out[ordered]


def consensus_with_provenance(table: pd.DataFrame, consensus: pd.DataFrame) -> pd.DataFrame:
    """The ``consensus`` export with its provenance columns (a decision is never blind nor
    made after a reveal; it was set when it was decided)."""
    table = table.copy()
    table["source"] = categorical(consensus["source"].astype(object))
    table["blind"] = 0
    table["after_reveal"] = 0
    table["set_at"] = consensus["decided_at"].to_numpy(dtype=object)
    table["origin"] = categorical(consensus["origin"].astype(object))
    return table[[*CONSENSUS_COLUMNS, *PROVENANCE]]


def _joined(frame: pd.DataFrame, columns: Sequence[str]) -> pd.Series:
    """The text of ``columns`` of each row, joined (a key of the row)."""
    out = frame[columns[0]].map(_shown)
    for column in columns[1:]:
        out = out + "\x1f" + frame[column].map(_shown)
    return out


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _shown(value: object) -> str:
    return NA_TEXT if value is None else str(value)


def final_table(long: pd.DataFrame, consensus: pd.DataFrame, codebook: Codebook
                ) -> pd.DataFrame:
    """The final dataset from the ``long`` export with provenance (each coder's latest
    value: after-reveal rows replace the blind ones) and the ``consensus`` export with
    provenance: one row per unit and code (see the module notes)."""
    unit = ["conversation_id", "turn", "sentence", "code"]
    decided = consensus.astype(object).rename(columns={"adjudicator": "decided_by"})
    decided["values"] = ""
    parts = [decided.reindex(columns=list(FINAL_COLUMNS))]
    coded = long.astype(object)
    if len(coded):
        # each coder's latest value of a unit: the change after the reveal over the blind one
        coded["_unit"] = _joined(coded, unit)
        coded["_key"] = coded["_unit"] + "\x1f" + coded["coder"].astype(str)
        latest = coded.sort_values("after_reveal", kind="stable").drop_duplicates(
            "_key", keep="last")
        latest = latest[~latest["_unit"].isin(set(_joined(decided, unit)))]
        n = latest.groupby("_unit", sort=False)["_unit"].transform("size")
        single = latest[n == 1].rename(columns={"coder": "decided_by"})
        single = single.assign(values="").reindex(columns=list(FINAL_COLUMNS))
        several = latest[n > 1].sort_values("coder", kind="stable", key=lambda c: c.astype(str))
        listed: dict[str, list[str]] = {}
        for key, pair in zip(several["_unit"].tolist(),
                             (several["coder"].astype(str) + "="
                              + several["value"].map(_shown)).tolist(), strict=True):
            listed.setdefault(key, []).append(pair)
        open_units = several.drop_duplicates("_unit")
        open_units = open_units.assign(values=["; ".join(listed[k]) for k in open_units["_unit"]])
        open_units["source"] = UNRESOLVED
        for column in ("value", "level_label", "decided_by", "blind", "after_reveal",
                       "set_at", "origin"):
            open_units[column] = None
        parts += [single, open_units.reindex(columns=list(FINAL_COLUMNS))]
    table = pd.concat([p.astype(object) for p in parts if len(p)] or [parts[0]],
                      ignore_index=True)
    for column in ("blind", "after_reveal"):  # 0/1, empty for an unresolved row
        table[column] = pd.array([None if _missing(v) else int(v) for v in table[column]],
                                 dtype="Int64")
    if len(table):
        # conversations in the order the exports give them, then turn, sentence, codebook
        seen = [*long["conversation_id"].astype(str), *consensus["conversation_id"].astype(str)]
        conversation = {cid: i for i, cid in enumerate(dict.fromkeys(seen))}
        code_rank = {c.key: i for i, c in enumerate(codebook.codes)}

        def number(column: str) -> np.ndarray:
            return pd.to_numeric(table[column].astype(object), errors="coerce").fillna(0
                                                                                     ).to_numpy()

        at = np.lexsort((
            table["code"].astype(str).map(lambda k: code_rank.get(k, len(code_rank))).to_numpy(),
            number("sentence"), number("turn"),
            table["conversation_id"].astype(str).map(conversation).to_numpy()))
        table = table.iloc[at].reset_index(drop=True)
    return table


def source_counts(table: pd.DataFrame) -> dict[str, int]:
    """How many rows of a final dataset came from each source (every source named)."""
    counts = table["source"].astype(object).value_counts()
    return {s: int(counts.get(s, 0)) for s in (*SOURCES, UNRESOLVED)}

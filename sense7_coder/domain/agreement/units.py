"""Units and raters as integers: one number per unit (conversation, turn, sentence) and the
long table (unit, coder, value) every agreement figure is computed on.

A unit packs into one 64-bit integer, the conversation's number in the high 32 bits, the
turn's position and the sentence's number in 16 bits each; positions or sentence numbers
beyond 65,535 fall back to numbering the units' text keys. Numbers are comparable within
one table only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def unit_key(frame: pd.DataFrame) -> pd.Series:
    """One text key per unit (conversation id, turn and sentence), for the agreement tables."""
    return (
        frame["conversation_id"].astype(str) + "\x1f" + frame["position"].astype(str)
        + "\x1f" + frame["sentence"].astype(str)
    )


def _codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and their values (a Categorical's own, else factorized)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(dtype=np.int64), pd.Index(column.cat.categories)
    codes, uniques = pd.factorize(column.to_numpy(dtype=object))
    return codes.astype(np.int64), pd.Index(uniques, dtype=object)


def _joined_codes(columns: Sequence[pd.Series], text: bool) -> tuple[np.ndarray, pd.Index]:
    """One code per row over several columns (equal values, equal codes): the union of
    their values and each column's codes mapped into it (``text``: values as str)."""
    parts = [_codes(c) for c in columns]
    if text:
        parts = [(codes, pd.Index([str(v) for v in values], dtype=object))
                 for codes, values in parts]
    union = pd.Index(np.concatenate([values.to_numpy(dtype=object) for _, values in parts])
                     if parts else np.array([], dtype=object), dtype=object).unique()
    out = [np.append(union.get_indexer(values), -1)[codes] for codes, values in parts]
    return (np.concatenate(out) if out else np.zeros(0, dtype=np.int64)), union


def rater_table(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """unit, coder, value of several frames (coder, conversation_id, position, sentence,
    value) one after the other: the units as :func:`unit_ids` of their concatenation and
    the coders as a Categorical of their names as text."""
    position = np.concatenate([p["position"].to_numpy(dtype=np.int64) for p in parts])
    sentence = np.concatenate([p["sentence"].to_numpy(dtype=np.int64) for p in parts])
    if len(position) and (position.max() >= 1 << 16 or sentence.max() >= 1 << 16):
        table = pd.concat(parts, ignore_index=True)
        return pd.DataFrame({"unit": unit_ids(table), "coder": table["coder"].astype(str),
                             "value": table["value"].astype(object)})
    conv, _ = _joined_codes([p["conversation_id"] for p in parts], text=False)
    coder, names = _joined_codes([p["coder"] for p in parts], text=True)
    return pd.DataFrame({
        "unit": (conv << 32) | (position << 16) | sentence,
        "coder": pd.Categorical.from_codes(coder, categories=names),
        "value": _joined_values([p["value"] for p in parts]),
    })


def _joined_values(columns: Sequence[pd.Series]) -> np.ndarray:
    """The values one after the other: float64 (NaN = none) when every column is numeric,
    else Python objects (None = none)."""
    if all(pd.api.types.is_numeric_dtype(c.dtype) and not pd.api.types.is_bool_dtype(c.dtype)
           for c in columns):
        return np.concatenate([c.to_numpy(dtype=np.float64, na_value=np.nan) for c in columns])
    return np.concatenate([c.astype(object).where(c.notna(), None).to_numpy(dtype=object)
                           for c in columns])


def unit_ids(frame: pd.DataFrame) -> np.ndarray:
    """One integer per unit of ``frame`` (equal units, equal ids), cheaper than text keys.

    Only comparable within one frame; falls back to :func:`unit_key` for positions or
    sentence numbers beyond 65535.
    """
    position = frame["position"].to_numpy(dtype=np.int64)
    sentence = frame["sentence"].to_numpy(dtype=np.int64)
    if len(frame) and (position.max() >= 1 << 16 or sentence.max() >= 1 << 16):
        return pd.factorize(unit_key(frame).to_numpy(dtype=object))[0].astype(np.int64)
    conv = pd.factorize(frame["conversation_id"].to_numpy(dtype=object))[0].astype(np.int64)
    return (conv << 32) | (position << 16) | sentence

"""The ordinary read of a frame: one query, its rows turned into a pandas frame column by
column, ``FETCH_ROWS`` at a time. Every frame of :mod:`.frames` reads this way where the
packed read (:mod:`.packed`) cannot hold a row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sqlite_utils import Database

from .packed import FETCH_ROWS
from .snapshots import decode_error, strict_text


def _in(column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
    return f"{column} IN ({','.join('?' * len(values))})", list(values)


def _frame(
    db: Database, sql: str, params: list[Any], columns: Sequence[str],
    nullable_ints: Sequence[str] = (),
    objects: Sequence[str] = ("value",),
    categories: Sequence[str] = (),
    ints: Sequence[str] = (),
) -> pd.DataFrame:
    """Run ``sql`` and build a frame column by column, ``FETCH_ROWS`` rows at a time.

    Columns in ``objects`` stay Python objects (a coded value: ints for ordinal and
    binary codes, text for nominal ones, None for not applicable) so that 3 never turns
    into 3.0; ``nullable_ints`` become pandas' nullable Int64, ``ints`` int64, and
    ``categories`` Categoricals (compact for millions of repeated ids and names).

    Text is decoded the fast, strict way; a text that is not UTF-8 makes the read start
    again, decoding as the connection does (see :data:`.snapshots.LENIENT_TEXT`).
    """
    try:
        with strict_text(db.conn):
            return _frame_of(db.conn.execute(sql, params), columns, nullable_ints, objects,
                             categories, ints)
    except sqlite3.OperationalError as e:
        if not decode_error(e):
            raise
    return _frame_of(db.conn.execute(sql, params), columns, nullable_ints, objects,
                     categories, ints)


def _frame_of(cursor: sqlite3.Cursor, columns: Sequence[str], nullable_ints: Sequence[str],
              objects: Sequence[str], categories: Sequence[str], ints: Sequence[str],
              ) -> pd.DataFrame:
    """The frame of :func:`_frame` from its cursor."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in columns}
    lookups: dict[str, dict[Any, int]] = {name: {} for name in categories}
    while rows := cursor.fetchmany(FETCH_ROWS):
        for name, values in zip(columns, zip(*rows, strict=True), strict=True):
            if name in ints:
                parts[name].append(np.array(values, dtype=np.int64))
                continue
            arr = np.array(values, dtype=object)
            if name in lookups:
                codes, uniques = pd.factorize(arr)
                lookup = lookups[name]
                remap = np.array([lookup.setdefault(u, len(lookup)) for u in uniques] + [-1],
                                 dtype=np.int32)
                arr = remap[codes]  # a missing value (code -1) maps to -1 again
            parts[name].append(arr)
    frame: dict[str, Any] = {}
    for name in columns:
        chunks = parts[name]
        if name in ints:
            frame[name] = np.concatenate(chunks) if chunks else np.array([], dtype=np.int64)
            continue
        if name in lookups:
            codes = np.concatenate(chunks) if chunks else np.array([], dtype=np.int32)
            frame[name] = pd.Categorical.from_codes(
                codes, categories=pd.Index(list(lookups[name]), dtype=object)
            )
            continue
        arr = np.concatenate(chunks) if chunks else np.array([], dtype=object)
        if name in nullable_ints:
            frame[name] = pd.array(arr, dtype="Int64")
        elif name in objects:
            frame[name] = pd.Series(arr, dtype=object)
        else:
            frame[name] = pd.Series(arr) if len(arr) else pd.Series(arr, dtype=object)
    return pd.DataFrame(frame, columns=list(columns))


def _ints(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    for col in columns:
        frame[col] = frame[col].astype("int64")
    return frame

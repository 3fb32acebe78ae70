"""Coded values as SQLite stores them, and the repair of nominal levels that look like numbers.

Schemas before version 4 declared the ``value`` columns of ``codings`` and ``consensus`` as
``ANY``, which in an ordinary (non-STRICT) table gives them NUMERIC affinity: SQLite turned
a nominal level written as text that looks like a number (``"1"``, ``"007"``, ``"2.0"``)
into a number (1, 7, 2), which then matched no level of its code. Version 4 declares the
columns without a type, so every value keeps the type it was written with; the functions
here map the numbers an older file holds back onto the nominal levels they came from.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database


@functools.lru_cache(maxsize=4096)
def numeric_affinity(text: str) -> Any:
    """What a NUMERIC-affinity column stores for ``text`` (SQLite's own rules)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE TABLE probe (v NUMERIC)")
        conn.execute("INSERT INTO probe VALUES (?)", [text])
        return conn.execute("SELECT v FROM probe").fetchone()[0]
    finally:
        conn.close()


def nominal_repairs(levels: Sequence[Any]) -> list[tuple[Any, str]]:
    """(number an old file holds, the level text it stands for) for a nominal code's levels.

    Where two levels map to the same number ("1" and "1.0") the first wins.
    """
    out: list[tuple[Any, str]] = []
    seen: set[Any] = set()
    for level in levels:
        if not isinstance(level, str):
            continue
        stored = numeric_affinity(level)
        if isinstance(stored, str) or stored in seen:
            continue
        seen.add(stored)
        out.append((stored, level))
    return out


def restored(value: Any, levels: Sequence[Any]) -> Any:
    """``value`` as the nominal level it stands for, when an old file stored it as a number."""
    if isinstance(value, str) or value is None:
        return value
    return next((text for number, text in nominal_repairs(levels) if number == value), value)


def _nominal_codes(db: Database) -> Iterable[tuple[str, list[Any]]]:
    for key, levels in db.execute("SELECT key, levels FROM codes WHERE kind = 'nominal'").fetchall():
        yield key, [lv.get("value") for lv in json.loads(levels or "[]")]


def restore_nominal_values(db: Database, tables: Sequence[str]) -> int:
    """Turn numbers back into the nominal levels they stand for, in ``tables`` (each with
    ``code`` and ``value`` columns), for the nominal codes of ``db``'s codebook.

    The caller holds the transaction. Returns the number of values restored.
    """
    changed = 0
    for key, levels in _nominal_codes(db):
        for number, text in nominal_repairs(levels):
            for table in tables:
                cur = db.execute(
                    f"UPDATE {table} SET value = ? WHERE code = ? "
                    "AND typeof(value) IN ('integer', 'real') AND value = ?",
                    [text, key, number],
                )
                changed += max(cur.rowcount, 0)
    return changed

"""The packed read engine behind the big frames (:mod:`.frames`): SQLite writes each row as
a few 16-bit numbers packed into one text per chunk, numpy reads them back in C.

:func:`_grouped` reads a table one conversation at a time through a covering index,
:func:`_packed` over rowid ranges (:func:`_chunks`); :func:`_fits` tells whether every
number fitted, else the caller reads the ordinary way (:func:`.plain_frames._frame`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sqlite_utils import Database

from .conversations import ConversationFilter, _filter_sql


def _where(
    filt: ConversationFilter | None,
    extra: Sequence[tuple[str, list[Any]]] = (),
) -> tuple[str, list[Any]]:
    """A WHERE clause over the conversations alias ``c`` plus extra conditions."""
    conds: list[str] = []
    params: list[Any] = []
    if filt is not None:
        sql, fparams = _filter_sql(filt)
        if sql:
            conds.append("(" + sql.removeprefix(" WHERE ") + ")")
            params += fparams
    for cond, cparams in extra:
        conds.append(cond)
        params += cparams
    return (" WHERE " + " AND ".join(conds)) if conds else "", params


#: rows fetched at a time: bounds the memory held in Python tuples while a frame is read
FETCH_ROWS = 100_000



# -- the packed read path -----------------------------------------------------------------
#
# Reading millions of codings through sqlite3 costs a Python tuple and several Python
# objects per row. The packed path has SQLite write each row as a few small numbers, each
# the code point 0x10000 + n of one character (``char()``), into one text per chunk
# (``group_concat``); numpy reads the code points back in C, and ids and names are looked
# up once per distinct value. A number that does not fit 16 bits (a text or real value, a
# position outside 0..65535, a name not in the list) is written as 65536 and sends the
# whole read down the ordinary path. Every field's SQL gives its code point directly (the
# 0x10000 folded into its constants): SQLite's time per row is the work of the packed read.
#
# Codings and users' ratings are read one conversation at a time (``GROUP BY``) through
# indexes that hold every column read (schema migration 7), so SQLite looks each
# conversation up once, not once per row, and never visits the tables; turns, whose text
# no index holds, are read over rowid ranges of their table.

#: rows per packed chunk (bounds the text SQLite and Python hold at once)
PACK_ROWS = 500_000
_PLANE = 0x10000  # code points from 0x10000 up: valid in UTF-8, no surrogates
_MISSING = 0xFFFF  # not applicable, or a name not in the list
_MISFIT = 0x10000  # does not fit: read the ordinary way
_BIAS = 0x8000  # stored integers -32768..32766 become 0..65534
#: names with no table of their own (turn roles, the users' rating names) beyond this many
#: are read the ordinary way: the packed read tells them apart by a ``CASE``, which tests
#: them one by one
_MAX_NAMES = 256
#: coders and codes up to this many are told apart by a ``CASE`` (about 0.02 us a name a
#: row, the cheapest for a few); more are looked up in their own table (about 0.3 us a row
#: however many): a ``CASE`` over 3,000 crowd coders made the read 14x slower than
#: sqlite3's plain fetchall
_CASE_NAMES = 24
#: the conversation's rowid as one code point up to this, as two (high, low 16 bits) up
#: to ``_MAX_ROWID``; a project with a rowid outside 0.._MAX_ROWID reads the ordinary way
_ONE_POINT = 0x10FFFF - _PLANE
_MAX_ROWID = (1 << 31) - 1  # a turn's key (rowid, turn, rating) fits 63 bits
#: stands in a packed read's fields for the conversation's rowid (``c.rowid``)
ROWID = "c.rowid"


def _index_case(column: str, names: Sequence[str]) -> str:
    """SQL giving the index of ``column`` in ``names`` (``_MISSING`` when absent)."""
    if not names:
        return str(_PLANE + _MISSING)
    quoted = ["'" + n.replace("'", "''") + "'" for n in names]
    return (f"CASE {column} "
            + " ".join(f"WHEN {q} THEN {_PLANE + i}" for i, q in enumerate(quoted))
            + f" ELSE {_PLANE + _MISSING} END")


def _name_index(db: Database, column: str, names: Sequence[str], table: str, key: str
                ) -> tuple[str, list[str | None]]:
    """SQL giving the code point of each row's name (``column``), and the names by that
    number (None for a number no name has). A few ``names`` by a ``CASE`` over them; more
    by the name's rowid in ``table`` (whose ``key`` column holds the names; a name
    missing there, or a rowid beyond the packed range, is ``_MISSING``)."""
    if len(names) <= _CASE_NAMES:
        return _index_case(column, names), list(names)
    rows = db.conn.execute(f"SELECT rowid, {key} FROM {table} "
                           f"WHERE rowid BETWEEN 0 AND {_MISSING - 1}").fetchall()
    by_number: list[str | None] = [None] * (max((r[0] for r in rows), default=-1) + 1)
    for rowid, name in rows:
        by_number[rowid] = name
    sql = (f"coalesce((SELECT n.rowid + {_PLANE} FROM {table} n WHERE n.{key} = {column} "
           f"AND n.rowid BETWEEN 0 AND {_MISSING - 1}), {_PLANE + _MISSING})")
    return sql, by_number


def _small(column: str) -> str:
    """A whole number 0..65535 as it is; anything else as a misfit."""
    return (f"CASE WHEN {column} BETWEEN 0 AND 65535 THEN {column} + {_PLANE} "
            f"ELSE {_PLANE + _MISFIT} END")


def _value(column: str) -> str:
    return (f"CASE WHEN {column} IS NULL THEN {_PLANE + _MISSING} "
            f"WHEN typeof({column}) = 'integer' "
            f"AND {column} BETWEEN -{_BIAS} AND {_MISSING - _BIAS - 1} "
            f"THEN {column} + {_PLANE + _BIAS} ELSE {_PLANE + _MISFIT} END")


#: the longest text read as a saving time (longer ones, put there by another tool, are
#: unknown times)
_TIME_CHARS = 64


def saving_times(texts: Any) -> np.ndarray:
    """Saving times (text, None or "" where unknown) as UTC datetime64[ns], NaT where
    unknown or unreadable.

    ISO 8601, as sense7-coder writes them, is read in one vectorised pass; anything else
    (a file edited by another tool) falls back to reading each distinct text on its own,
    in any layout pandas knows (up to 64 characters)."""
    values = pd.Series(np.asarray(texts, dtype=object), dtype=object)
    values = values.where(values != "", None)
    try:
        parsed = pd.to_datetime(values, utc=True, format="ISO8601")
    except (ValueError, TypeError, OverflowError):
        codes, uniques = pd.factorize(values.to_numpy(dtype=object))
        readable = [u if isinstance(u, str) and len(u) <= _TIME_CHARS else None
                    for u in uniques]  # a megabyte of digits takes pandas minutes
        table = pd.to_datetime(pd.Series(readable, dtype=object), errors="coerce", utc=True,
                               format="mixed")
        return np.append(table.dt.tz_convert(None).to_numpy(dtype="datetime64[ns]"),
                         np.datetime64("NaT", "ns"))[codes]
    return parsed.dt.tz_convert(None).to_numpy(dtype="datetime64[ns]")


def _packed(db: Database, fields: Sequence[str], source: str, where: str,
            params: list[Any], table: str) -> np.ndarray | None:
    """Run a packed read: one row of ``len(fields)`` numbers per stored row, over rowid
    ranges of ``table`` (alias ``k`` in ``source``); None where it cannot be packed (a
    conversation's rowid out of the packed range).

    A first field :data:`ROWID` (the conversation's rowid) comes back as one number
    however many code points carried it."""
    bounds = db.conn.execute(f"SELECT min(rowid), max(rowid) FROM {table}").fetchone()
    width = len(fields)
    if bounds[0] is None:
        return np.zeros((0, width), dtype=np.int64)
    points_sql = list(fields)
    split = False  # the rowid (field 0) sent as two code points
    if fields and fields[0] == ROWID:
        low, high = db.conn.execute("SELECT min(rowid), max(rowid) FROM conversations"
                                    ).fetchone()
        if (low or 0) < 0 or (high or 0) > _MAX_ROWID:
            return None
        split = (high or 0) > _ONE_POINT
        points_sql[:1] = ([f"(c.rowid >> 16) + {_PLANE}", f"(c.rowid & 65535) + {_PLANE}"]
                          if split else [f"c.rowid + {_PLANE}"])
    cond = (where + " AND " if where else " WHERE ") + "k.rowid BETWEEN ? AND ?"
    sql = f"SELECT group_concat(char({', '.join(points_sql)}), '') FROM {source}{cond}"
    parts = []
    for lo, hi in _chunks(db, table, bounds[0], bounds[1]):
        row = db.conn.execute(sql, [*params, lo, hi]).fetchone()
        if row[0]:
            points = np.frombuffer(row[0].encode("utf-32-le"), dtype=np.uint32)
            part = (points.astype(np.int64) - _PLANE).reshape(-1, len(points_sql))
            if split:
                part = np.column_stack(((part[:, 0] << 16) | part[:, 1], part[:, 2:]))
            parts.append(part)
    return np.concatenate(parts) if parts else np.zeros((0, width), dtype=np.int64)


def _grouped_where(filt: ConversationFilter | None,
                   extra: Sequence[tuple[str, list[Any]]] = ()) -> tuple[str, list[Any]]:
    """The WHERE clause of a :func:`_grouped` read: the conversations of ``filt`` in a
    subquery, and ``extra`` conditions on ``k`` (written ``+k.code IN ...``: so that
    SQLite walks the covering index rather than a code's own, and tests each row)."""
    sql, params = _where(filt)
    conds = [(f"k.conversation_id IN (SELECT c.conversation_id FROM conversations c{sql})",
              params)] if sql else []
    return _where(None, [*conds, *extra])


def _grouped(db: Database, fields: Sequence[str], table: str, where: str,
             params: list[Any], text: str | None = None,
             convert: Callable[[list[str]], np.ndarray] | None = None,
             ) -> Grouped | None:
    """Rows of ``table`` (alias ``k``, with a ``conversation_id``) read packed one
    conversation at a time through the covering index that starts with it (see schema
    migration 7): each conversation's rowid and number of rows, the packed ``fields`` and
    (``text``: an SQL text expression) the texts of the rows, gathered by the same
    aggregate, split once per chunk of about ``PACK_ROWS`` rows (an empty text for NULL)
    and made into one array per chunk by ``convert`` (or kept as texts).

    Rows come in conversation rowid (import) order, then turn and sentence; rows whose
    conversation is not in ``conversations`` are left out, as a join leaves them. SQLite
    names each conversation's rowid once per conversation, not once per row. ``where``
    may name the conversations as ``c`` only inside a subquery (see
    :func:`_grouped_where`). None when a text holds the separator (seen as more texts
    than rows), or when one conversation holds so many rows that their text would pass
    SQLite's longest string (a billion bytes by default: some 50 million codings)."""
    width = len(fields)
    extra = f", group_concat(coalesce({text}, ''), char(31))" if text else ""
    sql = ("SELECT (SELECT c.rowid FROM conversations c "
           "WHERE c.conversation_id = k.conversation_id), k.conversation_id, count(*), "
           f"group_concat(char({', '.join(fields)}), ''){extra} "
           f"FROM {table} k{where} GROUP BY k.conversation_id")
    rowids: list[int] = []
    ids: list[Any] = []
    counts: list[int] = []
    parts: list[np.ndarray] = []
    texts: list[Any] = []
    points: list[str] = []
    chunk_texts: list[str] = []
    held = 0

    def flush() -> bool:
        nonlocal held
        if not held:
            return True
        codes = np.frombuffer("".join(points).encode("utf-32-le"), dtype=np.uint32)
        if len(codes) != held * width:  # a safety net: every field gives one code point
            return False
        # each field is one code point less the plane: 0..0x100000 fits int32, half the
        # bytes of the rows held while a read gathers and stacks them
        part = np.empty((held, width), dtype=np.int32, order="F")
        np.subtract(codes.reshape(-1, width), _PLANE, out=part, casting="unsafe")
        parts.append(part)
        if text:
            chunk = "\x1f".join(chunk_texts).split("\x1f")
            if len(chunk) != held:  # a text holds the separator
                return False
            texts.append(convert(chunk) if convert else np.asarray(chunk, dtype=object))
        points.clear()
        chunk_texts.clear()
        held = 0
        return True

    try:
        cursor = db.conn.execute(sql, params)
        while rows := cursor.fetchmany(FETCH_ROWS):
            for row in rows:
                if row[0] is None:  # no such conversation
                    continue
                rowids.append(row[0])
                ids.append(row[1])
                counts.append(row[2])
                points.append(row[3])
                if text:
                    chunk_texts.append(row[4])
                held += row[2]
                if held >= PACK_ROWS and not flush():
                    return None
    except sqlite3.DataError:  # one conversation's text beyond SQLite's longest string
        return None
    if not flush():
        return None
    packed = _stacked(parts, width)
    group_rowid = np.asarray(rowids, dtype=np.int64)
    group_ids = np.empty(len(ids), dtype=object)
    group_ids[:] = ids
    sizes = np.asarray(counts, dtype=np.int64)
    if len(group_rowid) > 1 and (np.diff(group_rowid) < 0).any():  # ids sort otherwise
        groups = np.argsort(group_rowid, kind="stable")
        starts = np.cumsum(sizes) - sizes
        sizes = sizes[groups]
        order = (np.repeat(starts[groups] - (np.cumsum(sizes) - sizes), sizes)
                 + np.arange(len(packed)))
        packed, group_rowid, group_ids = (_rows(packed, order), group_rowid[groups],
                                          group_ids[groups])
        texts = [np.concatenate(texts)[order]] if texts else texts
    return Grouped(group_rowid, group_ids, sizes, packed, texts)


def _stacked(parts: list[np.ndarray], width: int) -> np.ndarray:
    """The chunks one after the other, in memory column by column, each chunk let go as
    soon as it is copied (``np.concatenate`` held every chunk and the whole result at once:
    twice the rows' size, the peak of reading millions of codings); ``parts`` is emptied."""
    packed = np.empty((sum(len(p) for p in parts), width),
                      dtype=parts[0].dtype if parts else np.int32, order="F")
    at = 0
    parts.reverse()
    while parts:
        part = parts.pop()
        packed[at : at + len(part)] = part
        at += len(part)
        del part
    return packed


def _rows(packed: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``packed[rows]`` (an index or a mask), column by column in memory as
    :func:`_grouped` keeps them."""
    return np.asfortranarray(packed[rows])


class Grouped(NamedTuple):
    """What :func:`_grouped` read: the conversations' rowids in ascending order, their ids,
    how many rows each has, the packed rows (conversation by conversation; in memory
    column by column, so that each field is read and checked in one contiguous pass: a row
    by row layout made checking the fields' ranges ten times slower) and their texts."""

    rowid: np.ndarray
    ids: np.ndarray
    sizes: np.ndarray
    packed: np.ndarray
    texts: list[Any]

    def in_order(self, *fields: int) -> Grouped:
        """These rows sorted by conversation, then by the packed ``fields`` (each 0..65535),
        stably: sorted only where the index did not already give them so."""
        packed = self.packed
        key = np.repeat(np.arange(len(self.rowid), dtype=np.int64), self.sizes)
        for f in fields:
            key = (key << 16) | packed[:, f]
        if len(key) < 2 or (np.diff(key) >= 0).all():
            return self
        order = np.argsort(key, kind="stable")
        return self._replace(packed=_rows(packed, order), texts=self._texts_at(order))

    def where(self, keep: np.ndarray) -> Grouped:
        """The rows where ``keep`` is True, and the conversations left with any."""
        if keep.all():
            return self
        group = np.repeat(np.arange(len(self.sizes)), self.sizes)
        sizes = np.bincount(group[keep], minlength=len(self.sizes))
        held = sizes > 0
        return Grouped(self.rowid[held], self.ids[held], sizes[held],
                       _rows(self.packed, keep), self._texts_at(keep))

    def _texts_at(self, rows: np.ndarray) -> list[Any]:
        """The texts of ``rows`` (an index or a mask), as one array."""
        return [np.concatenate(self.texts)[rows]] if self.texts else self.texts

    def conversation_ids(self, categorical: bool) -> Any:
        """Each row's conversation id: a Categorical of the conversations read (in import
        order) built from the groups, or the ids as objects."""
        if not categorical:
            return np.repeat(self.ids, self.sizes)
        if not pd.Index(self.ids).is_unique:  # ids that differ only in bytes not UTF-8
            return _column(np.repeat(self.ids, self.sizes), True)
        codes = np.repeat(np.arange(len(self.ids), dtype=np.int32), self.sizes)
        return pd.Categorical.from_codes(codes, categories=pd.Index(self.ids, dtype=object))


def _chunks(db: Database, table: str, low: int, high: int) -> list[tuple[int, int]]:
    """Rowid ranges of ``table`` of about ``PACK_ROWS`` rows each, ``low``..``high``.

    Steps of ``PACK_ROWS`` rowids where rowids are dense, as sense7-coder writes them;
    where a file edited by hand leaves them sparse (one rowid of 2**62 made billions of
    empty steps), the ranges start at every ``PACK_ROWS``-th row actually there."""
    if high - low < PACK_ROWS * 64:
        return [(lo, min(lo + PACK_ROWS - 1, high)) for lo in range(low, high + 1, PACK_ROWS)]
    starts = [int(r[0]) for r in db.conn.execute(
        f"SELECT rowid FROM (SELECT rowid, row_number() OVER (ORDER BY rowid) AS n "
        f"FROM {table}) WHERE n % {PACK_ROWS} = 1")]
    return [(lo, starts[i + 1] - 1 if i + 1 < len(starts) else high)
            for i, lo in enumerate(starts)]


def _fits(packed: np.ndarray, small: Sequence[int], named: Sequence[int],
          values: Sequence[int]) -> bool:
    """Did every row fit? (``small``: 0..65535 columns, ``named``: name indexes,
    ``values``: packed values)."""
    if not len(packed):
        return True
    low, high = packed.min(axis=0), packed.max(axis=0)  # one pass over the rows each
    return (all(low[i] >= 0 and high[i] < _MISFIT for i in small)
            and all(high[i] < _MISSING for i in named)
            and all(high[i] < _MISFIT for i in values))


def _by_rowid(db: Database, rowid: np.ndarray, columns: Sequence[str]
              ) -> tuple[list[np.ndarray], np.ndarray]:
    """``columns`` of the conversations in rowid order (object arrays), and the place of
    each of ``rowid`` among them, found in C (any rowid a file holds, however large)."""
    rows = db.conn.execute(f"SELECT rowid, {', '.join(columns)} FROM conversations "
                           "ORDER BY rowid").fetchall()
    values = list(zip(*rows, strict=True)) or [() for _ in range(len(columns) + 1)]
    at = np.searchsorted(np.fromiter(values[0], dtype=np.int64, count=len(rows)), rowid)
    return [np.asarray(v, dtype=object) for v in values[1:]], at


def _unpacked_values(raw: np.ndarray) -> np.ndarray:
    """Packed values as Python ints (None = not applicable), in an object array."""
    values = (raw - _BIAS).astype(object)
    values[raw == _MISSING] = None
    return values


#: the packed fields of a row's turn and sentence
_TURN, _SENTENCE = _small("k.position"), _small("k.sentence")


def _names(db: Database, sql: str, given: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(given)) if given else [r[0] for r in db.conn.execute(sql)]


def _ranks(names: Sequence[str | None]) -> np.ndarray:
    """Each name's place in SQLite's BINARY order (code points, as Python sorts; a number
    without a name, None, last)."""
    order = sorted(range(len(names)), key=lambda i: (names[i] is None, names[i] or ""))
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[order] = np.arange(len(names))
    return ranks


def _column(values: np.ndarray, categorical: bool) -> Any:
    """Text values as a Categorical (categories in order of appearance) or objects."""
    if not categorical:
        return values
    codes, uniques = pd.factorize(values)
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object))


def _lookup(keys: np.ndarray, table_keys: np.ndarray, table_values: np.ndarray,
            missing: int) -> np.ndarray:
    """``table_values`` at each of ``keys`` in ``table_keys`` (``missing`` where absent)."""
    if not len(table_keys):
        return np.full(len(keys), missing, dtype=np.int64)
    order = np.argsort(table_keys, kind="stable")
    sorted_keys = table_keys[order]
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found = sorted_keys[at] == keys
    return np.where(found, table_values[order][at], missing)


def _with_rowid(read: Grouped | None) -> np.ndarray | None:
    """The rows of a :func:`_grouped` read with their conversation's rowid first."""
    if read is None:
        return None
    return np.column_stack((np.repeat(read.rowid, read.sizes), read.packed))


def _named(names: Sequence[str | None] | np.ndarray, index: np.ndarray) -> pd.Categorical:
    """A Categorical of ``names[index]`` (the names as categories, unused ones dropped;
    the names must be distinct)."""
    names = np.asarray(names, dtype=object)
    used = np.zeros(len(names), dtype=bool)
    used[index] = True
    codes = np.cumsum(used, dtype=np.int64) - 1
    dtype = np.int8 if used.sum() < 127 else np.int32
    return pd.Categorical.from_codes(codes[index].astype(dtype),
                                     categories=pd.Index(names[used], dtype=object))

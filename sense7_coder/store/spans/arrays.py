"""What agreement on a span code reads, as arrays: every span of the code (its
conversation, turn, coder, start, end and level), the conversations every compared coder
worked on, and the lengths of their turns.

Read packed (SQLite writes each row as a few code points of one text, numpy reads them in
C, as :mod:`..packed` does for codings): a study's 10,000 spans and 2,000 turns come back
without a Python object per row. A number beyond what one code point carries (a position
or offset past 1,048,574, a conversation rowid past 1,048,574) sends that read the
ordinary way, to the same arrays.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

import numpy as np
from sqlite_utils import Database

from ..conversations import ConversationFilter, _filter_sql

_PLANE = 0x10000
#: the largest number one code point carries (0x10FFFF less the plane, less one kept back)
_TOP = 0x10FFFF - _PLANE - 1
_MISFIT = _TOP + 1
#: a level the code does not have (a file edited by hand)
OTHER = -1


class SpanRows(NamedTuple):
    """The spans of one code: per span its conversation's rowid, turn position, coder
    (index into ``coders``), start, end (end exclusive) and level (index into the levels
    asked for; :data:`OTHER` for a value not among them)."""

    coders: list[str]
    rowid: np.ndarray
    position: np.ndarray
    coder: np.ndarray
    start: np.ndarray
    end: np.ndarray
    level: np.ndarray


class TurnLengths(NamedTuple):
    """Turns in conversation (import) then turn order: conversation rowid, position,
    characters of text."""

    rowid: np.ndarray
    position: np.ndarray
    length: np.ndarray


def _quoted(value: Hashable) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(value)
    return str(value) if isinstance(value, int) else "'" + value.replace("'", "''") + "'"


def _fits(column: str) -> str:
    return f"CASE WHEN {column} BETWEEN 0 AND {_TOP} THEN {column} + {_PLANE} " \
           f"ELSE {_PLANE + _MISFIT} END"


def _index(column: str, items: Sequence[Hashable]) -> str:
    """The index of ``column``'s value in ``items`` (:data:`OTHER` when absent) as a code
    point: ``_TOP`` stands for OTHER."""
    if not items:
        return str(_PLANE + _TOP)
    whens = " ".join(f"WHEN {_quoted(v)} THEN {_PLANE + i}" for i, v in enumerate(items))
    return f"CASE {column} {whens} ELSE {_PLANE + _TOP} END"


def _points(text: str | None, width: int) -> np.ndarray | None:
    """The packed text as rows of ``width`` numbers; None when a number did not fit."""
    if not text:
        return np.zeros((0, width), dtype=np.int64)
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    if len(points) % width:
        return None
    rows = (points - _PLANE).reshape(-1, width)
    return None if (rows == _MISFIT).any() else rows


#: coders up to this many are told apart by a ``CASE`` over every coder of the project;
#: a project of more (a crowd) reads the ordinary way, as a ``CASE`` over thousands of
#: names tests them one by one for every row (see :mod:`..packed`)
_CASE_CODERS = 24


def span_rows(db: Database, code: str, levels: Sequence[Hashable]) -> SpanRows:
    """Every span of ``code`` (every coder's who made one), levels as indices into
    ``levels``."""
    coders = [r[0] for r in db.execute(f"SELECT name FROM coders ORDER BY name "
                                       f"LIMIT {_CASE_CODERS + 1}")]
    if len(coders) > _CASE_CODERS:
        return _span_rows_plain(db, code, levels)
    try:
        level_sql = _index("k.value", levels)
    except TypeError:  # a level neither a whole number nor a text
        return _span_rows_plain(db, code, levels)
    sql = ("SELECT group_concat(char(" + ", ".join([
        _fits("c.rowid"), _fits("k.position"), _index("k.coder", coders),
        _fits("k.start"), _fits("k.end"), level_sql]) + "), '') "
        "FROM spans k JOIN conversations c ON c.conversation_id = k.conversation_id "
        "WHERE k.code = ?")
    rows = _points(db.execute(sql, [code]).fetchone()[0], 6)
    if rows is None or (rows[:, 2] == _TOP).any():  # a number too big; a coder not listed
        return _span_rows_plain(db, code, levels)
    level = rows[:, 5]
    level[level == _TOP] = OTHER
    made = np.bincount(rows[:, 2], minlength=len(coders)) > 0
    keep = np.flatnonzero(made)  # only the coders who made a span of the code
    renumber = np.cumsum(made) - 1
    return SpanRows([coders[i] for i in keep], rows[:, 0], rows[:, 1], renumber[rows[:, 2]],
                    rows[:, 3], rows[:, 4], level)


def _span_rows_plain(db: Database, code: str, levels: Sequence[Hashable]) -> SpanRows:
    """:func:`span_rows` the ordinary way: a tuple a span."""
    found = db.execute(
        "SELECT c.rowid, k.position, k.coder, k.start, k.end, k.value FROM spans k "
        "JOIN conversations c ON c.conversation_id = k.conversation_id WHERE k.code = ?",
        [code]).fetchall()
    coders = sorted({r[2] for r in found})
    index = {n: i for i, n in enumerate(coders)}
    level = {v: i for i, v in enumerate(levels)}

    def column(i: int) -> np.ndarray:  # a number another tool stored as text or real: -1
        return np.array([r[i] if type(r[i]) is int else -1 for r in found], dtype=np.int64)

    return SpanRows(coders, column(0), column(1),
                    np.array([index[r[2]] for r in found], dtype=np.int64), column(3),
                    column(4), np.array([level.get(r[5], OTHER) for r in found],
                                        dtype=np.int64))


#: SQL true where a coder (the parameter, given twice) worked on conversation ``c``:
#: marked a turn done or made a span there
_WORKED_ON = ("(EXISTS (SELECT 1 FROM turn_status s WHERE s.coder = ? "
              "AND s.conversation_id = c.conversation_id AND s.done = 1) "
              "OR EXISTS (SELECT 1 FROM spans p WHERE p.coder = ? "
              "AND p.conversation_id = c.conversation_id))")


def common_turns(db: Database, coders: Sequence[str], roles: Sequence[str],
                 conversations: ConversationFilter | None = None) -> TurnLengths:
    """The turns of ``roles`` in the conversations (of ``conversations``) that every one
    of ``coders`` worked on, in conversation (import) and turn order."""
    where, params = _filter_sql(conversations) if conversations is not None else ("", [])
    conds = [where.removeprefix(" WHERE ")] if where else []
    for coder in coders:
        conds.append(_WORKED_ON)
        params = [*params, coder, coder]
    chosen = ("SELECT c.rowid AS rowid, c.conversation_id AS cid FROM conversations c "
              "WHERE " + (" AND ".join(conds) or "1"))
    tail = (" FROM chosen h JOIN turns t ON t.conversation_id = h.cid "
            f"WHERE t.role IN ({', '.join('?' * len(roles)) or 'NULL'})")
    params = [*params, *roles]
    packed = ("SELECT group_concat(char(" + ", ".join([
        _fits("h.rowid"), _fits("t.position"), _fits("length(t.text)")]) + "), '')")
    rows = _points(db.execute(f"WITH chosen AS MATERIALIZED ({chosen}) {packed}{tail}",
                              params).fetchone()[0], 3)
    if rows is None:  # a number too big: the ordinary way
        found = db.execute(f"WITH chosen AS MATERIALIZED ({chosen}) "
                           f"SELECT h.rowid, t.position, length(t.text){tail}",
                           params).fetchall()
        rows = np.array(found, dtype=np.int64).reshape(-1, 3)
    rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    return TurnLengths(rows[:, 0], rows[:, 1], rows[:, 2])


__all__ = ["OTHER", "SpanRows", "TurnLengths", "common_turns", "span_rows"]

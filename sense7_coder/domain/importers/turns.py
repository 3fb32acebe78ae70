"""From a table of messages (one row per message) to conversations of turns.

Shared by the long-CSV importer and the SENSE-7 Messages table. Work is done per column
with pandas and numpy (roles, ratings, ids and numbers are converted once per distinct
value); the only per-row Python work is building the Turn objects themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..models import ROLES, Conversation, Turn
from .roles import RoleResolver
from .tables import Table, unique_map
from .ticker import CHECK_EVERY, Ticker, gc_paused
from .values import (
    ABSENT,
    NO_VALUES,
    HintedValueError,
    coerce_scalar,
    control_character,
    parse_number,
    parse_rating,
    shown,
)


@dataclass
class MessageColumns:
    """Which column of the table holds what (None = not in this table)."""

    text: str
    conversation_id: str | None = None
    role: str | None = None
    speaker: str | None = None
    position: str | None = None
    time_offset: str | None = None
    comment: str | None = None
    ratings: dict[str, str] = field(default_factory=dict)
    attributes: list[str] = field(default_factory=list)


@dataclass
class BuiltTurns:
    conversations: list[Conversation]
    #: for each kept row (by table label), the index of its conversation in ``conversations``
    conversation_of: pd.Series
    skipped_rows: int = 0


def stripped_codes(series: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Factorize a text column ignoring surrounding blanks (first-appearance order)."""
    codes, uniques = pd.factorize(series, sort=False)
    stripped = [str(u).strip() for u in uniques]
    merged, final = pd.factorize(pd.Series(stripped, dtype=object), sort=False)
    return merged[codes], [str(u) for u in final]


def per_value(codes: np.ndarray, uniques: list[str], convert: Callable[[str], Any]) -> list[Any]:
    """``convert`` applied once per distinct value, spread over the rows."""
    converted = [convert(u) for u in uniques]
    return [converted[c] for c in codes.tolist()]


def build_conversations(
    table: Table,
    cols: MessageColumns,
    resolver: RoleResolver,
    *,
    id_prefix: str,
    skip_roles: frozenset[str] = frozenset(),
    positions_must_be_numbers: bool = True,
    ticker: Ticker | None = None,
) -> BuiltTurns:
    """Group the table's rows into conversations, ordered and numbered 1..n.

    Order within a conversation: by the position column when it holds numbers (a position
    given twice is an error), else file order. Rows whose role is in ``skip_roles`` are
    dropped and counted. Without a conversation id column the rows form one conversation,
    or a new one starts each time the position does not increase; ids are
    ``<prefix>-<n>``. Conversations come in order of first appearance.
    """
    role_col = cols.role or cols.speaker
    if role_col is None:
        raise AssertionError("a role or speaker column is required")
    role_field = "role" if cols.role else "speaker"

    def to_role(name: str) -> str:
        name = name.strip()
        if name.casefold() in skip_roles:
            return "-"
        role = resolver.role(name)
        if role is None:
            raise HintedValueError(resolver.unknown_message(name, role_field),
                                   resolver.unknown_hint(name))
        return role

    roles_all = unique_map(table, role_col, to_role)
    skipped = sum(1 for r in roles_all if r == "-") if skip_roles else 0
    if skipped:
        keep = np.array([r != "-" for r in roles_all])
        frame = table.frame[keep]
        roles = [r for r in roles_all if r != "-"]
    else:
        frame, roles = table.frame, roles_all
    if frame.empty:
        return BuiltTurns([], pd.Series(dtype=int), skipped)
    sub = Table(table.file, frame, sheet=table.sheet, raw=table.raw,
                header_lines=table.header_lines)
    labels = frame.index.to_numpy()
    n = len(frame)

    # -- conversation ids and order --------------------------------------------------------
    pos = _positions(sub, cols.position, positions_must_be_numbers)
    if cols.conversation_id is not None:
        codes, uniques = stripped_codes(frame[cols.conversation_id])
        if "" in uniques:
            empty_code = uniques.index("")
            raise sub.error(int(labels[int(np.argmax(codes == empty_code))]),
                            "the conversation id is empty", cols.conversation_id)
        for k, cid in enumerate(uniques):
            char = control_character(cid)
            if char is not None:
                raise sub.error(int(labels[int(np.argmax(codes == k))]),
                                f"the conversation id '{shown(cid)}' holds the control "
                                f"character {char}", cols.conversation_id)
    else:
        starts = (np.concatenate(([True], np.diff(pos) <= 0)) if pos is not None
                  else np.zeros(n, dtype=bool))
        codes = np.cumsum(starts) - (1 if pos is not None else 0)
        uniques = [f"{id_prefix}-{k + 1}" for k in range(int(codes.max()) + 1)]
    row_order = np.arange(n)
    keys = pos if pos is not None else row_order.astype(float)
    order = np.lexsort((row_order, keys, codes))
    if cols.position is not None:
        _check_duplicates(sub, cols.position, codes, uniques, pos, order)

    # -- columns as lists (one conversion per distinct value) -------------------------------
    texts = frame[cols.text].tolist()
    raw_codes, raw_names = stripped_codes(frame[role_col])
    if cols.speaker is not None:
        s_codes, s_names = stripped_codes(frame[cols.speaker])
        speakers = per_value(s_codes, s_names, lambda s: s or None)
    else:  # a role written as a name (seeker, Bot) is kept as the speaker
        speakers = per_value(raw_codes, raw_names, lambda r: None if r.casefold() in ROLES else r)
    offsets = unique_map(sub, cols.time_offset, parse_number) if cols.time_offset else None
    comments = ([c if c.strip() else None for c in frame[cols.comment].tolist()]
                if cols.comment else None)
    rating_keys = list(cols.ratings)
    rating_lists = [unique_map(sub, cols.ratings[k], parse_rating) for k in rating_keys]
    attr_names = list(cols.attributes)
    attr_lists = []
    for col in attr_names:
        a_codes, a_values = pd.factorize(frame[col], sort=False)
        attr_lists.append(per_value(a_codes, [str(v) for v in a_values],
                                    lambda v: coerce_scalar(v) if v != "" else ABSENT))

    # -- turns, in conversation order -------------------------------------------------------
    sorted_codes = codes[order]
    boundaries = np.flatnonzero(np.diff(sorted_codes)) + 1
    group_starts = np.concatenate(([0], boundaries))
    sizes = np.diff(np.concatenate((group_starts, [n])))
    positions = np.arange(1, n + 1) - np.repeat(group_starts, sizes)
    no_value: list[Any] = [None] * n
    offsets = offsets if offsets is not None else no_value
    comments = comments if comments is not None else no_value
    turns: list[Turn] = []
    with gc_paused():
        rating_rows = _sparse_dicts(rating_keys, rating_lists, n)
        attr_rows = _sparse_dicts(attr_names, attr_lists, n)
        del rating_lists, attr_lists
        for start in range(0, n, CHECK_EVERY):
            if ticker is not None:
                ticker.rows(start, n)
            stop = start + CHECK_EVERY
            turns.extend(
                Turn(position=k, role=roles[i], text=texts[i], speaker=speakers[i],
                     time_offset=offsets[i], ratings=rating_rows[i], comment=comments[i],
                     attributes=attr_rows[i])
                for k, i in zip(positions[start:stop].tolist(), order[start:stop].tolist(),
                                strict=True)
            )
    conversations = [Conversation(conversation_id=u) for u in uniques]
    for code, start, size in zip(sorted_codes[group_starts].tolist(), group_starts.tolist(),
                                 sizes.tolist(), strict=True):
        conversations[code].turns = turns[start:start + size]
    return BuiltTurns(conversations, pd.Series(codes, index=frame.index), skipped)


def _sparse_dicts(names: list[str], columns: list[list[Any]], n: int) -> list[dict[str, Any]]:
    """One dict per row holding the columns whose value is not ABSENT (rows without any
    share :data:`NO_VALUES`)."""
    rows: list[dict[str, Any]] = [NO_VALUES] * n
    for name, values in zip(names, columns, strict=True):
        for i in [i for i, v in enumerate(values) if v is not ABSENT]:
            row = rows[i]
            if row is NO_VALUES:
                row = rows[i] = {}
            row[name] = values[i]
    return rows


def _positions(table: Table, column: str | None, must_be_numbers: bool) -> np.ndarray | None:
    if column is None:
        return None
    codes, uniques = stripped_codes(table.frame[column])
    numbers = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy(float)
    bad = np.isnan(numbers) | np.isinf(numbers)
    if bool(bad.any()):
        if not must_be_numbers:
            return None
        first_bad = int(np.argmax(bad))
        label = int(table.frame.index[int(np.argmax(codes == first_bad))])
        value = uniques[first_bad]
        message = "the position is empty" if value == "" else f"'{shown(value)}' is not a number"
        raise table.error(label, message, column)
    result: np.ndarray = numbers[codes]
    return result


def _check_duplicates(table: Table, column: str, codes: np.ndarray, uniques: list[str],
                      pos: np.ndarray | None, order: np.ndarray) -> None:
    """A position (or MessageId) given twice in one conversation is an error."""
    labels = table.frame.index.to_numpy()
    if pos is not None:  # sorted by (conversation, position): duplicates are neighbours
        same = (np.diff(codes[order]) == 0) & (np.diff(pos[order]) == 0)
        if not bool(same.any()):
            return
        k = int(np.argmax(same))
        a, b = sorted((int(order[k]), int(order[k + 1])))
    else:
        keys = stripped_codes(table.frame[column])[0]
        dup = pd.DataFrame({"c": codes, "k": keys}).duplicated().to_numpy()
        if not bool(dup.any()):
            return
        b = int(np.argmax(dup))
        a = int(np.flatnonzero((codes == codes[b]) & (keys == keys[b]))[0])
    first, second = int(labels[a]), int(labels[b])
    raise table.error(
        second,
        f"{column} {table.frame.at[second, column].strip()} appears twice in conversation "
        f"'{uniques[codes[b]]}' (also {table.locate(first)})",
        column,
    )

"""Tidy pandas frames of a project for agreement, reconciliation and export.

Every function is one read query; the frames use these columns:

* codings: ``coder, conversation_id, participant_id, model, position, sentence, role,
  code, value, user_rating`` (one row per stored coding; ``value`` None = not
  applicable; ``role`` is empty for conversation-level codings; ``user_rating`` is the
  user's own rating of the turn on the code's ``user_rating`` key, when there is one);
* statuses: ``coder, conversation_id, position`` of turns marked done;
* consensus: ``conversation_id, participant_id, model, position, sentence, role, code,
  value, adjudicator, rationale, decided_at, user_rating``;
* user ratings: ``conversation_id, position, rating, value``;
* turns: ``conversation_id, position, role`` (and sentences: ``..., sentence``);
* memos: ``coder, conversation_id, position, sentence, text``.

Rows come in conversation import order, then turn, sentence, codebook order, coder.
Each frame is read in one read transaction (:func:`.snapshots.snapshot`): the packed read's
chunks and joins see one state of the file while other windows save.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sqlite_utils import Database

from ..domain.errors import InputError
from ..domain.models import RATING_KEYS
from .conversations import ConversationFilter
from .packed import (
    _BIAS,
    _MAX_NAMES,
    _MISFIT,
    _MISSING,
    _SENTENCE,
    _TURN,
    ROWID,
    _by_rowid,
    _column,
    _fits,
    _grouped,
    _grouped_where,
    _index_case,
    _lookup,
    _name_index,
    _named,
    _names,
    _packed,
    _ranks,
    _unpacked_values,
    _value,
    _where,
    _with_rowid,
    saving_times,
)
from .plain_frames import _frame, _in, _ints
from .shapes import values_checked
from .snapshots import read_snapshot

CODING_COLUMNS = (
    "coder", "conversation_id", "participant_id", "model", "position", "sentence", "role",
    "code", "value", "user_rating",
)
VALUE_COLUMNS = ("coder", "conversation_id", "position", "sentence", "code", "value")
#: text columns a codings frame can hold as Categoricals
TEXT_COLUMNS = ("coder", "conversation_id", "participant_id", "model", "role", "code")
CONSENSUS_COLUMNS = (
    "conversation_id", "participant_id", "model", "position", "sentence", "role", "code",
    "value", "adjudicator", "rationale", "decided_at", "user_rating", "source", "origin",
)
#: how each coding was made (see :func:`provenance_frame`)
PROVENANCE_COLUMNS = ("coder", "conversation_id", "position", "sentence", "code", "source",
                      "blind", "set_at", "origin")
#: values changed after the reveal (see :func:`revisions_frame`)
REVISION_COLUMNS = ("coder", "conversation_id", "position", "sentence", "code", "value",
                    "set_at")

#: codings with their conversation, turn, code and the user's rating of the turn
_CODINGS_JOINED = (
    "codings k "
    "JOIN conversations c ON c.conversation_id = k.conversation_id "
    "LEFT JOIN turns t ON t.conversation_id = k.conversation_id AND t.position = k.position "
    "LEFT JOIN codes d ON d.key = k.code "
    "LEFT JOIN user_ratings u ON u.conversation_id = k.conversation_id "
    "AND u.position = k.position AND u.rating = d.user_rating"
)
#: the user's rating of a coded turn: a number, 'NA' (marked not applicable) or NULL (unrated)
_USER_RATING = "CASE WHEN u.rating IS NULL THEN NULL WHEN u.value IS NULL THEN 'NA' ELSE u.value END"


def _chosen(codes: Sequence[str], coders: Sequence[str], alias: str = "k."
            ) -> list[tuple[str, list[Any]]]:
    """Conditions keeping only the given codes and coders of codings ``alias`` (none
    given: all). ``"+k."`` keeps SQLite on the covering index (see :func:`_grouped_where`)."""
    return [_in(alias + column, values)
            for column, values in (("code", codes), ("coder", coders)) if values]


def _beyond(db: Database, given: Sequence[str], sql: str) -> list[str]:
    """``given``, or none when it names every name ``sql`` lists: then a packed read needs
    no ``IN`` test of each row (some 13% of its time), since a name outside them maps to
    ``_MISSING`` and sends the read the ordinary way, which does test."""
    if not given:
        return []
    return [] if {r[0] for r in db.conn.execute(sql)} <= set(given) else list(given)


@read_snapshot
def codings_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
    categorical: bool = False,
) -> pd.DataFrame:
    """Every stored coding (optionally of some codes, coders, conversations), joined with
    the conversation's participant and model, the turn's role and the user's rating.

    ``categorical`` returns the text columns (coder, ids, model, role, code) as
    Categoricals: far smaller for big exports."""
    packed = _packed_codings_frame(db, codes, coders, conversations, categorical)
    if packed is not None:
        return packed
    where, params = _where(conversations, _chosen(codes, coders))
    sql = (
        "SELECT k.coder, k.conversation_id, c.participant_id, c.model, k.position, k.sentence, "
        f"t.role, k.code, k.value, {_USER_RATING} FROM {_CODINGS_JOINED}"
        f"{where} ORDER BY c.rowid, k.position, k.sentence, d.ord, k.code, k.coder"
    )
    cats = TEXT_COLUMNS if categorical else ()
    frame = _frame(db, sql, params, CODING_COLUMNS, objects=("value", "user_rating"),
                   categories=cats, ints=("position", "sentence"))
    return frame


def _packed_codings_frame(
    db: Database, codes: Sequence[str], coders: Sequence[str],
    conversations: ConversationFilter | None, categorical: bool,
) -> pd.DataFrame | None:
    """:func:`codings_frame` through the packed path: the codings, the turns' roles and
    the users' ratings are read packed and joined with numpy; None when a row does not
    fit."""
    given_coders = _names(db, "SELECT name FROM coders", coders)
    code_rows = db.conn.execute("SELECT key, ord, user_rating FROM codes").fetchall()
    ord_of = {k: o for k, o, _ in code_rows}
    rating_of = {k: r for k, _, r in code_rows}
    given_codes = list(dict.fromkeys(codes)) if codes else [k for k, _, _ in code_rows]
    roles = [r[0] for r in db.conn.execute("SELECT DISTINCT role FROM turns")]
    rating_names = [r[0] for r in db.conn.execute("SELECT DISTINCT rating FROM user_ratings")]
    if max(len(roles), len(rating_names)) > _MAX_NAMES:
        return None
    coder_sql, coder_names = _name_index(db, "k.coder", given_coders, "coders", "name")
    code_sql, code_keys = _name_index(db, "k.code", given_codes, "codes", "key")
    where, params = _grouped_where(conversations, _chosen(codes, coders, "+k."))
    conv_where, conv_params = _where(conversations)
    packed = _with_rowid(_grouped(db, (_TURN, _SENTENCE, coder_sql, code_sql,
                                       _value("k.value")), "codings", where, params))
    turns = _packed(db, (ROWID, _TURN, _index_case("k.role", roles)),
                    "turns k JOIN conversations c ON c.conversation_id = k.conversation_id",
                    conv_where, conv_params, "turns")
    where, params = _grouped_where(conversations)
    users = _with_rowid(_grouped(db, (_TURN, _index_case("k.rating", rating_names),
                                      _value("k.value")), "user_ratings", where, params))
    if (packed is None or turns is None or users is None
            or not (_fits(packed, small=(1, 2), named=(3, 4), values=(5,))
                    and _fits(turns, small=(1,), named=(2,), values=())
                    and _fits(users, small=(1,), named=(2,), values=(3,)))):
        return None
    rowid = packed[:, 0]
    turn_key = (rowid << 16) | packed[:, 1]
    # the turn's role (none for conversation-level codings, position 0)
    role_idx = _lookup(turn_key, (turns[:, 0] << 16) | turns[:, 1], turns[:, 2] + 1, 0)
    # the user's rating of the turn on the code's user_rating key
    rating_index = {name: i for i, name in enumerate(rating_names)}
    code_rating = np.array([rating_index.get(rating_of.get(k) or "", -1) for k in code_keys]
                           or [-1], dtype=np.int64)[packed[:, 4]]
    user_key = np.where(code_rating >= 0, (turn_key << 16) | np.maximum(code_rating, 0), -1)
    ratings = _lookup(user_key, (((users[:, 0] << 16) | users[:, 1]) << 16) | users[:, 2],
                      users[:, 3], _MISFIT)
    code_ord = np.array([ord_of.get(k, 0) or 0 for k in code_keys] or [0], dtype=np.int64)
    order = np.lexsort((_ranks(coder_names)[packed[:, 3]] if coder_names else packed[:, 3],
                        _ranks(code_keys)[packed[:, 4]] if code_keys else packed[:, 4],
                        code_ord[packed[:, 4]], packed[:, 2], packed[:, 1], rowid))
    packed, rowid, role_idx, ratings = packed[order], rowid[order], role_idx[order], \
        ratings[order]
    (ids, participants, models), at = _by_rowid(
        db, rowid, ("conversation_id", "participant_id", "model"))
    user_rating = (ratings - _BIAS).astype(object)
    user_rating[ratings == _MISSING] = "NA"  # the user marked it not applicable
    user_rating[ratings == _MISFIT] = None  # not rated
    return pd.DataFrame({
        "coder": _column(np.asarray(coder_names, dtype=object)[packed[:, 3]], categorical),
        "conversation_id": _column(ids[at], categorical),
        "participant_id": _column(participants[at], categorical),
        "model": _column(models[at], categorical),
        "position": packed[:, 1],
        "sentence": packed[:, 2],
        "role": _column(np.asarray([None, *roles], dtype=object)[role_idx], categorical),
        "code": _column(np.asarray(code_keys, dtype=object)[packed[:, 4]], categorical),
        "value": _unpacked_values(packed[:, 5]),
        "user_rating": user_rating,
    }, columns=list(CODING_COLUMNS))


@read_snapshot
def coding_values_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
    categorical: bool = False,
    times: bool = False,
) -> pd.DataFrame:
    """The lean form of :func:`codings_frame` for agreement: coder, conversation_id,
    position, sentence, code, value -- no joined columns, in no particular order
    (``times``: and ``saved_at``, when each coding was last saved as UTC datetime64, NaT
    if unknown, read in the same pass; see :func:`saving_times`).

    Read through the packed path (see above) where every row fits it. ``categorical``
    returns coder, conversation_id and code as Categoricals (built from the packed
    indexes without touching a string per row) and, from the packed path, ``value`` as
    float64 (NaN = not applicable; every packed value is a whole number)."""
    return _coding_values(db, codes, coders, conversations, categorical,
                          "k.updated_at" if times else None)


def _coding_values(db: Database, codes: Sequence[str], coders: Sequence[str],
                   conversations: ConversationFilter | None, categorical: bool,
                   saved_at: str | None) -> pd.DataFrame:
    """:func:`coding_values_frame`, with the saving times read as the SQL ``saved_at``
    (none when None). Rows come in conversation import order, then turn and sentence
    (coder and code in no set order), whichever path reads them: the units' order, which
    a bootstrap's draws follow, does not depend on when codings were saved."""
    times = saved_at is not None
    coder_sql, coder_names = _name_index(
        db, "k.coder", _names(db, "SELECT name FROM coders", coders), "coders", "name")
    code_sql, code_keys = _name_index(
        db, "k.code", _names(db, "SELECT key FROM codes", codes), "codes", "key")
    where, params = _grouped_where(conversations, _chosen(
        _beyond(db, codes, "SELECT key FROM codes"),
        _beyond(db, coders, "SELECT name FROM coders"), "+k."))
    read = _grouped(db, (_TURN, _SENTENCE, coder_sql, code_sql, _value("k.value")),
                    "codings", where, params, saved_at, saving_times)
    if read is None or not _fits(read.packed, small=(0, 1), named=(2, 3), values=(4,)):
        return _plain_coding_values(db, codes, coders, conversations, categorical, saved_at)
    read = read.in_order(0, 1)
    packed, stamps = read.packed, read.texts
    conversation = read.conversation_ids(categorical)
    if categorical:
        coder: Any = _named(coder_names, packed[:, 2])
        code: Any = _named(code_keys, packed[:, 3])
        value: Any = np.where(packed[:, 4] == _MISSING, np.nan,
                              (packed[:, 4] - _BIAS).astype(np.float64))
    else:
        coder = np.asarray(coder_names, dtype=object)[packed[:, 2]]
        code = np.asarray(code_keys, dtype=object)[packed[:, 3]]
        value = _unpacked_values(packed[:, 4])
    # turn and sentence numbers fit 0..65535 here (_fits): as compact reads keep them,
    # int32, half the bytes of the held frame's two widest columns
    width = np.int32 if categorical else np.int64
    position, sentence = packed[:, 0].astype(width), packed[:, 1].astype(width)
    del packed, read  # the packed rows go before the frame copies its columns
    frame = pd.DataFrame({
        "coder": coder,
        "conversation_id": conversation,
        "position": position,
        "sentence": sentence,
        "code": code,
        "value": value,
    }, columns=list(VALUE_COLUMNS))
    del position, sentence
    if times:
        frame["saved_at"] = (np.concatenate(stamps) if stamps
                             else np.array([], dtype="datetime64[ns]"))
    return frame


def _plain_coding_values(db: Database, codes: Sequence[str], coders: Sequence[str],
                         conversations: ConversationFilter | None, categorical: bool,
                         saved_at: str | None) -> pd.DataFrame:
    """:func:`_coding_values` the ordinary way (a row the packed read cannot hold)."""
    where, params = _where(conversations, _chosen(codes, coders))
    columns = (*VALUE_COLUMNS, "updated_at") if saved_at else VALUE_COLUMNS
    exprs = [str(saved_at) if c == "updated_at" else "k." + c for c in columns]
    plain = _frame(db, f"SELECT {', '.join(exprs)} FROM codings k JOIN conversations c "
                   f"ON c.conversation_id = k.conversation_id{where} "
                   "ORDER BY c.rowid, k.position, k.sentence, k.coder, k.code", params,
                   columns, ints=("position", "sentence"),
                   categories=("coder", "conversation_id", "code") if categorical else ())
    if saved_at:
        plain["saved_at"] = saving_times(plain.pop("updated_at"))
    return plain


def coding_times_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """When each coding was last saved: coder, conversation_id, position, sentence, code,
    saved_at (UTC datetime64; NaT for old rows) -- the coding order for drift. The text
    columns are Categoricals."""
    frame = coding_values_frame(db, codes=codes, coders=coders, conversations=conversations,
                                categorical=True, times=True)
    return frame.drop(columns="value")


@read_snapshot
def statuses_frame(
    db: Database,
    *,
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """Turns each coder has marked done: coder, conversation_id, position."""
    extra: list[tuple[str, list[Any]]] = [("s.done = 1", [])]
    if coders:
        extra.append(_in("s.coder", coders))
    where, params = _where(conversations, extra)
    sql = (
        "SELECT s.coder, s.conversation_id, s.position FROM turn_status s "
        "JOIN conversations c ON c.conversation_id = s.conversation_id"
        f"{where} ORDER BY c.rowid, s.position, s.coder"
    )
    return _ints(_frame(db, sql, params, ("coder", "conversation_id", "position")), "position")


@read_snapshot
def consensus_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
    categorical: bool = False,
) -> pd.DataFrame:
    """The adjudicated values, joined like :func:`codings_frame`."""
    extra = [_in("k.code", codes)] if codes else []
    where, params = _where(conversations, extra)
    sql = (
        "SELECT k.conversation_id, c.participant_id, c.model, k.position, k.sentence, t.role, "
        f"k.code, k.value, k.adjudicator, k.rationale, k.decided_at, {_USER_RATING}, "
        "k.source, k.origin FROM consensus k "
        "JOIN conversations c ON c.conversation_id = k.conversation_id "
        "LEFT JOIN turns t ON t.conversation_id = k.conversation_id AND t.position = k.position "
        "LEFT JOIN codes d ON d.key = k.code "
        "LEFT JOIN user_ratings u ON u.conversation_id = k.conversation_id "
        "AND u.position = k.position AND u.rating = d.user_rating"
        f"{where} ORDER BY c.rowid, k.position, k.sentence, d.ord, k.code"
    )
    cats = (*TEXT_COLUMNS[1:], "adjudicator") if categorical else ()
    frame = _frame(db, sql, params, CONSENSUS_COLUMNS, objects=("value", "user_rating"),
                   categories=cats, ints=("position", "sentence"))
    return frame


@read_snapshot
def provenance_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """How each stored coding was made: coder, conversation_id, position, sentence, code,
    source, blind (0/1), set_at, origin (read apart from the values, for exports that ask)."""
    where, params = _where(conversations, _chosen(codes, coders))
    sql = ("SELECT k.coder, k.conversation_id, k.position, k.sentence, k.code, k.source, "
           "k.blind, k.updated_at, k.origin FROM codings k "
           f"JOIN conversations c ON c.conversation_id = k.conversation_id{where}")
    return _frame(db, sql, params, PROVENANCE_COLUMNS, objects=("blind",),
                  ints=("position", "sentence"))


@read_snapshot
def revised_codings_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """The values changed after a reveal, joined and shaped like :func:`codings_frame`
    (plus ``set_at``)."""
    where, params = _where(conversations, _chosen(codes, coders))
    joined = _CODINGS_JOINED.replace("codings k", "revisions k", 1)
    sql = (
        "SELECT k.coder, k.conversation_id, c.participant_id, c.model, k.position, k.sentence, "
        f"t.role, k.code, k.value, {_USER_RATING}, k.updated_at FROM {joined}"
        f"{where} ORDER BY c.rowid, k.position, k.sentence, d.ord, k.code, k.coder"
    )
    return _frame(db, sql, params, (*CODING_COLUMNS, "set_at"),
                  objects=("value", "user_rating"), ints=("position", "sentence"))


@read_snapshot
def revisions_frame(
    db: Database,
    *,
    codes: Sequence[str] = (),
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """Values blind coders changed after the turn was revealed to them: coder,
    conversation_id, position, sentence, code, value, set_at (the blind values stay in
    the codings)."""
    where, params = _where(conversations, _chosen(codes, coders))
    sql = ("SELECT k.coder, k.conversation_id, k.position, k.sentence, k.code, k.value, "
           "k.updated_at FROM revisions k "
           f"JOIN conversations c ON c.conversation_id = k.conversation_id{where} "
           "ORDER BY c.rowid, k.position, k.sentence, k.code, k.coder")
    return _frame(db, sql, params, REVISION_COLUMNS, ints=("position", "sentence"))


@read_snapshot
def user_ratings_frame(
    db: Database,
    *,
    ratings: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
    categorical: bool = False,
) -> pd.DataFrame:
    """The users' own ratings: conversation_id, position, rating, value (None = NA).

    Read through the packed path (see above) where every row fits it. ``categorical``
    returns conversation_id and rating as Categoricals (comparing a rating then compares
    small integers, not a text per row), whichever path reads them."""
    columns = ("conversation_id", "position", "rating", "value")
    names = sorted(_names(db, "SELECT DISTINCT rating FROM user_ratings", ratings))
    read = None
    if len(names) <= _MAX_NAMES:
        # every rating SENSE-7 asks for: read every row and leave out the others after (a
        # name not in the list maps to _MISSING), cheaper than an IN test of each row
        every = set(RATING_KEYS) <= set(ratings)
        where, params = _grouped_where(conversations, [_in("+k.rating", ratings)]
                                       if ratings and not every else [])
        read = _grouped(db, (_TURN, _index_case("k.rating", names),
                             _value("k.value")), "user_ratings", where, params)
        if read is not None and every:
            read = read.where(read.packed[:, 1] != _MISSING)
    if read is None or not _fits(read.packed, small=(0,), named=(1,), values=(2,)):
        where, params = _where(conversations, [_in("k.rating", ratings)] if ratings else [])
        sql = ("SELECT k.conversation_id, k.position, k.rating, k.value FROM user_ratings k "
               f"JOIN conversations c ON c.conversation_id = k.conversation_id{where} "
               "ORDER BY c.rowid, k.position, k.rating")
        try:
            with values_checked(db.conn):  # a turn number of the wrong kind, named
                return _ints(_frame(db, sql, params, columns, ("value",), categories=(
                    ("conversation_id", "rating") if categorical else ())), "position")
        except (ValueError, TypeError, OverflowError):
            raise _not_a_rating(db) from None
    read = read.in_order(0, 1)  # as ORDER BY rowid, turn, rating (names sorted)
    packed = read.packed
    rating: Any = (_named(names, packed[:, 1]) if categorical
                   else np.asarray(names, dtype=object)[packed[:, 1]])
    return pd.DataFrame({
        "conversation_id": read.conversation_ids(categorical),
        "position": packed[:, 0].astype(np.int64),
        "rating": rating,
        "value": pd.arrays.IntegerArray(packed[:, 2].astype(np.int64) - _BIAS,
                                        packed[:, 2] == _MISSING),
    }, columns=list(columns))


def _not_a_rating(db: Database) -> InputError:
    """The first user's rating that is not a whole number, named (only a file changed
    outside sense7-coder holds one)."""
    row = db.conn.execute(
        "SELECT conversation_id, position, rating, value FROM user_ratings "
        "WHERE value IS NOT NULL AND typeof(value) <> 'integer' ORDER BY rowid LIMIT 1"
    ).fetchone()
    cid, position, rating, value = row if row else ("?", 0, "?", None)
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    return InputError(
        file=path or "the project",
        message=(f"{value!r} is not a whole number (the project file was changed outside "
                 "sense7-coder)"),
        location=f"users' ratings, conversation {cid!r}, turn {position}, rating {rating!r}",
        field="value",
    )


@read_snapshot
def turns_frame(
    db: Database,
    *,
    roles: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """Turns (conversation_id, position, role), optionally of some roles only."""
    extra = [_in("t.role", roles)] if roles else []
    where, params = _where(conversations, extra)
    sql = (
        "SELECT t.conversation_id, t.position, t.role FROM turns t "
        "JOIN conversations c ON c.conversation_id = t.conversation_id"
        f"{where} ORDER BY c.rowid, t.position"
    )
    return _ints(_frame(db, sql, params, ("conversation_id", "position", "role")), "position")


@read_snapshot
def sentences_frame(
    db: Database,
    *,
    roles: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """Stored sentences of turns (conversation_id, position, sentence, role)."""
    extra = [_in("t.role", roles)] if roles else []
    where, params = _where(conversations, extra)
    sql = (
        "SELECT s.conversation_id, s.position, s.sentence, t.role FROM sentences s "
        "JOIN turns t ON t.conversation_id = s.conversation_id AND t.position = s.position "
        "JOIN conversations c ON c.conversation_id = s.conversation_id"
        f"{where} ORDER BY c.rowid, s.position, s.sentence"
    )
    frame = _frame(db, sql, params, ("conversation_id", "position", "sentence", "role"))
    return _ints(frame, "position", "sentence")


@read_snapshot
def memos_frame(
    db: Database,
    *,
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
) -> pd.DataFrame:
    """Coders' memos: coder, conversation_id, position, sentence, text."""
    extra = [_in("m.coder", coders)] if coders else []
    where, params = _where(conversations, extra)
    sql = (
        "SELECT m.coder, m.conversation_id, m.position, m.sentence, m.text FROM memos m "
        "JOIN conversations c ON c.conversation_id = m.conversation_id"
        f"{where} ORDER BY c.rowid, m.position, m.sentence, m.coder"
    )
    frame = _frame(db, sql, params, ("coder", "conversation_id", "position", "sentence", "text"))
    return _ints(frame, "position", "sentence")


def conversation_order(db: Database) -> dict[str, int]:
    """conversation_id -> import order (rowid), for sorting."""
    return {r[0]: r[1] for r in db.execute("SELECT conversation_id, rowid FROM conversations")}


def conversation_sources(
    db: Database, conversations: ConversationFilter | None = None
) -> list[tuple[str, str | None, str | None]]:
    """(conversation_id, participant_id, model) of the conversations, in import order."""
    where, params = _where(conversations)
    sql = (f"SELECT c.conversation_id, c.participant_id, c.model FROM conversations c{where} "
           "ORDER BY c.rowid")
    return [tuple(r) for r in db.execute(sql, params)]


def turn_texts(db: Database, conversation_id: str) -> list[tuple[int, str, str]]:
    """(position, role, text) of a conversation's turns, in order."""
    return [tuple(r) for r in db.execute(
        "SELECT position, role, text FROM turns WHERE conversation_id = ? ORDER BY position",
        [conversation_id])]

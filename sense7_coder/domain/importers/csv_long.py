"""Long CSV: one row per message.

Columns (names matched ignoring case, spaces and underscores; ``--map FIELD=COLUMN``
points a field at any other column):

* ``conversation_id`` (also ``conversation``, ``conv_id``, ``dialog_id``, ``chat_id``):
  which conversation the message belongs to. Without this column the whole file is one
  conversation, or, when there is a position column, a new conversation starts each time the
  position does not increase; such conversations get the ids ``<file stem>-1``,
  ``<file stem>-2``, ... An empty id cell is an error.
* ``role`` (user / assistant / system, or a name such as seeker, bot, supporter), or
  ``speaker`` (``speaker``, ``name``, ``author``, ``sender``) with ``--roles`` for names
  that are not obvious. With both, ``role`` decides and ``speaker`` is kept as the name.
* ``text`` (also ``content``, ``message``, ``message_text``, ``body``, ``utterance``); empty
  texts are kept.
* optional ``position`` (``turn``, ``message_index``, ``utterance_idx``, ``index``): the
  order of messages within a conversation (numbers; a position given twice in one
  conversation is an error). Turns are renumbered 1..n in that order; without the column,
  file order is used.
* optional ``participant_id`` (``participant``, ``pid``, ``user_id``), ``model``, ``topic``:
  conversation-level; rows of one conversation must not disagree.
* optional ``time_offset`` (``time_offset_seconds``, seconds since the start) and
  ``comment`` (the user's remark on the turn).
* rating columns: ``overall`` (or ``EmpathyOverall``) and the seven dimensions
  ``affective`` .. ``relational``, or ``rating_<key>``: 1-5, a label ``very poor`` ..
  ``very good``, ``unknown``/``NA`` for not applicable, empty for not rated.
* columns named ``conversation.<name>`` become conversation attributes ``<name>`` (constant
  within a conversation); every other column becomes a turn attribute under its own name
  (numbers are stored as numbers, empty cells are left out).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..models import RATING_KEYS, Conversation, ImportBatch, Participant
from .options import ImportOptions
from .roles import RoleResolver
from .tables import ColumnChoice, Table, find_column, read_csv_table
from .ticker import Ticker
from .turns import MessageColumns, build_conversations, stripped_codes
from .values import coerce_scalar, rating_candidates

CANDIDATES: dict[str, tuple[str, ...]] = {
    "conversation_id": ("conversation_id", "conversation", "conv_id", "dialog_id",
                        "dialogue_id", "chat_id", "thread_id"),
    "participant_id": ("participant_id", "participant", "pid", "user_id"),
    "model": ("model", "assistant_model"),
    "topic": ("topic",),
    "role": ("role",),
    "speaker": ("speaker", "name", "author", "sender"),
    "text": ("text", "content", "message", "message_text", "body", "utterance"),
    "position": ("position", "turn", "message_index", "utterance_idx", "turn_index", "index"),
    "time_offset": ("time_offset", "time_offset_seconds"),
    "comment": ("comment",),
}
CONVERSATION_PREFIX = "conversation."


def message_columns(table: Table, options: ImportOptions) -> tuple[MessageColumns, dict[str, str]]:
    """Resolve the columns of a long table; returns the message columns and the
    conversation-level ones (field -> column)."""
    mapping = options.mapping
    found: dict[str, str | None] = {}
    for name in ("conversation_id", "role", "speaker", "position", "time_offset", "comment",
                 "participant_id", "model", "topic"):
        found[name] = find_column(table, name, CANDIDATES[name], mapping)
    text = find_column(table, "text", CANDIDATES["text"], mapping, required=True,
                       what="message text")
    assert text is not None
    if found["role"] is None and found["speaker"] is None:
        find_column(table, "role", ("role", "speaker"), mapping, required=True,
                    what="role (or speaker)")
    ratings: dict[str, str] = {}
    for key in RATING_KEYS:
        col = find_column(table, key, rating_candidates(key), mapping)
        if col is not None:
            ratings[key] = col
    used = {c for c in found.values() if c} | {text} | set(ratings.values())
    conv_attrs = [c for c in table.columns if c.casefold().startswith(CONVERSATION_PREFIX)]
    turn_attrs = [c for c in table.columns if c not in used and c not in conv_attrs
                  and not c.startswith("Unnamed: ")]
    cols = MessageColumns(
        text=text,
        conversation_id=found["conversation_id"],
        role=found["role"],
        speaker=found["speaker"],
        position=found["position"],
        time_offset=found["time_offset"],
        comment=found["comment"],
        ratings=ratings,
        attributes=turn_attrs,
    )
    conv_level = {k: v for k in ("participant_id", "model", "topic") if (v := found[k])}
    conv_level.update({c: c for c in conv_attrs})
    return cols, conv_level


def conversation_values(
    table: Table, column: str, conversation_of: pd.Series, conversations: list[Conversation]
) -> list[str | None]:
    """The one non-empty value a conversation has in ``column``; disagreement is an error."""
    cells = table.frame[column]
    if len(cells) != len(conversation_of):
        cells = cells.loc[conversation_of.index]
    value_codes, values = stripped_codes(cells)
    conv_codes = conversation_of.to_numpy()
    pairs = pd.DataFrame({"c": conv_codes, "v": value_codes}, index=conversation_of.index)
    if "" in values:
        pairs = pairs[value_codes != values.index("")]
    distinct = pairs.drop_duplicates(["c", "v"])
    clash = distinct["c"].duplicated()
    if bool(clash.any()):
        label = int(clash[clash].index[0])
        c = int(distinct.at[label, "c"])
        first = distinct[distinct["c"] == c].iloc[0]
        raise table.error(
            label,
            f"conversation '{conversations[c].conversation_id}' has "
            f"'{values[int(distinct.at[label, 'v'])]}' here but '{values[int(first['v'])]}' on "
            f"{table.locate(int(first.name))}; a conversation-level column must hold one "
            "value per conversation",
            column,
        )
    out: list[str | None] = [None] * len(conversations)
    for c, v in zip(distinct["c"].tolist(), distinct["v"].tolist(), strict=True):
        out[c] = values[v]
    return out


def field_columns(options: ImportOptions) -> ColumnChoice:
    """The columns a long table's fields are read from (for a file too wide to read whole:
    its other columns, attributes otherwise, are then ignored)."""
    def choose(header: Table) -> set[str]:
        cols, conv_level = message_columns(header, options)
        fields = {cols.text, cols.conversation_id, cols.role, cols.speaker, cols.position,
                  cols.time_offset, cols.comment, *cols.ratings.values(),
                  *(conv_level.get(k) for k in ("participant_id", "model", "topic"))}
        return {c for c in fields if c}
    return choose


def read_long_csv(path: Path, options: ImportOptions, ticker: Ticker | None = None) -> ImportBatch:
    table = read_csv_table(path, options.encoding, field_columns(options))
    return batch_from_table(table, path, options, ticker)


def batch_from_table(
    table: Table, path: Path, options: ImportOptions, ticker: Ticker | None = None
) -> ImportBatch:
    cols, conv_level = message_columns(table, options)
    built = build_conversations(table, cols, RoleResolver(options.roles), id_prefix=path.stem,
                                ticker=ticker)
    conversations = built.conversations
    participants: dict[str, Participant] = {}
    for name, column in conv_level.items():
        values = conversation_values(table, column, built.conversation_of, conversations)
        for conv, value in zip(conversations, values, strict=True):
            if value is None:
                continue
            if name == "participant_id":
                conv.participant_id = value
                participants.setdefault(value, Participant(value))
            elif name == "model":
                conv.model = value
            elif name == "topic":
                conv.topic = value
            else:
                conv.attributes[name[len(CONVERSATION_PREFIX):]] = coerce_scalar(value)
    for conv in conversations:
        conv.source = path.name
    warnings = table.ignored_note()
    unnamed = [c for c in table.columns if c.startswith("Unnamed: ")]
    if unnamed:
        warnings.append(f"columns without a header were ignored: {', '.join(unnamed)}")
    return ImportBatch(
        source=str(path),
        conversations=conversations,
        participants=list(participants.values()),
        warnings=warnings,
        skipped_rows=built.skipped_rows,
    )

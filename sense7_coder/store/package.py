"""SQL for copying one coder's share of a project into a coder package (a new project file).

Rows are read from the lead's project through its own connection and written into the
package's; conversations go in in the coder's presentation order, so the package lists
them in that order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlite_utils import Database

from ..domain.errors import ProjectError
from .journal import choose_journal_mode

#: table -> columns copied for the package's conversations
CONVERSATION_TABLES: dict[str, tuple[str, ...]] = {
    "turns": ("conversation_id", "position", "role", "speaker", "text", "time_offset",
              "comment", "attributes"),
    "sentences": ("conversation_id", "position", "sentence", "start", "end"),
    "user_ratings": ("conversation_id", "position", "rating", "value"),
}
#: table -> columns of the coder's own work copied into the package
CODER_TABLES: dict[str, tuple[str, ...]] = {
    "codings": ("coder", "conversation_id", "position", "sentence", "code", "value",
                "updated_at", "source", "blind", "origin"),
    "revisions": ("coder", "conversation_id", "position", "sentence", "code", "value",
                  "updated_at"),
    "turn_status": ("coder", "conversation_id", "position", "done", "updated_at"),
    "memos": ("coder", "conversation_id", "position", "sentence", "text", "updated_at"),
    "assignments": ("coder", "conversation_id", "overlap", "ord", "assigned_at"),
    "spans": ("coder", "conversation_id", "position", "start", "end", "code", "value", "memo",
              "updated_at", "source", "blind", "origin"),
    # her rationales of her values (m018)
    "value_rationales": ("coder", "conversation_id", "position", "sentence", "code", "text",
                         "updated_at"),
}
CONVERSATION_COLUMNS = ("conversation_id", "participant_id", "model", "topic", "source",
                        "attributes", "n_turns", "imported_at")


Row = tuple[object, ...]


def _copy(src: Database, dst: Database, table: str, cols: Sequence[str], where: str,
          params: Sequence[object] = (), order: str = "",
          shown: Callable[[Row], Row] | None = None) -> int:
    names = ", ".join(f"x.{c}" for c in cols)
    cursor = src.execute(
        f"SELECT {names} FROM {table} x JOIN temp.pkg_ids p "
        f"ON p.conversation_id = x.conversation_id {where} {order}", list(params))
    marks = ",".join("?" * len(cols))
    quoted = ", ".join(f'"{c}"' for c in cols)
    rows = cursor if shown is None else map(shown, cursor)
    cur = dst.conn.executemany(f"INSERT INTO {table}({quoted}) VALUES ({marks})", rows)
    return int(cur.rowcount)


def copy_share(src: Database, dst: Database, coder: str, conversation_ids: Sequence[str], *,
               with_ratings: bool, shown: set[str] | None = None,
               model: bool = True) -> dict[str, int]:
    """Copy ``conversation_ids`` (in this order) and ``coder``'s work on them into ``dst``.

    With ``shown`` (a blind study: the allow-list of attributes the lead shows coders)
    what blinding hides goes out of the rows as they are copied, so that nothing of it is
    ever written into the package (its history included): every attribute of a
    conversation, turn or participant not in ``shown``, the users' comments on turns, and
    unless ``model`` the model (also where it names a turn's speaker).

    The caller holds ``dst``'s transaction. Returns the rows copied per table.
    """
    src.execute("DROP TABLE IF EXISTS temp.pkg_ids")
    src.execute("CREATE TEMP TABLE pkg_ids (conversation_id TEXT PRIMARY KEY, ord INTEGER)")
    src.conn.executemany("INSERT INTO temp.pkg_ids VALUES (?, ?)",
                         [(cid, i) for i, cid in enumerate(conversation_ids)])
    counts: dict[str, int] = {}
    withheld = None if shown is None else _Withheld(src, shown, model)
    try:
        participants = src.execute(
            "SELECT participant_id, attributes FROM participants WHERE participant_id IN "
            "(SELECT c.participant_id FROM conversations c JOIN temp.pkg_ids p "
            "ON p.conversation_id = c.conversation_id)")
        dst.conn.executemany(
            "INSERT INTO participants(participant_id, attributes) VALUES (?, ?)",
            participants if withheld is None else map(withheld.participant, participants))
        counts["conversations"] = _copy(
            src, dst, "conversations", CONVERSATION_COLUMNS, "", order="ORDER BY p.ord",
            shown=withheld.conversation if withheld else None)
        for table, cols in CONVERSATION_TABLES.items():
            if table == "user_ratings" and not with_ratings:
                continue
            counts[table] = _copy(src, dst, table, cols, "",
                                  shown=withheld.turn if withheld and table == "turns" else None)
        dst.execute(
            "INSERT INTO coders(name, role, created_at) SELECT ?, 'coder', ?",
            [coder, (src.execute("SELECT created_at FROM coders WHERE name = ?", [coder])
                     .fetchone() or [None])[0]],
        )
        for table, cols in CODER_TABLES.items():
            counts[table] = _copy(src, dst, table, cols, "WHERE x.coder = ?", [coder])
    finally:
        src.execute("DROP TABLE IF EXISTS temp.pkg_ids")
    return counts


class _Withheld:
    """Rows of a blind study's package as its coder may see them (see :func:`copy_share`):
    attributes by allow-list (``shown``; an attributes text that is not a JSON object keeps
    nothing), no user's comment, the model (also as a turn's speaker) only where shown."""

    def __init__(self, src: Database, shown: set[str], model: bool) -> None:
        self.shown = shown
        self.model = model
        #: each conversation's model, to recognise it as a turn's speaker
        self.models = {} if model else dict(src.execute(
            "SELECT c.conversation_id, c.model FROM conversations c JOIN temp.pkg_ids p "
            "ON p.conversation_id = c.conversation_id").fetchall())

    def conversation(self, row: Row) -> Row:
        values = dict(zip(CONVERSATION_COLUMNS, row, strict=True))
        if not self.model:
            values["model"] = None
        values["attributes"] = _only(values["attributes"], self.shown)
        return tuple(values[c] for c in CONVERSATION_COLUMNS)

    def turn(self, row: Row) -> Row:
        values = dict(zip(CONVERSATION_TABLES["turns"], row, strict=True))
        values["comment"] = None
        model = self.models.get(str(values["conversation_id"]))
        if not self.model and model is not None and values["speaker"] == model:
            values["speaker"] = None
        values["attributes"] = _only(values["attributes"], self.shown)
        return tuple(values[c] for c in CONVERSATION_TABLES["turns"])

    def participant(self, row: Row) -> Row:
        return row[0], _only(row[1], self.shown)


def _only(text: object, shown: set[str]) -> object:
    """Attributes (JSON text) with only the names in ``shown``; unreadable: none. NULL
    stays NULL."""
    if text is None:
        return None
    try:
        attributes = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        attributes = None
    if not isinstance(attributes, dict):
        return "{}"  # unreadable: nothing of it may pass
    if set(attributes) <= shown:
        return text
    return json.dumps({k: v for k, v in attributes.items() if k in shown}, ensure_ascii=False)


def share_attribute_names(src: Database, conversation_ids: Sequence[str]) -> set[str]:
    """The attribute names the conversations ``conversation_ids``, their turns and their
    participants carry in ``src``."""
    names: set[str] = set()
    ids = list(conversation_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for table, where in (
                ("conversations", f"conversation_id IN ({marks})"),
                ("turns", f"conversation_id IN ({marks})"),
                ("participants", "participant_id IN (SELECT participant_id FROM "
                                 f"conversations WHERE conversation_id IN ({marks}))")):
            names |= {r[0] for r in src.execute(
                f"SELECT DISTINCT j.key FROM {table} x, json_each(x.attributes) j "
                f"WHERE {where} AND json_valid(x.attributes) "
                "AND json_type(x.attributes) = 'object'", chunk)}
    return names


def copy_meta(src: Database, dst: Database, skip: Sequence[str]) -> None:
    """The project's settings (codebook name and title, blind coding, ...)."""
    rows = [r for r in src.execute("SELECT key, value FROM meta") if r[0] not in set(skip)]
    dst.conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", rows)


def keep_whole_alone(db: Database, path: Path) -> None:
    """Switch the new package (its settings name its coder) to a rollback journal, folding
    in its -wal: from then on every commit lands in the file itself (see :mod:`.journal`).
    Called with the package's only connection, outside a transaction."""
    if choose_journal_mode(db.conn, path) != "delete":
        raise ProjectError(f"{path}: the package could not be switched to a rollback "
                           "journal (another program holds it open); nothing was written")

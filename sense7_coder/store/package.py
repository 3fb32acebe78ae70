"""SQL for copying one coder's share of a project into a coder package (a new project file).

Rows are read from the lead's project through its own connection and written into the
package's; conversations go in in the coder's presentation order, so the package lists
them in that order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlite_utils import Database

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
}
CONVERSATION_COLUMNS = ("conversation_id", "participant_id", "model", "topic", "source",
                        "attributes", "n_turns", "imported_at")


def _copy(src: Database, dst: Database, table: str, cols: Sequence[str], where: str,
          params: Sequence[object] = (), order: str = "") -> int:
    names = ", ".join(f"x.{c}" for c in cols)
    cursor = src.execute(
        f"SELECT {names} FROM {table} x JOIN temp.pkg_ids p "
        f"ON p.conversation_id = x.conversation_id {where} {order}", list(params))
    marks = ",".join("?" * len(cols))
    quoted = ", ".join(f'"{c}"' for c in cols)
    cur = dst.conn.executemany(f"INSERT INTO {table}({quoted}) VALUES ({marks})", cursor)
    return int(cur.rowcount)


def copy_share(src: Database, dst: Database, coder: str, conversation_ids: Sequence[str], *,
               with_ratings: bool) -> dict[str, int]:
    """Copy ``conversation_ids`` (in this order) and ``coder``'s work on them into ``dst``.

    The caller holds ``dst``'s transaction. Returns the rows copied per table.
    """
    src.execute("DROP TABLE IF EXISTS temp.pkg_ids")
    src.execute("CREATE TEMP TABLE pkg_ids (conversation_id TEXT PRIMARY KEY, ord INTEGER)")
    src.conn.executemany("INSERT INTO temp.pkg_ids VALUES (?, ?)",
                         [(cid, i) for i, cid in enumerate(conversation_ids)])
    counts: dict[str, int] = {}
    try:
        dst.conn.executemany(
            "INSERT INTO participants(participant_id, attributes) VALUES (?, ?)",
            src.execute(
                "SELECT participant_id, attributes FROM participants WHERE participant_id IN "
                "(SELECT c.participant_id FROM conversations c JOIN temp.pkg_ids p "
                "ON p.conversation_id = c.conversation_id)"),
        )
        counts["conversations"] = _copy(src, dst, "conversations", CONVERSATION_COLUMNS, "",
                                        order="ORDER BY p.ord")
        for table, cols in CONVERSATION_TABLES.items():
            if table == "user_ratings" and not with_ratings:
                continue
            counts[table] = _copy(src, dst, table, cols, "")
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


def attribute_names(db: Database) -> dict[str, set[str]]:
    """The attribute names the conversations, turns and participants of ``db`` carry,
    per table."""
    out: dict[str, set[str]] = {}
    for table in ("conversations", "turns", "participants"):
        out[table] = {r[0] for r in db.execute(
            f"SELECT DISTINCT j.key FROM {table} x, json_each(x.attributes) j "
            "WHERE json_valid(x.attributes) AND json_type(x.attributes) = 'object'")}
    return out


def keep_shown(dst: Database, shown: set[str], model: bool) -> None:
    """Leave in the package only what a blind coder is shown: the attributes named in
    ``shown`` (of conversations, turns and participants; an attributes text that is not
    an object keeps nothing), the model where ``model``, no user's comment on a turn.
    The caller holds ``dst``'s transaction."""
    dst.execute("UPDATE turns SET comment = NULL WHERE comment IS NOT NULL")
    if not model:
        dst.execute("UPDATE turns SET speaker = NULL WHERE speaker = (SELECT c.model FROM "
                    "conversations c WHERE c.conversation_id = turns.conversation_id)")
        dst.execute("UPDATE conversations SET model = NULL WHERE model IS NOT NULL")
    for table, key in (("conversations", "conversation_id"), ("participants",
                                                               "participant_id")):
        _keep_attributes(dst, table, key, shown)
    _keep_attributes(dst, "turns", "conversation_id, position", shown)
    # what the history recorded of the withholding would show what was withheld
    dst.execute("DELETE FROM history WHERE kind = 'attribute'")


def _keep_attributes(dst: Database, table: str, key: str, shown: set[str]) -> None:
    keys = [k.strip() for k in key.split(",")]
    changed = []
    for row in dst.execute(f"SELECT attributes, {key} FROM {table} "
                           "WHERE attributes IS NOT NULL"):
        text, where = row[0], tuple(row[1:])
        try:
            attributes = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            attributes = None
        kept = ({k: v for k, v in attributes.items() if k in shown}
                if isinstance(attributes, dict) else {})
        if kept != attributes:
            changed.append((json.dumps(kept, ensure_ascii=False), *where))
    match = " AND ".join(f"{k} = ?" for k in keys)
    dst.conn.executemany(f"UPDATE {table} SET attributes = ? WHERE {match}", changed)


def copy_meta(src: Database, dst: Database, skip: Sequence[str]) -> None:
    """The project's settings (codebook name and title, blind coding, ...)."""
    rows = [r for r in src.execute("SELECT key, value FROM meta") if r[0] not in set(skip)]
    dst.conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", rows)

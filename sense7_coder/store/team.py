"""SQL of the team folder (project/team/sync.py): a coder's own rows as change rows, what
was last sent of each, the rows a change file brings written into the lead's copy of that
coder's package (newest change per row wins, whatever order files arrive in), and the
record of every change file read (tables of m019)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlite_utils import Database

from .merge.staging import CODING_KEY, MEMO_KEY, SPAN_KEY

#: a coder's own tables and the columns naming a row of each
OWN_TABLES: dict[str, tuple[str, ...]] = {
    "codings": CODING_KEY,
    "revisions": CODING_KEY,
    "memos": MEMO_KEY,
    "spans": SPAN_KEY,
    "turn_status": ("coder", "conversation_id", "position"),
    "value_rationales": CODING_KEY,
}


def columns(db: Database, table: str) -> list[str]:
    """The columns of one of :data:`OWN_TABLES` a change carries (all but a rowid alias)."""
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "id"]


def own_rows(db: Database, coder: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(table, key as JSON, row) of every row of ``coder`` in :data:`OWN_TABLES`."""
    for table, key in OWN_TABLES.items():
        cols = columns(db, table)
        names = ", ".join(f'"{c}"' for c in cols)
        for values in db.execute(f"SELECT {names} FROM {table} WHERE coder = ?", [coder]):
            row = dict(zip(cols, values, strict=True))
            yield table, json.dumps([row[k] for k in key]), row


def sent(db: Database) -> dict[tuple[str, str], str]:
    return {(t, k): d for t, k, d in db.execute("SELECT tbl, key, digest FROM team_sent")}


def record_sent(db: Database, now: dict[tuple[str, str], str],
                gone: Iterable[tuple[str, str]]) -> None:
    db.conn.executemany("INSERT OR REPLACE INTO team_sent(tbl, key, digest) VALUES (?, ?, ?)",
                        [(t, k, d) for (t, k), d in now.items()])
    db.conn.executemany("DELETE FROM team_sent WHERE tbl = ? AND key = ?", list(gone))


def apply_rows(db: Database, coder: str,
               changes: Iterable[tuple[str, int, Iterable[tuple[str, list[Any],
                                                                dict[str, Any] | None]]]]
               ) -> tuple[int, list[tuple[str, list[Any], str]]]:
    """Write the rows of ``coder``'s changes, each (install, counter, rows), given in the
    order they are applied: each (table, key, row or None for a row taken away) where its
    change is newer than the one that last wrote that row (by counter, then install).
    Returns rows written and the rows two machines of the coder gave different values
    (table, key, the machine whose change is kept). The newest change of each row is found
    first and written once, in one statement per table, as writing the changes one by one
    would leave it. The caller has checked the table, the key's coder and the columns."""
    stamps: dict[tuple[Any, ...], tuple[int, str]] = {}
    texts: dict[tuple[Any, ...], str] = {}  # a row's key as its stamp names it
    for t, k, i, n in db.execute("SELECT tbl, key, install, counter FROM team_stamps "
                                 "WHERE coder = ?", [coder]):
        at = (t, *json.loads(k))
        stamps[at], texts[at] = (n, i), k
    values: dict[tuple[Any, ...], Any] = {}  # a row's value as the writes so far leave it
    final: dict[tuple[Any, ...], tuple[list[Any], dict[str, Any] | None]] = {}
    written = 0
    crossed = []
    for install, counter, rows in changes:
        for table, key, row in rows:
            at = (table, *key)
            stamp = stamps.get(at)
            newer = stamp is None or stamp < (counter, install)
            if stamp is not None and stamp[1] != install:
                if at not in values:
                    values[at] = _value(db, table, key)
                if values[at] != _value_of(table, row):
                    crossed.append((table, key, install if newer else stamp[1]))
            if not newer:
                continue
            stamps[at] = (counter, install)
            values[at] = _value_of(table, row)
            final[at] = (key, row)
            written += 1
    _write_final(db, coder, final, {at: (texts.get(at) or json.dumps(final[at][0]),
                                         *stamps[at]) for at in final})
    return written, crossed


def _write_final(db: Database, coder: str,
                 final: dict[tuple[Any, ...], tuple[list[Any], dict[str, Any] | None]],
                 stamps: dict[tuple[Any, ...], tuple[str, int, str]]) -> None:
    """Each row's newest change written: its row (or none) and its stamp (key as text,
    counter, install)."""
    for table, key_columns in OWN_TABLES.items():
        mine = [(k, r) for at, (k, r) in final.items() if at[0] == table]
        if not mine:
            continue
        where = " AND ".join(f'"{c}" IS ?' for c in key_columns)
        db.conn.executemany(f"DELETE FROM {table} WHERE {where}", [k for k, _ in mine])
        inserts: dict[tuple[str, ...], list[list[Any]]] = {}
        for _, row in mine:
            if row is not None:
                inserts.setdefault(tuple(row), []).append(list(row.values()))
        for names, values in inserts.items():
            quoted = ", ".join(f'"{c}"' for c in names)
            db.conn.executemany(f"INSERT INTO {table} ({quoted}) VALUES "
                                f"({','.join('?' * len(names))})", values)
    db.conn.executemany(
        "INSERT OR REPLACE INTO team_stamps(coder, tbl, key, install, counter) "
        "VALUES (?, ?, ?, ?, ?)",
        [(coder, at[0], text, install, counter)
         for at, (text, counter, install) in stamps.items()])


_VALUE = {"codings": "value", "revisions": "value", "memos": "text", "spans": "value",
          "turn_status": "done", "value_rationales": "text"}


def _value(db: Database, table: str, key: list[Any]) -> Any:
    where = " AND ".join(f'"{c}" IS ?' for c in OWN_TABLES[table])
    row = db.execute(f"SELECT {_VALUE[table]} FROM {table} WHERE {where}", key).fetchone()
    return None if row is None else ("row", row[0])


def _value_of(table: str, row: dict[str, Any] | None) -> Any:
    return None if row is None else ("row", row.get(_VALUE[table]))


def known_files(db: Database) -> set[str]:
    return {r[0] for r in db.execute("SELECT hash FROM team_files")}


def counters(db: Database) -> dict[tuple[str, str], set[int]]:
    """The counters of the change files read (applied or refused) per coder and machine."""
    out: dict[tuple[str, str], set[int]] = {}
    for coder, install, counter in db.execute("SELECT coder, install, counter FROM team_files"):
        out.setdefault((coder, install), set()).add(counter)
    return out


def record_files(db: Database, rows: Iterable[tuple[str, str, str, str, int, str, str | None,
                                                    str]]) -> None:
    """(hash, name, coder, install, counter, state, reason, seen_at) of each file read."""
    db.conn.executemany(
        "INSERT OR IGNORE INTO team_files(hash, name, coder, install, counter, state, reason, "
        "seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", list(rows))


def file_record(db: Database) -> list[tuple[Any, ...]]:
    """(coder, state, files, last seen, last reason) per coder and state."""
    return list(db.execute(
        "SELECT coder, state, COUNT(*), MAX(seen_at), "
        "(SELECT reason FROM team_files g WHERE g.coder = f.coder AND g.state = f.state "
        " ORDER BY seen_at DESC LIMIT 1) FROM team_files f GROUP BY coder, state "
        "ORDER BY coder, state"))


def last_change(db: Database) -> tuple[Any, ...]:
    """Where a coder's own work stands (a few index look-ups): when it moves, a sync has
    something to send."""
    return tuple(db.execute(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM history), (SELECT COUNT(*) FROM spans), "
        "(SELECT MAX(updated_at) FROM spans), (SELECT COUNT(*) FROM value_rationales), "
        "(SELECT MAX(updated_at) FROM value_rationales)").fetchone())


#: the settings a coder's package takes from the lead's project
_PACKAGE_SETTINGS = ("blind_coding", "hidden_attributes", "shown_attributes",
                     "require_all_codes", "lock_after_reveal", "judgment_attributes")


def fingerprint(db: Database, coder: str) -> str:
    """A digest of what a coder's package takes from the lead: her assignments, the
    codebook, the settings of the study she codes under."""
    import hashlib

    h = hashlib.sha256()
    for sql, params in (
            ("SELECT conversation_id, overlap, ord FROM assignments WHERE coder = ? "
             "ORDER BY conversation_id", [coder]),
            ("SELECT * FROM codes ORDER BY 1", []),
            (f"SELECT key, value FROM meta WHERE key IN ({','.join('?' * len(_PACKAGE_SETTINGS))})"
             " ORDER BY key", list(_PACKAGE_SETTINGS))):
        for row in db.execute(sql, params):
            h.update(json.dumps(list(row), default=str).encode())
        h.update(b"|")
    return h.hexdigest()


def copy_own(src: Database, dst: Database, coder: str) -> int:
    """Put ``coder``'s own rows of ``src`` into ``dst`` (a package made afresh for her),
    on the conversations ``dst`` holds, with the team tables' record; returns rows put."""
    held = {r[0] for r in dst.execute("SELECT conversation_id FROM conversations")}
    put = 0
    for table, key_text, row in list(own_rows(src, coder)):
        if row["conversation_id"] not in held:
            continue
        key = json.loads(key_text)
        where = " AND ".join(f'"{c}" IS ?' for c in OWN_TABLES[table])
        dst.execute(f"DELETE FROM {table} WHERE {where}", key)
        names = ", ".join(f'"{c}"' for c in row)
        dst.execute(f"INSERT INTO {table} ({names}) VALUES ({','.join('?' * len(row))})",
                    list(row.values()))
        put += 1
    for table in ("team_files", "team_stamps", "team_sent"):
        cols = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
        names = ", ".join(cols)
        dst.conn.executemany(
            f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({','.join('?' * len(cols))})",
            list(src.execute(f"SELECT {names} FROM {table}")))
    return put

"""SQL for merging another project file into this one.

The source is opened **read-only** (``file:...?mode=ro``) on its own connection, with the
same checks as :func:`..db.open_project_db` (SQLite header, application id, integrity,
schema version; ``trusted_schema`` off), and is never written. Its rows are copied into
TEMP tables (``temp.m_<table>``) of the target's connection -- these live outside the
project file -- and every comparison and insert is then one set-based statement. The
caller holds the target's transaction, so a merge lands whole or not at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from ...domain.errors import ProjectError
from ..beside import check_side_files
from ..db import connect, is_open_here, refuse_odd_file, verify_project
from ..file_messages import not_sqlite, unreadable_message
from ..journal import is_package
from ..snapshots import decode_error, first_not_text, strict_text
from ..values import restore_nominal_values

#: staged tables and their columns (the same names as the project tables)
STAGED: dict[str, tuple[str, ...]] = {
    "participants": ("participant_id", "attributes"),
    "conversations": (
        "conversation_id", "participant_id", "model", "topic", "source", "attributes",
        "n_turns", "imported_at",
    ),
    "turns": (
        "conversation_id", "position", "role", "speaker", "text", "time_offset", "comment",
        "attributes",
    ),
    "user_ratings": ("conversation_id", "position", "rating", "value"),
    "sentences": ("conversation_id", "position", "sentence", "start", "end"),
    "coders": ("name", "role", "created_at"),
    "codings": ("coder", "conversation_id", "position", "sentence", "code", "value", "updated_at"),
    # values blind coders changed after the reveal (files of schema 9 on)
    "revisions": ("coder", "conversation_id", "position", "sentence", "code", "value",
                  "updated_at"),
    "turn_status": ("coder", "conversation_id", "position", "done", "updated_at"),
    "memos": ("coder", "conversation_id", "position", "sentence", "text", "updated_at"),
    "consensus": (
        "conversation_id", "position", "sentence", "code", "value", "adjudicator", "rationale",
        "decided_at",
    ),
    "assignments": ("coder", "conversation_id", "overlap", "ord", "assigned_at"),
    # coded spans (files of schema m011 on)
    "spans": ("coder", "conversation_id", "position", "start", "end", "code", "value", "memo",
              "updated_at", "blind"),
    # coders' rationales of their values (files of schema m018 on)
    "value_rationales": ("coder", "conversation_id", "position", "sentence", "code", "text",
                         "updated_at"),
    "history": (
        "id", "at", "coder", "action", "kind", "conversation_id", "position", "sentence",
        "code", "before", "after", "source", "actor", "origin",
    ),
}
CODE_COLUMNS = ("key", "kind", "unit", "levels", "allow_na", "label")

#: key columns of the tables whose rows belong to a coder (or to the consensus)
CODING_KEY = ("coder", "conversation_id", "position", "sentence", "code")
MEMO_KEY = ("coder", "conversation_id", "position", "sentence")
CONSENSUS_KEY = ("conversation_id", "position", "sentence", "code")
SPAN_KEY = ("coder", "conversation_id", "position", "start", "end", "code")


# -- the source file -------------------------------------------------------------------------

def open_source(path: str | Path) -> sqlite3.Connection:
    """Open another project file read-only after checking it is a healthy project.

    The same checks as opening a project (our schema and nothing else, application id,
    version), and SQLite's full ``integrity_check``, which also finds indexes that disagree
    with their tables; a -wal beside it that was not written for it is refused (see
    :mod:`..beside`; read only when this process has no connection to the file).
    """
    path = Path(path)
    if not path.exists():
        raise ProjectError(f"{path}: no such project file")
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder, not a project file")
    refuse_odd_file(path)
    if not is_open_here(path):
        check_side_files(path, journal=False)  # an interrupted change is refused below
    conn = _connect_read_only(path)
    try:
        # every row is checked as the API checks it (project/merge/merging.py), with its own words
        verify_project(conn, path, full=True, shapes=False)
        missing = [t for t in ("conversations", "turns", "codes", "codings", "coders")
                   if t not in source_tables(conn)]
        if missing:
            raise ProjectError(f"{path}: not a complete project (no table {missing[0]})")
    except sqlite3.DatabaseError as e:
        conn.close()
        raise ProjectError(f"{path}: the project file is damaged or not a project ({e})") from None
    except ProjectError:
        conn.close()
        raise
    return conn


def log_notes(path: Path, conn: sqlite3.Connection) -> list[str]:
    """What the merge read beside the source, or could not: a -wal beside it holding
    changes not yet folded into the file is read with it (the source is never written);
    a package kept in WAL mode (by an earlier version) with no -wal beside it may have
    left its latest values in one that did not travel with it."""
    wal = path.with_name(path.name + "-wal")
    try:
        logged = wal.stat().st_size > 32
    except OSError:
        logged = False
    if logged:
        return [f"{path}: read with the changes still in {wal.name} beside it (not yet "
                "folded into the file); the source was left as it was"]
    mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if mode == "wal" and is_package(conn):
        return [f"{path}: this package was kept by an earlier version of sense7-coder, which "
                "left a package's latest values in a -wal file beside it until it was closed; "
                f"if it was not closed normally, ask for {wal.name} too and merge again with "
                "it beside the package"]
    return []


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; also for a file in a read-only folder (a shared drive).

    Reading a WAL-mode file normally needs its ``-shm`` file beside it, which a read-only
    folder cannot hold. Such a file is then opened as immutable -- complete as long as no
    ``-wal`` file holds changes not yet written into it, which is checked first.
    """
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(path, "ro")
        conn.execute("PRAGMA application_id").fetchone()
        return conn
    except sqlite3.Error as e:
        if conn is not None:
            conn.close()
        if not_sqlite(e):
            raise ProjectError(unreadable_message(path, e)) from None
        if "readonly" not in str(e) and "unable to open" not in str(e):
            raise ProjectError(f"{path}: cannot open the project file ({e})") from None
    journal = path.with_name(path.name + "-journal")
    if journal.exists() and journal.stat().st_size > 0:
        # a change that was interrupted: its pages are in the file, their undo in -journal;
        # read-only, SQLite cannot undo it, and reading the file as it is would merge it
        raise ProjectError(
            f"{path}: its last change was interrupted and is still to be undone from "
            f"{journal.name} beside it; open the file once with sense7-coder in a folder you "
            "can write to (which undoes it), then merge again; nothing was changed"
        )
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise ProjectError(
            f"{path}: the file is in a read-only folder and its latest changes are still in "
            f"{wal.name} beside it, which cannot be read from there; copy both files to a "
            "folder you can write to and merge from there"
        )
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True,
                               isolation_level=None)
        conn.execute("PRAGMA trusted_schema = OFF")
        return conn
    except sqlite3.Error as e:
        raise ProjectError(f"{path}: cannot open the project file ({e})") from None


def source_tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def source_codes(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The source's codes: key, kind, unit, levels (JSON text), allow_na, label."""
    rows = conn.execute(f"SELECT {', '.join(CODE_COLUMNS)} FROM codes ORDER BY ord, key")
    return [dict(zip(CODE_COLUMNS, r, strict=True)) for r in rows]


def codes_in_use(conn: sqlite3.Connection) -> dict[str, bool]:
    """code -> whether some coding or decision marks it not applicable, for used codes."""
    out: dict[str, bool] = {}
    for table in ("codings", "consensus"):
        if table not in source_tables(conn):
            continue
        for code, na in conn.execute(
            f"SELECT code, MAX(value IS NULL) FROM {table} GROUP BY code"
        ):
            out[code] = out.get(code, False) or bool(na)
    return out


def values_in_use(conn: sqlite3.Connection, code: str) -> set[Any]:
    rows = conn.execute(
        "SELECT DISTINCT value FROM codings WHERE code = ? AND value IS NOT NULL", [code]
    ).fetchall()
    if "consensus" in source_tables(conn):
        rows += conn.execute(
            "SELECT DISTINCT value FROM consensus WHERE code = ? AND value IS NOT NULL", [code]
        ).fetchall()
    return {r[0] for r in rows}


def coded_roles(conn: sqlite3.Connection, code: str) -> set[str]:
    """Roles of the turns the source's codings and decisions of ``code`` are on."""
    roles: set[str] = set()
    for table in ("codings", "consensus"):
        if table not in source_tables(conn):
            continue
        roles.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT t.role FROM {table} k JOIN turns t "
            "ON t.conversation_id = k.conversation_id AND t.position = k.position "
            "WHERE k.code = ? AND k.position > 0", [code]))
    return roles


# -- staging ---------------------------------------------------------------------------------

def stage(db: Database, source: sqlite3.Connection) -> dict[str, int]:
    """Copy the source's rows into ``temp.m_<table>``; returns rows staged per table.

    Tables an older source lacks are staged empty. The TEMP columns have no declared
    type, so every value keeps the storage class it had in the source.
    """
    present = source_tables(source)
    counts: dict[str, int] = {}
    # one read transaction: every table from the same snapshot, even while a coder's
    # window is still writing to the source
    source.execute("BEGIN")
    try:
        for table, cols in STAGED.items():
            db.execute(f"DROP TABLE IF EXISTS temp.m_{table}")
            db.execute(f"CREATE TEMP TABLE m_{table} ({', '.join(cols)})")
            if table not in present:
                counts[table] = 0
                continue
            names = ", ".join(f'"{c}"' for c in cols)
            marks = ",".join("?" * len(cols))
            try:
                with strict_text(source):  # text that is not UTF-8 is refused, not mended
                    cursor = source.execute(f"SELECT {names} FROM {table}")
                    db.conn.executemany(f"INSERT INTO temp.m_{table} VALUES ({marks})",
                                        cursor)
            except sqlite3.OperationalError as e:
                if not decode_error(e):
                    raise
                raise NotText(table, *first_not_text(source, table, cols)) from None
            counts[table] = int(
                db.execute(f"SELECT COUNT(*) FROM temp.m_{table}").fetchone()[0]
            )
    finally:
        source.execute("ROLLBACK")
    db.execute("CREATE INDEX temp.m_turns_key ON m_turns(conversation_id, position)")
    # the turns each staged sentence splits are looked up by turn (a scan per turn of a
    # project was quadratic: minutes for a package of 20,000 conversations)
    db.execute("CREATE INDEX temp.m_sentences_turn ON m_sentences(conversation_id, position)")
    # a source written before schema 4 may hold nominal levels such as "1" as numbers
    restore_nominal_values(db, ["temp.m_codings", "temp.m_consensus", "temp.m_spans"])
    return counts


class NotText(Exception):
    """A source's text that is not UTF-8: the table, its row (rowid) and column."""

    def __init__(self, table: str, rowid: int, column: str) -> None:
        super().__init__(table, rowid, column)
        self.table, self.rowid, self.column = table, rowid, column


def staged_rows(db: Database, table: str) -> Iterator[tuple[Any, ...]]:
    """The staged rows of ``table`` in the source's order: (row number, *STAGED columns)."""
    cols = ", ".join(STAGED[table])
    yield from db.execute(f"SELECT rowid, {cols} FROM temp.m_{table} ORDER BY rowid")


def staged_turn_counts(db: Database) -> dict[Any, int]:
    """conversation id -> how many turns the source holds for it."""
    return {r[0]: int(r[1]) for r in db.execute(
        "SELECT conversation_id, COUNT(*) FROM temp.m_turns GROUP BY conversation_id")}


def sentence_text_lengths(db: Database) -> dict[tuple[Any, Any], int]:
    """(conversation id, turn) -> characters of the turn's text, for the turns the staged
    sentences split (read from this file, where the new conversations were added)."""
    return {(r[0], r[1]): int(r[2]) for r in db.execute(
        "SELECT t.conversation_id, t.position, length(t.text) FROM turns t "
        "WHERE EXISTS (SELECT 1 FROM temp.m_sentences s "
        "WHERE s.conversation_id = t.conversation_id AND s.position = t.position)")}


def drop_stage(db: Database) -> None:
    for table in (*STAGED, "made", "versions"):
        db.execute(f"DROP TABLE IF EXISTS temp.m_{table}")


# -- conversations ---------------------------------------------------------------------------

def turn_mismatches(db: Database, limit: int = 6) -> list[tuple[str, int | str, str]]:
    """(conversation, turn, what differs) for conversations in both files whose turns differ."""
    sql = f"""
        SELECT s.conversation_id, s.position,
               CASE WHEN t.position IS NULL THEN 'only in the source'
                    WHEN t.role IS NOT s.role THEN 'a different role'
                    ELSE 'a different text' END
        FROM temp.m_turns s
        JOIN conversations c ON c.conversation_id = s.conversation_id
        LEFT JOIN turns t ON t.conversation_id = s.conversation_id AND t.position = s.position
        WHERE t.position IS NULL OR t.text IS NOT s.text OR t.role IS NOT s.role
        UNION ALL
        SELECT t.conversation_id, t.position, 'only in the target'
        FROM turns t
        JOIN temp.m_conversations sc ON sc.conversation_id = t.conversation_id
        WHERE NOT EXISTS (SELECT 1 FROM temp.m_turns s
                          WHERE s.conversation_id = t.conversation_id
                          AND s.position = t.position)
        ORDER BY 1, 2 LIMIT {int(limit)}
    """
    # a turn number another tool stored as text (or binary) is shown as it is
    return [(r[0], r[1] if isinstance(r[1], int) else repr(r[1]), r[2])
            for r in db.execute(sql)]


def sentence_mismatches(db: Database, limit: int = 6) -> list[tuple[str, int]]:
    """Turns segmented differently in the two files that the source codes by sentence."""
    sql = f"""
        WITH both_turns AS (
            SELECT DISTINCT s.conversation_id, s.position FROM temp.m_sentences s
            WHERE EXISTS (SELECT 1 FROM sentences t WHERE t.conversation_id = s.conversation_id
                          AND t.position = s.position)
        ),
        src AS (SELECT conversation_id, position, sentence, start, end FROM temp.m_sentences
                WHERE (conversation_id, position) IN (SELECT * FROM both_turns)),
        tgt AS (SELECT conversation_id, position, sentence, start, end FROM sentences
                WHERE (conversation_id, position) IN (SELECT * FROM both_turns)),
        differ AS (
            SELECT conversation_id, position FROM (SELECT * FROM src EXCEPT SELECT * FROM tgt)
            UNION
            SELECT conversation_id, position FROM (SELECT * FROM tgt EXCEPT SELECT * FROM src)
        )
        SELECT d.conversation_id, d.position FROM differ d
        WHERE EXISTS (SELECT 1 FROM temp.m_codings k WHERE k.conversation_id = d.conversation_id
                      AND k.position = d.position AND k.sentence > 0)
           OR EXISTS (SELECT 1 FROM temp.m_memos k WHERE k.conversation_id = d.conversation_id
                      AND k.position = d.position AND k.sentence > 0)
           OR EXISTS (SELECT 1 FROM temp.m_consensus k
                      WHERE k.conversation_id = d.conversation_id
                      AND k.position = d.position AND k.sentence > 0)
        ORDER BY 1, 2 LIMIT {int(limit)}
    """
    return [(r[0], int(r[1])) for r in db.execute(sql)]


def insert_new_conversations(db: Database) -> dict[str, int]:
    """Copy conversations the target lacks, with participants, turns, ratings, sentences."""
    db.execute(
        "CREATE TEMP TABLE IF NOT EXISTS m_new (conversation_id PRIMARY KEY)"
    )
    db.execute("DELETE FROM temp.m_new")
    db.execute(
        "INSERT INTO temp.m_new SELECT DISTINCT s.conversation_id FROM temp.m_conversations s "
        "WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE c.conversation_id = s.conversation_id)"
    )
    n = {"conversations": int(db.execute("SELECT COUNT(*) FROM temp.m_new").fetchone()[0])}
    cur = db.execute(
        "INSERT INTO participants(participant_id, attributes) "
        "SELECT p.participant_id, p.attributes FROM temp.m_participants p "
        "WHERE p.participant_id IN (SELECT s.participant_id FROM temp.m_conversations s "
        "JOIN temp.m_new USING (conversation_id)) "
        "AND NOT EXISTS (SELECT 1 FROM participants t WHERE t.participant_id = p.participant_id)"
    )
    n["participants"] = cur.rowcount
    db.execute(
        "INSERT OR IGNORE INTO participants(participant_id) SELECT DISTINCT s.participant_id "
        "FROM temp.m_conversations s JOIN temp.m_new USING (conversation_id) "
        "WHERE s.participant_id IS NOT NULL"
    )
    cols = ", ".join(STAGED["conversations"])
    db.execute(
        f"INSERT INTO conversations({cols}) SELECT {', '.join('s.' + c for c in STAGED['conversations'])} "
        "FROM temp.m_conversations s JOIN temp.m_new USING (conversation_id) ORDER BY s.rowid"
    )
    for table in ("turns", "user_ratings"):
        cols = ", ".join(STAGED[table])
        cur = db.execute(
            f"INSERT INTO {table}({cols}) SELECT {', '.join('s.' + c for c in STAGED[table])} "
            f"FROM temp.m_{table} s JOIN temp.m_new USING (conversation_id)"
        )
        n[table] = cur.rowcount
    # sentences of new conversations, and of old turns the target has not segmented yet
    cur = db.execute(
        "INSERT INTO sentences(conversation_id, position, sentence, start, end) "
        "SELECT s.conversation_id, s.position, s.sentence, s.start, s.end FROM temp.m_sentences s "
        "WHERE EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = s.conversation_id "
        "AND t.position = s.position) "
        "AND NOT EXISTS (SELECT 1 FROM sentences x WHERE x.conversation_id = s.conversation_id "
        "AND x.position = s.position)"
    )
    n["sentences"] = cur.rowcount
    return n


# -- coders and their work -------------------------------------------------------------------

def insert_new_coders(db: Database) -> list[str]:
    names = [r[0] for r in db.execute(
        "SELECT s.name FROM temp.m_coders s WHERE NOT EXISTS "
        "(SELECT 1 FROM coders t WHERE t.name = s.name) ORDER BY s.name"
    )]
    db.execute(
        "INSERT INTO coders(name, role, created_at) SELECT s.name, s.role, s.created_at "
        "FROM temp.m_coders s WHERE NOT EXISTS (SELECT 1 FROM coders t WHERE t.name = s.name)"
    )
    return names


def role_differences(db: Database) -> list[tuple[str, str, str]]:
    """(coder, role in the target, role in the source) where they differ."""
    return [(r[0], r[1], r[2]) for r in db.execute(
        "SELECT t.name, t.role, s.role FROM temp.m_coders s JOIN coders t ON t.name = s.name "
        "WHERE t.role IS NOT s.role ORDER BY t.name"
    )]


def _on(key: tuple[str, ...]) -> str:
    return " AND ".join(f"t.{c} = s.{c}" for c in key)


#: the column that says when each kind of value was last set
STAMP = {"codings": "updated_at", "revisions": "updated_at", "memos": "updated_at",
         "consensus": "decided_at", "spans": "updated_at", "value_rationales": "updated_at"}
#: the columns a source's value brings along when it replaces the target's
TAKEN = {"codings": ("value", "updated_at"), "revisions": ("value", "updated_at"),
         "memos": ("text", "updated_at"),
         "consensus": ("value", "adjudicator", "rationale", "decided_at"),
         "spans": ("value", "memo", "updated_at", "blind"),
         "value_rationales": ("text", "updated_at")}


def conflicts(db: Database, table: str, key: tuple[str, ...], column: str) -> list[tuple[Any, ...]]:
    """Rows in both files whose ``column`` differs: key columns, target's, source's value,
    then the target's and the source's time (:data:`STAMP`)."""
    keys = ", ".join(f"s.{c}" for c in key)
    stamp = STAMP[table]
    return [tuple(r) for r in db.execute(
        f"SELECT {keys}, t.{column}, s.{column}, t.{stamp}, s.{stamp} "
        f"FROM temp.m_{table} s JOIN {table} t "
        f"ON {_on(key)} WHERE t.{column} IS NOT s.{column} ORDER BY {keys}"
    )]


#: tables whose rows record how each value was made (``source``, ``origin``, ``blind``)
PROVENANCE = {"codings": ("source", "origin", "blind"), "consensus": ("source", "origin"),
              "spans": ("source", "origin")}


def take_source(db: Database, table: str, key: tuple[str, ...],
                keys: list[tuple[Any, ...]], origin: str) -> int:
    """Replace the target's value (and its time, and who decided) by the source's, for
    the rows with these ``keys``; returns how many rows changed. A replaced coding or
    consensus value is recorded as merged from ``origin`` (and, for a coding, not blind
    until :func:`.guard.stamp_merged` says how it was made)."""
    cols = TAKEN[table]
    match = " AND ".join(f"s.{c} = {table}.{c}" for c in key)
    where = " AND ".join(f"{c} = ?" for c in key)
    also = {"source": "'merged'", "origin": "?", "blind": "0"}
    extra = [f"{c} = {also[c]}" for c in PROVENANCE.get(table, ())]
    params = [(origin, *k) for k in keys] if extra else keys
    cur = db.conn.executemany(
        f"UPDATE {table} SET ({', '.join(cols)}) = (SELECT {', '.join('s.' + c for c in cols)} "
        f"FROM temp.m_{table} s WHERE {match})" + "".join(f", {e}" for e in extra)
        + f" WHERE {where}", params)
    return int(cur.rowcount)


def count_same(db: Database, table: str, key: tuple[str, ...], column: str) -> int:
    return int(db.execute(
        f"SELECT COUNT(*) FROM temp.m_{table} s JOIN {table} t ON {_on(key)} "
        f"WHERE t.{column} IS s.{column}"
    ).fetchone()[0])


def insert_missing(db: Database, table: str, key: tuple[str, ...]) -> int:
    """Insert the staged rows whose key the target does not have; returns how many."""
    cols = STAGED[table]
    cur = db.execute(
        f"INSERT INTO {table}({', '.join(cols)}) SELECT {', '.join('s.' + c for c in cols)} "
        f"FROM temp.m_{table} s WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE {_on(key)})"
    )
    return cur.rowcount


def merge_statuses(db: Database) -> int:
    """A turn marked done in either file is done. Returns rows added or turned to done."""
    added = db.execute(
        "INSERT INTO turn_status(coder, conversation_id, position, done, updated_at) "
        "SELECT s.coder, s.conversation_id, s.position, s.done, s.updated_at "
        "FROM temp.m_turn_status s WHERE s.done = 1 AND NOT EXISTS (SELECT 1 FROM turn_status t "
        "WHERE t.coder = s.coder AND t.conversation_id = s.conversation_id "
        "AND t.position = s.position)"
    ).rowcount
    updated = db.execute(
        "UPDATE turn_status SET done = 1, updated_at = (SELECT s.updated_at "
        "FROM temp.m_turn_status s WHERE s.coder = turn_status.coder "
        "AND s.conversation_id = turn_status.conversation_id "
        "AND s.position = turn_status.position) "
        "WHERE done = 0 AND EXISTS (SELECT 1 FROM temp.m_turn_status s "
        "WHERE s.coder = turn_status.coder AND s.conversation_id = turn_status.conversation_id "
        "AND s.position = turn_status.position AND s.done = 1)"
    ).rowcount
    return int(added) + int(updated)

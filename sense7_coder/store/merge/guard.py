"""SQL for what a merge takes from a file it does not trust: a coder package brings only
its coder's own work, a locked value stays as it is, and how each merged value was made is
recomputed here rather than copied.

Works on the TEMP tables :func:`.staging.stage` filled (``temp.m_<table>``), inside the
merge's transaction; the source file is only read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

#: tables whose rows belong to one coder (the package's coder keeps hers)
CODER_ROWS = ("codings", "revisions", "turn_status", "memos", "spans", "value_rationales")
#: tables a package never brings (the lead's alone)
LEAD_ROWS = ("consensus", "history", "assignments")
#: tables of conversations (a package brings no conversation the target lacks)
CONVERSATION_ROWS = ("turns", "user_ratings", "sentences", "codings", "revisions",
                     "turn_status", "memos", "spans", "consensus", "assignments",
                     "value_rationales")
#: how a value can have been made in a coder package (anything else reads as merged)
MADE_IN_PACKAGE = ("coded", "imported", "suggestion_accepted")
BLIND_MADE = ("coded", "suggestion_accepted")
#: how a coder's value can have been made in a whole project
MADE_IN_PROJECT = (*MADE_IN_PACKAGE, "merged")
KEY = ("coder", "conversation_id", "position", "sentence", "code")


def source_setting(conn: sqlite3.Connection, key: str) -> str | None:
    """A setting of the source file (None where it has none, or no settings table)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    except sqlite3.Error:
        return None
    return None if row is None or row[0] in (None, "") else str(row[0])


def _count(db: Database, sql: str, params: Iterable[Any] = ()) -> int:
    return int(db.execute(sql, list(params)).fetchone()[0])


def keep_package_coder(db: Database, coder: str) -> dict[str, Any]:
    """Drop from the staged rows everything that is not ``coder``'s own work; returns what
    was dropped: ``coders`` (names), and per table how many rows."""
    dropped: dict[str, Any] = {"coders": [r[0] for r in db.execute(
        "SELECT name FROM temp.m_coders WHERE name IS NOT ? ORDER BY name", [coder])]}
    db.execute("DELETE FROM temp.m_coders")  # no coder and no role comes from a package
    for table in CODER_ROWS:
        dropped[table] = db.execute(
            f"DELETE FROM temp.m_{table} WHERE coder IS NOT ?", [coder]).rowcount
    for table in LEAD_ROWS:
        dropped[table] = db.execute(f"DELETE FROM temp.m_{table}").rowcount
    return dropped


def drop_unassigned(db: Database, coder: str) -> list[Any]:
    """Drop the staged conversations not assigned to ``coder`` in the target (those it
    lacks among them), and every row of them; their ids. A package holds only its coder's
    assigned conversations: what else it brings is not hers to bring."""
    keep = ("conversation_id IN (SELECT a.conversation_id FROM assignments a "
            "JOIN conversations c ON c.conversation_id = a.conversation_id WHERE a.coder = ?)")
    ids = [r[0] for r in db.execute(
        f"SELECT conversation_id FROM temp.m_conversations WHERE NOT {keep} ORDER BY rowid",
        [coder])]
    db.execute(f"DELETE FROM temp.m_conversations WHERE NOT {keep}", [coder])
    for table in CONVERSATION_ROWS:
        db.execute(f"DELETE FROM temp.m_{table} WHERE conversation_id IS NULL OR NOT {keep}",
                   [coder])
    db.execute("DELETE FROM temp.m_participants")
    return ids


def drop_changed_revisions(db: Database) -> int:
    """Drop the staged changes after the reveal that differ from the target's (the lock
    is on: none may be made); returns how many."""
    return int(db.execute(
        "DELETE FROM temp.m_revisions WHERE rowid IN (SELECT s.rowid FROM temp.m_revisions s "
        f"WHERE {_differs('revisions')})").rowcount)


def staged_turns(db: Database) -> list[tuple[Any, Any, Any]]:
    """(coder, conversation, turn) of every staged coding, span and rationale that differs
    from the target's (or that the target lacks)."""
    for table in ("codings", "spans", "revisions", "value_rationales"):
        db.execute(f"CREATE INDEX IF NOT EXISTS temp.m_{table}_turn "
                   f"ON m_{table}(coder, conversation_id, position)")
    return [tuple(r) for r in db.execute(
        "SELECT DISTINCT s.coder, s.conversation_id, s.position FROM temp.m_codings s "
        "WHERE NOT EXISTS (SELECT 1 FROM codings t WHERE t.coder = s.coder "
        "AND t.conversation_id = s.conversation_id AND t.position = s.position "
        "AND t.sentence = s.sentence AND t.code = s.code AND t.value IS s.value) "
        "UNION SELECT DISTINCT s.coder, s.conversation_id, s.position FROM temp.m_spans s "
        "WHERE NOT EXISTS (SELECT 1 FROM spans t WHERE t.coder = s.coder "
        "AND t.conversation_id = s.conversation_id AND t.position = s.position "
        "AND t.start = s.start AND t.end = s.end AND t.code = s.code AND t.value IS s.value) "
        "UNION SELECT DISTINCT s.coder, s.conversation_id, s.position "
        f"FROM temp.m_value_rationales s WHERE {_differs('value_rationales')}")]


def _differs(table: str) -> str:
    if table == "spans":
        same = ("t.start = s.start AND t.end = s.end AND t.code = s.code "
                "AND t.value IS s.value")
    elif table == "value_rationales":
        same = "t.sentence = s.sentence AND t.code = s.code AND t.text IS s.text"
    else:
        same = "t.sentence = s.sentence AND t.code = s.code AND t.value IS s.value"
    return (f"NOT EXISTS (SELECT 1 FROM {table} t WHERE t.coder = s.coder "
            f"AND t.conversation_id = s.conversation_id AND t.position = s.position "
            f"AND {same})")


def drop_locked(db: Database, turns: Iterable[tuple[Any, Any, Any]]) -> int:
    """Drop the staged codings, spans and rationales of these (coder, conversation, turn)
    that would change the target's; returns how many values (a locked value's rationale
    stays as it is too, and is not counted)."""
    n = 0
    for table in ("codings", "spans", "value_rationales"):
        sql = (f"DELETE FROM temp.m_{table} WHERE rowid IN (SELECT s.rowid FROM "
               f"temp.m_{table} s WHERE s.coder = ? AND s.conversation_id = ? "
               f"AND s.position = ? AND {_differs(table)})")
        dropped = sum(db.execute(sql, list(t)).rowcount for t in turns)
        n += dropped if table != "value_rationales" else 0
    return n


def drop_unexplained(db: Database) -> int:
    """Drop the staged rationales whose value is neither in the target nor among the
    staged codings (a rationale explains a value); returns how many."""
    has = ("EXISTS (SELECT 1 FROM {} k WHERE k.coder = s.coder AND k.conversation_id = "
           "s.conversation_id AND k.position = s.position AND k.sentence = s.sentence "
           "AND k.code = s.code)")
    return int(db.execute(
        "DELETE FROM temp.m_value_rationales WHERE rowid IN (SELECT s.rowid FROM "
        f"temp.m_value_rationales s WHERE NOT {has.format('codings')} "
        f"AND NOT {has.format('temp.m_codings')})").rowcount)


def move_to_revisions(db: Database, turns: Iterable[tuple[Any, Any, Any]]) -> int:
    """The staged codings of these (coder, conversation, turn) that would change the
    target's values go beside them (revisions) instead; returns how many."""
    cols = ", ".join(KEY + ("value", "updated_at"))
    n = 0
    for t in turns:
        pick = (f"FROM temp.m_codings s WHERE s.coder = ? AND s.conversation_id = ? "
                f"AND s.position = ? AND {_differs('codings')}")
        db.execute(f"DELETE FROM temp.m_revisions WHERE ({', '.join(KEY)}) IN "
                   f"(SELECT {', '.join('s.' + c for c in KEY)} {pick})", list(t))
        n += db.execute(f"INSERT INTO temp.m_revisions({cols}) SELECT "
                        f"{', '.join('s.' + c for c in KEY + ('value', 'updated_at'))} "
                        f"{pick}", list(t)).rowcount
        db.execute(f"DELETE FROM temp.m_codings WHERE rowid IN (SELECT s.rowid {pick})",
                   list(t))
    return n


def stage_made(db: Database, conn: sqlite3.Connection, package: bool) -> None:
    """``temp.m_made``: how the source says each of its codings was made (its ``source``
    and ``blind``), as far as the target believes it: a package's values coded there were
    coded blind (nothing is revealed in a package), its imported ones not; a whole
    project's say what that file recorded (a file from before provenance was kept: blind
    for a coder who was not an adjudicator of a file that coded blind). ``version``: the
    source's codebook version the value says it was set under (its own numbering; None in
    a file from before versions), for :mod:`...project.merge.versions` to translate."""
    db.execute("DROP TABLE IF EXISTS temp.m_made")
    db.execute(f"CREATE TEMP TABLE m_made ({', '.join(KEY)}, source, blind, version)")
    columns = {r[1] for r in conn.execute("PRAGMA table_info(codings)")}
    key = ", ".join(f"k.{c}" for c in KEY)
    version = "k.codebook_version" if "codebook_version" in columns else "NULL"
    if {"source", "blind"} <= columns:
        rows = conn.execute(f"SELECT {key}, k.source, k.blind, {version} FROM codings k")
    else:
        coded_blind = source_setting(conn, "blind_coding") == "1"
        rows = conn.execute(
            f"SELECT {key}, 'merged', CASE WHEN ? AND c.role IS NOT 'adjudicator' THEN 1 "
            f"ELSE 0 END, {version} FROM codings k LEFT JOIN coders c ON c.name = k.coder",
            [coded_blind])
    made = []
    for *k, source, blind, number in rows:
        how = source if source in (MADE_IN_PACKAGE if package else MADE_IN_PROJECT) \
            else "merged"
        was_blind = (how in BLIND_MADE) if package else blind == 1
        made.append((*k, how, int(was_blind), number if isinstance(number, int) else None))
    db.conn.executemany(f"INSERT INTO temp.m_made VALUES ({','.join('?' * 8)})", made)
    db.execute(f"CREATE INDEX temp.m_made_key ON m_made({', '.join(KEY)})")


def source_versions(db: Database) -> set[tuple[Any, str]]:
    """(source's version, code) of every staged coding: the definitions to translate."""
    return {(r[0], str(r[1])) for r in db.execute(
        "SELECT DISTINCT m.version, m.code FROM temp.m_made m JOIN temp.m_codings s ON "
        + " AND ".join(f"s.{c} = m.{c}" for c in KEY))}


def stage_versions(db: Database, versions: dict[tuple[Any, str], int]) -> None:
    """``temp.m_versions``: the target's codebook version of each (source's version, code)."""
    db.execute("DROP TABLE IF EXISTS temp.m_versions")
    db.execute("CREATE TEMP TABLE m_versions (source_version, code, version)")
    db.conn.executemany("INSERT INTO temp.m_versions VALUES (?, ?, ?)",
                        [(s, c, v) for (s, c), v in versions.items()])


def stamp_merged(db: Database, after_rowid: int, replaced: Iterable[tuple[Any, ...]],
                 origin: str, current: int) -> None:
    """Record how the codings this merge wrote (inserted after ``after_rowid``, or the
    ``replaced`` keys) were made, from ``temp.m_made``; the file they came from in
    ``origin``; the codebook version they were set under from ``temp.m_versions`` (by
    default ``current``)."""
    match = " AND ".join(f"m.{c} = codings.{c}" for c in KEY)
    made = f"(SELECT m.{{}} FROM temp.m_made m WHERE {match})"
    version = ("(SELECT v.version FROM temp.m_made m JOIN temp.m_versions v ON "
               f"v.source_version IS m.version AND v.code = m.code WHERE {match})")
    sql = (f"UPDATE codings SET source = COALESCE({made.format('source')}, 'merged'), "
           f"blind = COALESCE({made.format('blind')}, 0), origin = ?, "
           f"codebook_version = COALESCE({version}, {int(current)}) ")
    db.execute(sql + "WHERE rowid > ?", [origin, after_rowid])
    where = " AND ".join(f"{c} = ?" for c in KEY)
    db.conn.executemany(sql + f"WHERE {where}", [(origin, *k) for k in replaced])

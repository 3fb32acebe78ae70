"""Coders, codings, per-turn status, memos and the consensus layer.

Functions here are single statements; the project layer wraps each user action in one
transaction (and records it for undo).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database

from ..domain.models import Unit, Value
from .codebook_versions import ensure_first

MISSING = object()  # "no row" as opposed to a row whose value is NULL (not applicable)


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


# -- coders ----------------------------------------------------------------------------------

def coders(db: Database) -> list[dict[str, Any]]:
    return [
        {"name": r[0], "role": r[1], "created_at": r[2]}
        for r in db.execute("SELECT name, role, created_at FROM coders ORDER BY name")
    ]


def ensure_coder(db: Database, name: str, role: str = "coder") -> bool:
    """Create the coder if unknown; returns True when created."""
    cur = db.execute(
        "INSERT OR IGNORE INTO coders(name, role, created_at) VALUES (?, ?, ?)", [name, role, now()]
    )
    return cur.rowcount > 0


def set_coder_role(db: Database, name: str, role: str) -> None:
    db.execute("UPDATE coders SET role = ? WHERE name = ?", [role, name])


# -- codings ---------------------------------------------------------------------------------

def get_coding(db: Database, coder: str, unit: Unit, code: str) -> Any:
    row = db.execute(
        "SELECT value FROM codings WHERE coder = ? AND conversation_id = ? AND position = ? "
        "AND sentence = ? AND code = ?",
        [coder, unit.conversation_id, unit.position, unit.sentence, code],
    ).fetchone()
    return MISSING if row is None else row[0]


def get_provenance(db: Database, coder: str, unit: Unit, code: str
                   ) -> tuple[Any, Any, Any] | None:
    """How a coding was made: (source, blind, origin), None when there is no coding."""
    row = db.execute(
        "SELECT source, blind, origin FROM codings WHERE coder = ? AND conversation_id = ? "
        "AND position = ? AND sentence = ? AND code = ?",
        [coder, unit.conversation_id, unit.position, unit.sentence, code],
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def put_coding(db: Database, coder: str, unit: Unit, code: str, value: Any, *,
               source: str = "coded", blind: bool = False, origin: str | None = None) -> None:
    """Set (value, None = not applicable) or delete (MISSING) one coding, recording how it
    was made (``source``, from the file ``origin``) and whether its coder worked ``blind``
    as it was set."""
    key = [coder, unit.conversation_id, unit.position, unit.sentence, code]
    if value is MISSING:
        db.execute(
            "DELETE FROM codings WHERE coder = ? AND conversation_id = ? AND position = ? "
            "AND sentence = ? AND code = ?",
            key,
        )
    else:
        db.execute(
            "INSERT INTO codings(coder, conversation_id, position, sentence, code, value, "
            "updated_at, source, blind, origin, codebook_version) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(coder, conversation_id, position, sentence, code) "
            "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, "
            "source = excluded.source, blind = excluded.blind, origin = excluded.origin, "
            "codebook_version = excluded.codebook_version",
            [*key, value, now(), source, int(blind), origin, ensure_first(db)],
        )


def insert_codings(db: Database, rows: Iterable[tuple[str, str, int, int, str, Value]], *,
                   source: str = "imported", origin: str | None = None,
                   blind: bool = False) -> int:
    """Bulk insert/replace (coder, cid, position, sentence, code, value), all made the
    same way (``source``, from the file ``origin``). A coding already holding the same value
    is left as it is, with how and when it was made (a file that repeats a value coded blind
    in the window does not make it an imported one)."""
    stamp = now()
    version = ensure_first(db)
    data = [(*r, stamp, source, int(blind), origin, version) for r in rows]
    db.conn.executemany(
        "INSERT INTO codings(coder, conversation_id, position, sentence, code, value, "
        "updated_at, source, blind, origin, codebook_version) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(coder, conversation_id, position, sentence, code) "
        "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, "
        "source = excluded.source, blind = excluded.blind, origin = excluded.origin, "
        "codebook_version = excluded.codebook_version "
        "WHERE codings.value IS NOT excluded.value",
        data,
    )
    return len(data)


def last_rowid(db: Database, table: str) -> int:
    """The highest rowid of ``table`` (rows inserted later have higher ones)."""
    return int(db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {table}").fetchone()[0])


def mark_merged(db: Database, table: str, after_rowid: int, origin: str) -> int:
    """Record the rows of ``table`` (codings or consensus) inserted after ``after_rowid`` as
    merged from the file ``origin``; returns how many."""
    cur = db.execute(f"UPDATE {table} SET source = 'merged', origin = ? WHERE rowid > ?",
                     [origin, after_rowid])
    return int(cur.rowcount)


# -- values changed after the reveal -----------------------------------------------------------

def get_revision(db: Database, coder: str, unit: Unit, code: str) -> Any:
    row = db.execute(
        "SELECT value FROM revisions WHERE coder = ? AND conversation_id = ? AND position = ? "
        "AND sentence = ? AND code = ?",
        [coder, unit.conversation_id, unit.position, unit.sentence, code],
    ).fetchone()
    return MISSING if row is None else row[0]


def put_revision(db: Database, coder: str, unit: Unit, code: str, value: Any) -> None:
    """Set (value, None = not applicable) or delete (MISSING) a value changed after the
    turn was revealed to its coder; the blind value in ``codings`` is left as it is."""
    key = [coder, unit.conversation_id, unit.position, unit.sentence, code]
    if value is MISSING:
        db.execute(
            "DELETE FROM revisions WHERE coder = ? AND conversation_id = ? AND position = ? "
            "AND sentence = ? AND code = ?",
            key,
        )
    else:
        db.execute(
            "INSERT INTO revisions(coder, conversation_id, position, sentence, code, value, "
            "updated_at) VALUES (?,?,?,?,?,?,?) "
            "ON CONFLICT(coder, conversation_id, position, sentence, code) "
            "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            [*key, value, now()],
        )


def revisions_of_conversation(db: Database, conversation_id: str) -> list[dict[str, Any]]:
    return [
        {"coder": r[0], "position": r[1], "sentence": r[2], "code": r[3], "value": r[4]}
        for r in db.execute(
            "SELECT coder, position, sentence, code, value FROM revisions "
            "WHERE conversation_id = ?", [conversation_id])
    ]


def codings_of_conversation(
    db: Database, conversation_id: str, coder: str | None = None,
    positions: Iterable[int] | None = None,
) -> list[dict[str, Any]]:
    """Codings of a conversation (of one coder; of some turn positions only)."""
    sql = (
        "SELECT coder, position, sentence, code, value FROM codings WHERE conversation_id = ?"
    )
    params: list[Any] = [conversation_id]
    if coder is not None:
        sql += " AND coder = ?"
        params.append(coder)
    if positions is not None:
        wanted = sorted({int(p) for p in positions})
        sql += f" AND position IN ({','.join('?' * len(wanted))})"
        params += wanted
    return [
        {"coder": r[0], "position": r[1], "sentence": r[2], "code": r[3], "value": r[4]}
        for r in db.execute(sql, params)
    ]


def existing_codings(
    db: Database, keys: Sequence[tuple[str, str, int, int, str]]
) -> dict[tuple[str, str, int, int, str], Any]:
    """Values already stored for the given (coder, cid, position, sentence, code) keys."""
    out: dict[tuple[str, str, int, int, str], Any] = {}
    wanted = set(keys)
    coder_names = {k[0] for k in wanted}
    for name in coder_names:
        for r in db.execute(
            "SELECT coder, conversation_id, position, sentence, code, value FROM codings "
            "WHERE coder = ?",
            [name],
        ):
            k = (r[0], r[1], r[2], r[3], r[4])
            if k in wanted:
                out[k] = r[5]
    return out


def coded_turns(db: Database) -> list[tuple[str, str, int]]:
    """(coder, conversation_id, position) of every turn with at least one coding."""
    return [
        (r[0], r[1], r[2])
        for r in db.execute(
            "SELECT DISTINCT coder, conversation_id, position FROM codings WHERE position > 0"
        )
    ]


# -- status and memos ------------------------------------------------------------------------

def get_done(db: Database, coder: str, conversation_id: str, position: int) -> bool:
    row = db.execute(
        "SELECT done FROM turn_status WHERE coder = ? AND conversation_id = ? AND position = ?",
        [coder, conversation_id, position],
    ).fetchone()
    return bool(row and row[0])


def put_done(db: Database, coder: str, conversation_id: str, position: int, done: bool) -> None:
    db.execute(
        "INSERT INTO turn_status(coder, conversation_id, position, done, updated_at) "
        "VALUES (?,?,?,?,?) ON CONFLICT(coder, conversation_id, position) "
        "DO UPDATE SET done = excluded.done, updated_at = excluded.updated_at",
        [coder, conversation_id, position, int(done), now()],
    )


def done_positions(db: Database, conversation_id: str, coder: str | None = None) -> dict[str, set[int]]:
    """coder -> positions marked done in a conversation."""
    sql = "SELECT coder, position FROM turn_status WHERE conversation_id = ? AND done = 1"
    params: list[Any] = [conversation_id]
    if coder is not None:
        sql += " AND coder = ?"
        params.append(coder)
    out: dict[str, set[int]] = {}
    for c, p in db.execute(sql, params):
        out.setdefault(c, set()).add(p)
    return out


def get_memo(db: Database, coder: str, unit: Unit) -> str:
    row = db.execute(
        "SELECT text FROM memos WHERE coder = ? AND conversation_id = ? AND position = ? AND sentence = ?",
        [coder, unit.conversation_id, unit.position, unit.sentence],
    ).fetchone()
    return row[0] if row else ""


def put_memo(db: Database, coder: str, unit: Unit, text: str) -> None:
    key = [coder, unit.conversation_id, unit.position, unit.sentence]
    if not text:
        db.execute(
            "DELETE FROM memos WHERE coder = ? AND conversation_id = ? AND position = ? AND sentence = ?",
            key,
        )
    else:
        db.execute(
            "INSERT INTO memos(coder, conversation_id, position, sentence, text, updated_at) "
            "VALUES (?,?,?,?,?,?) ON CONFLICT(coder, conversation_id, position, sentence) "
            "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
            [*key, text, now()],
        )


def memos_of_conversation(db: Database, conversation_id: str) -> list[dict[str, Any]]:
    return [
        {"coder": r[0], "position": r[1], "sentence": r[2], "text": r[3]}
        for r in db.execute(
            "SELECT coder, position, sentence, text FROM memos WHERE conversation_id = ?",
            [conversation_id],
        )
    ]


def next_unfinished(
    db: Database, coder: str, after: tuple[int, int] | None, role: str = "assistant"
) -> tuple[str, int] | None:
    """The next turn of ``role`` (in list order) that ``coder`` has not marked done.

    ``after`` is (conversation rowid, position); the search wraps around once.
    """
    base = (
        "SELECT c.conversation_id, t.position, c.rowid FROM turns t JOIN conversations c "
        "ON c.conversation_id = t.conversation_id WHERE t.role = ? AND NOT EXISTS ("
        "SELECT 1 FROM turn_status s WHERE s.coder = ? AND s.conversation_id = t.conversation_id "
        "AND s.position = t.position AND s.done = 1)"
    )
    if after is not None:
        row = db.execute(
            base + " AND (c.rowid > ? OR (c.rowid = ? AND t.position > ?)) "
            "ORDER BY c.rowid, t.position LIMIT 1",
            [role, coder, after[0], after[0], after[1]],
        ).fetchone()
        if row:
            return row[0], row[1]
    row = db.execute(base + " ORDER BY c.rowid, t.position LIMIT 1", [role, coder]).fetchone()
    return (row[0], row[1]) if row else None


# -- consensus -------------------------------------------------------------------------------

def get_consensus(db: Database, unit: Unit, code: str) -> dict[str, Any] | None:
    row = db.execute(
        "SELECT value, adjudicator, rationale, decided_at, source, origin FROM consensus "
        "WHERE conversation_id = ? AND position = ? AND sentence = ? AND code = ?",
        [unit.conversation_id, unit.position, unit.sentence, code],
    ).fetchone()
    if row is None:
        return None
    return {"value": row[0], "adjudicator": row[1], "rationale": row[2], "decided_at": row[3],
            "source": row[4], "origin": row[5]}


def put_consensus(db: Database, unit: Unit, code: str, decision: dict[str, Any] | None) -> None:
    key = [unit.conversation_id, unit.position, unit.sentence, code]
    if decision is None:
        db.execute(
            "DELETE FROM consensus WHERE conversation_id = ? AND position = ? AND sentence = ? AND code = ?",
            key,
        )
        return
    db.execute(
        "INSERT INTO consensus(conversation_id, position, sentence, code, value, adjudicator, "
        "rationale, decided_at, source, origin) VALUES (?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(conversation_id, position, sentence, code) DO UPDATE SET value = excluded.value, "
        "adjudicator = excluded.adjudicator, rationale = excluded.rationale, "
        "decided_at = excluded.decided_at, source = excluded.source, origin = excluded.origin",
        [*key, decision["value"], decision.get("adjudicator"), decision.get("rationale", ""),
         decision.get("decided_at") or now(), decision.get("source") or "adjudicated",
         decision.get("origin")],
    )

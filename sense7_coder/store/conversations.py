"""Conversations, turns, participants and the users' own ratings: insert and read."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from ..domain.models import Conversation, Participant, Sentence, Turn
from ..domain.progress import ProgressFn


def _json(d: dict[str, Any]) -> str:
    return json.dumps(d, ensure_ascii=False, default=str) if d else "{}"


def existing_conversation_ids(db: Database, ids: Iterable[str]) -> set[str]:
    found: set[str] = set()
    chunk: list[str] = []

    def flush() -> None:
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT conversation_id FROM conversations WHERE conversation_id IN ({marks})", chunk
        )
        found.update(r[0] for r in rows)
        chunk.clear()

    for cid in ids:
        chunk.append(cid)
        if len(chunk) >= 900:
            flush()
    if chunk:
        flush()
    return found


def all_conversation_ids(db: Database) -> set[str]:
    return {r[0] for r in db.execute("SELECT conversation_id FROM conversations")}


def insert_conversations(
    db: Database,
    conversations: Sequence[Conversation],
    participants: Sequence[Participant] = (),
    *,
    progress: ProgressFn | None = None,
    check: Callable[[], None] | None = None,
) -> int:
    """Insert conversations with their turns and ratings (caller holds the transaction).

    Returns the number of turns inserted.
    """
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    conn = db.conn
    if participants:
        conn.executemany(
            "INSERT INTO participants(participant_id, attributes) VALUES (?, ?) "
            "ON CONFLICT(participant_id) DO UPDATE SET attributes = "
            "json_patch(participants.attributes, excluded.attributes)",
            [(p.participant_id, _json(p.attributes)) for p in participants],
        )
    pids = {c.participant_id for c in conversations if c.participant_id}
    conn.executemany(
        "INSERT OR IGNORE INTO participants(participant_id) VALUES (?)", [(p,) for p in pids]
    )
    total = len(conversations)
    turns_done = 0
    batch = 2000
    for start in range(0, total, batch):
        if check:
            check()
        part = conversations[start : start + batch]
        conn.executemany(
            "INSERT INTO conversations(conversation_id, participant_id, model, topic, source, "
            "attributes, n_turns, imported_at) VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    c.conversation_id, c.participant_id, c.model, c.topic, c.source,
                    _json(c.attributes), len(c.turns), now,
                )
                for c in part
            ],
        )
        conn.executemany(
            "INSERT INTO turns(conversation_id, position, role, speaker, text, time_offset, "
            "comment, attributes) VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    c.conversation_id, t.position, t.role, t.speaker, t.text, t.time_offset,
                    t.comment, _json(t.attributes),
                )
                for c in part
                for t in c.turns
            ],
        )
        conn.executemany(
            "INSERT INTO user_ratings(conversation_id, position, rating, value) VALUES (?,?,?,?)",
            [
                (c.conversation_id, t.position, key, value)
                for c in part
                for t in c.turns
                for key, value in t.ratings.items()
            ],
        )
        turns_done += sum(len(c.turns) for c in part)
        if progress:
            progress(min(start + batch, total), total)
    return turns_done


def insert_sentences(db: Database, sentences: Iterable[Sentence]) -> int:
    rows = [(s.conversation_id, s.position, s.sentence, s.start, s.end) for s in sentences]
    db.conn.executemany(
        "INSERT OR REPLACE INTO sentences(conversation_id, position, sentence, start, end) "
        "VALUES (?,?,?,?,?)",
        rows,
    )
    return len(rows)


def unsegmented_turns(
    db: Database, roles: Sequence[str], conversation_id: str | None = None
) -> list[tuple[str, int, str]]:
    """Turns of the given roles that have no stored sentences yet: (cid, position, text)."""
    marks = ",".join("?" * len(roles))
    sql = (
        "SELECT t.conversation_id, t.position, t.text FROM turns t "
        f"WHERE t.role IN ({marks}) AND NOT EXISTS (SELECT 1 FROM sentences s "
        "WHERE s.conversation_id = t.conversation_id AND s.position = t.position)"
    )
    params: list[Any] = list(roles)
    if conversation_id is not None:
        sql += " AND t.conversation_id = ?"
        params.append(conversation_id)
    return [(r[0], r[1], r[2]) for r in db.execute(sql, params)]


# -- reading ---------------------------------------------------------------------------------


@dataclass
class ConversationFilter:
    text: str = ""
    models: Sequence[str] = ()
    participants: Sequence[str] = ()
    #: attribute name -> required value (compared as text)
    attributes: dict[str, str] | None = None
    #: with ``coder``: 'not started' | 'in progress' | 'done'
    status: str | None = None
    coder: str | None = None
    conversation_ids: Sequence[str] = ()
    #: only the conversations assigned to this coder
    assigned_to: str | None = None


def _as_truth(text: str) -> str:
    word = text.strip().casefold()
    return {"1": "true", "yes": "true", "0": "false", "no": "false"}.get(word, word)


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def _filter_sql(f: ConversationFilter) -> tuple[str, list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    if f.text:
        where.append(
            "(c.conversation_id LIKE ? ESCAPE '\\' OR c.topic LIKE ? ESCAPE '\\' "
            "OR EXISTS (SELECT 1 FROM turns t "
            "WHERE t.conversation_id = c.conversation_id AND t.text LIKE ? ESCAPE '\\'))"
        )
        pat = "%" + f.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        params += [pat, pat, pat]
    if f.models:
        where.append(f"c.model IN ({','.join('?' * len(f.models))})")
        params += list(f.models)
    if f.participants:
        where.append(f"c.participant_id IN ({','.join('?' * len(f.participants))})")
        params += list(f.participants)
    if f.conversation_ids:
        where.append(f"c.conversation_id IN ({','.join('?' * len(f.conversation_ids))})")
        params += list(f.conversation_ids)
    for name, value in (f.attributes or {}).items():
        # compared as what the attribute holds: TRUE matches true, 4 matches 4.0
        path = "$." + json.dumps(name)
        # attributes another tool left as malformed JSON match nothing (json_type() would
        # stop the whole query)
        where.append(
            "(CASE WHEN NOT json_valid(c.attributes) THEN 0 "
            "ELSE CASE json_type(c.attributes, ?) WHEN 'true' THEN ? = 'true' "
            "WHEN 'false' THEN ? = 'false' "
            "WHEN 'integer' THEN json_extract(c.attributes, ?) = ? "
            "WHEN 'real' THEN json_extract(c.attributes, ?) = ? "
            "ELSE CAST(json_extract(c.attributes, ?) AS TEXT) = ? END END)"
        )
        truth, number = _as_truth(str(value)), _as_number(str(value))
        params += [path, truth, truth, path, number, path, number, path, str(value)]
    if f.assigned_to is not None:
        where.append("EXISTS (SELECT 1 FROM assignments a WHERE a.coder = ? "
                      "AND a.conversation_id = c.conversation_id)")
        params.append(f.assigned_to)
    if f.status and f.coder:
        done = (
            "(SELECT COUNT(*) FROM turn_status s WHERE s.coder = ? AND s.done = 1 "
            "AND s.conversation_id = c.conversation_id)"
        )
        started = (
            "(SELECT COUNT(*) FROM codings k WHERE k.coder = ? "
            "AND k.conversation_id = c.conversation_id)"
        )
        codable = "(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.conversation_id AND t.role = 'assistant')"
        if f.status == "done":
            where.append(f"{done} >= {codable} AND {codable} > 0")
            params += [f.coder]
        elif f.status == "not started":
            where.append(f"{done} = 0 AND {started} = 0")
            params += [f.coder, f.coder]
        elif f.status == "in progress":
            where.append(f"({done} > 0 OR {started} > 0) AND {done} < {codable}")
            params += [f.coder, f.coder, f.coder]
    return (" WHERE " + " AND ".join(where)) if where else "", params


def conversation_rowids(db: Database, f: ConversationFilter | None = None) -> list[int]:
    """Row ids of matching conversations in import order (cheap: ids only)."""
    sql, params = _filter_sql(f or ConversationFilter())
    return [r[0] for r in db.execute(f"SELECT c.rowid FROM conversations c{sql} ORDER BY c.rowid", params)]


def conversation_rows(db: Database, rowids: Sequence[int], coder: str | None) -> list[dict[str, Any]]:
    """Summary rows for the conversation list: id, participant, model, topic, turns, progress."""
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    rows = db.execute(
        "SELECT c.rowid, c.conversation_id, c.participant_id, c.model, c.topic, c.n_turns, "
        "(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.conversation_id "
        " AND t.role = 'assistant') AS codable, "
        "(SELECT COUNT(*) FROM turn_status s WHERE s.conversation_id = c.conversation_id "
        " AND s.coder = ? AND s.done = 1) AS done "
        f"FROM conversations c WHERE c.rowid IN ({marks})",
        [coder or "", *rowids],
    ).fetchall()
    by_id = {
        r[0]: {
            "rowid": r[0], "conversation_id": r[1], "participant_id": r[2], "model": r[3],
            "topic": r[4], "n_turns": r[5], "codable": r[6], "done": r[7],
        }
        for r in rows
    }
    return [by_id[i] for i in rowids if i in by_id]


def conversation_index(db: Database, conversation_id: str) -> int | None:
    row = db.execute(
        "SELECT rowid FROM conversations WHERE conversation_id = ?", [conversation_id]
    ).fetchone()
    return row[0] if row else None


def json_object(text: Any) -> dict[str, Any]:
    """Stored attributes (a JSON object) as a dict; {} for none, and for text another
    tool left malformed or not an object (nothing can be read from it)."""
    if not text or not isinstance(text, str):
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # malformed, or nested deeper than Python recurses
        return {}
    return value if isinstance(value, dict) else {}


def load_conversation(db: Database, conversation_id: str) -> Conversation | None:
    row = db.execute(
        "SELECT conversation_id, participant_id, model, topic, source, attributes "
        "FROM conversations WHERE conversation_id = ?",
        [conversation_id],
    ).fetchone()
    if row is None:
        return None
    conv = Conversation(
        conversation_id=row[0], participant_id=row[1], model=row[2], topic=row[3],
        source=row[4], attributes=json_object(row[5]),
    )
    ratings: dict[int, dict[str, int | None]] = {}
    for pos, key, value in db.execute(
        "SELECT position, rating, value FROM user_ratings WHERE conversation_id = ?",
        [conversation_id],
    ):
        ratings.setdefault(pos, {})[key] = value
    for r in db.execute(
        "SELECT position, role, speaker, text, time_offset, comment, attributes FROM turns "
        "WHERE conversation_id = ? ORDER BY position",
        [conversation_id],
    ):
        conv.turns.append(
            Turn(
                position=r[0], role=r[1], speaker=r[2], text=r[3], time_offset=r[4],
                comment=r[5], attributes=json_object(r[6]), ratings=ratings.get(r[0], {}),
            )
        )
    return conv


def turn_text(db: Database, conversation_id: str, position: int) -> str | None:
    row = db.execute(
        "SELECT text FROM turns WHERE conversation_id = ? AND position = ?",
        [conversation_id, position],
    ).fetchone()
    return row[0] if row else None


def turn_role(db: Database, conversation_id: str, position: int) -> str | None:
    row = db.execute(
        "SELECT role FROM turns WHERE conversation_id = ? AND position = ?",
        [conversation_id, position],
    ).fetchone()
    return row[0] if row else None


def turn_roles(db: Database, conversation_ids: Iterable[str] | None = None) -> dict[tuple[str, int], str]:
    """(conversation_id, position) -> role, for checking codings refer to real turns."""
    rows = db.execute("SELECT conversation_id, position, role FROM turns")
    wanted = set(conversation_ids) if conversation_ids is not None else None
    return {(r[0], r[1]): r[2] for r in rows if wanted is None or r[0] in wanted}


def sentences_of(db: Database, conversation_id: str) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {}
    for pos, _idx, start, end in db.execute(
        "SELECT position, sentence, start, end FROM sentences WHERE conversation_id = ? "
        "ORDER BY position, sentence",
        [conversation_id],
    ):
        out.setdefault(pos, []).append((start, end))
    return out


def attribute_names(db: Database) -> list[str]:
    """Names of the attributes conversations carry (from their sources), sorted."""
    return [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT j.key FROM conversations c, json_each(c.attributes) j "
            "WHERE json_valid(c.attributes) AND json_type(c.attributes) = 'object' ORDER BY 1"
        )
    ]


def attribute_values(db: Database, name: str, limit: int = 20) -> list[str]:
    """Distinct values (as text) of one conversation attribute, for messages."""
    return [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT CASE WHEN NOT json_valid(attributes) THEN NULL "
            "ELSE CASE json_type(attributes, ?) WHEN 'true' THEN 'true' "
            "WHEN 'false' THEN 'false' ELSE CAST(json_extract(attributes, ?) AS TEXT) END END "
            "AS v FROM conversations WHERE v IS NOT NULL ORDER BY v LIMIT ?",
            ["$." + json.dumps(name), "$." + json.dumps(name), limit],
        )
    ]


def sentence_counts(db: Database) -> dict[tuple[str, int], int]:
    """(conversation_id, position) -> number of stored sentences, for segmented turns."""
    return {
        (r[0], r[1]): int(r[2])
        for r in db.execute(
            "SELECT conversation_id, position, COUNT(*) FROM sentences GROUP BY 1, 2"
        )
    }


def turn_sentence_count(db: Database, conversation_id: str, position: int) -> int:
    """How many sentences are stored for one turn (0: not segmented yet, or no text)."""
    row = db.execute(
        "SELECT COUNT(*) FROM sentences WHERE conversation_id = ? AND position = ?",
        [conversation_id, position],
    ).fetchone()
    return int(row[0])


def distinct_values(db: Database, column: str) -> list[str]:
    if column not in ("model", "participant_id", "topic"):
        raise ValueError(column)
    return [
        r[0]
        for r in db.execute(
            f"SELECT DISTINCT {column} FROM conversations WHERE {column} IS NOT NULL ORDER BY 1"
        )
    ]


def counts(db: Database) -> dict[str, int]:
    q = {
        "conversations": "SELECT COUNT(*) FROM conversations",
        "turns": "SELECT COUNT(*) FROM turns",
        "participants": "SELECT COUNT(*) FROM participants",
        "user_ratings": "SELECT COUNT(*) FROM user_ratings WHERE value IS NOT NULL",
        "coders": "SELECT COUNT(*) FROM coders",
        "codes": "SELECT COUNT(*) FROM codes WHERE retired = 0",
        "codings": "SELECT COUNT(*) FROM codings",
        "turns_done": "SELECT COUNT(*) FROM turn_status WHERE done = 1",
        "memos": "SELECT COUNT(*) FROM memos",
        "consensus": "SELECT COUNT(*) FROM consensus",
        "sentences": "SELECT COUNT(*) FROM sentences",
        "predictions": "SELECT COUNT(*) FROM predictions",
    }
    return {k: int(db.execute(sql).fetchone()[0]) for k, sql in q.items()}


def positions_of_role(db: Database, conversation_id: str, role: str = "assistant") -> set[int]:
    """Positions of a conversation's turns of ``role``."""
    return {r[0] for r in db.execute(
        "SELECT position FROM turns WHERE conversation_id = ? AND role = ?",
        [conversation_id, role])}

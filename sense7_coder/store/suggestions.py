"""A model's suggested values (tables ``suggestion_runs``, ``suggestions``, ``code_prompts``).

Suggestions never enter ``codings``: each belongs to a run of a model, and a model is read
as a rater of its own (``model:NAME``). Writes run inside the caller's
``ProjectDB.atomic()``; reads join the runs, so a suggestion whose run was removed is never
read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database

from ..domain.errors import ProjectError
from .conversations import ConversationFilter, _filter_sql
from .shapes import changed_message
from .snapshots import read_snapshot

#: a suggestion's status: a value was read from the reply, or none could be
STATUSES = ("ok", "no_answer")
RUN_COLUMNS = ("run", "model", "method", "api_model", "endpoint_host", "prompt_hash", "unit",
               "settings", "started_at", "finished_at", "requests", "answered", "no_answer")
#: (conversation_id, position, sentence, code, status, value, rationale, reply, spread)
SuggestionRow = tuple[str, int, int, str, str, Any, str, str | None, float | None]
_COLUMNS = ("s.run", "r.model", "r.method", "s.conversation_id", "s.position", "s.sentence",
            "s.code", "s.status", "s.value", "s.rationale", "s.reply", "s.spread",
            "r.prompt_hash", "r.started_at")
FIELDS = tuple(c.split(".")[1] for c in _COLUMNS)


def _refuse(db: Database, detail: str) -> ProjectError:
    path = db.execute("PRAGMA database_list").fetchone()[2]
    return ProjectError(changed_message(path, f"table suggestions: {detail}"))


def _check_statuses(db: Database, conversation_id: str | None = None) -> None:
    """Refuse a status sense7-coder never writes (a hand edit), naming the row (only among
    one conversation's, through its index, when ``conversation_id`` is given)."""
    where, params = ("conversation_id = ? AND ", [conversation_id]) \
        if conversation_id is not None else ("", [])
    row = db.execute(f"SELECT rowid, status FROM suggestions WHERE {where}(status IS NULL "
                     "OR status NOT IN ('ok', 'no_answer')) LIMIT 1", params).fetchone()
    if row is not None:
        raise _refuse(db, f"row {row[0]}: its status is {str(row[1])[:40]!r}, not ok or "
                          "no_answer")


def _typed(row: Sequence[Any]) -> dict[str, Any]:
    """A suggestion row with its numbers as numbers (a hand-edited value of the wrong kind
    fails here, inside :func:`read_snapshot`, which names it in one line)."""
    out = dict(zip(FIELDS, row, strict=True))
    for key in ("run", "position", "sentence"):
        if isinstance(out[key], bool) or not isinstance(out[key], int):
            raise ValueError(f"{key} {out[key]!r}")
    if out["spread"] is not None:
        out["spread"] = float(out["spread"])
    return out


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# -- runs ------------------------------------------------------------------------------------

def start_run(db: Database, model: str, method: str, unit: str, *, api_model: str | None,
              endpoint_host: str | None, prompt_hash: str, settings: str) -> int:
    """A new run of ``model``; returns its number."""
    cur = db.execute(
        "INSERT INTO suggestion_runs (model, method, api_model, endpoint_host, prompt_hash, "
        "unit, settings, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [model, method, api_model, endpoint_host, prompt_hash, unit, settings, now()])
    return int(cur.lastrowid or 0)


def finish_run(db: Database, run: int, *, requests: int, answered: int, no_answer: int
               ) -> None:
    db.execute("UPDATE suggestion_runs SET finished_at = ?, requests = ?, answered = ?, "
               "no_answer = ? WHERE run = ?", [now(), requests, answered, no_answer, run])


def delete_run(db: Database, run: int) -> int:
    db.execute("DELETE FROM suggestions WHERE run = ?", [run])
    return int(db.execute("DELETE FROM suggestion_runs WHERE run = ?", [run]).rowcount)


@read_snapshot
def runs(db: Database, model: str | None = None) -> list[dict[str, Any]]:
    """Every run (of ``model``), oldest first."""
    where, params = (" WHERE model = ?", [model]) if model is not None else ("", [])
    sql = f"SELECT {', '.join(RUN_COLUMNS)} FROM suggestion_runs{where} ORDER BY run"
    return [dict(zip(RUN_COLUMNS, r, strict=True)) for r in db.execute(sql, params)]


def model_names(db: Database) -> list[str]:
    """Models with at least one finished run holding a suggestion, by name."""
    return [r[0] for r in db.execute(
        "SELECT DISTINCT r.model FROM suggestion_runs r WHERE r.finished_at IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM suggestions s WHERE s.run = r.run AND s.status = 'ok') "
        "ORDER BY r.model")]


# -- suggestions -----------------------------------------------------------------------------

def put_suggestions(db: Database, run: int, rows: Iterable[SuggestionRow]) -> int:
    cur = db.conn.executemany(
        "INSERT OR REPLACE INTO suggestions (run, conversation_id, position, sentence, code, "
        "status, value, rationale, reply, spread) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((run, *row) for row in rows))
    return int(cur.rowcount)


@read_snapshot
def suggestions_of(db: Database, conversation_id: str, position: int | None = None,
                   sentence: int | None = None, code: str | None = None,
                   model: str | None = None) -> list[dict[str, Any]]:
    """The suggestions of one conversation (one unit, one code, one model), in unit, code
    and run order; only finished runs."""
    _check_statuses(db, conversation_id)
    where = ["s.conversation_id = ?", "r.finished_at IS NOT NULL"]
    params: list[Any] = [conversation_id]
    for column, value in (("s.position", position), ("s.sentence", sentence),
                          ("s.code", code), ("r.model", model)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    sql = (f"SELECT {', '.join(_COLUMNS)} FROM suggestions s JOIN suggestion_runs r "
           f"ON r.run = s.run WHERE {' AND '.join(where)} "
           "ORDER BY s.position, s.sentence, s.code, s.run")
    return [_typed(r) for r in db.execute(sql, params)]


@read_snapshot
def all_suggestions(db: Database, models: Sequence[str] | None = None,
                    conversations: ConversationFilter | None = None) -> list[dict[str, Any]]:
    """Every suggestion of finished runs (of ``models``, in the conversations that pass
    the filter), in conversation import order."""
    _check_statuses(db)
    where, params = _filter_sql(conversations or ConversationFilter())
    where += (" AND " if where else " WHERE ") + "r.finished_at IS NOT NULL"
    if models is not None:
        where += f" AND r.model IN ({','.join('?' * len(models))})"
        params += list(models)
    sql = (f"SELECT {', '.join(_COLUMNS)} FROM suggestions s JOIN suggestion_runs r "
           "ON r.run = s.run JOIN conversations c ON c.conversation_id = s.conversation_id"
           f"{where} ORDER BY c.rowid, s.position, s.sentence, s.code, s.run")
    return [_typed(r) for r in db.execute(sql, params)]


@read_snapshot
def latest_values(db: Database, models: Sequence[str] | None = None,
                  codes: Sequence[str] | None = None,
                  conversations: ConversationFilter | None = None
                  ) -> list[tuple[str, str, int, int, str, Any]]:
    """(model, conversation_id, position, sentence, code, value): for each model, unit and
    code the value of its latest finished run that answered there (what agreement reads),
    in conversation import order."""
    _check_statuses(db)
    where, params = _filter_sql(conversations or ConversationFilter())
    where += (" AND " if where else " WHERE ") + "r.finished_at IS NOT NULL AND s.status = 'ok'"
    for column, names in (("r.model", models), ("s.code", codes)):
        if names is not None:
            where += f" AND {column} IN ({','.join('?' * len(names))})"
            params += list(names)
    sql = ("SELECT model, conversation_id, position, sentence, code, value FROM ("
           "SELECT r.model AS model, s.conversation_id AS conversation_id, "
           "s.position AS position, s.sentence AS sentence, s.code AS code, "
           "s.value AS value, c.rowid AS ord, "
           "ROW_NUMBER() OVER (PARTITION BY r.model, s.conversation_id, "
           "s.position, s.sentence, s.code ORDER BY s.run DESC) AS k "
           "FROM suggestions s JOIN suggestion_runs r ON r.run = s.run "
           f"JOIN conversations c ON c.conversation_id = s.conversation_id{where}) "
           "WHERE k = 1 ORDER BY ord, position, sentence, code, model")
    out = []
    for model, cid, position, sentence, code, value in db.execute(sql, params):
        if not (isinstance(position, int) and isinstance(sentence, int)):
            raise ValueError(f"position {position!r}, sentence {sentence!r}")
        out.append((model, cid, position, sentence, code, value))
    return out


# -- per-code prompts ------------------------------------------------------------------------

def prompt(db: Database, code: str) -> str | None:
    row = db.execute("SELECT prompt FROM code_prompts WHERE code = ?", [code]).fetchone()
    return None if row is None else str(row[0])


def prompts(db: Database) -> dict[str, str]:
    return {r[0]: r[1] for r in db.execute("SELECT code, prompt FROM code_prompts ORDER BY code")}


def set_prompt(db: Database, code: str, text: str | None) -> None:
    """Store a code's own prompt (None: back to the one built from the codebook)."""
    if text is None:
        db.execute("DELETE FROM code_prompts WHERE code = ?", [code])
        return
    db.execute("INSERT INTO code_prompts (code, prompt, updated_at) VALUES (?, ?, ?) "
               "ON CONFLICT(code) DO UPDATE SET prompt = excluded.prompt, "
               "updated_at = excluded.updated_at",
               # milliseconds: another window tells two edits in one second apart
               [code, text, dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")])

"""What every column of a project's tables may hold, checked before anything reads them.

The tables are not STRICT: another tool (or a hand edit in an SQLite browser) can store
a coder's name as binary data, a turn number as text, a run as a 25-digit number that
SQLite keeps as a real. Each reader would then fail in its own way, deep in pandas or
matplotlib. Instead the file is refused on opening, with one line naming the table, the
row, the column and what it holds (see :func:`misfit`).

Cost: the tables that grow with the conversations and codebook are scanned whole (a
test of each value's storage class, in SQLite); the three that grow to millions of rows
(codings, users' ratings, history) have only the columns that lead one of their indexes
checked, through that index (values sort by storage class, so a text or binary value
among numbers is found in a few page reads). Their other columns are checked where they
are read (:mod:`.frames`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from ..domain.codebook.codes import MAX_CODES
from ..domain.errors import CodebookError, ProjectError
from .codes import load_codes

#: the largest turn, sentence, run or count a project holds (what the importers accept)
MAX_NUMBER = 10**9
#: the largest order number, offset or other whole number
MAX_WHOLE = 2**53

#: what a column may hold: ``text`` / ``text?`` (text, or NULL too), ``count`` (a whole
#: number 0..MAX_NUMBER), ``whole`` (a whole number of at most 2**53 either way), ``flag``
#: (0 or 1), ``number?`` (a finite-sized number or NULL); columns not named hold anything
Shape = str
KEY = "text"

_TABLES: dict[str, dict[str, Shape]] = {
    "meta": {"key": KEY, "value": "text?"},
    "participants": {"participant_id": KEY, "attributes": "text"},
    "conversations": {
        "conversation_id": KEY, "participant_id": "text?", "model": "text?", "topic": "text?",
        "source": "text?", "attributes": "text", "n_turns": "count", "imported_at": "text?",
    },
    "turns": {
        "conversation_id": KEY, "position": "count", "role": "text", "speaker": "text?",
        "text": "text", "time_offset": "number?", "comment": "text?", "attributes": "text",
    },
    "codes": {
        "key": KEY, "ord": "whole", "label": "text", "kind": "text", "unit": "text",
        "applies_to": "text", "levels": "text", "allow_na": "flag", "description": "text",
        "include": "text", "exclude": "text", "examples": "text", "shortcut": "text",
        "color": "text", "grp": "text", "user_rating": "text?", "retired": "flag",
    },
    "coders": {"name": KEY, "role": "text", "created_at": "text?"},
    "turn_status": {
        "coder": KEY, "conversation_id": KEY, "position": "count", "done": "flag",
        "updated_at": "text?",
    },
    "memos": {
        "coder": KEY, "conversation_id": KEY, "position": "count", "sentence": "count",
        "text": "text", "updated_at": "text?",
    },
    "consensus": {
        "conversation_id": KEY, "position": "count", "sentence": "count", "code": KEY,
        "adjudicator": "text?", "rationale": "text", "decided_at": "text?",
    },
    # values a blind coder changed after the reveal (few: scanned whole like the above)
    "revisions": {
        "coder": KEY, "conversation_id": KEY, "position": "count", "sentence": "count",
        "code": KEY, "updated_at": "text?",
    },
    # coded spans (one per stretch a coder marked: scanned whole like the above)
    "spans": {
        "coder": KEY, "conversation_id": KEY, "position": "count", "start": "count",
        "end": "count", "code": KEY, "memo": "text", "updated_at": "text?", "source": "text",
        "blind": "flag", "origin": "text?",
    },
    "sentences": {
        "conversation_id": KEY, "position": "count", "sentence": "count", "start": "whole",
        "end": "whole",
    },
    "predictions": {
        "conversation_id": KEY, "predictor": "text", "run": "count", "score": "number?",
        "reasoning": "text",
    },
    "assignments": {
        "coder": KEY, "conversation_id": KEY, "overlap": "flag", "ord": "whole",
        "assigned_at": "text?",
    },
    "turn_predictions": {
        "conversation_id": KEY, "position": "count", "predictor": "text", "run": "count",
        "score": "number?", "reasoning": "text",
    },
    "llm_answers": {
        "request_key": KEY, "conversation_id": KEY, "api_model": "text", "run": "count",
        "reply": "text", "score": "number?", "answered_at": "text?",
    },
    "suggestion_runs": {
        "run": "count", "model": "text", "method": "text", "api_model": "text?",
        "endpoint_host": "text?", "prompt_hash": "text", "unit": "text", "settings": "text",
        "started_at": "text?", "finished_at": "text?", "requests": "count",
        "answered": "count", "no_answer": "count",
    },
    "code_prompts": {"code": KEY, "prompt": "text", "updated_at": "text?"},
    # the coders' open windows (a few rows)
    "coder_windows": {"id": "whole", "coder": KEY, "host": "text", "pid": "whole",
                      "started_at": "text"},
    "codebook_versions": {"number": "count", "at": "text", "by": "text?", "codebook": "text",
                          "changed": "text"},
    "rounds": {"number": "count", "started_at": "text", "started_by": "text?",
               "closed_at": "text?", "codebook_version": "count?", "threshold": "number?",
               "seed": "whole", "sample": "count", "stratify": "text?", "coders": "text"},
    "round_conversations": {"round": "count", "conversation_id": KEY},
    "value_rationales": {"coder": KEY, "conversation_id": KEY, "position": "count",
                         "sentence": "count", "code": KEY, "text": "text",
                         "updated_at": "text?"},
    "round_results": {"round": "count", "code": KEY, "alpha": "number?", "ci_low": "number?",
                      "ci_high": "number?", "ci_method": "text", "units": "count",
                      "met": "flag"},
    # the team folder's record (project/team.py)
    "team_files": {"hash": KEY, "name": "text", "coder": KEY, "install": KEY,
                   "counter": "count", "state": "text", "reason": "text?", "seen_at": "text"},
    "team_stamps": {"coder": KEY, "tbl": KEY, "key": "text", "install": KEY,
                    "counter": "count"},
    "team_sent": {"tbl": KEY, "key": "text", "digest": "text"},
}

#: the tables that grow to millions of rows, checked whole only when a read has failed
#: on one of their values (see :func:`misfit`)
_BIG_TABLES: dict[str, dict[str, Shape]] = {
    "codings": {
        "coder": KEY, "conversation_id": KEY, "position": "count", "sentence": "count",
        "code": KEY, "updated_at": "text?", "codebook_version": "count?",
    },
    "user_ratings": {"conversation_id": KEY, "position": "count", "rating": "text"},
    "history": {"position": "count?", "sentence": "count?"},
    "suggestions": {
        "run": "count", "conversation_id": KEY, "position": "count", "sentence": "count",
        "code": KEY, "status": "text", "rationale": "text", "reply": "text?",
        "spread": "number?",
    },
}

#: big tables: the text columns that lead one of their indexes (checked through it)
_INDEXED_KEYS: dict[str, tuple[str, ...]] = {
    "codings": ("coder", "conversation_id", "code"),
    "user_ratings": ("conversation_id",),
    "history": ("conversation_id",),
    "suggestions": ("conversation_id", "code"),
}

_CLASS_NAMES = {"blob": "binary data (a BLOB)", "real": "a fractional number",
                "integer": "a whole number", "text": "text", "null": "empty (NULL)"}


def _condition(column: str, shape: Shape) -> str:
    """SQL true when ``column`` does not have ``shape``."""
    c = f'"{column}"'
    if shape.endswith("?") and shape not in ("text?", "number?"):
        return f"{c} IS NOT NULL AND ({_condition(column, shape[:-1])})"
    if shape in ("text", "text?"):
        allowed = "'text', 'null'" if shape == "text?" else "'text'"
        return f"typeof({c}) NOT IN ({allowed})"
    if shape == "number?":
        return (f"typeof({c}) NOT IN ('integer', 'real', 'null') "
                f"OR abs({c}) > {float(MAX_WHOLE)}")
    low, high = {"count": (0, MAX_NUMBER), "whole": (-MAX_WHOLE, MAX_WHOLE),
                 "flag": (0, 1)}[shape]
    return f"typeof({c}) != 'integer' OR {c} NOT BETWEEN {low} AND {high}"


def _shown(value: Any) -> str:
    if isinstance(value, bytes):
        return _CLASS_NAMES["blob"]
    if value is None:
        return _CLASS_NAMES["null"]
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    kind = _CLASS_NAMES["text"] if isinstance(value, str) else (
        _CLASS_NAMES["real"] if isinstance(value, float) else "")
    return f"{kind} {text}".strip()


_WANTED = {"text": "text", "text?": "text", "count": f"a whole number 0..{MAX_NUMBER:,}",
           "count?": f"a whole number 0..{MAX_NUMBER:,}",
           "whole": "a whole number", "flag": "0 or 1", "number?": "a number"}


def _problem(table: str, rowid: Any, column: str, value: Any, shape: Shape) -> str:
    return (f"table {table}, row {rowid}: its {column} is {_shown(value)}, not "
            f"{_WANTED[shape]}")


def _first_misfit(conn: sqlite3.Connection, table: str, shapes: Mapping[str, Shape]
                  ) -> str | None:
    conds = " OR ".join(f"({_condition(c, s)})" for c, s in shapes.items())
    names = ", ".join(f'"{c}"' for c in shapes)
    old = conn.text_factory
    conn.text_factory = bytes  # a text that is not UTF-8 is no misfit here
    try:
        row = conn.execute(f"SELECT rowid, {names} FROM {table} WHERE {conds} LIMIT 1"
                           ).fetchone()
    finally:
        conn.text_factory = old
    if row is None:
        return None
    for (column, shape), value in zip(shapes.items(), row[1:], strict=True):
        single = conn.execute(
            f"SELECT 1 FROM {table} WHERE rowid = ? AND ({_condition(column, shape)})",
            [row[0]]).fetchone()
        if single is not None:
            if isinstance(value, bytes) and conn.execute(
                    f'SELECT typeof("{column}") FROM {table} WHERE rowid = ?',
                    [row[0]]).fetchone()[0] == "text":
                value = value.decode("utf-8", "replace")
            return _problem(table, row[0], column, value, shape)
    return None  # pragma: no cover - the row matched one of the conditions


def _indexed_misfit(conn: sqlite3.Connection, table: str, column: str) -> str | None:
    """A value of ``column`` that is not text, found through the index it leads: numbers
    sort before every text and binary data after."""
    for cond in (f'"{column}" < \'\'', f'"{column}" >= X\'\''):
        row = conn.execute(f'SELECT rowid, "{column}" FROM {table} WHERE {cond} LIMIT 1'
                           ).fetchone()
        if row is not None:
            return _problem(table, row[0], column, row[1], "text")
    return None


def codebook_misfit(conn: sqlite3.Connection) -> str | None:
    """What is wrong with the codebook as every command reads it (more codes than a
    codebook may have, levels, examples, kinds); None when nothing is. Read after
    :func:`misfit` found every column of ``codes`` of the right kind."""
    n_codes = conn.execute("SELECT count(*) FROM codes").fetchone()[0]
    if n_codes > MAX_CODES:
        return (f"the codebook holds {n_codes:,} codes; a codebook has at most "
                f"{MAX_CODES:,} codes (the project file was changed outside sense7-coder)")
    try:
        load_codes(Database(conn, execute_plugins=False))
    except CodebookError as e:
        return str(e)
    return None


def misfit(conn: sqlite3.Connection, *, whole: bool = False) -> str | None:
    """What the first value its column cannot hold is (table, row, column, the value);
    None for a file that holds none. ``whole`` checks the big tables whole too (after a
    read failed on one of their values).

    ``conn`` reads a file whose schema was checked already (:mod:`.trust`)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table, shapes in _TABLES.items():
        if table in tables and (problem := _first_misfit(conn, table, shapes)):
            return problem
    for table, shapes in _BIG_TABLES.items() if whole else ():
        if table in tables and (problem := _first_misfit(conn, table, shapes)):
            return problem
    for table, columns in _INDEXED_KEYS.items():
        for column in columns if table in tables else ():
            if problem := _indexed_misfit(conn, table, column):
                return problem
    return None


def changed_message(path: Path | str, detail: str) -> str:
    """One line for a project file another program wrote what sense7-coder never writes."""
    name = Path(path).name
    return (
        f"{path}: the project file was changed outside sense7-coder ({detail}). Nothing was "
        f"changed. Backups are kept in {name}.backups beside it: run "
        f"'sense7-coder restore {path}' to list them and bring one back"
    )


@contextlib.contextmanager
def values_checked(conn: sqlite3.Connection) -> Iterator[None]:
    """Turn a read that failed on a value of the wrong kind (a turn number stored as text
    in a big table, which opening does not read whole) into one line naming it."""
    try:
        yield
    except (ValueError, TypeError, OverflowError):
        problem = misfit(conn, whole=True)
        if problem is None:
            raise
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        raise ProjectError(changed_message(path, problem)) from None

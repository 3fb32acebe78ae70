"""Codebook versions (table ``codebook_versions``, migration m016): one row per version of
what the codes mean, numbered from 1, with when and by whom it was made, the whole codebook
as JSON and a line on what changed.

A version is recorded (:func:`record`) at the end of each codebook change, inside its
transaction, when the codes' meaning differs from the latest version's (a new order,
shortcut, colour or group is no new version). Before the first change or coding of a
project that has no version yet, the codebook as it stands becomes version 1
(:func:`ensure_first`): the codings' ``codebook_version`` then always names a version.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from ..domain.codebook.codes import Codebook, codebook_from_dict
from ..domain.codebook.diff import changed_codes, meaning
from ..domain.errors import ProjectError
from .codes import codebook_from_db

#: a version's ``changed`` when it is the codebook as it stood when versions began
FIRST = "the codebook as it stood when versions began"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


def latest_number(db: Database) -> int | None:
    row = db.execute("SELECT MAX(number) FROM codebook_versions").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _insert(db: Database, book: Codebook, by: str | None, changed: str) -> int:
    number = (latest_number(db) or 0) + 1
    db.execute("INSERT INTO codebook_versions(number, at, by, codebook, changed) "
               "VALUES (?, ?, ?, ?, ?)",
               [number, _now(), by, json.dumps(book.to_dict(), ensure_ascii=False), changed])
    return number


def ensure_first(db: Database, by: str | None = None) -> int:
    """The latest version's number, recording the codebook as it stands as version 1 when
    there is none yet (call inside the write transaction)."""
    number = latest_number(db)
    if number is None:
        number = _insert(db, codebook_from_db(db), by, FIRST)
    return number


def record(db: Database, by: str | None) -> int | None:
    """Record the codebook as it now stands as a new version when what its codes mean
    differs from the latest version (``changed`` names the codes); the new number, or None
    when nothing that makes a code's meaning changed."""
    book = codebook_from_db(db)
    number = latest_number(db)
    last = version(db, number) if number is not None else None
    if last is None:
        return _insert(db, book, by, FIRST)
    if meaning(last.codebook) == meaning(book):
        return None
    return _insert(db, book, by, "changed: " + ", ".join(changed_codes(last.codebook, book)))


class Version:
    """One stored version."""

    def __init__(self, number: int, at: str, by: str | None, codebook: Codebook,
                 changed: str) -> None:
        self.number, self.at, self.by = number, at, by
        self.codebook, self.changed = codebook, changed

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "at": self.at, "by": self.by, "changed": self.changed}


def version(db: Database, number: int | None) -> Version | None:
    row = db.execute("SELECT number, at, by, codebook, changed FROM codebook_versions "
                     "WHERE number = ?", [number]).fetchone()
    if row is None:
        return None
    where = f"codebook version {row[0]} (table codebook_versions)"
    try:
        data = json.loads(row[3])
    except (TypeError, ValueError, RecursionError):
        raise ProjectError(f"{where}: its codebook is not readable JSON; the project file "
                           "was changed outside sense7-coder") from None
    if isinstance(data, dict) and data.get("codes") == []:  # a project with no code yet
        book = Codebook(str(data.get("name") or "project"), [], str(data.get("title") or ""),
                        str(data.get("description") or ""))
    else:
        book = codebook_from_dict(data, where=where)
    return Version(int(row[0]), str(row[1]), row[2], book, str(row[4]))


def versions(db: Database) -> list[Version]:
    numbers = [r[0] for r in db.execute("SELECT number FROM codebook_versions ORDER BY number")]
    return [v for n in numbers if (v := version(db, n)) is not None]


def coding_keys(db: Database, number: int | None) -> set[tuple[str, str, int, int, str]]:
    """(coder, conversation, position, sentence, code) of every coding set under version
    ``number`` (None: set before versions were recorded)."""
    where = "codebook_version IS NULL" if number is None else "codebook_version = ?"
    rows = db.execute("SELECT coder, conversation_id, position, sentence, code FROM codings "
                      f"WHERE {where}", [] if number is None else [number])
    return {(str(a), str(b), int(c), int(d), str(e)) for a, b, c, d, e in rows}


def counts_by_version(db: Database) -> dict[int | None, int]:
    return {r[0]: int(r[1]) for r in db.execute(
        "SELECT codebook_version, COUNT(*) FROM codings GROUP BY codebook_version")}


def source_codebooks(conn: Any) -> tuple[dict[int, Codebook], Codebook | None]:
    """Another project file's codebooks (a merge's source, read-only): each version it
    holds that reads as one, and the codebook as it stands (None where unreadable)."""
    db = Database(conn, recursive_triggers=False)
    held: dict[int, Codebook] = {}
    if db["codebook_versions"].exists():
        for (number,) in db.execute("SELECT number FROM codebook_versions"):
            try:
                found = version(db, number)
            except ProjectError:
                continue
            if found is not None:
                held[found.number] = found.codebook
    try:
        now: Codebook | None = codebook_from_db(db)
    except (ProjectError, ValueError, TypeError, KeyError):
        now = None
    return held, now

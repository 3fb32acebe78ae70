"""The list of migrations every project file is built by, and the helper they run SQL with.

RELEASED MIGRATIONS ARE FROZEN: see :mod:`.schema`."""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

#: RELEASED MIGRATIONS ARE FROZEN. Every project file is trusted by comparing its schema
#: with the one these migrations build (:mod:`.trust`): editing one that was released would
#: make every existing project be refused as changed by another program. A change is a new
#: migration appended at the end; ``tests/test_migrations_pinned.py`` pins each one's schema.
migrations = Migrations("sense7-coder")


def _script(db: Database, sql: str) -> None:
    """Run the statements of ``sql`` one after another in the migration's transaction.

    What sqlite-utils' ``executescript`` does inside a transaction, but a statement can
    only end at a semicolon, so completeness is tested there and not after every
    character: building the expected schema (on every opening of a project, see
    :mod:`.trust`) took 50 ms, most of it in that test."""
    start = end = 0
    while (end := sql.find(";", end) + 1) > 0:
        statement = sql[start:end].strip()
        if sqlite3.complete_statement(statement):
            db.conn.execute(statement)
            start = end
    rest = sql[start:].strip()
    if rest:
        db.conn.execute(rest)

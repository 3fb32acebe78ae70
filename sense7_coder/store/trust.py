"""Only sense7-coder's own schema is trusted.

A project file may come from anyone. Before anything reads its tables, the objects in its
``sqlite_master`` (tables, indexes, triggers, views) are compared with the exact schema our
migrations (:mod:`.schema`) create for the file's version; anything else -- a trigger that
rewrites codings, a view, an extra index, a changed table or column -- refuses the file,
naming the object. Nothing in a refused file is executed: reading ``sqlite_master`` runs no
trigger and expands no view.

The expected schema is built, once per version, by applying the first N migrations to an
in-memory database, so new migrations are trusted as soon as they exist.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from ..domain.errors import ProjectError
from .schema import SCHEMA_VERSION, migrations

#: tables SQLite itself may add (ANALYZE statistics, which earlier versions created); they
#: hold planner statistics only, never code
SQLITE_OWN = {"sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"}

Entry = tuple[str, str, str, str | None]  # type, name, table, normalised sql

_TOKEN = re.compile(r"""'(?:[^']|'')*'|"((?:[^"]|"")*)"|\[([^\]]*)\]|`((?:[^`]|``)*)`|\s+""")
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@functools.lru_cache(maxsize=4096)
def normalise(sql: str | None) -> str | None:
    """SQL with whitespace collapsed and quoting of plain identifiers dropped.

    Different versions of sqlite-utils quote names differently ([x], "x"); string literals
    are kept exactly. Cached: opening a project reads its schema (and the expected one)
    more than once, and the result depends on the text alone.
    """
    if sql is None:
        return None

    def sub(m: re.Match[str]) -> str:
        text = m.group(0)
        if text.startswith("'"):
            return text
        if text[0].isspace():
            return " "
        name = next(g for g in m.groups() if g is not None)
        return name if _PLAIN.match(name) else text

    out = _TOKEN.sub(sub, sql).strip()
    out = re.sub(r"\s*([(),])\s*", r"\1", out)
    return out


#: sqlite-utils' record of applied migrations: its exact SQL (and index) is the library's
#: and may change between its versions, so it is compared by its columns; it holds only
#: migration names, and nothing that could act on other tables (triggers are checked apart)
MIGRATIONS_TABLE = migrations.migrations_table
MIGRATIONS_COLUMNS = ({"migration_set", "name", "applied_at"},
                      {"id", "migration_set", "name", "applied_at"})


#: its shapes: plain columns of a plain type (no CHECK, REFERENCES, DEFAULT, COLLATE or
#: generated column), perhaps a primary key, a rowid table
_COLUMN = r"[A-Za-z_]\w*(?: (?:INTEGER|INT|TEXT|REAL|FLOAT|BLOB))?(?: PRIMARY KEY| NOT NULL)*"
_MIGRATIONS_SQL = re.compile(
    rf"CREATE TABLE {MIGRATIONS_TABLE}\({_COLUMN}(?:,{_COLUMN})*"
    r"(?:,PRIMARY KEY\([A-Za-z_]\w*(?:,[A-Za-z_]\w*)*\))?\)", re.IGNORECASE)
#: and its one index: unique over the set and the name (or SQLite's own for the key)
_MIGRATIONS_INDEX = re.compile(
    rf"CREATE UNIQUE INDEX [A-Za-z_]\w* ON {MIGRATIONS_TABLE}\(migration_set,name\)",
    re.IGNORECASE)


def _migrations_table(conn: sqlite3.Connection, sql: str | None) -> str:
    cols = {str(r[1]) for r in conn.execute(f"PRAGMA main.table_xinfo({MIGRATIONS_TABLE})")}
    hidden = [r for r in conn.execute(f"PRAGMA main.table_xinfo({MIGRATIONS_TABLE})") if r[6]]
    shape = normalise(sql)
    ok = (cols in MIGRATIONS_COLUMNS and not hidden and shape is not None
          and _MIGRATIONS_SQL.fullmatch(shape) is not None)
    return "<the migrations record>" if ok else f"<{shape}>"


def schema_of(conn: sqlite3.Connection) -> set[Entry]:
    """The file's schema objects (SQLite's own statistics tables left out)."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM main.sqlite_master").fetchall()
    out: set[Entry] = set()
    for t, n, tbl, sql in rows:
        if t == "table" and n in SQLITE_OWN:
            continue
        if t == "index" and tbl == MIGRATIONS_TABLE and (
                sql is None or _MIGRATIONS_INDEX.fullmatch(normalise(sql) or "")):
            continue
        if t == "table" and n == MIGRATIONS_TABLE:
            out.add((t, n, tbl, _migrations_table(conn, sql)))
            continue
        out.add((str(t), str(n), str(tbl), normalise(sql)))
    return out


@functools.cache
def expected_schema(version: int) -> frozenset[Entry]:
    """What our first ``version`` migrations create, from an empty database."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        if version > 0:
            db = Database(conn, execute_plugins=False)
            names = [m.name for m in migrations._migrations]
            migrations.apply(db, stop_before=names[version] if version < len(names) else None)
        return frozenset(schema_of(conn))
    finally:
        conn.close()


def _check_record(conn: sqlite3.Connection, path: Path, version: int) -> int:
    """The file's record of applied migrations must name exactly the first ``version``.

    Upgrading trusts that record: one claiming upgrades the tables lack would skip them
    (and stamp the file with a version its tables are not); one missing an upgrade would
    run it again over existing tables.
    """
    if version == 0:
        return version
    names = [m.name for m in migrations._migrations]
    recorded = [str(r[0]) for r in conn.execute(
        f"SELECT name FROM main.{MIGRATIONS_TABLE} WHERE migration_set = ? ORDER BY rowid",
        [migrations.name])]
    if recorded != names[:version]:
        raise ProjectError(
            f"{path}: refused: its record of applied upgrades ({len(recorded)} recorded) "
            f"does not match its tables (those of version {version}); it was edited outside "
            "sense7-coder, so nothing in it was run or changed"
        )
    return version


def _describe(entry: Entry) -> str:
    kind, name, table, _sql = entry
    if kind in ("trigger", "index") and table != name:
        return f"{kind} '{name}' on table '{table}'"
    return f"{kind} '{name}'"


def check_schema(conn: sqlite3.Connection, path: Path, version: int) -> int:
    """Refuse a file whose schema is not exactly ours for its version.

    Returns the version the schema matches: ``version``, or a later one when an older
    sense7-coder stopped between upgrading the tables and recording the new version.
    """
    found = schema_of(conn)
    if version <= SCHEMA_VERSION and found == expected_schema(version):
        return _check_record(conn, path, version)
    for later in range(version + 1, SCHEMA_VERSION + 1):
        if found == expected_schema(later):
            return _check_record(conn, path, later)
    expected = expected_schema(min(version, SCHEMA_VERSION))
    extra = sorted(found - expected, key=lambda e: (e[0] != "trigger", e[0] != "view", e[1]))
    names = {(e[0], e[1]) for e in expected}
    if extra:
        entry = extra[0]
        if (entry[0], entry[1]) in names:
            what = f"its {_describe(entry)} differs from the one sense7-coder creates"
        else:
            what = f"it holds a {_describe(entry)} that sense7-coder did not create"
    else:
        missing = sorted(expected - found, key=lambda e: e[1])
        what = f"its {_describe(missing[0])} is missing"
    more = len(extra) - 1 if extra else 0
    also = f" (and {more} more such object{'s' if more != 1 else ''})" if more > 0 else ""
    raise ProjectError(
        f"{path}: refused: {what}{also}. A project file may hold only sense7-coder's own "
        "tables, so nothing in it was run or changed"
    )

"""Reads that see one state of a project file, and how its text is read.

A read of several statements (a chunked read, an export of several tables) runs inside
:func:`snapshot`: one read transaction, so it sees one state of the file while other windows
go on writing. Text that is not UTF-8 (put there by another tool or a hand edit) reads as
U+FFFD (:data:`LENIENT_TEXT`); bulk reads decode strictly and read again leniently.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from sqlite_utils import Database

from .shapes import values_checked

T = TypeVar("T")
#: ids of the connections inside :func:`snapshot` (a write there could not take the lock
#: first); each leaves the set before its snapshot ends
_reading: set[int] = set()


def in_snapshot(conn: sqlite3.Connection) -> bool:
    """Is ``conn`` inside :func:`snapshot` (where nothing may write)?"""
    return id(conn) in _reading


#: how a project's text is read: bytes that are not UTF-8 (put there by another tool or a
#: hand edit) are read as U+FFFD instead of stopping every read that meets them, so that
#: the window still opens the conversation and an export still runs
LENIENT_TEXT = functools.partial(str, encoding="utf-8", errors="replace")


def decode_error(e: sqlite3.Error) -> bool:
    """sqlite3's answer for a text that is not UTF-8, read with :func:`strict_text`."""
    return "decode" in str(e)


@contextlib.contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Every read inside sees one state of the file: a read transaction (WAL lets other
    windows go on writing meanwhile; they are simply not seen). Inside a transaction
    already, that one's state. Nothing may write inside (see :meth:`ProjectDB.atomic`).

    Each statement on its own would see whatever was committed last: a chunked read
    lost a coding that another window cleared and gave again between two chunks."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN DEFERRED")
    _reading.add(id(conn))
    try:
        yield
    finally:
        _reading.discard(id(conn))
        if conn.in_transaction:
            conn.execute("COMMIT")  # ends the read; nothing was written


def read_snapshot(fn: Callable[..., T]) -> Callable[..., T]:
    """Run ``fn(db, ...)`` (a read given a sqlite-utils Database) in one :func:`snapshot`;
    a value of the wrong kind it fails on is named in one line (:func:`.shapes.values_checked`)."""
    @functools.wraps(fn)
    def wrapper(db: Database, *args: Any, **kwargs: Any) -> T:
        with snapshot(db.conn), values_checked(db.conn):
            return fn(db, *args, **kwargs)
    return wrapper


@contextlib.contextmanager
def _text_factory(conn: sqlite3.Connection, factory: Any) -> Iterator[None]:
    """Read text with ``factory`` inside, as before after."""
    old = conn.text_factory
    conn.text_factory = factory
    try:
        yield
    finally:
        conn.text_factory = old


def strict_text(conn: sqlite3.Connection) -> contextlib.AbstractContextManager[None]:
    """Read text with sqlite3's own decoding (a third faster over millions of rows than
    :data:`LENIENT_TEXT`, but a text that is not UTF-8 raises an error that
    :func:`decode_error` recognises): for bulk reads, which then read again leniently."""
    return _text_factory(conn, str)


def first_not_text(conn: sqlite3.Connection, table: str, columns: Sequence[str]
                   ) -> tuple[int, str]:
    """The rowid and column of the first value in ``table`` that is not UTF-8 text."""
    names = ", ".join(f'"{c}"' for c in columns)
    with _text_factory(conn, bytes):
        for rowid, *values in conn.execute(f"SELECT rowid, {names} FROM {table}"):
            for column, value in zip(columns, values, strict=True):
                if isinstance(value, bytes):
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        return int(rowid), column
    return 0, columns[0]

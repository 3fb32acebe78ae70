"""Opening, checking, migrating and backing up a project file.

A project file may come from someone else, so it is opened defensively: SQLite's
``trusted_schema`` is off, extension loading stays disabled, no sqlite-utils plugins run,
the file's schema must be exactly the one our migrations create (:mod:`.trust`), and its
application id, schema version and integrity are checked before any write; a damaged or
foreign file is refused with a clear message.

Sharing: no plain file handle is opened on a project file or its ``-wal``/``-shm`` while
this process holds a connection to it (closing any descriptor of a file drops every POSIX
lock this process holds on it, after which another process may delete the write-ahead log
this process still writes into). Before the first connection, :mod:`.beside` reads the
headers of the file and of what lies beside it, so that SQLite never plays back a journal
or a log that is not the project's. Whether a file is an SQLite database at all is left to
SQLite to say.

Transactions: connections run in autocommit mode (``isolation_level=None``); every write
goes through :meth:`ProjectDB.atomic`, which starts ``BEGIN IMMEDIATE`` -- the write lock
is taken first, so a second writer waits (up to :data:`BUSY_TIMEOUT_S`) instead of failing
on a stale snapshot -- and nests as savepoints. A read of several statements (a chunked
read, an export of several tables) runs inside :func:`.snapshots.snapshot`: one read transaction, so
it sees one state of the file while other windows go on writing.

Threading: a :class:`ProjectDB` belongs to the thread that opened it. Background jobs open
their own connection with :func:`open_project_db`. SQLite's WAL mode lets readers work while
a writer commits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from sqlite_utils import Database

from ..domain.errors import ProjectError
from . import checked as checked_files
from .backups import copy_to_backups, linked_backups_note
from .beside import check_side_files, set_aside_journal
from .file_messages import (
    damaged_message,
    is_read_only,
    not_sqlite,
    read_only_message,
    unreadable_message,
)
from .folders import conflicted_note, refuse_unsafe_folder
from .history import stamp_context
from .journal import choose_journal_mode
from .lock_guard import before_write, calibrate
from .locks import busy_detail
from .open_here import connect_tracked
from .open_here import is_open_here as is_open_here
from .open_here import refuse_open_project_file as refuse_open_project_file
from .open_here import register as _register
from .open_here import unregister as _unregister
from .schema import APPLICATION_ID, SCHEMA_VERSION, migrations
from .shapes import changed_message, codebook_misfit, misfit
from .snapshots import (
    LENIENT_TEXT,
    decode_error,
    first_not_text,
    in_snapshot,
    snapshot,
    strict_text,
)
from .trust import check_schema

#: how long a writer waits for another one to finish before giving up
BUSY_TIMEOUT_S = 30.0

#: where the notes of an opening go (the command line prints them; the window shows
#: :attr:`ProjectDB.notes`)
notes_log = logging.getLogger("sense7_coder.notes")
notes_log.addHandler(logging.NullHandler())  # elsewhere (the window's jobs) not printed
_savepoints = itertools.count(1)
class ProjectDB:
    """An open project file: a sqlite-utils ``Database`` plus the file's path."""

    def __init__(self, path: Path, db: Database) -> None:
        self.path = path
        self.db = db
        self._closed = False
        #: the thread that opened it (only that one uses it, and may reconnect it)
        self.thread = threading.get_ident()
        #: how many times :mod:`.lock_guard` reconnected it after its locks were lost
        self.generation = 0
        _register(self)
        #: who writes and why, recorded with every change in the history (see history.py)
        self.actor: str | None = None
        self.source = "edit"
        #: what opening the file found and did beside it (one line each, for the user)
        self.notes: list[str] = []
        calibrate(path)  # can this process's locks on it be seen (lock_guard.py)?

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
        """One writing transaction: everything inside lands, or nothing does.

        The outermost block starts ``BEGIN IMMEDIATE`` (it waits for another writer up to
        :data:`BUSY_TIMEOUT_S`, then says who holds the file); inner blocks are savepoints
        (an error inside one undoes only that block if the caller catches it).
        """
        conn = self.conn
        if in_snapshot(conn):
            # a deferred read would become a write without waiting for the lock, and fail
            # (SQLITE_BUSY_SNAPSHOT) if another window wrote since the read began
            raise sqlite3.ProgrammingError("a write inside a read snapshot")
        if conn.in_transaction:
            name = f"s7_{next(_savepoints)}"
            conn.execute(f"SAVEPOINT {name}")
            try:
                stamp_context(self.db, self.actor, self.source)
                yield self.db
            except BaseException:
                if conn.in_transaction:  # a failed statement may have ended it already
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
                raise
            else:
                conn.execute(f"RELEASE {name}")
            return
        # never into a log other processes no longer see: a connection that lost its locks
        # is made again first (lock_guard.py; nothing when all is well, or off Linux)
        conn = before_write(self)
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                # who writes and why, for the history triggers: first in every transaction
                stamp_context(self.db, self.actor, self.source)
                yield self.db
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.ProgrammingError:
            raise  # a mistake in the code, not something the researcher can act on
        except sqlite3.DatabaseError as e:
            # any failure of the file (disk full, locked, read-only, damaged, a constraint
            # another window broke meanwhile) has rolled the transaction back: say so
            raise _friendly(self.path, e) from e

    @contextlib.contextmanager
    def acting(self, source: str, actor: str | None = None) -> Iterator[None]:
        """Record the writes made inside as coming from ``source`` (and ``actor``)."""
        saved = self.actor, self.source
        self.source = source
        if actor is not None:
            self.actor = actor
        try:
            yield
        finally:
            self.actor, self.source = saved

    def snapshot(self) -> contextlib.AbstractContextManager[None]:
        """One read transaction for every read inside (see :func:`snapshot`)."""
        return snapshot(self.conn)

    def data_version(self) -> int:
        """Changes when another connection commits (used to notice a second window), and
        when this one was made again (a new connection counts its own versions)."""
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        return version + (self.generation << 48)

    def connect_again(self) -> None:
        """A new connection in place of the old one (closed by :mod:`.lock_guard`), the
        file's header, version and schema checked again."""
        with contextlib.suppress(sqlite3.Error):
            self.db.conn.close()
        conn = connect(self.path)
        try:
            verify_project(conn, self.path, pages=False)
        except BaseException:
            conn.close()
            raise
        self.db.conn = conn

    def close(self) -> None:
        # No "PRAGMA optimize" here: it may write (ANALYZE), which other windows on the file
        # would see as a change made elsewhere.
        if self._closed:
            return
        self._closed = True
        _unregister(self)
        self.conn.close()


def busy_message(path: Path, msg: str) -> str:
    return (
        f"{path}: the project is busy: another window or program kept writing to it for "
        f"{BUSY_TIMEOUT_S:g} seconds{busy_detail(path)}; nothing was changed, try again "
        f"when it is done ({msg})"
    )


def _friendly(path: Path, e: sqlite3.Error) -> ProjectError:
    msg = str(e)
    if "disk" in msg and "full" in msg:
        return ProjectError(f"{path}: the disk is full; nothing was changed ({msg})")
    if "locked" in msg or "busy" in msg:
        return ProjectError(busy_message(path, msg))
    if "readonly" in msg or "unable to open" in msg:
        return ProjectError(read_only_message(path, msg))
    if "malformed" in msg or not_sqlite(e):
        return ProjectError(damaged_message(path, msg))
    return ProjectError(f"{path}: nothing was changed ({msg})")


#: the keys rows find each other by: one another tool left undecodable would read back as
#: another key (U+FFFD in it) and match nothing, so such a file is refused as damaged
_KEYS = (("conversations", "conversation_id"), ("participants", "participant_id"),
         ("coders", "name"), ("codes", "key"))


def _check_keys(conn: sqlite3.Connection, path: Path) -> None:
    for table, column in _KEYS:
        try:
            with strict_text(conn):
                # only text beyond printable ASCII can fail (SQLite's GLOB is quicker)
                conn.execute(f"SELECT {column} FROM {table} "
                             f"WHERE {column} GLOB '*[^ -~]*'").fetchall()
        except sqlite3.OperationalError as e:
            if not decode_error(e):
                raise
            rowid, _ = first_not_text(conn, table, [column])
            raise ProjectError(damaged_message(
                path, f"table {table}, row {rowid}: its {column} is not UTF-8 text")) from None


def connect(path: Path, mode: str = "rw") -> sqlite3.Connection:
    """A connection in autocommit mode (writes go through :meth:`ProjectDB.atomic`),
    reading text with :data:`LENIENT_TEXT`.

    ``mode`` is SQLite's URI mode: ``rw`` (the file must exist), ``rwc`` (may create it),
    ``ro`` (read-only).
    """
    uri = f"{path.resolve().as_uri()}?mode={mode}"
    conn = connect_tracked(path, uri, uri=True, timeout=BUSY_TIMEOUT_S,
                           check_same_thread=False, isolation_level=None)
    conn.text_factory = LENIENT_TEXT
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA foreign_keys = ON")
        # every commit reaches the disk before it is reported (a power cut loses nothing
        # that was shown as saved); SQLite's default, made explicit
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def verify_project(conn: sqlite3.Connection, path: Path, *, full: bool = False,
                   pages: bool = True, shapes: bool = True) -> int:
    """Check an open connection is a healthy sense7-coder project; returns its version.

    Header, application id, version, our schema and no other (:mod:`.trust`), keys that
    are text, then ``quick_check`` (``integrity_check`` with ``full``) and, with
    ``shapes``, that every value is of a kind its column holds (:mod:`.shapes`; a merge
    checks its source's rows one by one instead). Raises ProjectError; the caller closes
    the connection.

    All of it reads one state of the file (:func:`snapshot`): another process upgrading
    the same older file between the reads of the version, the tables and the record of
    upgrades made a consistent file look edited by hand, and refused it.
    """
    with snapshot(conn):
        return _verify_project(conn, path, full, pages, shapes)


def _verify_project(conn: sqlite3.Connection, path: Path, full: bool, pages: bool,
                    shapes: bool) -> int:
    """:func:`verify_project`, inside its snapshot."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError as e:
        if not_sqlite(e):
            raise ProjectError(unreadable_message(path, e)) from None
        raise
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if app_id != APPLICATION_ID:
        raise ProjectError(
            f"{path}: not a sense7-coder project (an SQLite file made by another program)"
        )
    if version > SCHEMA_VERSION:
        raise ProjectError(
            f"{path}: made by a newer version of sense7-coder (schema {version}, "
            f"this version reads up to {SCHEMA_VERSION}); please update sense7-coder"
        )
    version = check_schema(conn, path, version)
    _check_keys(conn, path)
    if not pages:
        return version
    pragma = "integrity_check" if full else "quick_check"
    check = conn.execute(f"PRAGMA {pragma}(20)").fetchall()
    if [tuple(r) for r in check] != [("ok",)]:
        raise ProjectError(damaged_message(path, str(check[0][0]) if check else ""))
    # values no column of ours holds (a name stored as binary data, a turn number as
    # text): checked with the pages, so a file unchanged since is not read again
    if shapes and (problem := misfit(conn)):
        raise ProjectError(changed_message(path, problem))
    if shapes and (problem := codebook_misfit(conn)):
        raise ProjectError(f"{path}: {problem}")  # as reading the codebook says it
    return version


def create_project_db(path: str | Path, *, shared_folder: bool = False) -> ProjectDB:
    """Create a new, empty project file at the latest schema. Refuses to overwrite, and
    (unless ``shared_folder``) to write in a folder where SQLite is unsafe."""
    path = Path(path)
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder; give a file name for the new project")
    if path.exists() and path.stat().st_size > 0:
        raise ProjectError(f"{path}: a file of that name already exists; choose another name")
    if not path.parent.exists():
        raise ProjectError(f"{path}: the folder {path.parent} does not exist")
    note = None if shared_folder else refuse_unsafe_folder(path)
    if note:
        notes_log.warning(note)
    _set_aside_stale(path)
    existed = path.exists()
    try:
        conn = connect(path, "rwc")
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except sqlite3.Error:
            conn.close()
            raise
    except sqlite3.Error as e:
        if not existed:
            _remove_project_files(path)
        if is_read_only(e):
            raise ProjectError(
                f"{path}: cannot create the project file: the folder {path.parent} is "
                f"read-only ({e})"
            ) from None
        raise ProjectError(f"{path}: cannot create the project file ({e})") from None
    pdb = ProjectDB(path, Database(conn, execute_plugins=False))
    try:
        _migrate(pdb)
    except ProjectError:
        if not existed:  # a half-made file would only block the next try
            _remove_project_files(path)
        raise
    return pdb


def _set_aside_stale(path: Path) -> None:
    """Rename a -wal, -shm or -journal left beside the name of a new project (by a file
    of that name deleted or moved by hand): SQLite would read them into the new file."""
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if os.path.lexists(side):
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
            try:
                os.rename(side, side.with_name(f"{side.name}.stale-{stamp}"))
            except OSError as e:
                raise ProjectError(f"{path}: {side.name} is left beside the new project's "
                                   f"name and cannot be moved away ({e.strerror or e}); "
                                   "move it, or choose another name") from None


def _remove_project_files(path: Path) -> None:
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        with contextlib.suppress(OSError):
            path.with_name(name).unlink()


def refuse_odd_file(path: Path) -> None:
    """Name what SQLite would only call 'unable to open' or 'another program's file': an
    empty file, or a folder (or device) where its -wal or -shm should be."""
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists() and not side.is_file():
            raise ProjectError(
                f"{path}: {side.name} beside it is not a file (a folder or a device); "
                "SQLite keeps the project's latest changes there. Move it away, then try again"
            )
    wal = path.with_name(path.name + "-wal")
    if path.is_file() and path.stat().st_size == 0 and not (
            wal.is_file() and wal.stat().st_size > 0):
        raise ProjectError(f"{path}: the file is empty (0 bytes), not a sense7-coder project")


def _open_error(path: Path, e: sqlite3.Error) -> ProjectError:
    if not_sqlite(e):
        return ProjectError(unreadable_message(path, e))
    if is_read_only(e):
        return ProjectError(read_only_message(path, str(e)))
    if "locked" in str(e) or "busy" in str(e):
        return _friendly(path, e)
    return ProjectError(damaged_message(path, str(e)))


def verify_read_only(path: Path, *, pages: bool = True) -> int | None:
    """Check the file through a read-only connection; its version, or None when SQLite
    cannot read it read-only (a change to undo in -journal, a folder without -shm).

    The last read-write connection to close folds the -wal into the file -- a -wal left
    there by another project included, which would damage the file for good. A refused or
    damaged file is therefore never opened read-write: it stays exactly as it was, and
    ``restore`` can still move its -wal aside.
    """
    try:
        conn = connect(path, "ro")
    except sqlite3.Error:
        return None
    try:
        return verify_project(conn, path, pages=pages)
    except sqlite3.DatabaseError as e:
        if is_read_only(e):
            return None
        raise
    finally:
        conn.close()


def open_project_db(path: str | Path, *, backup: bool = False, migrate: bool = True) -> ProjectDB:
    """Open an existing project file after checking it is a healthy sense7-coder project."""
    path = Path(path)
    if not path.exists():
        raise ProjectError(f"{path}: no such project file")
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder, not a project file")
    refuse_odd_file(path)
    notes = _notes_before_opening(path)
    # the pages are checked unless this process holds the file open already (it was
    # checked then, and only SQLite has written to it since) or the file has not changed
    # at all since a check passed (see checked.py)
    pages = not (is_open_here(path) or checked_files.known_healthy(path))
    before = checked_files.file_state(path) if pages else None
    try:
        checked = verify_read_only(path, pages=pages)
    except sqlite3.DatabaseError as e:
        raise _open_error(path, e) from None
    if pages and checked is not None:
        checked_files.remember_healthy(path, before)
    try:
        conn = connect(path)
    except sqlite3.Error as e:
        raise _open_error(path, e) from None
    try:
        # the pages were checked read-only just now; header, version and schema again here
        version = verify_project(conn, path, pages=pages and checked is None)
        choose_journal_mode(conn, path)  # WAL, or a package's rollback journal
    except ProjectError:
        conn.close()
        raise
    except sqlite3.DatabaseError as e:
        conn.close()
        if is_read_only(e):
            raise ProjectError(read_only_message(path, str(e))) from None
        if "locked" in str(e) or "busy" in str(e):
            raise _friendly(path, e) from None
        raise ProjectError(damaged_message(path, str(e))) from None
    pdb = ProjectDB(path, Database(conn, execute_plugins=False))
    pdb.notes.extend(notes)
    upgrade = migrate and version < SCHEMA_VERSION
    if backup or upgrade:  # an upgrade always starts from a fresh backup
        backup_project(pdb)
    if upgrade:
        _migrate(pdb)
    return pdb


def _notes_before_opening(path: Path) -> list[str]:
    """Refuse a folder where SQLite is unsafe; look at what SQLite would read beside the
    file before it can (unless this process has it open already: it was looked at then,
    and no handle may be opened on it now). The notes to show, one line each."""
    found = [refuse_unsafe_folder(path)]
    if is_open_here(path):
        # open here, so in WAL mode: a journal that appeared since would still be played
        # back by a new connection once the others close
        found.append(set_aside_journal(path))
    else:
        found += [*check_side_files(path), conflicted_note(path), linked_backups_note(path)]
    notes = [note for note in found if note]
    for note in notes:
        notes_log.warning(note)
    return notes


def _migrate(pdb: ProjectDB) -> None:
    try:
        # one IMMEDIATE transaction: a second process opening the same old file waits,
        # then finds nothing left to do; the version is recorded with the tables
        with pdb.atomic():
            migrations.apply(pdb.db)
            applied = len(migrations.applied(pdb.db))
            pdb.conn.execute(f"PRAGMA user_version = {applied}")
    except (sqlite3.Error, ProjectError) as e:
        pdb.close()
        if is_read_only(e):
            raise ProjectError(read_only_message(pdb.path, str(e))) from None
        busy = "locked" in str(e) or "busy" in str(e)
        why = "it is busy in another window or program; try again " if busy else ""
        raise ProjectError(
            f"{pdb.path}: could not upgrade the project file to this version of "
            f"sense7-coder; {why}({e})"
        ) from None


def backup_project(pdb: ProjectDB) -> Path | None:
    """Copy the project into ``<file>.backups/`` (SQLite's online backup), keeping the newest few.

    Skipped when the newest backup is already newer than the project file itself.
    """
    return copy_to_backups(pdb.path, pdb.conn)


def backup_project_file(path: Path) -> Path | None:
    """:func:`backup_project` through a read-only connection of its own, for a worker thread
    while the window keeps working on its connection (SQLite's backup restarts if the
    window saves a coding meanwhile, so the copy is always one consistent state)."""
    try:
        conn = connect(path, "ro")
    except sqlite3.Error:
        return None
    try:
        return copy_to_backups(path, conn)
    finally:
        conn.close()

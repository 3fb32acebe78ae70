"""Opening, checking, migrating and backing up a project file.

A project file may come from someone else, so it is opened defensively: SQLite's
``trusted_schema`` is off, extension loading stays disabled, no sqlite-utils plugins run,
the file's header, integrity, application id and schema version are checked before any
write, and a damaged or foreign file is refused with a clear message.

Threading: a :class:`ProjectDB` belongs to the thread that opened it. Background jobs open
their own connection with :func:`open_project_db`. SQLite's WAL mode lets readers work while
a writer commits; ``busy_timeout`` makes a second writer wait instead of failing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sqlite_utils import Database

from ..domain.errors import ProjectError
from .history import stamp_context
from .schema import APPLICATION_ID, SCHEMA_VERSION, migrations

SQLITE_HEADER = b"SQLite format 3\x00"
BACKUPS_KEPT = 5


class ProjectDB:
    """An open project file: a sqlite-utils ``Database`` plus the file's path."""

    def __init__(self, path: Path, db: Database) -> None:
        self.path = path
        self.db = db
        #: who writes and why, recorded with every change in the history (see history.py)
        self.actor: str | None = None
        self.source = "edit"

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
        """One transaction: everything inside lands, or nothing does."""
        try:
            with self.db.atomic() as db:
                stamp_context(db, self.actor, self.source)
                yield db
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

    def data_version(self) -> int:
        """Changes when another connection commits (used to notice a second window)."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        # No "PRAGMA optimize" here: it may write (ANALYZE), which other windows on the file
        # would see as a change made elsewhere.
        self.conn.close()


def _friendly(path: Path, e: sqlite3.Error) -> ProjectError:
    msg = str(e)
    if "disk" in msg and "full" in msg:
        return ProjectError(f"{path}: the disk is full; nothing was changed ({msg})")
    if "locked" in msg or "busy" in msg:
        return ProjectError(
            f"{path}: the project is busy in another window or program; try again ({msg})"
        )
    if "readonly" in msg or "unable to open" in msg:
        return ProjectError(read_only_message(path, msg))
    return ProjectError(f"{path}: nothing was changed ({msg})")


def read_only_message(path: Path, detail: str) -> str:
    name = path.name
    return (
        f"{path}: the project file or its folder is read-only; sense7-coder writes the file "
        f"and, beside it, {name}-wal and {name}-shm. Copy the project to a folder you can "
        f"write to, or make it writable ({detail})"
    )


def _is_read_only(e: sqlite3.Error) -> bool:
    msg = str(e)
    return "readonly" in msg or "unable to open" in msg


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=10.0, check_same_thread=False)
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as e:
        raise ProjectError(f"{path}: cannot read the project file ({e.strerror})") from None
    if head and head != SQLITE_HEADER:
        raise ProjectError(f"{path}: not a sense7-coder project (this is not an SQLite file)")


def create_project_db(path: str | Path) -> ProjectDB:
    """Create a new, empty project file at the latest schema. Refuses to overwrite."""
    path = Path(path)
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder; give a file name for the new project")
    if path.exists() and path.stat().st_size > 0:
        raise ProjectError(f"{path}: a file of that name already exists; choose another name")
    if not path.parent.exists():
        raise ProjectError(f"{path}: the folder {path.parent} does not exist")
    existed = path.exists()
    try:
        conn = _connect(path)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except sqlite3.Error:
            conn.close()
            raise
    except sqlite3.Error as e:
        if not existed:
            _remove_project_files(path)
        if _is_read_only(e):
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


def _remove_project_files(path: Path) -> None:
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        with contextlib.suppress(OSError):
            path.with_name(name).unlink()


def open_project_db(path: str | Path, *, backup: bool = False, migrate: bool = True) -> ProjectDB:
    """Open an existing project file after checking it is a healthy sense7-coder project."""
    path = Path(path)
    if not path.exists():
        raise ProjectError(f"{path}: no such project file")
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder, not a project file")
    _check_header(path)
    try:
        conn = _connect(path)
    except sqlite3.Error as e:
        if _is_read_only(e):
            raise ProjectError(read_only_message(path, str(e))) from None
        raise ProjectError(f"{path}: cannot open the project file ({e})") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app_id != APPLICATION_ID:
            conn.close()
            raise ProjectError(
                f"{path}: not a sense7-coder project (an SQLite file made by another program)"
            )
        check = conn.execute("PRAGMA quick_check").fetchall()
        if [tuple(r) for r in check] != [("ok",)]:
            conn.close()
            first = check[0][0] if check else "unknown problem"
            raise ProjectError(
                f"{path}: the project file is damaged ({first}); "
                "restore it from the backups folder beside it"
            )
    except sqlite3.DatabaseError as e:
        conn.close()
        if _is_read_only(e):
            raise ProjectError(read_only_message(path, str(e))) from None
        if "locked" in str(e) or "busy" in str(e):
            raise _friendly(path, e) from None
        raise ProjectError(f"{path}: the project file is damaged or not a project ({e})") from None
    if version > SCHEMA_VERSION:
        conn.close()
        raise ProjectError(
            f"{path}: made by a newer version of sense7-coder (schema {version}, "
            f"this version reads up to {SCHEMA_VERSION}); please update sense7-coder"
        )
    try:
        conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.OperationalError as e:
        conn.close()
        raise _friendly(path, e) from None
    pdb = ProjectDB(path, Database(conn, execute_plugins=False))
    if backup:
        backup_project(pdb)
    if migrate and version < SCHEMA_VERSION:
        _migrate(pdb)
    return pdb


def _migrate(pdb: ProjectDB) -> None:
    try:
        migrations.apply(pdb.db)
        applied = len(migrations.applied(pdb.db))
        pdb.conn.execute(f"PRAGMA user_version = {applied}")
    except sqlite3.Error as e:
        pdb.close()
        if _is_read_only(e):
            raise ProjectError(read_only_message(pdb.path, str(e))) from None
        busy = "locked" in str(e) or "busy" in str(e)
        why = "it is busy in another window or program; try again " if busy else ""
        raise ProjectError(
            f"{pdb.path}: could not upgrade the project file to this version of "
            f"sense7-coder; {why}({e})"
        ) from None


def backups_dir(path: Path) -> Path:
    return path.with_name(path.name + ".backups")


def backup_project(pdb: ProjectDB) -> Path | None:
    """Copy the project into ``<file>.backups/`` (SQLite's online backup), keeping the newest few.

    Skipped when the newest backup is already newer than the project file itself.
    """
    folder = backups_dir(pdb.path)
    existing = sorted(folder.glob("*.sqlite")) if folder.exists() else []
    wal = pdb.path.with_name(pdb.path.name + "-wal")
    mtime = max(pdb.path.stat().st_mtime, wal.stat().st_mtime if wal.exists() else 0.0)
    if existing and existing[-1].stat().st_mtime >= mtime:
        return None
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    target = folder / f"{pdb.path.stem}-{stamp}.sqlite"
    partial = folder / f".{target.name}.part"
    try:
        folder.mkdir(exist_ok=True)
        dest = sqlite3.connect(str(partial))
        try:
            with dest:
                pdb.conn.backup(dest)
        finally:
            dest.close()
        # only a complete copy gets a backup's name (a half-written one, say on a full
        # disk, would otherwise pass for the newest backup and stop the next ones)
        os.replace(partial, target)
    except (OSError, sqlite3.Error):
        # A backup that cannot be written must not stop the researcher from working.
        with contextlib.suppress(OSError):
            partial.unlink()
        return None
    for old in sorted(folder.glob("*.sqlite"))[:-BACKUPS_KEPT]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target


def disk_free(path: Path) -> int:
    return shutil.disk_usage(path.parent).free

"""What this process holds open of each project file: its connections and its ProjectDBs.

Every SQLite connection to a project is made by :func:`.db.connect` and recorded here under
the file's resolved path, and every :class:`.db.ProjectDB` too. Two uses:

* whether this process has a project open (restore and merge refuse then; a file open here
  is not read with a plain file handle, see :func:`refuse_open_project_file`: the one guard,
  which every reader of the domain passes through :func:`.file_reading.guard_inputs_with`);
* reconnecting after this process lost its locks on a file (:mod:`.lock_guard`): SQLite
  shares one lock state and one ``-shm`` mapping per file among all of a process's
  connections to it, so every one of them must be closed before a new connection can take
  the locks again -- which needs to know every one of them.

Connections are held weakly (a connection dropped without ``close()`` is closed by Python);
a closed one counts as gone.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
import threading
import weakref
from pathlib import Path
from typing import Any, Protocol

from ..domain import file_reading
from ..domain.errors import ProjectError
from .schema import APPLICATION_ID

SQLITE_HEADER = b"SQLite format 3\x00"
#: held while a connection is made and recorded, and while the connections of a file are
#: closed and made again, so that no connection is made to a file half reconnected
open_lock = threading.RLock()


class TrackedConnection(sqlite3.Connection):
    """A sqlite3 connection that can be held weakly (the base class cannot)."""


class OpenProject(Protocol):
    """What this module and :mod:`.lock_guard` use of a :class:`.db.ProjectDB`."""

    path: Path
    #: the thread that opened it (only that one uses it, and may reconnect it)
    thread: int
    #: how many times it was reconnected
    generation: int
    notes: list[str]

    @property
    def conn(self) -> sqlite3.Connection: ...

    def connect_again(self) -> None:
        """Close its connection (already closed: skip that) and make a new one."""


_connections: dict[str, weakref.WeakSet[TrackedConnection]] = {}
_projects: dict[str, weakref.WeakSet[OpenProject]] = {}


def key(path: str | Path) -> str:
    """The name a file is recorded under: its resolved path."""
    text = str(path)
    return _resolved(text, "" if os.path.isabs(text) else os.getcwd())


@functools.lru_cache(maxsize=256)
def _resolved(text: str, cwd: str) -> str:
    return str(Path(cwd, text).resolve())


def is_closed(conn: sqlite3.Connection) -> bool:
    try:
        conn.in_transaction  # noqa: B018 - raises once the connection is closed
    except sqlite3.ProgrammingError:
        return True
    return False


def connect_tracked(path: Path, target: str, **kwargs: Any) -> TrackedConnection:
    """``sqlite3.connect`` recorded under ``path`` (made under :data:`open_lock`)."""
    with open_lock:
        conn = sqlite3.connect(target, factory=TrackedConnection, **kwargs)
        _connections.setdefault(key(path), weakref.WeakSet()).add(conn)
    return conn


def connections(path: str | Path) -> list[TrackedConnection]:
    """This process's open connections to ``path``."""
    with open_lock:
        found = list(_connections.get(key(path), ()))
    return [c for c in found if not is_closed(c)]


def register(pdb: OpenProject) -> None:
    with open_lock:
        _projects.setdefault(key(pdb.path), weakref.WeakSet()).add(pdb)


def unregister(pdb: OpenProject) -> None:
    with open_lock:
        k = key(pdb.path)
        held = _projects.get(k)
        if held is not None:
            held.discard(pdb)
            if not held:
                del _projects[k]


def projects(path: str | Path) -> list[OpenProject]:
    """The ProjectDBs of this process open on ``path``."""
    with open_lock:
        return list(_projects.get(key(path), ()))


def open_paths() -> list[Path]:
    """Every project file this process holds a ProjectDB on."""
    with open_lock:
        return [Path(k) for k, held in _projects.items() if held]


def is_open_here(path: Path) -> bool:
    """Does this process hold a connection to the project file (restore refuses then)?"""
    with open_lock:
        return bool(_projects.get(key(path)))


def refuse_open_project_file(path: str | Path, what: str) -> None:
    """Refuse to read or write ``path`` with a plain file handle when it is a project file
    (or its -wal, -shm) this process has open: closing that handle would drop the locks
    that keep other programs from deleting the write-ahead log under us."""
    try:
        st = os.stat(path)
    except OSError:
        return
    with open_lock:
        keys = [k for k, held in _projects.items() if held]
    for k in keys:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                other = os.stat(k + suffix)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                raise ProjectError(
                    f"{path}: this is the open project file {Path(k).name}"
                    f"{' (its ' + suffix[1:] + ' file)' if suffix else ''}; choose another "
                    f"file {what}"
                )
    if _is_project_file(path, st):
        raise ProjectError(f"{path}: this is a sense7-coder project file; choose another "
                           f"file {what}")


def _refuse_as_input(path: Path) -> None:
    refuse_open_project_file(path, "to read")


# every reader of the domain asks this module before it opens a file: the one guard, by
# device and inode, whatever name (a link, another spelling) the file is reached through
file_reading.guard_inputs_with(_refuse_as_input)


def _is_project_file(path: str | Path, st: os.stat_result) -> bool:
    """Does ``path`` (a file this process has no connection to) hold a project's header?

    Only called after :func:`refuse_open_project_file` found the file is not open here, so
    reading its first bytes cannot drop a lock of ours."""
    if not stat.S_ISREG(st.st_mode) or st.st_size < 72:
        return False
    try:  # without blocking, checked once open: a pipe put in its place cannot hang us
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, 72)
    except OSError:
        return False
    finally:
        os.close(fd)
    return (head[:16] == SQLITE_HEADER
            and int.from_bytes(head[68:72], "big") == APPLICATION_ID)

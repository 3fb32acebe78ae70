"""Never write into a log other processes no longer see: notice that this process lost its
locks on an open project, and reconnect before the next write (Linux).

SQLite's locks on Linux and macOS are POSIX advisory locks: they belong to the process, and
closing *any* descriptor of a file releases all of them. Code in this process that opens
and closes the project file or its ``-shm`` (a file dialog listing the folder, a platform
plugin, a thumbnailer) leaves our connections without locks; the next program to close the
file then believes it was the last, folds the write-ahead log into the file and deletes the
``-wal`` and ``-shm`` -- which our connections keep writing into, unseen by anyone else.

The window shows every file dialog in a child process (``ui/file_dialogs.py``); this
module is the guard for whatever can still happen. It reads only what the kernel says of
this process's own descriptors: ``/proc/self/fdinfo/N`` (the locks this process holds on
the file open under N) and ``stat`` of ``/proc/self/fd/N`` (which follows the descriptor
without opening anything), and tells whether this process still holds its read locks on
the project file and on byte 128 of the ``-shm`` (SQLite's sign that a connection is alive),
and whether the ``-wal`` and ``-shm`` it has open are still the files on disk. When not,
every connection of this process to the file is closed and made again
(:func:`reconnect`): SQLite shares one lock state and one ``-shm`` mapping per file among a
process's connections, so none of them may be left open. :func:`before_write` does this
before every write transaction, so nothing is ever written into an orphaned log; closing
the old connections is then safe (their log holds nothing the file lacks), and they close
under a lock that keeps SQLite from folding or deleting anything as they go.

Not ``/proc/locks``: reading the kernel's whole lock table takes its file-lock semaphore
for writing, which waits for an RCU grace period (5-8 ms when reads are a keystroke apart,
the window's pace, against 0.05 ms for one descriptor's ``fdinfo``) and holds up every
other process's lock calls meanwhile.

Where ``/proc/self/fdinfo`` does not exist (macOS, Windows) this module does nothing: there
the out-of-process file dialogs are the guarantee (Windows locks by handle and is not
affected).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

from ..domain.errors import ProjectError

try:
    import fcntl
except ImportError:  # Windows: locks by handle, and this guard is not needed
    fcntl = None  # type: ignore[assignment]
from .open_here import OpenProject, connections, is_closed, key, open_lock, projects

log = logging.getLogger(__name__)
#: the notes of an opening (db.notes_log): the command line prints them
notes_log = logging.getLogger("sense7_coder.notes")
FDS = "/proc/self/fd"
FDINFO = "/proc/self/fdinfo"
#: SQLite's lock bytes: the shared range of the database file, and the -shm byte every
#: live connection holds a read lock on (the "dead man switch")
SHARED_FIRST, SHARED_SIZE = 0x40000002, 510
SHM_DMS = 128
_SIDES = ("", "-wal", "-shm")
#: what :func:`problem` says when the locks are gone but the -wal and -shm on disk are still
#: the ones this process writes into (nothing is lost yet)
LOCKS_LOST = ("this process had lost its locks on it (something in it opened and closed the "
              "file)")
#: per file (resolved path): can this process's locks be seen in /proc/self/fdinfo at all
#: (they were looked for right after opening, when they are surely held)
_visible: dict[str, bool] = {}
#: per file: the connections open when its descriptors were last looked for, and those
_descriptors: dict[str, tuple[frozenset[int], list[int]]] = {}

Inode = tuple[int, int]


@functools.cache
def supported() -> bool:
    """Can the guard work here (Linux's descriptor tables and open file description
    locks)?"""
    return (fcntl is not None and hasattr(fcntl, "F_OFD_SETLK") and os.path.isdir(FDS)
            and os.path.isdir(FDINFO))


def _inode(path: str) -> Inode | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def open_files(path: Path) -> dict[str, set[Inode]]:
    """The files this process has open as the project file, its -wal and its -shm (by
    suffix; deleted ones included), found through /proc/self/fd without opening them."""
    return {s: {inode for _, inode in opened} for s, opened in _open_fds(path).items()}


def _open_fds(path: Path) -> dict[str, list[tuple[int, Inode]]]:
    """The descriptors this process has open on the project file, its -wal and its -shm
    (by suffix), each with the inode it names.

    The descriptors found are remembered per file while the same connections are open
    (a full look through /proc/self/fd costs about a millisecond in a window's process;
    a look at the few remembered ones, some microseconds)."""
    base = key(path)
    names = {base + s: s for s in _SIDES} | {base + s + " (deleted)": s for s in _SIDES}
    held = frozenset(id(c) for c in connections(path))
    cached = _descriptors.get(base)
    if cached is not None and cached[0] == held:
        found = _look(cached[1], names)
        if found is not None:
            return found
    fds = [int(fd) for fd in os.listdir(FDS)]
    ours = [fd for fd in fds if _name(fd) in names]
    found = _look(ours, names) or {s: [] for s in _SIDES}
    if all(found.values()):  # every kind seen: worth remembering
        _descriptors[base] = (held, ours)
    return found


def _name(fd: int) -> str:
    try:
        return os.readlink(f"{FDS}/{fd}")
    except OSError:  # closed meanwhile (the listing's own descriptor, another thread)
        return ""


def _look(fds: list[int], names: dict[str, str]
          ) -> dict[str, list[tuple[int, Inode]]] | None:
    """The descriptors of ``fds`` and their inodes, by suffix; None when one of them no
    longer names a file of the project (closed, or its number reused)."""
    found: dict[str, list[tuple[int, Inode]]] = {s: [] for s in _SIDES}
    for fd in fds:
        suffix = names.get(_name(fd))
        inode = _inode(f"{FDS}/{fd}")
        if suffix is None or inode is None:
            return None
        found[suffix].append((fd, inode))
    return found


def _fd_locks(fd: int) -> list[tuple[int, int]]:
    """The byte ranges (end -1: to the end) this process holds POSIX locks on in the file
    open under ``fd``: the ``lock:`` lines of /proc/self/fdinfo/N, which list this
    process's locks on that file taken through that descriptor (a procfs file of its own:
    reading it touches neither the project's files nor their locks)."""
    try:
        with open(f"{FDINFO}/{fd}", encoding="utf-8", errors="replace") as info:
            text = info.read()
    except OSError:  # closed meanwhile
        return []
    pid = str(os.getpid())
    spans = []
    for line in text.splitlines():
        fields = line.split()
        # lock:  1: POSIX  ADVISORY  READ  <pid> <maj:min:ino> <start> <end|EOF>
        if len(fields) < 9 or fields[0] != "lock:" or "->" in fields[:3] \
                or fields[2] != "POSIX" or fields[5] != pid:
            continue
        try:
            spans.append((int(fields[7]), -1 if fields[8] == "EOF" else int(fields[8])))
        except ValueError:
            continue
    return spans


def _covers(spans: list[tuple[int, int]], byte: int) -> bool:
    return any(start <= byte and (end < 0 or end >= byte) for start, end in spans)


def _locks_held(db: list[tuple[int, Inode]], shm: list[tuple[int, Inode]]) -> bool:
    """A lock on the project file and, on every -shm open here, one on byte 128. A lock
    shows under the descriptor it was taken through (or one it was merged with), so every
    descriptor of the file is asked."""
    if not any(_fd_locks(fd) for fd, _ in db):
        return False
    spans: dict[Inode, list[tuple[int, int]]] = {}
    for fd, inode in shm:
        spans.setdefault(inode, []).extend(_fd_locks(fd))
    return all(_covers(held, SHM_DMS) for held in spans.values())


def problem(path: Path) -> str | None:
    """What is wrong with this process's hold on ``path`` (None: nothing, or nothing this
    guard can tell or mend: no -shm mapped yet, the file itself moved or replaced)."""
    opened = _open_fds(path)
    files = {s: {inode for _, inode in fds} for s, fds in opened.items()}
    if not files["-shm"]:
        return None
    base = key(path)
    disk = {s: _inode(base + s) for s in _SIDES}
    if disk[""] is None or disk[""] not in files[""]:
        return None
    for side in ("-shm", "-wal"):
        if files[side] and files[side] != {disk[side]}:
            return (f"its {side[1:]} file was deleted or replaced by another program after "
                    "this process had lost its locks on it")
    db = [(fd, inode) for fd, inode in opened[""] if inode == disk[""]]
    return None if _locks_held(db, opened["-shm"]) else LOCKS_LOST


def calibrate(path: Path) -> None:
    """Right after opening, when its locks are surely held: can they be seen? If not (an
    unusual file system), the guard stays off for this file rather than reconnect in vain."""
    k = key(path)
    if k in _visible or not supported():
        return
    opened = _open_fds(path)
    db = _inode(k)
    if opened["-shm"] and db is not None:
        _visible[k] = _locks_held([(fd, i) for fd, i in opened[""] if i == db],
                                  opened["-shm"])
        if not _visible[k]:
            log.info("%s: this process's locks do not show in /proc/self/fdinfo; the guard "
                     "is off for this file", path)


def watching(path: Path) -> bool:
    return supported() and _visible.get(key(path), False)


@contextlib.contextmanager
def _no_checkpoint_on_close(path: Path) -> Iterator[None]:
    """While inside, the last connection of this process to close cannot fold its log into
    the file nor delete the -wal and -shm on disk (it would delete another process's log
    left after a crash): an open file description lock on the shared range keeps SQLite
    from the exclusive lock it needs for that. (Such locks conflict with this process's own
    POSIX locks; opening this descriptor drops those, which are about to go anyway.)"""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        flock = struct.pack("hhxxxxqqixxxx", fcntl.F_RDLCK, os.SEEK_SET, SHARED_FIRST,
                            SHARED_SIZE, 0)
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, flock)
        yield
    finally:
        os.close(fd)  # releases the lock


class Busy(Exception):
    """Another thread's connection, or a transaction, is open on the file."""


def reconnect(path: Path, reason: str) -> str:
    """Close every connection of this process to ``path`` and make its ProjectDBs connect
    again; the note saying so. :class:`Busy` while a connection another thread uses, or a
    transaction, is open on the file: nothing may be closed under them."""
    me = threading.get_ident()
    with open_lock:
        mine = [p for p in projects(path) if not is_closed(p.conn)]
        ours = {id(p.conn) for p in mine if p.thread == me}
        others = [c for c in connections(path) if id(c) not in ours]
        if others or any(p.conn.in_transaction for p in mine):
            raise Busy(reason)
        with _no_checkpoint_on_close(path):
            for p in mine:
                p.conn.close()
        for p in mine:
            p.connect_again()
            p.generation += 1
    note = (f"{path}: reconnected to the project: {reason}. Changes go on into the file "
            "other programs see")
    notes_log.warning(note)
    for p in mine:
        p.notes.append(note)
    return note


def check(pdb: OpenProject) -> str | None:
    """Reconnect ``pdb``'s file if this process lost its hold on it; the note, or None.

    While another thread's connection is open on the file (a background job, or the
    window while a job writes) nothing can be closed. If the -wal and -shm on disk are still
    the ones this process writes into, the write goes on (it lands where every program
    sees it) and the next look reconnects; if they are not, writing would be lost, and it
    is refused (ProjectError)."""
    if not watching(pdb.path) or pdb.conn.in_transaction:
        return None
    reason = problem(pdb.path)
    if not reason:
        return None
    try:
        return reconnect(pdb.path, reason)
    except Busy:
        if reason == LOCKS_LOST:
            return None
        raise ProjectError(
            f"{pdb.path}: {reason}; this program reconnects to it once its other work on "
            "the project (a background job) has finished. Nothing was changed; try again "
            "in a moment") from None


def before_write(pdb: OpenProject) -> sqlite3.Connection:
    """The connection to write with: ``pdb``'s, made again first if its locks were lost."""
    check(pdb)
    return pdb.conn

"""Which journal a project file keeps, and the rollback journal of a coder's package.

A project shared by windows and commands runs in WAL mode: readers go on while a writer
commits, and a commit is an append to ``NAME-wal``. The log is folded into the file only
by a checkpoint (when the last connection closes, or every thousand pages), so between
those moments the file on its own lacks the latest changes.

A coder's package (a file whose settings name its ``package_coder``) is a one-person
file that travels alone: a coder mails or syncs ``ana.sense7`` and nothing beside it. It
therefore runs in rollback-journal mode (``journal_mode = DELETE``): a commit writes the
changed pages into the file itself before it is reported, and the journal that holds
their old contents meanwhile is deleted as the commit ends. After every acknowledged
write -- a kill -9 included -- the file alone is complete and nothing lies beside it.
The package is made in this mode (:mod:`..project.package`) and put back into it
whenever it is opened (one made by an earlier version, in WAL mode, included, as soon as
no other program holds it).

Its connections keep every changed page in memory until the commit (``cache_spill``
off), so a commit journals the first page (the file's change counter) before it writes
any page into the file. A ``-journal`` left beside a package by a kill in the middle of
a commit is played back by SQLite when the file is next opened; :func:`check_journal`
first makes sure it is this file's own (see there): SQLite plays back whatever journal
it finds, and a journal copied in from another database would damage the file for good.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import struct
import threading
from pathlib import Path

from ..domain.errors import ProjectError

SQLITE_HEADER = b"SQLite format 3\x00"
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
_HEADER = 28
#: a journal larger than this is not read through; it is refused instead (a package's
#: commit journals a few pages)
MAX_JOURNAL_SCAN = 256 * 1024 * 1024
#: the page SQLite keeps for its locks, never journaled (its first byte is at 2**30)
_PENDING_BYTE = 0x40000000

#: resolved paths this process runs in rollback-journal mode (packages)
_rollback_here: set[str] = set()
_lock = threading.Lock()


def is_package(conn: sqlite3.Connection) -> bool:
    """Do the file's settings name a package coder?"""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'package_coder'").fetchone()
    except sqlite3.OperationalError:
        return False
    return bool(row and row[0])


def choose_journal_mode(conn: sqlite3.Connection, path: Path) -> str:
    """Put a freshly opened read-write connection in the file's journal mode: rollback
    (``delete``) for a package, WAL for every other project. Returns the mode in force.

    Changing it needs the file to itself: while another program holds the file open in
    the other mode, the mode stays as it is (that program's last connection to close folds
    its log in), without waiting for it."""
    package = is_package(conn)
    want = "delete" if package else "wal"
    if package:
        conn.execute("PRAGMA cache_spill = OFF")
    mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if mode != want:
        timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            mode = str(conn.execute(f"PRAGMA journal_mode = {want}").fetchone()[0]).lower()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    with _lock:
        if mode == "delete":
            _rollback_here.add(str(path.resolve()))
        else:
            _rollback_here.discard(str(path.resolve()))
    return mode


def rollback_here(path: Path) -> bool:
    """Does this process run ``path`` in rollback-journal mode (its -journal is then its
    own connections' while they write, never one to set aside)?"""
    with _lock:
        return str(path.resolve()) in _rollback_here


def rollback_mode(header: bytes) -> bool:
    """Does the database header say the file keeps a rollback journal (versions 1)?"""
    return len(header) >= 20 and header[:16] == SQLITE_HEADER and header[18] == header[19] == 1


def _page_size(raw: int) -> int:
    return 65536 if raw == 1 else raw


def _checksum(nonce: int, data: bytes) -> int:
    """SQLite's checksum of a journaled page: the nonce plus every 200th byte, from the
    end."""
    total = nonce
    i = len(data) - 200
    while i > 0:
        total += data[i]
        i -= 200
    return total & 0xFFFFFFFF


def _played(fh: object, size: int, page: int) -> tuple[int, int, list[tuple[int, bytes]]]:
    """What SQLite would play back from the journal open in ``fh``: the page size it
    declares, the file size in pages it truncates to, and the pages it writes (page
    number, old contents), read header by header as SQLite reads them."""
    read, seek = fh.read, fh.seek  # type: ignore[attr-defined]
    head = read(_HEADER)
    _n, _nonce, original, sector, journal_page = struct.unpack(">5I", head[8:28])
    records: list[tuple[int, bytes]] = []
    offset = 0
    while True:
        seek(offset)
        head = read(_HEADER)
        if len(head) < _HEADER or head[:8] != JOURNAL_MAGIC:
            break
        n, nonce = struct.unpack(">2I", head[8:16])
        offset += sector
        if n == 0xFFFFFFFF:
            n = (size - offset) // (journal_page + 8)
        seek(offset)
        for _ in range(n):
            record = read(journal_page + 8)
            if len(record) < journal_page + 8:
                return journal_page, original, records
            pgno = int.from_bytes(record[:4], "big")
            data = record[4:-4]
            if (pgno in (0, _PENDING_BYTE // page + 1)
                    or _checksum(nonce, data) != int.from_bytes(record[-4:], "big")):
                return journal_page, original, records  # SQLite stops playing back here
            records.append((pgno, data))
            offset += journal_page + 8
        offset = -(-offset // sector) * sector  # the next header starts on a sector
    return journal_page, original, records


def check_journal(path: Path, real: Path, header: bytes) -> None:
    """Refuse, untouched, a file in rollback-journal mode whose ``-journal`` SQLite would
    play back but which cannot be shown to be the file's own. Call before connecting.

    Its own journal is the old contents of the pages the file's last, interrupted commit
    was writing. Either it holds the first page as it was before that commit -- of this
    application, the same page size, the change counter the file has now or one less
    (when the commit had already written the first page), the size the journal truncates
    the file to -- or playing it back changes nothing: every page it holds is the file's
    page as it is, and the file has the size the journal gives it.
    """
    journal = real.with_name(real.name + "-journal")
    try:
        st = os.lstat(journal)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise ProjectError(f"{path}: {journal.name} beside it is not a file (a folder, a link "
                           "or a device); move it away, then try again; nothing was changed")
    if st.st_size < _HEADER:
        return
    page = _page_size(int.from_bytes(header[16:18], "big"))
    fd = os.open(journal, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        if fh.read(8) != JOURNAL_MAGIC:
            return  # SQLite takes it for no journal and plays nothing back
        if st.st_size > MAX_JOURNAL_SCAN:
            raise _foreign(path, journal, "it is too large to be checked")
        fh.seek(0)
        journal_page, original, records = _played(fh, st.st_size, page)
    why = _not_own(real, header, page, journal_page, original, records)
    if why:
        raise _foreign(path, journal, why)


def _not_own(real: Path, header: bytes, page: int, journal_page: int, original: int,
             records: list[tuple[int, bytes]]) -> str | None:
    """Why a journal's playback is not this file's, or None."""
    if journal_page != page:
        return f"its pages are {journal_page} bytes, the file's {page}"
    first = [data for pgno, data in records if pgno == 1]
    if first:
        image = first[-1]
        counter = int.from_bytes(header[24:28], "big")
        before = int.from_bytes(image[24:28], "big")
        valid = int.from_bytes(image[92:96], "big") == before
        if (image[:16] != SQLITE_HEADER or image[68:72] != header[68:72]
                or _page_size(int.from_bytes(image[16:18], "big")) != page):
            return "its first page is another database's"
        if counter not in (before, (before + 1) & 0xFFFFFFFF):
            return (f"it was written when the file had changed {before} times, and the "
                    f"file has changed {counter} times")
        if valid and int.from_bytes(image[28:32], "big") != original:
            return "its first page and its header disagree on the file's size"
        return None
    size = os.stat(real).st_size
    if original != size // page:
        return f"it would cut the file from {size // page} pages to {original}"
    with open(real, "rb") as fh:  # before any connection: no lock of ours to drop
        for pgno, data in records:
            fh.seek((pgno - 1) * page)
            if fh.read(page) != data:
                return f"it would overwrite page {pgno} with another page"
    return None


def _foreign(path: Path, journal: Path, why: str) -> ProjectError:
    return ProjectError(
        f"{path}: {journal.name} beside it was not written for this file ({why}); SQLite "
        "would play it back into the file and damage it, so nothing was changed. Move "
        f"{journal.name} away to open the file as it is, or put it back beside the file "
        "it came from")

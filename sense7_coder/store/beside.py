"""Files SQLite would read beside a project file, checked before SQLite ever sees them.

SQLite applies what it finds beside a database without asking where it came from: a hot
rollback ``-journal`` is played back into the file (even into a file in WAL mode), and the
frames of a ``-wal`` are folded in as long as they agree with the log's own header. A
``-journal`` copied in from another database, or a ``-wal`` made on a copy of the project,
would so damage the project for good on a merely reading command.

Everything here runs before the first connection to the file is made (a plain file handle
on a project file must never be closed by a process that holds a connection to it: that
drops SQLite's locks), and never when this process has the file open already.

* A project is in WAL mode and never writes a rollback journal: a ``-journal``
  beside a file in WAL mode is renamed to ``NAME-journal.set-aside-<time>`` (kept, never
  deleted) and a note says so.
* A ``-wal`` is read frame by frame (as SQLite reads it: frames carrying the log's salts,
  up to the last commit) and must fit the file: the same page size; the salts of the
  log the ``-shm`` beside the file indexes (when there is one: the file was left open or
  is open elsewhere); the file's size in pages as long as no frame changed its first
  page; a first page of the same application. Otherwise the file is refused, untouched.
  A log from a copy put beside a file closed cleanly, when neither changed its size,
  cannot be told from the file's own.
* A coder's package keeps a rollback journal (:mod:`.journal`): a ``-journal`` beside a
  file in rollback mode is played back only when it is shown to be the file's own;
  otherwise the file is refused, untouched.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import struct
import time
from pathlib import Path

from ..domain.errors import ProjectError
from .journal import check_journal, rollback_here, rollback_mode

SQLITE_HEADER = b"SQLite format 3\x00"
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER = 32
_FRAME_HEADER = 24
#: a -wal this large is checked by its header only (reading it all would slow every open)
MAX_WAL_SCAN = 256 * 1024 * 1024


def _read_head(path: Path, size: int) -> bytes | None:
    """The first ``size`` bytes of a regular file (never through a link), or None."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read(size)


def _page_size(raw: int) -> int:
    return 65536 if raw == 1 else raw


def wal_mode(header: bytes) -> bool:
    """Does the database header say the file is in WAL mode (read and write version 2)?"""
    return len(header) >= 20 and header[:16] == SQLITE_HEADER and header[18] == header[19] == 2


def check_side_files(path: Path, *, journal: bool = True) -> list[str]:
    """Set aside a rollback journal that cannot belong to the project (unless not
    ``journal``: a file only read, whose folder is not ours to change), refuse a -wal that
    does not fit it; the notes to show (one line each). Call before connecting."""
    real = path.resolve()  # SQLite finds the side files beside the file a link points to
    _refuse_links(path, real)
    header = _read_head(real, 100)
    if header is None or len(header) < 100 or header[:16] != SQLITE_HEADER:
        return []  # SQLite says what is wrong with the file itself
    notes = []
    if journal and wal_mode(header):
        note = _set_aside_journal(path, real)
        if note:
            notes.append(note)
    for attempt in range(3):
        try:
            _check_wal(path, real, header)
            if rollback_mode(header):  # a package: its own journal only (see .journal)
                check_journal(path, real, header)
            break
        except ProjectError:
            # another program writing meanwhile may have been read half-way (a frame, or
            # a checkpoint between the file's header and the log): look again
            if attempt == 2:
                raise
            time.sleep(0.05 * (attempt + 1))
            header = _read_head(real, 100) or header
    return notes


def set_aside_journal(path: Path) -> str | None:
    """Set aside a rollback journal beside a project this process has open (in WAL mode,
    which it set; its header is not read then): the note, or None. A package this
    process runs in rollback-journal mode keeps its own -journal while it writes."""
    if rollback_here(path):
        return None
    return _set_aside_journal(path, path.resolve())


def _refuse_links(path: Path, real: Path) -> None:
    """A -wal or -shm that is a link would have SQLite read and write another file."""
    for suffix in ("-wal", "-shm"):
        side = real.with_name(real.name + suffix)
        if side.is_symlink():
            raise ProjectError(
                f"{path}: {side.name} beside it is a link to another file; SQLite would take "
                "that file's contents for the project's latest changes. Move the link away, "
                "then try again; nothing was changed")


def _set_aside_journal(path: Path, real: Path) -> str | None:
    journal = real.with_name(real.name + "-journal")
    try:
        st = os.lstat(journal)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ProjectError(f"{path}: cannot look at {journal.name} beside it ({e}); nothing "
                           "was changed") from None
    if stat.S_ISREG(st.st_mode) and st.st_size == 0:
        return None  # holds nothing to play back
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    kept = journal.with_name(f"{journal.name}.set-aside-{stamp}")
    try:
        os.rename(journal, kept)
    except OSError as e:
        raise ProjectError(
            f"{path}: {journal.name} beside it is another database's rollback journal (this "
            "project keeps its changes in -wal) and SQLite would play it back into the "
            f"project; it could not be moved aside ({e.strerror or e}): move it away, then "
            "try again; nothing was changed") from None
    return (f"{path}: set aside {journal.name} (another database's rollback journal, which "
            f"SQLite would have played back into the project) as {kept.name}; the project "
            "was not changed")


def _foreign(path: Path, wal: Path, why: str) -> ProjectError:
    return ProjectError(
        f"{path}: {wal.name} beside it was not written for this file ({why}; a log made on "
        "a copy or on another project would damage it); nothing was changed. Move "
        f"{wal.name} away to open the file as it is, or put it back beside the file it "
        "came from")


def _check_wal(path: Path, real: Path, header: bytes) -> None:
    wal = real.with_name(real.name + "-wal")
    try:
        st = os.lstat(wal)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) or st.st_size < _WAL_HEADER:
        return  # absent or empty, or not a file (refused elsewhere)
    head = _read_head(wal, _WAL_HEADER)
    if head is None or len(head) < _WAL_HEADER:
        return
    magic, _version, wal_page, _seq, salt1, salt2 = struct.unpack(">6I", head[:24])
    if magic not in _WAL_MAGIC:
        return  # SQLite takes such a log for an empty one
    page = _page_size(int.from_bytes(header[16:18], "big"))
    if wal_page != page:
        raise _foreign(path, wal, f"its pages are {wal_page} bytes, the file's {page}")
    if st.st_size > MAX_WAL_SCAN:
        return
    counter = int.from_bytes(header[24:28], "big")
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    first_pages, sizes = _committed_frames(wal, page, salt1, salt2)
    if not sizes:
        return  # nothing committed: SQLite applies nothing of it
    index = _index_salts(real)
    if index is not None and index != head[16:24]:
        raise _foreign(path, wal, f"its salts differ from those of {real.name}-shm, the "
                                  "index of the log this file was last written with")
    # sizes the file had while no frame had changed its first page yet
    before = [size for size, n_first in sizes if n_first == 0]
    if (valid_for == counter and pages and any(size != pages for size in before)
            and _read_head(real, page) not in first_pages):  # not checkpointed in part
        raise _foreign(path, wal, f"its first change leaves {before[0]} pages, the file "
                                  f"holds {pages}")
    for image in first_pages:
        if image[:16] != SQLITE_HEADER or image[68:72] != header[68:72]:
            raise _foreign(path, wal, "its first page is another database's")


def _index_salts(real: Path) -> bytes | None:
    """The salts of the log that the -shm beside the file indexes (both copies of its
    header agreeing and initialised), or None."""
    shm = _read_head(real.with_name(real.name + "-shm"), 96)
    if shm is None or len(shm) < 96 or shm[:48] != shm[48:96] or not shm[12]:
        return None
    return shm[32:40]


def _committed_frames(wal: Path, page: int, salt1: int, salt2: int
                      ) -> tuple[list[bytes], list[tuple[int, int]]]:
    """The images of the first page in the log's frames, and each commit's file size with
    the number of first-page frames before it, up to the last commit (what SQLite would
    apply)."""
    first_pages: list[bytes] = []
    sizes: list[tuple[int, int]] = []
    applied = 0
    frame = _FRAME_HEADER + page
    fd = os.open(wal, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        fh.seek(_WAL_HEADER)
        while True:
            data = fh.read(frame)
            if len(data) < frame:
                break
            pgno, commit, s1, s2 = struct.unpack(">4I", data[:16])
            if (s1, s2) != (salt1, salt2) or pgno == 0:
                break  # the end of what the log holds now
            if pgno == 1:
                first_pages.append(data[_FRAME_HEADER:])
            if commit:
                sizes.append((commit, len(first_pages)))
                applied = len(first_pages)
    return first_pages[:applied], sizes

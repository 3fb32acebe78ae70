"""Which project files this user's sense7-coder has checked page by page, in what state.

Opening a project runs SQLite's ``quick_check`` over every page: about a second per
600 MB. A file that has not changed at all since it passed that check need not pay for it
again, so each passed check is remembered with the file's identity and state -- device,
inode, size, modification and status-change times, of the file and of its write-ahead log
-- as :func:`os.stat` reports them (no file handle is ever opened on a project file here).
Any write, by SQLite or by anything else, changes the size or the times (the status-change
time cannot be set back by hand), so a file that changed is checked again. (Not on
Windows, whose status-change time is the creation time: there every open is checked.)

The record lives in the user's cache folder; losing it only means one more check.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
import threading
from pathlib import Path

from ..paths import user_cache_dir

#: files remembered at most (the least recently checked are forgotten first)
KEPT = 200
_lock = threading.Lock()

State = list[int]


#: what a passed check covers; raised whenever the checks on opening grow (this one: the
#: values' kinds and ranges, :mod:`.shapes`), so that a file an older version passed is
#: checked again once
CHECKS = 6


def _record() -> Path:
    return user_cache_dir() / f"checked-projects-v{CHECKS}.json"


def _stat(path: Path) -> State | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def file_state(path: Path) -> State | None:
    """The project file's state (with its -wal when that holds anything), or None (then
    nothing is remembered).

    None on Windows, where ``st_ctime`` is the creation time: a hand edit that puts the
    modification time back would keep every number the same there."""
    if sys.platform == "win32":
        return None
    main = _stat(path)
    if main is None:
        return None
    wal = _stat(path.with_name(path.name + "-wal"))
    # an empty or absent log holds nothing: opening and closing leaves one or the other
    return main + (wal if wal is not None and wal[2] > 0 else [])


#: the largest record read (200 entries take about 20 kB)
MAX_RECORD_BYTES = 1024 * 1024


def _load() -> dict[str, State]:
    record = _record()
    try:
        # only a plain file of its own: never through a link, which could lead to a project
        # file this process holds open (closing a handle on it would drop SQLite's locks)
        st = os.lstat(record)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_size > MAX_RECORD_BYTES:
            return {}
        fd = os.open(record, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(MAX_RECORD_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items()
            if isinstance(k, str) and isinstance(v, list) and all(isinstance(x, int) for x in v)}


def known_healthy(path: Path) -> bool:
    """Did a page check pass on this file in exactly the state it is in now?"""
    state = file_state(path)
    if state is None:
        return False
    with _lock:
        return _load().get(str(path.resolve())) == state


def remember_healthy(path: Path, state: State | None) -> None:
    """Record that the page check passed on ``path`` in ``state`` (taken before the check;
    nothing is recorded when the file changed meanwhile)."""
    if state is None or file_state(path) != state:
        return
    record = _record()
    with _lock:
        data = _load()
        key = str(path.resolve())
        data.pop(key, None)
        data[key] = state
        kept = dict(list(data.items())[-KEPT:])
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            # a new file of a fresh name (O_EXCL): nothing left in the folder, a link
            # included, is ever written through
            fd, partial = tempfile.mkstemp(prefix=f".{record.name}.", suffix=".part",
                                           dir=record.parent)
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(kept))
            os.replace(partial, record)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(partial)

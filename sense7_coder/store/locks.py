"""Who else holds a project file open (Linux: from ``/proc/locks``; elsewhere unknown).

SQLite marks an open connection with POSIX advisory locks: a read lock on the database
file and on its ``-shm`` file while the connection is open, a write lock on byte 120 of the
``-shm`` file while it writes. This module only *reads* the kernel's lock table; it never
opens the project file (closing any descriptor of it would drop this process's locks).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: offset of SQLite's WAL write lock in the -shm file
WAL_WRITE_LOCK = 120


@dataclass(frozen=True)
class Holder:
    pid: int
    command: str
    writing: bool

    def describe(self) -> str:
        if self.pid == os.getpid():
            return "another window or job of this program"
        what = f"process {self.pid}"
        return f"{what} ({self.command})" if self.command else what


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    parts = [p.decode("utf-8", "replace") for p in raw.split(b"\0") if p]
    if len(parts) > 1 and parts[1] == "-m":  # python -m sense7_coder ...
        parts = parts[2:]
    elif parts:
        parts[0] = Path(parts[0]).name
    text = " ".join(" ".join(parts).split())  # one line, whatever the arguments hold
    return text if len(text) <= 80 else text[:77] + "..."


def holders(path: Path) -> list[Holder] | None:
    """Processes holding a lock on the project file or its ``-shm`` file.

    None where this cannot be known (no ``/proc/locks``). Lists the process itself too
    (another connection of it); callers decide what to say about that.
    """
    locks = Path("/proc/locks")
    if not locks.exists():
        return None
    db = _inode(path)
    shm = _inode(path.with_name(path.name + "-shm"))
    found: dict[int, bool] = {}
    try:
        lines = locks.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if "->" in fields[:2]:  # a waiting request, not a held lock
            continue
        if len(fields) < 8 or fields[1] not in ("POSIX", "OFDLCK"):
            continue
        try:
            pid = int(fields[4])
            major, minor, ino = fields[5].split(":")
            start = int(fields[6])
            end = -1 if fields[7] == "EOF" else int(fields[7])
        except ValueError:
            continue
        key = (os.makedev(int(major, 16), int(minor, 16)), int(ino))
        if key != db and key != shm:
            continue
        writing = (key == shm and fields[3] == "WRITE"
                   and start <= WAL_WRITE_LOCK and (end < 0 or end >= WAL_WRITE_LOCK))
        found[pid] = found.get(pid, False) or writing
    return [Holder(pid, _command(pid), w) for pid, w in sorted(found.items())]


def others_holding(path: Path) -> list[Holder] | None:
    """Other processes that have the project open (None: cannot tell on this system)."""
    found = holders(path)
    if found is None:
        return None
    return [h for h in found if h.pid != os.getpid()]


def busy_detail(path: Path) -> str:
    """Who is writing to the file, for a "busy" message ('' when not known)."""
    found = holders(path)
    if not found:
        return ""
    writers = [h for h in found if h.writing] or found
    return "; it is held by " + ", ".join(h.describe() for h in writers)

"""A project's backups: the folder beside it, which files in it are ours, when a copy is
due, and the copy itself (SQLite's online backup, renamed into place only when complete).

The connection to copy from comes from the caller (:mod:`.db`), so that this module opens
no project file itself.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import sqlite3
import stat
from pathlib import Path

BACKUPS_KEPT = 5


def backups_dir(path: Path) -> Path:
    return path.with_name(path.name + ".backups")


def own_backups(path: Path) -> list[Path]:
    """The backups sense7-coder made of ``path`` (by their names), oldest first.

    Other files in the folder (a copy put there by hand) are never counted, rotated out
    or deleted; nor is anything reached through a backups folder that is a link.
    """
    folder = backups_dir(path)
    if folder.is_symlink() or not folder.is_dir():
        return []
    name = re.compile(rf"{re.escape(path.stem)}-\d{{8}}-\d{{6}}-\d{{6}}(-before-restore)?\.sqlite")
    return sorted(p for p in folder.glob("*.sqlite") if name.fullmatch(p.name))


def linked_backups_note(path: Path) -> str | None:
    """A line for a backups folder that is a link (to a folder elsewhere, whose files
    rotation would delete): it is not followed, and no backup is made."""
    folder = backups_dir(path)
    if not folder.is_symlink():
        return None
    return (f"{path}: {folder.name} beside it is a link to another place, which "
            "sense7-coder does not follow: no backup was made; make it a plain folder to "
            "have backups again")


#: a half-written backup (``.NAME.part``) untouched this long was left by a killed backup
STALE_PART_S = 600.0


def _clean_stale_parts(path: Path, folder: Path) -> None:
    """Delete half-written backups of ``path`` that a killed backup left in ``folder``
    (only sense7-coder's own names; one still being written is left alone)."""
    name = re.compile(rf"\.{re.escape(path.stem)}-\d{{8}}-\d{{6}}-\d{{6}}\.sqlite\.part"
                      r"(-journal)?")
    now = dt.datetime.now().timestamp()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not name.fullmatch(entry.name):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_PART_S:
                    os.unlink(entry.path)


def backup_due(path: Path) -> bool:
    """Is the project newer than its newest backup (or without one)?"""
    existing = own_backups(path)
    try:
        return not existing or existing[-1].stat().st_mtime < _changed_at(path)
    except OSError:
        return True


def _changed_at(path: Path) -> float:
    """When the project last changed: its file's time, or its write-ahead log's when the
    log holds commits. Opening a file makes an empty log (a fresh time, no change), so
    counting that made every opening copy the whole project and rotate out the older,
    different backups for copies of the same state."""
    changed = path.stat().st_mtime
    with contextlib.suppress(FileNotFoundError):
        wal = path.with_name(path.name + "-wal").stat()
        if wal.st_size:
            changed = max(changed, wal.st_mtime)
    return changed


def copy_to_backups(path: Path, source: sqlite3.Connection) -> Path | None:
    """Copy the project open on ``source`` into ``<file>.backups/`` (SQLite's online
    backup) when it changed since the newest backup, keeping the newest
    :data:`BACKUPS_KEPT`; None when no copy was due or it could not be written."""
    folder = backups_dir(path)
    if folder.is_symlink():
        return None  # never followed (see linked_backups_note)
    _clean_stale_parts(path, folder)
    if not backup_due(path):
        return None
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    target = folder / f"{path.stem}-{stamp}.sqlite"
    partial = folder / f".{target.name}.part"
    try:
        folder.mkdir(exist_ok=True)
        dest = sqlite3.connect(str(partial))
        try:
            with dest:
                source.backup(dest)
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
    for old in own_backups(path)[:-BACKUPS_KEPT]:
        for name in (old.name, old.name + "-wal", old.name + "-shm"):
            with contextlib.suppress(OSError):
                old.with_name(name).unlink()
    return target

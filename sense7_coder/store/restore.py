"""Listing a project's backups and bringing one back safely.

Restoring by hand (copying a backup over the project file) leaves the old file's ``-wal``
beside the new one; SQLite then applies the old changes to the wrong file, which looks
damaged. Here the current file is moved into the backups folder *together with* its
``-wal`` and ``-shm`` (so it stays complete and can be restored in turn), and the backup is
copied through SQLite's backup API into a fresh file that replaces the project in one
rename. Nothing is done while another process has the project open.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..domain.errors import ProjectError
from .backups import backups_dir
from .beside import check_side_files
from .db import connect, is_open_here, verify_project, verify_read_only
from .locks import others_holding

SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Backup:
    path: Path
    modified: dt.datetime
    size: int


def list_backups(project: Path) -> list[Backup]:
    """The project's backups, newest first."""
    folder = backups_dir(project)
    _refuse_link(project, folder)
    if not folder.is_dir():
        return []
    out = []
    for p in folder.glob("*.sqlite"):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append(Backup(p, dt.datetime.fromtimestamp(st.st_mtime), st.st_size))
    return sorted(out, key=lambda b: (b.modified, b.path.name), reverse=True)


def _refuse_link(project: Path, folder: Path) -> None:
    if folder.is_symlink():
        raise ProjectError(
            f"{project}: {folder.name} beside it is a link to another place, which "
            "sense7-coder does not follow (nor lists, nor writes to); make it a plain folder "
            "first; nothing was changed")


def _remove(path: Path) -> None:
    for suffix in ("", *SIDE_FILES):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()


def _verify(path: Path, mode: str) -> None:
    try:
        conn = connect(path, mode)
    except sqlite3.Error as e:
        raise ProjectError(f"{path}: not a readable project ({e}); choose another") from None
    try:
        verify_project(conn, path, full=True)
    except sqlite3.DatabaseError as e:
        raise ProjectError(f"{path}: the backup is damaged ({e}); choose another") from None
    finally:
        conn.close()


def _fold_in_wal(project: Path) -> bool:
    """Write a healthy project's -wal into the file itself (SQLite's checkpoint; the last
    connection to close removes -wal and -shm). True when no side file is left.

    A damaged file is left exactly as it is (its side files move with it instead).
    """
    try:
        # checked read-only first: a read-write connection to a damaged file, or to one
        # beside another project's -wal, would fold that -wal in when it closes
        check_side_files(project)
        if verify_read_only(project) is None:
            return False
        conn = connect(project, "rw")
    except (sqlite3.Error, ProjectError):
        return False
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return not any(project.with_name(project.name + s).exists() for s in SIDE_FILES)


def _link(project: Path, kept: Path) -> bool:
    try:
        os.link(project, kept)
    except OSError:  # a file system without hard links
        return False
    return True


def restore_backup(project: Path, backup: Path) -> Path | None:
    """Replace ``project`` with a copy of ``backup``; returns where the replaced file is kept
    (None when there was no project file)."""
    if not backup.is_file():
        raise ProjectError(f"{backup}: no such backup")
    if is_open_here(project):
        raise ProjectError(f"{project}: close the project before restoring it")
    _refuse_link(project, backups_dir(project))
    others = others_holding(project)
    if others:
        who = ", ".join(h.describe() for h in others)
        raise ProjectError(
            f"{project}: the project is open in another window or program ({who}); close it "
            "first, then restore; nothing was changed"
        )
    try:
        _verify(backup, "ro")
    except ProjectError as e:
        raise ProjectError(f"{e} (nothing was changed)") from None
    # the copy, made through SQLite (complete even if the backup has a -wal of its own)
    fresh = project.with_name(f".{project.name}.restoring")
    _remove(fresh)
    try:
        source = connect(backup, "ro")
        try:
            dest = connect(fresh, "rwc")
            try:
                source.backup(dest)
                dest.execute("PRAGMA journal_mode = WAL")
            finally:
                dest.close()  # the last connection: its -wal is folded in and removed
        finally:
            source.close()
        _verify(fresh, "rw")
    except (OSError, sqlite3.Error, ProjectError) as e:
        _remove(fresh)
        raise ProjectError(f"{project}: could not copy the backup ({e}); nothing was "
                           "changed") from None
    kept = None
    if project.exists():
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        folder = backups_dir(project)
        folder.mkdir(exist_ok=True)
        kept = folder / f"{project.stem}-{stamp}-before-restore.sqlite"
        if _fold_in_wal(project) and _link(project, kept):
            # one file, now also named in the backups folder: a single rename puts the
            # copy in its place, so a kill at any moment leaves a whole project file
            os.replace(fresh, project)
            return kept
        # the current file keeps its own -wal and -shm: together they are what it held
        os.replace(project, kept)
        for suffix in SIDE_FILES:
            side = project.with_name(project.name + suffix)
            if side.exists():
                os.replace(side, kept.with_name(kept.name + suffix))
    else:
        for suffix in SIDE_FILES:  # stale files of a project that is gone
            side = project.with_name(project.name + suffix)
            if side.exists():
                os.replace(side, side.with_name(side.name + ".stale"))
    os.replace(fresh, project)
    return kept

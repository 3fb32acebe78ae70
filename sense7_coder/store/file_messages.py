"""The one-line messages for a project file SQLite cannot use: read-only, not a database,
damaged (pointing to its backups and ``sense7-coder restore``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .backups import backups_dir


def read_only_message(path: Path, detail: str) -> str:
    name = path.name
    return (
        f"{path}: the project file or its folder is read-only; sense7-coder writes the file "
        f"and, beside it, {name}-wal and {name}-shm. Copy the project to a folder you can "
        f"write to, or make it writable ({detail})"
    )


def is_read_only(e: Exception) -> bool:
    msg = str(e)
    return "readonly" in msg or "unable to open" in msg


def not_sqlite(e: sqlite3.Error) -> bool:
    """SQLite's answer for a file that is not a database (its header is wrong)."""
    return "not a database" in str(e) or "file is encrypted" in str(e)


def unreadable_message(path: Path, e: sqlite3.Error) -> str:
    """A file SQLite cannot read as a database at all."""
    if backups_dir(path).is_dir():  # it was a project once: point to its backups
        return damaged_message(path, f"SQLite cannot read it: {e}")
    return (f"{path}: not a sense7-coder project: this is not an SQLite file, or one damaged "
            f"beyond reading ({e})")


def damaged_message(path: Path, detail: str) -> str:
    """One paragraph for a damaged project file, pointing to ``sense7-coder restore``."""
    # the first problem, not integrity_check's heading ("*** in database main ***")
    lines = [ln for ln in detail.splitlines() if ln.strip() and not ln.startswith("*** in ")]
    detail = lines[0] if lines else "unknown problem"
    if len(detail) > 160:
        detail = detail[:157] + "..."
    return (
        f"{path}: the project file is damaged ({detail}). Nothing was changed. Backups are "
        f"kept in {backups_dir(path).name} beside it: run 'sense7-coder restore {path}' to "
        "list them, then 'sense7-coder restore PROJECT BACKUP' to bring one back (the "
        "damaged file is kept)"
    )

"""Backups of a project file: list them, restore one (see :mod:`..store.restore`)."""

from __future__ import annotations

from pathlib import Path

from ..domain.errors import ProjectError
from ..store.restore import Backup, list_backups, restore_backup

__all__ = ["Backup", "list_backups", "pick_backup", "restore_backup"]


def pick_backup(project: Path, choice: str) -> Path:
    """A backup named on the command line: a number from the list, a name in the backups
    folder, or a path."""
    backups = list_backups(project)
    if choice.isdigit() and not Path(choice).exists():
        n = int(choice)
        if not 1 <= n <= len(backups):
            raise ProjectError(f"{project}: there is no backup number {n} "
                               f"({len(backups)} backups)")
        return backups[n - 1].path
    for b in backups:
        if b.path.name == choice:
            return b.path
    path = Path(choice)
    if not path.is_file():
        raise ProjectError(f"{choice}: no such backup (run 'sense7-coder restore {project}' "
                           "to list them)")
    return path

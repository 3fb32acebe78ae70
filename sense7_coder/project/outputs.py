"""Files the window writes (a methods paragraph, a plot) are never a project file.

Writing over the open project file would destroy it (and closing the handle would drop the
locks that protect its write-ahead log); writing over another project would lose that
study. Exports through the project layer check this themselves.
"""

from __future__ import annotations

from pathlib import Path

from ..store.db import refuse_open_project_file


def refuse_project_file(path: str | Path, what: str = "to save to") -> None:
    """Raise :class:`~sense7_coder.domain.errors.ProjectError` when ``path`` is a project
    file (the open one, its -wal/-shm, or any other sense7-coder project)."""
    refuse_open_project_file(path, what)

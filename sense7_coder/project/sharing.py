"""This process's hold on the projects it has open (see ``store/lock_guard.py``).

The window asks after every file dialog and on its poll; every write asks by itself
(``ProjectDB.atomic``). On systems without ``/proc/self/fdinfo`` nothing is checked.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from ..domain.errors import ProjectError
from ..store import lock_guard
from ..store.open_here import open_paths, projects
from .project import Project

#: per project: how many reconnections :func:`keep_connected` has reported
_reported: weakref.WeakKeyDictionary[Project, int] = weakref.WeakKeyDictionary()


def keep_connected(project: Project) -> str | None:
    """Reconnect ``project``'s file if this process lost its locks on it; the line saying
    so (also for a reconnection made since the last call, by a write or after a file
    dialog), or None. While a background job holds the file nothing is done: the next
    look tries again, and a write meanwhile is refused in one line."""
    with contextlib.suppress(ProjectError):
        lock_guard.check(project.pdb)
    generation = project.pdb.generation
    if _reported.get(project, 0) == generation:
        return None
    _reported[project] = generation
    notes = [n for n in project.pdb.notes if "reconnected" in n]
    return notes[-1] if notes else None


def keep_all_connected() -> list[str]:
    """:func:`keep_connected` for every project this thread has open (after something that
    may have opened files in this process, such as a file dialog)."""
    me = threading.get_ident()
    notes = []
    for path in open_paths():
        held = [p for p in projects(path) if p.thread == me]
        if held:
            try:
                note = lock_guard.check(held[0])
            except ProjectError:
                continue
            if note:
                notes.append(note)
    return notes

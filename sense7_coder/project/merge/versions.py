"""The codebook version a merged value records (README, *Codebook versions*).

A value that enters by merge was set under its file's codebook, whose numbering is the
file's own (a coder package numbers from 1). What counts is what the code meant there: each
merged coding records the **newest of the target's versions in which its code meant what it
meant in the file when the value was set** -- the code's definition in the file's version
the coding names, or in the file's codebook as it stands when the coding names none (a file
from before versions). So a package value coded before the lead revised that code records
the version before the revision, and one whose code was not touched since records the
target's current version. Where the target never held that definition (a whole project
whose lead reworded the code), the target's current version is recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...domain.codebook.diff import code_meaning
from ...store import codebook_versions as store_versions
from ...store.merge import guard as store_guard

if TYPE_CHECKING:
    from ..project import Project


def stage(project: Project, conn: Any) -> int:
    """Stage the target's version of every staged coding (``temp.m_versions``); returns
    the target's current version (the default)."""
    db = project.db
    current = store_versions.ensure_first(db, project.coder)
    targets = [(v.number, {c.key: code_meaning(c) for c in v.codebook.codes})
               for v in reversed(store_versions.versions(db))]
    held, now = store_versions.source_codebooks(conn)
    chosen: dict[tuple[Any, str], int] = {}
    for number, key in store_guard.source_versions(db):
        book = held.get(number, now) if isinstance(number, int) else now
        code = None if book is None else book.get(key)
        if code is None:
            continue
        meant = code_meaning(code)
        chosen[(number, key)] = next((n for n, codes in targets if codes.get(key) == meant),
                                     current)
    store_guard.stage_versions(db, chosen)
    return current

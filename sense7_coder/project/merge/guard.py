"""What a merge takes from a file: the rules of :mod:`..authority` applied to a source.

A **coder package** is untrusted input: whoever holds it can edit it with ``sqlite3``. Its
merge takes only its coder's own codings, spans, memos, done marks and changes after the
reveal, on conversations the target holds, and never coders, roles, the consensus, the
history, assignments, settings or other coders' rows; each kind left out is reported in
one line. Its coder must be a coder of the target. A file that no longer says whose
package it is (``package_coder`` deleted) is a whole project, which only a lead merges.

For **every** source, a value the reveal lock holds in the target (the turn was revealed
to its blind coder there, and the lead keeps the lock on) stays as it is; with the lock
off the source's value goes beside it as a change after the reveal. How each merged value
was made is recomputed (:func:`...store.merge.guard.stage_made`); the file it came from is
its ``origin``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...domain.errors import ProjectError
from ...domain.names import names_text
from ...store.merge import guard as store_guard
from ..authority import LOCKED, REVISION, Locks, require_merge
from . import versions as merge_versions

if TYPE_CHECKING:
    from ..project import Project

#: a merge's :class:`~.merging.SourceSummary` (its notes and package coder)
SourceSummary = Any

_DROPPED = {"codings": "values", "revisions": "changes after the reveal",
            "turn_status": "done marks", "memos": "memos", "spans": "spans",
            "consensus": "consensus decisions", "history": "history events",
            "assignments": "assignments", "value_rationales": "rationales"}


def check_source(project: Project, conn: Any, name: str) -> str | None:
    """Who may merge this file, before anything is staged; the package's coder (None: a
    whole project)."""
    coder = store_guard.source_setting(conn, "package_coder")
    require_merge(project, coder, name)
    role = None if coder is None else project.coder_role(coder)
    if coder is not None and role != "coder":
        who = ("not a coder of the target project" if role is None
               else "a lead of the target project, and a package is a coder's")
        raise ProjectError(f"{name}: this is the coder package of '{coder}', who is {who}; "
                           "a package brings only the work of a coder the lead named. "
                           "Nothing was changed")
    return coder


def restrict(project: Project, summary: SourceSummary) -> None:
    """Leave out of a package's staged rows everything that is not its coder's work."""
    coder = summary.package_coder
    if coder is None:
        return
    db = project.db
    dropped = store_guard.keep_package_coder(db, coder)
    new = store_guard.drop_unassigned(db, coder)
    others = dropped.pop("coders")
    if others:
        summary.notes.append(f"left out: {names_text(others, 'coders')} (a package adds no "
                             "coder and changes no role)")
    for table, n in dropped.items():
        if n:
            whose = ("of other coders than " + repr(coder)) if table in \
                store_guard.CODER_ROWS else "(a package brings none)"
            summary.notes.append(f"left out: {n} {_DROPPED[table]} {whose}")
    if new:
        shown = ", ".join(map(str, new[:3])) + (" ..." if len(new) > 3 else "")
        summary.notes.append(f"left out: {len(new)} conversation{'s' if len(new) != 1 else ''}"
                             f" not assigned to '{coder}' here ({shown})")


def hold_locks(project: Project, summary: SourceSummary) -> None:
    """Keep the values the reveal lock holds; with the lock off, put the source's
    changes of revealed turns beside the blind values. A rationale follows its value: a
    locked value's stays as it is; one whose value neither file holds is left out."""
    if project.blind_coding:
        _hold_locks(project, summary)
    r = store_guard.drop_unexplained(project.db)
    if r:
        summary.notes.append(f"left out: {r} rationale{'s' if r != 1 else ''} of values "
                             "neither file holds (a rationale explains a value)")


def _hold_locks(project: Project, summary: SourceSummary) -> None:
    # a package's values were set where nothing was revealed: only what its coder saw in
    # the target itself locks them
    locks = Locks(project, seen_here=summary.package_coder is not None)
    locked: list[tuple[Any, Any, Any]] = []
    beside: list[tuple[Any, Any, Any]] = []
    for coder, cid, pos in store_guard.staged_turns(project.db):
        if not isinstance(coder, str) or not isinstance(cid, str) or not isinstance(pos, int):
            continue  # refused by the row checks
        state = locks.of(coder, cid, pos)
        if state == LOCKED:
            locked.append((coder, cid, pos))
        elif state == REVISION:
            beside.append((coder, cid, pos))
    if locks.lock:
        r = store_guard.drop_changed_revisions(project.db)
        if r:
            summary.notes.append(f"refused: {r} change{'s' if r != 1 else ''} after the reveal "
                                 "(the lock is on: values set blind stay as they are)")
    n = store_guard.drop_locked(project.db, locked)
    if n:
        summary.notes.append(
            f"refused: {n} value{'s' if n != 1 else ''} on turns revealed to "
            f"{names_text(sorted({t[0] for t in locked}), 'coders')} here: locked, the values "
            "set blind are kept")
    m = store_guard.move_to_revisions(project.db, beside)
    if m:
        summary.notes.append(f"{m} value{'s' if m != 1 else ''} on revealed turns kept beside "
                             "the blind values (changes after the reveal)")


def stage_made(project: Project, conn: Any, summary: SourceSummary) -> None:
    """How the source's values were made, and under which of the target's codebook
    versions (:mod:`.versions`)."""
    store_guard.stage_made(project.db, conn, summary.package_coder is not None)
    summary.version_now = merge_versions.stage(project, conn)


def stamp(project: Project, after_rowid: int, replaced: list[tuple[Any, ...]],
          origin: str, summary: SourceSummary) -> None:
    store_guard.stamp_merged(project.db, after_rowid, replaced, origin, summary.version_now)

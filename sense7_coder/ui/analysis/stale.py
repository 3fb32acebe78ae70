"""How the analysis windows follow the window's one signal of changes.

The agreement and analysis windows say their figures are out of date (they are costly to
compute again, and the user chose what to compare); the lists that are cheap to read again
(retrieval, co-occurrence, the attribute sheet) read again; the choices a window offers
(codes, coders, conversations, attributes) follow when those change.
"""

from __future__ import annotations

from dataclasses import replace

from ...project.changes import Changes


def changes_figures(changes: Changes) -> bool:
    """Can figures computed from the codings have changed? (A memo alone cannot.)"""
    return not replace(changes, memos=frozenset()).empty


def changes_choices(changes: Changes) -> bool:
    """Can the choices a window offers (codes, coders, conversations, attributes) have
    changed?"""
    return changes.wide or bool(changes.conversations)


def stale_text(changes: Changes, redo: str = "press Run to update them") -> str:
    """The line a window shows over figures computed before ``changes``."""
    return (f"The project changed since these figures were computed "
            f"({changes.describe()}): {redo}.")

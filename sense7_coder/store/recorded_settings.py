"""Settings whose every change the audit trail keeps, written from here rather than by a
trigger (the history triggers of schema 5 cover a fixed list of keys).

A change writes the ``meta`` row and one ``history`` row (kind ``setting``) in the
caller's write transaction, whose context names the source and actor.
"""

from __future__ import annotations

from sqlite_utils import Database

from .meta import get_meta, set_meta


def set_recorded(db: Database, key: str, value: str | None) -> bool:
    """Set ``key`` to ``value`` and record the change; False (nothing written) when the
    value is already that."""
    before = get_meta(db, key, None)
    if before == value:
        return False
    if value is None:
        db.execute("DELETE FROM meta WHERE key = ?", [key])
    else:
        set_meta(db, key, value)
    action = "set" if before is None else ("clear" if value is None else "change")
    db.execute(
        "INSERT INTO history(at, coder, action, kind, code, before, after, source, actor) "
        "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), NULL, ?, 'setting', ?, ?, ?, "
        "source, actor FROM history_context WHERE id = 1",
        [action, key, before, value])
    return True

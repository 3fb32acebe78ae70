"""SQL for what blinding hides of a conversation from one coder (read by
:class:`~sense7_coder.project.sight.Sight`): the turns she marked done now or before, and the
turns for which the file holds what blinding hides (the users' ratings or comment, another
coder's value or span)."""

from __future__ import annotations

from sqlite_utils import Database


def ever_done_positions(db: Database, conversation_id: str, coder: str) -> set[int]:
    """The turns of a conversation ``coder`` has marked done, now or at any time before (a
    done mark taken back stays in the history)."""
    return {int(r[0]) for r in db.execute(
        "SELECT position FROM turn_status WHERE conversation_id = ? AND coder = ? AND done = 1 "
        "UNION SELECT position FROM history WHERE conversation_id = ? AND coder = ? "
        "AND kind = 'done' AND after = 1",
        [conversation_id, coder, conversation_id, coder])}


def done_here_positions(db: Database, conversation_id: str, coder: str) -> set[int]:
    """The turns ``coder`` marked done in this file itself, now or before: a done mark the
    history records as made here (not brought by a merge, whose rows name their file in
    ``source`` or ``origin``), or one the history does not follow at all (a file from
    before the history)."""
    return {int(r[0]) for r in db.execute(
        "SELECT position FROM history WHERE conversation_id = ? AND coder = ? "
        "AND kind = 'done' AND after = 1 AND origin IS NULL "
        "AND COALESCE(source, '') NOT LIKE 'merge %' "
        "UNION SELECT s.position FROM turn_status s WHERE s.conversation_id = ? "
        "AND s.coder = ? AND s.done = 1 AND NOT EXISTS (SELECT 1 FROM history h WHERE "
        "h.conversation_id = s.conversation_id AND h.coder = s.coder "
        "AND h.position = s.position AND h.kind = 'done')",
        [conversation_id, coder, conversation_id, coder])}


def hidden_material_positions(db: Database, conversation_id: str, coder: str) -> set[int]:
    """The turns of a conversation for which the file holds something blinding hides from
    ``coder`` and that reveals (the users' ratings or comment, another coder's value or
    span: see :func:`held_at` for one turn)."""
    return {int(r[0]) for r in db.execute(
        "SELECT position FROM user_ratings WHERE conversation_id = ? "
        "UNION SELECT position FROM turns WHERE conversation_id = ? "
        "AND comment IS NOT NULL AND comment != '' "
        "UNION SELECT position FROM codings WHERE conversation_id = ? AND coder != ? "
        "UNION SELECT position FROM spans WHERE conversation_id = ? AND coder != ?",
        [conversation_id, conversation_id, conversation_id, coder, conversation_id, coder])}


def holds_user_ratings(db: Database) -> bool:
    """Whether the file holds any user's rating (a blind coder package holds none)."""
    return db.execute("SELECT 1 FROM user_ratings LIMIT 1").fetchone() is not None


def held_at(db: Database, conversation_id: str, position: int, coder: str) -> set[str]:
    """What the file holds of one turn that blinding hides from ``coder``: any of
    'ratings' (the users' ratings or comment), 'others' (another coder's value or span) and
    'attributes' (turn attributes)."""
    found: set[str] = set()
    if db.execute("SELECT 1 FROM user_ratings WHERE conversation_id = ? AND position = ? "
                  "UNION SELECT 1 FROM turns WHERE conversation_id = ? AND position = ? "
                  "AND comment IS NOT NULL AND comment != '' LIMIT 1",
                  [conversation_id, position, conversation_id, position]).fetchone():
        found.add("ratings")
    if db.execute("SELECT 1 FROM codings WHERE conversation_id = ? AND position = ? AND "
                  "coder != ? UNION SELECT 1 FROM spans WHERE conversation_id = ? AND "
                  "position = ? AND coder != ? LIMIT 1",
                  [conversation_id, position, coder, conversation_id, position, coder]
                  ).fetchone():
        found.add("others")
    if db.execute("SELECT 1 FROM turns WHERE conversation_id = ? AND position = ? AND "
                  "attributes IS NOT NULL AND attributes NOT IN ('', '{}')",
                  [conversation_id, position]).fetchone():
        found.add("attributes")
    return found

"""What a merged file says of conversations this project already holds, and says
otherwise: their model, topic, participant or attributes, their turns' speakers, comments
or attributes, the users' ratings. A merge never changes a conversation the project holds
(only the coders' work comes in), so these stay as they are here; they are told, not taken.

Only what the file *holds* and holds differently counts: a package withholds what blind
coding hides (the model, attributes marked hidden, the users' ratings), and what it leaves
out is not a difference. Attributes compare key by key (a key of the file's with another
value here, or none); a project's malformed attribute text, left by another tool, is not
compared.
"""

from __future__ import annotations

from sqlite_utils import Database

#: conversation columns compared (where the file holds a value)
_CONVERSATION = ("participant_id", "model", "topic", "source")
#: turn columns compared (where the file holds a value)
_TURN = ("speaker", "comment", "time_offset")


def _attributes_differ(file_side: str, here: str) -> str:
    """SQL: the file's attributes (JSON object text ``file_side``) hold a key whose value
    differs from ``here``'s (or that ``here`` lacks)."""
    return (f"(json_valid({file_side}) AND json_valid({here}) AND EXISTS ("
            f"SELECT 1 FROM json_each({file_side}) a WHERE NOT EXISTS ("
            f"SELECT 1 FROM json_each({here}) b WHERE b.key = a.key AND b.type = a.type "
            "AND b.value IS a.value)))")


def kept_differences(db: Database, limit: int = 5) -> tuple[int, list[tuple[str, str]]]:
    """How many conversations this project holds that the staged file (``temp.m_*``)
    describes otherwise, and up to ``limit`` of them with what differs, in id order."""
    parts = [f"SELECT s.conversation_id AS cid, '{col}' AS what FROM temp.m_conversations s "
             "JOIN conversations c ON c.conversation_id = s.conversation_id "
             f"WHERE s.{col} IS NOT NULL AND c.{col} IS NOT s.{col}" for col in _CONVERSATION]
    parts.append("SELECT s.conversation_id, 'attributes' FROM temp.m_conversations s "
                 "JOIN conversations c ON c.conversation_id = s.conversation_id WHERE "
                 + _attributes_differ("s.attributes", "c.attributes"))
    parts += [f"SELECT s.conversation_id, 'turn {s_col}' FROM temp.m_turns s "
              "JOIN turns t ON t.conversation_id = s.conversation_id "
              f"AND t.position = s.position WHERE s.{s_col} IS NOT NULL "
              f"AND t.{s_col} IS NOT s.{s_col}" for s_col in _TURN]
    parts.append("SELECT s.conversation_id, 'turn attributes' FROM temp.m_turns s "
                 "JOIN turns t ON t.conversation_id = s.conversation_id "
                 "AND t.position = s.position WHERE "
                 + _attributes_differ("s.attributes", "t.attributes"))
    parts.append("SELECT s.conversation_id, 'the users'' ratings' FROM temp.m_user_ratings s "
                 "WHERE s.conversation_id IN (SELECT conversation_id FROM conversations) "
                 "AND NOT EXISTS (SELECT 1 FROM user_ratings t "
                 "WHERE t.conversation_id = s.conversation_id AND t.position = s.position "
                 "AND t.rating = s.rating AND t.value IS s.value)")
    rows = db.execute(
        "SELECT cid, group_concat(what, ', ') FROM (SELECT DISTINCT cid, what FROM ("
        + " UNION ALL ".join(parts) + ")) GROUP BY cid ORDER BY cid").fetchall()
    return len(rows), [(str(r[0]), str(r[1])) for r in rows[:limit]]


__all__ = ["kept_differences"]

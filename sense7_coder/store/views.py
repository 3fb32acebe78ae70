"""Read-only queries the coding workspace needs beyond the core store (progress counts)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlite_utils import Database


def _roles_sql(roles: Sequence[str]) -> tuple[str, list[str]]:
    return ",".join("?" * len(roles)), list(roles)


def codable_turn_count(db: Database, roles: Sequence[str] = ("assistant",)) -> int:
    """How many turns of the given roles the project holds."""
    if not roles:
        return 0
    marks, params = _roles_sql(roles)
    row = db.execute(f"SELECT COUNT(*) FROM turns WHERE role IN ({marks})", params).fetchone()
    return int(row[0])


def done_turn_count(db: Database, coder: str, roles: Sequence[str] = ("assistant",)) -> int:
    """How many turns of the given roles ``coder`` has marked done."""
    if not roles:
        return 0
    marks, params = _roles_sql(roles)
    row = db.execute(
        "SELECT COUNT(*) FROM turn_status s JOIN turns t ON t.conversation_id = s.conversation_id "
        f"AND t.position = s.position WHERE s.coder = ? AND s.done = 1 AND t.role IN ({marks})",
        [coder, *params],
    ).fetchone()
    return int(row[0])



def conversation_count(db: Database) -> int:
    return int(db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0])

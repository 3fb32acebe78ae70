"""The project's settings in the ``meta`` table: one text per key (the codebook's name
and title, blind coding, the package's coder, the prompt, the recorded settings of
:mod:`.recorded_settings`, ...)."""

from __future__ import annotations

from sqlite_utils import Database


def get_meta(db: Database, key: str, default: str | None = None) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return row[0] if row else default


def set_meta(db: Database, key: str, value: str | None) -> None:
    db.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )

"""The project's codebook in the ``codes`` table (its name and title are settings:
:mod:`.meta`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlite_utils import Database

from ..domain.codebook.codes import APPLIES_TO, KINDS, UNITS, Code, Codebook, stored_levels
from ..domain.errors import CodebookError
from .meta import get_meta

_COLUMNS = (
    "key", "ord", "label", "kind", "unit", "applies_to", "levels", "allow_na", "description",
    "include", "exclude", "examples", "shortcut", "color", "grp", "user_rating", "retired",
)


def _row(code: Code, ord_: int) -> tuple[Any, ...]:
    return (
        code.key, ord_, code.label, code.kind, code.unit, code.applies_to,
        json.dumps([{"value": lv.value, "label": lv.label, "description": lv.description}
                    for lv in code.levels], ensure_ascii=False),
        int(code.allow_na), code.description, code.include, code.exclude,
        json.dumps(code.examples, ensure_ascii=False), code.shortcut, code.color, code.group,
        code.user_rating, int(code.retired),
    )


def load_codes(db: Database) -> list[Code]:
    rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM codes ORDER BY ord, key").fetchall()
    codes = []
    for r in rows:
        d = dict(zip(_COLUMNS, r, strict=True))
        _check_stored(d)
        codes.append(
            Code(
                key=d["key"], label=d["label"], kind=d["kind"], unit=d["unit"],
                applies_to=d["applies_to"],
                levels=stored_levels(d["levels"], f"code '{d['key']}'"),
                allow_na=bool(d["allow_na"]), description=d["description"],
                include=d["include"], exclude=d["exclude"], examples=_examples(d),
                shortcut=d["shortcut"], color=d["color"], group=d["grp"],
                user_rating=d["user_rating"], retired=bool(d["retired"]),
            )
        )
    return codes


def _check_stored(d: dict[str, Any]) -> None:
    """Refuse a code another program stored with a kind, unit or role sense7-coder does
    not know (CodebookError, naming the code)."""
    for column, allowed in (("kind", KINDS), ("unit", UNITS), ("applies_to", APPLIES_TO)):
        if d[column] not in allowed:
            shown = repr(d[column])[:40]
            raise CodebookError(f"code {d['key']!r}: its {column} is {shown}, not one of "
                                f"{', '.join(allowed)}; the project file was changed "
                                "outside sense7-coder")


def _examples(d: dict[str, Any]) -> list[str]:
    """A code's stored examples (a JSON list of texts); CodebookError for anything else."""
    try:
        examples = json.loads(d["examples"])
    except (TypeError, ValueError, RecursionError):
        examples = None
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        raise CodebookError(f"code {d['key']!r}: the stored examples are not a JSON list of "
                            "texts; the project file was changed outside sense7-coder")
    return examples


def upsert_code(db: Database, code: Code, ord_: int | None = None) -> None:
    if ord_ is None:
        row = db.execute("SELECT ord FROM codes WHERE key = ?", [code.key]).fetchone()
        ord_ = row[0] if row else int(db.execute("SELECT COALESCE(MAX(ord), 0) + 1 FROM codes").fetchone()[0])
    marks = ",".join("?" * len(_COLUMNS))
    updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c != "key")
    db.execute(
        f"INSERT INTO codes({', '.join(_COLUMNS)}) VALUES ({marks}) "
        f"ON CONFLICT(key) DO UPDATE SET {updates}",
        _row(code, ord_),
    )


def delete_code(db: Database, key: str) -> None:
    db.execute("DELETE FROM codes WHERE key = ?", [key])


def reorder_codes(db: Database, keys: Sequence[str]) -> None:
    db.conn.executemany("UPDATE codes SET ord = ? WHERE key = ?", [(i, k) for i, k in enumerate(keys, 1)])


def code_usage(db: Database, key: str) -> int:
    """How many codings and consensus decisions use a code."""
    a = db.execute("SELECT COUNT(*) FROM codings WHERE code = ?", [key]).fetchone()[0]
    b = db.execute("SELECT COUNT(*) FROM consensus WHERE code = ?", [key]).fetchone()[0]
    return int(a) + int(b)


def values_in_use(db: Database, key: str) -> set[Any]:
    rows = db.execute(
        "SELECT DISTINCT value FROM codings WHERE code = ? AND value IS NOT NULL "
        "UNION SELECT DISTINCT value FROM consensus WHERE code = ? AND value IS NOT NULL",
        [key, key],
    )
    return {r[0] for r in rows}


def na_in_use(db: Database, key: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM codings WHERE code = ? AND value IS NULL "
        "UNION SELECT 1 FROM consensus WHERE code = ? AND value IS NULL LIMIT 1",
        [key, key],
    ).fetchone()
    return row is not None


def codebook_from_db(db: Database) -> Codebook:
    return Codebook(
        name=get_meta(db, "codebook_name", "project") or "project",
        title=get_meta(db, "codebook_title", "") or "",
        description=get_meta(db, "codebook_description", "") or "",
        codes=load_codes(db),
    )

"""Calibration rounds (tables ``rounds``, ``round_conversations``, ``round_results``,
migration m017): what a round is and what it found when it was closed. The sampling, the
assignment and the figures are the project's (:mod:`..project.rounds`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from ..domain.errors import ProjectError


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


def _coders(text: Any, number: Any) -> list[str]:
    try:
        names = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ProjectError(f"round {number} (table rounds, column coders): not a list of "
                           "names; the project file was changed outside sense7-coder")
    return names


def rounds(db: Database) -> list[dict[str, Any]]:
    """Every round, oldest first."""
    out = []
    for r in db.execute("SELECT number, started_at, started_by, closed_at, codebook_version, "
                        "threshold, seed, sample, stratify, coders FROM rounds ORDER BY number"):
        out.append({"number": int(r[0]), "started_at": r[1], "started_by": r[2],
                    "closed_at": r[3], "codebook_version": r[4], "threshold": float(r[5]),
                    "seed": int(r[6]), "sample": int(r[7]), "stratify": r[8],
                    "coders": _coders(r[9], r[0])})
    return out


def conversations(db: Database, number: int) -> list[str]:
    return [r[0] for r in db.execute(
        "SELECT rc.conversation_id FROM round_conversations rc JOIN conversations c "
        "ON c.conversation_id = rc.conversation_id WHERE rc.round = ? ORDER BY c.rowid",
        [number])]


def in_any_round(db: Database) -> set[str]:
    return {r[0] for r in db.execute("SELECT conversation_id FROM round_conversations")}


def start(db: Database, *, by: str | None, codebook_version: int | None, threshold: float,
          seed: int, stratify: str | None, coders: list[str],
          conversation_ids: list[str]) -> int:
    """Record a new round (inside the caller's write transaction); its number."""
    row = db.execute("SELECT MAX(number) FROM rounds").fetchone()
    number = int(row[0] or 0) + 1
    db.execute("INSERT INTO rounds(number, started_at, started_by, codebook_version, "
               "threshold, seed, sample, stratify, coders) VALUES (?,?,?,?,?,?,?,?,?)",
               [number, _now(), by, codebook_version, threshold, seed, len(conversation_ids),
                stratify, json.dumps(coders, ensure_ascii=False)])
    db.conn.executemany("INSERT INTO round_conversations(round, conversation_id) VALUES (?, ?)",
                        [(number, cid) for cid in conversation_ids])
    return number


def close(db: Database, number: int, results: list[tuple[Any, ...]]) -> None:
    """Mark round ``number`` closed with each code's (code, alpha, low, high, method,
    units, met)."""
    db.execute("UPDATE rounds SET closed_at = ? WHERE number = ?", [_now(), number])
    db.execute("DELETE FROM round_results WHERE round = ?", [number])
    db.conn.executemany(
        "INSERT INTO round_results(round, code, alpha, ci_low, ci_high, ci_method, units, met) "
        "VALUES (?,?,?,?,?,?,?,?)", [(number, *r) for r in results])


def results(db: Database) -> list[dict[str, Any]]:
    """Every closed round's figure per code, by round then code."""
    cols = ("round", "code", "alpha", "ci_low", "ci_high", "ci_method", "units", "met")
    rows = db.execute(f"SELECT {', '.join(cols)} FROM round_results ORDER BY round, code")
    return [dict(zip(cols, r, strict=True)) for r in rows]

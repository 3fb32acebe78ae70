"""Predictions made elsewhere: a CSV ``conversation_id,score[,turn][,run]``.

* ``conversation_id``: as imported (required).
* ``score``: the predicted empathy level, a finite number (required; raw, not rounded: the
  evaluation rounds where the protocol says so).
* ``turn``: optional; the assistant turn's position (1-based) for turn-level predictions.
  A file is either all conversation level (no ``turn`` column, or every cell empty) or all
  turn level.
* ``run``: optional whole number >= 1 (default 1) for predictors run several times.

Column names are matched ignoring case. The same unit and run twice is an error. The caller
passes the project's turns (with roles) so that unknown conversations, turns and turns that
are not assistant turns are refused; every error names the file, line and field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from ..errors import InputError
from ..export.tables import unneutralise
from ..importers.tables import norm, read_named_columns

REQUIRED = ("conversation_id", "score")
OPTIONAL = ("turn", "run")


#: the largest whole number SQLite stores as an integer
LARGEST = 2**63 - 1


def _whole(text: str, what: str) -> int:
    try:
        number = int(text)  # exact, however long
    except ValueError:
        try:
            as_float = float(text)
        except ValueError:
            raise ValueError(f"{what} '{text}' is not a whole number") from None
        if not as_float.is_integer():
            raise ValueError(f"{what} '{text}' is not a whole number from 1 up") from None
        number = int(as_float)
    if number < 1:
        raise ValueError(f"{what} '{text}' is not a whole number from 1 up")
    if number > LARGEST:
        raise ValueError(f"{what} '{text}' is larger than the largest whole number a "
                         f"project holds ({LARGEST})")
    return number


def read_predictions_csv(
    path: Path | str,
    turns: Mapping[tuple[str, int], str],
) -> tuple[str, list[tuple[str, int | None, int, float]]]:
    """``(level, rows)``: level ``conversation`` or ``turn``; rows ``(conversation_id,
    position or None, run, score)``. ``turns`` maps (conversation_id, position) to role."""
    path = Path(path)
    table, by_norm = read_named_columns(
        path, None, REQUIRED, OPTIONAL,
        "a predictions file has the columns conversation_id, score (and optionally turn, run)")
    frame = table.frame
    conversations = {cid for cid, _ in turns}
    names = {c: by_norm.get(norm(c), "") for c in (*REQUIRED, *OPTIONAL)}
    cols = {c: (frame[n].tolist() if n else [""] * len(frame)) for c, n in names.items()}
    turn_level = bool(names["turn"]) and any(str(t).strip() for t in cols["turn"])
    level = "turn" if turn_level else "conversation"
    seen: dict[tuple[str, int | None, int], int] = {}
    rows: list[tuple[str, int | None, int, float]] = []
    for i, label in enumerate(frame.index.tolist()):
        line = table.line_number(label)
        cid, raw_score, raw_turn, raw_run = (
            unneutralise(str(cols[c][i]).strip())
            for c in ("conversation_id", "score", "turn", "run")
        )

        def bad(message: str, field: str, line: int = line) -> InputError:
            return InputError(str(path), message, location=f"line {line}", field=field)

        if not cid:
            raise bad("the conversation id is empty", names["conversation_id"])
        if cid not in conversations:
            raise bad(f"there is no conversation '{cid}' in the project",
                      names["conversation_id"])
        try:
            score = float(raw_score)
        except ValueError:
            raise bad(f"score '{raw_score}' is not a number", names["score"]) from None
        if not math.isfinite(score):
            raise bad(f"score '{raw_score}' is not a finite number", names["score"])
        position: int | None = None
        if turn_level:
            if not raw_turn:
                raise bad("the turn is empty (other lines give turns: give every line one)",
                          names["turn"])
            try:
                position = _whole(raw_turn, "turn")
            except ValueError as e:
                raise bad(str(e), names["turn"]) from None
            role = turns.get((cid, position))
            if role is None:
                raise bad(f"conversation '{cid}' has no turn {position}", names["turn"])
            if role != "assistant":
                raise bad(f"turn {position} of '{cid}' is a {role} turn; predictions are of "
                          "assistant turns", names["turn"])
        run = 1
        if raw_run:
            try:
                run = _whole(raw_run, "run")
            except ValueError as e:
                raise bad(str(e), names["run"]) from None
        ident = (cid, position, run)
        if ident in seen:
            raise bad(f"this unit and run was already given on line {seen[ident]}",
                      names["conversation_id"])
        seen[ident] = line
        rows.append((cid, position, run, score))
    if not rows:
        raise InputError(str(path), "no predictions in the file", location="line 2")
    return level, rows

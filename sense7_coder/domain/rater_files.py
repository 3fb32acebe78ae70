"""Rater files: one file per rater, one row per unit, one column per code.

Published rating sets often come this way (the Lend an Ear expert ratings:
``conversation_id,validating_emotions,encouraging_elaboration,...``, one file per
expert). Each file becomes one coder's codings:

* the rater is the file name up to ``_ratings`` / ``-ratings`` (``expert1_ratings.csv``
  -> ``expert1``), unless given;
* ``conversation_id`` (or the column named by ``id_column``, or the column ``mapping``
  maps to ``conversation_id``: ``conv_id`` in the EmpatheticDialogues ratings) names the
  conversation; a ``turn`` column (or ``turn_column``, or the column mapped to ``turn``),
  when there is one, the turn -- for turn-level codes;
* every other column is a code: ``mapping`` maps column names to code keys, and a column
  whose name is a code key maps to it by itself. Columns mapped to no code (an unnamed
  index column, say) are listed, not read. Empty cells are not coded; ``NA`` is not
  applicable where the code allows it; ``3.0`` reads as ``3`` on a whole-number scale.

Errors name the file, the line and the column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import rows
from .codebook.codes import Codebook
from .errors import Hint, InputError
from .importers.tables import Table, norm, read_csv_table
from .models import Coding, Unit


@dataclass
class RaterFile:
    path: Path
    rater: str
    codings: list[tuple[int, Coding]] = field(default_factory=list)
    #: code key -> column it was read from
    columns: dict[str, str] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)


def rater_name(path: Path) -> str:
    stem = re.sub(r"[_\-. ]?ratings?$", "", path.stem, flags=re.IGNORECASE)
    return stem or path.stem


def _turn(text: str, path: Path, line: int, column: str | None) -> int:
    """A turn number (1, 2, ...; ``3.0`` reads as 3); turn 0 would be the whole
    conversation, which a turn-level code is not coded on."""
    try:
        number = float(text)
        if not number.is_integer():
            raise ValueError
        return rows.turn_position(int(number))
    except (ValueError, OverflowError):
        raise InputError(str(path), f"turn {text!r} is not a turn number (turns count from 1)",
                         location=f"line {line}", field=column) from None


def _key_columns(mapping: Mapping[str, str], id_column: str, turn_column: str,
                 codebook: Codebook) -> tuple[dict[str, str], str, str]:
    """``mapping`` less the columns it maps to the conversation id or the turn (unless a code
    has that key), and the id and turn columns those entries name."""
    codes: dict[str, str] = {}
    for column, target in mapping.items():
        if codebook.get(target) is None and norm(target) == norm(id_column):
            id_column = column
        elif codebook.get(target) is None and norm(target) == norm(turn_column):
            turn_column = column
        else:
            codes[column] = target
    return codes, id_column, turn_column


def read_rater_file(
    path: str | Path,
    codebook: Codebook,
    *,
    rater: str | None = None,
    mapping: Mapping[str, str] | None = None,
    id_column: str = "conversation_id",
    turn_column: str = "turn",
    exists: Callable[[str, int], bool] | None = None,
    role_of: Callable[[str, int], str | None] | None = None,
) -> RaterFile:
    """One rater's codings; ``exists(conversation, turn)`` (turn 0: the conversation) and
    ``role_of(conversation, turn)`` let the caller's project check each unit."""
    path = Path(path)
    named_id = id_column
    mapping, id_column, turn_column = _key_columns(mapping or {}, id_column, turn_column,
                                                   codebook)

    def needed(header: Table) -> list[str]:
        """The columns read from a file too wide to read whole (the others are left out)."""
        keys = {norm(id_column), norm(turn_column), *(norm(k) for k in mapping or {})}
        return [c for c in header.columns if norm(c) in keys or codebook.get(c)]

    table = read_csv_table(path, None, needed)
    by_norm = {norm(c): c for c in table.columns}
    id_col = by_norm.get(norm(id_column))
    if id_col is None:
        raise InputError(str(path), f"no column {id_column!r} naming the conversation; "
                         f"columns present: {', '.join(table.columns)}",
                         location="line 1", field=id_column,
                         hint=Hint("map", f"COLUMN={named_id}",
                                   "name the column that holds the conversation id"))
    turn_col = by_norm.get(norm(turn_column))
    wanted = {norm(k): v for k, v in (mapping or {}).items()}
    for column, mapped in (mapping or {}).items():
        if norm(column) not in by_norm:
            raise InputError(str(path), f"the mapping names column {column!r}, which the file "
                             f"does not have (columns: {', '.join(table.columns)})",
                             location="line 1", field=column)
        if codebook.get(mapped) is None:
            raise InputError(str(path), f"the mapping maps column {column!r} to code {mapped!r}, "
                             "which is not in the codebook", location="line 1", field=column)
    out = RaterFile(path, (rater or rater_name(path)).strip())
    out.left_out += table.ignored
    if not out.rater:
        raise InputError(str(path), "the rater has no name", location="line 1")
    try:  # the same check as every other path that names a coder
        rows.coder_name(out.rater)
    except rows.RowError as e:
        raise InputError(str(path), f"the rater: {e.message}", location="line 1") from None
    for column in table.columns:
        if column in (id_col, turn_col):
            continue
        key: str | None = wanted.get(norm(column)) or (column if codebook.get(column) else None)
        if key is None:
            out.left_out.append(column or "(unnamed)")
            continue
        if key in out.columns:
            raise InputError(str(path), f"columns {out.columns[key]!r} and {column!r} both map "
                             f"to code {key!r}", location="line 1", field=column)
        code = codebook.get(key)
        assert code is not None
        if code.unit != "conversation" and turn_col is None:
            raise InputError(str(path), f"code {key!r} is coded on {code.unit}s, but the file "
                             f"has no {turn_column!r} column", location="line 1", field=column)
        if code.unit == "sentence":
            raise InputError(str(path), f"code {key!r} is coded on sentences; rater files "
                             "hold conversation or turn ratings", location="line 1",
                             field=column)
        out.columns[key] = column
    if not out.columns:
        raise InputError(str(path), "no column maps to a code of the codebook (columns: "
                         f"{', '.join(table.columns)}); map them with COLUMN=CODE",
                         location="line 1")
    frame = table.frame
    seen: dict[tuple[str, int, str], int] = {}
    for label, row in zip(frame.index.tolist(), frame.to_dict("records"), strict=True):
        line = table.line_number(label)
        cid = str(row[id_col]).strip()
        if not cid:
            raise InputError(str(path), "the conversation id is empty", location=f"line {line}",
                             field=id_col)
        try:
            rows.conversation_id(cid)
        except rows.RowError as e:
            raise InputError(str(path), e.message, location=f"line {line}",
                             field=id_col) from None
        for key, column in out.columns.items():
            code = codebook.get(key)
            assert code is not None
            raw = str(row[column]).strip()
            if raw == "":
                continue
            position = 0
            if code.unit == "turn":
                position = _turn(str(row[turn_col]).strip() if turn_col else "", path, line,
                                 turn_col)
                role = role_of(cid, position) if role_of is not None else None
                if role is not None and code.applies_to not in ("any", role):
                    raise InputError(str(path), f"code {key!r} applies to {code.applies_to} "
                                     f"turns; turn {position} of '{cid}' is a {role} turn",
                                     location=f"line {line}", field=column)
            try:
                value = code.parse_value(raw)
            except ValueError as e:
                raise InputError(str(path), str(e), location=f"line {line}",
                                 field=column) from None
            if exists is not None and not exists(cid, position):
                what = f"conversation '{cid}'" + (f" has no turn {position}" if position
                                                  else " is not in the project")
                raise InputError(str(path), what, location=f"line {line}", field=id_col)
            ident = (cid, position, key)
            if ident in seen:
                raise InputError(str(path), f"{key!r} of this unit was rated already on line "
                                 f"{seen[ident]}", location=f"line {line}", field=column)
            seen[ident] = line
            out.codings.append((line, Coding(out.rater, Unit(cid, position), key, value)))
    return out

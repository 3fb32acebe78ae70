"""Ratings of one code, prepared once as a coders x units matrix of scale positions.

Input is a tidy long table with columns ``unit``, ``coder`` and ``value`` (one row per
rater and unit; a missing value -- NaN or None -- means the rater did not rate the
unit or marked it not applicable). Values are matched against the code's *declared*
scale and stored as positions 0..k-1 in that scale, so every measure works on the
same category set whether or not every level was used.

A unit is *pairable* for a set of raters when at least two of them gave it a value;
only pairable units can show agreement or disagreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from ..errors import InputError

COLUMNS = ("unit", "coder", "value")
Level = int | str


def _is_number(v: object) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def scale_text(scale: Sequence[Level]) -> str:
    """'1..5' for a run of whole numbers, else the levels separated by commas."""
    vals = list(scale)
    if len(vals) > 2 and all(isinstance(v, int | np.integer) for v in vals):
        ints = [int(v) for v in vals]
        if ints == list(range(ints[0], ints[0] + len(ints))):
            return f"{ints[0]}..{ints[-1]}"
    return ", ".join(str(v) for v in vals)


def shown_value(value: object) -> str:
    """A stored value as a researcher wrote it: ``-2`` for a numpy ``-2.0``, ``'abc'`` for
    text (numpy's own representation, ``np.float64(-2.0)``, never reaches a message)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return repr(value)


def check_scale(scale: Sequence[Level], code: str) -> tuple[Level, ...]:
    levels = tuple(scale)
    if len(levels) < 2:
        raise ValueError(f"code '{code}': the scale needs at least two levels, got {levels!r}")
    if len(set(levels)) != len(levels):
        raise ValueError(f"code '{code}': the scale repeats a level: {levels!r}")
    return levels


@dataclass
class Ratings:
    """Ratings of one code: ``positions[c, u]`` is the scale position coder c gave unit u
    (-1 = no value)."""

    code: str
    scale: tuple[Level, ...]
    coders: list[str]
    units: pd.Index
    positions: np.ndarray

    @property
    def k(self) -> int:
        return len(self.scale)

    @cached_property
    def row_of(self) -> dict[str, int]:
        """Each coder's row (looked up once: a crowd of 3,000 made ``list.index`` quadratic)."""
        return {c: i for i, c in enumerate(self.coders)}

    def subset(self, coders: Sequence[str]) -> Ratings:
        """The same units, rated by ``coders`` only (in that order; absent names skipped)."""
        rows = [self.row_of[c] for c in coders if c in self.row_of]
        return Ratings(
            self.code, self.scale, [self.coders[i] for i in rows], self.units, self.positions[rows]
        )

    def value_counts(self) -> np.ndarray:
        """Units x scale-levels matrix: how many raters gave each level to each unit."""
        return _level_counts(self.positions, self.k)

    def pairable_counts(self) -> np.ndarray:
        """The rows of :meth:`value_counts` of the pairable units (two values or more), in
        unit order, counted for those units only."""
        rated = (self.positions >= 0).sum(axis=0, dtype=np.int64)
        return _level_counts(self.positions[:, rated >= 2], self.k)

    def pair(self, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the units both ``a`` and ``b`` rated, aligned."""
        x = self.positions[self.row_of[a]]
        y = self.positions[self.row_of[b]]
        both = (x >= 0) & (y >= 0)
        return x[both], y[both]


def _level_counts(positions: np.ndarray, k: int) -> np.ndarray:
    """Units x levels: how many rows of ``positions`` (raters x units, -1 = none) give each
    of the ``k`` levels to each unit, counted in one pass."""
    units = positions.shape[1]
    rated = positions >= 0
    cells = np.arange(units, dtype=np.int64) * k + positions  # unit's row, level's column
    return np.bincount(cells[rated], minlength=units * k).reshape(units, k)


def _bad_row(frame: pd.DataFrame, mask: np.ndarray, code: str, message: str) -> InputError:
    i = int(np.flatnonzero(mask)[0])
    row = frame.iloc[i]
    return InputError(
        file=f"ratings of code '{code}'",
        message=message.format(value=shown_value(row["value"])),
        location=f"unit {row['unit']!r}, coder {row['coder']!r}",
        field="value",
    )


def positions_of(values: pd.Series, scale: Sequence[Level]) -> np.ndarray:
    """Scale position of each value (-1 where missing or off the scale)."""
    run = _whole_run(scale)
    if run is not None and pd.api.types.is_numeric_dtype(values.dtype) \
            and not pd.api.types.is_bool_dtype(values.dtype):
        # numbers on a scale of consecutive whole numbers: the position is arithmetic
        offset = values.to_numpy(dtype=np.float64, na_value=np.nan) - run
        on_scale = (offset >= 0) & (offset < len(scale))  # False for NaN
        position = np.where(on_scale, offset, -1).astype(np.int64)
        return np.where(on_scale & (position == offset), position, -1)
    if all(_is_number(v) for v in scale):
        numeric = pd.to_numeric(values, errors="coerce")
        return np.asarray(pd.Index(list(scale)).get_indexer(numeric), dtype=np.int64)
    return np.asarray(pd.Index([str(v) for v in scale]).get_indexer(values.astype(str)))


def _whole_run(scale: Sequence[Level]) -> int | None:
    """The first level of a scale of consecutive whole numbers (1, 2, 3 ...), else None."""
    if not scale or not all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                            for v in scale):
        return None
    first = int(scale[0])
    return first if [int(v) for v in scale] == list(range(first, first + len(scale))) else None


def _coders_of(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Rater index of each row (-1 = no rater) and the rater names in alphabetical order.

    A Categorical column is read from its codes without hashing the names again.
    """
    idx, uniques = pd.factorize(column, sort=False)
    names = [str(c) for c in uniques]
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names) + 1, dtype=np.int64)
    rank[order] = np.arange(len(names))
    rank[-1] = -1  # idx -1 stays -1
    return rank[idx], [names[i] for i in order]


def prepare_ratings(frame: pd.DataFrame, *, code: str, scale: Sequence[Level]) -> Ratings:
    """Check the long table and turn it into a :class:`Ratings` matrix.

    Raises :class:`InputError` naming the unit, coder and value for a value off the
    declared scale, a row without unit or coder, or a rater with two values for a unit.
    """
    levels = check_scale(scale, code)
    missing_cols = [c for c in COLUMNS if c not in frame.columns]
    if missing_cols:
        raise InputError(
            file=f"ratings of code '{code}'",
            message=f"the table lacks column(s) {', '.join(missing_cols)} "
            f"(expected {', '.join(COLUMNS)})",
            field=missing_cols[0],
        )
    frame = frame.reset_index(drop=True)
    no_value = frame["value"].isna().to_numpy()
    pos = positions_of(frame["value"], levels)
    off_scale = (pos < 0) & ~no_value
    if off_scale.any():
        raise _bad_row(
            frame, off_scale, code, f"{{value}} is not a level of the scale {scale_text(levels)}"
        )
    unit_idx, units = pd.factorize(frame["unit"], sort=False)
    coder_idx, coder_names = _coders_of(frame["coder"])
    for col, idx in (("unit", unit_idx), ("coder", coder_idx)):
        if (idx < 0).any():  # factorize marks a missing unit or coder with -1
            i = int(np.flatnonzero(idx < 0)[0])
            raise InputError(
                file=f"ratings of code '{code}'",
                message=f"a rating has no {col}",
                location=f"row {i + 1}",
                field=col,
            )
    dtype = np.int8 if len(levels) < 127 else np.int32
    positions = np.full((len(coder_names), len(units)), -1, dtype=dtype)
    rated = ~no_value
    positions[coder_idx[rated], unit_idx[rated]] = pos[rated]
    if int((positions >= 0).sum()) != int(rated.sum()):
        rows = np.flatnonzero(rated)
        keys = pd.Series(coder_idx[rows].astype(np.int64) * len(units) + unit_idx[rows])
        dup = np.zeros(len(frame), dtype=bool)
        dup[rows[keys.duplicated(keep=False).to_numpy()]] = True
        raise _bad_row(frame, dup, code, "this rater has more than one value for this unit")
    return Ratings(code, levels, coder_names, pd.Index(units), positions)

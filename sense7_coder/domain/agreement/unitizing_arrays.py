"""αu over many turns at once, in arrays (the same figures as :mod:`.unitizing`).

:mod:`.unitizing` states the definition turn by turn in Python: each observer's units
merged into sections, each pair of observers' sections walked side by side. Over a study
of thousands of turns that is a Python loop per turn, per category and per pair of
observers. Here every turn is done at once: the units are sorted by (turn, observer,
start), merged with a running maximum, their gaps found from their neighbours, and the
overlaps between two observers' units found by binary search on the turns laid end to end
(units of different turns never overlap there). Every quantity is a sum of integers, so
the figures equal :func:`.unitizing.combine`'s (tests/test_spans_agreement.py checks it on
generated cases).

A pair of overlapping units adds (b_g - b_h)² + (e_g - e_h)²; a unit that overlaps none of
the other observer's units lies inside one of that observer's gaps and adds l²; nothing
else adds anything (:func:`.unitizing._pair`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Cancelled
from ..progress import CancelFn
from .unitizing import UnitizingResult, _expected


@dataclass(frozen=True)
class Cuts:
    """One category's merged units over every turn: per turn its observed disagreement
    (summed over ordered pairs of observers), and each unit's and gap's length and turn."""

    observed: np.ndarray  # float64, one per turn
    units: np.ndarray  # int64 lengths
    unit_turn: np.ndarray
    gaps: np.ndarray
    gap_turn: np.ndarray


def _merge(turn: np.ndarray, observer: np.ndarray, start: np.ndarray, end: np.ndarray,
           m: int, span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The units of each (turn, observer) merged where they touch or overlap, sorted by
    (turn, observer, start): (turn, observer, start, end)."""
    if len(start) == 0:
        return turn, observer, start, end
    if (int(turn.max()) + 1) * m * (span + 1) < 1 << 62:  # one key: a third of the time
        order = np.argsort((turn * m + observer) * (span + 1) + start, kind="stable")
    else:
        order = np.lexsort((start, observer, turn))
    turn, observer, start, end = turn[order], observer[order], start[order], end[order]
    group = turn * m + observer
    # a running maximum of the ends that restarts per group: groups are laid apart by
    # more than any end, so a group never sees an earlier group's ends
    shifted = group * (span + 1) + end
    reach = np.maximum.accumulate(shifted) - group * (span + 1)
    new = np.ones(len(start), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (start[1:] > reach[:-1])
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(start)) - 1
    return turn[first], observer[first], start[first], reach[last]


def _gaps(turn: np.ndarray, observer: np.ndarray, start: np.ndarray, end: np.ndarray,
          lengths: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Lengths and turns of every observer's gaps in every turn (merged units in)."""
    group = turn * m + observer
    head = np.ones(len(group), dtype=bool)
    head[1:] = group[1:] != group[:-1]
    tail = np.ones(len(group), dtype=bool)
    tail[:-1] = group[1:] != group[:-1]
    before = np.where(head, start, start - np.append(0, end[:-1]))  # from 0 or the last end
    after = np.where(tail, lengths[turn] - end, 0)
    lens = np.concatenate([before, after])
    turns = np.concatenate([turn, turn])
    # observers without a unit in a turn: the whole turn is one gap
    holds = np.zeros(len(lengths) * m, dtype=bool)
    holds[group] = True
    empty = np.flatnonzero(~holds)
    lens = np.concatenate([lens, lengths[empty // m]])
    turns = np.concatenate([turns, empty // m])
    keep = lens > 0
    return lens[keep], turns[keep]


def _overlaps(a_beg: np.ndarray, a_end: np.ndarray, b_beg: np.ndarray, b_end: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) of a's and b's units that overlap; each side disjoint, sorted."""
    lo = np.searchsorted(b_end, a_beg, side="right")
    hi = np.searchsorted(b_beg, a_end, side="left")
    counts = np.maximum(hi - lo, 0)
    i = np.repeat(np.arange(len(a_beg)), counts)
    starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
    j = starts + np.arange(len(i))
    return i, j


def _observed(turn: np.ndarray, observer: np.ndarray, beg: np.ndarray, end: np.ndarray,
              offset: np.ndarray, turns: int, m: int) -> np.ndarray:
    """Per turn, the observed disagreement summed over ordered pairs of observers."""
    out = np.zeros(turns, dtype=np.float64)
    gb, ge = beg + offset[turn], end + offset[turn]  # the turns laid end to end
    for g in range(m):
        a = observer == g
        for h in range(g + 1, m):
            b = observer == h
            i, j = _overlaps(gb[a], ge[a], gb[b], ge[b])
            dist = (gb[a][i] - gb[b][j]) ** 2 + (ge[a][i] - ge[b][j]) ** 2
            alone_a = np.ones(int(a.sum()), dtype=bool)
            alone_a[i] = False
            alone_b = np.ones(int(b.sum()), dtype=bool)
            alone_b[j] = False
            la, lb = (end - beg)[a], (end - beg)[b]
            pair = (np.bincount(turn[a][i], dist, turns)
                    + np.bincount(turn[a][alone_a], la[alone_a] ** 2, turns)
                    + np.bincount(turn[b][alone_b], lb[alone_b] ** 2, turns))
            out += 2 * pair  # the pair (g, h) and (h, g) disagree alike
    return out


def cuts(lengths: np.ndarray, turn: np.ndarray, observer: np.ndarray, start: np.ndarray,
         end: np.ndarray, m: int) -> Cuts:
    """One category's :class:`Cuts`: ``lengths`` per turn; per unit its turn index,
    observer index (0..m-1), start and end (end exclusive, 0 <= start < end <= length)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    turn, observer, start, end = (np.asarray(x, dtype=np.int64)
                                  for x in (turn, observer, start, end))
    span = int(lengths.max()) if len(lengths) else 0
    turn, observer, start, end = _merge(turn, observer, start, end, m, span)
    gaps, gap_turn = _gaps(turn, observer, start, end, lengths, m)
    offset = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    observed = _observed(turn, observer, start, end, offset, len(lengths), m)
    return Cuts(observed, end - start, turn, gaps, gap_turn)


def combine(by_category: dict[Hashable, Cuts], lengths: np.ndarray, m: int,
            weights: np.ndarray | None = None) -> UnitizingResult:
    """αu over the turns, each counted ``weights`` times (a bootstrap draw; once each when
    None), as :func:`.unitizing.combine` of the same pieces."""
    length = int(lengths.sum() if weights is None else (lengths * weights).sum())
    observed: dict[Hashable, float] = {}
    expected: dict[Hashable, float] = {}
    result: dict[Hashable, float | None] = {}
    for c, cut in by_category.items():
        if weights is None:
            total, units, gaps = float(cut.observed.sum()), cut.units, cut.gaps
        else:
            total = float(cut.observed @ weights)
            units = np.repeat(cut.units, weights[cut.unit_turn])
            gaps = np.repeat(cut.gaps, weights[cut.gap_turn])
        observed[c] = total / (m * (m - 1) * length**2) if length else 0.0
        expected[c] = _expected(units.astype(np.float64), gaps.astype(np.float64), m, length)
        result[c] = 1 - observed[c] / expected[c] if expected[c] > 0 else None
    all_expected = sum(expected.values())
    alpha = 1 - sum(observed.values()) / all_expected if all_expected > 0 else None
    return UnitizingResult(alpha, observed, expected, result)


def bootstrap(by_category: dict[Hashable, Cuts], lengths: np.ndarray, group: np.ndarray,
              m: int, draws: int, seed: int | None, level: float = 0.95,
              cancel: CancelFn | None = None) -> tuple[float, float] | None:
    """A percentile interval of αu from ``draws`` resamples of the groups (``group``: each
    turn's conversation index 0..k-1, in first-seen order) with replacement, drawn as
    :func:`.unitizing.bootstrap` draws them; None when fewer than two groups or too few
    draws are defined."""
    k = int(group.max()) + 1 if len(group) else 0
    if k < 2 or draws <= 0:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        if cancel is not None and cancel():
            raise Cancelled()
        chosen = rng.integers(0, k, k)
        weights = np.bincount(chosen, minlength=k)[group]
        a = combine(by_category, lengths, m, weights).alpha
        if a is not None:
            values.append(a)
    if len(values) < max(10, draws // 2):
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def by_category(lengths: np.ndarray, turn: np.ndarray, observer: np.ndarray,
                start: np.ndarray, end: np.ndarray, category: np.ndarray, m: int,
                categories: Sequence[Hashable]) -> dict[Hashable, Cuts]:
    """:func:`cuts` of each category (``category``: each unit's index into
    ``categories``)."""
    return {c: cuts(lengths, turn[category == i], observer[category == i],
                    start[category == i], end[category == i], m)
            for i, c in enumerate(categories)}

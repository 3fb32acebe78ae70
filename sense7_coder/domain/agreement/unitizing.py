"""Agreement on spans: Krippendorff's unitizing alpha (αu) and the presence projection.

αu (Krippendorff 1995, "On the reliability of unitizing continuous data"; 2004, *Content
Analysis*, 2nd ed., §12.4; and "Measuring the reliability of qualitative text analysis
data", Quality & Quantity 38) compares how m observers cut a continuum of length L into
units of categories and the gaps between them. For one category c, each observer's
continuum is a sequence of sections: units (w = 1) and gaps (w = 0), each with a
beginning b and a length l. The observed disagreement sums, over every ordered pair of
observers and every pair of their sections,

* two overlapping units: (b_g - b_h)² + (e_g - e_h)² (beginnings and ends apart),
* a unit lying wholly inside the other observer's gap: l²,
* anything else: 0,

divided by m(m-1)L². The expected disagreement is

    2 / L · [ (N_c - 1)/3 · Σ_units (2l³ - 3l² + l) + Σ_units l² Σ_gaps≥l (l_gap - l + 1) ]
          / [ mL(mL - 1) - Σ_units l(l - 1) ]

with N_c the number of units of c over all observers; αu_c = 1 - Do_c/De_c, and over
several categories αu = 1 - ΣDo_c / ΣDe_c. With the two observers of the published
example these give Do_c = 0.0144, De_c = 0.0532, αu_c = 0.7285 and the joint 0.8587
(tests/test_spans_agreement.py). Krippendorff, Mathet, Bouvry and Widlöcher (2016) revise
the coefficient for more than two observers; this module keeps the published definition.

Here the continuum is the text of the turns a span code applies to, turn after turn; a
section never crosses a turn (its gaps end where the turn ends), so a draw of
conversations (the bootstrap) is the same computation over the drawn turns.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import Cancelled
from ..progress import CancelFn

#: one observer's units of one piece of continuum: (start, end, category), end exclusive
Units = Sequence[tuple[int, int, Hashable]]


@dataclass
class _Piece:
    """What one piece of the continuum (a turn) adds, per category."""

    length: int
    #: category -> observed disagreement summed over ordered pairs of observers
    observed: dict[Hashable, float] = field(default_factory=dict)
    #: category -> lengths of every observer's units / gaps
    units: dict[Hashable, list[int]] = field(default_factory=dict)
    gaps: dict[Hashable, list[int]] = field(default_factory=dict)


def _sections(units: list[tuple[int, int]], length: int) -> list[tuple[int, int, int]]:
    """(begin, length, w) of the units (merged where they touch or overlap) and gaps."""
    out: list[tuple[int, int, int]] = []
    at = 0
    merged: list[list[int]] = []
    for start, end in sorted(units):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in merged:
        if start > at:
            out.append((at, start - at, 0))
        out.append((start, end - start, 1))
        at = end
    if at < length:
        out.append((at, length - at, 0))
    return out


def _pair(gs: list[tuple[int, int, int]], hs: list[tuple[int, int, int]]) -> float:
    """The observed disagreement of two observers' sections (each a partition of the
    continuum from 0, in order). Only sections that overlap can disagree, so the two
    lists are walked side by side: each overlapping pair once, none other."""
    total = 0.0
    i = j = 0
    while i < len(gs) and j < len(hs):
        bg, lg, wg = gs[i]
        bh, lh, wh = hs[j]
        if wg and wh:  # two units that overlap
            total += (bg - bh) ** 2 + (bg + lg - bh - lh) ** 2
        elif wg and not wh and lh - lg >= bg - bh >= 0:  # a unit inside a gap
            total += lg ** 2
        elif wh and not wg and lg - lh >= bh - bg >= 0:
            total += lh ** 2
        end_g, end_h = bg + lg, bh + lh
        if end_g <= end_h:
            i += 1
        if end_h <= end_g:
            j += 1
    return total


def piece(length: int, observers: Sequence[Units], categories: Sequence[Hashable]) -> _Piece:
    """Precompute one piece of continuum of ``length`` cut by every observer (same order
    and number of observers in every piece)."""
    p = _Piece(length)
    for c in categories:
        cut = [_sections([(s, e) for s, e, k in units if k == c], length)
               for units in observers]
        p.observed[c] = sum(_pair(cut[i], cut[j]) for i in range(len(cut))
                            for j in range(len(cut)) if i != j)
        p.units[c] = [ln for sec in cut for _b, ln, w in sec if w]
        p.gaps[c] = [ln for sec in cut for _b, ln, w in sec if not w]
    return p


@dataclass(frozen=True)
class UnitizingResult:
    alpha: float | None
    observed: dict[Hashable, float]
    expected: dict[Hashable, float]
    by_category: dict[Hashable, float | None]


def _expected(units: np.ndarray, gaps: np.ndarray, m: int, length: int) -> float:
    n = len(units)
    if n == 0 or length == 0:
        return 0.0
    first = (n - 1) / 3 * float(np.sum(2 * units**3 - 3 * units**2 + units))
    gaps = np.sort(gaps)
    at = np.searchsorted(gaps, units, side="left")  # gaps from ``at`` on are >= l
    suffix = np.concatenate([np.cumsum(gaps[::-1])[::-1], [0]])
    count = len(gaps) - at
    second = float(np.sum(units**2 * (suffix[at] - (units - 1) * count)))
    denominator = m * length * (m * length - 1) - float(np.sum(units * (units - 1)))
    return 2 / length * (first + second) / denominator


def combine(pieces: Sequence[_Piece], m: int, categories: Sequence[Hashable]
            ) -> UnitizingResult:
    """αu over the pieces (a piece may repeat: a bootstrap draw)."""
    length = sum(p.length for p in pieces)
    observed: dict[Hashable, float] = {}
    expected: dict[Hashable, float] = {}
    by_category: dict[Hashable, float | None] = {}
    for c in categories:
        observed[c] = (sum(p.observed[c] for p in pieces) / (m * (m - 1) * length**2)
                       if length else 0.0)
        units = np.array([u for p in pieces for u in p.units[c]], dtype=np.float64)
        gaps = np.array([g for p in pieces for g in p.gaps[c]], dtype=np.float64)
        expected[c] = _expected(units, gaps, m, length)
        by_category[c] = 1 - observed[c] / expected[c] if expected[c] > 0 else None
    total = sum(expected.values())
    alpha = 1 - sum(observed.values()) / total if total > 0 else None
    return UnitizingResult(alpha, observed, expected, by_category)


def unitizing_alpha(length: int, observers: Sequence[Units],
                    categories: Sequence[Hashable] | None = None) -> UnitizingResult:
    """αu of one continuum of ``length`` cut by ``observers`` (two or more)."""
    if len(observers) < 2:
        raise ValueError("unitizing alpha needs two observers or more")
    cats = (list(categories) if categories is not None
            else sorted({k for units in observers for _s, _e, k in units}, key=str))
    return combine([piece(length, observers, cats)], len(observers), cats)


def bootstrap(groups: Mapping[Hashable, Sequence[_Piece]], m: int,
              categories: Sequence[Hashable], draws: int, seed: int | None,
              level: float = 0.95, cancel: CancelFn | None = None
              ) -> tuple[float, float] | None:
    """A percentile interval of αu from ``draws`` resamples of the groups (conversations)
    with replacement; None when fewer than two groups or no draw is defined."""
    keys = list(groups)
    if len(keys) < 2 or draws <= 0:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        if cancel is not None and cancel():
            raise Cancelled()
        chosen = rng.integers(0, len(keys), len(keys))
        pieces = [p for i in chosen for p in groups[keys[i]]]
        a = combine(pieces, m, categories).alpha
        if a is not None:
            values.append(a)
    if len(values) < max(10, draws // 2):
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)

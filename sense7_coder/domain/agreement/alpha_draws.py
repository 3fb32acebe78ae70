"""Alpha's bootstrap and jackknife as weighted sums over units (:func:`bootstrap_alpha`).

Alpha depends on the units only through the coincidence matrix, the sum over pairable
units of each unit's contribution (its value counts' pairable coincidences,
``(n_uc n_uk - [c = k] n_uc) / (n_u - 1)``). A resample of units is therefore a vector of
multiplicities, one per unit, and its coincidence matrix the multiplicity-weighted sum
of the contributions, computed once. Units with the same value counts contribute the
same, so the sums run over the distinct patterns of counts: one matrix product gives a
chunk of draws (100 at a time, so that memory stays bounded however many units there
are). Expected disagreement comes from each draw's coincidence margins and the level's
difference matrix over the level values (ordinal's built from those margins), exactly as
the ``krippendorff`` package computes them; leaving one unit out (the jackknife of BCa)
is the whole sum less that unit's contribution.

The units drawn are those of :func:`.bootstrap.bootstrap_alpha_per_draw` (same
canonical order, same calls on the same generator), so the interval is the same for the
same seed; that function stays as the reference the tests hold this one to.
"""

from __future__ import annotations

import numpy as np

from .bootstrap import Q_MINIMUMS, Interval, interval_method, summarise
from .progress import Steps

#: draws summed per matrix product (fewer where there are very many patterns, so that a
#: chunk's weights stay within CHUNK_CELLS numbers)
CHUNK = 100
CHUNK_CELLS = 1 << 22
#: patterns per step of the jackknife and of their contributions
JACKKNIFE_CHUNK = 4096


def canonical_rows(counts: np.ndarray) -> np.ndarray:
    """The rows of ``counts`` in lexicographic order, as float64 (the per-draw path's)."""
    order = np.lexsort(counts.T[::-1])
    return np.ascontiguousarray(counts[order], dtype=np.float64)


def row_patterns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct patterns of sorted ``rows``, the row each pattern starts at, and each
    pattern's count (the rows of one pattern are contiguous)."""
    if rows.shape[0] == 0:
        return rows, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    change = np.any(rows[1:] != rows[:-1], axis=1)
    starts = np.flatnonzero(np.concatenate(([True], change)))
    return rows[starts], starts, np.diff(np.append(starts, rows.shape[0])).astype(np.int64)


def unit_coincidences(patterns: np.ndarray) -> np.ndarray:
    """Each pattern's contribution to the coincidence matrix, flattened (patterns x V*V),
    by the package's own formula, a few thousand patterns at a time (its temporaries are
    patterns x V x V)."""
    p, v = patterns.shape
    out = np.empty((p, v * v))
    eye = np.eye(v)
    for start in range(0, p, JACKKNIFE_CHUNK):
        part = patterns[start:start + JACKKNIFE_CHUNK]
        pairable = np.maximum(part.sum(axis=1), 2)
        outer = part[:, :, None] * part[:, None, :] - part[:, None, :] * eye
        out[start:start + len(part)] = (outer / (pairable - 1).reshape((-1, 1, 1))
                                        ).reshape(len(part), v * v)
    return out


def _distances(domain: np.ndarray, level: str, n_v: np.ndarray) -> np.ndarray:
    """Difference matrices (draws x V x V) of ``level`` over the level values; ordinal's
    from each draw's margins ``n_v`` (draws x V)."""
    v = len(domain)
    if level == "ordinal":
        i = np.arange(v)
        lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
        between = np.zeros((n_v.shape[0], v, v))
        # the sum of the margins from the lower to the higher level, added in order
        for a in range(v):
            for b in range(a, v):
                between[:, a, b] = n_v[:, a:b + 1].sum(axis=1)
        between = between[:, lo, hi]
        return (between - (n_v[:, lo] + n_v[:, hi]) / 2) ** 2
    if level == "nominal":
        return np.broadcast_to((domain[:, None] != domain[None, :]).astype(float), (1, v, v))
    values = domain.astype(float)
    diff = values[:, None] - values[None, :]
    if level == "interval":
        return (diff ** 2)[None]
    total = values[:, None] + values[None, :]
    ratio = np.divide(diff, total, out=np.zeros((v, v)), where=total != 0)
    return (ratio ** 2)[None]


def alpha_from_coincidences(o: np.ndarray, domain: np.ndarray, level: str) -> np.ndarray:
    """Alpha of each row of ``o`` (draws x V*V coincidence matrices); NaN where undefined
    (no expected disagreement, or nothing pairable)."""
    v = len(domain)
    o = o.reshape(-1, v, v)
    n_v = o.sum(axis=1)
    n = n_v.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, None, :] * np.eye(v)) \
            / (n - 1)[:, None, None]
        d = _distances(domain, level, n_v)
        value = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    return np.where(np.isfinite(value), value, np.nan)


def _draw_values(weights: np.ndarray, contrib: np.ndarray, domain: np.ndarray,
                 level: str) -> np.ndarray:
    return alpha_from_coincidences(weights @ contrib, domain, level)


def alpha_jackknife_sums(patterns: np.ndarray, freq: np.ndarray, domain: np.ndarray,
                         level: str, steps: Steps | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Alpha leaving out one unit of each distinct pattern, and the patterns' counts: the
    whole coincidence matrix less that pattern's contribution, a few thousand patterns
    at a time."""
    contrib = unit_coincidences(patterns)
    whole = freq.astype(np.float64) @ contrib
    p = len(freq)
    values = np.empty(p)
    for start in range(0, p, JACKKNIFE_CHUNK):
        stop = min(start + JACKKNIFE_CHUNK, p)
        values[start:stop] = alpha_from_coincidences(whole - contrib[start:stop], domain, level)
        if steps is not None:
            steps.check()
    return values, freq


def bootstrap_alpha(
    counts: np.ndarray,
    domain: np.ndarray,
    level: str,
    *,
    draws: int,
    seed: int | None,
    steps: Steps,
    method: str = "percentile",
    estimate: float | None = None,
) -> Interval:
    """Interval of alpha over ``draws`` resamples of the rows of ``counts``, with
    Hayes & Krippendorff's q at .667 and .800: the same draws and figures as
    :func:`.bootstrap.bootstrap_alpha_per_draw`, as weighted sums.

    ``counts`` must hold pairable rows only. Advances ``steps`` once per draw, which
    also checks for cancellation.
    """
    rng = np.random.default_rng(seed)
    n = counts.shape[0]
    method = interval_method(method, n)
    rows = canonical_rows(counts)
    patterns, starts, freq = row_patterns(rows)
    contrib = unit_coincidences(patterns)
    values = np.full(draws, np.nan)
    chunk = max(1, min(CHUNK, CHUNK_CELLS // max(len(freq), 1), draws))
    weights = np.empty((chunk, len(freq)))
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        for j in range(size):
            # how often each unit was drawn, summed over each pattern's units
            weights[j] = np.add.reduceat(np.bincount(rng.integers(0, n, size=n), minlength=n),
                                         starts)
            steps.advance()
        values[start:start + size] = _draw_values(weights[:size], contrib, domain, level)
    jack = alpha_jackknife_sums(patterns, freq, domain, level, steps) if method == "bca" \
        else None
    return summarise(values, estimate, method=method, jackknife=jack, q_minimums=Q_MINIMUMS)

"""Bootstrap confidence intervals for the two-rater figures: Cohen's kappa (any
weights) and Spearman's rho.

Both figures depend on a pair's ratings only through its k x k contingency table of
scale positions: kappa by definition, rho because tied values get mid-ranks that the
table's margins fix. Resampling the n units both raters rated, with replacement, only
changes how many units fall in each cell, and those counts follow a multinomial
distribution with n trials and the observed cell shares. So each draw is taken as one
multinomial table -- the same distribution as drawing n unit indices and counting them,
at a cost of k*k instead of n per draw -- and the figures of all draws are computed at
once from the stack of tables. The interval is the 2.5th and 97.5th percentile of the
draws in which the figure is defined; the others are left out and counted.

The draws depend only on the observed table and the seed, not on the order of the units,
and a pair's kappas and rho come from the same resampled tables.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..measures import SPEARMAN
from .bootstrap import Interval, interval_method, summarise
from .kappa import disagreement_weights
from .progress import Steps

#: at most this many table cells are drawn at once (bounds memory for long scales)
CHUNK_CELLS = 1 << 20


def resampled_tables(
    table: np.ndarray, *, draws: int, seed: int | None, steps: Steps | None = None
) -> Iterator[np.ndarray]:
    """``draws`` bootstrap resamples of a k x k contingency table, as (chunk, k, k) stacks.

    Asks ``steps`` for cancellation before each chunk.
    """
    k = table.shape[0]
    n = int(table.sum())
    shares = table.ravel().astype(np.float64) / n
    rng = np.random.default_rng(seed)
    chunk = max(1, CHUNK_CELLS // (k * k))
    for start in range(0, draws, chunk):
        if steps is not None:
            steps.check()
        size = min(chunk, draws - start)
        yield rng.multinomial(n, shares, size=size).reshape(size, k, k)


def kappas_of_tables(tables: np.ndarray, weights: str = "none",
                     values: np.ndarray | None = None) -> np.ndarray:
    """Cohen's kappa of every table in a (d, k, k) stack; NaN where undefined.

    The same statistic as :func:`.kappa.kappa_from_table`, table by table.
    """
    t = tables.astype(np.float64)
    n = t.sum(axis=(1, 2))
    w = disagreement_weights(t.shape[1], weights, values)
    rows, cols = t.sum(axis=2), t.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        chance = np.einsum("di,ij,dj->d", rows, w, cols) / n
        observed = (t * w).sum(axis=(1, 2))
        kappa = 1.0 - observed / chance
    return np.where((n > 0) & (chance > 0), kappa, np.nan)


def _midranks(margins: np.ndarray) -> np.ndarray:
    """Average rank of each level given how many values each level holds (d, k)."""
    return np.cumsum(margins, axis=1) - (margins - 1.0) / 2.0


def spearmans_of_tables(tables: np.ndarray) -> np.ndarray:
    """Spearman's rho of every table in a (d, k, k) stack; NaN where undefined.

    Rows are the first rater's scale positions, columns the second's. Pearson's r of
    mid-ranks (ties get their average rank), as :func:`scipy.stats.spearmanr`.
    """
    t = tables.astype(np.float64)
    n = t.sum(axis=(1, 2))
    rows, cols = t.sum(axis=2), t.sum(axis=1)
    mean = ((n + 1.0) / 2.0)[:, None]
    dx, dy = _midranks(rows) - mean, _midranks(cols) - mean
    cov = np.einsum("di,dij,dj->d", dx, t, dy)
    vx, vy = (rows * dx**2).sum(axis=1), (cols * dy**2).sum(axis=1)
    defined = (n >= 2) & (vx > 0) & (vy > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip(cov / np.sqrt(vx * vy), -1.0, 1.0)
    return np.where(defined, rho, np.nan)


def percentile_interval(values: np.ndarray) -> Interval:
    """2.5th and 97.5th percentile of the defined (finite) values of the draws."""
    draws = int(values.size)
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return Interval(None, None, draws, draws)
    low, high = np.percentile(defined, [2.5, 97.5])
    return Interval(float(low), float(high), draws, draws - int(defined.size))


def pair_intervals(
    table: np.ndarray,
    weights: Sequence[str],
    *,
    spearman: bool = False,
    draws: int,
    seed: int | None,
    steps: Steps | None = None,
    method: str = "percentile",
    values: np.ndarray | None = None,
) -> dict[str, Interval]:
    """Bootstrap intervals of a pair's kappas (one per name in ``weights``) and, with
    ``spearman``, of its rho (key :data:`~..measures.SPEARMAN`), from one set of resampled tables.

    ``values``: the levels' values to build the kappa weights on (None: positions).
    ``table`` is the pair's k x k contingency table over the units both rated; it must
    hold at least one unit. ``method`` 'bca' takes the jackknife over units from the
    table: leaving out one unit of a cell gives the same figure for every unit of it.
    """
    keys = [*weights, *([SPEARMAN] if spearman else [])]
    method = interval_method(method, int(table.sum()))
    draws_of = {key: np.empty(draws) for key in keys}
    done = 0
    for chunk in resampled_tables(table, draws=draws, seed=seed, steps=steps):
        size = chunk.shape[0]
        for w in weights:
            draws_of[w][done:done + size] = kappas_of_tables(chunk, w, values)
        if spearman:
            draws_of[SPEARMAN][done:done + size] = spearmans_of_tables(chunk)
        done += size
    if method != "bca":
        return {key: percentile_interval(v) for key, v in draws_of.items()}
    cells = np.argwhere(table > 0)
    left_out = np.repeat(table[None, :, :], len(cells), axis=0)
    left_out[np.arange(len(cells)), cells[:, 0], cells[:, 1]] -= 1
    freq = table[cells[:, 0], cells[:, 1]].astype(float)

    def of(stack: np.ndarray, key: str) -> np.ndarray:
        if key == SPEARMAN:
            return spearmans_of_tables(stack)
        return kappas_of_tables(stack, key, values)

    out = {}
    for key, v in draws_of.items():
        estimate = float(of(table[None, :, :], key)[0])
        out[key] = summarise(v, estimate if np.isfinite(estimate) else None, method="bca",
                             jackknife=(of(left_out, key), freq))
    return out

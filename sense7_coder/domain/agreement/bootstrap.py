"""Bootstrap confidence intervals over units: the reading of any set of draws
(:func:`summarise`), and alpha's per-draw reference (:func:`bootstrap_alpha_per_draw`;
the engine computes the same draws as weighted sums, :mod:`.alpha_draws`).

Each alpha draw takes as many pairable units as there are, with replacement, from the
units x values count matrix prepared once, and recomputes alpha on those rows. Draws in
which the figure is undefined (e.g. every resampled value the same) are left out and
counted; their share is reported with the interval. The rows are put in a canonical order
first, so that the same ratings and seed give the same interval whatever order the units
came in.

Intervals (95%):

* ``percentile``: the 2.5th and 97.5th percentile of the defined draws;
* ``bca``: bias-corrected and accelerated (Efron 1987): the percentiles are moved by the
  bias correction z0 (share of draws below the estimate) and the acceleration a (from
  the jackknife over units); when z0 is infinite (every draw on one side of the
  estimate) the percentile interval is reported and the description says so;
* ``auto`` (the default): BCa below :data:`BCA_BELOW_UNITS` units, percentile from there
  on. Chosen by coverage: at 20 units the percentile interval of nominal alpha held the
  true value in under 90% of simulated studies, BCa in 93-95% (VALIDATION.md, small-n
  table, ``benchmarks/alpha_small_n.py``). Every interval records the method it was made
  with, so each output names it.

With the draws, ``q_below[m]`` is the share of defined draws below m: Hayes &
Krippendorff's (2007) probability that the coefficient falls short of a minimum
(reported for alpha at .667 and .800).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# defined with the other choices of a run (read by the command line and the window)
from ..agreement_settings import BCA_BELOW_UNITS as BCA_BELOW_UNITS
from ..agreement_settings import CI_METHODS as CI_METHODS
from .alpha import alpha_from_counts
from .progress import Steps

#: minimums for Hayes & Krippendorff's q
Q_MINIMUMS = (0.667, 0.800)


@dataclass
class Interval:
    low: float | None
    high: float | None
    draws: int
    undefined_draws: int
    method: str = "percentile"
    q_below: dict[float, float] = field(default_factory=dict)
    fallback: str = ""

    @property
    def undefined_share(self) -> float:
        return self.undefined_draws / self.draws if self.draws else 0.0

    def describe(self, seed: int | None) -> str:
        seed_text = "random seed" if seed is None else f"seed {seed}"
        name = "BCa" if self.method == "bca" else "percentile"
        text = f"95% CI: {name} bootstrap over units, {self.draws} draws, {seed_text}"
        if self.fallback:
            text += f" ({self.fallback})"
        if self.undefined_draws:
            text += f" ({self.undefined_draws} draws undefined, left out)"
        return text


def interval_method(method: str, n_units: int) -> str:
    """The method an interval over ``n_units`` is made with: ``auto`` resolved by
    :data:`BCA_BELOW_UNITS`, any other method as given."""
    if method == "auto":
        return "bca" if n_units < BCA_BELOW_UNITS else "percentile"
    return method


def method_text(method: str) -> str:
    """How an output names an interval method ('' for none)."""
    return {"bca": "BCa", "percentile": "percentile", "auto":
            f"BCa below {BCA_BELOW_UNITS} units, percentile from {BCA_BELOW_UNITS}",
            "F": "F-based", "GCI": "generalized"}.get(method, method)


def _bca_levels(
    defined: np.ndarray, estimate: float, jack: np.ndarray, freq: np.ndarray
) -> tuple[float, float] | None:
    """BCa percentile levels (0..100) for a 95% interval; None when z0 is infinite."""
    from scipy.stats import norm

    below = (defined < estimate).sum() + 0.5 * (defined == estimate).sum()
    share = below / defined.size
    if share <= 0 or share >= 1:
        return None
    z0 = float(norm.ppf(share))
    ok = np.isfinite(jack)
    jack, freq = jack[ok], freq[ok]
    if freq.sum() == 0:
        return None
    mean = float((freq * jack).sum() / freq.sum())
    dev = mean - jack
    denom = 6.0 * float((freq * dev ** 2).sum()) ** 1.5
    a = float((freq * dev ** 3).sum()) / denom if denom > 0 else 0.0
    levels = []
    for z in (norm.ppf(0.025), norm.ppf(0.975)):
        levels.append(100 * float(norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))
    return levels[0], levels[1]


def summarise(
    values: np.ndarray,
    estimate: float | None = None,
    *,
    method: str = "percentile",
    jackknife: tuple[np.ndarray, np.ndarray] | None = None,
    q_minimums: tuple[float, ...] = (),
) -> Interval:
    """The interval of bootstrap ``values`` (NaN = undefined draw). ``bca`` needs the
    ``estimate`` and ``jackknife`` = (leave-one-out values, how many units each stands
    for)."""
    draws = int(values.size)
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return Interval(None, None, draws, draws, method)
    levels: tuple[float, float] = (2.5, 97.5)
    fallback = ""
    if method == "bca":
        bca = None
        if estimate is not None and jackknife is not None:
            bca = _bca_levels(defined, estimate, *jackknife)
        if bca is None:
            fallback = "BCa undefined: every draw on one side of the estimate; percentile"
        else:
            levels = bca
    low, high = np.percentile(defined, levels)
    q = {m: float((defined < m).mean()) for m in q_minimums}
    return Interval(float(low), float(high), draws, draws - int(defined.size), method, q,
                    fallback)


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a matrix (canonical order) and how often each occurs.

    Rows of small non-negative integers (count matrices) are packed into one integer
    each first, which is many times faster than comparing rows."""
    if rows.shape[0] == 0:
        return rows, np.zeros(0, dtype=np.int64)
    if rows.ndim == 2 and rows.shape[1] and np.issubdtype(rows.dtype, np.integer):
        base = int(rows.max()) + 1
        if rows.min() >= 0 and rows.shape[1] * np.log2(max(base, 2)) < 62:
            weights = base ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
            keys = rows.astype(np.int64) @ weights
            _, first, freq = np.unique(keys, return_index=True, return_counts=True)
            return rows[first], freq
    patterns, freq = np.unique(rows, axis=0, return_counts=True)
    return patterns, freq


def alpha_jackknife(rows: np.ndarray, domain: np.ndarray, level: str) -> tuple[np.ndarray,
                                                                               np.ndarray]:
    """Alpha leaving out one unit of each distinct row pattern, and the patterns' counts."""
    patterns, freq = unique_rows(rows)
    values = np.full(len(patterns), np.nan)
    for i in range(len(patterns)):
        counts = freq.copy()
        counts[i] -= 1
        sample = np.repeat(patterns, counts, axis=0)
        value = alpha_from_counts(sample, domain, level)
        if value is not None:
            values[i] = value
    return values, freq


def bootstrap_alpha_per_draw(
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
    Hayes & Krippendorff's q at .667 and .800, calling ``krippendorff.alpha`` on every
    resampled table: the reference :func:`.alpha_draws.bootstrap_alpha` is held to.

    ``counts`` must hold pairable rows only. Advances ``steps`` once per draw, which
    also checks for cancellation.
    """
    rng = np.random.default_rng(seed)
    n = counts.shape[0]
    method = interval_method(method, n)
    # rows in a canonical order, so the interval does not depend on the order of the input
    order = np.lexsort(counts.T[::-1])
    rows = np.ascontiguousarray(counts[order], dtype=np.float64)
    values = np.full(draws, np.nan)
    for i in range(draws):
        sample = rows[rng.integers(0, n, size=n)]
        value = alpha_from_counts(sample, domain, level)
        if value is not None:
            values[i] = value
        steps.advance()
    jack = alpha_jackknife(rows, domain, level) if method == "bca" else None
    return summarise(values, estimate, method=method, jackknife=jack, q_minimums=Q_MINIMUMS)


def multinomial_draws(
    freq: np.ndarray, *, draws: int, seed: int | None, chunk_cells: int = 1 << 22
) -> np.ndarray:
    """``draws`` bootstrap resamples of units given as counts of distinct patterns
    (draws x patterns): the same distribution as drawing the units with replacement."""
    rng = np.random.default_rng(seed)
    n = int(freq.sum())
    shares = freq / n
    out = np.empty((draws, len(freq)), dtype=np.float64)
    chunk = max(1, chunk_cells // max(len(freq), 1))
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        out[start:start + size] = rng.multinomial(n, shares, size=size)
    return out

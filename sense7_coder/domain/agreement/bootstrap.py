"""Bootstrap confidence interval for Krippendorff's alpha, resampling units.

Each draw takes as many pairable units as there are, with replacement, from the
units x values count matrix prepared once, and recomputes alpha on those rows. The
interval is the 2.5th and 97.5th percentile of the draws (percentile bootstrap).
Draws in which alpha is undefined (e.g. every resampled value the same) are left out
and counted. The rows are put in a canonical order first, so that the same ratings and
seed give the same interval whatever order the units came in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alpha import alpha_from_counts
from .progress import Steps


@dataclass
class Interval:
    low: float | None
    high: float | None
    draws: int
    undefined_draws: int

    def describe(self, seed: int | None) -> str:
        seed_text = "random seed" if seed is None else f"seed {seed}"
        text = f"95% CI: percentile bootstrap over units, {self.draws} draws, {seed_text}"
        if self.undefined_draws:
            text += f" ({self.undefined_draws} draws undefined, left out)"
        return text


def bootstrap_alpha(
    counts: np.ndarray,
    domain: np.ndarray,
    level: str,
    *,
    draws: int,
    seed: int | None,
    steps: Steps,
) -> Interval:
    """Percentile interval of alpha over ``draws`` resamples of the rows of ``counts``.

    ``counts`` must hold pairable rows only. Advances ``steps`` once per draw, which
    also checks for cancellation.
    """
    rng = np.random.default_rng(seed)
    n = counts.shape[0]
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
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return Interval(None, None, draws, draws)
    low, high = np.percentile(defined, [2.5, 97.5])
    return Interval(float(low), float(high), draws, draws - int(defined.size))

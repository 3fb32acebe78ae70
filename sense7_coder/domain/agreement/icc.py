"""Intraclass correlation in the six forms of Shrout & Fleiss (1979), named as McGraw &
Wong (1996) map them, from a complete units x raters matrix.

With n units (targets), k raters and the mean squares of the two-way ANOVA -- MSR (rows =
units), MSC (columns = raters), MSE (residual) -- and of the one-way ANOVA, MSW (within
units):

    ICC1  = (MSR - MSW) / (MSR + (k-1) MSW)                     one-way random, single
    ICC2  = (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n) two-way random, absolute
    ICC3  = (MSR - MSE) / (MSR + (k-1) MSE)                     two-way mixed, consistency
    ICC1k = (MSR - MSW) / MSR                                   ... of the mean of k raters
    ICC2k = (MSR - MSE) / (MSR + (MSC - MSE) / n)
    ICC3k = (MSR - MSE) / MSR

Every sum of squares is a sum over units of per-unit terms, so a bootstrap over units is a
set of weighted sums (:func:`unit_terms`, :func:`from_sums`), all draws at once.
"""

from __future__ import annotations

import numpy as np

FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")


def unit_terms(x: np.ndarray) -> np.ndarray:
    """Per unit (row of a complete n x k matrix): [1, sum of squares, squared row sum,
    each rater's value]."""
    x = np.asarray(x, dtype=float)
    return np.column_stack([np.ones(len(x)), (x ** 2).sum(axis=1), x.sum(axis=1) ** 2, x])


def from_sums(sums: np.ndarray) -> np.ndarray:
    """The six forms (columns, in :data:`FORMS` order) from column sums of
    :func:`unit_terms` (rows = draws); NaN where undefined."""
    sums = np.atleast_2d(np.asarray(sums, dtype=float))
    n, sq, rowsq, cols = sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3:]
    k = cols.shape[1]
    total = cols.sum(axis=1)
    correction = total ** 2 / (n * k)
    sst = sq - correction
    ssr = rowsq / k - correction
    ssc = (cols ** 2).sum(axis=1) / n - correction
    sse = sst - ssr - ssc
    ssw = sst - ssr
    with np.errstate(divide="ignore", invalid="ignore"):
        msr = ssr / (n - 1)
        msc = ssc / (k - 1)
        mse = sse / ((n - 1) * (k - 1))
        msw = ssw / (n * (k - 1))
        below = np.column_stack([
            msr + (k - 1) * msw,
            msr + (k - 1) * mse + k * (msc - mse) / n,
            msr + (k - 1) * mse,
            msr,
            msr + (msc - mse) / n,
            msr,
        ])
        out = np.column_stack([msr - msw, msr - mse, msr - mse, msr - msw, msr - mse,
                               msr - mse]) / below
        # a denominator of zero (no variation between units, up to rounding) or below it
        # (raters' mean square under the residual's) gives no interpretable ICC: 3,000
        # units on which no unit and no rater differed on average gave ICC2k = 3000
        spread = np.abs(sst) / np.maximum(n * k - 1, 1)
        out[below <= 1e-12 * spread[:, None]] = np.nan
    out[~np.isfinite(out)] = np.nan
    out[(n < 2) | (k < 2)] = np.nan
    return out


def icc(x: np.ndarray) -> dict[str, float | None]:
    """The six forms of a complete units x raters matrix (None where undefined: fewer than
    two units or raters, or a denominator that is not positive -- no variation between
    units, or the raters varying less than the residual allows)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        return dict.fromkeys(FORMS)
    values = from_sums(unit_terms(x).sum(axis=0))[0]
    return {f: (None if np.isnan(v) else float(v)) for f, v in zip(FORMS, values, strict=True)}

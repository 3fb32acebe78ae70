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

Intervals (:func:`f_intervals`) are McGraw & Wong's (1996, Table 7) F-based 95% intervals,
each under its form's own model: ICC1/ICC1k one-way random (F = MSR/MSW on n-1 and n(k-1)
degrees of freedom), ICC3/ICC3k raters fixed (F = MSR/MSE on n-1 and (n-1)(k-1)), and
ICC2/ICC2k raters a random sample, with Satterthwaite's degrees of freedom v for the
mixture of MSC and MSE. The average forms' ends are the single forms' ends stepped up by
Spearman-Brown, L k / (1 + (k-1) L), which is algebraically McGraw & Wong's own formula.
A bootstrap over units would hold the raters fixed, and so under-covers ICC2 when the
raters are a sample (83% at 30 units and 70% at 100 in ``benchmarks/icc_coverage.py``).

McGraw & Wong's ICC2/ICC2k interval is liberal when a few raters differ widely: with 3
raters its lower end sits above the true value in 11% of simulated studies at 100 units
(17% at 300), because MSC has only k-1 degrees of freedom and Satterthwaite's v, worked
from the estimate itself, does not carry that. The tool therefore reports for ICC2/ICC2k
the generalized confidence interval (:func:`generalized_icc2`; Weerahandi 1993): each
variance component is rebuilt from its sum of squares over a chi-square pivot, the ICC
is formed from every rebuilt set, and the interval is the 2.5th and 97.5th percentiles.
It covers 94-96% in every design of the coverage script (3 raters, raters' sd 0 to 1, 30
to 300 units), and it is drawn from a fixed seed, so the same data give the same ends.
"""

from __future__ import annotations

import numpy as np

FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
#: what each form's interval assumes of the raters (said with the interval)
#: the interval method of each form: "F" (McGraw & Wong) or "GCI" (generalized)
INTERVAL_METHOD = {f: ("GCI" if f in ("ICC2", "ICC2k") else "F") for f in FORMS}
INTERVAL_MODEL = {
    "ICC1": "one-way random", "ICC1k": "one-way random",
    "ICC2": "raters a random sample", "ICC2k": "raters a random sample",
    "ICC3": "raters fixed", "ICC3k": "raters fixed",
}


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


def mean_squares(x: np.ndarray) -> tuple[float, float, float, float]:
    """MSR, MSC, MSE and MSW of a complete n x k matrix (n, k >= 2)."""
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    grand = x.mean()
    ssr = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ssc = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    sst = float(((x - grand) ** 2).sum())
    sse = max(sst - ssr - ssc, 0.0)
    ssw = max(sst - ssr, 0.0)
    return ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1)), ssw / (n * (k - 1))


def _ratio_bounds(f_obs: float, df1: float, df2: float, level: float) -> tuple[float, float]:
    """F_L = F_obs / F(1-a/2; df1, df2) and F_U = F_obs * F(1-a/2; df2, df1)."""
    from scipy.stats import f

    q = 1 - (1 - level) / 2
    return f_obs / float(f.ppf(q, df1, df2)), f_obs * float(f.ppf(q, df2, df1))


def _single_from_f(f_value: float, k: int) -> float:
    return (f_value - 1) / (f_value + k - 1)


def _average_from_f(f_value: float) -> float:
    return 1 - 1 / f_value


def intervals(x: np.ndarray, level: float = 0.95) -> dict[str, tuple[float, float] | None]:
    """The intervals the tool reports: McGraw & Wong's F-based intervals for ICC1/ICC1k
    and ICC3/ICC3k, the generalized intervals for ICC2/ICC2k (see the module's text)."""
    out = f_intervals(x, level)
    out.update(generalized_icc2(x, level))
    return out


def f_intervals(x: np.ndarray, level: float = 0.95) -> dict[str, tuple[float, float] | None]:
    """McGraw & Wong's (1996) F-based ``level`` intervals of the six forms of a complete
    units x raters matrix (None where the form or its interval is undefined: fewer than
    two units or raters, no residual or within-unit variation, a non-finite F)."""
    x = np.asarray(x, dtype=float)
    out: dict[str, tuple[float, float] | None] = dict.fromkeys(FORMS)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        return out
    n, k = x.shape
    msr, msc, mse, msw = mean_squares(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        if msw > 0 and msr > 0:
            fl, fu = _ratio_bounds(msr / msw, n - 1, n * (k - 1), level)
            out["ICC1"] = (_single_from_f(fl, k), _single_from_f(fu, k))
            out["ICC1k"] = (_average_from_f(fl), _average_from_f(fu))
        if mse > 0 and msr > 0:
            fl, fu = _ratio_bounds(msr / mse, n - 1, (n - 1) * (k - 1), level)
            out["ICC3"] = (_single_from_f(fl, k), _single_from_f(fu, k))
            out["ICC3k"] = (_average_from_f(fl), _average_from_f(fu))
        single = _icc2_interval(msr, msc, mse, n, k, level)
        if single is not None:
            low, high = single
            out["ICC2"] = single
            out["ICC2k"] = (low * k / (1 + (k - 1) * low), high * k / (1 + (k - 1) * high))
    for form, ends in out.items():
        if ends is not None and not all(np.isfinite(ends)):
            out[form] = None
    return out


def _icc2_interval(msr: float, msc: float, mse: float, n: int, k: int,
                   level: float) -> tuple[float, float] | None:
    """ICC2's interval: raters a random sample; Satterthwaite's v for a MSC + b MSE."""
    from scipy.stats import f

    below = msr + (k - 1) * mse + k * (msc - mse) / n
    if mse < 0 or msr <= 0 or below <= 0:
        return None
    rho = (msr - mse) / below
    if not -1 < rho < 1:
        return None
    a = k * rho / (n * (1 - rho))
    b = 1 + k * rho * (n - 1) / (n * (1 - rho))
    spread = (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
    if spread <= 0:
        return None
    v = (a * msc + b * mse) ** 2 / spread
    q = 1 - (1 - level) / 2
    f_low, f_high = float(f.ppf(q, n - 1, v)), float(f.ppf(q, v, n - 1))
    mixed = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_low * mse) / (f_low * mixed + n * msr)
    high = n * (f_high * msr - mse) / (mixed + n * f_high * msr)
    return low, high


#: pivots drawn for :func:`generalized_icc2` (the ends move by about .002 between seeds)
GCI_DRAWS = 20_000
#: the fixed seed of those pivots, so the same data always give the same interval
GCI_SEED = 1993


def generalized_icc2(x: np.ndarray, level: float = 0.95, draws: int = GCI_DRAWS,
                     seed: int = GCI_SEED) -> dict[str, tuple[float, float] | None]:
    """Generalized confidence intervals (Weerahandi 1993) of ICC2 and ICC2k of a complete
    units x raters matrix, raters a random sample: with SSR, SSC, SSE the two-way sums of
    squares and independent chi-square pivots W_R (n-1 df), W_C (k-1), W_E ((n-1)(k-1)),

        s_e = SSE / W_E,  s_u = max(0, (SSR / W_R - s_e) / k),  s_r = max(0, (SSC / W_C - s_e) / n)

    and the ICCs s_u / (s_u + s_r + s_e) and s_u / (s_u + (s_r + s_e) / k); the interval
    is their (1-level)/2 and (1+level)/2 quantiles. Variance components are cut at 0, so
    the ends lie in [0, 1] (an ICC2 near 0 gets a lower end of 0, where McGraw & Wong's may
    go negative). None where undefined (fewer than two units or raters, no variation at
    all)."""
    x = np.asarray(x, dtype=float)
    out: dict[str, tuple[float, float] | None] = {"ICC2": None, "ICC2k": None}
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        return out
    n, k = x.shape
    msr, msc, mse, _ = mean_squares(x)
    ssr, ssc, sse = msr * (n - 1), msc * (k - 1), mse * (n - 1) * (k - 1)
    rng = np.random.default_rng(seed)
    w_r = rng.chisquare(n - 1, draws)
    w_c = rng.chisquare(k - 1, draws)
    w_e = rng.chisquare((n - 1) * (k - 1), draws)
    s_e = sse / w_e
    s_u = np.maximum((ssr / w_r - s_e) / k, 0.0)
    s_r = np.maximum((ssc / w_c - s_e) / n, 0.0)
    tail = 100 * (1 - level) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        for form, noise in (("ICC2", s_r + s_e), ("ICC2k", (s_r + s_e) / k)):
            rho = s_u / (s_u + noise)
            rho = rho[np.isfinite(rho)]
            if len(rho) < draws // 2:
                continue
            low, high = np.percentile(rho, [tail, 100 - tail])
            out[form] = (float(low), float(high))
    return out

"""Coverage of the ICC intervals: how often each form's 95% interval holds the true value.

Simulated studies of n units rated by k raters: ICC1/ICC1k under the one-way random model
(x_ij = u_i + e_ij), ICC2/ICC2k and ICC3/ICC3k under the two-way random model with raters
drawn afresh for every study (x_ij = u_i + r_j + e_ij). The true values follow from the
variances: ICC1 = s_u^2 / (s_u^2 + s_e^2), ICC2 = s_u^2 / (s_u^2 + s_r^2 + s_e^2),
ICC3 = s_u^2 / (s_u^2 + s_e^2), the k forms the same with the raters' terms divided by k.

For each form and n the script prints the coverage of the interval the tool reports
(McGraw & Wong's F-based interval for ICC1/ICC3 and their k forms, the generalized
confidence interval for ICC2/ICC2k), of McGraw & Wong's F-based interval for every form,
and, for comparison, of a percentile bootstrap over units (which holds the raters fixed).
A well-calibrated 95% interval covers 93-97% of the time here (2,000 studies: a standard
error of about half a point).

Measured (2,000 studies, 3 raters, sd units/raters/error 1/.6/.8): McGraw & Wong's
interval covers 93.8-95.7% for every form except ICC2/ICC2k, 94.4% at 30 units but 89.8%
at 100: its lower end lies above the true value in about one study in nine, because the
raters' mean square has only k-1 = 2 degrees of freedom and Satterthwaite's v, worked
from the estimate, does not carry that (with a raters' sd of 1 it falls to about 79%, at
300 units and sd .6 to about 83%; with sd .3 it covers 96%). The generalized interval
the tool reports for ICC2/ICC2k covers 94-96% in all of these; the unit bootstrap covers
ICC2 83% at 30 units and 70% at 100.

    python benchmarks/icc_coverage.py --studies 2000 --units 30 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sense7_coder.domain.agreement import icc
from sense7_coder.domain.agreement.bootstrap import multinomial_draws

SD_UNITS, SD_RATERS, SD_ERROR = 1.0, 0.6, 0.8


def truths(k: int) -> dict[str, float]:
    u, r, e = SD_UNITS ** 2, SD_RATERS ** 2, SD_ERROR ** 2
    return {"ICC1": u / (u + e), "ICC1k": u / (u + e / k),
            "ICC2": u / (u + r + e), "ICC2k": u / (u + (r + e) / k),
            "ICC3": u / (u + e), "ICC3k": u / (u + e / k)}


def study(rng: np.random.Generator, n: int, k: int, one_way: bool) -> np.ndarray:
    units = rng.normal(scale=SD_UNITS, size=(n, 1))
    raters = 0.0 if one_way else rng.normal(scale=SD_RATERS, size=(1, k))
    return units + raters + rng.normal(scale=SD_ERROR, size=(n, k))


def unit_bootstrap(x: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Percentile 95% ends (2 x forms) of a bootstrap over units."""
    weights = multinomial_draws(np.ones(len(x)), draws=draws, seed=seed)
    values = icc.from_sums(weights @ icc.unit_terms(x))
    return np.nanpercentile(values, [2.5, 97.5], axis=0)


def _holds(ends: tuple[float, float] | None, t: float) -> int:
    return int(ends is not None and ends[0] <= t <= ends[1])


def coverage(studies: int, n: int, k: int, seed: int,
             draws: int) -> dict[str, tuple[float, float, float]]:
    """Per form: the share of studies whose reported interval holds the truth, the same for
    McGraw & Wong's F-based interval, and for the unit bootstrap (NaN when draws = 0)."""
    rng = np.random.default_rng(seed)
    truth = truths(k)
    hits = {f: [0, 0, 0] for f in icc.FORMS}
    for s in range(studies):
        for one_way in (True, False):
            x = study(rng, n, k, one_way)
            forms = ("ICC1", "ICC1k") if one_way else ("ICC2", "ICC2k", "ICC3", "ICC3k")
            reported = icc.intervals(x)
            mcgraw = icc.f_intervals(x)
            boot = unit_bootstrap(x, draws, seed + s) if draws else None
            for form in forms:
                t = truth[form]
                hits[form][0] += _holds(reported[form], t)
                hits[form][1] += _holds(mcgraw[form], t)
                if boot is not None:
                    j = icc.FORMS.index(form)
                    hits[form][2] += int(boot[0, j] <= t <= boot[1, j])
    return {f: (h[0] / studies, h[1] / studies, h[2] / studies if draws else float("nan"))
            for f, h in hits.items()}


def main() -> None:
    global SD_RATERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--units", type=int, nargs="+", default=[30, 100])
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--bootstrap", type=int, default=200,
                        help="draws of the unit bootstrap compared (0: leave it out)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sd-raters", type=float, default=SD_RATERS,
                        help="spread of the raters' own offsets (units' sd is 1)")
    args = parser.parse_args()
    SD_RATERS = args.sd_raters
    print(f"{args.studies} studies per cell, {args.raters} raters; "
          f"sd units/raters/error = {SD_UNITS}/{SD_RATERS}/{SD_ERROR}")
    print(f"{'form':6} {'units':>5} {'reported':>9} {'McGraw&Wong':>12} {'unit bootstrap':>15}")
    for n in args.units:
        start = time.perf_counter()
        result = coverage(args.studies, n, args.raters, args.seed, args.bootstrap)
        for form in icc.FORMS:
            r_cov, f_cov, b_cov = result[form]
            boot = "-" if b_cov != b_cov else f"{100 * b_cov:.1f}%"
            print(f"{form:6} {n:5d} {100 * r_cov:8.1f}% {100 * f_cov:11.1f}% {boot:>15}")
        print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()

"""Agreement among the coders of one code (:func:`code_agreement`)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from ..measures import ALPHA, COHEN, FLEISS, PERCENT
from .alpha import alpha_from_counts, resolve_level, value_domain
from .alpha_draws import bootstrap_alpha
from .coefficients import chance_records, icc_records
from .kappa import (
    KAPPA_BASES,
    KAPPA_WEIGHT_BASIS,
    contingency,
    fleiss_kappa,
    kappa_from_table,
    percent_agreement,
)
from .pairs_bootstrap import pair_intervals
from .progress import CancelFn, ProgressFn, Steps
from .ratings import Level, Ratings, prepare_ratings, scale_text
from .records import APPLICABILITY, AgreementRecord, too_many_pairs, undefined


def kappa_weights(kind: str) -> tuple[str, ...]:
    """Unweighted kappa for every code; linear and quadratic as well for ordinal codes."""
    return ("none", "linear", "quadratic") if kind == "ordinal" else ("none",)


def steps_for_code(bootstrap: int) -> int:
    """Units of progress one call of the coder figures takes (one per bootstrap draw + 1)."""
    return max(bootstrap, 0) + 1


def alpha_record(
    ratings: Ratings, rows: np.ndarray, *, level: str, bootstrap: int, seed: int | None,
    steps: Steps, ci: str = "percentile",
) -> AgreementRecord:
    """Krippendorff's alpha of all raters in ``ratings`` with its bootstrap interval.

    ``rows`` are the pairable rows of the ratings' value counts. Always advances
    ``steps`` by ``bootstrap`` (drawn or not).
    """
    code, coders = ratings.code, list(ratings.coders)
    domain = value_domain(ratings.scale, level, code)
    n_units, n_values = int(rows.shape[0]), int(rows.sum())
    basis = f"{level} alpha; value domain = declared scale {scale_text(ratings.scale)}"
    if n_units == 0:
        steps.advance(max(bootstrap, 0))
        return undefined(code, ALPHA, coders, "no unit has values from two raters", level=level)
    value = alpha_from_counts(rows, domain, level)
    if value is None:
        steps.advance(max(bootstrap, 0))
        return undefined(
            code, ALPHA, coders,
            "no variation: every pairable value is the same level, so expected "
            "disagreement is zero",
            level=level, n_units=n_units, n_values=n_values,
        )
    record = AgreementRecord(code, ALPHA, level, None, coders, value, n_units, n_values, note=basis)
    if bootstrap > 0:
        record.set_interval(
            bootstrap_alpha(rows, domain, level, draws=bootstrap, seed=seed, steps=steps,
                            method=ci, estimate=value),
            seed,
        )
    return record


def kappa_levels(ratings: Ratings, basis: str) -> tuple[np.ndarray | None, str]:
    """The values kappa's weights are built on (None: positions) and the basis in words."""
    if basis not in KAPPA_BASES:
        raise ValueError(f"kappa weights must be on one of {', '.join(KAPPA_BASES)}, "
                         f"got {basis!r}")
    if basis == "positions":
        return None, KAPPA_WEIGHT_BASIS["positions"]
    try:
        return (value_domain(ratings.scale, "interval", ratings.code).astype(float),
                KAPPA_WEIGHT_BASIS["values"])
    except ValueError:
        return None, "weights on the levels' positions: the levels are not numbers"


def kappa_records(
    ratings: Ratings, a: str, b: str, weights: Sequence[str], *, bootstrap: int = 0,
    seed: int | None = 0, steps: Steps | None = None, ci: str = "percentile",
    kappa_basis: str = "positions",
) -> list[AgreementRecord]:
    """Cohen's kappa of raters ``a`` and ``b`` over the units both rated, per weighting,
    each defined one with a bootstrap 95% interval over those units (``bootstrap``
    draws, ``seed``; 0 draws = no interval). ``steps`` is asked for cancellation only.
    ``kappa_basis``: weights on the levels' 'positions' or (numeric levels) 'values'."""
    x, y = ratings.pair(a, b)
    n = len(x)
    table = contingency(x, y, ratings.k)
    levels, basis_text = kappa_levels(ratings, kappa_basis)
    values = {w: kappa_from_table(table, w, levels) for w in weights}
    defined = [w for w in weights if values[w] is not None]
    intervals = (
        pair_intervals(table, defined, draws=bootstrap, seed=seed, steps=steps, method=ci,
                       values=levels)
        if bootstrap > 0 and defined else {}
    )
    records = []
    for w in weights:
        note = "units both raters rated"
        if w != "none":
            note += f"; {w} weights over declared scale {scale_text(ratings.scale)}; " \
                    f"{basis_text}"
        value = values[w]
        if value is None:
            why = "no unit rated by both" if n == 0 else (
                "no chance disagreement: both raters used a single level"
            )
            note = f"{why}; {note}"
        record = AgreementRecord(ratings.code, COHEN, None, w, [a, b], value, n, 2 * n, note=note)
        if w in intervals:
            record.set_interval(intervals[w], seed)
        records.append(record)
    return records


def percent_record(ratings: Ratings, rows: np.ndarray) -> AgreementRecord:
    """Percent agreement over the pairable rows of the value counts."""
    value = percent_agreement(rows)
    note = "mean over pairable units of the share of agreeing pairs of values (exact match)"
    if value is None:
        note = f"no unit has values from two raters; {note}"
    return AgreementRecord(
        ratings.code, PERCENT, None, None, list(ratings.coders), value,
        int(rows.shape[0]), int(rows.sum()), note=note,
    )


def fleiss_record(ratings: Ratings, rows: np.ndarray) -> AgreementRecord:
    """Fleiss' kappa over the pairable rows of the value counts; defined only when every
    pairable unit has the same number of raters."""
    coders, code = list(ratings.coders), ratings.code
    n_units, n_values = int(rows.shape[0]), int(rows.sum())
    if n_units == 0:
        return undefined(code, FLEISS, coders, "no unit has values from two raters")
    per_unit = rows.sum(axis=1)
    lo, hi = int(per_unit.min()), int(per_unit.max())
    if lo != hi:
        return undefined(
            code, FLEISS, coders,
            f"not every unit has the same number of raters ({lo} to {hi}); Fleiss' kappa "
            "needs a fixed number per unit - use alpha",
            n_units=n_units, n_values=n_values,
        )
    value = fleiss_kappa(rows)
    note = f"every pairable unit rated by {lo} raters"
    if value is None:
        note = f"no variation: a single level throughout; {note}"
    return AgreementRecord(code, FLEISS, None, None, coders, value, n_units, n_values, note=note)


def coder_records(
    ratings: Ratings, *, kind: str, level: str, bootstrap: int, seed: int | None, steps: Steps,
    ci: str = "percentile", kappa_basis: str = "positions",
) -> list[AgreementRecord]:
    """All figures among the raters in ``ratings``; advances ``steps`` by steps_for_code.

    ``ci``: 'percentile' or 'bca', for every interval; ``kappa_basis`` see
    :func:`kappa_records`."""
    steps.check()
    rows = ratings.pairable_counts()
    records = [
        alpha_record(ratings, rows, level=level, bootstrap=bootstrap, seed=seed, steps=steps,
                     ci=ci),
        percent_record(ratings, rows),
    ]
    crowd = too_many_pairs(ratings.coders)
    if crowd:
        records.append(undefined(ratings.code, COHEN, list(ratings.coders), crowd,
                                 weights="none"))
    for a, b in [] if crowd else combinations(ratings.coders, 2):
        records.extend(kappa_records(ratings, a, b, kappa_weights(kind), bootstrap=bootstrap,
                                     seed=seed, steps=steps, ci=ci, kappa_basis=kappa_basis))
    records.append(fleiss_record(ratings, rows))
    records.extend(chance_records(ratings, kind=kind, bootstrap=bootstrap, seed=seed, ci=ci,
                                  steps=steps))
    if kind == "ordinal" and level != "nominal" and all(
        isinstance(v, int | float | np.integer | np.floating) for v in ratings.scale
    ):
        records.extend(icc_records(ratings, bootstrap=bootstrap, seed=seed, ci=ci, steps=steps))
    steps.advance()
    return records


def code_agreement(
    frame: pd.DataFrame,
    *,
    code: str,
    kind: str,
    scale: Sequence[Level],
    level: str | None = None,
    bootstrap: int = 1000,
    seed: int | None = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    ci: str = "percentile",
    kappa_basis: str = "positions",
) -> list[AgreementRecord]:
    """Agreement among all raters of one code.

    ``frame`` has columns unit, coder, value (NaN/None = no value). ``kind`` is
    ordinal | nominal | binary and ``scale`` the declared levels in order. Returns:

    * Krippendorff's alpha at ``level`` (default ordinal for ordinal codes, else
      nominal) with a bootstrap 95% interval over units (``bootstrap`` draws, ``seed``;
      0 draws = no interval);
    * percent agreement (see :func:`.kappa.percent_agreement`);
    * Cohen's kappa for every pair of raters: unweighted, plus linear and quadratic
      weighted for ordinal codes, weights over the declared scale, each with a bootstrap
      95% interval over the units the pair both rated (same draws and seed);
    * Fleiss' kappa (undefined, with a note, unless every pairable unit has the same
      number of raters);
    * Gwet's AC1 and Brennan–Prediger (any number of raters, missing ratings as Gwet
      2014), plus Gwet's AC2 with linear and quadratic weights for ordinal codes;
    * for ordinal codes with numeric levels (unless ``level`` is nominal), the six ICC
      forms over the units every rater rated.

    ``ci`` is the interval method ('percentile' or 'bca') of every interval;
    ``kappa_basis`` builds weighted kappa's weights on the levels' 'positions' (equal
    steps) or their 'values' (as AC2, alpha and ICC), and each kappa's note says which.

    Units and coders may be any hashable ids. For millions of rows, integer unit ids
    and a Categorical coder column are several times faster to read than text (see
    ``benchmarks/bench_agreement.py``); the figures are the same.

    ``progress(done, total)`` is called as work proceeds (counted in alpha's draws; the
    pairs' intervals are computed all draws at once and take a small fraction of that
    time); ``cancel()`` is asked inside the bootstrap loops and :class:`~sense7_coder.domain.errors.Cancelled` raised when
    it answers True.
    """
    level = resolve_level(kind, level, code)
    ratings = prepare_ratings(frame, code=code, scale=scale)
    steps = Steps(steps_for_code(bootstrap), progress, cancel)
    records = coder_records(
        ratings, kind=kind, level=level, bootstrap=bootstrap, seed=seed, steps=steps, ci=ci,
        kappa_basis=kappa_basis,
    )
    steps.finish()
    return records


def applicability_record(
    frame: pd.DataFrame,
    *,
    code: str,
    bootstrap: int = 1000,
    seed: int | None = 0,
    ci: str = "percentile",
    cancel: CancelFn | None = None,
) -> AgreementRecord:
    """Alpha on whether a code applies: ``frame`` holds every coding (unit, coder, value 1
    = a level given, 0 = not applicable); nominal alpha over those two categories, with
    ``level`` 'applicability'. Coders who disagree on whether a dimension applies show
    here, while the figures on the code's values leave "not applicable" out."""
    ratings = prepare_ratings(frame, code=code, scale=[0, 1])
    steps = Steps(max(bootstrap, 0) + 1, None, cancel)
    rows = ratings.pairable_counts()
    record = alpha_record(ratings, rows, level="nominal", bootstrap=bootstrap, seed=seed,
                          steps=steps, ci=ci)
    record.level = APPLICABILITY
    basis = ("nominal alpha on applicable vs not applicable over every coding of the code "
             "(a level given = applicable)")
    interval = record.note.split("; 95% CI", 1)
    record.note = basis if len(interval) == 1 else f"{basis}; 95% CI{interval[1]}"
    if record.value is None and rows.shape[0]:
        record.note = f"no variation: every coding is {'not ' if rows[:, 1].sum() == 0 else ''}" \
                      f"applicable; {basis}"
    elif record.value is None:
        record.note = f"no unit has codings from two coders; {basis}"
    return record

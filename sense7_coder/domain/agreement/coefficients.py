"""Records for the coefficients beyond alpha and kappa: the chance-corrected ones of the
measures table -- Gwet's AC1/AC2, Brennan–Prediger (:func:`chance_records`) -- with a
bootstrap interval over units, and the intraclass correlation (:func:`icc_records`), with
McGraw & Wong's F-based intervals.

The chance-corrected coefficients work through per-unit terms (see :mod:`.chance`): units
with the same ratings are grouped, one multinomial draw over the groups stands for a
resample of the units, and every draw's coefficient is computed at once from weighted sums.
"""

from __future__ import annotations

import numpy as np

from ..measures import ICC, NOMINAL, ORDINAL, Measure, chance_measures
from . import chance, icc
from .bootstrap import Interval, interval_method, multinomial_draws, summarise, unique_rows
from .progress import Steps
from .ratings import Ratings, scale_text
from .records import AgreementRecord, undefined


def _interval(
    terms: np.ndarray, freq: np.ndarray, fn: object, estimate: float, *, draws: int,
    seed: int | None, method: str,
) -> Interval:
    """Bootstrap interval of ``fn(sums)`` (sums of per-pattern ``terms`` weighted by draw)."""
    method = interval_method(method, int(freq.sum()))
    weights = multinomial_draws(freq, draws=draws, seed=seed)
    values = fn(weights @ terms)  # type: ignore[operator]
    jack = None
    if method == "bca":
        total = freq @ terms
        jack = (fn(total[None, :] - terms), freq.astype(float))  # type: ignore[operator]
    return summarise(values, estimate, method=method, jackknife=jack)


def _kind_level(kind: str) -> str:
    """The level of measurement a code's kind is counted under in a row's ``levels``."""
    return ORDINAL if kind == "ordinal" else NOMINAL


def _chance_plan(kind: str) -> list[tuple[Measure, str | None]]:
    """(measure, weights) of every chance-corrected figure of a code of ``kind``, from the
    measures table (one figure per weighting of a weighted measure)."""
    level = _kind_level(kind)
    return [(m, w) for m in chance_measures() if level in m.levels
            for w in (m.weights or (None,))]


def chance_records(
    ratings: Ratings, *, kind: str, bootstrap: int, seed: int | None, ci: str = "percentile",
    steps: Steps | None = None,
) -> list[AgreementRecord]:
    """Every chance-corrected coefficient of the measures table (a row with a ``chance``
    model) that covers the code's kind -- Gwet's AC1, Brennan–Prediger and, for ordinal
    codes, Gwet's AC2 with linear and quadratic weights over the declared scale -- all
    raters in ``ratings``, every unit with a rating (Gwet 2014: agreement over units with
    two or more ratings, category shares over all rated units). A measure defined for at
    most ``raters`` raters is reported undefined, saying so, when there are more."""
    counts = ratings.value_counts()
    counts = counts[counts.sum(axis=1) >= 1]
    pairable = counts[counts.sum(axis=1) >= 2]
    n_units, n_values = int(pairable.shape[0]), int(pairable.sum())
    coders = list(ratings.coders)
    # units with the same counts contribute the same terms: work on the distinct rows
    patterns, freq = unique_rows(counts)
    # AC2 weighs the level values; an ordinal scale of words has only its positions
    numeric = all(isinstance(v, int | float | np.integer | np.floating)
                  and not isinstance(v, bool) for v in ratings.scale)
    weighed = list(ratings.scale) if numeric else list(range(1, ratings.k + 1))
    basis = "the level values" if numeric else "the positions (the levels are not numbers)"
    records = []
    for m, weights in _chance_plan(kind):
        if steps is not None:
            steps.check()
        if m.raters and len(coders) > m.raters:
            records.append(undefined(
                ratings.code, m.key, coders,
                f"{m.name} compares {m.raters} raters, here {len(coders)}: choose "
                f"{m.raters} coders, or read alpha for more", weights=weights))
            continue
        w = chance.weight_matrix(weighed if weights else ratings.k, weights or "none")
        shares = chance.model(m.chance).words.format(rated=int(counts.shape[0]), q=ratings.k)
        note = f"units with two or more ratings ({n_units}); {shares}"
        if weights:
            note += (f"; {weights} weights over {basis} of declared scale "
                     f"{scale_text(ratings.scale)}")
        terms = chance.unit_terms(patterns, w)
        value = None
        if n_units:
            estimate = float(chance.from_sums(freq @ terms, w, m.chance)[0])
            value = estimate if np.isfinite(estimate) else None
        if value is None:
            why = ("no unit has values from two raters" if n_units == 0
                   else "undefined: chance agreement is 1")
            note = f"{why}; {note}"
        record = AgreementRecord(ratings.code, m.key, None, weights, coders, value, n_units,
                                 n_values, note=note)
        if value is not None and bootstrap > 0:

            def fn(sums: np.ndarray, w: np.ndarray = w, method: str = m.chance) -> np.ndarray:
                return chance.from_sums(sums, w, method)

            record.set_interval(_interval(terms, freq, fn, value, draws=bootstrap, seed=seed,
                                          method=ci), seed)
        records.append(record)
    return records


#: how the ICC intervals are named in a record's ``ci_method``
#: how a record's note names each ICC interval method
ICC_CI_NAMES = {"F": "F-based (McGraw & Wong 1996)",
                "GCI": "generalized confidence interval (Weerahandi 1993)"}


def _icc_undefined_reason(value: float | None, x: np.ndarray, n_coders: int) -> str | None:
    """Why an ICC form cannot be reported (None: it can)."""
    n_units = x.shape[0]
    if n_coders < 2:
        return "fewer than two raters"
    if n_units < 2:
        return "fewer than two complete units"
    if value is None:
        if np.ptp(x.mean(axis=1)) < 1e-9:
            return "no variation between units"
        return ("its denominator is not positive (the raters vary less than the residual), "
                "so it cannot be read as an ICC")
    if not -1 <= value <= 1:
        return (f"the ANOVA estimate is {value:.3f}, outside [-1, 1], which no correlation can "
                "be: the units differ less than the raters disagree within them (too few "
                "units or too little spread between them to estimate an ICC)")
    return None


#: ICC1 and ICC1k's caution: the units all coders rated form a crossed design
ICC1_CROSSED = ("crossed design: every coder rated every unit, while ICC1's one-way model "
                "assumes each unit rated by other, randomly drawn coders; a difference in "
                "the coders' levels counts as error, and its interval held the true value "
                "in only 25-72% of simulated crossed studies where coders differ in level; "
                "read ICC2 (coders a random sample) or ICC3 (these coders)")


def icc_records(
    ratings: Ratings, *, bootstrap: int, seed: int | None, ci: str = "percentile",
    steps: Steps | None = None,
) -> list[AgreementRecord]:
    """The six ICC forms over the declared level values (numeric scales only) of the
    units every rater in ``ratings`` rated; units with a missing rating are dropped and
    counted in the note.

    Intervals (when ``bootstrap`` > 0 asks for intervals) are McGraw & Wong's F-based
    95% intervals for ICC1/ICC3 and their k forms and generalized intervals for ICC2/ICC2k
    (:func:`.icc.intervals`), not a bootstrap: resampling units holds the raters fixed,
    which ICC1 and ICC2 do not assume. ``seed`` and ``ci`` do not apply.
    An estimate outside [-1, 1] is reported as undefined with the reason."""
    del seed, ci  # the F-based intervals need neither
    coders = list(ratings.coders)
    pos = ratings.positions
    rated_any = (pos >= 0).any(axis=0)
    complete = (pos >= 0).all(axis=0)
    dropped = int((rated_any & ~complete).sum())
    values = np.asarray(ratings.scale, dtype=float)
    x = values[pos[:, complete].T] if complete.any() else np.empty((0, len(coders)))
    n_units = int(x.shape[0])
    note = (f"ICC over the {n_units} units all {len(coders)} coders rated, level values "
            f"{scale_text(ratings.scale)}; {dropped} units with a missing rating dropped")
    estimates = icc.icc(x) if n_units else dict.fromkeys(icc.FORMS)
    if steps is not None:
        steps.check()
    intervals = icc.intervals(x) if bootstrap > 0 and n_units else dict.fromkeys(icc.FORMS)
    records = []
    for form in icc.FORMS:
        value = estimates[form]
        text = note
        why = _icc_undefined_reason(value, x, len(coders))
        if why is not None:
            value = None
            text = f"undefined: {why}; {note}"
        record = AgreementRecord(ratings.code, ICC, None, None, coders, value, n_units,
                                 n_units * len(coders), note=text, form=form)
        if form in ("ICC1", "ICC1k") and n_units and len(coders) >= 2:
            record.warning = ICC1_CROSSED
        ends = intervals[form]
        if value is not None and ends is not None:
            low, high = ends
            record.ci_low, record.ci_high = max(low, -1.0), high
            record.ci_method = icc.INTERVAL_METHOD[form]
            record.note = f"{text}; 95% CI: {ICC_CI_NAMES[record.ci_method]}, " \
                          f"{icc.INTERVAL_MODEL[form]}"
            if low < -1:
                record.note += f" (its lower end, {low:.3f}, cut to -1, where an ICC ends)"
        elif value is not None and bootstrap > 0:
            record.note = (f"{text}; no interval: the raters agree exactly within units "
                           "(no residual variation), so the F ratio is infinite")
        records.append(record)
    return records

"""Each rater against a reference rater: the users' own ratings or the consensus."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..measures import ALPHA, COHEN, SPEARMAN
from .alpha import resolve_level
from .engine import alpha_record, kappa_records, steps_for_code
from .kappa import contingency, spearman
from .pairs_bootstrap import pair_intervals
from .progress import CancelFn, ProgressFn, Steps
from .ratings import Level, Ratings, prepare_ratings
from .records import USERS_RATER, AgreementRecord, undefined


def reference_weights(kind: str) -> tuple[str, ...]:
    """Kappa weights against a reference: linear and quadratic for ordinal codes."""
    return ("linear", "quadratic") if kind == "ordinal" else ("none",)


def steps_for_reference(n_others: int, bootstrap: int) -> int:
    return n_others * steps_for_code(bootstrap)


def spearman_record(
    ratings: Ratings, a: str, b: str, *, bootstrap: int = 0, seed: int | None = 0,
    steps: Steps | None = None, ci: str = "percentile",
) -> AgreementRecord:
    """Spearman's rho of the scale positions of the units both raters rated, with a
    bootstrap 95% interval over those units when defined (``bootstrap`` draws, ``seed``;
    the same resamples as the pair's kappas)."""
    x, y = ratings.pair(a, b)
    value = spearman(x, y)
    note = "units both raters rated; ranks of the declared scale order"
    if value is None:
        note = f"undefined (fewer than two units or no variation); {note}"
    record = AgreementRecord(ratings.code, SPEARMAN, None, None, [a, b], value, len(x),
                             2 * len(x), note=note)
    if value is not None and bootstrap > 0:
        interval = pair_intervals(contingency(x, y, ratings.k), [], spearman=True,
                                  draws=bootstrap, seed=seed, steps=steps,
                                  method=ci)[SPEARMAN]
        record.set_interval(interval, seed)
    return record


def reference_records(
    ratings: Ratings,
    *,
    reference: str,
    others: Sequence[str],
    kind: str,
    level: str,
    bootstrap: int,
    seed: int | None,
    steps: Steps,
    ci: str = "percentile",
    alpha_only: bool = False,
    kappa_basis: str = "positions",
) -> list[AgreementRecord]:
    """Alpha, kappa and (ordinal codes) Spearman, with intervals, of each of ``others``
    against ``reference`` (``alpha_only``: alpha alone); advances ``steps`` by
    steps_for_reference."""
    records: list[AgreementRecord] = []
    weights = reference_weights(kind)
    for other in others:
        steps.check()
        pair = [other, reference]
        if reference not in ratings.coders:
            note = f"'{reference}' has no ratings for this code"
            records.append(undefined(ratings.code, ALPHA, pair, note, level=level))
            if alpha_only:
                steps.advance(steps_for_code(bootstrap))
                continue
            records.extend(undefined(ratings.code, COHEN, pair, note, weights=w) for w in weights)
            if kind == "ordinal":
                records.append(undefined(ratings.code, SPEARMAN, pair, note))
            steps.advance(steps_for_code(bootstrap))
            continue
        both = ratings.subset(pair)
        records.append(
            alpha_record(both, both.pairable_counts(), level=level,
                         bootstrap=bootstrap, seed=seed, steps=steps, ci=ci)
        )
        if alpha_only:
            steps.advance()
            continue
        records.extend(kappa_records(both, other, reference, weights, bootstrap=bootstrap,
                                     seed=seed, steps=steps, ci=ci, kappa_basis=kappa_basis))
        if kind == "ordinal":
            records.append(spearman_record(both, other, reference, bootstrap=bootstrap,
                                           seed=seed, steps=steps, ci=ci))
        steps.advance()
    return records


def rater_vs_reference(
    frame: pd.DataFrame,
    *,
    code: str,
    kind: str,
    scale: Sequence[Level],
    reference: str = USERS_RATER,
    level: str | None = None,
    bootstrap: int = 1000,
    seed: int | None = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    ci: str = "percentile",
) -> list[AgreementRecord]:
    """Every other rater in ``frame`` against the ``reference`` rater.

    ``frame`` is the long table of :func:`.engine.code_agreement` in which the
    reference (``'users'`` for the users' own ratings, or ``'consensus'``) is one more
    coder. For each other rater: alpha of that rater and the reference only, Cohen's
    kappa (linear and quadratic weighted over the declared scale for ordinal codes,
    unweighted otherwise) and, for ordinal codes, Spearman's rho -- each with a
    bootstrap 95% interval over the units both rated (``bootstrap`` draws, ``seed``). When the reference has no ratings the figures are undefined, with a note.
    """
    level = resolve_level(kind, level, code)
    ratings = prepare_ratings(frame, code=code, scale=scale)
    others = [c for c in ratings.coders if c != reference]
    steps = Steps(steps_for_reference(len(others), bootstrap), progress, cancel)
    records = reference_records(
        ratings, reference=reference, others=others, kind=kind, level=level,
        bootstrap=bootstrap, seed=seed, steps=steps, ci=ci,
    )
    steps.finish()
    return records

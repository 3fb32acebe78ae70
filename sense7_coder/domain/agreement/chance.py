"""Chance-corrected agreement for any number of raters with missing ratings, in the
forms Gwet (2014) gives: Gwet's AC1/AC2, Brennan–Prediger, Fleiss' kappa and
Krippendorff's alpha with agreement weights.

All work on a units x categories count matrix ``r`` (``r[i, k]`` = raters who put unit
i in category k) and a q x q weight matrix ``w`` (1 on the diagonal; identity =
unweighted). With ``r_i`` the raters of unit i, ``r*_ik = sum_l w_kl r_il``, and the
units holding at least two ratings (n'):

    pa = 1/n' * sum_{i: r_i >= 2} sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))
    pi_k = 1/n * sum_{i: r_i >= 1} r_ik / r_i

    gwet (AC1/AC2):                 pe = T_w / (q (q - 1)) * sum_k pi_k (1 - pi_k)
                                    (T_w = sum of w)
    uniform (Brennan–Prediger):     pe = T_w / q^2
    pooled (Fleiss in Gwet's form): pe = sum_kl w_kl pi_k pi_l
    pooled_pairable (Scott's pi):   the same, pi_k over the n' units only

    coefficient = (pa - pe) / (1 - pe)

Every statistic is a sum over units, so a bootstrap over units is a set of weighted sums
(:func:`unit_terms` and :func:`from_sums`), which lets all draws be computed at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..measures import CHANCE_GWET, CHANCE_POOLED, CHANCE_POOLED_PAIRABLE, CHANCE_UNIFORM

#: the chance models by the name a measure's row gives (``Measure.chance``)
GWET = CHANCE_GWET
UNIFORM = CHANCE_UNIFORM
POOLED = CHANCE_POOLED
POOLED_PAIRABLE = CHANCE_POOLED_PAIRABLE


def weight_matrix(scale: Sequence[Any] | int, weights: str) -> np.ndarray:
    """Agreement weights over a scale (Gwet 2014, ch. 3): ``none`` (identity), ``linear``
    ``1 - |k-l| / (max-min)``, ``quadratic`` ``1 - (k-l)^2 / (max-min)^2`` over the level
    values, ``ordinal`` (by ranks, from the number of levels between), ``ratio``
    ``1 - ((k-l)/(k+l))^2 / max``. An int gives ``none`` weights over that many categories."""
    if isinstance(scale, int):
        if weights != "none":
            raise ValueError(f"{weights} weights need the scale's values")
        return np.eye(scale)
    x = np.asarray(list(scale), dtype=float) if weights != "none" else np.arange(len(scale))
    q = len(x)
    if weights == "none":
        return np.eye(q)
    d = x[:, None] - x[None, :]
    span = x.max() - x.min()
    if weights == "linear":
        return 1 - np.abs(d) / span
    if weights == "quadratic":
        return 1 - d ** 2 / span ** 2
    if weights == "ordinal":
        ranks = np.arange(q)
        m = np.abs(ranks[:, None] - ranks[None, :]) + 1
        t = m * (m - 1) / 2
        return 1 - t / t.max()
    if weights == "ratio":
        if (x <= 0).any():
            raise ValueError("ratio weights need levels above zero")
        t = (d / (x[:, None] + x[None, :])) ** 2
        return 1 - t / t.max()
    raise ValueError(f"unknown weights {weights!r}")


def unit_terms(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per unit: [agreement term, pairable (0/1), rated (0/1), r_ik / r_i for each k,
    the same for pairable units only (0 elsewhere)]."""
    r = np.asarray(counts, dtype=float)
    ri = r.sum(axis=1)
    rstar = r @ w.T
    pairable = ri >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        agree = np.where(pairable, (r * (rstar - 1)).sum(axis=1) / (ri * (ri - 1)), 0.0)
        share = np.where(ri[:, None] > 0, r / ri[:, None], 0.0)
    return np.column_stack([agree, pairable, ri > 0, share, share * pairable[:, None]])


def _gwet(pi: np.ndarray, w: np.ndarray) -> np.ndarray:
    q = w.shape[0]
    return np.asarray(w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1))


def _uniform(pi: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.full(len(pi), w.sum() / w.shape[0] ** 2)


def _pooled(pi: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.asarray(np.einsum("dk,kl,dl->d", pi, w, pi))


class ChanceModel(NamedTuple):
    """How a chance-corrected coefficient expects agreement by chance."""

    #: pe of each draw from the categories' shares pi (draws x categories) and weights w
    pe: Callable[[np.ndarray, np.ndarray], np.ndarray]
    #: the units the shares are taken over: every rated unit ('rated', as Gwet 2014) or
    #: only those with two or more ratings ('pairable')
    shares: str
    #: the shares in words, for a figure's note
    words: str


#: the chance models by the name a measure's row gives (``Measure.chance``)
MODELS: dict[str, ChanceModel] = {
    GWET: ChanceModel(_gwet, "rated", "category shares over all {rated} rated units (Gwet 2014)"),
    UNIFORM: ChanceModel(_uniform, "rated", "a uniform guess over the {q} declared levels"),
    POOLED: ChanceModel(_pooled, "rated",
                        "category shares over all {rated} rated units (Gwet 2014)"),
    POOLED_PAIRABLE: ChanceModel(_pooled, "pairable",
                                 "category shares pooled over the raters on those units "
                                 "(Scott 1955)"),
}


def model(method: str) -> ChanceModel:
    """The chance model of a name (ValueError for an unknown one)."""
    if method not in MODELS:
        raise ValueError(f"unknown chance model {method!r}")
    return MODELS[method]


def from_sums(sums: np.ndarray, w: np.ndarray, method: str) -> np.ndarray:
    """Coefficient from column sums of :func:`unit_terms` (rows = draws); NaN if undefined."""
    sums = np.atleast_2d(sums)
    q = w.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = sums[:, 0] / sums[:, 1]
        chance = model(method)
        pi = (sums[:, 3 + q:] / sums[:, 1:2] if chance.shares == "pairable"
              else sums[:, 3:3 + q] / sums[:, 2:3])
        pe = chance.pe(pi, w)
        value = (pa - pe) / (1 - pe)
    value[~np.isfinite(value)] = np.nan
    return value


def chance_corrected(counts: np.ndarray, w: np.ndarray, method: str) -> float | None:
    """A chance-corrected coefficient of ``counts`` under chance model ``method``: Gwet's
    AC1/AC2 (``gwet``), Brennan–Prediger (``uniform``) or Fleiss in Gwet's form
    (``pooled``); None when undefined (no unit with two ratings, or pe = 1)."""
    terms = unit_terms(counts, w)
    if terms[:, 1].sum() == 0:
        return None
    value = float(from_sums(terms.sum(axis=0), w, method)[0])
    return value if np.isfinite(value) else None


def weighted_alpha(counts: np.ndarray, w: np.ndarray) -> float | None:
    """Krippendorff's alpha with agreement weights ``w`` (distance 1 - w), Gwet's (2014)
    form: over the units with two or more ratings, with the small-sample correction."""
    r = np.asarray(counts, dtype=float)
    r = r[r.sum(axis=1) >= 2]
    if r.shape[0] == 0:
        return None
    ri = r.sum(axis=1)
    rbar = ri.mean()
    n = r.shape[0]
    eps = 1 / ri.sum()
    pa_prime = ((r * (r @ w.T - 1)).sum(axis=1) / (rbar * (ri - 1))).sum() / n
    pa = (1 - eps) * pa_prime + eps
    pi = (r / rbar).mean(axis=0)
    pe = float(pi @ w @ pi)
    if pe >= 1:
        return None
    return float((pa - pe) / (1 - pe))

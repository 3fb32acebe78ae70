"""Chance-corrected agreement for fixed designs: Cohen's, weighted and Fleiss' kappa,
plus raw percent agreement and Spearman's rho.

Everything works on scale *positions* (0..k-1 in the declared scale), so the category
set is the declared one, not only the categories a pair happened to use. For weighted
kappa this matters: linear and quadratic weights over the declared 1..5 scale differ
from weights over the observed categories (what R's irr and scikit-learn do by
default) whenever a level goes unused. The weights are built on the positions (equal
steps) by default, or on the level values (``values``), as Gwet's AC2, alpha and ICC
are; the two differ on an unequally spaced scale such as 0, 1, 2, 5, 10.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from ..agreement_settings import KAPPA_BASES as KAPPA_BASES  # defined with the choices

WEIGHTS = ("none", "linear", "quadratic")

#: the basis in words, said with every weighted kappa
KAPPA_WEIGHT_BASIS = {
    "positions": ("weights on the levels' positions (equal steps), not their values; AC2, "
                  "alpha and ICC use the level values"),
    "values": "weights on the level values, as AC2, alpha and ICC",
}

def disagreement_weights(k: int, weights: str, values: np.ndarray | None = None) -> np.ndarray:
    """k x k disagreement weights on scale positions i, j (or on the levels' ``values``
    x_i, x_j when given, with x_max - x_min in place of k - 1).

    none: 0 on the diagonal, 1 elsewhere; linear: |i - j| / (k - 1);
    quadratic: (i - j)^2 / (k - 1)^2.
    """
    i, j = np.indices((k, k))
    if weights == "none":
        return (i != j).astype(float)
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, got {weights!r}")
    if values is None:
        d, span = (i - j).astype(float), float(k - 1)
    else:
        x = np.asarray(values, dtype=float)
        d, span = x[:, None] - x[None, :], float(x.max() - x.min())
    if weights == "linear":
        return np.abs(d) / span
    return (d / span) ** 2


def contingency(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """k x k table of paired positions: rows = first rater, columns = second."""
    return np.bincount(a.astype(np.int64) * k + b, minlength=k * k).reshape(k, k)


def kappa_from_table(table: np.ndarray, weights: str = "none",
                     values: np.ndarray | None = None) -> float | None:
    """Cohen's kappa (weighted with disagreement weights w) of a k x k contingency table.

    kappa_w = 1 - sum(w * observed) / sum(w * expected), where expected is the product of
    the table's margins over n. Undefined (None) with no pairs, or when chance
    disagreement is zero (both raters used one single level).
    """
    n = table.sum()
    if n == 0:
        return None
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    w = disagreement_weights(table.shape[0], weights, values)
    chance = float((w * expected).sum())
    if chance <= 0:
        return None
    return 1.0 - float((w * table).sum()) / chance


def cohen_kappa(a: np.ndarray, b: np.ndarray, k: int, weights: str = "none") -> float | None:
    """Cohen's kappa of paired positions ``a``, ``b`` on a k-level scale."""
    return kappa_from_table(contingency(a, b, k), weights)


def percent_agreement(counts: np.ndarray) -> float | None:
    """Mean share of agreeing pairs of values per pairable unit (exact match).

    For a unit with m values of which n_c fall on level c, the share is
    sum_c n_c (n_c - 1) / (m (m - 1)): the proportion of pairs of its values that agree.
    Units with fewer than two values are left out; each pairable unit weighs the same.
    With two coders this is the plain proportion of units on which they agree.
    """
    m = counts.sum(axis=1)
    keep = m >= 2
    if not keep.any():
        return None
    c, m = counts[keep].astype(float), m[keep].astype(float)
    return float(np.mean((c * (c - 1)).sum(axis=1) / (m * (m - 1))))


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa for a units x levels count matrix with the same m >= 2 per row.

    P_i = (sum_c n_ic^2 - m) / (m (m - 1)) is the agreement within unit i, P the mean of
    P_i; p_c the share of all values on level c and P_e = sum_c p_c^2.
    kappa = (P - P_e) / (1 - P_e); undefined when P_e = 1 (a single level throughout).
    The caller checks that every row has the same total.
    """
    if counts.shape[0] == 0:
        return None
    c = counts.astype(float)
    m = c[0].sum()
    p_i = ((c**2).sum(axis=1) - m) / (m * (m - 1))
    p_c = c.sum(axis=0) / c.sum()
    p_e = float((p_c**2).sum())
    if p_e >= 1.0:
        return None
    return (float(p_i.mean()) - p_e) / (1.0 - p_e)


def spearman(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's rank correlation of paired values (scipy); None if undefined."""
    if len(a) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = stats.spearmanr(a, b).statistic
    rho = float(rho)
    return rho if np.isfinite(rho) else None

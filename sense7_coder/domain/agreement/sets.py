"""Agreement on set-valued ratings (a coder gives a unit a set of labels, e.g. the tactics
found in one sentence): Jaccard and MASI distances (Passonneau 2006) and Krippendorff's
alpha with any distance between values.

alpha = 1 - D_o / D_e over the pairable units (two or more values), with
D_o = 1/n * sum_u 1/(m_u - 1) * sum_{i != j in u} d(v_i, v_j) and
D_e = 1/(n (n - 1)) * sum_{i != j} d(v_i, v_j) over all n pairable values.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np


def jaccard_distance(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """1 - |A and B| / |A or B| (two empty sets: 0)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return 0.0 if not union else 1.0 - len(sa & sb) / len(union)


def masi_distance(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """MASI distance (Passonneau 2006): 1 - Jaccard similarity x monotonicity, where
    monotonicity is 1 for equal sets, 2/3 when one contains the other, 1/3 when they
    overlap otherwise and 0 when disjoint."""
    sa, sb = set(a), set(b)
    if sa == sb:
        return 0.0
    if sa <= sb or sb <= sa:
        m = 2 / 3
    elif sa & sb:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - (1.0 - jaccard_distance(sa, sb)) * m


def alpha_with_distance(
    data: Sequence[Sequence[Any]], distance: Callable[[Any, Any], float]
) -> float | None:
    """Krippendorff's alpha of a units x raters table (None = missing; lists/sets are read
    as sets) under ``distance``; None when undefined (no pairable unit, D_e = 0)."""
    def key(v: Any) -> Hashable:
        return frozenset(v) if isinstance(v, list | set | tuple | frozenset) else v

    units = [[key(v) for v in row if v is not None] for row in data]
    units = [u for u in units if len(u) >= 2]
    if not units:
        return None
    values = list(dict.fromkeys(v for u in units for v in u))
    index = {v: i for i, v in enumerate(values)}
    d = np.array([[distance(a, b) for b in values] for a in values], dtype=float)
    coincidence = np.zeros((len(values), len(values)))
    for u in units:
        c = np.bincount([index[v] for v in u], minlength=len(values)).astype(float)
        coincidence += (np.outer(c, c) - np.diag(c)) / (len(u) - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    d_o = (coincidence * d).sum() / n
    d_e = ((np.outer(n_c, n_c) - np.diag(n_c)) * d).sum() / (n * (n - 1))
    if d_e <= 0:
        return None
    return float(1 - d_o / d_e)

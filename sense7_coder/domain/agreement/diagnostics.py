"""Where disagreement comes from: per pair of coders the confusion matrix, per coder the
mean difference from the others (bias) and agreement over coding order (drift).

All three read a code's :class:`~.ratings.Ratings` (references left out):

* **confusion**: for coders a and b, how many units both rated got level i from a and j
  from b (every pair of levels of the declared scale, zeros included);
* **bias** (numeric scales): per coder, the mean over the units the coder and at least one
  other coder rated of (the coder's value - the mean of the others' values on that unit);
  positive = rates higher than the others;
* **drift**: each coder's units in the order the coder coded them, cut into up to
  ``blocks`` consecutive blocks of equal size; per block the share of agreeing pairs
  between the coder and the others on those units (exact match) and, for numeric scales,
  the mean difference. A coder whose agreement falls or whose difference grows over the
  blocks drifts.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from .ratings import Ratings
from .records import too_many_pairs

CONFUSION_COLUMNS = ("code", "coder_a", "coder_b", "value_a", "value_b", "n_units")
BIAS_COLUMNS = ("code", "coder", "n_units", "mean_difference")
DRIFT_COLUMNS = ("code", "coder", "block", "first", "last", "n_units", "agreement",
                 "mean_difference")


def _numeric(scale: Sequence[object]) -> bool:
    return all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
               for v in scale)


def confusion(ratings: Ratings) -> pd.DataFrame:
    """Long table of every coder pair's confusion matrix (rows: a's level, b's level);
    empty beyond :data:`.records.MAX_PAIR_CODERS` coders (a crowd has millions of pairs)."""
    k = ratings.k
    parts = []
    many = too_many_pairs(ratings.coders)
    for a, b in [] if many else combinations(ratings.coders, 2):
        x, y = ratings.pair(a, b)
        table = np.bincount(x.astype(np.int64) * k + y, minlength=k * k).reshape(k, k)
        ia, ib = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        parts.append(pd.DataFrame({
            "code": ratings.code, "coder_a": a, "coder_b": b,
            "value_a": [ratings.scale[i] for i in ia.ravel()],
            "value_b": [ratings.scale[j] for j in ib.ravel()],
            "n_units": table.ravel(),
        }))
    if not parts:
        return pd.DataFrame({c: [] for c in CONFUSION_COLUMNS})
    return pd.concat(parts, ignore_index=True)[list(CONFUSION_COLUMNS)]


def _values(ratings: Ratings) -> np.ndarray:
    """coders x units matrix of level values (numeric scales) or positions; NaN = none."""
    pos = ratings.positions.astype(np.int64)
    levels = (np.asarray(ratings.scale, dtype=float) if _numeric(ratings.scale)
              else np.arange(ratings.k, dtype=float))
    out = np.where(pos >= 0, levels[np.clip(pos, 0, None)], np.nan)
    return out


def bias(ratings: Ratings) -> pd.DataFrame:
    """Per coder: units compared and the mean difference from the others (None when the
    scale is not numeric or no unit is shared)."""
    v = _values(ratings)
    rated = ~np.isnan(v)
    total = np.nansum(v, axis=0)
    count = rated.sum(axis=0)
    rows = []
    for c, coder in enumerate(ratings.coders):
        others = count - rated[c]
        use = rated[c] & (others > 0)
        n = int(use.sum())
        diff = None
        if n and _numeric(ratings.scale):
            mean_others = (total[use] - v[c, use]) / others[use]
            diff = float((v[c, use] - mean_others).mean())
        rows.append((ratings.code, coder, n, diff))
    return pd.DataFrame(rows, columns=list(BIAS_COLUMNS))


def drift(ratings: Ratings, order: pd.DataFrame, *, blocks: int = 5) -> pd.DataFrame:
    """Agreement of each coder with the others over the coder's own coding order.

    ``order`` has columns coder, unit and ``rank`` (anything sortable: the time the coding
    was last saved, or its position in a history); units without a rank are left out.

    Each unit's totals over all coders are counted once (how many gave each level, the
    sum of their values); a coder's "others" are those totals less the coder's own, so a
    block costs its units, not coders x units (3,000 crowd coders took 10 s a code).
    """
    v = _values(ratings)
    pos = ratings.positions.astype(np.int64)
    rated = pos >= 0
    numeric = _numeric(ratings.scale)
    count = rated.sum(axis=0)
    total = np.where(rated, v, 0.0).sum(axis=0)
    at_level = ratings.value_counts()  # units x levels: how many coders gave each
    unit_index = pd.Series(np.arange(len(ratings.units)), index=ratings.units)
    ranked = order.dropna(subset=["rank"])
    where = unit_index.reindex(ranked["unit"].to_numpy()).to_numpy()
    known = ~pd.isna(where)
    ranked, where = ranked[known], where[known].astype(np.int64)
    rank = ranked["rank"].to_numpy()
    by_coder = ranked.groupby("coder", sort=False, observed=True).indices  # one pass
    none = np.zeros(0, dtype=np.int64)
    rows = []
    for c, coder in enumerate(ratings.coders):
        mine = by_coder.get(coder, none)
        idx = where[mine][np.argsort(rank[mine], kind="stable")]
        others = count - rated[c]
        idx = idx[rated[c, idx] & (others[idx] > 0)]
        if idx.size == 0:
            continue
        first = 1
        for b, chunk in enumerate(np.array_split(idx, min(blocks, idx.size)), 1):
            n_others = others[chunk]
            same = int((at_level[chunk, pos[c, chunk]] - 1).sum())  # less the coder's own
            pairs = int(n_others.sum())
            diff = None
            if numeric:
                mine_v = v[c, chunk]
                diff = float(np.mean(mine_v - (total[chunk] - mine_v) / n_others))
            rows.append((ratings.code, coder, b, first, first + len(chunk) - 1, len(chunk),
                         float(same / pairs) if pairs else None, diff))
            first += len(chunk)
    return pd.DataFrame(rows, columns=list(DRIFT_COLUMNS))

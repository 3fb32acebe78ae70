"""The paper's evaluation below its grain: per dimension and per turn, with intervals.

The SENSE-7 paper scored one number per conversation. Here a predictor (or a model's
suggestions for one code) is compared unit by unit with the users' own rating of the same
dimension, with the paper's five figures (see :mod:`.evaluation`: accuracy, macro-F1 and
within-one on levels rounded and clipped to 1..5; MAE and Spearman's rho on raw values).

**Intervals** are percentile bootstrap intervals over *conversations*: each draw resamples
the conversations with replacement and keeps all their turns, because turns of one
conversation are not independent (the same user rates them, in one context). A figure
undefined in a draw (Spearman's rho on a constant side) is left out of that figure's
interval; the share left out is reported. With several runs, a draw's figure is the mean of
the runs' figures on the same resampled conversations, like the point estimate.

Pure numpy (scipy's ``rankdata`` for ranks), imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .evaluation import LEVELS, METRICS

#: bootstrap draws unless told otherwise, and the seed that makes a table reproducible
DRAWS = 1000
SEED = 20250916
CONFIDENCE = 0.95
#: the range each figure can take on the 1..5 scale (figures clip their intervals to it)
SCALE = {"accuracy": (0.0, 1.0), "macro_f1": (0.0, 1.0), "within_one": (0.0, 1.0),
         "mae": (0.0, float(max(LEVELS) - min(LEVELS))), "spearman": (-1.0, 1.0)}


@dataclass
class GrainResult:
    """One predictor on one dimension at one level: figures, intervals and counts."""

    estimate: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]
    n: int
    conversations: int
    runs: int
    draws: int
    #: per figure, the share of draws where it was undefined (left out of the interval)
    undefined: dict[str, float] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "conversations": self.conversations,
                               "runs": self.runs}
        for m in METRICS:
            out[m] = self.estimate[m]
            out[f"{m}_low"] = self.low[m]
            out[f"{m}_high"] = self.high[m]
        out["draws"] = self.draws
        return out


def _levels(values: Any) -> Any:
    import numpy as np

    return np.clip(np.floor(values + 0.5), min(LEVELS), max(LEVELS)).astype(np.int64)


def figures(y: Any, p: Any) -> dict[str, float | None]:
    """The five figures of raw truths ``y`` and predictions ``p`` (numpy arrays); the same
    numbers as :func:`.evaluation.evaluate` (scikit-learn's macro-F1, scipy's Spearman)."""
    import numpy as np
    from scipy.stats import rankdata

    n = len(y)
    if n == 0:
        return dict.fromkeys(METRICS)
    ly, lp = _levels(y), _levels(p)
    size = max(LEVELS) + 1
    confusion = np.bincount(ly * size + lp, minlength=size * size).reshape(size, size)
    tp = np.diag(confusion).astype(float)
    support, predicted = confusion.sum(axis=1), confusion.sum(axis=0)
    seen = (support + predicted) > 0
    # F1 = 2TP / (2TP + FP + FN) = 2TP / (support + predicted); 0 where undefined
    f1 = np.divide(2 * tp, support + predicted, out=np.zeros(size), where=seen)
    rho: float | None = None
    if n >= 2 and np.ptp(y) > 0 and np.ptp(p) > 0:
        ry, rp = rankdata(y), rankdata(p)
        value = float(np.corrcoef(ry, rp)[0, 1])
        rho = value if math.isfinite(value) else None
    return {"accuracy": float(np.mean(ly == lp)), "macro_f1": float(f1[seen].mean()),
            "within_one": float(np.mean(np.abs(ly - lp) <= 1)),
            "mae": float(np.mean(np.abs(y - p))), "spearman": rho}


def resamples(clusters: Sequence[Hashable], draws: int = DRAWS, seed: int = SEED) -> Any:
    """``draws`` arrays of conversation indices drawn with replacement (one row per draw,
    as many columns as ``clusters``): the resamples every figure of a table shares."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return rng.integers(0, len(clusters), size=(draws, len(clusters)))


def _draw_counts(draws: Any, groups: int) -> Any:
    """How often each conversation is drawn in each draw (draws x conversations)."""
    import numpy as np

    rows = np.repeat(np.arange(len(draws)), draws.shape[1])
    counts = np.zeros((len(draws), groups))
    np.add.at(counts, (rows, draws.ravel()), 1.0)
    return counts


def _weighted_ranks(values: Any, weights: Any) -> Any:
    """Average ranks (ties shared) of ``values`` repeated ``weights`` times, per row of
    ``weights`` (draws x units): the ranks scipy's ``rankdata`` gives the resampled data."""
    import numpy as np

    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    group = np.cumsum(np.r_[True, sorted_values[1:] != sorted_values[:-1]]) - 1
    totals = np.add.reduceat(weights[:, order], starts, axis=1)  # draws x distinct values
    below = np.cumsum(totals, axis=1) - totals
    average = below + (totals + 1) / 2
    ranks = np.empty_like(weights)
    ranks[:, order] = average[:, group]
    return ranks


#: most (draw x unit) cells one step of :func:`_draw_figures` holds per array (16 MB)
CELLS = 2_000_000


def _draw_figures(y: Any, p: Any, clusters: Any, counts: Any, chunk: int = 200
                  ) -> dict[str, Any]:
    """Each figure in each draw (``counts``: draws x conversations), computed on weights
    (a unit drawn k times weighs k) so that no resample is built: the same numbers as
    :func:`figures` on the resampled units."""
    import numpy as np

    out = {m: np.full(len(counts), np.nan) for m in METRICS}
    if len(y) == 0:
        return out
    ly, lp = _levels(y), _levels(p)
    size = max(LEVELS) + 1
    groups = counts.shape[1]
    # per conversation: units, sums and confusion counts; a draw's figures other than
    # Spearman's are then (draws x conversations) products, independent of the turns
    units = np.bincount(clusters, minlength=groups).astype(float)
    equal = np.bincount(clusters, (ly == lp).astype(float), minlength=groups)
    near = np.bincount(clusters, (np.abs(ly - lp) <= 1).astype(float), minlength=groups)
    error = np.bincount(clusters, np.abs(y - p), minlength=groups)
    cells = np.zeros((groups, size * size))
    np.add.at(cells, (clusters, ly * size + lp), 1.0)
    chunk = max(1, min(chunk, CELLS // len(y)))  # memory bounded on a large project
    for first in range(0, len(counts), chunk):
        c = counts[first:first + chunk]  # draws x conversations
        w = c[:, clusters]  # draws x units (for the ranks)
        total = c @ units
        part = slice(first, first + len(c))
        with np.errstate(all="ignore"):
            out["accuracy"][part] = c @ equal / total
            out["within_one"][part] = c @ near / total
            out["mae"][part] = c @ error / total
            confusion = (c @ cells).reshape(len(c), size, size)
            tp = np.diagonal(confusion, axis1=1, axis2=2)
            both = confusion.sum(axis=2) + confusion.sum(axis=1)
            seen = both > 0
            f1 = np.where(seen, 2 * tp / np.where(seen, both, 1), 0.0)
            out["macro_f1"][part] = f1.sum(axis=1) / seen.sum(axis=1)
            ry, rp = _weighted_ranks(y, w), _weighted_ranks(p, w)
            my = (w * ry).sum(axis=1, keepdims=True) / total[:, None]
            mp = (w * rp).sum(axis=1, keepdims=True) / total[:, None]
            cov = (w * (ry - my) * (rp - mp)).sum(axis=1)
            vy = (w * (ry - my) ** 2).sum(axis=1)
            vp = (w * (rp - mp) ** 2).sum(axis=1)
            defined = (vy > 1e-12 * total ** 3) & (vp > 1e-12 * total ** 3) & (total >= 2)
            out["spearman"][part] = np.where(defined, cov / np.sqrt(vy * vp), np.nan)
            for m in METRICS:
                out[m][part] = np.where(total > 0, out[m][part], np.nan)
    return out


def evaluate_with_intervals(
    truth: Mapping[Hashable, float],
    runs: Mapping[int, Mapping[Hashable, float | None]],
    conversation_of: Any = None,
    *,
    draws: int = DRAWS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> GrainResult:
    """Figures of ``runs`` (run -> unit -> prediction) against ``truth`` (unit -> rating),
    the mean over runs, with bootstrap intervals over the conversations
    (``conversation_of(unit)``; default: the unit itself is the conversation, or its first
    element when it is a tuple such as ``(conversation_id, position)``)."""
    import numpy as np

    def default(key: Hashable) -> Hashable:
        return key[0] if isinstance(key, tuple) else key

    conv = conversation_of or default
    per_run: list[tuple[Any, Any, Any]] = []
    clusters: dict[Hashable, int] = {}
    for r in sorted(runs):
        predicted = runs[r]
        usable = sorted((k for k in truth if k in predicted and _finite(truth[k])
                         and _finite(predicted[k])), key=str)
        y_list = [float(truth[k]) for k in usable]
        p_list = [float(predicted[k]) for k in usable]  # type: ignore[arg-type]
        cl = np.array([clusters.setdefault(conv(k), len(clusters)) for k in usable],
                      dtype=np.int64)
        per_run.append((np.array(y_list, float), np.array(p_list, float), cl))
    empty = dict.fromkeys(METRICS)
    if not clusters:
        return GrainResult(dict(empty), dict(empty), dict(empty), 0, 0, len(runs), 0)
    estimates = [figures(y, p) for y, p, _ in per_run]
    estimate = {m: _mean([e[m] for e in estimates]) for m in METRICS}
    counts = _draw_counts(resamples(list(clusters), draws, seed), len(clusters))
    per_draw = [_draw_figures(y, p, cl, counts) for y, p, cl in per_run]
    samples = {}
    for m in METRICS:
        stacked = np.vstack([f[m] for f in per_draw])  # runs x draws
        with np.errstate(all="ignore"):
            defined = (~np.isnan(stacked)).sum(axis=0)
            samples[m] = np.where(defined > 0, np.nansum(stacked, axis=0) / np.maximum(defined, 1),
                                  np.nan)
    alpha = (1 - confidence) / 2
    low: dict[str, float | None] = {}
    high: dict[str, float | None] = {}
    undefined: dict[str, float] = {}
    for m in METRICS:
        ok = samples[m][~np.isnan(samples[m])]
        undefined[m] = 1 - len(ok) / draws if draws else 0.0
        if len(ok) and estimate[m] is not None:
            low[m], high[m] = (float(x) for x in np.quantile(ok, [alpha, 1 - alpha]))
        else:
            low[m] = high[m] = None
    n = round(sum(len(y) for y, _, _ in per_run) / len(per_run))
    return GrainResult(estimate, low, high, n, len(clusters), len(runs), draws, undefined)


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def clip_interval(metric: str, low: float | None, high: float | None
                  ) -> tuple[float | None, float | None]:
    """An interval clipped to the range its figure can take (:data:`SCALE`)."""
    lo, hi = SCALE[metric]
    return (None if low is None else min(max(low, lo), hi),
            None if high is None else min(max(high, lo), hi))

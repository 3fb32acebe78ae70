"""The SENSE-7 paper's evaluation protocol for empathy-level predictors.

* **Target** of a conversation: the mean over its assistant turns of each turn's mean of the
  seven dimensions (a dimension the user left unrated or marked not applicable is skipped; a
  turn with no rated dimension is skipped; a conversation with no such turn has no target).
  At turn level the target is the user's overall rating of the turn.
* **Classification** figures on values rounded to the nearest level (halves round up) and
  clipped to 1..5: accuracy, macro-F1 (over the levels that occur in either truth or
  prediction, as scikit-learn's ``f1_score(average="macro")``) and within-one (share of
  rounded predictions at most one level from the rounded target).
* **Regression** figures on the raw values: mean absolute error and Spearman's rho
  (``None`` when either side is constant or fewer than two pairs exist: undefined, never
  0 or 1).
* Over several runs: each figure's mean and sample standard deviation (``_sd``; ``None``
  with a single run), over the runs where the figure is defined.

Pure Python plus numpy/scipy/scikit-learn, imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import DIMENSIONS

LEVELS = (1, 2, 3, 4, 5)
METRICS = ("accuracy", "macro_f1", "within_one", "mae", "spearman")


def turn_dimension_mean(ratings: Mapping[str, int | None]) -> float | None:
    """Mean of a turn's rated dimensions (None / absent skipped); None if none is rated."""
    values = [float(v) for k in DIMENSIONS if (v := ratings.get(k)) is not None]
    return sum(values) / len(values) if values else None


def conversation_targets(
    turns: Iterable[tuple[str, Mapping[str, int | None]]],
) -> dict[str, float]:
    """Per conversation the paper's target from ``(conversation_id, ratings)`` of its
    assistant turns (one item per turn)."""
    sums: dict[str, list[float]] = {}
    for conversation_id, ratings in turns:
        mean = turn_dimension_mean(ratings)
        if mean is not None:
            sums.setdefault(conversation_id, []).append(mean)
    return {cid: sum(v) / len(v) for cid, v in sums.items()}


def to_level(value: float, levels: Sequence[int] = LEVELS) -> int:
    """Round to the nearest level (halves up: 2.5 -> 3) and clip to the scale (1..5)."""
    return int(min(max(math.floor(value + 0.5), min(levels)), max(levels)))


@dataclass
class Metrics:
    accuracy: float | None
    macro_f1: float | None
    within_one: float | None
    mae: float | None
    spearman: float | None
    n: int


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def paired(truth: Mapping[Hashable, float], predicted: Mapping[Hashable, float | None]
           ) -> tuple[list[float], list[float]]:
    """The (truth, prediction) pairs of the keys both have a finite value for, in key order."""
    keys = [k for k in truth if k in predicted and _finite(truth[k]) and _finite(predicted[k])]
    keys.sort(key=str)
    return [float(truth[k]) for k in keys], [float(predicted[k]) for k in keys]  # type: ignore[arg-type]


def evaluate(truth: Mapping[Hashable, float], predicted: Mapping[Hashable, float | None]) -> Metrics:
    """The five figures on the units both sides have (see the module notes)."""
    y, p = paired(truth, predicted)
    n = len(y)
    if n == 0:
        return Metrics(None, None, None, None, None, 0)
    from sklearn.metrics import f1_score

    ly = [to_level(v) for v in y]
    lp = [to_level(v) for v in p]
    accuracy = sum(a == b for a, b in zip(ly, lp, strict=True)) / n
    within = sum(abs(a - b) <= 1 for a, b in zip(ly, lp, strict=True)) / n
    macro = float(f1_score(ly, lp, average="macro", zero_division=0))
    mae = sum(abs(a - b) for a, b in zip(y, p, strict=True)) / n
    return Metrics(accuracy, macro, within, mae, spearman(y, p), n)


def spearman(x: list[float], y: list[float]) -> float | None:
    """Spearman's rho (average ranks for ties); None when undefined."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    from scipy.stats import spearmanr

    rho = float(spearmanr(x, y).statistic)
    return rho if math.isfinite(rho) else None


def summarise_runs(runs: Iterable[Metrics]) -> dict[str, Any]:
    """Mean and sample SD of each figure over runs (undefined runs left out); ``n`` is the
    mean number of pairs and ``runs`` the number of runs."""
    runs = list(runs)
    out: dict[str, Any] = {}
    for m in METRICS:
        vals = [v for r in runs if (v := getattr(r, m)) is not None]
        out[m] = sum(vals) / len(vals) if vals else None
        if len(vals) >= 2:
            mean = out[m]
            out[f"{m}_sd"] = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
        else:
            out[f"{m}_sd"] = None
    ns = [r.n for r in runs]
    out["n"] = round(sum(ns) / len(ns)) if ns else 0
    out["runs"] = len(runs)
    return out


def evaluate_runs(
    truth: Mapping[Hashable, float],
    runs: Mapping[int, Mapping[Hashable, float | None]],
) -> dict[str, Any]:
    """:func:`evaluate` each run's predictions, then :func:`summarise_runs`."""
    return summarise_runs(evaluate(truth, runs[r]) for r in sorted(runs))

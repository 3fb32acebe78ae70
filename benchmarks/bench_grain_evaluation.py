"""Benchmark: bootstrap intervals of the per-dimension evaluation, weighted draws against
resampling each draw and scoring it with scikit-learn and scipy.

Run by hand from the repository root (not collected by pytest)::

    python benchmarks/bench_grain_evaluation.py                       # 672 x 8 turns
    python benchmarks/bench_grain_evaluation.py --conversations 200 --draws 200

Synthetic data: ``--conversations`` conversations (default 672, the SENSE-7 release) of
``--turns`` rated assistant turns each (default 8), a user's rating 1..5 and a prediction
with noise. ``evaluate_with_intervals`` draws ``--draws`` resamples of conversations and
scores each on weights (a unit drawn k times weighs k).

Baseline, measured in the same run on the same draws: build each resample (the units of
the drawn conversations) and score it with ``accuracy_score``, ``f1_score(average=
"macro")``, ``mean_absolute_error`` and ``spearmanr``, as a straightforward implementation
would. The two must give the same interval ends (checked); the target is a ratio of at
most 0.2 (five times faster), so a table of 8 dimensions x a few predictors on the full
release stays within seconds per row in ``analyze``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import accuracy_score, f1_score, mean_absolute_error

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sense7_coder.domain.prediction.grain import (  # noqa: E402
    evaluate_with_intervals,
    resamples,
)

TARGET_RATIO = 0.2


def data(conversations: int, turns: int, seed: int = 1) -> tuple[dict, dict]:
    rng = random.Random(seed)
    truth, pred = {}, {}
    for c in range(conversations):
        bias = rng.uniform(-1, 1)
        for t in range(turns):
            y = rng.randint(1, 5)
            truth[(f"c{c}", t)] = float(y)
            pred[(f"c{c}", t)] = y + bias + rng.gauss(0, 1)
    return truth, pred


def baseline(truth: dict, pred: dict, draws: int, seed: int) -> dict[str, tuple[float, float]]:
    keys = sorted(truth, key=str)
    y = np.array([truth[k] for k in keys])
    p = np.array([pred[k] for k in keys])
    convs = list(dict.fromkeys(k[0] for k in keys))
    members = {c: [] for c in convs}
    for i, k in enumerate(keys):
        members[k[0]].append(i)
    out: dict[str, list[float]] = {m: [] for m in ("accuracy", "macro_f1", "mae", "spearman")}
    for draw in resamples(convs, draws, seed):
        idx = np.array([i for g in draw for i in members[convs[g]]])
        ys, ps = y[idx], p[idx]
        ly = np.clip(np.floor(ys + 0.5), 1, 5).astype(int)
        lp = np.clip(np.floor(ps + 0.5), 1, 5).astype(int)
        out["accuracy"].append(accuracy_score(ly, lp))
        out["macro_f1"].append(f1_score(ly, lp, average="macro", zero_division=0))
        out["mae"].append(mean_absolute_error(ys, ps))
        out["spearman"].append(spearmanr(ys, ps).statistic)
    return {m: tuple(np.quantile(v, [0.025, 0.975])) for m, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=672)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    truth, pred = data(args.conversations, args.turns)
    print(f"{len(truth):,} rated turns in {args.conversations:,} conversations, "
          f"{args.draws:,} draws")
    start = time.perf_counter()
    result = evaluate_with_intervals(truth, {1: pred}, draws=args.draws, seed=args.seed)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    ref = baseline(truth, pred, args.draws, args.seed)
    theirs = time.perf_counter() - start
    for metric, (low, high) in ref.items():
        same = (abs(result.low[metric] - low) < 1e-9  # type: ignore[operator]
                and abs(result.high[metric] - high) < 1e-9)  # type: ignore[operator]
        print(f"  {metric:<9} [{result.low[metric]:.4f}, {result.high[metric]:.4f}]  "
              f"{'same as' if same else 'DIFFERS from'} the baseline [{low:.4f}, {high:.4f}]")
        if not same:
            return 1
    ratio = ours / theirs
    print(f"weighted draws {ours:.2f} s; baseline (resample + scikit-learn/scipy) "
          f"{theirs:.2f} s; ratio {ratio:.3f} (target <= {TARGET_RATIO}) "
          f"{'OK' if ratio <= TARGET_RATIO else 'MISSED'}")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())

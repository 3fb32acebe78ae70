"""Benchmark: the baseline predictor's grouped cross-validation, and ``analyze``.

Run by hand from the repository root (not collected by pytest)::

    python benchmarks/bench_predict.py                       # 700 and 10,000 conversations
    python benchmarks/bench_predict.py --cv 700 --analyze 2000

1. **Baseline**: a generated study of ``--cv`` conversations (SENSE-7's size: 700; 6
   assistant turns each, 70 participants) -> ``run_baseline`` (TF-IDF + ridge, 5 folds
   grouped by participant, stored). Target: under 60 s on a 2-core machine. Baseline in the
   same run: one fit of the same scikit-learn pipeline on all rated turns (the work of one
   fold, without the project, the grouping or the storing).
2. **Analyze**: a generated study of ``--analyze`` conversations (3 assistant turns each)
   -> ``run_analyses`` (every table and figure, PNG + SVG). Target: under 30 s. Baseline in
   the same run: reading the users' ratings into a pandas frame (the one read every
   analysis needs).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sense7_coder.domain.synthetic import write_study  # noqa: E402
from sense7_coder.project import Project  # noqa: E402
from sense7_coder.project.imports import import_files  # noqa: E402


def build(folder: Path, n: int, turns: int) -> Project:
    src = write_study(folder / f"study{n}.jsonl", n, participants=max(2, n // 10),
                      assistant_turns=turns)
    project = Project.create(folder / f"study{n}.sense7")
    import_files(project, [src])
    return project


def bench_baseline(folder: Path, n: int) -> None:
    from sense7_coder.domain.prediction.baseline import _pipeline
    from sense7_coder.domain.prediction.evaluation import turn_dimension_mean
    from sense7_coder.project.prediction.predictors import (
        evaluate_predictor,
        rated_turns,
        run_baseline,
    )

    project = build(folder, n, 6)
    turns = rated_turns(project)
    import pandas as pd

    frame = pd.DataFrame({"text": [t.text for t in turns], "context": [t.context for t in turns],
                          "target": [turn_dimension_mean(t.ratings) for t in turns]}).dropna()
    _pipeline().fit(frame[["text", "context"]][:500], frame["target"][:500])  # warm up
    start = time.perf_counter()
    _pipeline().fit(frame[["text", "context"]], frame["target"])
    base = time.perf_counter() - start
    start = time.perf_counter()
    result = run_baseline(project, runs=1)
    ours = time.perf_counter() - start
    figures = evaluate_predictor(project, "baseline")
    print(f"baseline CV, {n} conversations / {len(turns)} assistant turns, "
          f"{len(result.folds)} folds by {result.group_by}:")
    print(f"  one pipeline fit (baseline) {base:7.2f} s")
    print(f"  run_baseline                {ours:7.2f} s   ratio {ours / base:5.1f}x   "
          f"target < 60 s: {'ok' if ours < 60 else 'MISSED'}")
    print(f"  (accuracy {figures['accuracy']:.3f}, spearman {figures['spearman']:.3f})")
    project.close()


def bench_analyze(folder: Path, n: int) -> None:
    from sense7_coder.project.analyses import run_analyses
    from sense7_coder.store.frames import user_ratings_frame

    project = build(folder, n, 3)
    start = time.perf_counter()
    frame = user_ratings_frame(project.db)
    base = time.perf_counter() - start
    start = time.perf_counter()
    out = run_analyses(project, folder / "analysis")
    ours = time.perf_counter() - start
    print(f"analyze, {n} conversations / {len(frame)} user ratings: "
          f"{len(out.tables)} tables, {len(out.figures)} figure files")
    print(f"  read the ratings (baseline) {base:7.2f} s")
    print(f"  run_analyses                {ours:7.2f} s   ratio {ours / base:5.1f}x   "
          f"target < 30 s: {'ok' if ours < 30 else 'MISSED'}")
    project.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cv", type=int, default=700, help="conversations for the baseline")
    parser.add_argument("--analyze", type=int, default=10_000,
                        help="conversations for analyze")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.cv:
            bench_baseline(folder, args.cv)
        if args.analyze:
            bench_analyze(folder, args.analyze)


if __name__ == "__main__":
    main()

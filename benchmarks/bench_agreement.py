"""Benchmark: the agreement engine against calling ``krippendorff.alpha`` directly.

Run by hand from the repository root (not collected by pytest)::

    python benchmarks/bench_agreement.py --units 100000
    python benchmarks/bench_agreement.py              # 1,000,000 units

Synthetic data: ``--codes`` codes (default 20) over ``--units`` units (default
1,000,000) x ``--coders`` coders (default 5), values 1-5 with about 10% missing, handed
to the engine as tidy long tables (string unit ids, one row per coder and unit, NaN
for a missing value) as the project layer would. Bootstrap is off for the timing.

Baseline: ``krippendorff.alpha`` on the already prepared coders x units reliability
matrices of the same data (ordinal, value domain 1..5). The engine does more -- it
checks and pivots the long tables, and computes alpha, percent agreement, Cohen's kappa
(three weightings) for every coder pair and Fleiss' kappa -- so the target is a ratio
of at most 2. Peak memory: tracemalloc peak of one code's computation on each route,
and the process's peak resident size.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sense7_coder.domain.agreement import (  # noqa: E402
    CodeFrameSpec,
    agreement_report,
    code_agreement,
)

SCALE = [1, 2, 3, 4, 5]


def make_matrices(
    n_units: int, n_codes: int, n_coders: int, missing: float, seed: int
) -> list[np.ndarray]:
    """One coders x units reliability matrix per code (values 1-5, NaN = missing)."""
    rng = np.random.default_rng(seed)
    matrices = []
    for _ in range(n_codes):
        truth = rng.integers(1, 6, n_units)
        noise = rng.integers(-1, 2, (n_coders, n_units)) * (rng.random((n_coders, n_units)) < 0.4)
        matrix = np.clip(truth + noise, 1, 5).astype(float)
        matrix[rng.random(matrix.shape) < missing] = np.nan
        matrices.append(matrix)
    return matrices


def make_specs(matrices: list[np.ndarray], ids: str) -> dict[str, CodeFrameSpec]:
    """The same data as long tables (one row per coder and unit, NaN = no value).

    ids 'text': unit ids and coder names as plain strings ('u0000001', 'coder0');
    ids 'int': integer unit ids (as a store's row ids) and the coder names as a
    Categorical built from integer coder ids -- the fast path for big projects.
    The unit and coder columns are shared between codes to save memory.
    """
    n_coders, n_units = matrices[0].shape
    names = [f"coder{c}" for c in range(n_coders)]
    coder_ids = np.repeat(np.arange(n_coders), n_units)
    if ids == "text":
        unit_col = pd.Series(np.tile(np.array([f"u{i:07d}" for i in range(n_units)],
                                              dtype=object), n_coders), dtype=object)
        coder_col = pd.Series(np.array(names, dtype=object)[coder_ids], dtype=object)
    else:
        unit_col = pd.Series(np.tile(np.arange(n_units, dtype=np.int64), n_coders))
        coder_col = pd.Series(pd.Categorical.from_codes(coder_ids, categories=names))
    return {
        f"code{i:02d}": CodeFrameSpec(
            pd.DataFrame({"unit": unit_col, "coder": coder_col, "value": m.ravel()}),
            "ordinal", SCALE,
        )
        for i, m in enumerate(matrices)
    }


def direct_alpha(matrix: np.ndarray) -> float:
    return float(
        krippendorff.alpha(
            reliability_data=matrix, value_domain=SCALE, level_of_measurement="ordinal"
        )
    )


def peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1_000_000)
    parser.add_argument("--codes", type=int, default=20)
    parser.add_argument("--coders", type=int, default=5)
    parser.add_argument("--missing", type=float, default=0.10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ids", nargs="+", choices=("text", "int"), default=["text", "int"],
                        help="how unit and coder ids are given to the engine (default: both)")
    args = parser.parse_args(argv)

    print(f"{args.codes} codes x {args.units:,} units x {args.coders} coders, values 1-5, "
          f"{args.missing:.0%} missing; bootstrap off")
    start = time.perf_counter()
    matrices = make_matrices(args.units, args.codes, args.coders, args.missing, args.seed)
    print(f"data generated in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    direct = [direct_alpha(m) for m in matrices]
    t_direct = time.perf_counter() - start
    print(f"krippendorff.alpha on the prepared matrices: {t_direct:.2f} s")

    worst = 0.0
    mem_engine: dict[str, float] = {}
    for ids in args.ids:
        specs = make_specs(matrices, ids)
        start = time.perf_counter()
        report = agreement_report(specs, bootstrap=0)
        t_engine = time.perf_counter() - start
        alphas = [r.value for r in report.records if r.measure == "krippendorff_alpha"]
        worst = max(worst, *(abs((a or 0.0) - b) for a, b in zip(alphas, direct, strict=True)))
        label = "text ids" if ids == "text" else "int unit ids + categorical coders"
        print(f"agreement engine, all figures, {label}:")
        print(f"    {t_engine:8.2f} s, ratio to direct {t_engine / t_direct:.2f} (target <= 2), "
              f"{len(report.records)} records")
        code, spec = next(iter(specs.items()))
        mem_engine[ids] = peak_mib(partial(
            code_agreement, spec.frame, code=code, kind="ordinal", scale=SCALE, bootstrap=0
        ))
        del specs, report, spec
    print(f"largest alpha difference engine vs direct: {worst:.2e}")
    mem_direct = peak_mib(lambda: direct_alpha(matrices[0]))
    engine_mem = ", ".join(f"engine ({ids} ids) {mib:.0f} MiB" for ids, mib in mem_engine.items())
    print(f"peak memory of one code (tracemalloc): direct {mem_direct:.0f} MiB, {engine_mem}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"process peak resident size: {rss:.0f} MiB (includes the generated data)")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())

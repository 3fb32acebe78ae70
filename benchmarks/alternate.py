"""Measuring A against B so that the machine's drift cancels out (shared by the benchmarks).

A benchmark that times a block of A and then a block of B puts whatever the machine did
in between (another job starting, a CPU's clock, the disk cache) into the difference. So
every ratio here comes from A and B **alternated in one run** (A B A B ...), each round
giving one ratio of its own, after warm-up rounds that are not counted (warm baselines:
imports done, caches filled, first calls made). Printed: the minimum and the median of
each side, the median of the per-round ratios, and the machine's load average before and
after, so that a reader knows what else was running.

    from alternate import alternate, load_note, print_pair

    print(load_note())
    times = alternate({"A": run_a, "B": run_b}, rounds=15, warmup=2)
    print_pair("A over B", times["A"], times["B"])
    print(load_note())

Each function is called with no argument and returns its own measurement (seconds of
wall time, of CPU, megabytes...) or None, and then the wall time of the call is taken.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable


def load_note() -> str:
    """The load average (1, 5, 15 minutes) and the number of cores, as one line."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # pragma: no cover - not on every platform
        return "machine load: unknown"
    return (f"machine load: {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min) on "
            f"{os.cpu_count()} cores")


def alternate(fns: dict[str, Callable[[], float | None]], rounds: int,
              warmup: int = 1) -> dict[str, list[float]]:
    """Call each function once per round, in the given order, ``warmup + rounds`` times;
    the measurements of the last ``rounds`` rounds, per name (index i = round i)."""
    out: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(warmup + rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            value = fn()
            if value is None:
                value = time.perf_counter() - t0
            if i >= warmup:
                out[name].append(value)
    return out


def ratios(a: list[float], b: list[float]) -> list[float]:
    """The per-round ratios a/b (rounds where b is 0 left out)."""
    return [x / y for x, y in zip(a, b, strict=True) if y]


def print_pair(name: str, a: list[float], b: list[float], unit: str = "ms",
               scale: float = 1000.0, target: str = "") -> float:
    """One line: A's and B's min and median, and the median per-round ratio A/B (which it
    returns)."""
    r = statistics.median(ratios(a, b)) if b else float("nan")
    line = (f"{name:<34} A min {min(a) * scale:9.2f} med {statistics.median(a) * scale:9.2f} "
            f"{unit} | B min {min(b) * scale:9.2f} med {statistics.median(b) * scale:9.2f} "
            f"{unit} | ratio {r:7.2f}x (median of {len(a)} alternated rounds; "
            f"{min(ratios(a, b)):.2f}-{max(ratios(a, b)):.2f})")
    print(line + (f"  target {target}" if target else ""), flush=True)
    return r

"""The whole test suite, several times in a row, beside a CPU hog: a check that no test
depends on the machine being quiet (a wall-clock second boundary, a timeout too tight, a
race a slow core opens).

    python benchmarks/suite_beside_hog.py [--runs 5] [--hogs 1] [-- PYTEST ARGS]

Starts ``--hogs`` processes that keep one core each busy (a Python loop), then runs
``python -m pytest -n auto -q -p no:cacheprovider`` (what the README's test line runs,
headless) ``--runs`` times, one after the other, and prints each run's outcome, its last
line and its wall time, with the machine's load. The hogs are ended (by their process ids)
when the runs end, however they end. Exit status: 0 when every run passed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from alternate import load_note  # noqa: E402

HOG = "while True:\n    pass\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hogs", type=int, default=1)
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    failed = 0
    try:
        print(f"{args.hogs} CPU hog(s) running; {load_note()}", flush=True)
        for run in range(1, args.runs + 1):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider",
                 *args.pytest_args], cwd=REPO, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - started
            lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
            last = lines[-1] if lines else "(no output)"
            failures = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
            failed += done.returncode != 0
            print(f"run {run}: {'passed' if done.returncode == 0 else 'FAILED'} in "
                  f"{wall:.0f} s -- {last}; {load_note()}", flush=True)
            for line in failures:
                print("   ", line, flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    print(f"{args.runs - failed} of {args.runs} runs passed beside {args.hogs} hog(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

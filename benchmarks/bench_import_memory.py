"""Peak memory of importing a long CSV of 3,000,000 short messages (about 67 MiB) vs pandas
reading the same file whole.

Usage: python benchmarks/bench_import_memory.py [--rows 3000000] [--keep DIR]

Each side runs in its own fresh process, so that its peak resident size is its own (the
high-water mark of the process, ``VmHWM`` on Linux, else ``ru_maxrss``):

* baseline: ``pandas.read_csv`` of the file whole, every cell as text (the table alone,
  no conversations);
* reading: sense7-coder's ``read_files`` (the file to conversations and turns, checked);
* import: the whole import into a new project (reading, checking, writing).

The ratio to the baseline is printed next to the target: the whole import of 3 M rows
under 1 GB. Before the sparse ratings and attributes of a turn were shared when empty, the
reading alone peaked at 1.46 GB on this file.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["ok", "hi", "yes", "no", "sure", "thanks", "why", "fine", "maybe", "later"]


def write_csv(path: Path, rows: int, per_conv: int = 10) -> None:
    """Short messages (the case where per-row overhead, not text, is the cost)."""
    rnd = random.Random(7)
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write("conversation_id,role,text\n")
        lines = []
        for i in range(rows):
            conv, pos = divmod(i, per_conv)
            role = "user" if pos % 2 == 0 else "assistant"
            lines.append(f"c{conv:x},{role},{rnd.choice(WORDS)} {rnd.choice(WORDS)}\n")
            if len(lines) == 100_000:
                fh.writelines(lines)
                lines.clear()
        fh.writelines(lines)


CHILD = r"""
import json, resource, sys, time
def peak_mb():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kind, csv_path, db_path = sys.argv[1:4]
t0 = time.perf_counter()
if kind == "baseline":
    import pandas as pd
    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    rows = len(frame)
elif kind == "reading":
    from sense7_coder.domain.importers import ImportOptions, read_files
    batches = read_files([csv_path], ImportOptions(format="csv"))
    rows = sum(len(c.turns) for b in batches for c in b.conversations)
else:
    from sense7_coder.domain.importers import ImportOptions
    from sense7_coder.project import Project
    from sense7_coder.project.imports import import_files
    from sense7_coder.resources import resolve_codebook
    with Project.create(db_path, resolve_codebook("sense7")) as p:
        rows = import_files(p, [csv_path], ImportOptions(format="csv")).turns
print(json.dumps({"seconds": time.perf_counter() - t0, "peak_mb": peak_mb(), "rows": rows}))
"""


def run(kind: str, csv_path: Path, db_path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(csv_path), str(db_path)],
        check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="s7bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / "messages.csv"
    t = time.perf_counter()
    write_csv(csv_path, args.rows)
    size = csv_path.stat().st_size / 2**20
    print(f"wrote {args.rows:,} messages ({size:.0f} MiB) in {time.perf_counter() - t:.1f} s")
    base = run("baseline", csv_path, folder / "unused.db")
    reading = run("reading", csv_path, folder / "unused.db")
    ours = run("import", csv_path, folder / "project.sense7")
    assert reading["rows"] == ours["rows"] == base["rows"] == args.rows
    for name, r in (("baseline  pandas.read_csv (text)", base),
                    ("sense7-coder reading (read_files)", reading),
                    ("sense7-coder import (whole)", ours)):
        print(f"{name:36}: {r['seconds']:7.2f} s  peak {r['peak_mb']:6.0f} MiB  "
              f"({r['peak_mb'] / base['peak_mb']:.1f}x baseline, "
              f"{r['peak_mb'] / size:.1f}x the file)")
    limit = 1024 * args.rows / 3_000_000
    print(f"whole import peak {'PASS' if ours['peak_mb'] < limit else 'FAIL'} "
          f"(< {limit:,.0f} MiB)")


if __name__ == "__main__":
    main()

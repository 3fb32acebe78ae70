"""Import N messages from a long CSV vs. a bare ``sqlite-utils insert --csv`` of the same file.

Usage: python benchmarks/bench_import.py [--rows 1000000] [--keep DIR]

Each side runs in its own subprocess so that its peak resident memory is its own.
Target: sense7-coder's import within 2x of the baseline's time, peak memory under 1 GB.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["thanks", "deadline", "manager", "feel", "stressed", "plan", "report", "email", "team", "help", "understand", "sorry", "great", "question", "maybe", "could", "should", "would", "next", "week", "today", "tomorrow", "project", "meeting"]


def write_csv(path: Path, rows: int, per_conv: int = 10) -> None:
    rnd = random.Random(7)
    labels = ["very poor", "poor", "neutral", "good", "very good", "unknown"]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["conversation_id", "participant_id", "model", "position", "role", "text",
                    "overall", "affective", "cognitive"])
        for i in range(rows):
            conv, pos = divmod(i, per_conv)
            role = "user" if pos % 2 == 0 else "assistant"
            text = " ".join(rnd.choices(WORDS, k=rnd.randint(8, 40)))
            ratings = [rnd.choice(labels) for _ in range(3)] if role == "assistant" else ["", "", ""]
            w.writerow([f"conv-{conv}", f"P{conv % 300}", ["GPT4", "IC"][conv % 2], pos + 1,
                        role, text, *ratings])


CHILD = r"""
import json, resource, sys, time
from pathlib import Path
kind, csv_path, db_path = sys.argv[1:4]
t0 = time.perf_counter()
if kind == "baseline":
    # the bare sqlite-utils insert of the same rows: its Python API fed by csv.DictReader
    # (its command line, `sqlite-utils insert --csv`, is several times slower still)
    import csv
    import sqlite_utils
    with open(csv_path, newline="", encoding="utf-8") as fh:
        sqlite_utils.Database(db_path)["messages"].insert_all(csv.DictReader(fh))
else:
    from sense7_coder.project import Project
    from sense7_coder.project.imports import import_files
    from sense7_coder.domain.importers import ImportOptions
    from sense7_coder.resources import resolve_codebook
    with Project.create(db_path, resolve_codebook("sense7")) as p:
        import_files(p, [csv_path], ImportOptions(format="csv"))
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "peak_mb": peak}))
"""


def run(kind: str, csv_path: Path, db_path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(csv_path), str(db_path)],
        check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="s7bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / "messages.csv"
    t = time.perf_counter()
    write_csv(csv_path, args.rows)
    print(f"wrote {args.rows:,} messages ({csv_path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t:.1f} s")
    base = run("baseline", csv_path, folder / "baseline.db")
    ours = run("sense7", csv_path, folder / "project.sense7")
    ratio = ours["seconds"] / base["seconds"]
    print(f"baseline  sqlite-utils insert_all    : {base['seconds']:7.2f} s  peak {base['peak_mb']:6.0f} MB")
    print(f"sense7-coder import (csv)           : {ours['seconds']:7.2f} s  peak {ours['peak_mb']:6.0f} MB")
    print(f"ratio {ratio:.2f}x (target <= 2.0x: {'PASS' if ratio <= 2 else 'FAIL'}); "
          f"peak memory {'PASS' if ours['peak_mb'] < 1024 else 'FAIL'} (< 1024 MB)")


if __name__ == "__main__":
    main()

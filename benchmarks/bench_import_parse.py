"""Parse N messages of a long CSV into domain objects vs. a bare ``pandas.read_csv``.

Usage: python benchmarks/bench_import_parse.py [--rows 1000000] [--format csv|jsonl]

Only the importer is timed (file -> ImportBatch, no database). Baseline: ``pandas.read_csv``
of the same file with ``dtype=str`` (for jsonl: ``json.loads`` of every line), i.e. reading
the cells without checking them or building conversations. Each side runs in its own
subprocess so that its peak resident memory is its own. Target: within 5x of the
baseline's time for CSV (the importer checks every role, rating and position and builds
one Turn per row; JSON decoding is so cheap next to that that no ratio is set for jsonl),
peak memory under 1.5 GB for 1,000,000 rows. Module imports are not timed.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ["very poor", "poor", "neutral", "good", "very good", "unknown"]


def write_csv(path: Path, rows: int, per_conv: int = 10) -> None:
    rnd = random.Random(7)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["conversation_id", "participant_id", "model", "position", "role", "text",
                    "overall", "affective", "relational", "comment"])
        for i in range(rows):
            conv, pos = divmod(i, per_conv)
            assistant = pos % 2 == 1
            ratings = ([rnd.randint(1, 5), rnd.choice(LABELS), rnd.choice(LABELS)]
                       if assistant else ["", "", ""])
            w.writerow([f"conv-{conv}", f"P{conv % 300}", "GPT4", pos + 1,
                        "assistant" if assistant else "user",
                        f"message {i}, with a comma and some words to read", *ratings,
                        "ok" if assistant and rnd.random() < 0.1 else ""])


def write_jsonl(path: Path, rows: int, per_conv: int = 10) -> None:
    with path.open("w", encoding="utf-8") as f:
        for conv in range(rows // per_conv):
            messages = [{"role": "assistant" if k % 2 else "user",
                         "content": f"message {conv}-{k}",
                         **({"ratings": {"overall": 1 + k % 5}} if k % 2 else {})}
                        for k in range(per_conv)]
            f.write(json.dumps({"conversation_id": f"c{conv}", "messages": messages}) + "\n")


CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import pandas as pd
from sense7_coder.domain.importers import ImportOptions, read_files
kind, path, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
if kind == "baseline" and fmt == "csv":
    n = len(pd.read_csv(path, dtype=str, keep_default_na=False))
elif kind == "baseline":
    with open(path, encoding="utf-8") as f:
        n = sum(len(json.loads(line)["messages"]) for line in f)
else:
    batch = read_files([path], ImportOptions())[0]
    n = sum(len(c.turns) for c in batch.conversations)
seconds = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": seconds, "rows": n, "peak_mb": peak_mb}}))
"""


def run(kind: str, path: Path, fmt: str) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, kind, str(path), fmt], check=True,
                         capture_output=True, text=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"messages.{args.format}"
        (write_csv if args.format == "csv" else write_jsonl)(path, args.rows)
        size_mb = path.stat().st_size / 1e6
        base = run("baseline", path, args.format)
        mine = run("sense7", path, args.format)
    ratio = mine["seconds"] / base["seconds"]
    print(f"{args.rows:,} messages, {args.format}, {size_mb:.0f} MB")
    print(f"baseline  : {base['seconds']:.2f} s, peak {base['peak_mb']:.0f} MB")
    print(f"sense7    : {mine['seconds']:.2f} s, peak {mine['peak_mb']:.0f} MB "
          f"({mine['rows']:,.0f} turns)")
    target = " (target <= 5x)" if args.format == "csv" else ""
    print(f"ratio     : {ratio:.2f}x{target}; peak memory target < 1500 MB")


if __name__ == "__main__":
    main()

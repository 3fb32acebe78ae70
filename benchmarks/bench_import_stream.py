"""Peak memory of importing JSON arrays and JSON Lines at two sizes: it must not grow with
the file (they are streamed, one conversation at a time).

Usage: python benchmarks/bench_import_stream.py [--messages 1000000 4000000]
                                                [--formats json jsonl csv] [--keep DIR]

For each size, writes the same conversations (10 short messages each) as a JSON array
(``.json``, format detected as with ``--format auto``), as JSON Lines and as a long CSV,
then imports each into a new project in its own fresh process and reads the process's
high-water mark (``VmHWM``). Baseline, in a fresh process too: the same interpreter with
the same modules imported and an empty project created (what any import costs before its
first row). The sizes are run alternated (small, large, small, large with ``--rounds 2``),
and the machine's load printed before and after. Target: under 500 MB at 1 M and at 4 M
messages, for every streamed format.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from alternate import load_note  # noqa: E402

WORDS = ["ok", "hi", "yes", "no", "sure", "thanks", "why", "fine", "maybe", "later"]
PER_CONVERSATION = 10
TARGET_MB = 500


def conversations(messages: int):  # type: ignore[no-untyped-def]
    rnd = random.Random(7)
    for conv in range(messages // PER_CONVERSATION):
        yield f"c{conv:x}", [("user" if k % 2 == 0 else "assistant",
                              f"{rnd.choice(WORDS)} {rnd.choice(WORDS)}")
                             for k in range(PER_CONVERSATION)]


def write(path: Path, fmt: str, messages: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            fh.write("conversation_id,role,text\n")
            for cid, turns in conversations(messages):
                fh.writelines(f"{cid},{role},{text}\n" for role, text in turns)
            return
        if fmt == "json":
            fh.write("[\n")
        for i, (cid, turns) in enumerate(conversations(messages)):
            record = json.dumps({"conversation_id": cid, "messages": [
                {"role": role, "content": text} for role, text in turns]})
            if fmt == "json":
                fh.write(("," if i else "") + record + "\n")
            else:
                fh.write(record + "\n")
        if fmt == "json":
            fh.write("]\n")


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
kind, path, db_path = sys.argv[1:4]
t0 = time.perf_counter()
from sense7_coder.domain.importers import ImportOptions
from sense7_coder.domain.importers.reading import stream_files  # what an import loads
from sense7_coder.project import Project
from sense7_coder.project.imports import import_files
from sense7_coder.resources import resolve_codebook
with Project.create(db_path, resolve_codebook("sense7")) as p:
    turns = 0 if kind == "baseline" else import_files(p, [path], ImportOptions()).turns
print(json.dumps({"seconds": time.perf_counter() - t0, "peak_mb": peak_mb(), "turns": turns}))
"""


def run(kind: str, path: Path, db_path: Path) -> dict[str, float]:
    db_path.unlink(missing_ok=True)
    out = subprocess.run(
        ["nice", "-n", "10", sys.executable, "-c", CHILD, kind, str(path), str(db_path)],
        check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    db_path.unlink(missing_ok=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--formats", nargs="+", default=["json", "jsonl"],
                    choices=["json", "jsonl", "csv"])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="s7stream-"))
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[tuple[str, int], Path] = {}
    for n in args.messages:
        for fmt in args.formats:
            path = folder / f"m{n}.{fmt}"
            if not path.exists():
                t = time.perf_counter()
                write(path, fmt, n)
                print(f"wrote {path.name}: {n:,} messages, {path.stat().st_size / 2**20:.0f} "
                      f"MiB in {time.perf_counter() - t:.0f} s", flush=True)
            files[(fmt, n)] = path
    print(load_note(), flush=True)
    base = run("baseline", files[(args.formats[0], args.messages[0])], folder / "p.sense7")
    print(f"baseline (modules + empty project): peak {base['peak_mb']:.0f} MiB", flush=True)
    for _ in range(args.rounds):
        for fmt in args.formats:
            for n in args.messages:  # the sizes alternated
                r = run("import", files[(fmt, n)], folder / "p.sense7")
                assert r["turns"] == n, r
                verdict = "ok" if r["peak_mb"] < TARGET_MB else "OVER"
                print(f"{fmt:5} {n:>9,} messages: {r['seconds']:7.1f} s  peak "
                      f"{r['peak_mb']:6.0f} MiB ({r['peak_mb'] - base['peak_mb']:+5.0f} over the "
                      f"baseline)  < {TARGET_MB} MB: {verdict}", flush=True)
    print(load_note())


if __name__ == "__main__":
    main()

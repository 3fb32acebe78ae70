"""Benchmark: the ``long`` export against pandas' own ``DataFrame.to_csv``.

Run by hand from the repository root (not collected by pytest)::

    python benchmarks/bench_export.py                 # 5,000,000 codings
    python benchmarks/bench_export.py --rows 1000000
    python benchmarks/bench_export.py --rows 1000000 --through-project

Synthetic data shaped like the store's codings frame as an export reads it
(``store.frames.codings_frame(..., categorical=True)``: ids and names as Categoricals):
5 coders x 8 SENSE-7 codes on assistant turns of 10-turn conversations, values 1-5 with
about 10% "not applicable", the users' ratings joined. The timed routes, in one run:

* baseline: ``frame.to_csv(path, index=False)`` of that frame;
* export: ``write_csv(long_table(frame, codebook), path)`` -- building the ``long`` table
  (turn/sentence columns, NA as text, level labels), neutralising formula-like cells, and
  writing in chunks to a temporary file renamed at the end. Target: <= 1.5x the baseline.

``--through-project`` also builds a project file with the same codings and times the whole
``export_project`` (SQL read included), for information. Peak memory: the growth of the
process's resident size during each route (sampled), and the process's peak.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sense7_coder.domain.export.tables import long_table, write_csv  # noqa: E402
from sense7_coder.domain.models import DIMENSIONS, Conversation, Turn  # noqa: E402
from sense7_coder.resources import resolve_codebook  # noqa: E402

CODES = ["overall", *DIMENSIONS]
CODERS = ["alice", "bashir", "chen", "dana", "emeka"]
MODELS = ["GPT4", "GPT4-empathy", "Llama2-70b", "IC"]
TURNS = (2, 4, 6, 8, 10)  # assistant positions of a 10-message conversation


def make_frame(rows: int, seed: int = 0) -> pd.DataFrame:
    """A codings frame of about ``rows`` rows, as the store returns it for an export."""
    rng = np.random.default_rng(seed)
    per_conv = len(TURNS) * len(CODES) * len(CODERS)
    n_conv = max(1, rows // per_conv)
    n = n_conv * per_conv
    conv = np.repeat(np.arange(n_conv), per_conv)
    rest = np.tile(np.arange(per_conv), n_conv)
    turn_i, rest = np.divmod(rest, len(CODES) * len(CODERS))
    code_i, coder_i = np.divmod(rest, len(CODERS))
    conv_ids = np.array([f"T{i:07d}" for i in range(n_conv)], dtype=object)
    values = rng.integers(1, 6, n).astype(object)
    values[rng.random(n) < 0.10] = None
    user = rng.integers(1, 6, n).astype(object)
    user[rng.random(n) < 0.05] = "NA"
    def cat(codes: np.ndarray, names: Any) -> pd.Categorical:
        return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype=object))

    return pd.DataFrame({
        "coder": cat(coder_i, CODERS),
        "conversation_id": cat(conv, conv_ids),
        "participant_id": cat(conv % 997, [f"P{i:04d}" for i in range(min(997, n_conv))]),
        "model": cat(conv % len(MODELS), MODELS),
        "position": np.array(TURNS)[turn_i].astype(np.int64),
        "sentence": np.zeros(n, dtype=np.int64),
        "role": cat(np.zeros(n, dtype=np.int8), ["assistant"]),
        "code": cat(code_i, CODES),
        "value": pd.Series(values, dtype=object),
        "user_rating": pd.Series(user, dtype=object),
    })


def _rss_mib() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(seconds, growth of resident memory in MiB at its peak) of one call."""
    start_rss = _rss_mib()
    peak = [start_rss]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _rss_mib())
            time.sleep(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    start = time.perf_counter()
    try:
        fn()
    finally:
        elapsed = time.perf_counter() - start
        stop.set()
        thread.join()
    return elapsed, max(peak[0], _rss_mib()) - start_rss


def through_project(frame: pd.DataFrame, folder: Path) -> None:
    """Build a project holding the frame's codings and time export_project on it."""
    from sense7_coder.project import Project
    from sense7_coder.project.export import export_project
    from sense7_coder.store import conversations as store_conv

    start = time.perf_counter()
    project = Project.create(folder / "bench.sense7", resolve_codebook("sense7"))
    convs = frame.drop_duplicates("conversation_id")
    conversations = [
        Conversation(cid, [Turn(p, "user" if p % 2 else "assistant", f"message {p}")
                           for p in range(1, 11)], participant_id=pid, model=model)
        for cid, pid, model in zip(convs["conversation_id"], convs["participant_id"],
                                   convs["model"], strict=True)
    ]
    with project.pdb.atomic() as db:
        store_conv.insert_conversations(db, conversations)
        db.conn.executemany("INSERT INTO coders(name) VALUES (?)", [(c,) for c in CODERS])
        db.conn.executemany(
            "INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
            "VALUES (?,?,?,?,?,?)",
            frame[["coder", "conversation_id", "position", "sentence", "code", "value"]]
            .itertuples(index=False, name=None),
        )
    print(f"project built in {time.perf_counter() - start:.1f} s")
    out = folder / "project-long.csv"
    seconds, grown = timed(lambda: export_project(project, out, "long"))
    print(f"export_project(kind='long'), SQL read included: {seconds:8.2f} s, "
          f"+{grown:.0f} MiB resident")
    project.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--through-project", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each route (best is kept)")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args(argv)

    book = resolve_codebook("sense7")
    start = time.perf_counter()
    frame = make_frame(args.rows, args.seed)
    print(f"{len(frame):,} codings generated in {time.perf_counter() - start:.1f} s "
          f"({frame.memory_usage(deep=True).sum() / 2**20:.0f} MiB in memory)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        base_path, out_path = folder / "baseline.csv", folder / "long.csv"
        base_runs, export_runs = [], []
        for _ in range(args.repeat):  # interleaved, so both routes see the same machine state
            base_runs.append(timed(lambda: frame.to_csv(base_path, index=False)))
            export_runs.append(timed(lambda: write_csv(long_table(frame, book), out_path)))
        t_base, m_base = min(base_runs)
        t_exp, m_exp = min(export_runs)
        print(f"pandas to_csv of the frame (best of {args.repeat}): {t_base:8.2f} s, "
              f"+{max(m for _, m in base_runs):.0f} MiB resident, "
              f"{base_path.stat().st_size / 2**20:.0f} MiB file")
        print(f"long export, build + neutralise + write (best of {args.repeat}): {t_exp:8.2f} s, "
              f"+{max(m for _, m in export_runs):.0f} MiB resident, "
              f"{out_path.stat().st_size / 2**20:.0f} MiB file")
        ratio = t_exp / t_base
        print(f"ratio export / to_csv: {ratio:.2f} (target <= 1.5); all runs: to_csv "
              f"{', '.join(f'{t:.2f}' for t, _ in base_runs)} s; export "
              f"{', '.join(f'{t:.2f}' for t, _ in export_runs)} s")
        if args.through_project:
            through_project(frame, folder)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak resident size: {rss:.0f} MiB (includes the generated frame)")
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Agreement on span codes: alpha_u with and without its bootstrap interval.

Builds a project of N conversations x 4 turns (assistant turns of ~300 characters), two
coders marking two or three spans of one binary span code per assistant turn with jittered
boundaries, written straight through the store; then times
``project.spans.agreement.span_agreement`` with no draws (the point estimates: alpha_u and
the presence alpha) and with 1,000 draws over conversations. Baseline, in the same run and
alternated with the point estimates round by round (``alternate.py``; both warm: the first
calls are warm-up rounds, not counted): ``krippendorff.alpha`` on the presence matrix
(coders x turns) alone. A third function alternated with them reads what the point
estimates read (the turns' lengths, who worked on which conversation, the code's spans)
and computes nothing: the floor of the point estimates on this machine.

    python benchmarks/bench_span_agreement.py [--conversations 1000] [--draws 1000] [--rounds 15]

Target: the point estimates <= 20x the baseline; with 1,000 draws < 30 s at 1,000
conversations.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from alternate import alternate, load_note, print_pair  # noqa: E402


def build(path: Path, conversations: int, seed: int = 0) -> None:
    from sense7_coder.domain.codebook.codes import code_from_dict
    from sense7_coder.domain.models import Conversation, Turn
    from sense7_coder.domain.spans import Span, SpanKey
    from sense7_coder.project import Project
    from sense7_coder.project.codebook.editing import add_code
    from sense7_coder.store import codings as store_codings
    from sense7_coder.store import conversations as store_conv
    from sense7_coder.store.spans import table as store_spans

    rng = random.Random(seed)
    words = ["that", "sounds", "hard", "and", "it", "makes", "sense", "you", "feel",
             "tired", "let", "us", "plan", "it", "together"]
    convs = []
    for i in range(conversations):
        turns = []
        for t in range(4):
            text = " ".join(rng.choice(words) for _ in range(60))[:300]
            turns.append(Turn(t + 1, "user" if t % 2 == 0 else "assistant", text))
        convs.append(Conversation(conversation_id=f"c{i:05d}", turns=turns))
    with Project.create(path) as project:
        add_code(project, code_from_dict({"key": "warmth", "label": "Warmth", "kind": "binary",
                                          "unit": "span"}))
        spans = []
        with project.pdb.atomic() as db:
            store_conv.insert_conversations(db, convs)
            for coder in ("alice", "bob"):
                store_codings.ensure_coder(db, coder)
            for conv in convs:
                for turn in conv.turns:
                    if turn.role != "assistant":
                        continue
                    for k in range(rng.choice((2, 3))):
                        start = 20 + k * 90 + rng.randrange(20)
                        for coder in ("alice", "bob"):
                            a = max(0, start + rng.randrange(-5, 6))
                            b = min(len(turn.text), a + 40 + rng.randrange(-8, 9))
                            spans.append(Span(SpanKey(coder, conv.conversation_id,
                                                      turn.position, a, b, "warmth"), 1))
                    for coder in ("alice", "bob"):
                        store_codings.put_done(db, coder, conv.conversation_id,
                                               turn.position, True)
            store_spans.insert_spans(db, spans)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    import krippendorff
    import numpy as np

    from sense7_coder.project import Project
    from sense7_coder.project.spans.agreement import span_agreement
    from sense7_coder.store.spans import arrays as span_arrays

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spans.sense7"
        build(path, args.conversations)
        with Project.open(path, backup=False) as project:
            turns = args.conversations * 2
            matrix = np.ones((2, turns))
            matrix[1, ::7] = 0
            print(load_note())

            def point_estimates() -> None:
                span_agreement(project, draws=0)

            def presence() -> None:
                krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")

            def read() -> None:  # what the point estimates read, nothing computed
                span_arrays.span_rows(project.db, "warmth", [0, 1])
                span_arrays.common_turns(project.db, ["alice", "bob"], ["assistant"])

            times = alternate({"point": point_estimates, "presence": presence, "read": read},
                              rounds=args.rounds, warmup=2)
            (point,) = span_agreement(project, draws=0)
            t = time.perf_counter()
            (full,) = span_agreement(project, draws=args.draws, seed=0)
            full_s = time.perf_counter() - t
            print(f"{args.conversations:,} conversations, {point.spans:,} spans, "
                  f"alpha_u {point.alpha_u:.3f} {full.alpha_u_ci}")
            print_pair("point estimates / warm presence alpha", times["point"],
                       times["presence"], target="<= 20x")
            print_pair("of which reading the project", times["read"], times["presence"],
                       target="(the floor of the point estimates)")
            print(f"with {args.draws:,} draws: {full_s:.2f} s (target < 30 s)")
            print(load_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())

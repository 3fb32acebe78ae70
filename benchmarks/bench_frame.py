"""The window's frame budget at a person's pace, against an older checkout in the same run.

    python benchmarks/bench_frame.py --against ../base-d0a0876 [--conversations 10000]
        [--turns 20] [--rounds 3] [--keep DIR]

Each round runs one fresh process per checkout, alternated (this one, the other, this one,
...; see ``alternate.py``), each opening the same project (10,000 conversations x 20 turns
by default, built once by the *older* checkout so that both can open it; this checkout
upgrades its own copy before the first round) in a 1280 x 800 window (offscreen unless
``$DISPLAY`` is set) and measuring, after warm-up moves:

* a next-turn move at a held key's 25 moves a second: ``move_turn(1)`` and one pass of the
  event loop, which paints what the move made dirty -- what the window repaints, not a
  forced repaint of everything (target p99 < 16 ms);
* setting a code at the same pace (target p99 < 16 ms);
* the idle repaint, on its own line: ``window.repaint()`` of the whole window with nothing
  changed (target: no dearer than the other checkout). Note: at ``d0a0876`` a
  ``window.repaint()`` paints none of the window's children (one Python call, no paint of
  the conversation list or the transcript); a repaint of the list's viewport alone costs
  the same there as here (see HISTORY.md, issue 39).

Wall times in ms, min / median / p95 / p99 of each process, and the GUI thread's CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from alternate import load_note  # noqa: E402

PACE_S = 0.040

PROBE = r"""
import json, os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
path, settings = sys.argv[1], sys.argv[2]
os.environ["SENSE7_CODER_SETTINGS"] = settings
from PySide6.QtWidgets import QApplication
from sense7_coder.ui.app import make_app
from sense7_coder.ui.main_window import MainWindow
app = make_app()
win = MainWindow(); win.resize(1280, 800); win.show()
assert win.open_project(__import__("pathlib").Path(path), coder="bench")
for _ in range(10):
    QApplication.processEvents()
ws = win.workspace
def paced(step, n):
    walls, cpus = [], []
    for i in range(n):
        t0 = time.perf_counter(); c0 = time.thread_time()
        step(i); QApplication.processEvents()
        walls.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.thread_time() - c0) * 1000)
        while time.perf_counter() - t0 < 0.040:
            QApplication.processEvents(); time.sleep(0.001)
    return walls, cpus
paced(lambda i: ws.move_turn(1), 30)  # warm-up
moves, moves_cpu = paced(lambda i: ws.move_turn(1), int(sys.argv[3]))
codes = [c.key for c in ws.project.codebook.active]
def set_code(i):
    ws.choose(codes[i % len(codes)], 1 + i % 5)
    if i % len(codes) == len(codes) - 1:
        ws.move_turn(1)
sets, sets_cpu = paced(set_code, int(sys.argv[3]))
idle = []
for _ in range(40):
    t0 = time.perf_counter(); win.repaint(); QApplication.processEvents()
    idle.append((time.perf_counter() - t0) * 1000)
print("RESULT " + json.dumps({"moves": moves, "moves_cpu": moves_cpu, "sets": sets,
                              "sets_cpu": sets_cpu, "idle": idle[5:]}))
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def run(tree: Path, project: Path, settings: Path, n: int) -> dict[str, list[float]]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", PROBE, str(project), str(settings), str(n)],
                          capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(),
                          timeout=600)
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if not line:
        raise SystemExit(f"{tree}: no result\n{done.stderr[-3000:]}")
    result: dict[str, list[float]] = json.loads(line[-1][len("RESULT "):])
    return result


def line(name: str, values: list[float], target: float | None = None) -> str:
    verdict = "" if target is None else f"  p99 < {target:g} ms: " + (
        "ok" if pct(values, 99) < target else "OVER")
    return (f"{name:<40} min {min(values):6.1f}  median {statistics.median(values):6.1f}  "
            f"p95 {pct(values, 95):6.1f}  p99 {pct(values, 99):6.1f} ms{verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, required=True, help="the older checkout")
    ap.add_argument("--conversations", type=int, default=10_000)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    ours = HERE.parent
    other = args.against.resolve()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sense7-frame-"))
    folder.mkdir(parents=True, exist_ok=True)
    old_file = folder / f"other-{args.conversations}x{args.turns}.sense7"
    if not old_file.exists():  # built by the older checkout: both can open it
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                        "from bench_gui import build; from pathlib import Path;"
                        "build(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))",
                        str(other / "benchmarks"), str(old_file), str(args.conversations),
                        str(args.turns)], env=dict(os.environ, PYTHONPATH=str(other)),
                       check=True, cwd=tempfile.gettempdir())
    new_file = folder / "ours.sense7"
    if not new_file.exists():
        shutil.copyfile(old_file, new_file)
        run(ours, new_file, folder / "ours.ini", 5)  # upgrades its copy once, untimed
    print(load_note(), flush=True)
    sides = {"this checkout": (ours, new_file, folder / "ours.ini"),
             f"{other.name}": (other, old_file, folder / "other.ini")}
    for r in range(args.rounds):
        for name, (tree, project, settings) in sides.items():
            res = run(tree, project, settings, args.moves)
            print(f"round {r + 1}, {name}:")
            print("  " + line("next turn at 25/s (what is repainted)", res["moves"], 16))
            print("  " + line("   GUI thread CPU", res["moves_cpu"]))
            print("  " + line("set a code at 25/s", res["sets"], 16))
            print("  " + line("   GUI thread CPU", res["sets_cpu"]))
            print("  " + line("idle repaint (whole window, forced)", res["idle"]), flush=True)
    print(load_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast sense7-coder starts (run by hand; not a test).

    python benchmarks/bench_startup.py [--runs 20] [--no-gui] [--project BIG.sense7]

Runs each command line in a fresh interpreter ``--runs`` times, alternated with the
baseline ``python -c pass`` (pass, --help, --version, info, codebook list, pass, ...;
after two warm-up rounds, so the disk cache is warm; see ``alternate.py``), and prints
for each the CPU time (user + system, of the child) over the baseline's in the same round
-- min and median -- and the wall time's min, median and ratio:

* ``--help``, ``--version``, ``info`` and ``codebook list`` on a new project: target
  under 0.2 s of CPU over ``python -c pass`` (and under 0.3 s of wall time);
* the same two on ``--project`` where given (a large project: opening one runs SQLite's
  ``quick_check`` over the whole file, which grows with its size);
* the window on screen (the welcome screen, and the workspace on the demo project): from
  the start of the interpreter to the first paint of the main window, reported by the
  window itself; target under 1.5 s. Uses ``$DISPLAY`` where set, else Qt's offscreen
  platform (which skips the display server's share of the work).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from alternate import alternate, load_note  # noqa: E402

CLI_TARGET = 0.3
CPU_TARGET = 0.2
GUI_TARGET = 1.5

#: started in a fresh interpreter: opens the window, prints the seconds from the start of
#: the process to its first paint, and quits
GUI_PROBE = r"""
import sys, time
from sense7_coder.ui import system_libs
problem = system_libs.check()  # as `sense7-coder gui` does before importing Qt
if problem:
    raise SystemExit(problem)
from sense7_coder.ui.app import make_app
from sense7_coder.ui.main_window import MainWindow
from PySide6.QtCore import QEvent, QObject, QTimer

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print(f"PAINTED {time.monotonic() - float(sys.argv[1]):.4f}", flush=True)
            QTimer.singleShot(0, app.quit)
            self.deleteLater()
        return False

app = make_app()
window = MainWindow()
probe = FirstPaint()
window.installEventFilter(probe)
window.show()
if len(sys.argv) > 2:
    window.open_project(__import__("pathlib").Path(sys.argv[2]), coder="bench")
app.exec()
"""


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), out.get("PYTHONPATH")]))
    out.setdefault("SENSE7_CODER_SETTINGS", str(Path(tempfile.gettempdir()) / "bench-startup.ini"))
    if not out.get("DISPLAY") and not out.get("WAYLAND_DISPLAY"):
        out.setdefault("QT_QPA_PLATFORM", "offscreen")
    return out


def wall(cmd: list[str], runs: int) -> list[float]:
    times = []
    for i in range(runs + 2):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(),
                       check=True)
        if i >= 2:  # two warm-up runs
            times.append(time.perf_counter() - t0)
    return times


def child_cpu(cmd: list[str]) -> tuple[float, float]:
    """Run ``cmd`` once: its CPU seconds (user + system) and its wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(),
                   check=True)
    wall_s = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall_s


def cli_rounds(commands: dict[str, list[str]], runs: int) -> None:
    """Every command and the baseline alternated in each round; CPU over the baseline's
    CPU in the same round, and wall ratios."""
    walls: dict[str, list[float]] = {name: [] for name in commands}

    def one(name: str, cmd: list[str]) -> float:
        cpu, wall_s = child_cpu(cmd)
        walls[name].append(wall_s)
        return cpu

    cpu = alternate({name: (lambda n=name, c=cmd: one(n, c)) for name, cmd in commands.items()},
                    rounds=runs, warmup=2)
    for name in walls:
        walls[name] = walls[name][2:]
    base_cpu, base_wall = cpu["pass"], walls["pass"]
    print(f"{'command':<28} {'CPU over pass: min':>18} {'median':>7} | {'wall min':>8} "
          f"{'median':>7} {'ratio':>7}  target")
    for name in commands:
        over = [a - b for a, b in zip(cpu[name], base_cpu, strict=True)]
        ratio = statistics.median([a / b for a, b in zip(walls[name], base_wall, strict=True)])
        med = statistics.median(over)
        verdict = "" if name == "pass" else (
            f"< {CPU_TARGET} s CPU: {'ok' if med < CPU_TARGET else 'OVER'}")
        print(f"{name:<28} {min(over):18.3f} {med:7.3f} | {min(walls[name]):8.3f} "
              f"{statistics.median(walls[name]):7.3f} {ratio:6.2f}x  {verdict}")


def window_times(runs: int, project: Path | None) -> list[float]:
    times = []
    for i in range(runs + 1):
        extra = [str(project)] if project else []
        # the probe measures from this monotonic instant, taken just before the process starts
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-c", GUI_PROBE, f"{t0:.6f}", *extra],
                              capture_output=True, text=True, env=env(), timeout=120)
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("PAINTED ")]
        if not line:
            raise SystemExit(f"the window did not paint:\n{proc.stderr[-2000:]}")
        if i >= 1:
            times.append(float(line[-1].split()[1]))
    return times


def row(name: str, times: list[float], base: float, target: float | None) -> None:
    med = statistics.median(times)
    verdict = "" if target is None else ("ok" if med < target else "OVER")
    tgt = "" if target is None else f"< {target:.1f} s"
    print(f"{name:<28} {med:7.3f} {min(times):7.3f} {med / base:7.1f}x  {tgt:<8} {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--no-gui", action="store_true")
    ap.add_argument("--project", type=Path, help="also time info and codebook list on this file")
    args = ap.parse_args()

    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "bench.sense7"
        subprocess.run([py, "-m", "sense7_coder", "init", str(project)], env=env(), check=True,
                       stdout=subprocess.DEVNULL)
        print(load_note())
        cli = [py, "-m", "sense7_coder"]
        cli_rounds({"pass": [py, "-c", "pass"], "--help": [*cli, "--help"],
                    "--version": [*cli, "--version"], "info": [*cli, "info", str(project)],
                    "codebook list": [*cli, "codebook", str(project), "list"]}, args.runs)
        print(load_note())
        base = statistics.median(wall([py, "-c", "pass"], max(3, args.runs // 4)))
        if args.project:
            size = f"{args.project.stat().st_size / 1e6:.0f} MB"
            for name, extra in (("info", ["info", str(args.project)]),
                                ("codebook list", ["codebook", str(args.project), "list"])):
                row(f"{name} ({size})", wall([py, "-m", "sense7_coder", *extra],
                                             max(3, args.runs // 4)), base, CLI_TARGET)
        if not args.no_gui:
            demo = Path(tmp) / "demo"
            subprocess.run([py, "-m", "sense7_coder", "demo", str(demo), "--no-gui"], env=env(),
                           check=True, stdout=subprocess.DEVNULL)
            demo_file = next(demo.glob("*.sense7"))
            runs = max(3, args.runs // 4)
            row("window (welcome screen)", window_times(runs, None), base, GUI_TARGET)
            row("window (demo workspace)", window_times(runs, demo_file), base, GUI_TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())

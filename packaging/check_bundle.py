"""Check the desktop bundle by hand: build it, start it on the demo, time it.

    python packaging/check_bundle.py [--no-build] [--bundle DIR] [--timeout S]

1. builds the bundle (``packaging/build.py``) unless ``--no-build``;
2. checks the command line answers (``--version`` names the pyproject version; ``demo
   --no-gui`` builds the demo project from the bundled resources, which also segments
   sentences with the bundled spaCy pipeline);
3. starts the window offscreen on that demo (``QT_QPA_PLATFORM=offscreen``) with the
   start-up check of :mod:`sense7_coder.ui.smoke`, which reports what is on screen once
   the event loop runs, and fails unless the workspace came up with the demo's first
   conversation;
4. runs the bundle as the window's file dialog (``--file-picker``, offscreen, scripted
   to pick the demo project);
5. reports the bundle's size and the cold and warm start times (the first start after
   the build, then the quickest of three more).

Exit status 0 when everything came up, 1 otherwise. Not part of the test suite: a build
takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build  # noqa: E402  (packaging/build.py)


def fail(message: str) -> int:
    print(f"FAILED: {message}", file=sys.stderr)
    return 1


def start_window(exe: Path, project: Path, timeout: float) -> tuple[float, dict[str, object]]:
    """Seconds until the window reported itself, and its report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SENSE7_CODER_SMOKE": str(report),
               "SENSE7_CODER_SMOKE_CODER": "bundle-check"}
        began = time.perf_counter()
        proc = subprocess.run([str(exe), "gui", str(project)], env=env, capture_output=True,
                              text=True, timeout=timeout)
        seconds = time.perf_counter() - began
        if proc.returncode != 0 or not report.exists():
            raise RuntimeError(f"the window did not come up (exit {proc.returncode}):\n"
                               f"{proc.stdout[-2000:]}{proc.stderr[-4000:]}")
        return seconds, json.loads(report.read_text(encoding="utf-8"))


def pick_in_bundle(exe: Path, folder: Path, timeout: float) -> str:
    """The bundle as the window's file dialog (``--file-picker``): Qt's dialog lists
    ``folder`` offscreen and picks its project; what it answered ("" when it did not)."""
    project = next(folder.glob("*.sense7"))
    answer = folder / "picked.json"
    request = {"mode": "open", "title": "Open project", "start": str(folder),
               "filters": "sense7-coder projects (*.sense7)"}
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "SENSE7_CODER_PICKER_SCRIPT": json.dumps({"folder": str(folder),
                                                     "pick": [str(project)]})}
    run = subprocess.run([str(exe), "--file-picker", json.dumps(request), str(answer)],
                         env=env, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0 or not answer.exists():
        raise RuntimeError(f"the file dialog failed (exit {run.returncode}): "
                           f"{run.stderr[-2000:]}")
    paths = json.loads(answer.read_text(encoding="utf-8"))["paths"]
    return paths[0] if paths == [str(project)] else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check the bundle already built")
    parser.add_argument("--bundle", type=Path, help="the bundle folder (default: dist/<name>)")
    parser.add_argument("--timeout", type=float, default=120.0, help="per start, seconds")
    args = parser.parse_args(argv)
    if not args.no_build and build.main([]) != 0:
        return fail("the build failed")
    bundle = args.bundle or build.DIST / build.bundle_name()
    exe = bundle / ("sense7-coder.exe" if sys.platform == "win32" else "sense7-coder")
    if not exe.exists():
        return fail(f"{exe} does not exist; build first")
    for path in bundle.rglob("*"):
        parts = set(path.relative_to(bundle).parts)
        if parts & {"tests", "pytest", "_pytest", "mypy", "ruff"}:
            return fail(f"development files in the bundle: {path}")

    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True,
                             timeout=args.timeout)
    if build.version() not in version.stdout:
        return fail(f"--version said {version.stdout.strip()!r}{version.stderr[-500:]}")
    with tempfile.TemporaryDirectory() as tmp:
        demo = subprocess.run([str(exe), "demo", tmp, "--no-gui"], capture_output=True,
                              text=True, timeout=args.timeout)
        projects = list(Path(tmp).glob("*.sense7"))
        if demo.returncode != 0 or not projects:
            return fail(f"demo --no-gui failed:\n{demo.stdout}{demo.stderr[-3000:]}")
        try:
            cold, state = start_window(exe, projects[0], args.timeout)
            warm = min(start_window(exe, projects[0], args.timeout)[0] for _ in range(3))
            picked = pick_in_bundle(exe, Path(tmp), args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return fail(str(e))
        if not picked:
            return fail("the file dialog did not pick the demo project")
    if not (state.get("shown") and state.get("project") and state.get("turns")):
        return fail(f"the workspace did not show the demo: {state}")
    size = build.folder_size(bundle) / 2**20
    print(f"bundle:      {bundle}")
    print(f"version:     {version.stdout.strip()}")
    print(f"size:        {size:.0f} MB")
    print(f"window:      {state['title']!r}, conversation {state['conversation']} "
          f"({state['turns']} turns), platform {state['platform']}")
    print(f"cold start:  {cold:.2f} s (first start after the build, until the window "
          "reported itself)")
    print(f"warm start:  {warm:.2f} s (quickest of three more)")
    print("file dialog: the bundle's --file-picker listed the demo's folder and picked it")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

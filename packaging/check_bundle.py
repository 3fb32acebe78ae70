"""Check the desktop bundle as a researcher would use it, on a machine with no Python.

    python packaging/check_bundle.py [--no-build] [--bundle DIR] [--timeout S]
                                     [--max-glibc 2.35]

Run it with the build environment (packaging/README.md): that Python, with the checkout's
code, is the reference the bundle is compared with. Every run of the bundle gets a minimal
environment (as ``env -i PATH=/usr/bin:/bin HOME=<empty folder>``: no Python, no virtual
environment, no locale), and any traceback in its output fails the check.

1. builds the bundle (``packaging/build.py``) unless ``--no-build``; no test suites or
   development tools in it;
2. ``--version`` names the pyproject version; ``demo --no-gui`` builds the demo project
   from the bundled resources (sense7 CSV import, codings CSV import, spaCy's sentencizer);
3. ``analyze`` on the demo writes the same files as the reference (every table, figure and
   index.html), its tables byte for byte, and ``analyze --no-figures`` works too;
4. ``agreement --format report`` prints what the reference prints, byte for byte;
   the record of versions: the methods paragraph in it, an
   export's ``.meta.json`` and Help > About (from the window's report) name the same
   versions as the reference's installed metadata, none "not installed" or unknown;
5. exports in every format (CSV, Excel, SPSS .sav: read back here, same rows) and a REFI-QDA
   ``.qdpx`` that a new project is made from; a ``.qdpx`` breaking the REFI-QDA schema is
   refused (the schema file and xmlschema are in the bundle); imports of a long CSV, a JSON
   chat, JSON Lines, a transcript, a SENSE-7 workbook, and the exported codings back;
6. the window offscreen on the demo (``QT_QPA_PLATFORM=offscreen``, the start-up report of
   :mod:`sense7_coder.ui.smoke`): the workspace with the demo's first conversation, and
   the agreement plot drawn in it; the bundle as the window's file dialog
   (``--file-picker``, offscreen, scripted to pick the demo project);
7. on Linux, the AppStream metainfo validates (``appstreamcli validate``, where installed);
8. reports the bundle's size, the cold and warm start times (the first window start after
   the build, then the quickest of three more at the end) and, on Linux, the newest glibc
   symbol version any bundled binary needs (``--max-glibc`` fails above it).

Exit status 0 when everything passed, 1 otherwise (every failure is listed). Not part of
the test suite: a build takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build  # noqa: E402  (packaging/build.py)

TRACEBACK = "Traceback (most recent call last)"
#: what the record of versions must name as the reference's installed metadata does
RECORDED = ("numpy", "scipy", "krippendorff")
ABOUT = ("numpy", "scipy", "pandas", "krippendorff", "matplotlib", "openpyxl", "pyreadstat",
         "spacy", "xmlschema")
CLI = "import sys; from sense7_coder.cli import main; sys.exit(main())"


class Failure(Exception):
    """One check that did not pass."""


def minimal_env(home: Path) -> dict[str, str]:
    """What ``env -i`` leaves plus a home: no Python, no virtual environment, no locale."""
    home.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":
        root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        tmp = home / "tmp"
        tmp.mkdir(exist_ok=True)
        return {"SYSTEMROOT": root, "WINDIR": root, "PATH": rf"{root}\System32;{root}",
                "USERPROFILE": str(home), "APPDATA": str(home / "AppData" / "Roaming"),
                "LOCALAPPDATA": str(home / "AppData" / "Local"), "TEMP": str(tmp),
                "TMP": str(tmp)}
    return {"PATH": "/usr/bin:/bin", "HOME": str(home)}


class Checker:
    def __init__(self, bundle: Path, timeout: float, work: Path) -> None:
        self.bundle = bundle
        self.exe = build.executable(bundle)
        self.gui_exe = build.executable(bundle, console=False)
        self.timeout = timeout
        self.work = work
        self.env = minimal_env(work / "home")
        self.failures: list[str] = []

    # -- running ------------------------------------------------------------------------
    def _run(self, cmd: list[str], env: dict[str, str], cwd: Path, what: str,
             expect: int = 0) -> subprocess.CompletedProcess[str]:
        try:
            proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                                  encoding="utf-8", errors="replace", timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"{what}: no answer within {self.timeout:.0f} s") from None
        out = proc.stdout + proc.stderr
        if TRACEBACK in out:
            raise Failure(f"{what}: a traceback\n{out[-4000:]}")
        if proc.returncode != expect:
            raise Failure(f"{what}: exit {proc.returncode}, expected {expect}\n{out[-3000:]}")
        return proc

    def bundle_run(self, *args: str, cwd: Path | None = None, expect: int = 0,
                   extra: dict[str, str] | None = None, gui: bool = False
                   ) -> subprocess.CompletedProcess[str]:
        exe = self.gui_exe if gui else self.exe
        return self._run([str(exe), *args], {**self.env, **(extra or {})}, cwd or self.work,
                         f"bundle: sense7-coder {' '.join(args)}", expect)

    def reference_run(self, *args: str, cwd: Path | None = None
                      ) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(build.ROOT), "QT_QPA_PLATFORM": "offscreen"}
        return self._run([sys.executable, "-c", CLI, *args], env, cwd or self.work,
                         f"reference: sense7-coder {' '.join(args)}")

    def step(self, name: str, check: Any, *args: Any) -> Any:
        try:
            result = check(*args)
        except Failure as e:
            self.failures.append(f"{name}: {e}")
            print(f"FAIL  {name}", flush=True)
            return None
        print(f"ok    {name}", flush=True)
        return result

    # -- the checks -----------------------------------------------------------------------
    def file_picker(self, project: Path) -> str:
        """The bundle as the window's file dialog (``--file-picker``, run by the window in a
        process of its own): Qt's dialog lists the demo's folder offscreen and picks it."""
        answer = self.work / "picked.json"
        request = {"mode": "open", "title": "Open project", "start": str(project.parent),
                   "filters": "sense7-coder projects (*.sense7)"}
        extra = {"QT_QPA_PLATFORM": "offscreen",
                 "SENSE7_CODER_PICKER_SCRIPT": json.dumps({"folder": str(project.parent),
                                                           "pick": [str(project)]})}
        self.bundle_run("--file-picker", json.dumps(request), str(answer), extra=extra,
                        gui=True)
        if not answer.exists():
            raise Failure("the file dialog wrote no answer")
        paths = json.loads(answer.read_text(encoding="utf-8"))["paths"]
        if paths != [str(project)]:
            raise Failure(f"the file dialog picked {paths}, not {project}")
        return project.name

    def no_development_files(self) -> None:
        for path in self.bundle.rglob("*"):
            parts = set(path.relative_to(self.bundle).parts)
            if parts & {"tests", "pytest", "_pytest", "mypy", "ruff"}:
                raise Failure(f"development files in the bundle: {path}")

    def appstream(self) -> str:
        """The installed metainfo validates (Linux, where appstreamcli is installed)."""
        metainfo = self.bundle / "share" / "metainfo" / f"{build.APP_ID}.metainfo.xml"
        tool = shutil.which("appstreamcli")
        if tool is None:
            return "not checked: appstreamcli is not installed"
        proc = subprocess.run([tool, "validate", "--no-net", str(metainfo)],
                              capture_output=True, text=True, timeout=self.timeout)
        if proc.returncode != 0:
            raise Failure(f"appstreamcli validate:\n{proc.stdout}{proc.stderr}")
        return "valid"

    def version(self) -> str:
        out = self.bundle_run("--version").stdout.strip()
        if build.version() not in out:
            raise Failure(f"--version said {out!r}, not {build.version()}")
        return out

    def demo(self) -> Path:
        folder = self.work / "demo"
        folder.mkdir()
        self.bundle_run("demo", str(folder), "--no-gui")
        projects = list(folder.glob("*.sense7"))
        if not projects:
            raise Failure("demo --no-gui made no project")
        return projects[0]

    def analyze(self, project: Path) -> int:
        ours, theirs = self.work / "analyze-bundle", self.work / "analyze-reference"
        self.bundle_run("analyze", str(project), "--out", str(ours))
        self.reference_run("analyze", str(project), "--out", str(theirs))
        names = {p.relative_to(ours).as_posix() for p in ours.rglob("*") if p.is_file()}
        wanted = {p.relative_to(theirs).as_posix() for p in theirs.rglob("*") if p.is_file()}
        if names != wanted:
            raise Failure(f"analyze wrote {len(names)} files, the reference {len(wanted)}; "
                          f"missing {sorted(wanted - names)}, extra {sorted(names - wanted)}")
        differ = [n for n in sorted(names) if n.endswith(".csv")
                  and (ours / n).read_bytes() != (theirs / n).read_bytes()]
        if differ:
            raise Failure(f"analyze's tables differ from the reference's: {differ}")
        recorded = versions_line((ours / "index.html").read_text(encoding="utf-8"))
        if recorded != versions_line((theirs / "index.html").read_text(encoding="utf-8")):
            raise Failure(f"analyze's report names other versions: {recorded}")
        tables = self.work / "analyze-tables"
        self.bundle_run("analyze", str(project), "--out", str(tables), "--no-figures")
        if not list(tables.glob("*.csv")):
            raise Failure("analyze --no-figures wrote no table")
        return len(names)

    def version_record(self, project: Path, about: dict[str, str] | None) -> dict[str, str]:
        reference = installed_versions()
        quick = ("--format", "report", "--bootstrap", "0")
        methods = self.bundle_run("agreement", str(project), *quick).stdout
        theirs = self.reference_run("agreement", str(project), *quick).stdout
        said = methods_versions(methods)
        if said is None or said != methods_versions(theirs):
            raise Failure(f"the methods paragraph says {said!r}, the reference "
                          f"{methods_versions(theirs)!r}")
        if methods != theirs:  # the figures too, to the last digit
            raise Failure("agreement's report differs from the reference's")
        out = self.work / "versions" / "agreement.csv"
        out.parent.mkdir()
        self.bundle_run("export", str(project), str(out), "--kind", "agreement",
                        "--bootstrap", "0")
        meta = json.loads(out.with_name("agreement.csv.meta.json").read_text(encoding="utf-8"))
        recorded = meta["computed_with"]
        wrong = {k: (recorded.get(k), reference[k]) for k in RECORDED
                 if recorded.get(k) != reference[k]}
        if recorded.get("sense7-coder") != build.version():
            wrong["sense7-coder"] = (recorded.get("sense7-coder"), build.version())
        if wrong:
            raise Failure(f"the export's .meta.json (bundle, reference): {wrong}")
        if about is None:
            raise Failure("no Help > About versions: the window did not report")
        wrong = {k: (about.get(k), reference[k]) for k in ABOUT if about.get(k) != reference[k]}
        if wrong:
            raise Failure(f"Help > About (bundle, reference): {wrong}")
        return {k: reference[k] for k in RECORDED}

    def exports(self, project: Path) -> list[str]:
        folder = self.work / "exports"
        folder.mkdir()
        rows = {}
        for fmt in ("csv", "xlsx", "sav"):
            out = folder / f"long.{fmt}"
            self.bundle_run("export", str(project), str(out), "--kind", "long")
            rows[fmt] = read_rows(out)
        if len(set(rows.values())) != 1 or not rows["csv"]:
            raise Failure(f"the long table's rows per format differ: {rows}")
        qdpx = folder / "demo.qdpx"
        self.bundle_run("export-qdpx", str(project), str(qdpx))
        self.bundle_run("init", str(folder / "from-qdpx.sense7"), "--from", str(qdpx))
        broken = break_schema(qdpx, folder / "broken.qdpx")
        refused = self.bundle_run("init", str(folder / "broken.sense7"), "--from", str(broken),
                                  expect=2)
        if "breaks the REFI-QDA project schema" not in refused.stderr:
            raise Failure("a .qdpx breaking the REFI-QDA schema was not refused for it "
                          f"(schema or xmlschema missing?): {refused.stderr[-500:]}")
        return [f"{fmt} ({n} rows)" for fmt, n in rows.items()] + ["qdpx both ways"]

    def imports(self, project: Path) -> list[str]:
        folder = self.work / "imports"
        files = write_import_files(folder)
        target = folder / "imports.sense7"
        self.bundle_run("init", str(target))
        for path in files:
            self.bundle_run("import", str(target), str(path))
        exported = self.work / "exports" / "long.csv"
        if exported.exists():  # the codings read back into the project they came from
            self.bundle_run("import-codings", str(project), str(exported))
        return [p.suffix for p in files] + ["codings CSV"]

    def window(self, project: Path, plot: bool = True) -> tuple[float, dict[str, Any]]:
        """Seconds until the window reported itself, and its report."""
        report = self.work / f"report-{time.monotonic_ns()}.json"
        extra = {"QT_QPA_PLATFORM": "offscreen", "SENSE7_CODER_SMOKE": str(report),
                 "SENSE7_CODER_SMOKE_CODER": "bundle-check"}
        if plot:
            extra["SENSE7_CODER_SMOKE_PLOT"] = "1"
        began = time.perf_counter()
        self.bundle_run("gui", str(project), extra=extra, gui=True)
        seconds = time.perf_counter() - began
        if not report.exists():
            raise Failure("the window did not report itself")
        state = json.loads(report.read_text(encoding="utf-8"))
        if not (state.get("shown") and state.get("project") and state.get("turns")):
            raise Failure(f"the workspace did not show the demo: {state}")
        if plot and not (state.get("plot") or {}).get("drawn"):
            raise Failure(f"the agreement plot was not drawn: {state.get('plot')}")
        return seconds, state


# -- helpers ------------------------------------------------------------------------------

def installed_versions() -> dict[str, str]:
    """The reference's versions, from its installed metadata."""
    from importlib.metadata import version

    return {name: version(name) for name in (*RECORDED, *ABOUT)}


def versions_line(html: str) -> str | None:
    found = re.search(r"sense7-coder [0-9][^<]*?krippendorff [^<.]+(?:\.[0-9]+)*", html)
    return found.group(0) if found else None


def methods_versions(text: str) -> str | None:
    found = re.search(r"computed with (sense7-coder [^()]*\([^()]*\))", text)
    return found.group(1) if found else None


def read_rows(path: Path) -> int:
    import pandas as pd

    if path.suffix == ".csv":
        return len(pd.read_csv(path))
    if path.suffix == ".xlsx":
        return len(pd.read_excel(path, sheet_name=0))
    import pyreadstat

    return len(pyreadstat.read_sav(str(path))[0])


def break_schema(qdpx: Path, out: Path) -> Path:
    """A copy of ``qdpx`` whose project.qde has an element the REFI-QDA schema forbids (the
    app's own checks would read it; only the schema refuses it)."""
    with zipfile.ZipFile(qdpx) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "project.qde":
                text = data.decode("utf-8")
                at = text.index(">", text.index("<Project")) + 1
                data = (text[:at] + "<NotInTheSchema/>" + text[at:]).encode("utf-8")
            dst.writestr(info, data)
    return out


def write_import_files(folder: Path) -> list[Path]:
    """One small file per import format besides the demo's SENSE-7 CSV tables."""
    import csv

    import openpyxl

    folder.mkdir()
    chat = [{"role": "user", "content": "I lost my job today."},
            {"role": "assistant", "content": "I am sorry. How are you feeling?"}]
    files = {
        "long.csv": "conversation_id,role,text\nc1,user,I lost my job today.\n"
                    "c1,assistant,I am sorry. How are you feeling?\n",
        "chat.json": json.dumps({"id": "j1", "messages": chat}),
        "chats.jsonl": "".join(json.dumps({"id": f"l{i}", "messages": chat}) + "\n"
                               for i in (1, 2)),
        "transcript.txt": "User: I cannot sleep.\nAssistant: That is exhausting. What keeps "
                          "you awake?\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for sheet in ("Tasks", "Messages"):
        ws = book.create_sheet(sheet)
        with open(build.ROOT / "resources" / "demo" / f"{sheet}.csv", encoding="utf-8",
                  newline="") as fh:
            for row in csv.reader(fh):
                ws.append(row)
    book.save(folder / "sense7.xlsx")
    return [folder / name for name in files] + [folder / "sense7.xlsx"]


def glibc_floor(bundle: Path) -> tuple[tuple[int, ...], Path | None]:
    """The newest ``GLIBC_x.y`` symbol version any ELF file in the bundle needs."""
    pattern = re.compile(rb"GLIBC_(2\.[0-9]+(?:\.[0-9]+)?)\x00")
    newest: tuple[int, ...] = (0,)
    where = None
    for path in bundle.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as fh:
            if fh.read(4) != b"\x7fELF":
                continue
        for match in pattern.finditer(path.read_bytes()):
            found = tuple(int(x) for x in match.group(1).split(b"."))
            if found > newest:
                newest, where = found, path
    return newest, where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check the bundle already built")
    parser.add_argument("--bundle", type=Path, help="the bundle folder (default: dist/<name>)")
    parser.add_argument("--timeout", type=float, default=300.0, help="per run, seconds")
    parser.add_argument("--max-glibc", help="Linux: fail if a binary needs a newer glibc")
    args = parser.parse_args(argv)
    if not args.no_build and build.main([]) != 0:
        print("FAILED: the build failed", file=sys.stderr)
        return 1
    bundle = (args.bundle or build.DIST / build.bundle_name()).resolve()
    if not build.executable(bundle).exists():
        print(f"FAILED: {build.executable(bundle)} does not exist; build first",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(bundle, args.timeout, Path(tmp))
        c.step("no test suites or development tools", c.no_development_files)
        version = c.step("--version", c.version)
        project = c.step("demo --no-gui", c.demo)
        if project is None:
            return report_failures(c)
        cold = c.step("window offscreen on the demo (the first start)", c.window, project,
                      False)
        shown = c.step("window offscreen, agreement plot drawn", c.window, project)
        files = c.step("analyze: the reference's files and tables", c.analyze, project)
        record = c.step("versions in the methods paragraph, .meta.json and About",
                        c.version_record, project, cold[1].get("about") if cold else None)
        exported = c.step("exports (csv, xlsx, sav, qdpx) and the schema check", c.exports,
                          project)
        imported = c.step("imports", c.imports, project)
        c.step("the window's file dialog (--file-picker) picks the demo", c.file_picker,
               project)
        appstream = (c.step("AppStream metainfo validates", c.appstream)
                     if sys.platform.startswith("linux") else None)
        warm = c.step("warm starts", lambda: min(c.window(project, False)[0] for _ in range(3)))
        if c.failures:
            return report_failures(c)
    print(f"\nbundle:      {bundle}")
    print(f"version:     {version}")
    print(f"size:        {build.folder_size(bundle) / 2**20:.0f} MB")
    print(f"analyze:     {files} files, as the reference")
    print(f"versions:    {', '.join(f'{k} {v}' for k, v in record.items())}")
    print(f"exports:     {', '.join(exported)}")
    print(f"imports:     {', '.join(imported)}")
    state = shown[1]
    print(f"window:      {state['title']!r}, conversation {state['conversation']} "
          f"({state['turns']} turns), platform {state['platform']}")
    print(f"cold start:  {cold[0]:.2f} s (the first start after the build, until the window "
          "reported itself)")
    print(f"warm start:  {warm:.2f} s (quickest of three more)")
    if appstream:
        print(f"appstream:   {appstream}")
    if sys.platform.startswith("linux"):
        floor, where = glibc_floor(bundle)
        text = ".".join(map(str, floor))
        print(f"glibc:       {text} or newer (the newest needed, by "
              f"{where.relative_to(bundle) if where else 'nothing'})")
        if args.max_glibc and floor > tuple(int(x) for x in args.max_glibc.split(".")):
            print(f"FAILED: the bundle needs glibc {text}, above {args.max_glibc}",
                  file=sys.stderr)
            return 1
    print("OK")
    return 0


def report_failures(c: Checker) -> int:
    for failure in c.failures:
        print(f"\nFAILED: {failure}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

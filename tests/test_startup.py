"""The light commands answer at once: they never import the heavy libraries.

``--help``, ``--version``, ``info`` and ``codebook list`` run in a fresh interpreter; the
test fails when any heavy module (pandas, numpy, scipy, spaCy, Qt, openpyxl, matplotlib,
scikit-learn, krippendorff, ...) ends up in ``sys.modules``. Times are measured by
``benchmarks/bench_startup.py``, never here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: top-level packages a light command must not load
HEAVY = (
    "pandas", "numpy", "scipy", "spacy", "thinc", "PySide6", "shiboken6", "openpyxl",
    "matplotlib", "sklearn", "krippendorff", "pyreadstat", "xmlschema",
)

PROBE = """
import json, sys
from sense7_coder.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:  # --help and --version end through argparse
    code = e.code
heavy = {heavy!r}
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
sys.stderr.write("\\nPROBE " + json.dumps({{"code": code, "loaded": loaded}}) + "\\n")
"""


def loaded_by(*args: str) -> tuple[int, list[str]]:
    """Run the command line in a fresh interpreter; its exit code and the heavy modules
    that were imported."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=120,
    )
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("PROBE ")]
    assert line, proc.stderr
    result = json.loads(line[-1][len("PROBE "):])
    return result["code"], result["loaded"]


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sense7_coder.cli import main

    path = tmp_path_factory.mktemp("startup") / "study.sense7"
    assert main(["init", str(path)]) == 0
    return path


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("init", "--help"),
                                  ("import", "--help"), ("agreement", "--help"),
                                  ("export", "--help"), ("merge", "--help")])
def test_help_and_version_import_nothing_heavy(args: tuple[str, ...]) -> None:
    code, loaded = loaded_by(*args)
    assert code == 0
    assert loaded == []


@pytest.mark.parametrize("args", [("info",), ("info", "--json"), ("codebook", "list"),
                                  ("codebook", "list", "--json")])
def test_reading_a_project_imports_nothing_heavy(project: Path, args: tuple[str, ...]) -> None:
    code, loaded = loaded_by(args[0], str(project), *args[1:])
    assert code == 0
    assert loaded == []


def test_the_probe_sees_heavy_imports(project: Path) -> None:
    """The check itself can fail: a command that needs pandas is seen loading it."""
    out = project.parent / "long.csv"
    code, loaded = loaded_by("export", str(project), str(out), "--kind", "long")
    assert code == 0
    assert "pandas" in loaded


def test_the_store_hides_pandas_from_sqlite_utils_only_while_importing_it() -> None:
    """sqlite-utils is imported without pandas; pandas still imports normally afterwards."""
    script = (
        "import sys, sense7_coder.store as s; import sqlite_utils.db as d;"
        "assert d.pd is None and 'pandas' not in sys.modules;"
        "import pandas; print(pandas.__name__)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "pandas"


@pytest.mark.parametrize("first", [
    "import sense7_coder.domain.importers.preview",
    "from sense7_coder.domain.importers.reading import plan",
    "from sense7_coder.domain.importers import read_files",
    "from sense7_coder.domain.importers import PreviewResult",
    "from sense7_coder.domain.importers import FORMATS",
])
def test_the_importers_package_names_its_functions_whatever_loads_first(first: str) -> None:
    """The package loads its pandas-based modules on first use; ``preview`` stays the
    function even when the submodule of the same name was loaded some other way."""
    script = (
        f"{first}\n"
        "from sense7_coder.domain.importers import preview\n"
        "assert callable(preview) and preview.__name__ == 'preview', preview\n"
        "from sense7_coder.domain.importers import detect_format, PreviewResult, "
        "read_files, turns_frame\n"
        "assert [f.__module__.rsplit('.', 1)[1] for f in "
        "(detect_format, preview, PreviewResult, read_files, turns_frame)] == "
        "['detect', 'preview', 'preview', 'reading', 'preview']\n"
        "import sense7_coder.domain.importers as package\n"
        "assert package.preview is preview and callable(package.preview)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr


# -- the allow-list: which modules a light command may import at all ----------------------

#: our modules ``--help`` (of the program or of any command) and ``--version`` may load:
#: the command line and the light domain modules its options are built from; never the
#: project or store layers (sqlite-utils, dateutil, click, ...) nor the analyses
HELP_MODULES = frozenset({
    "sense7_coder", "sense7_coder.cli", "sense7_coder.cli.acting", "sense7_coder.cli.analysis",
    "sense7_coder.cli.exchange", "sense7_coder.cli.foundation", "sense7_coder.cli.lists",
    "sense7_coder.cli.predict", "sense7_coder.cli.rounds", "sense7_coder.cli.selection_options",
    "sense7_coder.cli.suggest",
    "sense7_coder.cli.team", "sense7_coder.cli.team_folder",
    "sense7_coder.cli.wording", "sense7_coder.domain", "sense7_coder.domain.codebook",
    "sense7_coder.domain.codebook.codes",
    # the agreement options' choices, defaults and limits, read while the parser is built
    "sense7_coder.domain.agreement_settings",
    "sense7_coder.domain.errors", "sense7_coder.domain.export", "sense7_coder.domain.export.kinds",
    "sense7_coder.domain.file_reading", "sense7_coder.domain.importers",
    "sense7_coder.domain.importers.formats", "sense7_coder.domain.importers.options",
    "sense7_coder.domain.importers.roles", "sense7_coder.domain.importers.values",
    "sense7_coder.domain.measures",
    "sense7_coder.domain.merging", "sense7_coder.domain.models", "sense7_coder.domain.names",
    "sense7_coder.domain.progress", "sense7_coder.domain.rows", "sense7_coder.domain.words",
    "sense7_coder.resources",
})
#: and what opening a project to read it adds (``info``, ``codebook list``): the facade and
#: the store, with none of spans, merge, suggestions, agreement, identity's passphrases...
PROJECT_MODULES = HELP_MODULES | frozenset({
    "sense7_coder.paths", "sense7_coder.project",
    "sense7_coder.project.cells", "sense7_coder.project.changes", "sense7_coder.project.coders",
    "sense7_coder.project.hints",
    "sense7_coder.project.identity",
    # the predictors a project holds, counted by ``info`` (the packages load nothing more)
    "sense7_coder.domain.prediction", "sense7_coder.domain.prediction.evaluation",
    "sense7_coder.project.prediction", "sense7_coder.project.prediction.predictors",
    "sense7_coder.project.project", "sense7_coder.project.rules", "sense7_coder.project.undo",
    "sense7_coder.store", "sense7_coder.store.backups", "sense7_coder.store.beside",
    "sense7_coder.store.checked", "sense7_coder.store.codes", "sense7_coder.store.codings",
    "sense7_coder.store.meta",
    "sense7_coder.store.conversations", "sense7_coder.store.db", "sense7_coder.store.folders",
    "sense7_coder.store.history", "sense7_coder.store.later_migrations",
    "sense7_coder.store.locks", "sense7_coder.store.migrating", "sense7_coder.store.predictions",
    "sense7_coder.store.file_messages", "sense7_coder.store.schema",
    "sense7_coder.store.shapes", "sense7_coder.store.snapshots", "sense7_coder.store.trust",
    "sense7_coder.store.values",
    # who sees and who may write what, decided when the project opens (sight, authority),
    # and the guards of one file shared by many programs (journal, lock guard)
    "sense7_coder.domain.attributes", "sense7_coder.domain.spans",
    "sense7_coder.project.authority", "sense7_coder.project.judgments",
    "sense7_coder.project.sight", "sense7_coder.store.journal", "sense7_coder.store.lock_guard",
    "sense7_coder.store.open_here", "sense7_coder.store.sight",
    # the spans' SQL (the package module loads nothing more)
    "sense7_coder.store.spans", "sense7_coder.store.spans.table",
    # every coding records the codebook version it was set under
    "sense7_coder.domain.codebook.diff", "sense7_coder.store.codebook_versions",
})
#: other modules they may load, as roots: each with whatever it imports in this Python
#: (so the list holds on every supported version); nothing else, third-party or stdlib
HELP_ROOTS = ("argparse", "gettext", "locale", "textwrap", "dataclasses", "datetime", "json",
              "math", "pathlib", "re", "shutil", "typing", "unicodedata", "codecs", "gc",
              "stat", "importlib")
#: ``--version`` alone reads the version from pyproject.toml or the installed metadata
VERSION_ROOTS = HELP_ROOTS + ("tomllib", "importlib.metadata")
#: the store: sqlite-utils (with click, dateutil, pluggy), the folder check's ctypes
PROJECT_ROOTS = HELP_ROOTS + ("sqlite_utils", "sqlite3", "logging", "hashlib", "uuid", "csv",
                              "secrets", "fcntl", "tempfile", "threading", "sysconfig",
                              "ctypes.util", "shlex")

ALL_MODULES = """
import json, sys
from sense7_coder.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
sys.stderr.write("\\nPROBE " + json.dumps({"code": code, "loaded": sorted(sys.modules)}) + "\\n")
"""


def _probe(script: str, *args: str) -> tuple[int, set[str]]:
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, cwd=ROOT, env=_env(), timeout=120)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("PROBE ")]
    assert line, proc.stderr
    result = json.loads(line[-1][len("PROBE "):])
    return result["code"], set(result["loaded"])


def _closure(roots: tuple[str, ...]) -> set[str]:
    """Every module loaded by a bare interpreter that imports ``roots`` (and only them)."""
    script = ("import importlib, json, sys\n"
              f"for name in {roots!r}: importlib.import_module(name)\n"
              "sys.stderr.write('\\nPROBE ' + json.dumps({'code': 0, "
              "'loaded': sorted(sys.modules)}) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=_env(), timeout=120)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("PROBE ")]
    assert line, proc.stderr
    return set(json.loads(line[-1][len("PROBE "):])["loaded"])


@pytest.fixture(scope="module")
def allowed_outside() -> dict[str, set[str]]:
    return {"help": _closure(HELP_ROOTS), "version": _closure(VERSION_ROOTS),
            "project": _closure(PROJECT_ROOTS)}


def _strays(loaded: set[str], ours: frozenset[str], outside: set[str]) -> list[str]:
    return sorted(m for m in loaded if (m in ours) is False and (
        m.split(".")[0] == "sense7_coder" or m not in outside))


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("import", "--help"),
                                  ("info", "--help"), ("merge", "--help"),
                                  ("suggest", "--help"), ("codebook", "--help")])
def test_help_imports_only_the_allowed_modules(
        args: tuple[str, ...], allowed_outside: dict[str, set[str]]) -> None:
    code, loaded = _probe(ALL_MODULES, *args)
    assert code == 0
    version = args == ("--version",)
    assert _strays(loaded, HELP_MODULES, allowed_outside["version" if version else "help"]) == []
    # named, since these came back once: the store, and what only commands that act need
    for name in ("sense7_coder.project", "sense7_coder.store", "sqlite_utils", "subprocess",
                 "logging", "getpass", "shlex", *(() if version else ("tomllib",))):
        assert name not in loaded


@pytest.mark.parametrize("args", [("info",), ("info", "--json"), ("codebook", "list")])
def test_reading_a_project_imports_only_the_allowed_modules(
        project: Path, args: tuple[str, ...], allowed_outside: dict[str, set[str]]) -> None:
    code, loaded = _probe(ALL_MODULES, args[0], str(project), *args[1:])
    assert code == 0
    assert _strays(loaded, PROJECT_MODULES, allowed_outside["project"]) == []
    for name in ("sense7_coder.project.spans.editing", "sense7_coder.project.merge.merging",
                 "sense7_coder.project.suggestions.stored", "getpass", "tomllib"):
        assert name not in loaded


def test_the_allow_list_sees_a_stray_import() -> None:
    """The check itself can fail: a module outside the list is named."""
    outside = _closure(HELP_ROOTS)
    assert _strays({"sense7_coder.project.merge.merging", "argparse"}, HELP_MODULES, outside) == [
        "sense7_coder.project.merge.merging"]
    assert _strays({"sqlite_utils", "json"}, HELP_MODULES, outside) == ["sqlite_utils"]

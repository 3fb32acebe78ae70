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

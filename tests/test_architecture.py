"""The architecture's rules, checked in every test run rather than remembered.

* the import contracts in ``pyproject.toml`` (``[tool.importlinter]``): the layers cli ->
  ui -> project -> store -> domain, Qt only under ``ui/``, sqlite3 and sqlite-utils only
  under ``store/``, the window and the command line reach the store only through the
  project facade, the command line opens the window through one lazy door, no circles
  between sibling packages, and the feature packages as units (the LLM client, REFI-QDA,
  prediction and team work reach neither one another nor the agreement maths; spans,
  merge, suggestions and the codebook reach none of REFI-QDA import, prediction and team
  work; the store's spans, merge and suggestions never reach one another);
* no import circles between modules (imports inside functions and under ``TYPE_CHECKING``
  count: a circle is a circle however it is spelled);
* outside ``store/`` nothing connects to a database or runs SQL;
* without Qt installed, the command line and the project layer do all their work.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sense7_coder"
DEMO = ROOT / "resources" / "demo"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def test_import_contracts_hold() -> None:
    """`lint-imports` on the contracts in pyproject.toml (no cache left in the repository)."""
    pytest.importorskip("importlinter")
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter.cli import lint_imports;"
         "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))"],
        capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles_between_modules() -> None:
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("sense7_coder")
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []


def _modules_outside_store() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if "store" not in p.relative_to(PACKAGE).parts]


#: SQL statements as they start in a string literal (upper case, as this code base writes SQL)
_SQL = re.compile(
    r"^\s*(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|"
    r"CREATE\s+(TABLE|INDEX|UNIQUE|VIEW|TRIGGER|TEMP)|DROP\s+(TABLE|INDEX|VIEW|TRIGGER)|"
    r"ALTER\s+TABLE\s|PRAGMA\s|BEGIN(\s|$)|COMMIT|ROLLBACK|ATTACH\s|VACUUM)"
)
#: called by name (``Database(...)``, ``connect(...)`` imported from sqlite3)
_DB_NAMES = {"connect", "Database"}
#: called as methods (``db.execute(...)``); ``.connect`` only on ``sqlite3`` (Qt's signals
#: connect too)
_DB_METHODS = {"execute", "executemany", "executescript", "query", "Database"}


def database_use(source: str) -> list[str]:
    """What in ``source`` connects to a database or runs SQL: calls of ``connect``,
    ``Database``, ``execute``/``executemany``/``executescript``/``query``, and string
    literals that are SQL statements."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else ""
                hit = func.attr in _DB_METHODS or (func.attr == "connect" and owner == "sqlite3")
                name = func.attr
            else:
                name = getattr(func, "id", "")
                hit = name in _DB_NAMES
            if hit:
                found.append((node.lineno, f"{name}(...)"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.match(node.value):
            found.append((node.lineno, f"SQL {node.value.strip()[:40]!r}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_the_database_check_sees_sql_and_connections() -> None:
    sample = textwrap.dedent('''
        import sqlite3
        con = sqlite3.connect("x.sense7")
        db = Database(con)
        db.execute("SELECT 1")
        rows = list(db.query("select 2"))
        button.clicked.connect(save)  # a Qt signal, not a database
        label = "Select a file"  # English, not SQL
        sql = """
            UPDATE codings SET value = 1"""
    ''')
    found = database_use(sample)
    assert [f.split(":")[0] for f in found] == [
        "line 3", "line 4", "line 5", "line 5", "line 6", "line 9",
    ]


def test_nothing_outside_the_store_connects_or_runs_sql() -> None:
    problems = {
        str(path.relative_to(ROOT)): found
        for path in _modules_outside_store()
        if (found := database_use(path.read_text(encoding="utf-8")))
    }
    assert problems == {}


# -- no file dialog in the window's process ----------------------------------------------------

#: Qt classes that open the files of a folder in the process that uses them: a file dialog,
#: the file system model it lists with, a file's icon or type read from its contents, a
#: watcher, and the desktop's handling of a file (which may read it to tell its type)
FILE_READERS = ("QFileDialog", "QFileSystemModel", "QFileIconProvider", "QMimeDatabase",
                "QFileSystemWatcher", "QDesktopServices")
#: the one module that may: it runs in a process of its own, holding no project open
PICKER = PACKAGE / "ui" / "picker.py"


def file_reader_use(source: str) -> list[str]:
    """Lines naming a Qt class that reads the files it lists (imported or used)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
        found |= {(node.lineno, n) for n in names if n in FILE_READERS}
    return [f"line {line}: {name}" for line, name in sorted(found)]


def test_the_file_reader_check_sees_dialogs() -> None:
    sample = textwrap.dedent('''
        from PySide6.QtWidgets import QFileDialog, QLabel
        name, _ = QFileDialog.getOpenFileName(None)
        model = QtWidgets.QFileSystemModel()
        label = QLabel("QFileDialog")  # a word in a text, not the class
    ''')
    assert file_reader_use(sample) == ["line 2: QFileDialog", "line 3: QFileDialog",
                                       "line 4: QFileSystemModel"]


def test_file_dialogs_run_only_in_their_own_process() -> None:
    """A file dialog reads the files it lists; in a folder holding the open project that
    drops the window's SQLite locks (ui/file_dialogs.py). Only ui/picker.py, which runs in
    a child process, may show one."""
    problems = {
        str(path.relative_to(ROOT)): found
        for path in sorted((PACKAGE / "ui").rglob("*.py"))
        if path != PICKER and (found := file_reader_use(path.read_text(encoding="utf-8")))
    }
    assert problems == {}
    assert file_reader_use(PICKER.read_text(encoding="utf-8"))  # the check can see them


# -- without Qt ----------------------------------------------------------------------------------

NO_QT = textwrap.dedent('''
    import importlib.abc, json, sys

    class NoQt(importlib.abc.MetaPathFinder):
        """Behaves as if PySide6 and shiboken6 were not installed."""
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoQt())
    from sense7_coder.cli import main

    results = []
    for args in json.loads(sys.argv[1]):
        code = main(args)
        results.append([args[0], code])
    qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6"))
    print("RESULT " + json.dumps({"results": results, "qt": qt}))
''')


def test_the_command_line_and_project_layer_work_without_qt(tmp_path: Path) -> None:
    study = tmp_path / "study.sense7"
    second = tmp_path / "second.sense7"
    out = tmp_path / "out"
    out.mkdir()
    commands = [
        ["init", str(study)],
        ["import", str(study), str(DEMO / "Tasks.csv"), str(DEMO / "Messages.csv"),
         "--format", "sense7-csv"],
        ["import-codings", str(study), str(DEMO / "codings.csv")],
        ["info", str(study)],
        ["codebook", str(study), "list"],
        ["agreement", str(study), "--bootstrap", "50", "--format", "json"],
        ["export", str(study), str(out / "long.csv"), "--kind", "long"],
        ["export", str(study), str(out / "wide.csv"), "--kind", "wide"],
        ["consensus", str(study), "--format", "json"],
        ["init", str(second)],
        ["merge", str(second), str(study)],
        ["demo", str(tmp_path / "demo"), "--no-gui"],
    ]
    import json

    proc = subprocess.run(
        [sys.executable, "-c", NO_QT, json.dumps(commands)],
        capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(line[-1][len("RESULT "):])
    assert result["qt"] == []
    assert result["results"] == [[c[0], 0] for c in commands], proc.stderr[-4000:]
    assert (out / "long.csv").read_text(encoding="utf-8").startswith("coder,")
    assert (out / "wide.csv").stat().st_size > 0
    assert (tmp_path / "demo" / "sense7-demo.sense7").is_file()


def test_without_qt_the_window_refuses_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", NO_QT, '[["gui"]]'],
        capture_output=True, text=True, cwd=tmp_path,
        env=_env(QT_QPA_PLATFORM="offscreen"), timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '"results": [["gui", 2]]' in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sense7-coder: error: the desktop window")
    assert "PySide6" in lines[0]

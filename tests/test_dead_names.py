"""No name in the package that nothing calls: a function, method, class, constant or
attribute defined and never used anywhere in the package, its tests, benchmarks or
packaging (vulture, which reads the code without running it).

Names that something outside Python's sight calls are listed below with who calls them: Qt
(virtual methods it calls back), the standard library (a socket's or a parser's hooks),
argparse (an action's signature), the migrations' decorator, a module's lazy
``__getattr__``, the import formats' table (functions named by text). Anything else that
vulture finds fails here, naming the file and line: remove it, or use it.
"""

from __future__ import annotations

import re
from pathlib import Path

import vulture

ROOT = Path(__file__).resolve().parents[1]

#: name -> who calls it (vulture cannot see these callers)
CALLED_FROM_OUTSIDE: dict[str, str] = {
    # Qt calls these back on our subclasses
    "eventFilter": "Qt", "lessThan": "Qt", "createEditor": "Qt", "setEditorData": "Qt",
    "setModelData": "Qt", "supportedDropActions": "Qt", "headerData": "Qt",
    # held so that Qt objects live as long as the window (never read back)
    "focus_frame": "kept alive", "team_watch": "kept alive",
    # http.client calls a socket's and a response's methods
    "readinto": "http.client", "sendall": "http.client", "makefile": "http.client",
    # expat's handlers, spaCy's token attribute and pipeline limit, openpyxl's sheet setting
    "StartDoctypeDeclHandler": "expat", "EntityDeclHandler": "expat",
    "StartElementHandler": "expat", "EndElementHandler": "expat",
    "is_sent_start": "spaCy", "max_length": "spaCy", "freeze_panes": "openpyxl",
    # argparse.Action.__call__'s signature
    "option_string": "argparse",
    # a module's lazy attributes (PEP 562)
    "__getattr__": "Python",
}


def _is_outside_call(name: str, path: str) -> bool:
    if name in CALLED_FROM_OUTSIDE:
        return True
    if path.endswith(("migrations.py", "schema.py")) and re.fullmatch(r"m\d{3}_\w+", name):
        return True  # run by the @migrations decorator, in order
    # the import formats' table names each file kind's reader as text ("reading:read_x")
    return name.startswith("read_") and name.endswith("_group")


def test_no_name_in_the_package_is_left_uncalled() -> None:
    finder = vulture.Vulture()
    finder.scavenge([str(ROOT / p) for p in ("sense7_coder", "tests", "benchmarks",
                                            "packaging") if (ROOT / p).exists()])
    found = [f"{Path(item.filename).relative_to(ROOT)}:{item.first_lineno}: {item.message}"
             for item in finder.get_unused_code(min_confidence=60)
             if Path(item.filename).is_relative_to(ROOT / "sense7_coder")
             and not _is_outside_call(item.name, str(item.filename))]
    assert not found, "defined and never used:\n" + "\n".join(found)


def test_the_check_finds_a_name_nothing_calls(tmp_path: Path) -> None:
    """The check above can fail: a function defined and never called is found."""
    package = tmp_path / "sense7_coder"
    package.mkdir()
    (package / "mod.py").write_text("def used():\n    return 1\n\n\n"
                                    "def forgotten():\n    return 2\n\n\nused()\n")
    finder = vulture.Vulture()
    finder.scavenge([str(package)])
    names = {i.name for i in finder.get_unused_code(min_confidence=60)
             if not _is_outside_call(i.name, str(i.filename))}
    assert names == {"forgotten"}

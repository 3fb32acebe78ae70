"""One table per extension point: agreement measures, import formats, export kinds.

Each table is complete (every row has every field a front end shows), covers everything the
engine knows, and is what the command line, the window and the methods paragraph read.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain import measures as mt
from sense7_coder.domain.agreement import records
from sense7_coder.domain.export.kinds import (
    CODERS,
    CODES,
    CONVERSATIONS,
    EXPORT_KIND_TABLE,
    EXPORT_KINDS,
    FILE_FORMATS,
    UNBLINDED_KINDS,
)
from sense7_coder.domain.importers import FORMATS, ImportOptions, detect_format, read_files
from sense7_coder.domain.importers.formats import (
    AUTO,
    ENDINGS,
    IMPORT_FORMATS,
    dialog_filter,
    importable,
)
from sense7_coder.domain.importers.reading import reader_of

ROOT = Path(__file__).resolve().parents[1]


def _help(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "sense7_coder", *args, "--help"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return " ".join(out.split())


def _complete(row: Any, optional: tuple[str, ...] = ()) -> list[str]:
    """The fields of a row left empty (``optional`` ones may be)."""
    return [f.name for f in fields(row) if getattr(row, f.name) in ("", None)
            and f.name not in ("citations", *optional)]


# -- agreement measures ---------------------------------------------------------------------


def test_every_measure_row_is_complete() -> None:
    """(That the engine writes no measure without a row, and each front end shows every
    row, is tests/test_measure_front_ends.py.)"""
    from sense7_coder.domain.agreement import chance

    assert len(mt.MEASURE_TABLE) == len(mt.MEASURES_BY_KEY)  # no key twice
    assert len({m.order for m in mt.MEASURE_TABLE}) == len(mt.MEASURE_TABLE)
    for m in mt.MEASURE_TABLE:
        assert not _complete(m, ("methods", "chance")), (m.key, _complete(m))
        assert m.levels and set(m.levels) <= {mt.NOMINAL, mt.ORDINAL, mt.INTERVAL, mt.RATIO}, m.key
        assert m.scope and set(m.scope) <= {mt.GROUP, mt.PAIRS, mt.REFERENCE}, m.key
        assert all(c in mt.CITATIONS for c in m.citations), m.key
        # the methods paragraph has a clause for every measure it reports (alpha has
        # sentences of its own) and cites its works
        if m.paper and m.key != mt.ALPHA:
            assert m.methods and m.citations, m.key
        assert not m.methods or m.paper, m.key
        if m.chance:  # a chance model the chance-corrected family computes
            chance.from_sums(chance.unit_terms([[2, 0], [1, 1]], chance.weight_matrix(2, "none"))
                             .sum(axis=0), chance.weight_matrix(2, "none"), m.chance)
    from sense7_coder.domain.agreement import LEVELS

    assert set(mt.MEASURES_BY_KEY[records.ALPHA].levels) == set(LEVELS)


def test_a_measure_is_spelt_one_way_everywhere() -> None:
    """The hyphenated spelling the three copies once disagreed on is gone from every
    message, and the window, the command line and the methods paragraph read the table."""
    from sense7_coder.ui.analysis.report_rows import MEASURE_NAMES

    hyphen = re.compile(r"Brennan-Prediger")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "sense7_coder").rglob("*.py")
                 if hyphen.search(p.read_text(encoding="utf-8"))]
    assert not offenders
    assert {m.key: m.label for m in mt.MEASURE_TABLE} == MEASURE_NAMES
    text = _help("agreement")
    for m in mt.MEASURE_TABLE:
        assert m.wording in text, m.key


def test_the_methods_paragraph_names_the_measures_as_the_table_does(
        demo_project: Path) -> None:
    from sense7_coder.domain.agreement.methods import MethodsContext, methods_text
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project import Project
    from sense7_coder.project.agreement import project_agreement
    from sense7_coder.project.selection import Selection

    with Project.open(demo_project) as project:
        report = project_agreement(project, Selection(), AgreementSettings(bootstrap=0))
    text = methods_text(report, MethodsContext("sense7-coder", "0", 0, 1, "percentile", 10))
    assert "Brennan–Prediger coefficient" in text and "Brennan-Prediger" not in text
    assert "| AC1 |" in text and "| Brennan–Prediger |" in text


# -- import formats -------------------------------------------------------------------------


def test_every_import_format_has_a_complete_row_and_a_reader() -> None:
    assert (AUTO, *(f.key for f in IMPORT_FORMATS)) == FORMATS
    for f in IMPORT_FORMATS:
        assert not _complete(f), (f.key, _complete(f))
        assert f.endings and all(e.startswith(".") and e == e.lower() for e in f.endings)
        assert set(f.claims) <= set(f.endings), f.key
        assert callable(reader_of(f.key)), f.key
    claimed = [e for f in IMPORT_FORMATS for e in f.claims]
    assert len(claimed) == len(set(claimed)), "an ending claimed by two formats"


def test_the_endings_offered_are_the_endings_read() -> None:
    """The dialog offers exactly what some reader takes: .xlsm and .ndjson, never .xls."""
    offered = set(re.findall(r"\*(\.\w+)", dialog_filter().split(";;")[0]))
    assert offered == set(ENDINGS)
    assert {".xlsm", ".ndjson"} <= offered and ".xls" not in offered
    assert importable("CHATS.NDJSON") and importable("study.xlsm")
    assert not importable("old.xls") and not importable("project.sense7")


def test_an_ndjson_file_imports_on_its_ending(tmp_path: Path) -> None:
    path = tmp_path / "chats.ndjson"
    path.write_text(json.dumps({"conversation_id": "n1", "messages": [
        {"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]}) + "\n",
        encoding="utf-8")
    assert detect_format(path) == "jsonl"
    [batch] = read_files([path], ImportOptions())
    assert [c.conversation_id for c in batch.conversations] == ["n1"]


def test_an_unknown_ending_lists_every_ending_read(tmp_path: Path) -> None:
    from sense7_coder.domain.errors import InputError

    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(InputError) as e:
        detect_format(path)
    for ending in ENDINGS:
        assert ending in str(e.value)


def test_the_import_help_lists_every_format() -> None:
    text = _help("import")
    for f in IMPORT_FORMATS:
        assert f"{f.key}: {f.name}" in text


# -- export kinds ---------------------------------------------------------------------------


def test_every_export_kind_has_a_complete_row() -> None:
    from sense7_coder.project.export import TEAM_KINDS

    assert set(TEAM_KINDS) <= set(EXPORT_KINDS)
    for k in EXPORT_KIND_TABLE:
        assert not _complete(k), (k.key, _complete(k))
        assert k.label != k.key and k.description.endswith((".", ")")), k.key
        assert k.formats and set(k.formats) <= set(FILE_FORMATS), k.key
        assert set(k.selections) <= {CODES, CODERS, *CONVERSATIONS}, k.key
        for fmt in k.formats:
            assert f"(*.{fmt})" in k.file_filters(), k.key
    assert set(UNBLINDED_KINDS) == {"codebook", "assignments"}


def test_the_export_help_describes_every_kind() -> None:
    text = _help("export")
    for k in EXPORT_KIND_TABLE:
        assert f"{k.key}: {k.description[:1].lower()}{k.description[1:]}" in text


@pytest.mark.gui
def test_the_export_dialog_describes_every_kind(qtbot: Any, demo_project: Path) -> None:
    from PySide6.QtCore import Qt

    from sense7_coder.project import Project
    from sense7_coder.ui.analysis.export_dialog import ExportDialog

    with Project.open(demo_project) as project:
        dialog = ExportDialog(project)
        qtbot.addWidget(dialog)
        assert dialog.kind.count() == len(EXPORT_KIND_TABLE)
        for i, k in enumerate(EXPORT_KIND_TABLE):
            dialog.kind.setCurrentIndex(i)
            assert dialog.kind.currentText() == k.label
            assert dialog.about.text() == k.description
            assert dialog.kind.itemData(i, Qt.ItemDataRole.ToolTipRole) == k.description
            assert dialog.provenance.isEnabled() == (k.key in ("long", "wide", "consensus"))
        dialog.close()


def test_every_export_kind_has_its_table(demo_project: Path) -> None:
    """Each row has its code: the project writes a table of every kind."""
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project import Project
    from sense7_coder.project.export import export_frame
    from sense7_coder.project.selection import Selection

    with Project.open(demo_project) as project:
        for k in EXPORT_KIND_TABLE:
            frame = export_frame(project, k.key, Selection(), AgreementSettings(bootstrap=0))
            assert len(frame.columns) > 0, k.key

"""Every front end shows every agreement measure the engine computed.

The measures table (``domain/measures.py``) is the only list of measures: the command line's
table, JSON and CSV export, the window's Coefficients, pairs and users tabs, the methods
paragraph with its table and references all take their list from it. Each test here runs one
front end on the demo project (all coders with the users' ratings, and two coders alone) and
fails naming the front end and the measure it leaves out.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain import measures as mt
from sense7_coder.domain.agreement import AgreementRecord, AgreementReport

ROOT = Path(__file__).resolve().parents[1]
#: the selections the front ends are run on: every coder with the users (every measure
#: computed), and two coders alone (the measures of two raters defined)
SELECTIONS = {"all coders and users": ["--include-users"],
              "two coders": ["--coders", "alice,bashir"]}


def _cli(*args: str | Path) -> str:
    done = subprocess.run([sys.executable, "-m", "sense7_coder", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


class Shown:
    """One selection's report and what each front end printed of it."""

    def __init__(self, project: Path, options: list[str], out: Path) -> None:
        base = ["agreement", project, "--bootstrap", "0", *options]
        data = json.loads(_cli(*base, "--format", "json"))
        self.report = AgreementReport(records=[AgreementRecord(
            **{k: v for k, v in d.items() if k != "band"}) for d in data])
        self.table = _cli(*base)
        self.methods = _cli(*base, "--format", "report")
        target = out / "agreement.csv"
        _cli("export", project, target, "--kind", "agreement", "--bootstrap", "0", *options)
        with target.open(encoding="utf-8", newline="") as f:
            self.exported = {row["measure"] for row in csv.DictReader(f)}

    def computed(self, scope: str | None = None) -> list[mt.Measure]:
        """The rows whose measure the engine computed (of ``scope``), in listing order."""
        keys = {r.measure for r in self.report.records}
        return [m for m in mt.in_order() if m.key in keys and (scope is None or scope in m.scope)]


@pytest.fixture(scope="module", params=list(SELECTIONS))
def shown(request: pytest.FixtureRequest, _demo_template: Path,
          tmp_path_factory: pytest.TempPathFactory) -> Shown:
    folder = tmp_path_factory.mktemp("front-ends")
    project = folder / _demo_template.name
    shutil.copyfile(_demo_template, project)
    return Shown(project, SELECTIONS[request.param], folder)


def test_the_engine_writes_no_measure_without_a_row_and_every_row_is_computed(
        shown: Shown) -> None:
    written = {r.measure for r in shown.report.records}
    assert written <= set(mt.MEASURES_BY_KEY), f"no row for {written - set(mt.MEASURES_BY_KEY)}"
    if "users" in {c for r in shown.report.records for c in r.coders}:
        # the demo has ordinal and nominal codes, three coders and the users' ratings:
        # every row must be computed there, or the tests below would pass vacuously
        assert written == set(mt.MEASURES_BY_KEY), set(mt.MEASURES_BY_KEY) - written


def _table_measures(text: str) -> set[str]:
    """The measure column of the command line's table."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("code ")) + 2
    rows = lines[start:lines.index("", start)]
    return {re.split(r"\s{2,}", row)[1] for row in rows}


def test_the_command_line_table_lists_every_measure(shown: Shown) -> None:
    printed = _table_measures(shown.table)
    missing = [m.key for m in shown.computed() if m.key not in printed]
    assert not missing, f"the command line's agreement table leaves out {missing}"


def test_the_export_lists_every_measure(shown: Shown) -> None:
    missing = [m.key for m in shown.computed() if m.key not in shown.exported]
    assert not missing, f"the agreement export (CSV) leaves out {missing}"


def _cells(model: Any, role: Any) -> list[str]:
    return [str(model.data(model.index(row, col), role) or "")
            for row in range(model.rowCount()) for col in range(model.columnCount())]


def test_the_window_shows_every_measure(qtbot: Any, shown: Shown) -> None:
    """Over all coders on the Coefficients tab (name and tooltip), pairs in the pairs tab's
    matrix, against the users on the users tab."""
    from PySide6.QtCore import Qt

    from sense7_coder.ui.analysis.agreement_results import AgreementResults

    results = AgreementResults()
    qtbot.addWidget(results)
    results.show_report(shown.report, {}, True)
    coefficients = results.coef_model
    names = _cells(coefficients, Qt.ItemDataRole.DisplayRole)
    tips = _cells(coefficients, Qt.ItemDataRole.ToolTipRole)
    for m in shown.computed(mt.GROUP):
        assert any(r.record.measure == m.key for r in coefficients.rows), \
            f"the window's Coefficients tab leaves out {m.key}"
        assert any(m.label in n for n in names), f"Coefficients tab: no {m.label!r} shown"
        assert any(m.label in t for t in tips), f"Coefficients tab: no {m.label!r} tooltip"
    for m in shown.computed(mt.PAIRS):
        at = results.pair_measure.findData(m.key)
        assert at >= 0, f"the window's pairs tab offers no {m.key}"
        results.pair_measure.setCurrentIndex(at)
        codes = {r.code for r in shown.report.records if r.measure == m.key
                 and len(r.coders) == 2 and r.value is not None}
        for code in codes:
            results.pair_code.setCurrentIndex(results.pair_code.findData(code))
            values = [v for row in results.pair_model.rows for v in row.values.values()]
            assert any(v is not None for v in values), \
                f"the window's pairs tab shows no {m.key} of {code}"
    headers = [results.users_model.headerData(c, Qt.Orientation.Horizontal)
               for c in range(results.users_model.columnCount())]
    shown_there = {key for row in results.users_model.rows for key in row.records}
    against_users = {r.measure for r in shown.report.records if "users" in r.coders}
    for m in shown.computed(mt.REFERENCE):
        if m.key in against_users:
            assert m.key in shown_there, f"the window's users tab leaves out {m.key}"
            assert any(str(h).startswith(m.label) for h in headers), \
                f"the window's users tab has no column of {m.label}"


def test_the_methods_paragraph_reports_every_paper_measure(shown: Shown) -> None:
    """Its table's Coefficient column, a clause in the paragraph and the works it cites;
    a measure of fewer raters than the code has is left out of all three."""
    text = shown.methods
    head, _, refs = text.partition("### References")
    table = [line.split(" | ")[1] for line in head.splitlines() if line.startswith("| ")][1:]
    # among the coders, where the measure is defined for their number (Scott's pi: two)
    group = {r.measure for r in shown.report.records
             if "users" not in r.coders and "consensus" not in r.coders
             and mt.MEASURES_BY_KEY[r.measure].covers(len(r.coders))}
    for m in [m for m in shown.computed() if m.paper and m.key in group]:
        assert any(c == m.short or c.startswith(f"{m.short} (") or m.key == mt.ICC
                   and c.startswith("ICC") for c in table), \
            f"the methods paragraph's table leaves out {m.key}"
        assert not m.methods or m.methods in head, \
            f"the methods paragraph does not say how {m.key} was computed"
        for key in m.citations:
            assert mt.CITATIONS[key] in refs, \
                f"the methods paragraph's references leave out {key} ({m.key})"
    for m in mt.paper_measures():
        if m.key not in group:
            assert not m.methods or m.methods not in head, f"{m.key} told, not reported"

"""VALIDATION.md and the script that regenerates it (benchmarks/validation.py).

The script's comparison core runs here on a handful of seeded designs: every figure the
engine reports must match its independent reference. The document must hold a row for
every coefficient the engine reports, so a new measure without a reference fails here.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sense7_coder.domain.agreement import MEASURES
from sense7_coder.domain.agreement.icc import FORMS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "VALIDATION.md"
SCRIPT = ROOT / "benchmarks" / "validation.py"
#: pingouin prints the ICC interval to two decimals
ROUNDING = 0.005 + 1e-9


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validation_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _table(heading: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    assert len(lines) > 2, f"no table under '{heading}'"
    header, rule, *body = lines
    assert set(rule.replace("|", "")) <= {"-"}
    width = header.count("|")
    assert all(ln.count("|") == width for ln in body), "a row with a different number of cells"
    return [[cell.strip() for cell in ln.strip("|").split("|")] for ln in body]


@pytest.mark.crosscheck
def test_engine_matches_every_reference_on_seeded_designs() -> None:
    pytest.importorskip("pingouin")
    pytest.importorskip("statsmodels")
    script = _script()
    rows = script.compare(script.designs(12))
    assert all(row.figures for row in rows.values()), (
        "a coefficient was not compared on any design: "
        f"{[r.coefficient for r in rows.values() if not r.figures]}")
    for row in rows.values():
        tolerance = ROUNDING if "interval" in row.coefficient else 1e-9
        assert row.max_diff <= tolerance, (
            f"{row.coefficient}: engine and {row.reference} differ by {row.max_diff}")


def test_document_lists_every_measure_with_its_reference() -> None:
    rows = _table("Point estimates and intervals against references")
    names = [r[0] for r in rows]
    for measure in MEASURES:
        assert any(n == measure or n.startswith(f"{measure} ") for n in names), (
            f"{measure} has no row in VALIDATION.md: add a reference to "
            "benchmarks/validation.py and regenerate it")
    for form in FORMS:
        assert f"icc {form}" in names
        assert f"icc {form} 95% interval" in names or (
            f"icc {form} 95% interval (McGraw & Wong, not reported)" in names)
    for coefficient, reference, designs, figures, diff in rows:
        assert reference, f"{coefficient}: no reference named"
        assert int(designs) > 0 and int(figures) >= int(designs), coefficient
        tolerance = ROUNDING if "interval" in coefficient else 1e-9
        assert float(diff) <= tolerance, f"{coefficient}: largest difference {diff}"


def test_document_is_what_the_script_writes() -> None:
    script = _script()
    names = [r[0] for r in _table("Point estimates and intervals against references")]
    assert names == list(script.ROWS), "VALIDATION.md is stale: run benchmarks/validation.py"
    text = DOC.read_text(encoding="utf-8")
    assert f"seed {script.SEED}" in text
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "the document carries a date"


def test_document_states_coverage_of_every_interval() -> None:
    rows = _table("Interval coverage")
    names = [r[0] for r in rows]
    for form in FORMS:
        method = "generalized" if form in ("ICC2", "ICC2k") else "F-based"
        assert f"icc {form} ({method})" in names
    assert any(n.startswith("krippendorff_alpha") for n in names)
    for name, _model, *shares in rows:
        for share in shares:
            assert re.fullmatch(r"\d{1,3}\.\d%", share), f"{name}: {share!r}"

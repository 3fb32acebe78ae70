"""Intervals at small numbers of units: the default method is chosen by what covers (BCa
below ``BCA_BELOW_UNITS`` units), every output names each interval's method, and ICC1 read on
a crossed design (every coder rated every unit) carries a warning wherever it is shown."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_support import code, conversation_lines, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement import ALPHA, code_agreement
from sense7_coder.domain.agreement.bootstrap import BCA_BELOW_UNITS, interval_method
from sense7_coder.domain.agreement.methods import _method_words
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.measures import ICC
from sense7_coder.project.agreement import methods_paragraph, project_agreement
from sense7_coder.project.selection import Selection

ROOT = Path(__file__).resolve().parent.parent


def ratings(n: int, seed: int = 1, shift: float = 0.0) -> pd.DataFrame:
    """n units rated 1..5 by three coders; ``shift`` raises coder c2's level."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(3, 1, size=n)
    rows = []
    for j, coder in enumerate(("c0", "c1", "c2")):
        x = truth + rng.normal(0, 0.6, size=n) + (shift if j == 2 else 0.0)
        rows += [(f"u{i}", coder, int(np.clip(np.rint(v), 1, 5))) for i, v in enumerate(x)]
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def alpha(n: int, ci: str) -> object:
    records = code_agreement(ratings(n), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                             bootstrap=200, ci=ci)
    return next(r for r in records if r.measure == ALPHA)


def test_auto_takes_bca_below_the_stated_number_of_units_and_percentile_from_it() -> None:
    assert interval_method("auto", BCA_BELOW_UNITS - 1) == "bca"
    assert interval_method("auto", BCA_BELOW_UNITS) == "percentile"
    assert interval_method("percentile", 5) == "percentile"  # a chosen method stands
    small, large = alpha(BCA_BELOW_UNITS - 1, "auto"), alpha(BCA_BELOW_UNITS, "auto")
    assert small.ci_method == "bca" and "BCa bootstrap over units" in small.note
    assert large.ci_method == "percentile" and "percentile bootstrap" in large.note
    # auto's interval is BCa's own below the line, percentile's from it
    assert (small.ci_low, small.ci_high) == (alpha(BCA_BELOW_UNITS - 1, "bca").ci_low,
                                             alpha(BCA_BELOW_UNITS - 1, "bca").ci_high)
    assert large.ci_low == alpha(BCA_BELOW_UNITS, "percentile").ci_low
    # the kappas of a pair and AC1 resolve by their own units as well
    records = code_agreement(ratings(30), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                             bootstrap=100, ci="auto")
    assert {r.ci_method for r in records if r.draws} == {"bca"}


def test_the_methods_paragraph_says_which_method_and_why_when_both_were_used() -> None:
    small, large = alpha(40, "auto"), alpha(BCA_BELOW_UNITS + 20, "auto")
    mixed = _method_words([small, large])
    assert f"fewer than {BCA_BELOW_UNITS} units" in mixed and "percentile from" in mixed
    assert _method_words([small]).startswith("bias-corrected and accelerated")
    assert _method_words([large]) == "percentile"


def test_validation_states_the_small_n_coverage_of_the_default() -> None:
    text = (ROOT / "VALIDATION.md").read_text(encoding="utf-8")
    assert "## Alpha's interval at small numbers of units" in text
    section = text.split("## Alpha's interval at small numbers of units", 1)[1]
    assert f"BCa below {BCA_BELOW_UNITS} units" in section
    rows = [line for line in section.splitlines() if line.startswith("| nominal")]
    assert rows and all(line.count("%") == 3 for line in rows)


def study(tmp_path: Path) -> Path:
    """Three coders who each rated every one of 12 turns, chen a level above the others."""
    chats = [(f"c{i}", f"p{i}", "m", 3, 4) for i in range(1, 7)]
    project = make_project(tmp_path, conversations=conversation_lines(chats))
    base = [1, 2, 3, 4, 5, 2, 3, 4, 1, 2, 3, 4]
    units = [(f"c{1 + i // 2}", 2 * (1 + i % 2)) for i in range(12)]
    for coder, shift in (("alice", 0), ("bashir", 0), ("chen", 1)):
        values = {(cid, pos, "overall"): min(5, v + shift + (i % 3 == 0 and coder == "bashir"))
                  for i, ((cid, pos), v) in enumerate(zip(units, base, strict=True))}
        code(project, coder, values)
    path = project.path
    project.close()
    return path


def test_icc1_on_a_crossed_design_is_warned_in_every_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.project import Project

    path = study(tmp_path)
    with Project.open(path, backup=False) as project:
        project.set_coder("lead", "adjudicator")
        options = (Selection(codes=["overall"], include_consensus=False),
                   AgreementSettings(bootstrap=100))
        report = project_agreement(project, *options)
        forms = {r.form: r for r in report.records if r.measure == ICC}
        assert forms["ICC1"].value is not None
        warned = {f for f, r in forms.items() if r.warning}
        assert warned == {"ICC1", "ICC1k"}
        assert "every coder rated every unit" in forms["ICC1"].warning
        assert "warning" in report.to_frame().columns
        text = methods_paragraph(project, report, *options)
        assert "ICC1 and ICC1k are reported with a caution" in text
        assert "crossed design" in text
    status = main(["agreement", str(path), "--as", "lead", "--codes", "overall",
                   "--bootstrap", "100"])
    out = capsys.readouterr().out
    assert status == 0
    assert "warning (overall ICC1, overall ICC1k): crossed design" in " ".join(out.split())
    # every interval printed names its method
    lines = [line for line in out.splitlines() if line.startswith("overall") and "[" in line]
    assert lines and all(line.split("]")[1].split()[0] in ("BCa", "pct.", "F", "GCI")
                         for line in lines)

"""Bands read from the interval, not the point, and a methods paragraph that says only
what the output shows."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import AgreementRecord, agreement_report
from sense7_coder.domain.agreement.methods import MethodsContext, methods_text
from sense7_coder.domain.agreement.records import BAND_RULE
from sense7_coder.domain.agreement.report import CodeFrameSpec


def alpha_with(value: float, low: float | None, high: float | None,
               n_units: int = 40) -> AgreementRecord:
    return AgreementRecord("c", "krippendorff_alpha", "ordinal", None, ["a", "b"], value,
                           n_units, 2 * n_units, ci_low=low, ci_high=high)


@pytest.mark.parametrize(("value", "low", "high", "band"), [
    (0.90, 0.82, 0.95, "good"),
    (0.90, 0.79, 0.95, "at least tentative"),  # the point is good, the interval is not
    (0.74, 0.68, 0.79, "tentative"),
    (0.70, -0.02, 1.00, "inconclusive"),  # the case seen: 'tentative' on [-.02, 1.00]
    (0.70, 0.60, 0.78, "inconclusive"),
    (0.50, 0.30, 0.66, "low"),
    (0.85, None, None, "good (point)"),  # no interval: the point, marked as such
    (0.70, None, None, "tentative (point)"),
])
def test_a_band_is_claimed_only_when_the_whole_interval_lies_in_it(
    value: float, low: float | None, high: float | None, band: str
) -> None:
    assert alpha_with(value, low, high).band() == band
    assert alpha_with(value, low, high, n_units=5).band() == "too few units"


def test_fifteen_units_with_moderate_agreement_claim_no_band() -> None:
    """Two coders, 15 units, moderate noise: the point reads tentative or good in 7 of
    these 12 studies, the interval supports that in none."""
    rng = np.random.default_rng(4)
    claimed = 0
    for study in range(12):
        truth = rng.integers(1, 6, size=15)
        noisy = np.clip(truth + rng.choice([-2, -1, 0, 0, 1, 2], size=15), 1, 5)
        frame = pd.DataFrame([(u, c, int(v)) for c, vals in (("a", truth), ("b", noisy))
                              for u, v in enumerate(vals)], columns=["unit", "coder", "value"])
        report = agreement_report({"c": CodeFrameSpec(frame, "ordinal", [1, 2, 3, 4, 5])},
                                  bootstrap=300, seed=study, measures="alpha")
        band = report.records[0].band()
        assert band in ("inconclusive", "low", "at least tentative", "tentative", "good")
        claimed += band in ("tentative", "good")
    assert claimed == 0


def _report(bootstrap: int, undefined: bool = False) -> str:
    rng = np.random.default_rng(2)
    truth = rng.integers(1, 6, size=30)
    rows = [(u, c, int(np.clip(t + rng.integers(-1, 2), 1, 5)))
            for c in ("ann", "bob", "cy") for u, t in enumerate(truth)]
    specs = {"empathy": CodeFrameSpec(pd.DataFrame(rows, columns=["unit", "coder", "value"]),
                                      "ordinal", [1, 2, 3, 4, 5])}
    if undefined:  # two units, mostly one level: many draws have no variation
        specs["rare"] = CodeFrameSpec(pd.DataFrame(
            [(0, "ann", 1), (0, "bob", 1), (1, "ann", 1), (1, "bob", 2)],
            columns=["unit", "coder", "value"]), "ordinal", [1, 2, 3, 4, 5])
    report = agreement_report(specs, bootstrap=bootstrap, seed=1)
    ctx = MethodsContext("sense7-coder", "1.0", bootstrap, 1, "percentile", 10)
    return methods_text(report, ctx, "markdown") + "\n" + methods_text(report, ctx, "latex")


def test_methods_paragraph_names_each_interval_and_states_the_band_rule() -> None:
    text = _report(200)
    assert BAND_RULE in text
    assert "percentile bootstrap intervals over units, holding the coders fixed" in text
    assert "McGraw and Wong's (1996) F-based intervals" in text
    assert ("those of ICC2 and ICC2k, with the coders a random sample, are generalized "
            "confidence intervals (Weerahandi, 1993)") in text
    assert "Weerahandi, S. (1993). Generalized confidence intervals." in text
    assert "share of the unit-bootstrap draws" in text and "ours resamples units" in text
    assert "counted in the output" not in text
    assert "no draw left a coefficient undefined" in text
    latex = text[text.index("\\subsection*"):]
    assert "q(\\textless{}.667)" in latex and "<" not in latex
    # every percent sign is escaped: a bare one starts a LaTeX comment
    assert "about 90\\% of simulated studies" in latex
    assert re.search(r"(?<!\\)%", latex) is None


def test_methods_paragraph_names_the_library_versions_that_computed_the_figures() -> None:
    import krippendorff
    import scipy

    text = _report(0)
    said = (f"computed with sense7-coder 1.0 (numpy {np.__version__}, scipy "
            f"{scipy.__version__}, krippendorff ")
    assert said in text
    assert text.count(said) == 2  # the Markdown and the LaTeX paragraph
    assert getattr(krippendorff, "__version__", "") in text


def test_methods_paragraph_shows_the_undefined_draws_it_mentions() -> None:
    text = _report(200, undefined=True)
    assert "draws in which a coefficient was undefined were left out (" in text
    assert "rare alpha (ordinal): " in text and " of 200" in text


def test_the_latex_compiles_where_a_latex_engine_is_installed(tmp_path: Path) -> None:
    engine = shutil.which("pdflatex") or shutil.which("lualatex")
    if engine is None:
        pytest.skip("no LaTeX engine installed")
    latex = _report(100).split("\n", 1)[1]
    latex = latex[latex.index("\\subsection*"):]
    (tmp_path / "m.tex").write_text("\\documentclass{article}\\begin{document}\n" + latex
                                    + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "m.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "¡" not in done.stdout


def test_negative_figures_are_typeset_with_a_minus_sign_in_latex() -> None:
    """Coders who disagree more than chance give a negative alpha: LaTeX prints a bare
    hyphen as a short dash, so the table's numbers carry a real minus sign there (and the
    Markdown keeps the plain hyphen readers paste into R)."""
    frame = pd.DataFrame([(u, c, v) for u, (x, y) in enumerate([(1, 2), (2, 1)] * 10)
                          for c, v in (("a", x), ("b", y))], columns=["unit", "coder", "value"])
    report = agreement_report({"c": CodeFrameSpec(frame, "nominal", [1, 2])},
                              bootstrap=200, seed=1, measures="alpha")
    ctx = MethodsContext("sense7-coder", "1.0", 200, 1, "percentile", 10)
    value = report.records[0].value
    assert value is not None and value < 0
    latex = methods_text(report, ctx, "latex")
    row = next(line for line in latex.splitlines() if line.startswith("c &"))
    assert "$-$" in row and re.search(r"(?<!\$)-(?!\$)", row) is None
    markdown = methods_text(report, ctx, "markdown")
    assert "$-$" not in markdown and re.search(r"\| -\.?\d", markdown)

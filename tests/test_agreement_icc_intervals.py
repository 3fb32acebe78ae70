"""ICC intervals as McGraw & Wong (1996) give them, checked against hand-computed values,
pingouin and a coverage simulation, and ICC estimates no correlation can take."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import code_agreement
from sense7_coder.domain.agreement.icc import FORMS, f_intervals, generalized_icc2

#: Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges
SF_DATA = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
#: 95% intervals of the Shrout & Fleiss data from McGraw & Wong's Table 7 formulas, worked
#: with scipy's F quantiles (the single forms round to Shrout & Fleiss's own
#: -.133/.723, .019/.761 and .342/.946)
SF_INTERVALS = {
    "ICC1": (-0.13293232487475096, 0.7225600623281211),
    "ICC2": (0.018786513374712027, 0.7610843696489529),
    "ICC3": (0.34246476503392614, 0.9458582599553597),
    "ICC1k": (-0.8844421552381196, 0.9124154203407755),
    "ICC2k": (0.0711368153025034, 0.9272320401677219),
    "ICC3k": (0.6756747138163055, 0.9858916781690623),
}
#: pingouin's names of the forms (McGraw & Wong's: A = absolute agreement, C = consistency)
PINGOUIN = {"ICC(1,1)": "ICC1", "ICC(A,1)": "ICC2", "ICC(C,1)": "ICC3", "ICC(1,k)": "ICC1k",
            "ICC(A,k)": "ICC2k", "ICC(C,k)": "ICC3k"}


def long_frame(x: Any) -> pd.DataFrame:
    x = np.asarray(x)
    return pd.DataFrame([(f"u{i}", f"r{j}", x[i, j]) for i in range(x.shape[0])
                         for j in range(x.shape[1])], columns=["unit", "coder", "value"])


def iccs(x: Any, bootstrap: int = 200) -> dict[str, Any]:
    records = code_agreement(long_frame(x), code="c", kind="ordinal",
                             scale=list(range(1, 11)), bootstrap=bootstrap, seed=0)
    return {r.form: r for r in records if r.measure == "icc"}


def test_shrout_fleiss_intervals_are_mcgraw_and_wongs() -> None:
    """ICC1/ICC3 and their k forms report McGraw & Wong's interval; ICC2/ICC2k report the
    generalized interval, whose McGraw & Wong counterpart is still computed right."""
    records = iccs(SF_DATA)
    mw = f_intervals(np.asarray(SF_DATA, dtype=float))
    for form, (low, high) in SF_INTERVALS.items():
        assert mw[form] == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9)), form
        r = records[form]
        assert r.draws == 0
        if form in ("ICC2", "ICC2k"):
            assert r.ci_method == "GCI"
            assert "generalized confidence interval (Weerahandi 1993)" in r.note
            continue
        assert (r.ci_low, r.ci_high) == (pytest.approx(low, abs=1e-9),
                                         pytest.approx(high, abs=1e-9)), form
        assert r.ci_method == "F"
        assert "F-based (McGraw & Wong 1996)" in r.note
    assert "raters a random sample" in records["ICC2"].note
    assert "raters fixed" in records["ICC3k"].note
    assert "one-way random" in records["ICC1"].note
    # no interval asked for, none given
    assert all(r.ci_low is None for r in iccs(SF_DATA, bootstrap=0).values())


@pytest.mark.filterwarnings("ignore")
@pytest.mark.crosscheck
def test_icc_intervals_match_pingouin_to_its_printed_digits() -> None:
    """Cross-check (skipped unless pingouin is installed): pingouin prints its CI95% column
    to two decimals; ours must round to the same ends on designs of 5 to 60 units and 2
    to 6 raters."""
    pg = pytest.importorskip("pingouin")
    rng = np.random.default_rng(11)
    checked = 0
    for n, k, spread in ((5, 2, 1.0), (8, 3, 0.3), (12, 4, 2.0), (30, 3, 1.0), (60, 6, 0.5),
                         (20, 2, 0.0), (40, 5, 1.5)):
        x = (rng.normal(scale=spread, size=(n, 1)) + rng.normal(scale=0.7, size=(1, k))
             + rng.normal(size=(n, k)))
        long = pd.DataFrame([(i, j, x[i, j]) for i in range(n) for j in range(k)],
                            columns=["t", "r", "v"])
        table = pg.intraclass_corr(long, targets="t", raters="r", ratings="v")
        mine = f_intervals(x)
        column = "CI95%" if "CI95%" in table else "CI95"  # renamed in pingouin 0.6
        for name, ends in zip(table["Type"], table[column], strict=True):
            ours = mine[PINGOUIN[name]]
            assert ours is not None, name
            assert np.abs(np.asarray(ours) - np.asarray(ends, dtype=float)).max() <= 0.005 + 1e-9, \
                (n, k, name, ours, ends)
            checked += 1
    assert checked == 42


@pytest.mark.slow
def test_icc_intervals_cover_about_95_percent_with_random_raters() -> None:
    """400 simulated studies of 30 and of 100 units and 3 raters drawn afresh each time
    (the two-way random model; one-way for ICC1): every reported interval covers the true
    value 92-98% of the time (McGraw & Wong's ICC2 interval covers about 89% at 100 units,
    a bootstrap over units about 70%)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "benchmarks" / "icc_coverage.py"
    spec = importlib.util.spec_from_file_location("icc_coverage", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for units in (30, 100):
        result = script.coverage(400, units, 3, seed=5, draws=0)
        for form in FORMS:
            assert 0.92 <= result[form][0] <= 0.98, (units, form, result[form])


def test_icc2_generalized_interval_is_reproducible_and_holds_the_estimate() -> None:
    """The generalized ICC2/ICC2k interval is drawn from a fixed seed: the same data give
    the same ends whatever seed the report was asked for; each holds its estimate, and
    ICC2k's ends are above ICC2's. On the Shrout & Fleiss data its lower end is below
    McGraw & Wong's upper end and the two overlap, as two 95% intervals of one ICC must."""
    x = np.asarray(SF_DATA, dtype=float)
    first, again = generalized_icc2(x), generalized_icc2(x)
    assert first == again
    records = iccs(SF_DATA)
    other_seed = {r.form: r for r in code_agreement(
        long_frame(SF_DATA), code="c", kind="ordinal", scale=list(range(1, 11)),
        bootstrap=200, seed=99) if r.measure == "icc"}
    for form in ("ICC2", "ICC2k"):
        ends = first[form]
        assert ends is not None
        r = records[form]
        assert (r.ci_low, r.ci_high) == ends == (other_seed[form].ci_low,
                                                 other_seed[form].ci_high)
        assert r.value is not None and ends[0] <= r.value <= ends[1], form
    assert first["ICC2"][0] < first["ICC2k"][0] and first["ICC2"][1] < first["ICC2k"][1]
    # a different pivot seed moves the ends by Monte Carlo error only
    moved = generalized_icc2(x, seed=7)["ICC2"]
    assert moved is not None and np.abs(np.subtract(moved, first["ICC2"])).max() < 0.02


def test_an_icc_outside_minus_one_to_one_is_undefined_with_the_reason() -> None:
    """Three units on which two raters disagree more than the units differ: the ANOVA
    estimates ICC1k = -24, ICC3k = -36 and ICC2 = -2.57, which no correlation can be."""
    records = iccs([[1, 5], [5, 2], [3, 3]])
    for form in ("ICC1k", "ICC3k", "ICC2"):
        r = records[form]
        assert r.value is None and r.ci_low is None, form
        assert r.band() == "undefined"
        assert "outside [-1, 1]" in r.note and "which no correlation can be" in r.note, r.note
    assert "-24.000" in records["ICC1k"].note
    # the single forms within [-1, 1] are still reported
    assert records["ICC1"].value == pytest.approx(-12 / 13)
    assert records["ICC3"].value == pytest.approx(-18 / 19)


def test_an_interval_never_reaches_below_minus_one_and_a_missing_one_says_why() -> None:
    """Two units: the F-based lower end of ICC3k is -24.9, which no ICC can be; it is cut
    to -1 and the note says so. Exact agreement within units leaves no interval (the F
    ratio is infinite) and the note says that too."""
    records = iccs([[1, 2], [3, 5]])
    r = records["ICC3k"]
    assert r.value == pytest.approx(0.96) and r.ci_low == -1.0
    assert "its lower end, -24.912, cut to -1" in r.note
    assert records["ICC3"].ci_low == pytest.approx(-0.925682496, abs=1e-8)  # kept as is
    shifted = iccs([[1, 2], [5, 6], [3, 4]])  # the second rater one higher throughout
    assert shifted["ICC3"].value == 1.0 and shifted["ICC3"].ci_low is None
    assert "no interval: the raters agree exactly within units" in shifted["ICC3"].note
    # absolute agreement still has its interval: the raters' offset is its only error
    low, high = shifted["ICC2"].ci_low, shifted["ICC2"].ci_high
    assert low is not None and high is not None
    assert low <= shifted["ICC2"].value <= high

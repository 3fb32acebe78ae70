"""ICC, Gwet's AC1/AC2 and Brennan-Prediger as a researcher gets them, the intervals
around them, and the figures that cannot hold (refused or marked)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement import code_agreement
from sense7_coder.domain.agreement.bootstrap import summarise
from sense7_coder.domain.agreement.icc import icc
from sense7_coder.domain.codebook.codes import CodebookError, code_from_dict
from sense7_coder.project.selection import Selection

#: Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges
SF_DATA = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
#: their Table 4
SF_TABLE4 = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62,
             "ICC3k": 0.91}
JUDGES = ["judge1", "judge2", "judge3", "judge4"]
#: six assistant turns of the study project
TARGETS = [("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4), ("c3", 2), ("c3", 4)]


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def frame_of(columns: dict[str, list[Any]]) -> pd.DataFrame:
    rows = [(f"u{i}", coder, v) for coder, values in columns.items()
            for i, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


@pytest.fixture
def sf_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    project = make_project(tmp_path)
    project.close()
    path = tmp_path / "study.sense7"
    status, _, err = run(capsys, "codebook", path, "add", "sf", "--kind", "ordinal",
                         "--levels", "1..10", "--label", "Shrout and Fleiss")
    assert status == 0, err
    from sense7_coder.project import Project

    with Project.open(path) as project:
        for j, judge in enumerate(JUDGES):
            code(project, judge, {(cid, pos, "sf"): SF_DATA[i][j]
                                  for i, (cid, pos) in enumerate(TARGETS)})
    return path


def test_shrout_fleiss_table_4_through_the_command_line(
    sf_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "agreement", sf_project, "--codes", "sf", "--format", "json",
                           "--bootstrap", "200", "--no-consensus")
    assert status == 0, err
    records = json.loads(out)
    iccs = {r["form"]: r for r in records if r["measure"] == "icc"}
    assert set(iccs) == set(SF_TABLE4)
    for form, published in SF_TABLE4.items():
        r = iccs[form]
        assert round(r["value"], 2) == published, form
        assert (r["n_units"], r["n_values"]) == (6, 24)
        assert r["ci_low"] <= r["value"] <= r["ci_high"]
        assert r["band"] == "too few units"  # six targets
    assert "0 units with a missing rating dropped" in iccs["ICC2"]["note"]
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "0",
                         "--no-consensus")
    line = next(li for li in out.splitlines() if "ICC3k" in li)
    assert "0.909" in line  # the table names the form
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "50",
                         "--no-consensus")
    line = next(li for li in out.splitlines() if "ICC2 " in li)
    assert "[0.026, 0.748] GCI" in line  # the generalized interval, named as such
    line = next(li for li in out.splitlines() if "ICC3 " in li)
    assert "[0.342, 0.946] F" in line  # McGraw & Wong's interval, named as such
    assert "ICC intervals marked F: McGraw & Wong's F-based intervals" in out
    assert "marked GCI: generalized confidence intervals" in out


def icc_method(form: str | None) -> str:
    return "GCI" if form in ("ICC2", "ICC2k") else "F"


def test_icc_drops_units_with_a_missing_rating_and_says_how_many() -> None:
    data = {c: [row[j] for row in SF_DATA] + [3, None] for j, c in enumerate(JUDGES)}
    data["judge4"][-2] = None  # unit 7 lacks judge 4; unit 8 has three ratings
    data["judge1"][-1] = 4
    records = code_agreement(frame_of(data), code="sf", kind="ordinal",
                             scale=list(range(1, 11)), bootstrap=0)
    icc2 = next(r for r in records if r.measure == "icc" and r.form == "ICC2")
    assert round(icc2.value or 0, 2) == 0.29 and icc2.n_units == 6
    assert "2 units with a missing rating dropped" in icc2.note


@pytest.mark.filterwarnings("ignore")
@pytest.mark.crosscheck
def test_icc_agrees_with_pingouin() -> None:
    """Cross-check (skipped unless pingouin is installed; not a dependency). Recorded by
    hand with pingouin 0.7.0 on the Shrout & Fleiss data: .165742 .289764 .714841 .442797
    .620051 .909316, equal to ours to 1e-6."""
    pg = pytest.importorskip("pingouin")
    rng = np.random.default_rng(3)
    truth = rng.normal(size=40)
    x = np.column_stack([truth + rng.normal(scale=s, size=40) + b
                         for s, b in ((0.5, 0), (0.7, 0.3), (0.4, -0.2))])
    long = pd.DataFrame([(i, j, x[i, j]) for i in range(40) for j in range(3)],
                        columns=["t", "r", "v"])
    table = pg.intraclass_corr(long, targets="t", raters="r", ratings="v")
    theirs = dict(zip(table["Type"], table["ICC"], strict=True))
    mine = icc(x)
    # pingouin names the forms as McGraw & Wong: A = absolute agreement, C = consistency
    names = {"ICC1": "ICC(1,1)", "ICC2": "ICC(A,1)", "ICC3": "ICC(C,1)", "ICC1k": "ICC(1,k)",
             "ICC2k": "ICC(A,k)", "ICC3k": "ICC(C,k)"}
    for form, other in names.items():
        assert mine[form] == pytest.approx(theirs[other], abs=1e-12)


@pytest.mark.crosscheck
def test_gwet_and_brennan_prediger_agree_with_irrcac() -> None:
    """Cross-check (skipped unless irrCAC is installed; not a dependency): 30 units, four
    raters, a fifth of the ratings missing."""
    irr = pytest.importorskip("irrCAC.raw")
    rng = np.random.default_rng(7)
    data = rng.integers(1, 6, size=(30, 4)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    frame = pd.DataFrame(data, columns=[f"r{j}" for j in range(4)])
    cac = irr.CAC(frame, categories=[1, 2, 3, 4, 5])
    long = frame_of({c: [None if np.isnan(v) else int(v) for v in frame[c]]
                     for c in frame.columns})
    mine = code_agreement(long, code="x", kind="ordinal", scale=[1, 2, 3, 4, 5], bootstrap=0)

    def value(measure: str, weights: str | None = None) -> float:
        return next(r.value for r in mine if r.measure == measure and r.weights == weights)

    assert value("gwet_ac1") == pytest.approx(cac.gwet()["est"]["coefficient_value"], abs=1e-4)
    assert value("brennan_prediger") == pytest.approx(cac.bp()["est"]["coefficient_value"],
                                                      abs=1e-4)
    for w in ("linear", "quadratic"):
        weighted = irr.CAC(frame, weights=w, categories=[1, 2, 3, 4, 5])
        assert value("gwet_ac2", w) == pytest.approx(
            weighted.gwet()["est"]["coefficient_value"], abs=1e-4)


def test_new_coefficients_have_intervals_with_their_counts() -> None:
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, size=60)
    data = {c: [int(np.clip(t + rng.integers(-1, 2), 1, 5)) for t in truth]
            for c in ("ann", "bob", "cy")}
    data["cy"][:10] = [None] * 10
    records = code_agreement(frame_of(data), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                             bootstrap=300, seed=2)
    for r in records:
        if r.measure in ("gwet_ac1", "gwet_ac2", "brennan_prediger"):
            assert r.ci_low is not None and r.ci_low <= r.value <= r.ci_high, r
            assert (r.ci_method, r.draws) == ("percentile", 300)
            assert "300 draws, seed 2" in r.note
        if r.measure == "icc":  # McGraw & Wong's F-based or the generalized interval
            assert r.ci_low is not None and r.ci_low <= r.value <= r.ci_high, r
            generalized = r.form in ("ICC2", "ICC2k")
            assert (r.ci_method, r.draws) == ("GCI" if generalized else "F", 0)
            assert ("generalized confidence interval" if generalized
                    else "F-based (McGraw & Wong 1996)") in r.note
    icc2 = next(r for r in records if r.form == "ICC2")
    assert icc2.n_units == 50 and "10 units with a missing rating dropped" in icc2.note
    ac1 = next(r for r in records if r.measure == "gwet_ac1")
    assert (ac1.n_units, ac1.n_values) == (60, 170)
    again = code_agreement(frame_of(data), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                           bootstrap=300, seed=2)
    assert [(r.ci_low, r.ci_high) for r in again] == [(r.ci_low, r.ci_high) for r in records]


def test_bca_interval_and_hayes_krippendorff_q() -> None:
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 6, size=80)
    data = {c: [int(np.clip(t + rng.integers(-1, 2), 1, 5)) for t in truth]
            for c in ("ann", "bob")}
    pct = code_agreement(frame_of(data), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                         bootstrap=400, seed=1)
    bca = code_agreement(frame_of(data), code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                         bootstrap=400, seed=1, ci="bca")
    a_pct, a_bca = pct[0], bca[0]
    assert a_pct.measure == a_bca.measure == "krippendorff_alpha"
    assert a_bca.ci_method == "bca" and "BCa bootstrap" in a_bca.note
    assert a_bca.ci_low <= a_bca.value <= a_bca.ci_high
    # same draws, shifted percentiles: a different interval
    assert (a_bca.ci_low, a_bca.ci_high) != (a_pct.ci_low, a_pct.ci_high)
    assert 0 <= a_pct.q_below_667 <= a_pct.q_below_800 <= 1
    # q is the share of draws below the minimum: alpha well above .8 is rarely below it
    assert (a_pct.value > 0.8) == (a_pct.q_below_800 < 0.5)


def test_bca_for_kappa_and_against_a_reference() -> None:
    rng = np.random.default_rng(9)
    truth = rng.integers(1, 6, size=70)
    data = {c: [int(np.clip(t + rng.integers(-1, 2), 1, 5)) for t in truth]
            for c in ("ann", "bob", "users")}
    from sense7_coder.domain.agreement import rater_vs_reference

    for ci in ("percentile", "bca"):
        records = code_agreement(frame_of(data), code="c", kind="ordinal",
                                 scale=[1, 2, 3, 4, 5], bootstrap=300, seed=3, ci=ci)
        vs = rater_vs_reference(frame_of(data), code="c", kind="ordinal",
                                scale=[1, 2, 3, 4, 5], bootstrap=300, seed=3, ci=ci)
        for r in records + vs:
            if r.value is not None and r.measure != "percent_agreement" and r.measure != \
                    "fleiss_kappa":
                assert r.ci_method == (icc_method(r.form) if r.measure == "icc" else ci), r
                assert r.ci_low <= r.value <= r.ci_high, r
        kappa = next(r for r in records if r.measure == "cohen_kappa" and r.weights == "linear")
        if ci == "percentile":
            pct = (kappa.ci_low, kappa.ci_high)
        else:
            assert (kappa.ci_low, kappa.ci_high) != pct and "BCa" in kappa.note


def test_summarise_counts_undefined_draws_and_q() -> None:
    values = np.array([0.5, 0.7, np.nan, 0.9, np.nan, 0.85, 0.6, 0.75])
    interval = summarise(values, q_minimums=(0.667, 0.8))
    assert (interval.draws, interval.undefined_draws) == (8, 2)
    assert interval.undefined_share == 0.25
    assert interval.q_below == {0.667: pytest.approx(2 / 6), 0.8: pytest.approx(4 / 6)}


def _simulate_alpha_coverage(reps: int, n_units: int, seed: int) -> float:
    """Share of percentile intervals (200 draws) that hold the population alpha, for two
    coders who copy a true value with probability rho and otherwise draw at random."""
    rng = np.random.default_rng(seed)
    rho = 0.7
    # for nominal alpha with uniform categories and independent noise, the population
    # value is rho^2 (the chance that two codings share the true value by copying)
    true_alpha = rho ** 2
    hits = 0
    for r in range(reps):
        truth = rng.integers(0, 4, size=n_units)
        coders = {}
        for c in ("a", "b"):
            copy = rng.random(n_units) < rho
            coders[c] = np.where(copy, truth, rng.integers(0, 4, size=n_units)).tolist()
        records = code_agreement(frame_of(coders), code="s", kind="nominal", scale=[0, 1, 2, 3],
                                 bootstrap=200, seed=r)
        alpha = records[0]
        hits += alpha.ci_low <= true_alpha <= alpha.ci_high
    return hits / reps


def test_bootstrap_interval_covers_the_population_alpha_about_95_percent() -> None:
    """Known population alpha (.49), 60 units, 300 replications of 200 draws (about 5 s).
    The percentile interval of alpha covers it about 93% of the time at this size; with 300
    replications the share lands within +-.04 of the true coverage with ~99.8% probability."""
    coverage = _simulate_alpha_coverage(reps=300, n_units=60, seed=11)
    assert 0.90 <= coverage <= 0.985, coverage


# -- figures that cannot hold --------------------------------------------------------------

def test_ratio_level_is_refused_on_a_scale_with_zero_or_below() -> None:
    data = {"ann": [0, 1, 2, 3, 4, 2], "bob": [4, 3, 2, 1, 0, 2]}
    with pytest.raises(ValueError, match="ratio alpha needs levels above zero"):
        code_agreement(frame_of(data), code="c", kind="ordinal", scale=[0, 1, 2, 3, 4],
                       level="ratio", bootstrap=0)
    ok = code_agreement(frame_of({"ann": [1, 2, 3, 4, 5, 3], "bob": [5, 4, 3, 2, 1, 3]}),
                        code="c", kind="ordinal", scale=[1, 2, 3, 4, 5], level="ratio",
                        bootstrap=0)
    assert ok[0].value is not None and ok[0].value < 0


def test_level_override_never_makes_a_nominal_code_ordinal() -> None:
    data = {"ann": [0, 1, 1, 0], "bob": [0, 1, 0, 0]}
    for level in ("ordinal", "interval", "ratio"):
        with pytest.raises(ValueError, match="has no order"):
            code_agreement(frame_of(data), code="c", kind="binary", scale=[0, 1], level=level,
                           bootstrap=0)


def test_a_level_a_named_code_cannot_take_is_refused_and_others_say_so(
    sf_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the API refuses it: a nominal code named with --codes is never read at another
    level (it used to exit 0 and report nominal); over every code, the codes that cannot
    take the override keep their own level and a note on stderr names them."""
    from sense7_coder.project import Project

    with Project.open(sf_project) as project:
        code(project, "judge1", {("c1", 2, "strategy"): "advice", ("c1", 4, "strategy"): "question"})
        code(project, "judge2", {("c1", 2, "strategy"): "advice", ("c1", 4, "strategy"): "advice"})
    for level in ("ordinal", "interval"):
        status, out, err = run(capsys, "agreement", sf_project, "--codes", "strategy,sf",
                               "--level", level, "--format", "json", "--bootstrap", "0")
        assert (status, out) == (2, "")
        assert len(err.strip().splitlines()) == 1
        assert f"code 'strategy': a nominal code has no order; {level} alpha needs" in err
    status, out, err = run(capsys, "agreement", sf_project, "--level", "interval",
                           "--format", "json", "--bootstrap", "0", "--no-consensus")
    assert status == 0, err
    alphas = {r["code"]: r["level"] for r in json.loads(out)
              if r["measure"] == "krippendorff_alpha" and r["level"] != "applicability"}
    assert alphas["strategy"] == "nominal" and alphas["sf"] == "interval"
    assert "--level interval applies to the codes that can take it" in err
    assert "strategy" in err.split("; ", 1)[1]
    status, out, err = run(capsys, "agreement", sf_project, "--codes", "sf", "--level", "ratio",
                           "--bootstrap", "0")
    assert status == 0, err  # 1..10 has no level at or below zero


def test_ordinal_levels_out_of_order_are_refused() -> None:
    with pytest.raises(CodebookError, match="declared in order"):
        code_from_dict({"key": "x", "label": "X", "kind": "ordinal",
                        "levels": [{"value": 1}, {"value": 3}, {"value": 2}]})
    ok = code_from_dict({"key": "x", "label": "X", "kind": "ordinal",
                         "levels": [{"value": -1}, {"value": 0}, {"value": 2}]})
    assert ok.values == [-1, 0, 2]


def test_min_units_band_in_json_and_csv(sf_project: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--format", "json",
                         "--bootstrap", "0", "--no-consensus")
    alpha = next(r for r in json.loads(out) if r["measure"] == "krippendorff_alpha")
    assert alpha["band"] == "too few units" and alpha["min_units"] == 10
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--format", "csv",
                         "--bootstrap", "0", "--no-consensus", "--min-units", "5")
    frame = pd.read_csv(__import__("io").StringIO(out))
    row = frame[frame["measure"] == "krippendorff_alpha"].iloc[0]
    assert row["band"] in ("good (point)", "tentative (point)", "low (point)") and row["min_units"] == 5


def test_applicability_alpha_sees_disagreement_on_not_applicable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    units = [("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4), ("c3", 2), ("c3", 4)]
    # where both give a value they agree; but they disagree on whether 'affective' applies
    ann = [3, None, 4, None, 2, 5]
    bob = [3, 2, 4, 5, 2, None]
    code(project, "ann", {(c, p, "affective"): v for (c, p), v in zip(units, ann, strict=True)})
    code(project, "bob", {(c, p, "affective"): v for (c, p), v in zip(units, bob, strict=True)})
    project.close()
    status, out, err = run(capsys, "agreement", tmp_path / "study.sense7", "--codes",
                           "affective", "--format", "json", "--bootstrap", "0")
    assert status == 0, err
    records = [r for r in json.loads(out) if r["measure"] == "krippendorff_alpha"]
    values, applies = records[0], records[1]
    assert values["level"] == "ordinal" and values["value"] == pytest.approx(1.0)
    assert applies["level"] == "applicability"
    assert applies["n_units"] == 6 and applies["value"] < 0.3
    # reconciliation sees the same three disagreements: a value against not applicable
    from sense7_coder.project import Project
    from sense7_coder.project.reconcile import disagreements

    with Project.open(tmp_path / "study.sense7") as study:
        queue = disagreements(study, Selection(codes=["affective"]))
    assert sorted((d.unit.conversation_id, d.unit.position) for d in queue) == [
        ("c1", 4), ("c2", 4), ("c3", 4)]


# -- methods paragraph ---------------------------------------------------------------------

def test_methods_report_states_what_reproduces_the_numbers(
    sf_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sense7_coder import __version__

    status, out, err = run(capsys, "agreement", sf_project, "--codes", "sf", "--format",
                           "report", "--bootstrap", "150", "--seed", "4", "--ci", "bca",
                           "--no-consensus")
    assert status == 0, err
    for needed in (f"sense7-coder {__version__}", "4 coders (judge1, judge2, judge3, judge4)",
                   "Krippendorff's alpha", "(ordinal)", "bias-corrected and accelerated",
                   "150 draws, seed 4", "Shrout and Fleiss (1979", "Gwet (2014)",
                   "fewer than 10 units", "| sf | ICC2 | 4 | 6 | 24 | .290 |",
                   "Hayes, A. F., & Krippendorff, K. (2007)"):
        assert needed in out, needed
    status, latex, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--format",
                           "report", "--latex", "--bootstrap", "0", "--no-consensus")
    assert status == 0
    assert "\\begin{tabular}" in latex and "$\\alpha$" in latex and "\\bibitem" in latex
    assert "No confidence intervals were computed." in latex
    assert latex.count("\\\\") >= 1 + 1 + 6  # header, alpha, six ICC rows at least


# -- diagnostics ---------------------------------------------------------------------------

def test_confusion_bias_and_drift() -> None:
    from sense7_coder.domain.agreement import diagnostics
    from sense7_coder.domain.agreement.ratings import prepare_ratings

    # bob rates one level above ann, except on the first four units he coded
    ann = [1, 2, 3, 4, 1, 2, 3, 4, 2, 3]
    bob = [1, 2, 3, 4, 2, 3, 4, 5, 3, 4]
    ratings = prepare_ratings(frame_of({"ann": ann, "bob": bob}), code="c",
                              scale=[1, 2, 3, 4, 5])
    table = diagnostics.confusion(ratings)
    assert len(table) == 25 and table["n_units"].sum() == 10
    cell = table[(table["value_a"] == 2) & (table["value_b"] == 3)]
    assert int(cell["n_units"].iloc[0]) == 2  # ann 2 / bob 3 on units 6 and 9
    bias = diagnostics.bias(ratings).set_index("coder")
    assert bias.loc["bob", "mean_difference"] == pytest.approx(0.6)
    assert bias.loc["ann", "mean_difference"] == pytest.approx(-0.6)
    order = pd.DataFrame({"coder": ["bob"] * 10, "unit": [f"u{i}" for i in range(10)],
                          "rank": range(10)})
    drift = diagnostics.drift(ratings, order, blocks=2)
    bob_blocks = drift[drift["coder"] == "bob"]
    assert list(bob_blocks["n_units"]) == [5, 5]
    assert list(bob_blocks["agreement"]) == [pytest.approx(0.8), pytest.approx(0.0)]
    assert list(bob_blocks["mean_difference"]) == [pytest.approx(0.2), pytest.approx(1.0)]
    assert (bob_blocks["first"].tolist(), bob_blocks["last"].tolist()) == ([1, 6], [5, 10])


def test_diagnostics_through_the_command_line(sf_project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import io

    status, out, err = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "0",
                           "--diagnostics", "confusion")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["code", "coder_a", "coder_b", "value_a", "value_b",
                                   "n_units"]
    # six pairs of judges, 10 x 10 levels each, six targets per pair
    assert len(table) == 6 * 100 and table.groupby(["coder_a", "coder_b"])["n_units"].sum(
    ).eq(6).all()
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "0",
                         "--diagnostics", "bias")
    bias = pd.read_csv(io.StringIO(out)).set_index("coder")["mean_difference"]
    # judge 1 rates highest and judge 2 lowest in Shrout & Fleiss's data
    assert bias.idxmax() == "judge1" and bias.idxmin() == "judge2"
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "0",
                         "--diagnostics", "drift")
    drift = pd.read_csv(io.StringIO(out))
    assert set(drift["coder"]) == set(JUDGES)
    assert drift.groupby("coder")["n_units"].sum().eq(6).all()


# -- published Gwet and Brennan-Prediger values through the command line ---------------------

REFERENCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "agreement-references.json"
CLI_METRICS = ("gwet_ac1", "gwet_ac2", "brennan_prediger")


def _cli_datasets() -> list[Any]:
    if not REFERENCES.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{REFERENCES} not present"))]
    cases = json.loads(REFERENCES.read_text(encoding="utf-8"))["cases"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        level = c.get("level") or ""
        weights = level.split(":", 1)[1] if level.startswith("gwet_weights:") else None
        if c["metric"] in CLI_METRICS and weights in (None, "linear", "quadratic"):
            groups.setdefault(json.dumps(c["data"]), []).append(c)
    return [pytest.param(g, id=g[0]["id"]) for g in groups.values()]


@pytest.mark.parametrize("group", _cli_datasets())
def test_published_gwet_and_brennan_prediger_through_the_command_line(
    group: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each data set becomes a project (two assistant turns per conversation, one coder per
    column), its codings go in with import-codings and the figures come from agreement."""
    from analysis_support import conversation_lines

    case = group[0]
    data = case["data"]
    n_conv = (len(data) + 1) // 2
    convs = [(f"k{i}", "P1", "M", 1, 1) for i in range(n_conv)]
    make_project(tmp_path, conversations=conversation_lines(convs)).close()
    path = tmp_path / "study.sense7"
    labels = case.get("labels") or case.get("categories") or sorted(
        {v for row in data for v in row if v is not None})
    numeric = all(isinstance(v, int) for v in labels)
    ordinal = numeric and labels == list(range(labels[0], labels[-1] + 1))
    levels = f"{labels[0]}..{labels[-1]}" if ordinal else ",".join(map(str, labels))
    status, _, err = run(capsys, "codebook", path, "add", "ref", "--kind",
                         "ordinal" if ordinal else "nominal", "--levels", levels)
    assert status == 0, err
    lines = ["coder,conversation_id,turn,code,value"]
    for i, row in enumerate(data):
        for j, value in enumerate(row):
            if value is not None:
                lines.append(f"coder{j},k{i // 2},{2 if i % 2 == 0 else 4},ref,{value}")
    codings = tmp_path / "codings.csv"
    codings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, _, err = run(capsys, "import-codings", path, codings)
    assert status == 0, err
    status, out, err = run(capsys, "agreement", path, "--codes", "ref", "--format", "json",
                           "--bootstrap", "0", "--no-consensus")
    assert status == 0, err
    records = json.loads(out)
    for c in group:
        level = c.get("level") or ""
        weights = level.split(":", 1)[1] if level.startswith("gwet_weights:") else None
        (record,) = [r for r in records if r["measure"] == c["metric"]
                     and r["weights"] == weights]
        assert record["value"] == pytest.approx(c["expected"], abs=c["tolerance"] + 1e-12), c["id"]


def test_an_icc_with_a_denominator_not_above_zero_is_undefined_not_above_one() -> None:
    """Five raters each giving every level once, in turn: no unit and no rater differs on
    average. The two-way formula for the mean of k raters then divides by a negative
    number and gave ICC2k = n (3,000 on a crowd's project); it is undefined, and why."""
    from sense7_coder.domain.agreement import icc as icc_mod
    from sense7_coder.domain.agreement.coefficients import icc_records
    from sense7_coder.domain.agreement.progress import Steps
    from sense7_coder.domain.agreement.ratings import prepare_ratings

    x = np.array([[1 + (i + u) % 5 for i in range(5)] for u in range(5)], dtype=float)
    values = icc_mod.icc(x)
    assert values["ICC2k"] is None and values["ICC1k"] is None and values["ICC3k"] is None
    assert all(v is None or v <= 1 for v in values.values())
    frame = pd.DataFrame([(f"u{u}", f"r{i}", x[u, i]) for u in range(5) for i in range(5)],
                         columns=["unit", "coder", "value"])
    ratings = prepare_ratings(frame, code="c", scale=[1, 2, 3, 4, 5])
    records = {r.form: r for r in icc_records(ratings, bootstrap=20, seed=0,
                                              steps=Steps(21, None, None))}
    assert records["ICC2k"].value is None
    assert "no variation between units" in records["ICC2k"].note
    # raters varying less than the residual: a negative denominator, said as such
    y = np.array([[1, 5], [5, 1], [2, 3], [3, 2]], dtype=float)
    assert all(v is None or v <= 1 for v in icc_mod.icc(y).values())


def test_drift_counts_others_from_unit_totals_as_it_did_pair_by_pair() -> None:
    """Drift now counts each unit's levels once and takes the coder's own away; against a
    direct count of the other coders' equal values, block by block."""
    from sense7_coder.domain.agreement import diagnostics
    from sense7_coder.domain.agreement.ratings import prepare_ratings

    rng = np.random.default_rng(11)
    rows = [(f"u{u}", f"c{c}", int(rng.integers(1, 6)))
            for c in range(6) for u in range(30) if rng.random() < 0.8]
    frame = pd.DataFrame(rows, columns=["unit", "coder", "value"])
    ratings = prepare_ratings(frame, code="x", scale=[1, 2, 3, 4, 5])
    order = frame.assign(rank=np.arange(len(frame))[::-1])  # each coder's reverse order
    table = diagnostics.drift(ratings, order, blocks=3)
    values = frame.pivot(index="unit", columns="coder", values="value")
    for coder, blocks in table.groupby("coder"):
        mine = frame[frame["coder"] == coder].iloc[::-1]
        units = [u for u in mine["unit"] if values.loc[u].drop(coder).notna().any()]
        for b, chunk in zip(blocks.itertuples(), np.array_split(units, len(blocks)), strict=True):
            others = values.loc[list(chunk)].drop(columns=coder)
            own = values.loc[list(chunk), coder]
            same = int(others.eq(own, axis=0).sum().sum())
            pairs = int(others.notna().sum().sum())
            assert b.n_units == len(chunk)
            assert b.agreement == pytest.approx(same / pairs)
            assert b.mean_difference == pytest.approx(
                float((own - others.mean(axis=1)).mean()))


def test_kappa_weights_option_on_the_command_line(
    sf_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "agreement", sf_project, "--codes", "sf", "--format", "json",
                           "--bootstrap", "0", "--no-consensus", "--kappa-weights", "values")
    assert status == 0, err
    linear = [r for r in json.loads(out) if r["measure"] == "cohen_kappa"
              and r["weights"] == "linear"]
    assert linear and all("weights on the level values, as AC2" in r["note"] for r in linear)
    status, out, _ = run(capsys, "agreement", sf_project, "--codes", "sf", "--bootstrap", "0",
                         "--no-consensus", "--kappa-weights", "values")
    assert "kappa weights over each code's declared scale, on the level values" in out
    with pytest.raises(SystemExit) as refused:
        main(["agreement", str(sf_project), "--kappa-weights", "ranks"])
    assert refused.value.code == 2

"""Bootstrap intervals of the two-rater figures: Cohen's kappa and Spearman's rho."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import (
    COHEN,
    SPEARMAN,
    USERS_RATER,
    AgreementRecord,
    CodeFrameSpec,
    agreement_report,
    code_agreement,
    rater_vs_reference,
)
from sense7_coder.domain.agreement.kappa import cohen_kappa, contingency, spearman
from sense7_coder.domain.agreement.pairs_bootstrap import (
    kappas_of_tables,
    pair_intervals,
    spearmans_of_tables,
)
from sense7_coder.domain.agreement.progress import Steps
from sense7_coder.domain.errors import Cancelled

SCALE = [1, 2, 3, 4, 5]
LEND_AN_EAR = Path("mint-empathy") / "lend_an_ear_eval" / "expert_ratings"


def frame_of(matrix: dict[str, list[Any]]) -> pd.DataFrame:
    """{coder: [value per unit]} (None = no value) -> long table."""
    rows = [(f"u{i}", coder, value) for coder, values in matrix.items()
            for i, value in enumerate(values)]
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def random_matrix(n_units: int, coders: list[str], seed: int) -> dict[str, list[Any]]:
    """Raters who mostly agree with a hidden truth (off by one now and then), 10% missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_units)
    data: dict[str, list[Any]] = {}
    for c in coders:
        values = np.clip(truth + rng.integers(-1, 2, n_units), 1, 5).astype(float)
        values[rng.random(n_units) < 0.1] = np.nan
        data[c] = [None if np.isnan(v) else int(v) for v in values]
    return data


def pair_figures(records: list[AgreementRecord]) -> list[AgreementRecord]:
    return [r for r in records if r.measure in (COHEN, SPEARMAN)]


def intervals(records: list[AgreementRecord]) -> dict[tuple[str, str | None, str], tuple[
        float | None, float | None]]:
    return {(r.measure, r.weights, "|".join(r.coders)): (r.ci_low, r.ci_high)
            for r in pair_figures(records)}


# -- on realistic data --------------------------------------------------------------------

def test_every_pair_figure_has_an_interval_around_its_value() -> None:
    frame = frame_of(random_matrix(400, ["ann", "bob", "cy", USERS_RATER], seed=1))
    coders = code_agreement(frame[frame["coder"] != USERS_RATER], code="c", kind="ordinal",
                            scale=SCALE, bootstrap=300, seed=1)
    vs_users = rater_vs_reference(frame, code="c", kind="ordinal", scale=SCALE,
                                  bootstrap=300, seed=1)
    figures = pair_figures(coders) + pair_figures(vs_users)
    # 3 pairs x 3 weightings among the coders; 3 raters x (2 kappas + rho) against the users
    assert len(figures) == 9 + 9
    for r in figures:
        assert r.value is not None and r.ci_low is not None and r.ci_high is not None, r
        assert r.ci_low < r.value < r.ci_high, r
        assert r.ci_high - r.ci_low < 0.3
        assert "95% CI: percentile bootstrap over units, 300 draws, seed 1" in r.note
    assert {r.measure for r in pair_figures(vs_users)} == {COHEN, SPEARMAN}


def test_intervals_on_real_expert_ratings(shared_data: Path) -> None:
    folder = shared_data / LEND_AN_EAR
    if not folder.is_dir():
        pytest.skip(f"{folder} not present")
    frames = []
    for expert in ("expert1", "expert2", "expert3"):
        data = pd.read_csv(folder / f"{expert}_ratings.csv", dtype={"conversation_id": str})
        frames.append(pd.DataFrame({"unit": data["conversation_id"], "coder": expert,
                                    "value": data["validating_emotions"]}))
    records = rater_vs_reference(pd.concat(frames), code="validating_emotions",
                                 kind="ordinal", scale=SCALE, reference="expert1",
                                 bootstrap=1000, seed=0)
    figures = pair_figures(records)
    assert len(figures) == 2 * 3  # expert2, expert3: linear, quadratic, rho
    for r in figures:
        assert r.value is not None and r.ci_low is not None and r.ci_high is not None
        assert r.ci_low <= r.value <= r.ci_high and r.ci_high - r.ci_low < 0.6


def test_same_seed_same_intervals_other_seed_other_intervals() -> None:
    frame = frame_of(random_matrix(200, ["ann", "bob", USERS_RATER], seed=2))

    def run(seed: int) -> list[AgreementRecord]:
        report = agreement_report(
            {"c": CodeFrameSpec(frame, "ordinal", SCALE, references=[USERS_RATER])},
            bootstrap=200, seed=seed,
        )
        return report.records

    first, again, other = run(7), run(7), run(8)
    assert intervals(first) == intervals(again)
    assert all(a != b for a, b in zip(intervals(first).values(), intervals(other).values(),
                                      strict=True))
    assert [r.value for r in first] == [r.value for r in other]


def test_interval_does_not_depend_on_the_order_of_the_units() -> None:
    frame = frame_of(random_matrix(150, ["ann", "bob"], seed=3))
    shuffled = frame.sample(frac=1.0, random_state=0)
    a = code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=200)
    b = code_agreement(shuffled, code="c", kind="ordinal", scale=SCALE, bootstrap=200)
    assert intervals(a) == intervals(b)


def test_no_bootstrap_no_intervals() -> None:
    frame = frame_of(random_matrix(100, ["ann", "bob", USERS_RATER], seed=4))
    records = rater_vs_reference(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    records += code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    figures = pair_figures(records)
    assert figures and all(r.ci_low is None and r.ci_high is None for r in figures)
    assert not any("95% CI" in r.note for r in figures)


# -- undefined and perfect ----------------------------------------------------------------

def test_undefined_kappa_has_no_interval() -> None:
    frame = frame_of({"ann": [1, 2, None, None], "bob": [None, None, 3, 4],
                      "cy": [2, 2, 2, 2], "dee": [2, 2, 2, 2]})
    records = code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=200)
    nothing = [r for r in records if r.measure == COHEN and r.coders == ["ann", "bob"]]
    single = [r for r in records if r.measure == COHEN and r.coders == ["cy", "dee"]]
    for r in nothing + single:
        assert r.value is None and r.ci_low is None and r.ci_high is None
        assert "95% CI" not in r.note
    assert all("no unit rated by both" in r.note for r in nothing)


def test_perfect_agreement_with_variation_gives_one_to_one() -> None:
    users = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 3, 3]
    frame = frame_of({USERS_RATER: users, "same": users})
    records = rater_vs_reference(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=500)
    kappas = [r for r in records if r.measure == COHEN]
    assert {r.weights for r in kappas} == {"linear", "quadratic"}
    for r in kappas:
        assert (r.value, r.ci_low, r.ci_high) == (1.0, 1.0, 1.0)
    rho = next(r for r in records if r.measure == SPEARMAN)
    assert rho.ci_low == pytest.approx(1.0) and rho.ci_high == pytest.approx(1.0)


def test_draws_where_kappa_is_undefined_are_left_out_and_counted() -> None:
    # three units: a third of the resamples hold a single level, where kappa is undefined
    frame = frame_of({"ann": ["no", "no", "yes"], "bob": ["no", "no", "yes"]})
    r = next(r for r in code_agreement(frame, code="c", kind="nominal", scale=["no", "yes"],
                                       bootstrap=600, seed=0) if r.measure == COHEN)
    assert (r.value, r.ci_low, r.ci_high) == (1.0, 1.0, 1.0)
    left_out = int(r.note.split("(")[1].split(" draws undefined, left out)")[0])
    assert 120 < left_out < 280  # expected 600 * 1/3


# -- the fast path is the same statistic --------------------------------------------------

def test_vectorised_kappa_and_rho_match_the_single_sample_functions() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 5, 60)
    y = np.clip(x + rng.integers(-2, 3, 60), 0, 4)
    samples = [rng.integers(0, 60, 60) for _ in range(6)]
    samples.append(np.flatnonzero(x == x[0])[[0, 0, 0]])  # one level only: undefined
    tables = np.stack([contingency(x[i], y[i], 5) for i in samples])
    for weights in ("none", "linear", "quadratic"):
        fast = kappas_of_tables(tables, weights)
        for value, i in zip(fast, samples, strict=True):
            slow = cohen_kappa(x[i], y[i], 5, weights)
            if slow is None:
                assert np.isnan(value)
            else:
                assert value == pytest.approx(slow, abs=1e-12)
    for value, i in zip(spearmans_of_tables(tables), samples, strict=True):
        slow = spearman(x[i], y[i])
        if slow is None:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(slow, abs=1e-12)


def test_resampled_tables_give_the_interval_of_resampling_units() -> None:
    rng = np.random.default_rng(6)
    x = rng.integers(0, 5, 200)
    y = np.clip(x + rng.integers(-1, 2, 200), 0, 4)
    naive = []
    for _ in range(2000):  # the textbook route: draw unit indices, recompute kappa
        i = rng.integers(0, 200, 200)
        naive.append(cohen_kappa(x[i], y[i], 5, "quadratic"))
    low, high = np.percentile(np.asarray(naive, dtype=float), [2.5, 97.5])
    fast = pair_intervals(contingency(x, y, 5), ["quadratic"], draws=2000, seed=0)["quadratic"]
    assert fast.low == pytest.approx(low, abs=0.01)
    assert fast.high == pytest.approx(high, abs=0.01)


def test_thousand_draws_over_ten_thousand_units_are_all_defined() -> None:
    """Every draw over a large table gives a figure (its speed is measured in
    benchmarks/, never here)."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 5, 10_000)
    y = np.clip(x + rng.integers(-1, 2, 10_000), 0, 4)
    found = pair_intervals(contingency(x, y, 5), ["none", "linear", "quadratic"],
                           spearman=True, draws=1000, seed=0)
    assert all(i.low is not None and i.undefined_draws == 0 for i in found.values())
    assert all(i.low <= i.high for i in found.values())  # type: ignore[operator]


# -- cancel ---------------------------------------------------------------------------------

@pytest.mark.parametrize("job", [code_agreement, rater_vs_reference])
def test_cancel_stops_the_pair_bootstrap(job: Any) -> None:
    frame = frame_of(random_matrix(300, ["ann", "bob", "cy", USERS_RATER], seed=8))
    alpha_done: list[bool] = []

    def progress(done: int, total: int) -> None:
        if done >= 50:  # alpha's 50 draws are counted: the next check is in the pairs
            alpha_done.append(True)

    with pytest.raises(Cancelled) as caught:
        job(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=50,
            progress=progress, cancel=lambda: bool(alpha_done))
    assert any("pairs_bootstrap" in str(entry.path) for entry in caught.traceback)


def test_cancel_is_asked_between_chunks_of_draws() -> None:
    k = 300  # a long nominal scale: a few dozen draws per chunk
    rng = np.random.default_rng(9)
    x, y = rng.integers(0, k, 500), rng.integers(0, k, 500)
    asked: list[int] = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(Cancelled):
        pair_intervals(contingency(x, y, k), ["none"], draws=1000, seed=0,
                       steps=Steps(1, cancel=cancel))
    assert len(asked) == 3


# -- where the intervals are shown ----------------------------------------------------------

def test_cli_table_and_gui_tables_show_the_pair_intervals() -> None:
    from sense7_coder.cli.analysis import agreement_lines
    from sense7_coder.ui.analysis.agreement_tables import rater_columns
    from sense7_coder.ui.analysis.report_rows import explain, rater_rows

    frame = frame_of(random_matrix(120, ["ann", "bob", USERS_RATER], seed=10))
    report = agreement_report(
        {"c": CodeFrameSpec(frame, "ordinal", SCALE, references=[USERS_RATER])},
        bootstrap=100,
    )
    kappa_lines = [line for line in agreement_lines(report) if "cohen_kappa" in line]
    assert kappa_lines and all("[" in line and "]" in line for line in kappa_lines)

    rows = rater_rows(report, weights="quadratic")
    kappa = rows[0].records[COHEN]
    assert kappa.weights == "quadratic" and kappa.ci_low is not None
    column = next(c for c in rater_columns("quadratic", rows)
                  if c.header == "Cohen's κ quadratic 95% CI")
    assert column.text(rows[0]) == f"[{kappa.ci_low:.3f}, {kappa.ci_high:.3f}]"
    assert f"95% CI {column.text(rows[0])}" in explain(kappa)  # tooltips, pair matrix too

"""Behaviour of the agreement engine on small hand-made data."""

from __future__ import annotations

import time
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import (
    USERS_RATER,
    AgreementRecord,
    CodeFrameSpec,
    agreement_report,
    code_agreement,
    pairwise_matrix,
    rater_vs_reference,
)
from sense7_coder.domain.errors import Cancelled, InputError
from sense7_coder.domain.measures import MEASURES_BY_KEY

SCALE = [1, 2, 3, 4, 5]


def frame_of(matrix: dict[str, list[Any]]) -> pd.DataFrame:
    """{coder: [value per unit]} (None = no value) -> long table."""
    rows = [
        (f"u{i}", coder, value)
        for coder, values in matrix.items()
        for i, value in enumerate(values)
    ]
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def pick(records: list[AgreementRecord], measure: str, weights: str | None = None,
         coders: list[str] | None = None) -> AgreementRecord:
    found = [
        r for r in records
        if r.measure == measure
        and (weights is None or r.weights == weights)
        and (coders is None or r.coders == coders)
    ]
    assert len(found) == 1, f"{len(found)} records for {measure} {weights} {coders}"
    return found[0]


def random_frame(n_units: int, coders: int, seed: int, missing: float = 0.1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_units)
    data = {}
    for c in range(coders):
        values = np.clip(truth + rng.integers(-1, 2, n_units), 1, 5).astype(float)
        values[rng.random(n_units) < missing] = np.nan
        data[f"coder{c}"] = list(values)
    return frame_of(data)


# -- undefined is not agreement -----------------------------------------------------------

def test_nothing_pairable_is_undefined_not_one() -> None:
    frame = frame_of({"ann": [1, None, None], "bob": [None, 2, None], "cy": [None, None, 3]})
    records = code_agreement(frame, code="c", kind="ordinal", scale=SCALE)
    for r in records:
        assert r.value is None, r
        assert r.n_units == 0
        assert r.band() == "undefined"
    assert "two raters" in pick(records, "krippendorff_alpha").note
    assert pick(records, "krippendorff_alpha").ci_low is None


def test_a_single_rater_gives_undefined_figures() -> None:
    records = code_agreement(frame_of({"ann": [1, 2, 3]}), code="c", kind="ordinal", scale=SCALE)
    assert pick(records, "krippendorff_alpha").value is None
    assert not [r for r in records if r.measure == "cohen_kappa"]


def test_identical_coders_with_variation_agree_perfectly() -> None:
    values = [1, 2, 3, 4, 5, 3, 2]
    frame = frame_of({"ann": values, "bob": values, "cy": values})
    records = code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=50)
    for r in records:
        if MEASURES_BY_KEY[r.measure].covers(len(r.coders)):
            assert r.value == pytest.approx(1.0), r
        else:  # a measure of two raters (Scott's pi) among three: undefined, saying why
            assert r.value is None and "here 3" in r.note, r
    alpha = pick(records, "krippendorff_alpha")
    # seven units are below the default minimum of ten: no band is claimed from them
    assert alpha.band() == "too few units"
    alpha.min_units = 5
    assert alpha.band() == "good"
    assert (alpha.n_units, alpha.n_values) == (7, 21)
    assert len([r for r in records if r.measure == "cohen_kappa"]) == 3 * 3  # pairs x weights


def test_single_category_everywhere_is_undefined() -> None:
    frame = frame_of({"ann": [4, 4, 4, 4], "bob": [4, 4, 4, 4]})
    records = code_agreement(frame, code="c", kind="ordinal", scale=SCALE)
    alpha = pick(records, "krippendorff_alpha")
    assert alpha.value is None and "no variation" in alpha.note
    assert alpha.n_units == 4  # the units are there; the figure is not defined on them
    assert pick(records, "cohen_kappa", "quadratic").value is None
    assert pick(records, "fleiss_kappa").value is None
    # the raters did give identical values: raw agreement is defined and complete
    assert pick(records, "percent_agreement").value == 1.0


# -- missing values, definitions ----------------------------------------------------------

def test_missing_values_match_direct_alpha_and_counts() -> None:
    data: dict[str, list[Any]] = {
        "ann": [1, 2, 3, None, 5, 1, np.nan, 4],
        "bob": [1, 2, 4, 4, None, 2, 3, None],
        "cy": [None, 3, 3, 4, 5, 1, None, None],
    }
    records = code_agreement(frame_of(data), code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    matrix = np.array([[np.nan if v is None else v for v in vals] for vals in data.values()],
                      dtype=float)
    direct = krippendorff.alpha(reliability_data=matrix, value_domain=SCALE,
                                level_of_measurement="ordinal")
    alpha = pick(records, "krippendorff_alpha")
    assert alpha.value == pytest.approx(direct)
    # units 7 and 8 have one value each: 6 pairable units with 15 values
    assert (alpha.n_units, alpha.n_values) == (6, 15)
    ann_bob = pick(records, "cohen_kappa", "none", ["ann", "bob"])
    assert (ann_bob.n_units, ann_bob.n_values) == (4, 8)
    fleiss = pick(records, "fleiss_kappa")
    assert fleiss.value is None and "same number of raters" in fleiss.note


def test_percent_agreement_is_share_of_agreeing_pairs_per_unit() -> None:
    # unit 1: values 1,1,2 -> 1 agreeing pair of 3; unit 2: 2,2 -> 1 of 1; unit 3 unpairable
    frame = frame_of({"ann": [1, 2, 3], "bob": [1, 2, None], "cy": [2, None, None]})
    percent = pick(code_agreement(frame, code="c", kind="ordinal", scale=SCALE), "percent_agreement")
    assert percent.value == pytest.approx((1 / 3 + 1) / 2)
    assert (percent.n_units, percent.n_values) == (2, 5)


def test_fleiss_defined_when_every_pairable_unit_has_the_same_number_of_raters() -> None:
    # unit 4 has a single value (unpairable) and does not break the fixed design
    frame = frame_of({"a": [1, 2, 3, 1], "b": [1, 2, 2, None], "c": [1, 3, 3, None]})
    fleiss = pick(code_agreement(frame, code="c", kind="nominal", scale=[1, 2, 3]), "fleiss_kappa")
    counts = np.array([[3, 0, 0], [0, 2, 1], [0, 1, 2]], dtype=float)
    p_i = ((counts**2).sum(1) - 3) / 6
    p_e = ((counts.sum(0) / 9) ** 2).sum()
    assert fleiss.value == pytest.approx((p_i.mean() - p_e) / (1 - p_e))
    assert fleiss.n_units == 3


def test_nominal_codes_with_text_levels_and_only_unweighted_kappa() -> None:
    frame = frame_of({"ann": ["q", "a", "v", "q"], "bob": ["q", "a", "q", "q"]})
    records = code_agreement(frame, code="strategy", kind="nominal", scale=["q", "a", "v"])
    assert pick(records, "krippendorff_alpha").level == "nominal"
    assert {r.weights for r in records if r.measure == "cohen_kappa"} == {"none"}
    direct = krippendorff.alpha(
        reliability_data=[[0, 1, 2, 0], [0, 1, 0, 0]], level_of_measurement="nominal"
    )
    assert pick(records, "krippendorff_alpha").value == pytest.approx(direct)


def test_unused_declared_levels_change_weighted_kappa_and_are_named() -> None:
    # nobody used level 3: over the observed categories 2 and 4 would be neighbours
    frame = frame_of({"ann": [1, 2, 4, 5, 1, 2], "bob": [1, 4, 4, 5, 2, 2]})
    narrow = code_agreement(frame, code="c", kind="ordinal", scale=[1, 2, 4, 5], bootstrap=0)
    wide = code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    assert pick(narrow, "cohen_kappa", "linear").value != pytest.approx(
        pick(wide, "cohen_kappa", "linear").value
    )
    assert "declared scale 1..5" in pick(wide, "cohen_kappa", "linear").note


def test_level_override_to_interval() -> None:
    frame = frame_of({"ann": [1, 2, 3, 5], "bob": [1, 3, 3, 4]})
    alpha = pick(code_agreement(frame, code="c", kind="ordinal", scale=SCALE, level="interval"),
                 "krippendorff_alpha")
    direct = krippendorff.alpha(reliability_data=[[1, 2, 3, 5], [1, 3, 3, 4]],
                                level_of_measurement="interval")
    assert alpha.level == "interval" and alpha.value == pytest.approx(direct)


# -- bad input ----------------------------------------------------------------------------

def test_value_off_the_scale_names_unit_and_coder() -> None:
    frame = frame_of({"ann": [1, 2], "bob": [1, 7]})
    with pytest.raises(InputError) as err:
        code_agreement(frame, code="affective", kind="ordinal", scale=SCALE)
    text = str(err.value)
    assert "affective" in text and "'u1'" in text and "'bob'" in text and "7" in text
    assert err.value.field == "value"


def test_two_values_from_one_rater_for_one_unit_is_an_error() -> None:
    frame = pd.DataFrame(
        {"unit": ["u1", "u1", "u2"], "coder": ["ann", "ann", "ann"], "value": [1, 2, 3]}
    )
    with pytest.raises(InputError, match="more than one value"):
        code_agreement(frame, code="c", kind="ordinal", scale=SCALE)


def test_a_rating_without_unit_is_an_error_naming_the_row() -> None:
    frame = pd.DataFrame({"unit": ["u1", None], "coder": ["ann", "bob"], "value": [1, 2]})
    with pytest.raises(InputError) as err:
        code_agreement(frame, code="c", kind="ordinal", scale=SCALE)
    assert err.value.field == "unit" and err.value.location == "row 2"


def test_integer_units_and_categorical_coders_give_the_same_figures() -> None:
    """The fast input form for big projects (store row ids, Categorical coder names)."""
    text = random_frame(200, 3, seed=5)
    fast = pd.DataFrame({
        "unit": text["unit"].str[1:].astype(int),
        "coder": pd.Categorical(text["coder"], categories=["coder2", "coder0", "coder1"]),
        "value": text["value"].astype("Int64"),
    }).iloc[::-1]  # coder2 comes first now: raters are still listed alphabetically
    a = code_agreement(text, code="c", kind="ordinal", scale=SCALE, bootstrap=30)
    b = code_agreement(fast, code="c", kind="ordinal", scale=SCALE, bootstrap=30)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.measure, x.weights, x.coders, x.n_units, x.n_values, x.note) == (
            y.measure, y.weights, y.coders, y.n_units, y.n_values, y.note
        )
        assert (x.value, x.ci_low, x.ci_high) == pytest.approx((y.value, y.ci_low, y.ci_high))
    assert a[0].coders == ["coder0", "coder1", "coder2"]


def test_missing_column_is_named() -> None:
    with pytest.raises(InputError, match="coder"):
        code_agreement(pd.DataFrame({"unit": ["u"], "value": [1]}), code="c", kind="ordinal",
                       scale=SCALE)


# -- bootstrap, progress, cancel ----------------------------------------------------------

def test_bootstrap_interval_contains_estimate_and_follows_the_seed() -> None:
    frame = random_frame(300, 3, seed=1)

    def alpha(seed: int) -> AgreementRecord:
        return pick(code_agreement(frame, code="c", kind="ordinal", scale=SCALE,
                                   bootstrap=200, seed=seed), "krippendorff_alpha")

    first, again, other = alpha(1), alpha(1), alpha(2)
    assert first.value is not None and first.ci_low is not None and first.ci_high is not None
    assert first.ci_low < first.value < first.ci_high
    assert first.ci_high - first.ci_low < 0.3
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.value == other.value
    assert "200 draws, seed 1" in first.note
    none = pick(code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=0),
                "krippendorff_alpha")
    assert none.ci_low is None and none.ci_high is None


def test_bootstrap_of_thousand_draws_over_ten_thousand_units_is_quick() -> None:
    frame = random_frame(10_000, 3, seed=3)
    start = time.perf_counter()
    records = code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=1000)
    assert time.perf_counter() - start < 30
    assert pick(records, "krippendorff_alpha").ci_low is not None


def test_progress_reaches_total_and_cancel_raises() -> None:
    frame = random_frame(50, 2, seed=4)
    seen: list[tuple[int, int]] = []
    code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=300,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] == 301
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)

    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 20  # user presses Cancel during the bootstrap

    with pytest.raises(Cancelled):
        code_agreement(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=300,
                       cancel=cancel)
    assert len(asked) == 21


# -- raters against the users / consensus -------------------------------------------------

def test_rater_vs_reference() -> None:
    users = [1, 2, 3, 4, 5, 2, None]
    frame = frame_of({
        USERS_RATER: users,
        "same": users,
        "reverse": [5, 4, 3, 2, 1, 4, 3],
        "alone": [None, None, None, None, None, None, 3],
    })
    records = rater_vs_reference(frame, code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    assert {tuple(r.coders) for r in records} == {
        ("alone", "users"), ("reverse", "users"), ("same", "users")
    }
    same = [r for r in records if r.coders == ["same", "users"]]
    assert {(r.measure, r.weights) for r in same} == {
        ("krippendorff_alpha", None), ("cohen_kappa", "linear"), ("cohen_kappa", "quadratic"),
        ("spearman", None),
    }
    assert all(r.value == pytest.approx(1.0) for r in same)
    assert all(r.n_units == 6 for r in same)
    rho = pick(records, "spearman", coders=["reverse", "users"])
    assert rho.value == pytest.approx(-1.0)
    reverse_alpha = pick(records, "krippendorff_alpha", coders=["reverse", "users"]).value
    assert reverse_alpha is not None and reverse_alpha < 0
    assert all(r.value is None for r in records if r.coders == ["alone", "users"])


def test_rater_vs_missing_reference_is_undefined_with_reason() -> None:
    frame = frame_of({"ann": [1, 2], "bob": [2, 2]})
    records = rater_vs_reference(frame, code="c", kind="binary", scale=[0, 1, 2],
                                 reference="consensus", bootstrap=0)
    assert records and all(r.value is None for r in records)
    assert all("'consensus' has no ratings" in r.note for r in records)


# -- the report ---------------------------------------------------------------------------

def test_report_over_codes_with_users_as_reference() -> None:
    affective = frame_of({
        "ann": [1, 2, 3, 4, 5, 3], "bob": [1, 2, 3, 5, 5, 3], USERS_RATER: [2, 2, 3, 4, 4, 3],
    })
    advice = frame_of({"ann": [0, 1, 1, 0], "bob": [0, 1, 0, 0]})
    seen: list[tuple[int, int]] = []
    report = agreement_report(
        {
            "affective": CodeFrameSpec(affective, "ordinal", SCALE, references=[USERS_RATER]),
            "advice": CodeFrameSpec(advice, "binary", [0, 1]),
        },
        bootstrap=20,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert report.codes == ["affective", "advice"]
    # (20 + 1) per code for the coders, (20 + 1) per rater compared with the users
    assert seen[-1] == (21 * 2 + 21 * 2, 21 * 2 + 21 * 2)
    alpha = pick(report.for_code("affective"), "krippendorff_alpha", coders=["ann", "bob"])
    assert USERS_RATER not in alpha.coders
    vs_users = [r for r in report.for_code("affective") if USERS_RATER in r.coders]
    assert {r.coders[0] for r in vs_users} == {"ann", "bob"}

    table = report.to_frame()
    assert list(table.columns[:11]) == [
        "code", "measure", "level", "weights", "coders", "value", "band", "n_units",
        "n_values", "ci_low", "ci_high",
    ]
    assert len(table) == len(report.records)
    assert "ann | bob" in set(table["coders"])
    first = report.to_records()[0]
    assert {"code", "measure", "level", "weights", "coders", "value", "n_units", "ci_low",
            "ci_high"} <= set(first)
    assert isinstance(first["coders"], list)

    matrix = pairwise_matrix(report, "affective")
    assert set(matrix.index) == {"ann", "bob", USERS_RATER}
    assert matrix.loc["ann", "bob"] == matrix.loc["bob", "ann"]
    assert matrix.loc["ann", "bob"] == pytest.approx(
        pick(report.for_code("affective"), "cohen_kappa", "quadratic", ["ann", "bob"]).value
    )
    assert np.isnan(matrix.loc["ann", "ann"])
    rho = pairwise_matrix(report, "affective", measure="spearman")
    assert rho.loc["bob", USERS_RATER] == pytest.approx(
        pick(report.for_code("affective"), "spearman", coders=["bob", USERS_RATER]).value
    )


def test_interval_level_needs_numeric_levels() -> None:
    frame = frame_of({"ann": ["lo", "hi"], "bob": ["lo", "lo"]})
    with pytest.raises(ValueError, match="numeric levels"):
        agreement_report({"c": CodeFrameSpec(frame, "ordinal", ["lo", "hi"], level="interval")})


def test_report_checks_all_inputs_before_working() -> None:
    calls: list[int] = []
    good = frame_of({"ann": [1, 2], "bob": [1, 2]})
    bad = frame_of({"ann": [1, 9], "bob": [1, 2]})
    with pytest.raises(InputError, match="'bad'"):
        agreement_report(
            {"good": CodeFrameSpec(good, "ordinal", SCALE), "bad": CodeFrameSpec(bad, "ordinal", SCALE)},
            progress=lambda d, t: calls.append(d),
        )
    assert calls == []


# -- a crowd of raters ----------------------------------------------------------------------

def test_a_crowd_of_raters_gets_every_many_rater_figure_but_no_pairs() -> None:
    """One rater more than MAX_PAIR_CODERS gets no Cohen pairs (3,000 crowd workers made
    4.5 million, a job that never ended); alpha and the many-rater figures cover them."""
    from sense7_coder.domain.agreement import diagnostics
    from sense7_coder.domain.agreement.ratings import prepare_ratings
    from sense7_coder.domain.agreement.records import MAX_PAIR_CODERS, raters_text

    crowd = random_frame(40, MAX_PAIR_CODERS + 1, seed=3)
    records = code_agreement(crowd, code="c", kind="ordinal", scale=SCALE, bootstrap=20)
    cohen = [r for r in records if r.measure == "cohen_kappa"]
    assert len(cohen) == 1 and cohen[0].value is None
    n = MAX_PAIR_CODERS + 1
    assert f"{n * (n - 1) // 2:,} pairs" in cohen[0].note and f"{n} coders" in cohen[0].note
    assert pick(records, "krippendorff_alpha").value is not None
    assert pick(records, "gwet_ac1").value is not None
    ratings = prepare_ratings(crowd, code="c", scale=SCALE)
    assert diagnostics.confusion(ratings).empty
    assert raters_text(cohen[0].coders) == f"coder0, coder1, coder10, ... ({n} raters)"
    # one fewer: every pair as before
    team = random_frame(40, MAX_PAIR_CODERS, seed=3)
    records = code_agreement(team, code="c", kind="ordinal", scale=SCALE, bootstrap=0)
    pairs = MAX_PAIR_CODERS * (MAX_PAIR_CODERS - 1) // 2
    assert len([r for r in records if r.measure == "cohen_kappa"]) == 3 * pairs


def test_a_crowd_against_the_users_gets_figures_without_intervals() -> None:
    """3,000 crowd workers each against the users took over 5 minutes of bootstrap
    alphas; beyond MAX_PAIR_CODERS raters the figures come without intervals, saying so."""
    from sense7_coder.domain.agreement.records import MAX_PAIR_CODERS

    def report_for(n: int) -> list[AgreementRecord]:
        frame = random_frame(30, n + 1, seed=5, missing=0.0)
        frame["coder"] = frame["coder"].replace({f"coder{n}": USERS_RATER})
        spec = CodeFrameSpec(frame=frame, kind="ordinal", scale=SCALE,
                             references=[USERS_RATER])
        report = agreement_report({"c": spec}, bootstrap=30, seed=1, measures="alpha")
        return [r for r in report.records if USERS_RATER in r.coders]

    crowd = report_for(MAX_PAIR_CODERS + 1)
    assert len(crowd) == MAX_PAIR_CODERS + 1
    assert all(r.value is not None and r.ci_low is None for r in crowd)
    assert all(f"{MAX_PAIR_CODERS + 1} raters each compared with 'users'" in r.note
               for r in crowd)
    team = report_for(MAX_PAIR_CODERS)
    assert all(r.ci_low is not None for r in team)
    assert not any("no interval" in r.note for r in team)


@pytest.mark.parametrize("scale", [[1, 2, 3, 4, 5], [0, 1], [-2, -1, 0, 1, 2]])
def test_numbers_find_their_level_as_text_and_objects_do(scale: list[int]) -> None:
    """Numeric values on a run of whole numbers take the arithmetic path; every value,
    off the scale, between levels, missing or huge, gets the same position as the general
    path gives the same values as Python objects."""
    from sense7_coder.domain.agreement.ratings import positions_of

    values = [*scale, scale[0] - 1, scale[-1] + 1, 2.5, 0.5, -0.0, np.nan, np.inf, -np.inf,
              1e300, -1e300, float(scale[-1]), 2**62]
    numeric = pd.Series(values, dtype=np.float64)
    general = pd.Series([None if v != v else v for v in values], dtype=object)
    assert positions_of(numeric, scale).tolist() == positions_of(general, scale).tolist()
    ints = pd.Series([v for v in values if v == v and abs(v) < 2**63 and v == int(v)],
                     dtype=np.int64)
    assert positions_of(ints, scale).tolist() == positions_of(ints.astype(object),
                                                              scale).tolist()
    assert positions_of(numeric, scale)[: len(scale)].tolist() == list(range(len(scale)))


def test_pairable_counts_are_the_value_counts_of_units_with_two_values() -> None:
    from sense7_coder.domain.agreement.ratings import prepare_ratings

    rng = np.random.default_rng(3)
    values = rng.integers(1, 6, (4, 500)).astype(float)
    values[rng.random(values.shape) < 0.45] = np.nan
    frame = pd.DataFrame({"unit": np.tile(np.arange(500), 4),
                          "coder": np.repeat(["a", "b", "c", "d"], 500),
                          "value": values.ravel()})
    ratings = prepare_ratings(frame, code="c", scale=SCALE)
    counts = ratings.value_counts()
    expected = np.stack([(values == level).sum(axis=0) for level in SCALE], axis=1)
    assert counts.tolist() == expected.tolist()
    paired = ratings.pairable_counts()
    assert paired.tolist() == counts[counts.sum(axis=1) >= 2].tolist()
    assert 0 < len(paired) < 500


def test_weighted_kappa_says_it_weighs_positions_where_ac2_weighs_values() -> None:
    """On an unequally spaced scale the two conventions give different figures: each
    weighted figure says which it uses."""
    scale = [0, 1, 2, 5, 10]
    a = [0, 1, 2, 5, 10, 5, 2, 1, 0, 10, 5, 2]
    b = [1, 1, 2, 10, 5, 5, 1, 2, 0, 10, 2, 2]
    records = code_agreement(frame_of({"ann": a, "bob": b}), code="c", kind="ordinal",
                             scale=scale, bootstrap=0)
    kappa = pick(records, "cohen_kappa", "linear")
    ac2 = next(r for r in records if r.measure == "gwet_ac2" and r.weights == "linear")
    assert "weights on the levels' positions (equal steps), not their values" in kappa.note
    assert "linear weights over the level values of declared scale" in ac2.note


def test_kappa_weights_on_level_values_when_asked() -> None:
    """--kappa-weights values: the weights follow the level values, as AC2's do; the
    default stays on positions (scikit-learn's convention with the declared labels)."""
    from sklearn.metrics import cohen_kappa_score

    scale = [0, 1, 2, 5, 10]
    a = [0, 1, 2, 5, 10, 5, 2, 1, 0, 10, 5, 2]
    b = [1, 1, 2, 10, 5, 5, 1, 2, 0, 10, 2, 2]
    frame = frame_of({"ann": a, "bob": b})
    by_position = code_agreement(frame, code="c", kind="ordinal", scale=scale, bootstrap=0)
    by_value = code_agreement(frame, code="c", kind="ordinal", scale=scale, bootstrap=60,
                              kappa_basis="values")
    x, y = np.array(a, float), np.array(b, float)
    for w, power in (("linear", 1), ("quadratic", 2)):
        assert pick(by_position, "cohen_kappa", w).value == pytest.approx(
            cohen_kappa_score(a, b, labels=scale, weights=w), abs=1e-12)
        # by hand: disagreement |x - y|^p / span^p, chance from the margins
        observed = np.mean(np.abs(x - y) ** power)
        chance = np.mean(np.abs(x[:, None] - y[None, :]) ** power)
        mine = pick(by_value, "cohen_kappa", w)
        assert mine.value == pytest.approx(1 - observed / chance, abs=1e-12)
        assert mine.value != pytest.approx(pick(by_position, "cohen_kappa", w).value, abs=1e-3)
        assert "weights on the level values, as AC2, alpha and ICC" in mine.note
        assert mine.ci_low is not None and mine.ci_low <= mine.value <= mine.ci_high
    text = code_agreement(frame_of({"ann": ["lo", "hi"], "bob": ["hi", "hi"]}), code="t",
                          kind="ordinal", scale=["lo", "mid", "hi"], bootstrap=0,
                          kappa_basis="values")
    assert "positions: the levels are not numbers" in pick(text, "cohen_kappa", "linear").note
    # an ordinal scale of words has only positions for AC2 too (it used to fail on 'lo')
    ac2 = next(r for r in text if r.measure == "gwet_ac2" and r.weights == "linear")
    assert "over the positions (the levels are not numbers)" in ac2.note
    with pytest.raises(ValueError, match="kappa weights must be on one of positions, values"):
        code_agreement(frame, code="c", kind="ordinal", scale=scale, kappa_basis="ranks")

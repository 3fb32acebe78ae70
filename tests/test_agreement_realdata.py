"""The agreement engine on real multi-rater data sets (read in place from shared/data).

* Lend an Ear: 50 conversations rated 1-5 on six scales by three experts (the same
  files appear in honglizhan/mint-empathy and in the replication data of "When LLMs are
  reliable for judging empathic communication", whose published pairwise quadratic
  kappas and Spearman correlations we check against).
* ConvAbuse: 4,185 user turns, each labelled by 2-7 of 8 annotators on a 5-level abuse
  scale (1 not abusive, 0 ambiguous, -1 mild, -2 strong, -3 very strong).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import AgreementRecord, code_agreement, rater_vs_reference

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LEND_AN_EAR = SHARED_DATA / "mint-empathy" / "lend_an_ear_eval" / "expert_ratings"
RELIABILITY = SHARED_DATA / "empathic-communication-reliability" / "annotations"
CONVABUSE = SHARED_DATA / "convabuse" / "1_full" / "ConvAbuseEMNLPfull.csv"

SCALES = (
    "validating_emotions", "encouraging_elaboration", "demonstrating_understanding",
    "advice_giving", "self_oriented", "dismissing_emotions",
)
EXPERTS = ("expert1", "expert2", "expert3")
ABUSE_LEVELS = [1, 0, -1, -2, -3]


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


def pick(records: list[AgreementRecord], measure: str, weights: str | None = None,
         coders: list[str] | None = None) -> AgreementRecord:
    found = [
        r for r in records
        if r.measure == measure and (weights is None or r.weights == weights)
        and (coders is None or sorted(r.coders) == sorted(coders))
    ]
    assert len(found) == 1
    return found[0]


# -- Lend an Ear --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def experts() -> dict[str, pd.DataFrame]:
    return {
        e: pd.read_csv(need(LEND_AN_EAR / f"{e}_ratings.csv"), dtype={"conversation_id": str})
        for e in EXPERTS
    }


def long_ratings(experts: dict[str, pd.DataFrame], scale: str) -> pd.DataFrame:
    return pd.concat(
        pd.DataFrame({"unit": d["conversation_id"], "coder": e, "value": d[scale]})
        for e, d in experts.items()
    )


@pytest.mark.parametrize("scale", SCALES)
def test_lend_an_ear_ordinal_alpha_matches_direct_computation(
    experts: dict[str, pd.DataFrame], scale: str
) -> None:
    records = code_agreement(long_ratings(experts, scale), code=scale, kind="ordinal",
                             scale=[1, 2, 3, 4, 5], bootstrap=100)
    alpha = pick(records, "krippendorff_alpha")
    # independent route: raters x conversations matrix aligned on conversation id
    wide = experts["expert1"][["conversation_id", scale]]
    for e in EXPERTS[1:]:
        wide = wide.merge(experts[e][["conversation_id", scale]], on="conversation_id",
                          how="outer", suffixes=("", f"_{e}"))
    matrix = wide.drop(columns="conversation_id").to_numpy(dtype=float).T
    direct = krippendorff.alpha(reliability_data=matrix, value_domain=[1, 2, 3, 4, 5],
                                level_of_measurement="ordinal")
    assert alpha.value == pytest.approx(direct, abs=1e-12)
    assert (alpha.n_units, alpha.n_values) == (50, 150)
    assert alpha.value is not None and alpha.ci_low is not None and alpha.ci_high is not None
    assert alpha.ci_low <= alpha.value <= alpha.ci_high
    # a fixed design: three experts on every conversation, so Fleiss' kappa is defined
    assert pick(records, "fleiss_kappa").value is not None


def _published(name: str) -> pd.DataFrame:
    table = pd.read_csv(need(RELIABILITY / name))
    table = table[table["Dataset"] == "Lend an Ear"].copy()
    table["pair"] = table["Annotator Pair"].map(ast.literal_eval)
    return table[table["pair"].map(lambda p: all(x in EXPERTS for x in p))]


def test_lend_an_ear_quadratic_kappas_match_published_table(
    experts: dict[str, pd.DataFrame],
) -> None:
    """table_kappa.csv gives 18 expert-pair quadratic kappas (2 dp). The authors' kappa
    builds weights over the categories the pair used; with the pair's observed levels as
    scale the engine reproduces every one of them."""
    table = _published("table_kappa.csv")
    assert len(table) == 18
    for _, row in table.iterrows():
        (a, b), dimension = row["pair"], row["Dimension"]
        frame = long_ratings({a: experts[a], b: experts[b]}, dimension)
        observed = sorted(frame["value"].unique())
        records = code_agreement(frame, code=dimension, kind="ordinal", scale=observed,
                                 bootstrap=0)
        kappa = pick(records, "cohen_kappa", "quadratic")
        published = row["Weighted Cohen's Kappa"]
        assert kappa.n_units == 50
        assert math.isclose(kappa.value or 0.0, published, abs_tol=0.005 + 1e-9), (
            dimension, a, b, kappa.value, published
        )


def test_lend_an_ear_declared_scale_differs_where_a_level_went_unused(
    experts: dict[str, pd.DataFrame],
) -> None:
    """expert1 and expert2 never used level 4 of self_oriented: the published 0.82 is over
    levels 1,2,3,5; over the declared 1..5 scale the quadratic kappa is 0.786."""
    frame = long_ratings({e: experts[e] for e in ("expert1", "expert2")}, "self_oriented")
    assert 4 not in set(frame["value"])
    kappa = pick(code_agreement(frame, code="self_oriented", kind="ordinal",
                                scale=[1, 2, 3, 4, 5], bootstrap=0), "cohen_kappa", "quadratic")
    assert round(kappa.value or 0.0, 3) == 0.786
    assert "declared scale 1..5" in kappa.note


def test_lend_an_ear_spearman_against_a_reference_rater(
    experts: dict[str, pd.DataFrame],
) -> None:
    """all_annotator_pairs_spearman_kappa.csv: Spearman's rho for each expert pair."""
    table = _published("all_annotator_pairs_spearman_kappa.csv")
    assert len(table) == 18
    for _, row in table.iterrows():
        (a, b), dimension = row["pair"], row["Dimension"]
        frame = long_ratings({a: experts[a], b: experts[b]}, dimension)
        records = rater_vs_reference(frame, code=dimension, kind="ordinal",
                                     scale=[1, 2, 3, 4, 5], reference=b, bootstrap=0)
        rho = pick(records, "spearman")
        assert rho.coders == [a, b] and rho.n_units == 50
        published = row["Spearman Correlation"]
        assert math.isclose(rho.value or 0.0, published, abs_tol=0.005 + 1e-9), (
            dimension, a, b, rho.value, published
        )


# -- ConvAbuse ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def convabuse() -> pd.DataFrame:
    """One row per item and annotator with the 5-level abuse label.

    An item is a user turn in its context (conversation id, previous agent and user
    turns, agent turn, user turn). The full file repeats some annotations to measure
    intra-annotator agreement; we keep each annotator's first annotation of an item.
    """
    raw = pd.read_csv(need(CONVABUSE))
    one_hot = raw[[f"is_abuse.{v}" for v in ABUSE_LEVELS]].to_numpy()
    assert (one_hot.sum(axis=1) == 1).all(), "exactly one abuse level per annotation"
    raw["value"] = np.array(ABUSE_LEVELS)[one_hot.argmax(axis=1)]
    item = ["conv_id", "prev_agent", "prev_user", "agent", "user"]
    raw["unit"] = "item" + raw.groupby(item, sort=False).ngroup().astype(str)
    first = raw.sort_values("example_no").drop_duplicates(["unit", "annotator_id"])
    return first.rename(columns={"annotator_id": "coder"})[["unit", "coder", "value"]]


def test_convabuse_nominal_alpha(convabuse: pd.DataFrame) -> None:
    records = code_agreement(convabuse, code="is_abuse", kind="nominal", scale=ABUSE_LEVELS,
                             bootstrap=200)
    alpha = pick(records, "krippendorff_alpha")
    assert alpha.level == "nominal"
    assert (alpha.n_units, alpha.n_values) == (4185, len(convabuse))
    matrix = convabuse.pivot(index="coder", columns="unit", values="value").to_numpy(float)
    direct = krippendorff.alpha(reliability_data=matrix, value_domain=ABUSE_LEVELS,
                                level_of_measurement="nominal")
    assert alpha.value == pytest.approx(direct, abs=1e-12)
    assert alpha.value is not None and 0.3 < alpha.value < 0.6  # moderate, as expected
    assert alpha.ci_low is not None and alpha.ci_high is not None
    assert alpha.ci_low < alpha.value < alpha.ci_high and alpha.ci_high - alpha.ci_low < 0.1

    # 2 to 7 annotators per item: no fixed design
    fleiss = pick(records, "fleiss_kappa")
    assert fleiss.value is None and "(2 to 7)" in fleiss.note

    # percent agreement, recomputed independently per item
    def share(values: pd.Series) -> float:
        n, m = values.value_counts(), len(values)
        return float((n * (n - 1)).sum() / (m * (m - 1)))

    expected = convabuse.groupby("unit")["value"].apply(share).mean()
    assert pick(records, "percent_agreement").value == pytest.approx(expected)
    # 8 annotators: 28 pairs, each with the units both labelled
    kappas = [r for r in records if r.measure == "cohen_kappa"]
    assert len(kappas) == 28 and all(r.weights == "none" for r in kappas)
    assert all(r.value is None or -1 <= r.value <= 1 for r in kappas)


def test_convabuse_ordinal_and_binary_readings(convabuse: pd.DataFrame) -> None:
    """Disagreements are mostly between neighbouring levels: the ordinal reading (in the
    declared order 1, 0, -1, -2, -3) agrees more than the nominal one, and so does the
    binary abusive / not abusive reading."""
    nominal = pick(code_agreement(convabuse, code="a", kind="nominal", scale=ABUSE_LEVELS,
                                  bootstrap=0), "krippendorff_alpha").value
    ordinal = pick(code_agreement(convabuse, code="a", kind="ordinal", scale=ABUSE_LEVELS,
                                  bootstrap=0), "krippendorff_alpha").value
    binary = convabuse.assign(value=(convabuse["value"] < 0).astype(int))
    abusive = pick(code_agreement(binary, code="abusive", kind="binary", scale=[0, 1],
                                  bootstrap=0), "krippendorff_alpha").value
    assert nominal is not None and ordinal is not None and abusive is not None
    assert nominal < ordinal < 0.8
    assert nominal < abusive < 0.8

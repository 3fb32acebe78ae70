"""The agreement engine against published worked examples.

Cases come from ``shared/data/agreement-references.json`` (63 published examples with
their sources, expected values and tolerances). Every case whose metric the engine
computes is checked within the case's tolerance; the others are skipped with a reason.
Gwet's AC1/AC2 and Brennan-Prediger go through the engine as the window and command
line report them; Scott's pi, Fleiss' kappa with missing ratings, alpha with Gwet's
weights and the set distances (MASI, Jaccard) through the domain functions behind them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import chance, code_agreement

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REFERENCES = SHARED_DATA / "agreement-references.json"

#: metric in the reference file -> (measure the engine reports, kind to ask for)
IMPLEMENTED = {
    "krippendorff_alpha": "krippendorff_alpha",
    "cohen_kappa": "cohen_kappa",
    "weighted_kappa": "cohen_kappa",
    "fleiss_kappa": "fleiss_kappa",
    "percent_agreement": "percent_agreement",
    "gwet_ac1": "gwet_ac1",
    "gwet_ac2": "gwet_ac2",
    "brennan_prediger": "brennan_prediger",
    "scott_pi": "domain",
    "fleiss_kappa_gwet_missing": "domain",
    "krippendorff_alpha_weighted": "domain",
}
#: metrics of the reference file for what sense7-coder does not offer: set-valued ratings
#: (a set of labels per coder and unit: MASI and Jaccard distances, multi-valued alpha);
#: every code holds one value per unit and coder
NOT_OFFERED = {"masi_distance", "jaccard_distance", "krippendorff_alpha_distance", "mv_alpha"}


def _load_cases() -> list[Any]:
    if not REFERENCES.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{REFERENCES} not present"))]
    cases = json.loads(REFERENCES.read_text(encoding="utf-8"))["cases"]
    return [pytest.param(c, id=c["id"]) for c in cases]


def long_frame(data: list[list[Any]]) -> pd.DataFrame:
    """units x coders matrix (None = missing) -> tidy unit/coder/value table."""
    rows = [
        (f"u{i}", f"coder{j}", value)
        for i, row in enumerate(data)
        for j, value in enumerate(row)
    ]
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def case_scale(case: dict[str, Any]) -> list[Any]:
    """The category set the source used: its labels/domain/categories, else the observed
    values (e.g. R's irr and scikit-learn build weighted kappa over observed categories)."""
    for key in ("labels", "value_domain", "categories"):
        if case.get(key):
            return list(case[key])
    observed = {v for row in case["data"] for v in row if v is not None}
    return sorted(observed)


def count_matrix(case: dict[str, Any], scale: list[Any]) -> np.ndarray:
    """units x categories: how many raters put each unit in each category."""
    index = {v: i for i, v in enumerate(scale)}
    counts = np.zeros((len(case["data"]), len(scale)))
    for i, row in enumerate(case["data"]):
        for v in row:
            if v is not None:
                counts[i, index[v]] += 1
    return counts


def gwet_weights(case: dict[str, Any], scale: list[Any]) -> np.ndarray:
    level = case.get("level") or "nominal"
    name = level.split(":", 1)[1] if level.startswith("gwet_weights:") else "none"
    return chance.weight_matrix(scale if name != "none" else len(scale), name)


def domain_value(case: dict[str, Any]) -> float | None:
    metric = case["metric"]
    scale = case_scale(case)
    counts, w = count_matrix(case, scale), gwet_weights(case, scale)
    if metric == "krippendorff_alpha_weighted":
        return chance.weighted_alpha(counts, w)
    if metric == "gwet_ac2":
        return chance.chance_corrected(counts, w, chance.GWET)
    # Scott's pi is Fleiss' kappa of two raters (Gwet's form, which allows missing ratings)
    return chance.chance_corrected(counts, w, chance.POOLED)


def engine_value(case: dict[str, Any]) -> float | None:
    metric, level = case["metric"], case.get("level")
    if IMPLEMENTED[metric] == "domain":
        return domain_value(case)
    if metric in ("gwet_ac1", "gwet_ac2", "brennan_prediger"):
        weights = level.split(":", 1)[1] if level and level.startswith("gwet_weights:") else None
        if weights not in (None, "linear", "quadratic"):
            return domain_value(case)  # AC2 with Gwet's ordinal weights: not in the reports
        scale = case_scale(case)
        kind = "ordinal" if weights else "nominal"
        records = code_agreement(long_frame(case["data"]), code=case["id"], kind=kind,
                                 scale=scale, bootstrap=0)
        (record,) = [r for r in records if r.measure == metric and r.weights == weights]
        assert record.n_units == sum(
            1 for row in case["data"] if sum(v is not None for v in row) >= 2)
        return record.value
    frame = long_frame(case["data"])
    scale = case_scale(case)
    if metric == "krippendorff_alpha":
        kind = "nominal" if level == "nominal" else "ordinal"
        records = code_agreement(
            frame, code=case["id"], kind=kind, scale=scale, level=level, bootstrap=0
        )
        (record,) = [r for r in records if r.measure == "krippendorff_alpha"]
        assert record.level == level
        return record.value
    weights = level if metric == "weighted_kappa" else "none"
    kind = "ordinal" if metric == "weighted_kappa" else "nominal"
    records = code_agreement(frame, code=case["id"], kind=kind, scale=scale, bootstrap=0)
    measure = IMPLEMENTED[metric]
    chosen = [r for r in records if r.measure == measure]
    if measure == "cohen_kappa":
        assert len(case["data"][0]) == 2, "a Cohen case has two raters"
        chosen = [r for r in chosen if r.weights == weights]
    (record,) = chosen
    return record.value


@pytest.mark.parametrize("case", _load_cases())
def test_published_value(case: dict[str, Any]) -> None:
    if case["metric"] in NOT_OFFERED:
        pytest.skip(f"metric {case['metric']}: set-valued ratings are not offered")
    assert case["metric"] in IMPLEMENTED, f"{case['id']}: a reference metric nobody placed"
    value = engine_value(case)
    assert value is not None, f"{case['id']}: engine says undefined"
    assert math.isclose(value, case["expected"], rel_tol=0, abs_tol=case["tolerance"] + 1e-12), (
        f"{case['id']}: engine {value!r}, published {case['expected']!r} +- {case['tolerance']}"
    )


def _case(case_id: str) -> dict[str, Any]:
    if not REFERENCES.is_file():
        pytest.skip(f"{REFERENCES} not present")
    cases = json.loads(REFERENCES.read_text(encoding="utf-8"))["cases"]
    return next(c for c in cases if c["id"] == case_id)


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_at_every_level(level: str, published: float) -> None:
    """Krippendorff (2011), 4 observers x 12 units with missing values, on the 1..5 scale."""
    frame = long_frame(_case("k2011_4x12_nominal")["data"])
    records = code_agreement(
        frame, code="k2011", kind="ordinal", scale=[1, 2, 3, 4, 5], level=level, bootstrap=0
    )
    alpha = records[0]
    assert alpha.measure == "krippendorff_alpha"
    assert round(alpha.value or 0.0, 3) == published
    # unit 12 has a single value: 11 pairable units with 40 values
    assert (alpha.n_units, alpha.n_values) == (11, 40)


def test_weighted_kappa_uses_declared_scale_not_observed_categories() -> None:
    """irr 'anxiety' raters 2 and 3 never use level 5 of the 1..6 scale. Over the observed
    categories (irr, scikit-learn) linear kappa is 0.1459; over the declared 1..6 scale the
    distances to level 6 grow, and the engine says which scale it used."""
    case = _case("cohen_irr_anxiety_r2r3_linear")
    frame = long_frame(case["data"])
    observed = code_agreement(frame, code="anx", kind="ordinal", scale=[1, 2, 3, 4, 6], bootstrap=0)
    declared = code_agreement(
        frame, code="anx", kind="ordinal", scale=[1, 2, 3, 4, 5, 6], bootstrap=0
    )

    def linear(records: list[Any]) -> Any:
        return next(r for r in records if r.measure == "cohen_kappa" and r.weights == "linear")

    assert linear(observed).value == pytest.approx(case["expected"], abs=case["tolerance"])
    assert linear(declared).value != pytest.approx(case["expected"], abs=0.01)
    assert "declared scale 1..6" in linear(declared).note

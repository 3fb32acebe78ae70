"""The paper's evaluation protocol against values worked by hand."""

from __future__ import annotations

import math

import pytest

from sense7_coder.domain.prediction.evaluation import (
    conversation_targets,
    evaluate,
    evaluate_runs,
    to_level,
    turn_dimension_mean,
)


def test_rounding_halves_up_and_clips_to_the_scale():
    assert [to_level(v) for v in (0.2, 1.49, 1.5, 2.5, 3.5, 4.51, 7.0)] == [1, 1, 2, 3, 4, 5, 5]


def test_turn_mean_skips_missing_and_not_applicable_dimensions():
    # overall is not one of the seven dimensions; cognitive marked not applicable
    assert turn_dimension_mean({"overall": 1, "affective": 4, "cognitive": None,
                                "response": 2}) == 3.0
    assert turn_dimension_mean({"overall": 5}) is None


def test_conversation_target_is_mean_of_turn_means():
    all_five = {d: 5 for d in ("affective", "cognitive", "response", "prosocial", "interest",
                               "contextual", "relational")}
    targets = conversation_targets([
        ("c1", {"affective": 4, "cognitive": None, "response": 2}),  # 3.0
        ("c1", {"overall": 1}),  # no dimension: skipped, not counted as a turn
        ("c1", all_five),  # 5.0
        ("c2", {"relational": None}),  # nothing rated: no target at all
    ])
    assert targets == {"c1": 4.0}


def test_worked_example_all_five_figures():
    truth = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 2.0}
    pred = {"a": 1.4, "b": 2.5, "c": 3.0, "d": 1.0, "x": 3.0}  # e unpredicted, x no truth
    m = evaluate(truth, pred)
    assert m.n == 4
    # levels truth 1,2,3,4 against 1,3,3,1
    assert m.accuracy == pytest.approx(0.5)
    assert m.within_one == pytest.approx(0.75)
    assert m.mae == pytest.approx((0.4 + 0.5 + 0 + 3) / 4)
    # F1: level 1 = 2/3, level 2 = 0, level 3 = 2/3, level 4 = 0
    assert m.macro_f1 == pytest.approx(1 / 3)
    # ranks 1,2,3,4 against 2,3,4,1: 1 - 6*12/(4*15)
    assert m.spearman == pytest.approx(-0.2)


def test_spearman_with_ties_uses_average_ranks():
    m = evaluate({"a": 1, "b": 2, "c": 2, "d": 3}, {"a": 1, "b": 1, "c": 2, "d": 2})
    assert m.spearman == pytest.approx(1 / math.sqrt(2))


def test_constant_predictions_leave_spearman_undefined_not_zero_or_one():
    m = evaluate({"a": 1, "b": 3, "c": 5}, {"a": 3, "b": 3, "c": 3})
    assert m.spearman is None
    assert m.accuracy == pytest.approx(1 / 3)
    assert m.within_one == pytest.approx(1 / 3)
    assert m.mae == pytest.approx(4 / 3)
    assert evaluate({"a": 2, "b": 2}, {"a": 1, "b": 5}).spearman is None


def test_nothing_paired_gives_undefined_figures():
    m = evaluate({"a": 1}, {"b": 2, "a": float("nan")})
    assert m.n == 0 and m.accuracy is None and m.spearman is None


def test_runs_give_mean_and_sample_sd():
    truth = {"a": 1, "b": 2}
    out = evaluate_runs(truth, {1: {"a": 1, "b": 2}, 2: {"a": 1, "b": 4}})
    assert out["accuracy"] == pytest.approx(0.75)
    assert out["accuracy_sd"] == pytest.approx(math.sqrt(2 * 0.25 ** 2))
    assert out["mae"] == pytest.approx(0.5) and out["mae_sd"] == pytest.approx(math.sqrt(0.5))
    assert out["spearman"] == pytest.approx(1.0) and out["spearman_sd"] == pytest.approx(0.0)
    assert out["n"] == 2 and out["runs"] == 2
    single = evaluate_runs(truth, {1: {"a": 1, "b": 2}})
    assert single["accuracy_sd"] is None

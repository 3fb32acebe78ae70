"""The evaluation per dimension and per turn, with intervals over conversations, and the
refusals of a target the users' ratings do not hold."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import accuracy_score, f1_score, mean_absolute_error

from sense7_coder.cli import main
from sense7_coder.domain.models import Conversation, Turn
from sense7_coder.domain.prediction.grain import (
    SCALE,
    clip_interval,
    evaluate_with_intervals,
    figures,
    resamples,
)
from sense7_coder.project import Project


def _small_case() -> tuple[dict, dict]:
    rng = random.Random(3)
    truth, pred = {}, {}
    for c in range(12):
        for pos in range(2, 2 + 2 * rng.randint(1, 4), 2):
            t = rng.randint(1, 5)
            truth[(f"c{c}", pos)] = float(t)
            pred[(f"c{c}", pos)] = min(5.4, max(0.6, t + rng.uniform(-1.6, 1.6)))
    return truth, pred


def _reference(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
    ly = np.clip(np.floor(y + 0.5), 1, 5).astype(int)
    lp = np.clip(np.floor(p + 0.5), 1, 5).astype(int)
    return {"accuracy": accuracy_score(ly, lp),
            "macro_f1": f1_score(ly, lp, average="macro", zero_division=0),
            "within_one": float(np.mean(np.abs(ly - lp) <= 1)),
            "mae": mean_absolute_error(y, p),
            "spearman": spearmanr(y, p).statistic}


def test_point_figures_and_every_draw_match_scikit_learn_and_scipy() -> None:
    truth, pred = _small_case()
    result = evaluate_with_intervals(truth, {1: pred}, draws=200, seed=11)
    keys = sorted(truth, key=str)
    y = np.array([truth[k] for k in keys])
    p = np.array([pred[k] for k in keys])
    for metric, value in _reference(y, p).items():
        assert result.estimate[metric] == pytest.approx(value, abs=1e-12), metric
    assert result.n == len(keys) and result.conversations == 12 and result.runs == 1
    # the intervals: percentiles of the figures on the same resampled conversations,
    # each draw recomputed here with scikit-learn and scipy
    convs = list(dict.fromkeys(k[0] for k in keys))
    draws = {m: [] for m in result.estimate}
    for draw in resamples(convs, 200, 11):
        idx = np.array([i for g in draw for i, k in enumerate(keys) if k[0] == convs[g]])
        for metric, value in _reference(y[idx], p[idx]).items():
            draws[metric].append(value)
    for metric, values in draws.items():
        values = np.array(values, float)
        values = values[~np.isnan(values)]
        low, high = np.quantile(values, [0.025, 0.975])
        assert result.low[metric] == pytest.approx(low, abs=1e-12), metric
        assert result.high[metric] == pytest.approx(high, abs=1e-12), metric
        assert result.low[metric] <= result.estimate[metric] <= result.high[metric]


def test_runs_are_averaged_and_conversations_not_turns_are_resampled() -> None:
    truth, pred = _small_case()
    other = {k: v + 0.4 for k, v in pred.items()}
    one = evaluate_with_intervals(truth, {1: pred}, draws=50)
    two = evaluate_with_intervals(truth, {1: pred, 2: other}, draws=50)
    alone = evaluate_with_intervals(truth, {2: other}, draws=50)
    assert two.runs == 2
    assert two.estimate["mae"] == pytest.approx((one.estimate["mae"] + alone.estimate["mae"]) / 2)
    # every conversation alike: any resample of conversations gives the same figures
    same = {(f"c{c}", pos): float(pos) for c in range(6) for pos in (1, 2, 3, 4, 5)}
    guess = {k: v + (0.3 if k[1] % 2 else -0.2) for k, v in same.items()}
    flat = evaluate_with_intervals(same, {1: guess}, draws=100)
    for metric in ("accuracy", "mae", "spearman", "macro_f1"):
        assert flat.low[metric] == pytest.approx(flat.high[metric]), metric
    # a resample of turns would vary; one of conversations does not


def test_undefined_and_empty_cases_stay_undefined() -> None:
    empty = evaluate_with_intervals({("a", 1): 3.0}, {1: {("b", 1): 3.0}})
    assert empty.n == 0 and empty.estimate["accuracy"] is None and empty.low["mae"] is None
    constant = evaluate_with_intervals({("a", 1): 3.0, ("b", 1): 4.0},
                                       {1: {("a", 1): 3.0, ("b", 1): 3.0}}, draws=20)
    assert constant.estimate["spearman"] is None and constant.low["spearman"] is None
    assert constant.estimate["accuracy"] == 0.5
    assert figures(np.array([]), np.array([]))["mae"] is None


def test_intervals_are_clipped_to_the_range_of_their_figure() -> None:
    assert clip_interval("spearman", -1.2, 1.3) == (-1.0, 1.0)
    assert clip_interval("mae", -0.1, 9.0) == (0.0, SCALE["mae"][1])
    assert clip_interval("accuracy", None, 0.5) == (None, 0.5)


# -- the project and the command line ---------------------------------------------------------


def _project(path: Path, ratings: list[dict[str, int | None]], convs: int = 6) -> Path:
    from sense7_coder.resources import resolve_codebook
    from sense7_coder.store import conversations as store_conv

    conversations = []
    for c in range(convs):
        turns = [Turn(1, "user", f"help me with thing {c}")]
        for i, r in enumerate(ratings):
            turns += [Turn(2 + 2 * i, "assistant", f"answer {i} to {c} " + "word " * (c + i),
                           ratings=dict(r)),
                      Turn(3 + 2 * i, "user", "ok")]
        conversations.append(Conversation(f"c{c}", turns=turns))
    with Project.create(path, resolve_codebook("sense7")) as p, p.pdb.atomic() as db:
        store_conv.insert_conversations(db, conversations)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_overall_only_ratings_point_to_the_turn_level(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _project(tmp_path / "esconv-like.sense7", [{"overall": 2}, {"overall": 4},
                                                       {"overall": 5}])
    for args in (["--model", "baseline"], ["--evaluate"], ["--model", "baseline", "--evaluate"]):
        code, _, err = run(capsys, "classify", path, *args)
        assert code == 2
        assert "found 0" not in err and "no conversation-level predictions" not in err
        assert "mean of the seven dimensions" in err and "use --level turn" in err
        assert "rated only overall (18 turns" in err
    code, out, err = run(capsys, "classify", path, "--model", "baseline", "--level", "turn",
                         "--evaluate")
    assert code == 0, err
    assert re.search(r"^baseline +18 ", out, re.M)
    # the API says the same without naming an option
    from sense7_coder.project.prediction import predictors as pred
    from sense7_coder.project.prediction.evaluation import MissingTarget

    with Project.open(path) as p, pytest.raises(MissingTarget) as caught:
        pred.run_baseline(p, level="conversation")
    assert caught.value.other_level == "turn" and "--" not in str(caught.value)


def test_analyze_without_users_ratings_suggests_the_coders(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    path = _project(tmp_path / "unrated.sense7", [{}, {}])
    code, _, err = run(capsys, "analyze", path, "--out", tmp_path / "out")
    assert code == 0
    assert "users rated no assistant turn" in err and "--source coders" in err
    code, _, err = run(capsys, "classify", path, "--evaluate", "--level", "turn")
    assert code == 2 and "the users rated no assistant turn" in err


def test_analyze_writes_the_evaluation_per_dimension(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import csv

    dims = ("affective", "cognitive", "response")
    path = _project(tmp_path / "rated.sense7",
                    [{"overall": v, **dict.fromkeys(dims, 6 - v)} for v in (1, 3, 4, 5)])
    assert run(capsys, "classify", path, "--model", "baseline", "--level", "turn")[0] == 0
    assert run(capsys, "classify", path, "--model", "baseline")[0] == 0
    out_dir = tmp_path / "out"
    code, _, err = run(capsys, "analyze", path, "--out", out_dir)
    assert code == 0, err
    rows = list(csv.DictReader((out_dir / "evaluation_per_dimension.csv").open()))
    assert [(r["predictor"], r["level"], r["dimension"]) for r in rows] == [
        ("baseline", "turn", "overall"),
        ("baseline", "conversation", "seven-dimension mean")]
    turn = rows[0]
    assert (turn["n"], turn["conversations"], turn["draws"]) == ("24", "6", "1000")
    for m in ("accuracy", "macro_f1", "within_one", "mae"):
        assert float(turn[f"{m}_low"]) <= float(turn[m]) <= float(turn[f"{m}_high"])
    assert (out_dir / "evaluation_per_dimension.png").stat().st_size > 10_000
    assert "evaluation_per_dimension.png" in (out_dir / "index.html").read_text()


def test_models_suggestions_are_measured_per_code_against_the_users(demo_project: Path
                                                                    ) -> None:
    from sense7_coder.domain.models import Unit
    from sense7_coder.domain.prediction.evaluation import evaluate
    from sense7_coder.project.prediction.evaluation import evaluate_per_dimension
    from sense7_coder.project.prediction.predictors import rated_turns
    from sense7_coder.project.suggestions.stored import NewSuggestion, store_run

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        turns = rated_turns(p)
        guesses = {}
        for run in (1, 2):
            items, guesses[run] = [], {}
            for i, t in enumerate(turns):
                value = 1 + (i * (run + 2) + t.position) % 5
                guesses[run][(t.conversation_id, t.position)] = float(value)
                items += [NewSuggestion(Unit(t.conversation_id, t.position), "affective",
                                        "ok", value, ""),
                          NewSuggestion(Unit(t.conversation_id, t.position), "overall",
                                        "no_answer", reply="?")]
            store_run(p, "judge", "llm", "turn", items, requests=len(items))
        rows = evaluate_per_dimension(p, draws=50)
    mine = [r for r in rows if r["predictor"] == "model:judge"]
    assert [(r["level"], r["dimension"], r["runs"]) for r in mine] == [("turn", "affective", 2)]
    truth = {(t.conversation_id, t.position): float(v) for t in turns
             if (v := t.ratings.get("affective")) is not None}
    expected = [evaluate(truth, guesses[r]) for r in (1, 2)]
    row = mine[0]
    assert row["n"] == len(truth) == expected[0].n
    for metric in ("accuracy", "macro_f1", "within_one", "mae", "spearman"):
        assert row[metric] == pytest.approx(
            (getattr(expected[0], metric) + getattr(expected[1], metric)) / 2), metric


def test_a_hand_edited_suggestion_off_the_scale_is_named_not_measured(demo_project: Path
                                                                      ) -> None:
    import sqlite3

    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.domain.models import Unit
    from sense7_coder.project.prediction.evaluation import evaluate_per_dimension
    from sense7_coder.project.suggestions.stored import NewSuggestion, store_run

    with Project.open(demo_project, backup=False) as p:
        store_run(p, "judge", "llm", "turn", [NewSuggestion(Unit("101", 2), "affective",
                                                            "ok", 4, "")])
    conn = sqlite3.connect(demo_project)
    with conn:
        conn.execute("UPDATE suggestions SET value = 77")
    conn.close()
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(ProjectError, match=r"changed outside.*turn 2.*77"):
        evaluate_per_dimension(p, draws=10)

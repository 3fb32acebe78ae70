"""Predictions: import from CSV, the baseline on a study with a known signal, evaluation."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.domain.errors import InputError, ProjectError
from sense7_coder.domain.prediction.evaluation import evaluate
from sense7_coder.domain.synthetic import write_study
from sense7_coder.project import Project
from sense7_coder.project.changes import PREDICTIONS
from sense7_coder.project.imports import import_files
from sense7_coder.project.prediction.predictors import (
    evaluate_predictor,
    import_predictions,
    predictor_counts,
    rated_turns,
    run_baseline,
    targets,
)


@pytest.fixture(scope="module")
def study_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("study")
    src = write_study(d / "study.jsonl", 80, participants=16, seed=3)
    path = d / "study.sense7"
    with Project.create(path) as p:
        import_files(p, [src])
    return path


@pytest.fixture
def study(tmp_path: Path, study_template: Path) -> Project:
    target = tmp_path / "study.sense7"
    target.write_bytes(study_template.read_bytes())
    p = Project.open(target, backup=False)
    yield p
    p.close()


def test_baseline_beats_a_constant_and_never_trains_on_a_test_participant(study: Project):
    result = run_baseline(study, runs=2)
    assert result.group_by == "participant"
    assert len(result.folds) == 10
    for _run, trained, tested in result.folds:
        assert trained and tested and not (trained & tested)
    # every conversation predicted out of fold in each run
    truth = targets(study, "conversation")
    assert set(result.conversation_scores[1]) == set(truth)
    mean = sum(truth.values()) / len(truth)
    constant = evaluate(truth, dict.fromkeys(truth, mean))
    ours = evaluate_predictor(study, "baseline")
    assert ours["mae"] < constant.mae * 0.8
    assert ours["spearman"] > 0.5 and constant.spearman is None
    assert ours["runs"] == 2 and ours["mae_sd"] is not None
    assert predictor_counts(study) == {"baseline": {"conversation": 160, "turn": 0}}


def test_baseline_groups_by_conversation_without_participants(tmp_path: Path):
    lines = [line.replace('"participant_id": ', '"_pid": ')
             for line in (write_study(tmp_path / "a.jsonl", 30).read_text().splitlines())]
    (tmp_path / "b.jsonl").write_text("\n".join(lines) + "\n")
    with Project.create(tmp_path / "p.sense7") as p:
        import_files(p, [tmp_path / "b.jsonl"])
        result = run_baseline(p, level="turn")
        assert result.group_by == "conversation"
        for _run, trained, tested in result.folds:
            assert not (trained & tested)
        figures = evaluate_predictor(p, "baseline", "turn")
        assert figures["n"] == 90  # three rated assistant turns in each of 30 conversations


def test_one_conversation_without_a_participant_does_not_ungroup_the_others(
        tmp_path: Path):
    """It used to switch the whole project to grouping by conversation: 158 of 160 test
    conversations then shared a participant with training. Now that one conversation is a
    group of its own, the others keep their participant, and the grouping is printed with
    the result and stored with every score."""
    lines = write_study(tmp_path / "a.jsonl", 80, participants=16, seed=3).read_text(
        ).splitlines()
    lines[0] = lines[0].replace('"participant_id": ', '"_pid": ')
    (tmp_path / "b.jsonl").write_text("\n".join(lines) + "\n")
    with Project.create(tmp_path / "p.sense7") as p:
        import_files(p, [tmp_path / "b.jsonl"])
        turns = rated_turns(p)
        owner = {t.conversation_id: t.participant_id for t in turns}
        assert sum(1 for v in owner.values() if not v) == 1
        result = run_baseline(p, runs=2)

        def participants(groups: frozenset[str]) -> set[str]:
            out = set()
            for g in groups:  # a group is a participant, or one conversation
                kind, _, ident = g.partition(":")
                pid = ident if kind == "participant" else owner.get(ident if ident else g)
                if pid:
                    out.add(pid)
            return out

        assert len(result.folds) == 10
        for _run, trained, tested in result.folds:
            assert trained and tested
            assert not (participants(trained) & participants(tested))
        assert result.group_by == ("participant (1 conversation without a participant, "
                                   "each its own group)")
        lone = next(c for c, v in owner.items() if not v)
        assert any(f"conversation:{lone}" in tested for _r, _t, tested in result.folds)
        reasons = {r[0] for r in p.db.execute(
            "SELECT DISTINCT reasoning FROM predictions WHERE predictor = 'baseline'")}
        assert reasons == {"out-of-fold score; cross-validation grouped by " + result.group_by}


def test_targets_follow_the_protocol_on_the_demo(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        turns = rated_turns(p)
        truth = targets(p, "conversation", turns=turns)
        # worked out from the stored ratings directly: mean of per-turn dimension means
        cid = next(iter(truth))
        per_turn = []
        for t in turns:
            if t.conversation_id != cid:
                continue
            dims = [v for k, v in t.ratings.items() if k != "overall" and v is not None]
            if dims:
                per_turn.append(sum(dims) / len(dims))
        assert truth[cid] == pytest.approx(sum(per_turn) / len(per_turn))
        turn_truth = targets(p, "turn", turns=turns)
        assert all(1 <= v <= 5 for v in turn_truth.values())


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_import_predictions_stores_runs_and_evaluates(demo_project: Path, tmp_path: Path):
    with Project.open(demo_project, backup=False) as p:
        truth = targets(p, "conversation")
        ids = sorted(truth)
        lines = ["conversation_id,score,run"]
        for run in (1, 2):
            lines += [f"{cid},{truth[cid] + (0.4 if run == 1 else -0.4)},{run}" for cid in ids]
        f = _write(tmp_path / "judge.csv", "\n".join(lines) + "\n")
        summary = import_predictions(p, f)
        assert (summary.predictor, summary.level, summary.rows, summary.runs) == (
            "judge", "conversation", 2 * len(ids), 2)
        assert summary.changes == PREDICTIONS  # what the window's views hear
        assert import_predictions(p, f, dry_run=True).changes.empty
        figures = evaluate_predictor(p, "judge")
        assert figures["mae"] == pytest.approx(0.4) and figures["mae_sd"] == pytest.approx(0)
        assert figures["n"] == len(ids) and figures["runs"] == 2
        # importing again replaces rather than adds
        import_predictions(p, f)
        assert predictor_counts(p)["judge"]["conversation"] == 2 * len(ids)


@pytest.mark.parametrize(("body", "where"), [
    ("conversation_id,score\n101,4\nnope,3\n", "line 3, field 'conversation_id'"),
    ("conversation_id,score\n101,four\n", "line 2, field 'score'"),
    ("conversation_id,score,turn\n101,4,2\n101,4,1\n", "line 3, field 'turn'"),  # user turn
    ("conversation_id,score,turn\n101,4,2\n101,4,99\n", "line 3, field 'turn'"),
    ("conversation_id,score\n101,4\n101,3\n", "line 3, field 'conversation_id'"),  # twice
    ("conversation_id,score,run\n101,4,0\n", "line 2, field 'run'"),
    # larger than an SQLite integer: OverflowError from the store before
    ("conversation_id,score,run\n101,4,99999999999999999999\n", "line 2, field 'run'"),
    ("conversation_id,score,run\n101,4,1e30\n", "line 2, field 'run'"),
    ("conversation_id,score,turn\n101,4,2\n101,4,1e300\n", "line 3, field 'turn'"),
    ("id,score\n101,4\n", "line 1, field 'conversation_id'"),
])
def test_bad_predictions_name_line_and_field_and_write_nothing(
        demo_project: Path, tmp_path: Path, body: str, where: str):
    with Project.open(demo_project, backup=False) as p:
        f = _write(tmp_path / "bad.csv", body)
        with pytest.raises(InputError) as e:
            import_predictions(p, f)
        assert str(e.value).startswith(f"{f}, {where}:")
        assert predictor_counts(p) == {}


def test_turn_level_predictions_and_unknown_predictor(demo_project: Path, tmp_path: Path):
    with Project.open(demo_project, backup=False) as p:
        truth = targets(p, "turn")
        lines = ["conversation_id,turn,score"] + [f"{c},{pos},3" for c, pos in truth]
        summary = import_predictions(p, _write(tmp_path / "t.csv", "\n".join(lines)), "const")
        assert summary.level == "turn"
        figures = evaluate_predictor(p, "const", "turn")
        assert figures["spearman"] is None and figures["n"] == len(truth)
        with pytest.raises(ProjectError, match="no conversation-level predictions of 'const'"):
            evaluate_predictor(p, "const", "conversation")


def test_a_predictor_is_one_more_rater_in_agreement(demo_project: Path, tmp_path: Path):
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project.agreement import project_agreement
    from sense7_coder.project.selection import Selection

    with Project.open(demo_project, backup=False) as p:
        truth = targets(p, "turn")
        # a "model" that copies the users' overall rating, off by a fraction
        lines = ["conversation_id,turn,score"] + [f"{c},{pos},{v + 0.3}"
                                                   for (c, pos), v in truth.items()]
        import_predictions(p, _write(tmp_path / "copy.csv", "\n".join(lines)), "copycat")
        report = project_agreement(p,
                                   Selection(codes=["overall"], include_users=True,
                                             predictors=["copycat"]),
                                   AgreementSettings(bootstrap=20))
        pairs = {(r.measure, tuple(r.coders)): r for r in report.records}
        vs_users = pairs[("krippendorff_alpha", ("model:copycat", "users"))]
        assert vs_users.value == pytest.approx(1.0) and vs_users.n_units == len(truth)
        assert vs_users.ci_low is not None
        # and against each coder, with the same measures
        assert ("cohen_kappa", ("alice", "model:copycat")) in pairs or \
            ("cohen_kappa", ("model:copycat", "alice")) in pairs
        with pytest.raises(ProjectError, match="no predictor"):
            project_agreement(p, Selection(predictors=["nobody"]))

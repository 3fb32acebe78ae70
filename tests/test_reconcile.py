"""Reconciliation: the disagreement queue, majority decisions, progress, coders vs consensus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from analysis_support import code, codings, make_project

from sense7_coder.domain.agreement import ALPHA
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.reconcile import (
    NO_MAJORITY,
    accept_majorities,
    accept_majority,
    coders_vs_consensus,
    disagreements,
    reconcile_progress,
    strict_majority,
)
from sense7_coder.project.selection import Selection


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    code(project, "alice", {
        ("c1", 2, "overall"): 5, ("c1", 4, "overall"): 4, ("c2", 2, "overall"): 3,
        ("c2", 4, "overall"): 2, ("c3", 2, "overall"): None,
        ("c1", 2, "strategy"): "advice", ("c2", 2, "strategy"): "advice",
    })
    code(project, "bashir", {
        ("c1", 2, "overall"): 1, ("c1", 4, "overall"): 4, ("c2", 2, "overall"): 4,
        ("c2", 4, "overall"): 2, ("c3", 2, "overall"): 3, ("c4", 2, "overall"): 3,
        ("c1", 2, "strategy"): "question", ("c2", 2, "strategy"): "advice",
    })
    code(project, "chen", {
        ("c1", 2, "overall"): 4, ("c2", 2, "overall"): 3, ("c2", 4, "overall"): 2,
        ("c1", 2, "strategy"): "validation",
    })
    project.set_coder("alice")
    project.set_memo(Unit("c1", 2), "the user sounded stressed")
    project.set_coder("dana", "adjudicator")
    yield project
    project.close()


def test_strict_majority() -> None:
    assert strict_majority([3, 3, 4]) == 3
    assert strict_majority([3, 4]) is NO_MAJORITY
    assert strict_majority([None, None, 2]) is None  # "not applicable" can win
    assert strict_majority([1, 2, 3]) is NO_MAJORITY
    assert strict_majority([]) is NO_MAJORITY


def test_queue_holds_only_disagreements_furthest_apart_first(study: Project) -> None:
    queue = disagreements(study, Selection(codes=["overall"]))
    where = [(d.unit.conversation_id, d.unit.position) for d in queue]
    # c1/2: 5,1,4 (range 4); c2/2: 3,4,3 (range 1); c3/2: NA vs 3 (range 0, 2 distinct).
    # c1/4 and c2/4 agree; c4/2 has one coder.
    assert where == [("c1", 2), ("c2", 2), ("c3", 2)]
    first = queue[0]
    assert first.values == {"alice": 5, "bashir": 1, "chen": 4}
    assert first.spread == 4 and first.distinct == 3 and not first.has_majority
    assert first.memos == {"alice": "the user sounded stressed"}
    assert queue[1].majority == 3 and queue[1].has_majority
    assert queue[2].values == {"alice": None, "bashir": 3}


def test_nominal_codes_are_ranked_by_distinct_values(study: Project) -> None:
    queue = disagreements(study, Selection(codes=["strategy"]))
    assert [(d.unit.conversation_id, d.spread) for d in queue] == [("c1", 3.0)]
    assert queue[0].values == {"alice": "advice", "bashir": "question", "chen": "validation"}


def test_queue_filters(study: Project) -> None:
    only_c2 = disagreements(study, Selection(codes=["overall"], participants=["P1"],
                                            models=["IC"]))
    assert [d.unit.conversation_id for d in only_c2] == ["c2"]
    two = disagreements(study, Selection(codes=["overall"], coders=["alice", "chen"]))
    assert [(d.unit.conversation_id, d.unit.position) for d in two] == [("c1", 2)]


def test_binary_disagreement_counts_a_finished_turn_as_absent(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "validation"): 1}, done=[("c1", 2)])
    code(project, "bashir", {}, done=[("c1", 2)])
    queue = disagreements(project, Selection(codes=["validation"]))
    assert len(queue) == 1 and queue[0].values == {"alice": 1, "bashir": 0}
    project.close()


def test_accept_majority_sets_consensus_and_leaves_codings_alone(study: Project) -> None:
    before = codings(study)
    accept_majority(study, Unit("c2", 2), "overall")
    row = study.db.execute(
        "SELECT value, adjudicator, rationale FROM consensus WHERE conversation_id = 'c2'"
    ).fetchone()
    assert tuple(row) == (3, "dana", "majority of coders")
    assert codings(study) == before
    study.undo()
    assert study.db.execute("SELECT COUNT(*) FROM consensus").fetchone()[0] == 0


def test_accept_majority_refuses_without_majority_or_adjudicator(study: Project) -> None:
    with pytest.raises(ProjectError, match=r"no value has a strict majority \(alice=5, bashir=1"):
        accept_majority(study, Unit("c1", 2), "overall")
    with pytest.raises(ProjectError, match="fewer than two coders"):
        accept_majority(study, Unit("c4", 2), "overall")
    study.set_coder("alice")
    with pytest.raises(ProjectError, match="only an adjudicator"):
        accept_majority(study, Unit("c2", 2), "overall")
    assert study.db.execute("SELECT COUNT(*) FROM consensus").fetchone()[0] == 0


def test_decisions_and_progress(study: Project) -> None:
    start = {p.code: p
             for p in reconcile_progress(study, Selection(codes=["overall", "strategy"]))}
    assert (start["overall"].compared, start["overall"].disagreeing,
            start["overall"].decided) == (5, 3, 0)
    study.set_consensus(Unit("c1", 2), "overall", 4, "discussed: the ask was answered")
    queue = disagreements(study, Selection(codes=["overall"]))
    assert queue[0].decided and queue[0].consensus["value"] == 4  # type: ignore[index]
    assert [d.unit.conversation_id for d in disagreements(
        study, Selection(codes=["overall"]), undecided_only=True)] == ["c2", "c3"]
    after = {p.code: p for p in reconcile_progress(study, Selection(codes=["overall"]))}
    assert (after["overall"].decided, after["overall"].open) == (1, 2)


def test_accept_majorities_in_one_step(study: Project) -> None:
    study.set_consensus(Unit("c1", 4), "overall", 5, "kept")
    cmd = accept_majorities(study, Selection(codes=["overall"]))
    decided = dict(
        ((r[0], r[1]), r[2]) for r in study.db.execute(
            "SELECT conversation_id, position, value FROM consensus WHERE code = 'overall'")
    )
    # c2/2 majority 3; c2/4 unanimous 2; c1/4 was decided already and is kept;
    # c1/2 and c3/2 have no majority; c4/2 has one coder
    assert decided == {("c1", 4): 5, ("c2", 2): 3, ("c2", 4): 2}
    assert len(cmd.cells) == 2
    study.undo()  # one undo step takes the whole batch back
    assert study.db.execute("SELECT COUNT(*) FROM consensus").fetchone()[0] == 1
    accept_majorities(study, Selection(codes=["overall"]), overwrite=True)
    value = study.db.execute("SELECT value FROM consensus WHERE conversation_id = 'c1' "
                             "AND position = 4").fetchone()[0]
    assert value == 4


def test_coders_vs_consensus_equals_direct_alpha(study: Project) -> None:
    decisions = {("c1", 2): 4, ("c2", 2): 3, ("c2", 4): 2, ("c1", 4): 4}
    for (cid, pos), v in decisions.items():
        study.set_consensus(Unit(cid, pos), "overall", v)
    report = coders_vs_consensus(study, Selection(codes=["overall"]))
    alice = next(r for r in report.records if r.measure == ALPHA and r.coders[0] == "alice")
    units = [("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4)]
    mine = {("c1", 2): 5, ("c1", 4): 4, ("c2", 2): 3, ("c2", 4): 2}
    matrix = np.array([[mine[u] for u in units], [decisions[u] for u in units]], dtype=float)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal",
                                  value_domain=[1, 2, 3, 4, 5])
    assert alice.coders == ["alice", "consensus"] and alice.n_units == 4
    assert alice.value == pytest.approx(float(expected))


def test_majorities_follow_a_coder_who_saves_while_they_are_read(
        study: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """c2/2 reads 3, 4, 3 (majority 3). Chen changes his 3 to 4 in another window while
    the batch reads: the consensus written is the majority of what is stored, 4."""
    from sense7_coder.project import reconcile

    reads = reconcile.read_ratings
    calls = []

    def read_then_chen_saves(*args, **kwargs):  # type: ignore[no-untyped-def]
        data = reads(*args, **kwargs)
        if not calls:
            calls.append(True)
            with Project.open(study.path, backup=False) as other:
                other.set_coder("chen")
                other.set_value(Unit("c2", 2), "overall", 4)
        return data

    monkeypatch.setattr(reconcile, "read_ratings", read_then_chen_saves)
    accept_majorities(study, Selection(codes=["overall"]))
    value = study.db.execute("SELECT value FROM consensus WHERE conversation_id = 'c2' "
                             "AND position = 2 AND code = 'overall'").fetchone()[0]
    assert value == 4

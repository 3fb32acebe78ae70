"""Undo and redo: never throw away what another window wrote since, always
restore exactly, and refuse writes that the rest of the project would not accept."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.reconcile import accept_majorities
from sense7_coder.store import codings as store_codings

TURN = Unit("c1", 2)


@pytest.fixture
def windows(tmp_path: Path) -> tuple[Project, Project]:
    """Two windows on one project file, both working as alice."""
    make_project(tmp_path).close()
    a = Project.open(tmp_path / "study.sense7", backup=False)
    b = Project.open(tmp_path / "study.sense7", backup=False)
    a.set_coder("alice")
    b.set_coder("alice")
    yield a, b
    a.close()
    b.close()


def value(project: Project, coder: str = "alice", unit: Unit = TURN, key: str = "overall"
          ) -> object:
    return store_codings.get_coding(project.db, coder, unit, key)


def test_undo_keeps_a_value_another_window_wrote_since(windows: tuple[Project, Project]
                                                       ) -> None:
    a, b = windows
    a.set_value(Unit("c1", 4), "overall", 2)
    a.set_value(TURN, "overall", 1)
    b.set_value(TURN, "overall", 5)
    with pytest.raises(ProjectError, match="changed in another window.*left as it is"):
        a.undo()
    assert value(a) == 5
    # the stale step is gone from the history; the one before it still undoes
    assert a.undo_label == "set Overall empathy to poor"
    a.undo()
    assert value(a, unit=Unit("c1", 4)) is store_codings.MISSING


def test_redo_keeps_a_value_another_window_wrote_since(windows: tuple[Project, Project]
                                                       ) -> None:
    a, b = windows
    a.set_value(TURN, "overall", 1)
    a.undo()
    b.set_value(TURN, "overall", 3)
    with pytest.raises(ProjectError, match="cannot redo"):
        a.redo()
    assert value(a) == 3 and a.redo_label is None


def test_undo_of_a_consensus_decision_keeps_another_adjudicators_decision(
    windows: tuple[Project, Project]
) -> None:
    a, b = windows
    a.set_coder("lead", "adjudicator")
    a.set_coder("second", "adjudicator")  # only the lead gives others that role
    a.set_coder("lead")
    b.set_coder("second")
    a.set_consensus(TURN, "overall", 4, "clear majority")
    b.set_consensus(TURN, "overall", 2, "the user disagreed")
    with pytest.raises(ProjectError, match="the consensus of 'overall'"):
        a.undo()
    decision = store_codings.get_consensus(a.db, TURN, "overall")
    assert decision is not None and decision["value"] == 2
    assert decision["adjudicator"] == "second"


def test_undo_of_a_memo_keeps_what_another_window_wrote(windows: tuple[Project, Project]
                                                        ) -> None:
    a, b = windows
    a.set_memo(TURN, "first thought")
    b.set_memo(TURN, "second thought")
    with pytest.raises(ProjectError, match="memo"):
        a.undo()
    assert store_codings.get_memo(a.db, "alice", TURN) == "second thought"


def test_redo_after_undoing_a_memo_and_a_done_mark(windows: tuple[Project, Project]) -> None:
    a, _ = windows
    a.set_memo(TURN, "unsure about tone")
    a.set_done("c1", 2)
    assert [a.undo().label, a.undo().label] == ["mark turn 2 done", "edit memo"]  # type: ignore[union-attr]
    assert store_codings.get_memo(a.db, "alice", TURN) == ""
    assert not store_codings.get_done(a.db, "alice", "c1", 2)
    assert [a.redo().label, a.redo().label] == ["edit memo", "mark turn 2 done"]  # type: ignore[union-attr]
    assert store_codings.get_memo(a.db, "alice", TURN) == "unsure about tone"
    assert store_codings.get_done(a.db, "alice", "c1", 2)
    assert a.redo() is None and a.undo_label == "mark turn 2 done"


def test_a_memo_needs_a_turn_that_exists(windows: tuple[Project, Project]) -> None:
    a, _ = windows
    with pytest.raises(ProjectError, match="no turn 99"):
        a.set_memo(Unit("c1", 99), "lost note")
    with pytest.raises(ProjectError, match="no conversation 'nope'"):
        a.set_memo(Unit("nope", 0), "lost note")
    assert a.undo_label is None and a.info()["memos"] == 0


def test_a_code_is_set_only_on_turns_of_its_role(windows: tuple[Project, Project]) -> None:
    a, _ = windows
    with pytest.raises(ProjectError, match="applies to assistant turns; turn 1 .* user turn"):
        a.set_value(Unit("c1", 1), "overall", 4)
    a.set_coder("lead", "adjudicator")
    with pytest.raises(ProjectError, match="user turn"):
        a.set_consensus(Unit("c1", 1), "overall", 4)
    assert a.info()["codings"] == 0 and a.info()["consensus"] == 0


def test_many_consensus_decisions_are_checked_first_and_undone_in_one_step(
    windows: tuple[Project, Project]
) -> None:
    a, _ = windows
    a.set_coder("lead", "adjudicator")
    decisions = [(Unit("c1", 2), "overall", 4), (Unit("c2", 2), "overall", 9)]
    with pytest.raises(ProjectError, match="'9' is not a level"):
        a.set_consensus_many(decisions, "batch")
    assert a.info()["consensus"] == 0
    cmd = a.set_consensus_many(decisions[:1] + [(Unit("c2", 4), "overall", None)], "batch")
    assert a.info()["consensus"] == 2 and a.undo_label == cmd.label
    a.undo()
    assert a.info()["consensus"] == 0
    a.set_coder("alice")
    with pytest.raises(ProjectError, match="only an adjudicator"):
        a.set_consensus_many(decisions[:1])


def test_accepting_majorities_goes_through_the_checked_batch(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for coder, v in (("a", 4), ("b", 4), ("c", 2)):
        code(project, coder, {("c1", 2, "overall"): v})
    project.set_coder("lead", "adjudicator")
    cmd = accept_majorities(project)
    assert len(cmd.cells) == 1 and cmd.label == "accept the majority on 1 units"
    decision = store_codings.get_consensus(project.db, TURN, "overall")
    assert decision is not None and decision["value"] == 4
    project.undo()
    assert store_codings.get_consensus(project.db, TURN, "overall") is None
    project.close()

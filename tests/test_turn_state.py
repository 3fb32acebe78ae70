"""The workspace's typed view of a conversation: read from the project, and read again for
the turns a change named without losing the others."""

from __future__ import annotations

from pathlib import Path

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.workspace import TurnState, others_values, revealed


def test_reading_again_for_one_turn_keeps_the_other_turns(demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("frank")
        p.set_value(Unit("101", 2), "overall", 4)
        p.set_value(Unit("101", 4), "overall", 2)
        before = TurnState.read(p, "101")
        assert before.codings[(2, 0, "overall")] == 4
        with Project.open(demo_project, backup=False) as other:
            other.set_coder("gina")
            other.set_value(Unit("101", 2), "overall", 1)
        p.set_value(Unit("101", 2), "overall", 5)
        p.set_done("101", 2)
        after = before.with_turns(TurnState.read(p, "101", positions=[2]), [2])
        assert after.codings[(2, 0, "overall")] == 5  # read again
        assert after.codings[(4, 0, "overall")] == 2  # kept
        assert 2 in after.done
        assert ("gina", 1) in others_values(after, 2, 0, "overall")
        full = TurnState.read(p, "101")
        assert (after.codings, after.done, after.memos) == (full.codings, full.done, full.memos)
        assert revealed(p, after, 2)  # not blind: always


def test_blind_coding_reveals_a_turn_once_the_coder_marked_it_done(demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("frank")
        state = TurnState.read(p, "101")  # nothing done yet
        assert revealed(p, state, 2)  # not blind: always
    # a coder (no lead) on a blind project
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana", "adjudicator")
        p.blind_coding = True
        p.set_coder("frank")
        state = TurnState.read(p, "101")
        assert not revealed(p, state, 2) and not revealed(p, state, 0)
        p.set_done("101", 2)
        assert revealed(p, TurnState.read(p, "101"), 2)
        assert not revealed(p, TurnState.read(p, "101"), 0)  # turns 4, 6, 8 are not done
        for position in (4, 6, 8):
            p.set_done("101", position)
        assert revealed(p, TurnState.read(p, "101"), 0)
        # marking a turn not done again does not take back what was seen
        p.set_done("101", 2, False)
        state = TurnState.read(p, "101")
        assert 2 not in state.done and revealed(p, state, 2) and revealed(p, state, 0)

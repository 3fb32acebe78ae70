"""A model's suggestions: stored apart from codings, read as a rater, hidden from a blind
coder until their own value is set and the turn revealed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project.project import Project
from sense7_coder.project.suggestions.stored import (
    NewSuggestion,
    model_raters,
    store_run,
    suggestion_runs,
    suggestion_visible,
    suggestions,
)

TURN = Unit("101", 2)


def _run(p: Project, model: str = "judge", value: int = 4, **kw: object):
    return store_run(p, model, "llm", "turn", [
        NewSuggestion(TURN, "affective", "ok", value, "names the feeling"),
        NewSuggestion(TURN, "cognitive", "ok", None, "nothing to judge"),
        NewSuggestion(TURN, "overall", "no_answer", reply="I cannot say."),
    ], api_model="qwen", endpoint_host="127.0.0.1:8080", prompt_digest="abc",
        settings={"temperature": 0}, requests=1, **kw)  # type: ignore[arg-type]


def test_a_run_is_stored_apart_from_codings_and_read_back_typed(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        before = p.db.execute("SELECT COUNT(*) FROM codings").fetchone()[0]
        run = _run(p)
        assert p.db.execute("SELECT COUNT(*) FROM codings").fetchone()[0] == before
        assert (run.answered, run.no_answer, run.requests) == (2, 1, 1)
        assert run.rater == "model:judge" and run.endpoint_host == "127.0.0.1:8080"
        assert run.settings == {"temperature": 0} and run.finished_at
        got = {s.code: s for s in suggestions(p, TURN)}
        assert got["affective"].value == 4 and got["affective"].rationale == "names the feeling"
        assert got["affective"].rater == "model:judge" and got["affective"].run == run.run
        assert got["cognitive"].value is None and got["cognitive"].answered
        assert got["overall"].status == "no_answer" and got["overall"].reply == "I cannot say."
        assert [s.code for s in suggestions(p, "101", "affective")] == ["affective"]
        assert model_raters(p) == ["model:judge"]


def test_latest_run_wins_and_older_runs_stay_readable(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        first, second = _run(p, value=2), _run(p, value=5)
        every = suggestions(p, TURN, "affective")
        assert [s.run for s in every] == [first.run, second.run]
        assert [s.value for s in suggestions(p, TURN, "affective", latest=True)] == [5]
        assert len(suggestion_runs(p, "judge")) == 2


def test_values_are_checked_like_a_coders_and_nothing_half_written(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        with pytest.raises(ProjectError, match="code affective.*'9' is not a level"):
            store_run(p, "judge", "llm", "turn", [
                NewSuggestion(TURN, "overall", "ok", 3),
                NewSuggestion(TURN, "affective", "ok", 9)])
        with pytest.raises(ProjectError, match="no turn 999"):
            store_run(p, "judge", "llm", "turn", [NewSuggestion(Unit("101", 999), "overall",
                                                                 "ok", 3)])
        with pytest.raises(ProjectError, match="no code 'nope'"):
            store_run(p, "judge", "llm", "turn", [NewSuggestion(TURN, "nope", "ok", 3)])
        assert suggestion_runs(p) == [] and suggestions(p, "101") == []


def test_no_coder_may_take_a_model_raters_name(demo_project: Path):
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(ProjectError, match="names a model"):
        p.set_coder("model:judge")


def test_a_blind_coder_reads_a_suggestion_only_after_own_value_and_reveal(
        demo_project: Path):
    with Project.open(demo_project, backup=False) as lead:
        lead.set_coder("lee", "adjudicator")
        _run(lead)
        lead.blind_coding = True
        assert {s.code for s in suggestions(lead, TURN)} == {"affective", "cognitive",
                                                             "overall"}
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dora")
        assert suggestions(p, TURN) == [] and suggestions(p, "101") == []
        with pytest.raises(ProjectError, match="codes blind.*own value is set"):
            suggestions(p, TURN, "affective")
        p.set_value(TURN, "affective", 3)
        assert suggestions(p, TURN) == []  # own value, but not revealed yet
        p.set_done("101", 2)
        assert [s.code for s in suggestions(p, TURN)] == ["affective"]  # only where set
        assert not suggestion_visible(p, TURN, "overall")
        # nobody blind reads through another coder's reveals
        with pytest.raises(ProjectError, match="only a lead"):
            suggestions(p, TURN, viewer="bashir")
        assert not suggestion_visible(p, Unit("101", 4), "affective", "dora")
    with Project.open(demo_project, backup=False) as anon, \
            pytest.raises(ProjectError, match="name who you are"):
        suggestions(anon, TURN)


def test_a_hand_edited_value_off_the_scale_is_named(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        run = _run(p)
    conn = sqlite3.connect(demo_project)
    with conn:
        conn.execute("UPDATE suggestions SET value = 77 WHERE run = ? AND code = 'affective'",
                     [run.run])
    conn.close()
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(ProjectError, match=r"changed outside.*run \d+.*'77' is not a level"):
        suggestions(p, TURN)


def test_a_coder_package_carries_no_suggestions(demo_project: Path, tmp_path: Path):
    from sense7_coder.project.assignments import assign
    from sense7_coder.project.package import make_package

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        _run(p)
        p.blind_coding = True
        assign(p, ["alice"])
        make_package(p, "alice", tmp_path / "alice.sense7")
    with Project.open(tmp_path / "alice.sense7", backup=False) as pkg:
        assert pkg.db.execute("SELECT COUNT(*) FROM suggestions").fetchone()[0] == 0
        assert pkg.db.execute("SELECT COUNT(*) FROM suggestion_runs").fetchone()[0] == 0


def test_turn_uncertainty_follows_runs_that_disagree_and_no_answers(demo_project: Path):
    from sense7_coder.project.suggestions.stored import turn_uncertainty

    with Project.open(demo_project, backup=False) as p:
        other = Unit("101", 4)
        store_run(p, "judge", "llm", "turn", [NewSuggestion(TURN, "affective", "ok", 1),
                                              NewSuggestion(other, "affective", "ok", 3)])
        store_run(p, "judge", "llm", "turn", [NewSuggestion(TURN, "affective", "ok", 5),
                                              NewSuggestion(other, "affective", "ok", 3)])
        got = turn_uncertainty(p)
        assert got[("101", 2)] == pytest.approx(0.5) and got[("101", 4)] == 0.0
        store_run(p, "judge", "llm", "turn", [NewSuggestion(other, "overall", "no_answer",
                                                            reply="?")])
        assert turn_uncertainty(p)[("101", 4)] == 1.0
        p.set_coder("lee", "adjudicator")
        p.set_coder("dora")
        with pytest.raises(ProjectError, match="only a lead"):
            turn_uncertainty(p)


@pytest.mark.parametrize("edit", [
    "UPDATE suggestions SET position = 'two' WHERE code = 'affective'",
    "UPDATE suggestions SET status = 'maybe' WHERE code = 'affective'",
    "UPDATE suggestions SET sentence = x'00' WHERE code = 'affective'",
])
def test_hand_edited_suggestions_are_named_in_one_line_everywhere(demo_project: Path,
                                                                  edit: str):
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project.agreement import project_agreement
    from sense7_coder.project.selection import Selection
    from sense7_coder.project.suggestions.stored import suggestions_table, turn_uncertainty

    with Project.open(demo_project, backup=False) as p:
        _run(p)
    conn = sqlite3.connect(demo_project)
    with conn:
        conn.execute(edit)
    conn.close()
    with Project.open(demo_project, backup=False) as p:
        for read in (lambda: suggestions(p, "101"), lambda: turn_uncertainty(p),
                     lambda: suggestions_table(p, p.codebook.active),
                     lambda: project_agreement(p, Selection(codes=["affective"]),
                                               AgreementSettings(bootstrap=0))):
            with pytest.raises(ProjectError, match="changed outside sense7-coder"):
                read()

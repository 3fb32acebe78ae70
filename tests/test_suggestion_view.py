"""A model's suggestions in the workspace: the lead's setting, blinding, accepting with
provenance, exports, and a queue ordered by the model's uncertainty."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.cli import main
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project.project import Project
from sense7_coder.project.suggestions.stored import NewSuggestion, store_run
from sense7_coder.project.suggestions.view import (
    accept,
    accept_all,
    order_queue,
    row_suggestions,
    set_shown_in_workspace,
    shown_in_workspace,
    uncertainty,
)

TURN = Unit("101", 2)


def _run(p: Project, model: str = "judge", values: dict[str, Any] | None = None,
         unit: Unit = TURN, spread: float | None = None) -> None:
    values = values or {"affective": 4, "cognitive": 2}
    store_run(p, model, "llm", "turn",
              [NewSuggestion(unit, k, "ok", v, f"why {k} is {v}", spread=spread)
               for k, v in values.items()], requests=1)


def _lead(path: Path, *, blind: bool = False, show: bool = True) -> None:
    with Project.open(path, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        _run(p)
        if show:
            set_shown_in_workspace(p, True)
        p.blind_coding = blind


def test_the_setting_is_the_leads_and_kept_in_the_history(demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        assert not shown_in_workspace(p)
        set_shown_in_workspace(p, True)
        set_shown_in_workspace(p, True)  # no change, no history row
        set_shown_in_workspace(p, False)
        rows = p.db.execute("SELECT action, code, before, after, source FROM history WHERE "
                            "kind = 'setting' AND code = 'show_model_suggestions' "
                            "ORDER BY id").fetchall()
        assert rows == [("set", "show_model_suggestions", None, "1", "settings"),
                        ("change", "show_model_suggestions", "1", "0", "settings")]
        p.blind_coding = True
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dora")
        with pytest.raises(ProjectError, match="lead"):
            set_shown_in_workspace(p, True)
        assert not shown_in_workspace(p)


def test_nothing_shows_until_the_lead_allows_it(demo_project: Path) -> None:
    _lead(demo_project, show=False)
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("alice")
        assert row_suggestions(p, [(TURN, "affective")]) == {}
        with pytest.raises(ProjectError, match="not allowed"):
            accept(p, TURN, "affective")
        p.set_coder("lee")
        set_shown_in_workspace(p, True)
        p.set_coder("alice")
        shown = row_suggestions(p, [(TURN, "affective"), (TURN, "cognitive"),
                                    (TURN, "overall")])
        assert {k[1]: s.value for k, s in shown.items()} == {"affective": 4, "cognitive": 2}
        assert shown[(TURN, "affective")].chosen.rationale == "why affective is 4"


def test_a_blind_coder_sees_a_suggestion_only_after_own_value_and_reveal(
        demo_project: Path) -> None:
    _lead(demo_project, blind=True)
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dora")
        assert row_suggestions(p, [(TURN, "affective")]) == {}
        with pytest.raises(ProjectError, match="own value is set"):
            accept(p, TURN, "affective")
        p.set_value(TURN, "affective", 2)
        assert row_suggestions(p, [(TURN, "affective")]) == {}  # not revealed yet
        p.set_done("101", 2)
        shown = row_suggestions(p, [(TURN, "affective"), (TURN, "cognitive")])
        assert list(shown) == [(TURN, "affective")]  # cognitive: no own value yet
        with pytest.raises(ProjectError, match="locked"):  # the blind value stays
            accept(p, TURN, "affective")
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee")
        p.lock_after_reveal = False
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dora")
        accept(p, TURN, "affective")  # kept beside the blind value, as a revision
        where = ("coder = 'dora' AND conversation_id = '101' AND position = 2 AND "
                 "code = 'affective'")
        assert p.db.execute(f"SELECT value FROM codings WHERE {where}").fetchone() == (2,)
        assert p.db.execute(f"SELECT value FROM revisions WHERE {where}").fetchone() == (4,)
        last = p.db.execute(f"SELECT after, source FROM history WHERE {where} "
                            "ORDER BY id DESC LIMIT 1").fetchone()
        assert last == (4, "suggestion_accepted after reveal")


def test_accepting_records_provenance_and_every_export_shows_it(demo_project: Path,
                                                                tmp_path: Path,
                                                                capsys: Any) -> None:
    _lead(demo_project)
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("alice")
        mine = ("SELECT code, value, source FROM codings WHERE coder = 'alice' AND "
                "conversation_id = '101' AND position = 2 ORDER BY code")
        before = p.db.execute(mine).fetchall()
        cmd = accept_all(p, [(TURN, "affective"), (TURN, "cognitive"), (TURN, "overall")])
        assert [c.code for c in cmd.cells] == ["affective", "cognitive"]
        assert p.undo_label == "take the model's values of 2 codes"  # one step for both
        p.undo()
        assert p.db.execute(mine).fetchall() == before
        p.redo()
    out = tmp_path / "long.csv"
    assert main(["export", str(demo_project), str(out), "--kind", "long", "--provenance",
                 "--coders", "alice"]) == 0
    rows = [r for r in csv.DictReader(out.open(encoding="utf-8"))
            if r["conversation_id"] == "101" and r["turn"] == "2"]
    got = {r["code"]: (r["value"], r["source"]) for r in rows}
    assert got["affective"] == ("4", "suggestion_accepted")
    assert got["cognitive"] == ("2", "suggestion_accepted")
    assert len(got) > 2 and all(src != "suggestion_accepted" for c, (_, src) in got.items()
                                if c not in ("affective", "cognitive"))
    wide = tmp_path / "wide.csv"
    assert main(["export", str(demo_project), str(wide), "--kind", "wide", "--provenance",
                 "--coders", "alice"]) == 0
    row = next(r for r in csv.DictReader(wide.open(encoding="utf-8"))
               if r["conversation_id"] == "101" and r["turn"] == "2")
    assert "suggestion_accepted" in row.values()
    history = tmp_path / "history.csv"
    assert main(["export", str(demo_project), str(history), "--kind", "history"]) == 0
    taken = [r for r in csv.DictReader(history.open(encoding="utf-8"))
             if r["source"] == "suggestion_accepted"]
    assert sorted(r["code"] for r in taken) == ["affective", "cognitive"]
    capsys.readouterr()


def test_the_queue_puts_the_models_least_sure_conversations_first(demo_project: Path,
                                                                   capsys: Any) -> None:
    from sense7_coder.project.assignments import assign, assigned_to

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        assign(p, ["alice"])
        queue = assigned_to(p, "alice")
        sure, unsure, spread = queue[0], queue[-1], queue[len(queue) // 2]
        # two runs agree on the first conversation, two models disagree on the last, the
        # baseline's spread marks a middle one
        for model in ("a", "b"):
            _run(p, model, {"affective": 3}, Unit(sure, 2))
        _run(p, "a", {"affective": 1}, Unit(unsure, 2))
        _run(p, "b", {"affective": 5}, Unit(unsure, 2))
        _run(p, "base", {"affective": 3}, Unit(spread, 2), spread=1.0)
        scores = uncertainty(p)
        # 1 and 5 from two models: their SD (2) over the scale's range (4); the spread as
        # recorded
        assert scores[sure] == 0.0 and scores[unsure] == 0.5 and scores[spread] == 1.0
        ordered = order_queue(p, "alice")
        assert [c for c, _ in ordered[:3]] == [spread, unsure, sure]
        assert assigned_to(p, "alice")[:3] == [spread, unsure, sure]
        rest = [c for c in queue if c not in (sure, unsure, spread)]
        assert assigned_to(p, "alice")[3:] == rest  # the others keep their order
        p.blind_coding = True
    code = main(["assign", str(demo_project), "--coders", "alice", "--by-uncertainty",
                 "--as", "alice"])
    assert code == 2 and "lead" in capsys.readouterr().err


def test_a_coders_package_follows_the_ordered_queue(demo_project: Path, tmp_path: Path
                                                    ) -> None:
    from sense7_coder.project.assignments import assign
    from sense7_coder.project.package import make_package
    from sense7_coder.store.assignments import conversation_order

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        assign(p, ["alice"])
        _run(p, "a", {"affective": 1}, Unit("110", 2))
        _run(p, "b", {"affective": 5}, Unit("110", 2))
        assert order_queue(p, "alice")[0] == ("110", 0.5)
        make_package(p, "alice", tmp_path / "alice.sense7")
    with Project.open(tmp_path / "alice.sense7", backup=False) as pkg:
        assert [cid for _, cid in conversation_order(pkg.db)][:2] == ["110", "101"]

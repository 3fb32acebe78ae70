"""The baseline suggests any code, learnt per code from the project's own coded units."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.domain.codebook.codes import Code, Level
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.prediction.suggest_baseline import run_baseline
from sense7_coder.project.suggestions.stored import suggestions


def test_every_dimension_of_every_assistant_turn_out_of_fold(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        run = run_baseline(p, runs=2)
        assistant = p.db.execute("SELECT COUNT(*) FROM turns WHERE role = 'assistant'"
                                 ).fetchone()[0]
        assert run.rater == "model:baseline" and run.method == "baseline"
        assert run.answered == assistant * len([c for c in p.codebook.active if c.unit != "span"]) and run.no_answer == 0
        assert "grouped by" in run.settings["notes"]["affective"]
        got = suggestions(p, "101", "affective")
        assert got and all(s.value in (1, 2, 3, 4, 5) and s.spread is not None for s in got)


def test_nominal_and_present_absent_codes_are_learnt_as_classes(demo_project: Path):
    from sense7_coder.project.codebook.editing import add_code

    with Project.open(demo_project, backup=False) as p:
        add_code(p, Code("apology", "Apology", kind="binary", allow_na=False,
                         levels=[Level(0, "absent"), Level(1, "present")]))
        rows = p.db.execute("SELECT conversation_id, position FROM turns "
                            "WHERE role = 'assistant'").fetchall()
        for coder in ("alice", "bashir"):
            p.set_coder(coder)
            for cid, pos in rows:
                from sense7_coder.domain.models import Unit

                p.set_value(Unit(cid, pos), "apology", 1 if "sorry" in
                            p.db.execute("SELECT lower(text) FROM turns WHERE conversation_id"
                                         " = ? AND position = ?", [cid, pos]).fetchone()[0]
                            else 0)
        p.set_coder("lee", "adjudicator")
        run = run_baseline(p, ["apology"])
        assert run.answered == len(rows)
        assert {s.value for s in suggestions(p, "101", "apology")} <= {0, 1}


def test_nothing_to_learn_from_is_said(tmp_path: Path):
    from sense7_coder.resources import resolve_codebook

    with Project.create(tmp_path / "empty.sense7", resolve_codebook("sense7")) as p, \
            pytest.raises(ProjectError, match="suggested nothing"):
        run_baseline(p, ["affective"])


def test_span_codes_are_left_to_coders(demo_project: Path) -> None:
    """A span is a stretch of text a person marks: suggest leaves span codes out by default
    and refuses one asked for by name, in one line naming it."""
    from sense7_coder.project.suggestions.asking import selected_codes

    with Project.open(demo_project, backup=False) as p:
        spans = [c.key for c in p.codebook.active if c.unit == "span"]
        assert spans, "the demo has span codes"
        assert not {c.key for c in selected_codes(p)} & set(spans)
        with pytest.raises(ProjectError, match=f"{spans[0]}: span codes are marked"):
            selected_codes(p, [spans[0]])

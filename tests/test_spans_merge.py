"""Spans travel by merge and coder packages, checked like every other merged row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from analysis_support import make_project
from test_spans import with_span_codes

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.spans import SpanKey
from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.project.merge.merging import MergeConflicts, merge
from sense7_coder.project.package import make_package
from sense7_coder.project.spans import editing as project_spans


def spans_of(project: Project) -> list[tuple[object, ...]]:
    return sorted((s.coder, s.conversation_id, s.position, s.start, s.end, s.code, s.value,
                   s.memo, s.source, s.origin)
                  for s in project_spans.all_spans(project))


def test_a_package_brings_its_coders_spans_and_the_merge_brings_them_back(
        tmp_path: Path) -> None:
    lead = with_span_codes(make_project(tmp_path))
    lead.set_coder("lee", "adjudicator")
    assign(lead, ["a"], seed=0)
    lead.blind_coding = True
    make_package(lead, "a", tmp_path / "a.sense7")
    with Project.open(tmp_path / "a.sense7", backup=False) as pkg:
        pkg.set_coder("a")
        project_spans.add(pkg, "c1", 2, 0, 21, "warmth", memo="opens softly")
        project_spans.add(pkg, "c1", 4, 7, 11, "move", "ask")
    report = merge(lead, [tmp_path / "a.sense7"])
    assert "2 spans" in report.sources[0].line(False)
    assert spans_of(lead) == [
        ("a", "c1", 2, 0, 21, "warmth", 1, "opens softly", "merged", "a.sense7"),
        ("a", "c1", 4, 7, 11, "move", "ask", "", "merged", "a.sense7"),
    ]
    assert all(s.blind for s in project_spans.all_spans(lead))
    again = merge(lead, [tmp_path / "a.sense7"])  # nothing new the second time
    assert again.sources[0].spans == 0
    lead.close()


def test_a_span_outside_its_turn_in_a_hand_edited_source_refuses_the_merge(
        tmp_path: Path) -> None:
    lead = with_span_codes(make_project(tmp_path))
    other = with_span_codes(make_project(tmp_path, "other.sense7"))
    other.set_coder("bob")
    project_spans.add(other, "c1", 2, 0, 21, "warmth")
    other.close()
    conn = sqlite3.connect(tmp_path / "other.sense7")
    conn.execute("UPDATE spans SET end = 400")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match=r"spans.*row 1.*ends outside its turn's text"):
        merge(lead, [tmp_path / "other.sense7"])
    assert project_spans.all_spans(lead) == []
    lead.close()


def test_the_same_span_with_two_values_is_a_conflict(tmp_path: Path) -> None:
    lead = with_span_codes(make_project(tmp_path))
    other = with_span_codes(make_project(tmp_path, "other.sense7"))
    for p, value in ((lead, "ask"), (other, "reflect")):
        p.set_coder("bob")
        project_spans.add(p, "c1", 2, 0, 21, "move", value)
    other.close()
    with pytest.raises(MergeConflicts) as e:
        merge(lead, [tmp_path / "other.sense7"])
    assert "code 'move', span 0-21" in "\n".join(e.value.report.lines())
    merge(lead, [tmp_path / "other.sense7"], on_conflict="keep-source")
    (span,) = project_spans.all_spans(lead)
    assert (span.key, span.value, span.source) == (
        SpanKey("bob", "c1", 2, 0, 21, "move"), "reflect", "merged")
    lead.close()

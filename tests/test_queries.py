"""Queries: co-occurrence of codes (same turn, same conversation, overlapping spans), codes
by a conversation attribute, and spans in the segments export with their text and
context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.cooccurrence import code_by_attribute, cooccurrence, span_cooccurrence
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.codebook.editing import add_code
from sense7_coder.project.export import export_frame
from sense7_coder.project.queries import codes_by_attribute_table, cooccurrence_table
from sense7_coder.project.selection import Selection
from sense7_coder.project.spans import editing as project_spans
from sense7_coder.project.spans.queries import context_of

TURN2 = "That sounds draining. Which meeting matters most to you? (c1)"


def matrix(table: pd.DataFrame) -> dict[tuple[str, str], int]:
    t = table.set_index("code")
    return {(a, b): int(t.loc[a, b]) for a in t.index for b in t.columns}


def test_cooccurrence_by_hand() -> None:
    present = pd.DataFrame([("c1", 2, "a"), ("c1", 2, "b"), ("c1", 4, "a"), ("c2", 2, "b"),
                            ("c2", 4, "c")], columns=["conversation_id", "position", "code"])
    turn = matrix(cooccurrence(present, ["a", "b", "c"], "turn"))
    assert turn[("a", "a")] == 2 and turn[("a", "b")] == turn[("b", "a")] == 1
    assert turn[("b", "c")] == 0
    conv = matrix(cooccurrence(present, ["a", "b", "c"], "conversation"))
    assert conv[("a", "a")] == 1 and conv[("b", "b")] == 2 and conv[("b", "c")] == 1
    assert conv[("a", "c")] == 0


def test_span_overlap_by_hand() -> None:
    spans = pd.DataFrame([("c1", 2, 0, 10, "a"), ("c1", 2, 9, 12, "b"),
                          ("c1", 2, 10, 20, "c"),  # touches a at 10: no overlap
                          ("c1", 3, 0, 10, "b"), ("c1", 2, 5, 6, "a")],
                         columns=["conversation_id", "position", "start", "end", "code"])
    m = matrix(span_cooccurrence(spans, ["a", "b", "c"]))
    assert m[("a", "a")] == 2 and m[("b", "b")] == 2 and m[("c", "c")] == 1
    assert m[("a", "b")] == m[("b", "a")] == 1  # only 0-10 reaches 9-12
    assert m[("a", "c")] == 0 and m[("b", "c")] == 1


def test_code_by_attribute_by_hand() -> None:
    present = pd.DataFrame([("c1", 2, "a"), ("c1", 4, "a"), ("c2", 2, "a"), ("c3", 2, "b")],
                           columns=["conversation_id", "position", "code"])
    table = code_by_attribute(present, ["a", "b"], {"c1": "GPT4", "c2": "IC", "c3": None})
    assert list(table.columns) == ["code", "GPT4", "IC", "(none)"]
    assert table.set_index("code").loc["a"].tolist() == [2, 1, 0]
    assert table.set_index("code").loc["b"].tolist() == [0, 0, 1]


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    for c in ({"key": "warmth", "label": "Warmth", "kind": "binary", "unit": "span"},
              {"key": "ask", "label": "Ask", "kind": "binary", "unit": "span"}):
        add_code(project, code_from_dict(c))
    code(project, "alice", {("c1", 2, "validation"): 1, ("c1", 2, "strategy"): "advice",
                            ("c1", 4, "validation"): 0, ("c3", 2, "validation"): 1,
                            ("c3", 4, "strategy"): "question"})
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project_spans.add(project, "c1", 2, 12, 40, "ask")
    project.set_coder("bashir")
    code(project, "bashir", {("c1", 2, "validation"): 1, ("c2", 2, "strategy"): "advice"})
    project_spans.add(project, "c1", 2, 22, 57, "ask")
    project.set_coder("lee", "adjudicator")
    yield project
    project.close()


def test_cooccurrence_of_a_project(study: Project) -> None:
    options = Selection(codes=("validation", "strategy", "warmth", "ask"))
    turn = matrix(cooccurrence_table(study, options, "turn"))
    # validation = 0 is not presence; two coders' marks of one turn count once
    assert turn[("validation", "validation")] == 2
    assert turn[("validation", "strategy")] == 1 and turn[("strategy", "strategy")] == 3
    assert turn[("warmth", "ask")] == 1 and turn[("warmth", "validation")] == 1
    conv = matrix(cooccurrence_table(study, options, "conversation"))
    assert conv[("validation", "strategy")] == 2
    span = matrix(cooccurrence_table(study, options, "span"))
    assert span[("warmth", "ask")] == 1 and span[("ask", "ask")] == 2
    assert ("validation", "validation") not in span  # spans only
    alice = matrix(cooccurrence_table(study,
                                      Selection(codes=("validation",), coders=("bashir",)), "turn"))
    assert alice[("validation", "validation")] == 1


def test_codes_by_attribute_of_a_project(study: Project) -> None:
    table = codes_by_attribute_table(study, "model",
                                     Selection(codes=("validation", "strategy",
                                                      "ask"))).set_index("code")
    assert list(table.columns) == ["GPT4", "IC"]
    assert table.loc["validation"].tolist() == [2, 0]
    assert table.loc["strategy"].tolist() == [2, 1]
    assert table.loc["ask"].tolist() == [1, 0]
    week = codes_by_attribute_table(study, "week", Selection(codes=("strategy",)))
    assert week.set_index("code").loc["strategy"].tolist() == [2, 1]
    with pytest.raises(ProjectError, match="no conversation has the attribute 'site'"):
        codes_by_attribute_table(study, "site")


def test_blind_coder_cannot_query(study: Project) -> None:
    study.blind_coding = True
    study.set_coder("alice")
    with pytest.raises(ProjectError, match="codes blind"):
        cooccurrence_table(study)
    with pytest.raises(ProjectError, match="codes blind"):
        codes_by_attribute_table(study)


def test_query_exports(study: Project) -> None:
    table = export_frame(study, "cooccurrence", Selection(codes=("warmth", "ask")),
                         scope="span")
    assert matrix(table)[("ask", "warmth")] == 1
    table = export_frame(study, "codes-by-attribute", Selection(codes=("ask",)),
                         by="participant_id")
    assert list(table.columns) == ["code", "P1", "P2"]
    with pytest.raises(ProjectError, match="scope must be one of"):
        export_frame(study, "cooccurrence", Selection(), scope="page")


def test_segments_carry_spans_with_text_and_context(study: Project) -> None:
    table = export_frame(study, "segments", Selection(codes=("ask", "validation")))
    spans = table[table["code"] == "ask"]
    assert spans["text"].tolist() == [TURN2[12:40], TURN2[22:57]]
    assert spans["start"].tolist() == [12, 22] and spans["end"].tolist() == [40, 57]
    assert spans["context"].tolist()[0] == context_of(TURN2, 12, 40)
    assert "«" + TURN2[12:40] + "»" in spans["context"].tolist()[0]
    assert table[table["code"] == "validation"]["start"].tolist() == ["", "", "", ""]
    # in conversation order: c1's spans come before c3's turn codings
    assert table["conversation_id"].tolist().index("c3") > max(spans.index)


def test_context_is_bounded() -> None:
    text = "x" * 200 + "HIT" + "y" * 200
    shown = context_of(text, 200, 203)
    assert shown.startswith("…") and shown.endswith("…") and "«HIT»" in shown
    assert len(shown) == 60 + 60 + 3 + 4


def test_every_code_counts_when_none_is_asked_for(study: Project) -> None:
    keys = list(cooccurrence_table(study, scope="span")["code"])
    assert keys == ["warmth", "ask"]
    turn = list(cooccurrence_table(study)["code"])
    assert "validation" in turn and "warmth" in turn


def test_command_line_query_exports(study: Project, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.cli import main

    path = study.path
    study.close()
    out = tmp_path / "co.csv"
    assert main(["export", str(path), str(out), "--kind", "cooccurrence", "--scope", "span",
                 "--codes", "warmth,ask", "--as", "lee"]) == 0
    table = pd.read_csv(out)
    assert matrix(table)[("warmth", "ask")] == 1
    out = tmp_path / "by.csv"
    assert main(["export", str(path), str(out), "--kind", "codes-by-attribute", "--by", "week",
                 "--as", "lee"]) == 0
    assert list(pd.read_csv(out).columns) == ["code", "1", "2"]


def test_codes_by_attribute_neutralises_formula_like_header_cells(
        study: Project, tmp_path: Path) -> None:
    """Its columns are named after attribute values, which come from imported files: a
    value like =HYPERLINK(...) or @SUM(1) must not reach a spreadsheet as a formula in the
    header row any more than in a cell."""
    from sense7_coder.project.attributes import set_attribute
    from sense7_coder.project.export import export_project

    set_attribute(study, "c1", "site", '=HYPERLINK("http://x","y")')
    set_attribute(study, "c2", "site", "@SUM(1)")
    set_attribute(study, "c3", "site", "Leeds")
    out = tmp_path / "by-site.csv"
    export_project(study, out, "codes-by-attribute",
                   Selection(codes=("validation", "strategy")), by="site")
    header = out.read_text(encoding="utf-8").splitlines()[0]
    cells = pd.read_csv(out, nrows=0).columns.tolist()
    assert cells[:4] == ["code", "'=HYPERLINK(\"http://x\",\"y\")", "'@SUM(1)", "Leeds"]
    assert header.startswith("code,")
    raw = tmp_path / "raw.csv"
    export_project(study, raw, "codes-by-attribute",
                   Selection(codes=("validation",)), by="site", raw=True)
    assert "@SUM(1)" in pd.read_csv(raw, nrows=0).columns.tolist()

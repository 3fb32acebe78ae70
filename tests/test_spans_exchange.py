"""Spans through files: import-codings reads start/end, the long export writes them and
reads back."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from analysis_support import make_project
from test_spans import with_span_codes

from sense7_coder.cli import main
from sense7_coder.domain.errors import InputError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.export import export_project
from sense7_coder.project.imports import import_codings
from sense7_coder.project.selection import Selection
from sense7_coder.project.spans import editing as project_spans


def spans_of(project: Project) -> list[tuple[object, ...]]:
    return sorted((s.coder, s.conversation_id, s.position, s.start, s.end, s.code, s.value)
                  for s in project_spans.all_spans(project))


def test_import_codings_reads_spans_and_refuses_one_outside_the_text(tmp_path: Path) -> None:
    project = with_span_codes(make_project(tmp_path))
    good = tmp_path / "spans.csv"
    good.write_text("coder,conversation_id,turn,code,value,start,end\n"
                    "alice,c1,2,warmth,,0,21\n"
                    "bob,c1,2,move,reflect,22,56\n"
                    "bob,c1,2,validation,1,,\n", encoding="utf-8")
    summary = import_codings(project, good)
    assert (summary.codings, summary.spans, summary.new_coders) == (1, 2, ["alice", "bob"])
    assert spans_of(project) == [("alice", "c1", 2, 0, 21, "warmth", 1),
                                 ("bob", "c1", 2, 22, 56, "move", "reflect")]
    stored = project_spans.all_spans(project)[0]
    assert (stored.source, stored.origin) == ("imported", "spans.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("coder,conversation_id,turn,code,value,start,end\n"
                   "carol,c1,4,warmth,,0,10\n"
                   "carol,c1,2,warmth,,40,99\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_codings(project, bad)
    assert str(e.value) == (f"{bad}, line 3, field 'end': the span 40-99 ends outside its "
                            "turn's text (61 characters)")
    assert len(spans_of(project)) == 2  # nothing of the bad file landed
    project.close()


def test_reimporting_a_span_keeps_its_memo_and_how_it_was_made(tmp_path: Path) -> None:
    project = with_span_codes(make_project(tmp_path))
    project.set_coder("alice")
    project_spans.add(project, "c1", 2, 0, 21, "warmth", memo="names the worry")
    path = tmp_path / "again.csv"
    path.write_text("coder,conversation_id,turn,code,value,start,end\n"
                    "alice,c1,2,warmth,,0,21\n", encoding="utf-8")
    summary = import_codings(project, path)
    assert summary.spans == 0  # already there with that value
    (span,) = project_spans.all_spans(project)
    assert (span.memo, span.source, span.origin) == ("names the worry", "coded", None)
    project.close()


@pytest.mark.parametrize(("row", "field", "words"), [
    ("a,c1,2,warmth,,5,5", "end", "not after its start"),
    ("a,c1,2,warmth,,x,5", "start", "is not a whole number"),
    ("a,c1,2,warmth,,,5", "start", "needs a start"),
    ("a,c1,2,validation,1,0,5", "start", "only a span code has a start"),
    ("a,c1,2,move,NA,0,5", "value", "cannot be not applicable"),
])
def test_a_bad_span_row_is_one_line_naming_its_field(tmp_path: Path, row: str, field: str,
                                                     words: str) -> None:
    project = with_span_codes(make_project(tmp_path))
    path = tmp_path / "one.csv"
    path.write_text(f"coder,conversation_id,turn,code,value,start,end\n{row}\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=f"line 2, field '{field}': .*{words}"):
        import_codings(project, path)
    project.close()


def test_the_long_export_carries_spans_and_reads_back(tmp_path: Path) -> None:
    project = with_span_codes(make_project(tmp_path))
    project.set_coder("alice")
    project.set_value(Unit("c1", 2), "validation", 1)
    project_spans.add(project, "c1", 2, 0, 21, "warmth")
    project_spans.add(project, "c2", 4, 7, 11, "move", "ask")
    project.set_coder("bob")
    project_spans.add(project, "c1", 2, 22, 56, "warmth")
    before = spans_of(project)
    out = tmp_path / "long.csv"
    export_project(project, out, "long", with_text=True)
    with out.open(encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    span_rows = [r for r in table if r["start"]]
    assert [(r["coder"], r["code"], r["start"], r["end"], r["text"]) for r in span_rows] == [
        ("alice", "warmth", "0", "21", "That sounds draining."),
        ("bob", "warmth", "22", "56", "Which meeting matters most to you?"),
        ("alice", "move", "7", "11", "plan"),
    ]
    other = make_project(tmp_path, "again.sense7")
    with_span_codes(other)
    import_codings(other, out)
    assert spans_of(other) == before
    other.close()
    project.close()


def test_codebook_add_makes_a_span_code_on_the_command_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    project = make_project(tmp_path)
    path = project.path
    project.close()
    assert main(["codebook", str(path), "add", "tactic_cue", "--kind", "binary",
                 "--unit", "span"]) == 0
    assert "binary, span" in capsys.readouterr().out
    with Project.open(path) as again:
        assert again.code("tactic_cue").unit == "span"


def test_the_memos_export_carries_span_memos_with_offsets_and_code(tmp_path: Path) -> None:
    project = with_span_codes(make_project(tmp_path))
    project.set_coder("alice")
    project.set_memo(Unit("c2", 2), "flat reply")
    project_spans.add(project, "c1", 2, 0, 21, "warmth", memo="names the strain")
    project_spans.add(project, "c1", 2, 22, 56, "warmth")  # no memo: no row
    project.set_coder("bob")
    project_spans.add(project, "c2", 4, 7, 11, "move", "ask")
    project_spans.set_memo(project, project_spans.own_spans(project, "c2")[0].key, "asks")
    out = tmp_path / "memos.csv"
    export_project(project, out, "memos")
    with out.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        table = [tuple(r.values()) for r in reader]
        assert reader.fieldnames == ["coder", "conversation_id", "turn", "sentence", "text",
                                     "start", "end", "code"]
    assert table == [
        ("alice", "c1", "2", "", "names the strain", "0", "21", "warmth"),
        ("alice", "c2", "2", "", "flat reply", "", "", ""),
        ("bob", "c2", "4", "", "asks", "7", "11", "move"),
    ]
    export_project(project, out, "memos", Selection(coders=("alice",)))
    with out.open(encoding="utf-8", newline="") as f:
        assert {r["coder"] for r in csv.DictReader(f)} == {"alice"}
    project.close()

"""The files going in and out: one clear message for a bad file, exports that read
back whatever the ids, names and levels hold, and outputs written whole or not at all."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from analysis_support import code, codings, conversation_lines, make_project

from sense7_coder.cli import main
from sense7_coder.domain import files as domain_files
from sense7_coder.domain.codebook.codes import Code, Level, code_from_dict
from sense7_coder.domain.errors import Cancelled, CodebookError, InputError, ProjectError
from sense7_coder.domain.export.tables import ExportError, neutralise, unneutralise
from sense7_coder.domain.importers.tables import read_csv_table
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project import imports as project_imports
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.project.export import export_project
from sense7_coder.project.imports import import_codings
from sense7_coder.store import codes as store_codes

#: conversation ids a spreadsheet would take for formulas, and names and levels as awkward
AWKWARD = [("=c1", "P1", "GPT4", 4, 5), ("-x", "P1", "IC", 2, 3), ("@c3", "P2", "GPT4", 5, None),
           ("+c4", "P2", "IC", 1, 2)]
TONE = {"key": "tone", "kind": "nominal", "levels": [
    {"value": "warm, kind", "label": "warm, and kind"},
    {"value": 'said "hi"', "label": 'a "quoted" label'},
    {"value": "two\nlines", "label": "a label\non two lines"},
    {"value": "=SUM(A1)", "label": "=formula"},
    {"value": "-1", "label": "minus one"},
]}


def run(capsys: pytest.CaptureFixture[str], *args: Any) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# -- bad input: one message --------------------------------------------------------------------

def test_a_row_with_more_cells_than_the_header_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    project.close()
    chats = tmp_path / "chats.csv"
    chats.write_text("conversation_id,role,text\nz1,user,hi,stray cell\nz1,assistant,yo\n")
    marks = tmp_path / "codings.csv"
    marks.write_text("coder,conversation_id,turn,code,value\nalice,c1,2,overall,4,5\n")
    for command, path in (("import", chats), ("import-codings", marks)):
        status, _, err = run(capsys, command, tmp_path / "study.sense7", path)
        assert status == 2 and len(err.strip().splitlines()) == 1
        assert f"{path}, line 2" in err and "cells but the header has" in err
    with pytest.raises(InputError, match="line 2"):
        read_csv_table(chats)


def test_a_codebook_folder_is_named_as_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    project.close()
    status, _, err = run(capsys, "codebook", tmp_path / "study.sense7", "import", tmp_path)
    assert status == 2 and "is a folder, not a codebook file" in err


def test_code_keys_and_levels_that_exports_could_not_tell_apart_are_refused() -> None:
    with pytest.raises(CodebookError, match="no '__'"):
        code_from_dict({"key": "warmth__v2", "kind": "binary"})
    with pytest.raises(CodebookError, match="would read as 'not applicable'"):
        code_from_dict({"key": "answer", "kind": "nominal",
                        "levels": [{"value": "yes"}, {"value": "N/A"}]})


# -- exports that read back --------------------------------------------------------------------

@pytest.fixture
def awkward(tmp_path: Path) -> Iterator[Project]:
    """A study whose ids, coder names and levels all start with formula characters or hold
    commas, quotes and line breaks; every kind and unit of code is coded."""
    project = make_project(tmp_path, conversations=conversation_lines(AWKWARD))
    codebook_ops.add_code(project, code_from_dict(TONE))
    tones = [lv["value"] for lv in TONE["levels"]]
    for i, coder in enumerate(("=bob", "-1", "al__ice", "a,b")):
        values: dict[tuple[Any, ...], Any] = {}
        for j, (cid, *_rest) in enumerate(AWKWARD):
            values[(cid, 2, "overall")] = [4, None, 1, 5][(i + j) % 4]
            values[(cid, 2, "tone")] = tones[(i + j) % len(tones)]
            values[(cid, 2, "validation")] = (i + j) % 2
            values[(cid, 2, 1, "question")] = 1
            values[(cid, 0, "quality")] = 3
            values[(cid, 4, "strategy")] = "advice"
        code(project, coder, values)
    yield project
    project.close()


def test_the_default_long_export_reads_back_whatever_it_holds(
    awkward: Project, tmp_path: Path
) -> None:
    out = tmp_path / "long.csv"
    export_project(awkward, out, "long")
    text = out.read_text(encoding="utf-8")
    assert "'=c1" in text and "'=bob" in text and "'=SUM(A1)" in text  # still neutralised
    fresh = make_project(tmp_path, "fresh.sense7", conversation_lines(AWKWARD))
    codebook_ops.add_code(fresh, code_from_dict(TONE))
    result = import_codings(fresh, out)
    assert result.codings == len(codings(awkward)) == 4 * 4 * 6
    assert codings(fresh) == codings(awkward)
    assert sorted(result.new_coders) == ["-1", "=bob", "a,b", "al__ice"]
    fresh.close()


def test_unneutralise_undoes_only_what_neutralise_did() -> None:
    cells = ["=x", "+cmd", "-x", "@SUM(A1)", "-1", "-1.5", "'quoted", "'-1", "plain"]
    written = neutralise(pd.DataFrame({"c": cells}))["c"].tolist()
    assert [unneutralise(c) for c in written] == cells


def test_wide_columns_split_at_the_first_double_underscore(awkward: Project, tmp_path: Path
                                                           ) -> None:
    out = tmp_path / "wide.csv"
    export_project(awkward, out, "wide", raw=True)
    columns = list(pd.read_csv(out, nrows=0).columns)
    coded = [c.split("__", 1) for c in columns[6:]]
    assert ["overall", "al__ice"] in coded and ["tone", "=bob"] in coded
    assert all(k in {c.key for c in awkward.codebook.codes} for k, _ in coded)


def test_a_wide_export_that_would_name_two_columns_alike_is_refused(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    # a key with "__" from before keys were checked for it
    with project.pdb.atomic() as db:
        store_codes.upsert_code(db, Code("overall__v2", "Old overall", "binary",
                                         levels=[Level(0, "no"), Level(1, "yes")],
                                         allow_na=False))
    project.invalidate_codebook()
    code(project, "ann", {("c1", 2, "overall__v2"): 1})
    code(project, "v2__ann", {("c1", 2, "overall"): 4})
    with pytest.raises(ExportError, match="two columns 'overall__v2__ann'"):
        export_project(project, tmp_path / "wide.csv", "wide")
    assert not (tmp_path / "wide.csv").exists()
    project.close()


# -- outputs written whole ---------------------------------------------------------------------

def test_a_codebook_export_that_fails_keeps_the_older_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    project.close()
    out = tmp_path / "codebook.json"
    out.write_text("the team's edited codebook", encoding="utf-8")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(domain_files.os, "fsync", disk_full)
    status, _, err = run(capsys, "codebook", tmp_path / "study.sense7", "export", out)
    assert status == 2 and f"{out}: cannot be written (No space left on device)" in err
    assert out.read_text(encoding="utf-8") == "the team's edited codebook"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".part")) == []
    monkeypatch.undo()
    for bad, why in ((tmp_path, "is a folder"), (tmp_path / "no" / "x.json", "does not exist")):
        status, _, err = run(capsys, "codebook", tmp_path / "study.sense7", "export", bad)
        assert status == 2 and why in err


def test_an_export_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (tmp_path / "real.csv").write_text("old")
    link = tmp_path / "latest.csv"
    link.symlink_to(tmp_path / "real.csv")
    export_project(project, link, "codebook")
    assert link.is_symlink()
    assert (tmp_path / "real.csv").read_text(encoding="utf-8").startswith("code,label")
    project.close()


def test_an_export_into_a_read_only_folder_names_the_file(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("file permissions are not enforced for this user (root)")
        with pytest.raises(ExportError, match=r"ro/long\.csv: cannot be written"):
            export_project(project, folder / "long.csv", "long")
    finally:
        folder.chmod(0o755)
        project.close()


# -- commands that change nothing when refused -----------------------------------------------

def test_accept_majority_as_an_unknown_name_adds_no_coder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    project.close()
    status, _, err = run(capsys, "consensus", tmp_path / "study.sense7", "--accept-majority",
                         "--coder", "newbie")
    assert status == 2 and "add --role adjudicator" in err
    with Project.open(tmp_path / "study.sense7", backup=False) as p:
        assert [c["name"] for c in p.coders()] == []


def test_cancel_is_heard_while_sentences_are_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path)  # the codebook has a sentence-level code
    chats = tmp_path / "more.jsonl"
    chats.write_text(conversation_lines([(f"n{i}", "P9", "GPT4", 3, 3) for i in range(20)]))
    consumed: list[object] = []
    split = project_imports.segment_turns

    def counting(turns: Iterable[tuple[str, int, str]]) -> Iterator[Any]:
        for sentence in split(turns):
            consumed.append(sentence)
            yield sentence

    monkeypatch.setattr(project_imports, "segment_turns", counting)
    before = project.info()
    with pytest.raises(Cancelled):  # Cancel pressed once splitting has begun
        project_imports.import_files(project, [chats], cancel=lambda: bool(consumed))
    assert project.info() == before
    assert len(consumed) < 20 * 2, "segmentation ran to the end before Cancel was heard"
    project.set_coder("alice")
    project.set_value(Unit("c1", 2), "overall", 3)  # the project is still usable
    project.close()


def test_a_coding_of_a_sentence_the_turn_lacks_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)  # turn 4 of c1 has two sentences
    project.set_coder("alice")
    with pytest.raises(ProjectError, match="has 2 sentences; there is no sentence 3"):
        project.set_value(Unit("c1", 4, 3), "question", 1)
    project.close()
    marks = tmp_path / "codings.csv"
    marks.write_text("coder,conversation_id,turn,sentence,code,value\n"
                     "alice,c1,4,2,question,1\nalice,c1,4,7,question,1\n")
    status, _, err = run(capsys, "import-codings", tmp_path / "study.sense7", marks)
    assert status == 2
    assert f"{marks}, line 3, field 'sentence': turn 4 of 'c1' has 2 sentences" in err
    with Project.open(tmp_path / "study.sense7", backup=False) as p:
        assert p.info()["codings"] == 0


def test_codings_of_sentences_not_split_yet_are_checked_and_land_with_them(
    tmp_path: Path
) -> None:
    project = make_project(tmp_path)
    project.db.execute("DELETE FROM sentences")  # as when the sentence code came later
    marks = tmp_path / "codings.csv"
    marks.write_text("coder,conversation_id,turn,sentence,code,value\n"
                     "alice,c1,4,2,question,1\n")
    assert import_codings(project, marks).codings == 1
    assert project.info()["sentences"] == 2  # turn 4 of c1, split on the way in
    marks.write_text("coder,conversation_id,turn,sentence,code,value\n"
                     "bob,c2,2,2,question,1\nbob,c2,4,5,question,0\n")
    with pytest.raises(InputError, match="line 3.*has 2 sentences; there is no sentence 5"):
        import_codings(project, marks)
    assert project.info()["sentences"] == 2 and project.info()["codings"] == 1
    project.close()

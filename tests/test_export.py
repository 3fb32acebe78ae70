"""Tidy CSV exports: the long file reads back with import-codings, the wide shape, formula
neutralisation, and files that are whole or absent."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from analysis_support import code, codings, make_project

from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.codebook.codes import Codebook
from sense7_coder.domain.errors import Cancelled
from sense7_coder.domain.export.tables import ExportError, is_formula, neutralise, write_csv
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.demo import build_demo
from sense7_coder.project.export import export_project
from sense7_coder.project.imports import import_codings
from sense7_coder.project.selection import Selection


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    code(project, "alice", {
        ("c1", 2, "overall"): 4, ("c3", 4, "overall"): None, ("c1", 2, "strategy"): "advice",
        ("c1", 2, 2, "question"): 1, ("c1", 0, "quality"): 5, ("c2", 2, "validation"): 0,
    })
    code(project, "bashir", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 2,
                             ("c1", 0, "quality"): None})
    yield project
    project.close()


def test_long_export_reads_back_into_a_fresh_copy(study: Project, tmp_path: Path) -> None:
    out = tmp_path / "long.csv"
    summary = export_project(study, out, "long")
    assert summary.rows == 9
    fresh = make_project(tmp_path, "fresh.sense7")
    result = import_codings(fresh, out)
    assert result.codings == 9 and result.new_coders == ["alice", "bashir"]
    assert codings(fresh) == codings(study)
    fresh.close()


def test_demo_long_export_round_trip(tmp_path: Path) -> None:
    demo = build_demo(tmp_path / "a")
    copy = build_demo(tmp_path / "b")
    with Project.open(demo, backup=False) as project:
        export_project(project, tmp_path / "long.csv", "long")
        expected = codings(project)
    with Project.open(copy, backup=False) as project:
        project.db.execute("DELETE FROM codings")
        project.pdb.conn.commit()
        import_codings(project, tmp_path / "long.csv")
        assert codings(project) == expected and len(expected) == 624


def test_long_columns_say_what_each_value_is(study: Project, tmp_path: Path) -> None:
    out = tmp_path / "long.csv"
    export_project(study, out, "long")
    got = rows(out)
    assert list(got[0]) == ["coder", "conversation_id", "participant_id", "model", "turn",
                            "sentence", "role", "code", "value", "level_label", "user_rating",
                            "user_rating_na"]
    by_key = {(r["coder"], r["conversation_id"], r["turn"], r["sentence"], r["code"]): r
              for r in got}
    overall = by_key[("alice", "c1", "2", "", "overall")]
    assert (overall["participant_id"], overall["model"], overall["role"]) == ("P1", "GPT4",
                                                                               "assistant")
    assert (overall["value"], overall["level_label"], overall["user_rating"]) == ("4", "good",
                                                                                  "4")
    na = by_key[("alice", "c3", "4", "", "overall")]
    assert (na["value"], na["level_label"], na["user_rating"]) == ("NA", "not applicable", "NA")
    quality = by_key[("bashir", "c1", "", "", "quality")]  # conversation level: no turn
    assert (quality["value"], quality["role"], quality["user_rating"]) == ("NA", "", "")
    # the user's "not applicable" and "not rated" stay apart where NA and empty do not
    assert (overall["user_rating_na"], na["user_rating_na"], quality["user_rating_na"]) == (
        "0", "1", "")
    default = pd.read_csv(out)  # pandas' defaults: NA and an empty cell are both missing
    assert default["user_rating_na"].isna().sum() == default["user_rating"].isna().sum() - 1
    sentence = by_key[("alice", "c1", "2", "2", "question")]
    assert (sentence["value"], sentence["level_label"]) == ("1", "present")
    assert by_key[("alice", "c1", "2", "", "strategy")]["value"] == "advice"


def test_long_export_filters(study: Project, tmp_path: Path) -> None:
    out = tmp_path / "long.csv"
    export_project(study, out, "long", Selection(codes=["overall"], coders=["bashir"]))
    assert {(r["coder"], r["code"]) for r in rows(out)} == {("bashir", "overall")}
    export_project(study, out, "long", Selection(models=["IC"]))
    assert {r["conversation_id"] for r in rows(out)} == {"c2"}


def test_wide_has_one_row_per_unit_and_a_column_per_code_and_coder(
    study: Project, tmp_path: Path
) -> None:
    out = tmp_path / "wide.csv"
    export_project(study, out, "wide")
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    # a code that allows not applicable: a __na column after each of its columns
    assert list(table.columns) == [
        "conversation_id", "participant_id", "model", "turn", "sentence", "role",
        "overall__alice", "overall__alice__na", "overall__bashir", "overall__bashir__na",
        "validation__alice", "question__alice", "strategy__alice", "strategy__alice__na",
        "quality__alice", "quality__alice__na", "quality__bashir", "quality__bashir__na",
    ]
    units = [tuple(r) for r in table[["conversation_id", "turn", "sentence"]].to_numpy()]
    assert units == [("c1", "", ""), ("c1", "2", ""), ("c1", "2", "2"), ("c2", "2", ""),
                     ("c3", "4", "")]
    row = table.iloc[1]
    assert (row["overall__alice"], row["overall__bashir"], row["strategy__alice"]) == (
        "4", "3", "advice")
    first = table.iloc[0]
    assert (first["quality__alice"], first["quality__bashir"]) == ("5", "NA")
    assert table.iloc[3]["overall__alice"] == ""  # alice did not code c2/2: empty, not NA
    # read with pandas' defaults both are missing; the __na column keeps them apart
    default = pd.read_csv(out)
    assert default["quality__bashir"].isna().iloc[0] and default["overall__alice"].isna().iloc[3]
    assert default["quality__bashir__na"].iloc[0] == 1
    assert pd.isna(default["overall__alice__na"].iloc[3])
    assert default["overall__alice__na"].iloc[1] == 0


def test_consensus_codebook_and_agreement_exports(study: Project, tmp_path: Path) -> None:
    study.set_coder("dana", "adjudicator")
    study.set_consensus(Unit("c1", 2), "overall", 4, "=both saw the stress")
    export_project(study, tmp_path / "consensus.csv", "consensus")
    (decision,) = rows(tmp_path / "consensus.csv")
    assert (decision["conversation_id"], decision["turn"], decision["value"],
            decision["adjudicator"]) == ("c1", "2", "4", "dana")
    assert decision["rationale"] == "'=both saw the stress"  # neutralised

    export_project(study, tmp_path / "codebook.csv", "codebook")
    book = rows(tmp_path / "codebook.csv")
    assert len(book) == sum(len(c.levels) for c in study.codebook.codes)
    assert {r["code"] for r in book} >= {"overall", "strategy", "quality"}
    assert [r["level_label"] for r in book if r["code"] == "validation"] == ["absent", "present"]

    opts = (Selection(codes=["overall"]), AgreementSettings(bootstrap=20, seed=3))
    export_project(study, tmp_path / "agreement.csv", "agreement", *opts)
    written = pd.read_csv(tmp_path / "agreement.csv")
    expected = project_agreement(study, *opts).to_frame()
    assert list(written.columns) == list(expected.columns) and len(written) == len(expected)
    assert written["value"].tolist() == pytest.approx(expected["value"].astype(float).tolist(),
                                                      nan_ok=True)


def test_formula_cells_are_neutralised_unless_raw(tmp_path: Path) -> None:
    frame = pd.DataFrame({
        "text": ["=1+2", "+cmd|' /C calc'!A0", "-3", "-x", "@SUM(A1)", "\tx", "plain", "-1.5e3",
                 None],
        "number": [-1, 2, -3, 4, 5, 6, 7, 8, 9],
        "mixed": ["=A1", 3, None, "ok", "+", "+1", "-", "\rr", "x"],
    })
    out = tmp_path / "x.csv"
    write_csv(frame, out)
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got["text"].tolist() == ["'=1+2", "'+cmd|' /C calc'!A0", "-3", "'-x", "'@SUM(A1)",
                                    "'\tx", "plain", "-1.5e3", ""]
    assert got["number"].tolist()[:3] == ["-1", "2", "-3"]
    assert got["mixed"].tolist() == ["'=A1", "3", "", "ok", "'+", "+1", "'-", "'\rr", "x"]
    write_csv(frame, out, raw=True)
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert raw["text"].tolist()[:2] == ["=1+2", "+cmd|' /C calc'!A0"]
    assert is_formula("=x") and not is_formula("+12.5") and not is_formula("plain")
    assert neutralise(frame.iloc[6:7]) is not None


def test_a_coder_name_that_looks_like_a_formula(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, '=HYPERLINK("http://x")', {("c1", 2, "overall"): 4})
    export_project(project, tmp_path / "safe.csv", "long")
    export_project(project, tmp_path / "raw.csv", "long", raw=True)
    assert rows(tmp_path / "safe.csv")[0]["coder"] == '\'=HYPERLINK("http://x")'
    assert rows(tmp_path / "raw.csv")[0]["coder"] == '=HYPERLINK("http://x")'
    project.close()


def test_a_failed_export_leaves_no_half_written_file(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": range(1000), "b": ["x"] * 1000})
    out = tmp_path / "out.csv"
    out.write_text("previous export\n", encoding="utf-8")
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        write_csv(frame, out, chunk_rows=100, cancel=cancel)
    assert out.read_text(encoding="utf-8") == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    fresh = tmp_path / "fresh.csv"
    with pytest.raises(Cancelled):
        write_csv(frame, fresh, chunk_rows=100, cancel=lambda: True)
    assert not fresh.exists()
    progress: list[tuple[int, int]] = []
    assert write_csv(frame, fresh, chunk_rows=300, progress=lambda d, t: progress.append((d, t))
                     ) == 1000
    assert progress == [(300, 1000), (600, 1000), (900, 1000), (1000, 1000)]
    assert len(rows(fresh)) == 1000
    with pytest.raises(ExportError, match="does not exist"):
        write_csv(frame, tmp_path / "missing" / "x.csv")
    with pytest.raises(ExportError, match="is a folder"):
        write_csv(frame, tmp_path)


def test_empty_export_still_has_a_header(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    export_project(project, tmp_path / "long.csv", "long")
    assert (tmp_path / "long.csv").read_text(encoding="utf-8").startswith("coder,conversation_id")
    export_project(project, tmp_path / "wide.csv", "wide")
    assert (tmp_path / "wide.csv").read_text(encoding="utf-8").startswith("conversation_id,")
    project.close()
    assert isinstance(project.codebook, Codebook)

"""Exports as Excel workbooks and SPSS data files: read back with openpyxl and pyreadstat,
values, labels and missing values as a statistician would see them."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pyreadstat
import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.export.formats import spss_names, table_format, write_xlsx
from sense7_coder.domain.files import ExportError
from sense7_coder.project import Project
from sense7_coder.project.export import export_project
from sense7_coder.project.selection import Selection

LABELS_1_5 = {1.0: "very poor", 2.0: "poor", 3.0: "neutral", 4.0: "good", 5.0: "very good"}


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    code(project, "alice", {
        ("c1", 2, "overall"): 4, ("c3", 4, "overall"): None, ("c1", 2, "strategy"): "advice",
        ("c1", 2, 2, "question"): 1, ("c1", 0, "quality"): 5, ("c2", 2, "validation"): 0,
    })
    code(project, "bashir", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 2,
                             ("c1", 0, "quality"): None})
    code(project, "=cmd|calc", {("c4", 2, "overall"): 1})
    yield project
    project.close()


def sheet_rows(path: Path) -> list[list[Any]]:
    wb = openpyxl.load_workbook(io.BytesIO(path.read_bytes()), read_only=True)
    rows = [list(r) for r in wb.worksheets[0].iter_rows(values_only=True)]
    width = max(len(r) for r in rows)
    return [r + [None] * (width - len(r)) for r in rows]  # trailing empty cells are left out


def test_format_comes_from_extension_or_to(tmp_path: Path) -> None:
    assert table_format(tmp_path / "a.XLSX") == "xlsx"
    assert table_format(tmp_path / "a.sav") == "sav"
    assert table_format(tmp_path / "a") == "csv"
    assert table_format(tmp_path / "a.txt", "sav") == "sav"
    with pytest.raises(ExportError, match=r"unknown export format '\.txt'"):
        table_format(tmp_path / "a.txt")
    with pytest.raises(ExportError, match="contradicts the format sav; make them agree") as e:
        table_format(tmp_path / "a.xlsx", "sav")
    assert e.value.hint is not None and (e.value.hint.option, e.value.hint.value) == ("to", "xlsx")


def test_long_xlsx_has_the_csv_cells_with_numbers_as_numbers(study: Project,
                                                            tmp_path: Path) -> None:
    export_project(study, tmp_path / "long.csv", "long")
    summary = export_project(study, tmp_path / "long.xlsx", "long")
    rows = sheet_rows(tmp_path / "long.xlsx")
    csv = pd.read_csv(tmp_path / "long.csv", dtype=str, keep_default_na=False)
    assert rows[0] == list(csv.columns) and summary.rows == len(csv) == len(rows) - 1
    by_key = {(r[0], r[1], r[4], r[5], r[7]): r for r in rows[1:]}
    alice = by_key[("alice", "c1", 2, None, "overall")]
    assert alice[8] == 4 and alice[9] == "good" and alice[10] == 4  # numbers, not text
    assert by_key[("alice", "c3", 4, None, "overall")][8] == "NA"
    assert by_key[("alice", "c1", 2, 2, "question")][8] == 1
    assert by_key[("alice", "c1", None, None, "quality")][8] == 5
    # a formula-like coder name is a text cell shown as it is (never run, no ' added)
    wb = openpyxl.load_workbook(tmp_path / "long.xlsx")
    cells = [c for c in wb.worksheets[0]["A"] if c.value == "=cmd|calc"]
    assert cells and all(c.data_type == "s" for c in cells)
    assert wb.worksheets[0].title == "long"


def test_wide_and_codebook_xlsx(study: Project, tmp_path: Path) -> None:
    export_project(study, tmp_path / "wide.xlsx", "wide")
    rows = sheet_rows(tmp_path / "wide.xlsx")
    header = rows[0]
    assert header[:6] == ["conversation_id", "participant_id", "model", "turn", "sentence",
                          "role"]
    first = dict(zip(header, next(r for r in rows[1:] if r[0] == "c1" and r[3] == 2),
                     strict=True))
    assert first["overall__alice"] == 4 and first["overall__bashir"] == 3
    assert first["strategy__alice"] == "advice"
    export_project(study, tmp_path / "codebook.xlsx", "codebook")
    rows = sheet_rows(tmp_path / "codebook.xlsx")
    overall = [r for r in rows[1:] if r[0] == "overall"]
    assert [(r[9], r[10]) for r in overall] == [(k, v) for k, v in
                                                ((1, "very poor"), (2, "poor"), (3, "neutral"),
                                                 (4, "good"), (5, "very good"))]


def test_xlsx_control_characters_and_too_many_rows(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame({"note": ["bell\x07here", "line\nbreak"], "n": [1, 2]})
    write_xlsx(frame, tmp_path / "x.xlsx")
    assert sheet_rows(tmp_path / "x.xlsx")[1:] == [["bell\ufffdhere", 1], ["line\nbreak", 2]]
    monkeypatch.setattr("sense7_coder.domain.export.formats.XLSX_MAX_ROWS", 1)
    with pytest.raises(ExportError, match="do not fit an Excel sheet"):
        write_xlsx(frame, tmp_path / "y.xlsx")
    assert not (tmp_path / "y.xlsx").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_long_sav_has_value_labels_and_user_missing_na(study: Project, tmp_path: Path) -> None:
    export_project(study, tmp_path / "long.sav", "long", to="sav")
    df, meta = pyreadstat.read_sav(tmp_path / "long.sav", user_missing=True)
    assert list(df.columns)[:3] == ["coder", "conversation_id", "participant_id"]
    labels = dict(zip(meta.column_names, meta.column_labels, strict=True))
    assert labels["value"].startswith("Coded value") and labels["coder"] == "Coder"
    # nominal 'strategy' makes the mixed value column a string with NA as user-missing
    assert meta.readstat_variable_types["value"] == "string"
    assert meta.missing_ranges["value"] == [{"lo": "NA", "hi": "NA"}]
    row = df[(df.coder == "alice") & (df.code == "overall") & (df.turn == 4)]
    assert row["value"].tolist() == ["NA"]


def test_ordinal_sav_labels_1_to_5_and_na_is_user_missing(study: Project,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "overall.sav"
    main(["export", str(study.path), str(out), "--kind", "long", "--codes", "overall"])
    df, meta = pyreadstat.read_sav(out, user_missing=True)
    assert meta.variable_value_labels["value"] == {**LABELS_1_5, 99.0: "not applicable"}
    assert meta.missing_ranges["value"] == [{"lo": 99.0, "hi": 99.0}]
    assert meta.variable_measure["value"] == "ordinal"
    alice = df[(df.coder == "alice")].set_index("turn")["value"]
    assert alice[2.0] == 4 and alice[4.0] == 99
    # read as SPSS treats it: the not-applicable code is missing, not a value of 99
    plain, _ = pyreadstat.read_sav(out)
    assert math.isnan(plain[(plain.coder == "alice") & (plain.turn == 4)]["value"].iloc[0])
    # the user's own rating: the same labels, and the user's not applicable is missing too
    assert meta.variable_value_labels["user_rating"][5.0] == "very good"
    c3 = df[(df.conversation_id == "c3") & (df.turn == 4)]["user_rating"]
    assert c3.tolist() == [99.0]


def test_wide_sav_labels_each_code_and_coder(study: Project, tmp_path: Path) -> None:
    export_project(study, tmp_path / "wide.sav", "wide")
    df, meta = pyreadstat.read_sav(tmp_path / "wide.sav", user_missing=True)
    labels = dict(zip(meta.column_names, meta.column_labels, strict=True))
    assert labels["overall__alice"] == "Overall empathy (overall), coded by alice"
    assert meta.variable_value_labels["overall__alice"][1.0] == "very poor"
    assert meta.variable_value_labels["validation__alice"] == {
        0.0: "absent", 1.0: "present", 99.0: "not applicable"}
    assert meta.variable_measure["validation__alice"] == "nominal"
    # a coder name that is no SPSS name gets a safe one; the label keeps the original
    odd = [n for n in meta.column_names if n.startswith("overall__") and "calc" in n]
    assert odd == ["overall___cmd_calc", "overall___cmd_calc__na"]
    assert labels["overall__alice__na"].endswith("1 = not applicable, 0 = a value, empty = "
                                                 "not coded")
    assert labels["overall___cmd_calc"].endswith("coded by =cmd|calc")
    c1 = df[(df.conversation_id == "c1") & (df.turn == 2)].iloc[0]
    assert c1["overall__alice"] == 4 and c1["strategy__alice"] == "advice"
    assert math.isnan(c1["validation__alice"])  # not coded: system-missing


def test_agreement_sav_is_numeric_where_numbers(study: Project, tmp_path: Path) -> None:
    main(["export", str(study.path), str(tmp_path / "agr.sav"), "--kind", "agreement",
          "--bootstrap", "0"])
    df, meta = pyreadstat.read_sav(tmp_path / "agr.sav")
    assert meta.readstat_variable_types["value"] == "double"
    assert meta.readstat_variable_types["code"] == "string"
    alpha = df[(df.code == "overall") & (df.measure == "krippendorff_alpha")]
    # the value alpha and, since the code allows N/A, the applicability alpha
    assert sorted(alpha.level) == ["applicability", "ordinal"]


def test_every_export_names_the_versions_that_computed_it(study: Project,
                                                          tmp_path: Path) -> None:
    """xlsx: the document properties; sav: the file's note; an agreement table (and a
    final dataset) in any format: the .meta.json beside it."""
    import json

    import numpy as np
    import scipy

    from sense7_coder import __version__

    libs = f"numpy {np.__version__}, scipy {scipy.__version__}, krippendorff "
    export_project(study, tmp_path / "long.xlsx", "long")
    props = openpyxl.load_workbook(tmp_path / "long.xlsx", read_only=True).properties
    assert props.creator == f"sense7-coder {__version__}"
    assert props.description is not None and libs in props.description
    export_project(study, tmp_path / "wide.sav", "wide")
    _, meta = pyreadstat.read_sav(tmp_path / "wide.sav", metadataonly=True)
    assert f"Written by sense7-coder {__version__}; computed with {libs}" in " ".join(
        meta.notes)
    summary = export_project(study, tmp_path / "agr.csv", "agreement",
                             Selection(), AgreementSettings(bootstrap=0))
    side = json.loads((tmp_path / "agr.csv.meta.json").read_text(encoding="utf-8"))
    assert side["computed_with"]["sense7-coder"] == __version__
    assert side["computed_with"]["numpy"] == np.__version__
    assert side["computed_with"]["scipy"] == scipy.__version__
    assert "agr.csv.meta.json" in summary.line()


def test_cli_refuses_unknown_extension_and_writes_nothing(study: Project, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    status = main(["export", str(study.path), str(tmp_path / "long.txt"), "--kind", "long"])
    assert status == 2
    assert "unknown export format '.txt'" in capsys.readouterr().err
    assert not (tmp_path / "long.txt").exists()
    assert main(["export", str(study.path), str(tmp_path / "long.txt"), "--kind", "long",
                 "--to", "xlsx"]) == 0
    assert sheet_rows(tmp_path / "long.txt")[0][0] == "coder"


def test_spss_names() -> None:
    assert spss_names(["value", "a b", "1st", "with", "x__y", "a_b"]) == [
        "value", "a_b", "v_1st", "with_", "x__y", "a_b_2"]
    assert len(spss_names(["a" * 80])[0].encode()) == 64


def test_a_table_wider_than_excel_allows_is_refused_before_writing(tmp_path: Path) -> None:
    """The wide export of a crowd (3,000 coders x 8 codes) is 24,000 columns; Excel opens
    no sheet wider than 16,384, so the file is refused up front with what to do."""
    wide = pd.DataFrame([[1] * 16_385], columns=[f"overall__coder{i}" for i in range(16_385)])
    out = tmp_path / "wide.xlsx"
    with pytest.raises(ExportError, match=r"16,385 columns do not fit an Excel sheet.*\.csv"):
        write_xlsx(wide, out, sheet="wide")
    assert not out.exists()
    write_xlsx(wide.iloc[:, :16_384], out, sheet="wide")  # the widest Excel opens
    header = next(openpyxl.load_workbook(out, read_only=True).active.iter_rows(values_only=True))
    assert len(header) == 16_384 and header[-1] == "overall__coder16383"


def test_a_text_longer_than_an_excel_cell_is_refused_not_cut(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An Excel cell holds at most 32,767 characters and openpyxl cut a longer turn text
    there without a word; the workbook is refused naming the row and column (CSV and SPSS
    keep the whole text)."""
    frame = pd.DataFrame({"coder": ["ann", "bo"], "text": ["short", "w" * 40_000]})
    out = tmp_path / "long.xlsx"
    with pytest.raises(ExportError) as e:
        write_xlsx(frame, out, sheet="long")
    assert str(e.value).startswith(
        f"{out}: row 3, column 'text': a text of 40,000 characters does not fit an Excel "
        "cell (at most 32,767)")
    assert ".csv" in str(e.value) and not out.exists()
    write_xlsx(frame.assign(text=["short", "w" * 32_767]), out, sheet="long")
    assert len(sheet_rows(out)[2][1]) == 32_767


def test_a_refused_workbook_leaves_no_traceback_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal is the one line the researcher sees: openpyxl's half-written sheet used
    to print 'Exception ignored in ... I/O operation on closed file' with a traceback when
    it was collected, after the message."""
    import gc
    import sys

    seen: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    frame = pd.DataFrame({"memo": ["short", "m" * 40_000, "after"]})
    with pytest.raises(ExportError):
        write_xlsx(frame, tmp_path / "memos.xlsx", sheet="memos")
    gc.collect()
    assert [str(s.exc_value) for s in seen] == []

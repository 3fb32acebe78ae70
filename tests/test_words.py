"""Small words said right: plurals, one naming of the coders, aligned columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.cli import main
from sense7_coder.domain.words import count, sentence


def test_counts_and_capitals() -> None:
    assert count(1, "memo") == "1 memo" and count(2, "memo") == "2 memos"
    assert count(0, "coded passage") == "0 coded passages"
    assert count(1200, "user rating") == "1,200 user ratings"
    assert count(3, "analysis") == "3 analyses" and count(2, "entry") == "2 entries"
    assert sentence("no codings match") == "No codings match"
    assert sentence("'x.csv' is empty") == "'x.csv' is empty"  # a quoted name stays as it is
    assert sentence("") == ""


def test_codebook_list_columns_line_up_for_long_keys(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "study.sense7"
    assert main(["init", str(path)]) == 0
    key = "a_very_long_code_key_for_warmth"
    assert main(["codebook", str(path), "add", key, "--kind", "ordinal", "--label", "Warmth"]) == 0
    capsys.readouterr()
    assert main(["codebook", str(path), "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 9
    # every row's label starts in the same column
    starts = {line.index(" ordinal ") for line in lines}
    assert len(starts) == 1, lines
    assert any(line.startswith(key + "  ") for line in lines)


def test_methods_paragraph_names_the_coders_once(demo_project: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["agreement", str(demo_project), "--coders", "alice,bashir,chen",
                 "--bootstrap", "0", "--format", "report"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3 coders (alice, bashir, chen)" in out
    assert "restricted to coders" not in out
    code = main(["agreement", str(demo_project), "--coders", "alice,bashir", "--bootstrap", "0",
                 "--format", "report"])
    out = capsys.readouterr().out
    assert "2 coders (alice, bashir)" in out and "restricted to coders" not in out

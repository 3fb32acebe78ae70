"""A codebook changed by hand inside a project file is refused in one line naming the file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sense7_coder.cli import main


def _edit_levels(path: Path, levels: str) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE codes SET levels = ? WHERE key = 'overall'", (levels,))
    conn.close()


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ('{"a": 1}', "code 'overall': the stored levels are not a JSON list of levels"),
        ("not json", "code 'overall': the stored levels are not a JSON list of levels"),
        ('[{"value": null}]', "code 'overall': stored level 1 has no whole-number or text value"),
        (json.dumps([{"value": i, "label": str(i)} for i in range(100_000)]),
         "code 'overall': 100,000 levels; a code has at most 1,000 levels"),
    ],
    ids=["object", "not-json", "null-value", "100k-levels"],
)
@pytest.mark.parametrize("command", ["info", "agreement"])
def test_bad_stored_levels_are_one_line(demo_project: Path, levels: str, message: str,
                                        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    _edit_levels(demo_project, levels)
    before = demo_project.read_bytes()
    assert main([command, str(demo_project)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{demo_project}: {message}" in err
    assert demo_project.read_bytes() == before  # refused, nothing written

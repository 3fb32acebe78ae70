"""A hostile user and a careless team against the project file: nothing lost, nothing run."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *map(str, args)],
                          capture_output=True, text=True, env=ENV, timeout=120)


def dump(path: Path) -> list[str]:
    """Everything the file holds, as SQL (read through SQLite, the -wal included)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# -- an output file is never a project file ---------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("p.json", ("codebook", "{p}", "export", "{p}")),
    ("p.qdc", ("codebook", "{p}", "export", "{p}")),
    ("p.qdpx", ("export-qdpx", "{p}", "{p}")),
])
def test_an_export_over_the_open_project_file_is_refused(
        demo_project: Path, name: str, args: tuple[str, ...]) -> None:
    project = demo_project.with_name(name)
    demo_project.rename(project)
    before = dump(project)
    line = one_line(cli(*(a.format(p=project) for a in args)))
    assert str(project) in line and "open project file" in line
    assert dump(project) == before


def test_an_export_over_another_project_file_is_refused(demo_project: Path,
                                                        tmp_path: Path) -> None:
    other = tmp_path / "colleague.json"
    shutil.copyfile(demo_project, other)
    before = dump(other)
    for args in (("codebook", demo_project, "export", other),
                 ("export", demo_project, "--kind", "long", other)):
        line = one_line(cli(*args))
        assert str(other) in line and "sense7-coder project file" in line
    assert dump(other) == before

"""A long read (agreement, export, analyses) sees one state of the project, while a coder
in another window keeps saving: the packed read runs in chunks and the export reads
several tables, and each statement on its own would see whatever was committed last."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import AgreementOptions, project_agreement
from sense7_coder.project.export import export_frame
from sense7_coder.store import frames

VALUES = {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 3, ("c3", 2, "overall"): 5,
          ("c4", 4, "overall"): 2, ("c4", 2, "overall"): 1}


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[tuple[Project, Project]]:
    """The reader's project and a second window on the same file."""
    project = make_project(tmp_path)
    code(project, "alice", VALUES)
    code(project, "bob", VALUES)
    other = Project.open(project.path, backup=False)
    other.set_coder("alice")
    yield project, other
    other.close()
    project.close()


def after_first_chunk(monkeypatch: pytest.MonkeyPatch, write: Callable[[], None]) -> None:
    """Run ``write`` (another window saving) once the first chunk of a packed read is in."""
    chunks = frames._chunks
    done = []

    def chunked(*args: Any) -> Iterator[tuple[int, int]]:
        for i, bounds in enumerate(chunks(*args)):
            if i == 1 and not done:
                done.append(True)
                write()
            yield bounds

    monkeypatch.setattr(frames, "PACK_ROWS", 2)
    monkeypatch.setattr(frames, "_chunks", chunked)


def recode(other: Project) -> Callable[[], None]:
    """Alice clears her last coding and gives it again: the same coding, a new row."""
    def write() -> None:
        unit = Unit("c4", 2)
        other.clear_value(unit, "overall")
        other.set_value(unit, "overall", 1)
    return write


def test_the_export_holds_every_coding_while_another_window_recodes(
        shared: tuple[Project, Project], monkeypatch: pytest.MonkeyPatch) -> None:
    project, other = shared
    after_first_chunk(monkeypatch, recode(other))
    table = export_frame(project, "long")
    alice = table[table["coder"] == "alice"]
    # every coding alice had before (and after) the change: none lost in between
    assert sorted(zip(alice["conversation_id"], alice["turn"], strict=True)) == sorted(
        (cid, pos) for cid, pos, _ in VALUES)


def test_agreement_counts_every_coding_while_another_window_recodes(
        shared: tuple[Project, Project], monkeypatch: pytest.MonkeyPatch) -> None:
    project, other = shared
    after_first_chunk(monkeypatch, recode(other))
    report = project_agreement(project, AgreementOptions(codes=("overall",), bootstrap=0))
    alpha = next(r for r in report.records if r.measure == "krippendorff_alpha"
                 and r.level != "applicability")
    assert alpha.n_units == len(VALUES)  # both coders on every unit: none went missing
    assert alpha.value == 1.0


def test_a_read_inside_no_snapshot_leaves_the_file_free_for_writers(
        shared: tuple[Project, Project]) -> None:
    project, other = shared
    frames.codings_frame(project.db)
    assert not project.db.conn.in_transaction  # the read transaction has ended
    other.set_value(Unit("c1", 2), "overall", 2)  # and another window writes at once

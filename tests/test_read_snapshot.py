"""A long read (agreement, export, analyses) sees one state of the project, while a coder
in another window keeps saving: the packed read runs in chunks and the export reads
several tables, and each statement on its own would see whatever was committed last."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.export import export_frame
from sense7_coder.project.selection import Selection
from sense7_coder.store import frames, packed

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
    """Run ``write`` (another window saving) once the first part of a long read is in: the
    first chunk of a rowid-ranged read, or the first whole read conversation by
    conversation (one statement; the reads after it are others)."""
    chunks, grouped = packed._chunks, frames._grouped
    done = []

    def once() -> None:
        if not done:
            done.append(True)
            write()

    def chunked(*args: Any) -> Iterator[tuple[int, int]]:
        for i, bounds in enumerate(chunks(*args)):
            if i == 1:
                once()
            yield bounds

    def grouped_then_write(*args: Any, **kwargs: Any) -> Any:
        read = grouped(*args, **kwargs)
        once()
        return read

    monkeypatch.setattr(packed, "PACK_ROWS", 2)
    monkeypatch.setattr(packed, "_chunks", chunked)
    monkeypatch.setattr(frames, "_grouped", grouped_then_write)


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
    report = project_agreement(project, Selection(codes=("overall",)),
                               AgreementSettings(bootstrap=0))
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


def test_agreement_sees_no_consensus_decided_after_its_codings_were_read(
        shared: tuple[Project, Project], monkeypatch: pytest.MonkeyPatch) -> None:
    """The codings and the consensus come from one state: an adjudicator in another
    window deciding a unit between the two reads is not half seen."""
    project, other = shared
    other.set_coder("judge", role="adjudicator")
    after_first_chunk(monkeypatch, lambda: other.set_consensus(Unit("c4", 2), "overall", 5))
    report = project_agreement(project, Selection(codes=("overall",)),
                               AgreementSettings(bootstrap=0))
    assert not [r for r in report.records if "consensus" in r.coders]
    # read again, the decision is there
    monkeypatch.undo()
    report = project_agreement(project, Selection(codes=("overall",)),
                               AgreementSettings(bootstrap=0))
    assert [r for r in report.records if "consensus" in r.coders]

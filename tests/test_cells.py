"""Typed cells and change sets: a new undoable kind is one class, every coding action names
what it touched, and undo/redo of every kind puts back exactly what was there."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.cells import (
    CELL_KINDS,
    Cell,
    CodingCell,
    ConsensusCell,
    DoneCell,
    MemoCell,
    RevisionCell,
    WriteContext,
    cell_class,
)
from sense7_coder.project.changes import EVERYTHING, NOTHING, Changes
from sense7_coder.store import codings as store_codings
from sense7_coder.store import meta as store_meta

TURN = Unit("c1", 2)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = make_project(tmp_path)
    p.set_coder("alice", "adjudicator")
    yield p
    p.close()


# -- the registry -------------------------------------------------------------------------

def test_the_existing_kinds_are_registered_by_name() -> None:
    for kind, cls in [("coding", CodingCell), ("revision", RevisionCell), ("done", DoneCell),
                      ("memo", MemoCell), ("consensus", ConsensusCell)]:
        assert cell_class(kind) is cls
    with pytest.raises(KeyError, match="no cell kind 'tag'.*coding"):
        cell_class("tag")


def test_an_incomplete_kind_is_refused_when_it_is_defined() -> None:
    known = dict(CELL_KINDS)
    with pytest.raises(TypeError, match="does not define write, changes"):
        @dataclasses.dataclass(frozen=True, kw_only=True)
        class HalfCell(Cell):
            kind: ClassVar[str] = "half"
            name: str

            def read(self, db: Any) -> Any:
                return None

            def place(self) -> str:
                return "here"

            def location(self) -> tuple[str, int, int]:
                return "c1", 0, 0
    with pytest.raises(TypeError, match="needs its own kind"):
        class NamelessCell(CodingCell):
            pass
    with pytest.raises(TypeError, match="kind 'memo' exists already"):
        class OtherMemo(MemoCell):
            kind: ClassVar[str] = "memo"
    assert known == CELL_KINDS


def note_kind() -> type[Cell]:
    """A kind made in one class: a project setting, written through the store."""

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class NoteCell(Cell):
        kind: ClassVar[str] = "test_note"
        name: str

        def read(self, db: Any) -> Any:
            return store_meta.get_meta(db, self.name, None)

        def write(self, ctx: WriteContext, value: Any, made: Any = None) -> None:
            store_meta.set_meta(ctx.db, self.name, value)

        def place(self) -> str:
            return f"the note '{self.name}'"

        def location(self) -> tuple[str, int, int]:
            return "", 0, 0

        def changes(self) -> Changes:
            return Changes(settings=True)

    return NoteCell


def test_a_new_kind_is_one_class_and_undoes_redoes_and_guards_like_the_others(
        tmp_path: Path) -> None:
    make_project(tmp_path).close()
    a = Project.open(tmp_path / "study.sense7", backup=False)
    b = Project.open(tmp_path / "study.sense7", backup=False)
    try:
        note = note_kind()
        assert cell_class("test_note") is note  # defining it registered it
        cmd = a.apply("write the note", [note(name="note", after="first")])
        assert cmd.changes == Changes(settings=True)
        assert cmd.cells[0].before is None and a.setting("note") == "first"
        assert a.undo() is cmd and a.setting("note") is None
        assert a.redo() is cmd and a.setting("note") == "first"
        b.set_setting("note", "by the other window")
        with pytest.raises(ProjectError, match="the note 'note' was changed in another window"):
            a.undo()
        assert a.setting("note") == "by the other window"
    finally:
        CELL_KINDS.pop("test_note", None)
        a.close()
        b.close()


def test_cells_are_frozen_and_name_their_place(project: Project) -> None:
    cmd = project.set_value(TURN, "overall", 3)
    cell = cmd.cells[0]
    assert isinstance(cell, CodingCell)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cell.after = 4  # type: ignore[misc]
    assert (cell.coder, cell.conversation_id, cell.position, cell.sentence, cell.code) == \
        ("alice", "c1", 2, 0, "overall")
    assert cell.place() == "alice's 'overall' on conversation 'c1', turn 2"
    assert cell.before is store_codings.MISSING and cell.after == 3
    assert cell.made_before is None and cell.made_after == ("coded", 0, None)


# -- every action names what it touched -----------------------------------------------------

def test_every_coding_action_returns_the_changes_it_made(project: Project) -> None:
    assert project.set_value(TURN, "overall", 3).changes == Changes(
        units=frozenset({("c1", 2, 0)}))
    assert project.clear_value(TURN, "overall").changes.units == {("c1", 2, 0)}
    assert project.set_done("c1", 2).changes == Changes(done=frozenset({("c1", 2)}))
    assert project.set_memo(Unit("c1", 4), "warm").changes == Changes(
        memos=frozenset({("c1", 4, 0)}))
    assert project.set_consensus(TURN, "overall", 2).changes == Changes(
        consensus=frozenset({("c1", 2, 0)}))
    many = project.set_consensus_many([(TURN, "overall", 3), (Unit("c2", 4), "overall", 1)])
    assert many.changes.consensus == {("c1", 2, 0), ("c2", 4, 0)}
    assert many.changes.conversation_ids == {"c1", "c2"}
    assert project.clear_consensus(TURN, "overall").changes.consensus == {("c1", 2, 0)}
    # undo and redo hand back the command, whose changes are the same both ways
    undone = project.undo()
    assert undone is not None and undone.changes.consensus == {("c1", 2, 0)}
    redone = project.redo()
    assert redone is undone


def test_undo_and_redo_of_every_kind_put_back_exactly_what_was_there(project: Project) -> None:
    def snapshot() -> tuple[Any, ...]:
        db = project.db
        return (store_codings.get_coding(db, "alice", TURN, "overall"),
                store_codings.get_provenance(db, "alice", TURN, "overall"),
                store_codings.get_done(db, "alice", "c1", 2),
                store_codings.get_memo(db, "alice", TURN),
                ConsensusCell.same(store_codings.get_consensus(db, TURN, "overall"), None))

    project.set_value(TURN, "overall", 4, suggested=True)  # a provenance worth keeping
    actions = [
        lambda: project.set_value(TURN, "overall", 2),
        lambda: project.clear_value(TURN, "overall"),
        lambda: project.set_done("c1", 2),
        lambda: project.set_memo(TURN, "a memo"),
        lambda: project.set_consensus(TURN, "overall", 5, "why"),
        lambda: project.clear_consensus(TURN, "overall"),
    ]
    for act in actions:
        before = snapshot()
        act()
        after = snapshot()
        assert after != before
        project.undo()
        assert snapshot() == before
        project.redo()
        assert snapshot() == after


def test_a_change_after_the_reveal_is_a_revision_cell_that_undoes(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    try:
        project.set_coder("lead", "adjudicator")
        project.blind_coding = True
        project.lock_after_reveal = False
        code(project, "alice", {("c1", 2, "overall"): 5}, done=[("c1", 2)])
        cmd = project.set_value(TURN, "overall", 1)
        cell = cmd.cells[0]
        assert isinstance(cell, RevisionCell) and cmd.changes.units == {("c1", 2, 0)}
        assert "after the reveal" in cell.place()
        project.undo()
        assert store_codings.get_revision(project.db, "alice", TURN, "overall") \
            is store_codings.MISSING
        project.redo()
        assert store_codings.get_revision(project.db, "alice", TURN, "overall") == 1
        assert store_codings.get_coding(project.db, "alice", TURN, "overall") == 5
    finally:
        project.close()


# -- the Changes value ----------------------------------------------------------------------

def test_changes_combine_and_answer_what_a_view_asks() -> None:
    a = Changes(units=frozenset({("c1", 2, 0)}))
    b = Changes(done=frozenset({("c2", 4)}), codebook=False)
    both = a | b
    assert both.units == a.units and both.done == b.done
    assert both.touches("c1") and both.touches("c2") and not both.touches("c3")
    assert both.progress and not a.progress
    assert NOTHING.empty and not both.empty
    assert EVERYTHING.touches("anything") and EVERYTHING.describe() == "everything"
    assert Changes(codebook=True).touches("c9")
    assert both.describe() == "1 unit, 1 done mark"
    assert Changes.union([a, b, NOTHING]) == both


def test_the_other_operations_return_what_they_changed(project: Project, tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import code_from_dict
    from sense7_coder.project.assignments import assign
    from sense7_coder.project.codebook import editing as codebook_ops
    from sense7_coder.project.imports import import_codings, import_files

    new = code_from_dict({"key": "tone", "label": "Tone", "kind": "binary"})
    assert codebook_ops.add_code(project, new) == Changes(codebook=True)
    assert codebook_ops.retire_code(project, "tone") == Changes(codebook=True)
    assert project.set_coder("bob") == Changes(coders=True)
    project.set_coder("alice")
    assert project.set_role("bob", "adjudicator") == Changes(coders=True)
    assert project.set_role("bob", "adjudicator") == NOTHING  # already
    assert project.set_setting("require_all_codes", "1") == Changes(settings=True)
    assert assign(project, ["bob"]).changes == Changes(coders=True)
    assert assign(project, ["bob"]).changes == NOTHING  # nothing new to assign
    codings = tmp_path / "codings.csv"
    codings.write_text("coder,conversation_id,turn,code,value\ncarol,c1,2,overall,3\n",
                       encoding="utf-8")
    assert import_codings(project, codings, dry_run=True).changes == NOTHING
    assert import_codings(project, codings).changes == EVERYTHING
    chats = tmp_path / "study-chats.jsonl"  # written by make_project: all present already
    assert import_files(project, [chats]).changes == NOTHING

"""Rationales on single values: written from the keyboard in the code row, shown beside the
disagreeing values in the reconciliation queue and a round's review, hidden by blinding like
the values, exported."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_support import code, make_project
from PySide6.QtCore import Qt

from sense7_coder.cli import main
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project, rationales
from sense7_coder.project.reconcile import disagreements
from sense7_coder.project.selection import Selection

CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def study(tmp_path: Path) -> Project:
    project = make_project(tmp_path)
    project.set_coder("lead", "adjudicator")
    code(project, "alice", {("c1", 2, "overall"): 5, ("c1", 4, "overall"): 3})
    code(project, "bob", {("c1", 2, "overall"): 1, ("c1", 4, "overall"): 3})
    return project


def test_a_rationale_explains_the_coders_own_value_and_shows_where_values_are_discussed(
        study: Project, tmp_path: Path) -> None:
    study.set_coder("alice")
    rationales.set_rationale(study, Unit("c1", 2), "overall", "  names the feeling twice  ")
    assert rationales.own(study, "c1") == {(2, 0, "overall"): "names the feeling twice"}
    with pytest.raises(ProjectError, match="'alice' has no value there"):
        rationales.set_rationale(study, Unit("c2", 2), "overall", "why")
    with pytest.raises(ProjectError, match="U\\+000A"):
        rationales.set_rationale(study, Unit("c1", 4), "overall", "two\nlines")
    with pytest.raises(ProjectError, match="at most 500 characters"):
        rationales.set_rationale(study, Unit("c1", 4), "overall", "x" * 501)
    study.set_coder("bob")
    rationales.set_rationale(study, Unit("c1", 2), "overall", "generic comfort only")
    assert rationales.own(study, "c1") == {(2, 0, "overall"): "generic comfort only"}
    study.set_coder("lead")
    (d,) = disagreements(study, Selection(codes=["overall"]))
    assert d.rationales == {"alice": "names the feeling twice", "bob": "generic comfort only"}
    assert d.to_dict()["rationales"]["bob"] == "generic comfort only"
    out = tmp_path / "why.csv"
    path = study.path
    study.close()
    assert main(["export", str(path), str(out), "--kind", "rationales", "--as", "lead"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "coder,conversation_id,turn,sentence,code,value,rationale,updated_at"
    assert lines[1].startswith("alice,c1,2,0,overall,5,names the feeling twice,")
    with Project.open(path, backup=False) as project:
        project.set_coder("alice")
        rationales.set_rationale(project, Unit("c1", 2), "overall", "")  # empty: removed
        assert rationales.own(project, "c1") == {}


def test_blinding_hides_the_other_coders_rationales_like_their_values(study: Project) -> None:
    study.set_coder("alice")
    rationales.set_rationale(study, Unit("c1", 2), "overall", "names the feeling")
    study.set_coder("lead")
    study.blind_coding = True
    study.set_coder("bob")
    assert rationales.own(study, "c1") == {}  # never alice's
    with pytest.raises(ProjectError, match="codes blind"):
        rationales.visible(study)
    with pytest.raises(ProjectError, match="codes blind"):
        disagreements(study)
    study.set_coder("lead")
    assert rationales.visible(study)[("alice", "c1", 2, 0, "overall")] == "names the feeling"


def test_ctrl_r_in_the_code_row_writes_the_rationale_without_leaving_it(
        gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    key = ws.coding.focused_key
    gui.press(w, Qt.Key.Key_R, modifier=CTRL)  # no value yet: nothing to explain
    assert ws.rationales.editing is None
    gui.press(w, "3")
    ws.coding.focus_code(key)  # back on the code (auto-advance may have moved on)
    gui.press(w, Qt.Key.Key_R, modifier=CTRL)
    assert ws.rationales.editing == key
    line = ws.rationales.lines[ws.rationales.editing]
    assert line.edit.hasFocus()
    gui.press(w, "mirrors the user's worry")
    gui.press(w, Qt.Key.Key_Return)
    assert line.label.text() == "why: mirrors the user's worry" and line.edit.isHidden()
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dana")
        assert list(rationales.own(p, ws.conversation_id).values()) == \
            ["mirrors the user's worry"]
    assert not line.edit.hasFocus()  # the keys went back to the coding panel
    w.close()


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    import sqlite3

    con = sqlite3.connect(path)
    try:
        return [tuple(r) for r in con.execute(sql)]
    finally:
        con.close()


_WHY = "SELECT coder, conversation_id, position, text FROM value_rationales ORDER BY 1, 2, 3"


def _blind_study(folder: Path) -> Path:
    """A blind study led by 'lee': ana and bob coded c1 turn 2 and finished it (revealed to
    them: locked), each with a rationale; c1 and c2 are assigned to both."""
    from sense7_coder.project import ConversationFilter
    from sense7_coder.project.assignments import assign

    project = make_project(folder)
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    for coder, value in (("ana", 3), ("bob", 2)):
        code(project, coder, {("c1", 2, "overall"): value}, done=[("c1", 2)])
        rationales.set_rationale(project, Unit("c1", 2), "overall", f"{coder}'s first reason")
    project.set_coder("lee")
    assign(project, ["ana", "bob"], overlap=1.0,
           conversations=ConversationFilter(attributes={"week": "1"}))
    path = project.path
    project.close()
    return path


def test_a_package_carries_its_coders_rationales_and_the_merge_brings_back_only_hers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    lead = _blind_study(tmp_path)
    package = tmp_path / "ana.sense7"
    assert main(["package", str(lead), "ana", str(package), "--as", "lee"]) == 0
    assert _rows(package, _WHY) == [("ana", "c1", 2, "ana's first reason")]  # never bob's
    with Project.open(package, backup=False) as p:
        p.set_value(Unit("c2", 4), "overall", 5)
        rationales.set_rationale(p, Unit("c2", 4), "overall", "the plan helps")
        # her locked value's rationale, changed where nothing was revealed
        rationales.set_rationale(p, Unit("c1", 2), "overall", "changed my mind")
    con = sqlite3.connect(package)
    with con:  # what she can do with sqlite3: write bob's reason, and a rationale with no value
        con.execute("INSERT INTO value_rationales VALUES ('bob', 'c1', 2, 0, 'overall', "
                    "'forged', '2030-01-01T00:00:00Z')")
        con.execute("INSERT INTO value_rationales VALUES ('ana', 'c2', 2, 0, 'overall', "
                    "'nothing to explain', '2030-01-01T00:00:00Z')")
        con.execute("INSERT INTO value_rationales VALUES ('ana', 'c2', 6, 0, 'overall', "
                    "'two' || char(10) || 'lines', '2030-01-01T00:00:00Z')")
    con.close()
    before = _rows(lead, _WHY)
    capsys.readouterr()
    assert main(["merge", str(lead), str(package), "--as", "lee"]) == 2
    err = capsys.readouterr().err
    assert "value_rationales row 5: field 'text'" in err and "U+000A" in err
    assert _rows(lead, _WHY) == before
    con = sqlite3.connect(package)
    with con:
        con.execute("DELETE FROM value_rationales WHERE position = 6")
    con.close()
    assert main(["merge", str(lead), str(package), "--as", "lee"]) == 0
    out = capsys.readouterr().out
    assert "left out: 1 rationales of other coders than 'ana'" in out
    assert "left out: 1 rationale of values neither file holds" in out
    assert _rows(lead, _WHY) == [("ana", "c1", 2, "ana's first reason"),  # locked: kept
                                 ("ana", "c2", 4, "the plan helps"),
                                 ("bob", "c1", 2, "bob's first reason")]


def test_a_lead_merging_a_whole_project_brings_every_coders_rationales(tmp_path: Path
                                                                      ) -> None:
    from sense7_coder.project.merge.merging import merge

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    source = make_project(tmp_path / "a")
    code(source, "alice", {("c1", 2, "overall"): 5})
    rationales.set_rationale(source, Unit("c1", 2), "overall", "names the feeling")
    code(source, "bob", {("c1", 2, "overall"): 1})
    rationales.set_rationale(source, Unit("c1", 2), "overall", "generic comfort")
    source.close()
    target = make_project(tmp_path / "b")
    target.set_coder("lead", "adjudicator")
    report = merge(target, [source.path])
    assert "2 rationales" in report.lines()[0]
    assert _rows(target.path, _WHY) == [("alice", "c1", 2, "names the feeling"),
                                        ("bob", "c1", 2, "generic comfort")]
    target.close()

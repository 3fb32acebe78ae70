"""Codebook versions: every change to what a code means is a new numbered version (dated,
by whom), every coding records the version it was set under, two versions can be compared,
the codebook exported at any version, and agreement restricted to one version's codings."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement import ALPHA
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.codebook.codes import Level
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.codebook import versions as cv
from sense7_coder.project.codebook.editing import reorder_codes, update_code
from sense7_coder.project.selection import Selection


def revise(project: Project, **fields: object) -> None:
    changed = copy.deepcopy(project.code("overall"))
    for name, value in fields.items():
        setattr(changed, name, value)
    update_code(project, changed)


def test_a_change_of_meaning_is_a_new_version_and_codings_record_theirs(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 3}, role="adjudicator")
    assert [v.number for v in cv.versions(project)] == [1]  # the first coding made it
    revise(project, description="Revised after round 1")
    levels = copy.deepcopy(project.code("overall").levels)
    levels[2] = Level(levels[2].value, levels[2].label, "a clearer anchor")
    revise(project, levels=levels)
    revise(project, include="include: reflections of feeling")
    reorder_codes(project, list(reversed([c.key for c in project.codebook.codes])))
    revise(project, color="#ff0000", shortcut="Q")  # no change of meaning
    found = cv.versions(project)
    assert [v.number for v in found] == [1, 2, 3, 4]
    assert [v.by for v in found] == [None, "alice", "alice", "alice"]  # 1: as it stood
    assert all(v.at.endswith("Z") for v in found)
    assert found[1].changed == "changed: overall"
    code(project, "bob", {("c1", 2, "overall"): 4, ("c1", 4, "overall"): 2})
    code(project, "alice", {("c1", 4, "overall"): 2})
    rows = project.db.execute("SELECT coder, position, codebook_version FROM codings "
                              "WHERE code = 'overall' ORDER BY coder, position").fetchall()
    assert rows == [("alice", 2, 1), ("alice", 4, 4), ("bob", 2, 4), ("bob", 4, 4)]
    assert {v.number: v.codings for v in cv.versions(project)}[1] == 1
    lines = cv.diff(project, 1, 4)
    assert "~ overall: description" in lines[0] and "'Revised after round 1'" in lines[0]
    assert any("level 3 anchor" in line and "'a clearer anchor'" in line for line in lines)
    assert any(line.startswith("~ overall: include") for line in lines)
    assert cv.diff(project, 4, 4) == []
    assert cv.codebook_at(project, 1).code("overall").description != "Revised after round 1"
    with pytest.raises(ProjectError, match="codebook version 9: no such version; the project "
                                           "has versions 1 to 4"):
        cv.codebook_at(project, 9)
    project.close()


def test_agreement_restricted_to_one_version_uses_only_its_codings(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 5}, role="adjudicator")
    code(project, "bob", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 5})
    project.set_coder("alice")  # the lead revises the codebook
    revise(project, description="round 2 wording")
    code(project, "alice", {("c3", 2, "overall"): 1, ("c3", 4, "overall"): 2})
    code(project, "bob", {("c3", 2, "overall"): 4, ("c3", 4, "overall"): 5})
    project.set_coder("alice")

    def alpha(version: int | None) -> tuple[float, int]:
        report = project_agreement(project,
                                   Selection(codes=["overall"], include_consensus=False,
                                             codebook_version=version),
                                   AgreementSettings(bootstrap=0))
        rec = next(r for r in report.records if r.measure == ALPHA and r.level == "ordinal")
        return rec.value, rec.n_units

    assert alpha(1) == (1.0, 2)
    assert alpha(2)[1] == 2 and alpha(2)[0] < 0
    assert alpha(None)[1] == 4
    with pytest.raises(ProjectError, match="no such version"):
        alpha(3)
    project.close()


def test_the_command_line_lists_compares_and_exports_versions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 3}, role="adjudicator")
    revise(project, label="Overall empathy (revised)")
    path = project.path
    project.close()
    assert main(["codebook", str(path), "versions"]) == 0
    out = capsys.readouterr().out
    assert "the codebook as it stood when versions began" in out and "changed: overall" in out
    assert main(["codebook", str(path), "diff", "1", "2"]) == 0
    out = capsys.readouterr().out
    assert "1 difference" in out and "~ overall: label" in out and "(revised)" in out
    old = tmp_path / "v1.json"
    assert main(["codebook", str(path), "export", str(old), "--version", "1"]) == 0
    book = json.loads(old.read_text(encoding="utf-8"))
    assert next(c for c in book["codes"] if c["key"] == "overall")["label"] != \
        "Overall empathy (revised)"
    qdc = tmp_path / "v2.qdc"
    assert main(["codebook", str(path), "export", str(qdc), "--version", "2"]) == 0
    assert "Overall empathy (revised)" in qdc.read_text(encoding="utf-8")
    assert main(["codebook", str(path), "export", str(tmp_path / "x.json"), "--version",
                 "7"]) == 2
    assert "no such version" in capsys.readouterr().err


def test_a_version_edited_by_hand_is_refused_with_its_row(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 3})
    path = project.path
    project.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE codebook_versions SET codebook = '{not json' WHERE number = 1")
    conn.close()
    with Project.open(path, backup=False) as project, \
            pytest.raises(ProjectError, match=r"codebook version 1 \(table codebook_versions\)"):
        cv.codebook_at(project, 1)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE codebook_versions SET by = x'00' WHERE number = 1")
    conn.close()
    with pytest.raises(ProjectError, match="codebook_versions"):
        Project.open(path, backup=False)



def test_a_project_that_starts_without_codes_has_an_empty_first_version(tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import Code
    from sense7_coder.project.codebook.editing import add_code

    with Project.create(tmp_path / "empty.sense7") as project:
        add_code(project, Code("warmth", "Warmth", kind="binary",
                               levels=[Level(0, "absent"), Level(1, "present")]))
        assert [v.changed for v in cv.versions(project)] == [
            "the codebook as it stood when versions began", "changed: warmth"]
        assert cv.codebook_at(project, 1).codes == []
        assert cv.diff(project, 1, 2) == ["+ warmth: added ('Warmth', binary, levels 0, 1)"]


def test_a_merged_value_records_the_version_its_code_meant_what_it_meant_in_the_file(
        tmp_path: Path) -> None:
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import ConversationFilter
    from sense7_coder.project.assignments import assign
    from sense7_coder.project.merge.merging import merge
    from sense7_coder.project.package import make_package

    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    assign(project, ["ana", "bob"], overlap=1.0,
           conversations=ConversationFilter(attributes={"week": "1"}))
    make_package(project, "ana", tmp_path / "ana.sense7")  # under version 1
    revise(project, description="Revised after round 1")  # version 2
    make_package(project, "bob", tmp_path / "bob.sense7")  # under version 2
    for coder, value in (("ana", 3), ("bob", 4)):
        with Project.open(tmp_path / f"{coder}.sense7", backup=False) as p:
            p.set_value(Unit("c1", 2), "overall", value)
    include = project.code("overall").include
    revise(project, include="include: reflections of feeling")  # version 3
    con = sqlite3.connect(tmp_path / "ana.sense7")
    with con:  # a version edited by hand: her codebook as it stands says what 'overall' meant
        con.execute("UPDATE codebook_versions SET codebook = '{'")
    con.close()
    merge(project, [tmp_path / "ana.sense7", tmp_path / "bob.sense7"])
    rows = project.db.execute("SELECT coder, value, codebook_version FROM codings "
                              "ORDER BY coder").fetchall()
    # each value records the newest version whose 'overall' meant what it meant in its package
    assert rows == [("ana", 3, 1), ("bob", 4, 2)]
    revise(project, include=include)  # back to what version 2 said: version 4
    project.set_coder("bob")
    project.set_value(Unit("c1", 2), "overall", 5)  # bob's fix, made in the lead's file
    project.set_coder("lee")
    with Project.open(tmp_path / "bob.sense7", backup=False) as p:
        p.set_value(Unit("c1", 2), "overall", 2)
    merge(project, [tmp_path / "bob.sense7"], on_conflict="keep-source")
    assert project.db.execute("SELECT value, codebook_version FROM codings WHERE coder = "
                              "'bob'").fetchall() == [(2, 4)]  # version 4 means what 2 did
    assert {v.number: v.codings for v in cv.versions(project)} == {1: 1, 2: 0, 3: 0, 4: 1}
    project.close()

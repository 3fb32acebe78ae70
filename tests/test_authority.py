"""Who may write what, on every path in: a coder holding her package and sqlite3 cannot
land a value as anyone else or as the lead, cannot change a locked value through any
command, and cannot learn another coder's values from a dry run (project/authority.py)."""

from __future__ import annotations

import csv
import shutil
import sqlite3
from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project


def study(folder: Path) -> Path:
    """A blind study led by 'lee': bob coded c1 turn 2 (2) and finished it; ana coded c1
    turn 2 (3) blind and finished it (revealed to her: locked); ana's c2 turn 2 was
    imported (4); c1 and c2 are assigned to ana and bob."""
    project = make_project(folder)
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    code(project, "bob", {("c1", 2, "overall"): 2}, done=[("c1", 2)])
    code(project, "ana", {("c1", 2, "overall"): 3}, done=[("c1", 2)])
    project.set_coder("lee")
    rows = folder / "earlier.csv"
    rows.write_text("coder,conversation_id,turn,code,value\nana,c2,2,overall,4\n",
                    encoding="utf-8")
    from sense7_coder.project import ConversationFilter
    from sense7_coder.project.assignments import assign
    from sense7_coder.project.imports import import_codings

    import_codings(project, rows)
    assign(project, ["ana", "bob"], overlap=1.0,
           conversations=ConversationFilter(attributes={"week": "1"}))  # c1 and c2
    path = project.path
    project.close()
    return path


def rows_of(path: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        return [tuple(r) for r in con.execute(sql)]
    finally:
        con.close()


def everything(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """What authority decides about: coders, values, decisions, done marks, history."""
    return {t: sorted(rows_of(path, f"SELECT * FROM {t}"), key=repr)
            for t in ("coders", "codings", "revisions", "consensus", "turn_status", "history",
                      "memos", "assignments")}


def hand_edit(package: Path, *, drop_package_coder: bool = False) -> None:
    """What a coder can do to her package with sqlite3."""
    con = sqlite3.connect(package)
    with con:
        con.execute("INSERT INTO coders(name, role, created_at) VALUES "
                    "('mallory', 'adjudicator', '2020-01-01T00:00:00')")
        con.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                    "value, updated_at, source, blind) VALUES "
                    "('mallory', 'c1', 4, 0, 'overall', 1, '2030-01-01T00:00:00', 'coded', 1)")
        con.execute("INSERT INTO consensus(conversation_id, position, sentence, code, value, "
                    "adjudicator, rationale, decided_at) VALUES "
                    "('c1', 2, 0, 'overall', 5, 'lee', 'agreed', '2030-01-01T00:00:00')")
        con.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                    "value, updated_at, source, blind) VALUES "
                    "('bob', 'c1', 4, 0, 'overall', 5, '2030-01-01T00:00:00', 'coded', 1)")
        con.execute("INSERT INTO turn_status(coder, conversation_id, position, done, "
                    "updated_at) VALUES ('bob', 'c2', 2, 1, '2030-01-01T00:00:00')")
        con.execute("UPDATE codings SET blind = 1, source = 'coded' WHERE coder = 'ana'")
        con.execute("INSERT INTO history(at, coder, action, kind, conversation_id, position, "
                    "sentence, code, before, after, source, actor) VALUES "
                    "('2020-01-01T00:00:00', 'lee', 'set', 'coding', 'c1', 2, 0, 'overall', "
                    "NULL, '5', 'edit', 'lee')")
        # her own change of a turn revealed to her in the lead's project
        con.execute("UPDATE codings SET value = 1, updated_at = '2030-01-01T00:00:00' "
                    "WHERE coder = 'ana' AND conversation_id = 'c1' AND position = 2")
        if drop_package_coder:
            con.execute("DELETE FROM meta WHERE key = 'package_coder'")
    con.close()


@pytest.fixture
def lead_and_package(tmp_path: Path) -> tuple[Path, Path]:
    lead = study(tmp_path)
    package = tmp_path / "ana.sense7"
    assert main(["package", str(lead), "ana", str(package), "--as", "lee"]) == 0
    with Project.open(package, backup=False) as p:  # her own work, coded blind there
        p.set_value(Unit("c2", 4), "overall", 5)
        p.set_memo(Unit("c2", 4), "the plan helps")
        p.set_done("c2", 4)
    return lead, package


def test_a_hand_edited_package_lands_only_its_coders_own_work(
        lead_and_package: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    lead, package = lead_and_package
    hand_edit(package)
    before = everything(lead)
    # in a blind project a merge is a lead's, as every command that shows coders' values
    assert main(["merge", str(lead), str(package)]) == 2
    assert main(["merge", str(lead), str(package), "--as", "bob"]) == 2
    assert everything(lead) == before
    capsys.readouterr()
    assert main(["merge", str(lead), str(package), "--as", "lee",
                 "--on-conflict", "newest"]) == 0
    out = capsys.readouterr().out
    after = everything(lead)
    assert "mallory" not in repr(after)
    assert after["coders"] == before["coders"]
    assert after["consensus"] == [] and after["assignments"] == before["assignments"]
    assert not [h for h in after["history"] if str(h[1]).startswith("2020")]
    codings = {r[:3]: r for r in rows_of(
        lead, "SELECT coder, conversation_id, position, value, source, blind, origin "
        "FROM codings")}
    assert codings[("bob", "c1", 2)][3] == 2 and ("bob", "c1", 4) not in codings
    assert ("bob", "c2", 2) not in {r[:3] for r in after["turn_status"]}
    # ana's locked value stays as she set it blind; her imported one stays imported
    assert codings[("ana", "c1", 2)][3:] == (3, "coded", 1, None)
    assert codings[("ana", "c2", 2)][3:] == (4, "imported", 0, "earlier.csv")
    # what she coded in her package lands, saying how it was made and where it came from
    assert codings[("ana", "c2", 4)][3:] == (5, "coded", 1, "ana.sense7")
    assert rows_of(lead, "SELECT text FROM memos WHERE coder = 'ana'") == [("the plan helps",)]
    for said in ("left out: mallory", "consensus decision", "history event",
                 "of other coders than 'ana'", "refused: 1 value on turns revealed to ana"):
        assert said in out, said


def test_a_package_without_its_coder_is_a_whole_project_only_a_named_lead_merges(
        lead_and_package: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    lead, package = lead_and_package
    hand_edit(package, drop_package_coder=True)
    before = everything(lead)
    with Project.open(lead, backup=False) as p:  # even where nothing is blind
        p.set_coder("lee")
        p.blind_coding = False
    unblinded = everything(lead)
    assert main(["merge", str(lead), str(package)]) == 2
    assert "whole project" in capsys.readouterr().err
    assert main(["merge", str(lead), str(package), "--as", "ana"]) == 2
    assert everything(lead) == unblinded
    assert before["codings"] == unblinded["codings"]


def test_a_package_of_a_coder_the_target_lacks_is_refused(
        lead_and_package: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    lead, package = lead_and_package
    con = sqlite3.connect(package)
    with con:
        con.execute("UPDATE meta SET value = 'zed' WHERE key = 'package_coder'")
        con.execute("UPDATE codings SET coder = 'zed'")
    con.close()
    before = everything(lead)
    assert main(["merge", str(lead), str(package), "--as", "lee"]) == 2
    assert "not a coder of the target" in capsys.readouterr().err
    assert everything(lead) == before


def test_a_dry_run_by_a_coder_of_a_blind_project_is_refused(
        lead_and_package: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    lead, package = lead_and_package
    copy = package.with_name("copy.sense7")
    shutil.copy(lead, copy)
    for who in ("bob", "ana"):
        assert main(["merge", str(lead), str(copy), "--dry-run", "--as", who]) == 2
        captured = capsys.readouterr()
        assert "target has" not in captured.out + captured.err
        assert "only a lead" in captured.err


def test_import_codings_in_a_package_writes_only_as_its_coder(
        lead_and_package: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _lead, package = lead_and_package
    rows = tmp_path / "as_bob.csv"
    rows.write_text("coder,conversation_id,turn,code,value\nana,c2,4,overall,2\n"
                    "bob,c1,4,overall,1\n", encoding="utf-8")
    before = everything(package)
    assert main(["import-codings", str(package), str(rows)]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "coder package of 'ana'" in err
    assert everything(package) == before
    assert rows_of(package, "SELECT name FROM coders") == [("ana",)]


def test_no_command_changes_a_locked_value(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    lead = study(tmp_path)
    locked = "SELECT value, source, blind FROM codings WHERE coder = 'ana' " \
             "AND conversation_id = 'c1' AND position = 2"
    assert rows_of(lead, locked) == [(3, "coded", 1)]
    rows = tmp_path / "fix.csv"
    rows.write_text("coder,conversation_id,turn,code,value\nana,c1,2,overall,1\n",
                    encoding="utf-8")
    ratings = tmp_path / "ana_ratings.csv"
    ratings.write_text("conversation_id,turn,overall\nc1,2,1\n", encoding="utf-8")
    # as the lead, and as ana herself
    for who in ("lee", "ana"):
        assert main(["import-codings", str(lead), str(rows), "--as", who]) == 2
        assert "locked" in capsys.readouterr().err
        assert main(["import-ratings", str(lead), str(ratings), "--coder", "ana",
                     "--as", who]) == 2
        assert "locked" in capsys.readouterr().err
    # an edited copy of the project, merged keeping the newest value
    copy = tmp_path / "copy.sense7"
    shutil.copy(lead, copy)
    con = sqlite3.connect(copy)
    with con:
        con.execute("UPDATE codings SET value = 1, blind = 1, updated_at = "
                    "'2030-01-01T00:00:00' WHERE coder = 'ana'")
    con.close()
    assert main(["merge", str(lead), str(copy), "--on-conflict", "newest", "--as", "ana"]) == 2
    assert main(["merge", str(lead), str(copy), "--on-conflict", "newest", "--as", "lee"]) == 0
    assert "refused: 1 value on turns revealed to ana" in capsys.readouterr().out
    assert rows_of(lead, locked) == [(3, "coded", 1)]
    assert rows_of(lead, "SELECT COUNT(*) FROM revisions") == [(0,)]


def test_with_the_lock_off_an_imported_change_goes_beside_the_blind_value(
        tmp_path: Path) -> None:
    lead = study(tmp_path)
    with Project.open(lead, backup=False) as p:
        p.set_coder("lee")
        p.lock_after_reveal = False
    rows = tmp_path / "fix.csv"
    rows.write_text("coder,conversation_id,turn,code,value\nana,c1,2,overall,1\n",
                    encoding="utf-8")
    assert main(["import-codings", str(lead), str(rows), "--as", "ana"]) == 0
    assert rows_of(lead, "SELECT value, source, blind FROM codings WHERE coder = 'ana' AND "
                   "conversation_id = 'c1' AND position = 2") == [(3, "coded", 1)]
    assert rows_of(lead, "SELECT coder, conversation_id, position, value FROM revisions") \
        == [("ana", "c1", 2, 1)]


def test_a_coder_imports_only_her_own_values(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    lead = study(tmp_path)
    rows = tmp_path / "mine.csv"
    rows.write_text("coder,conversation_id,turn,code,value\nana,c3,2,overall,2\n"
                    "bob,c3,2,overall,2\n", encoding="utf-8")
    before = everything(lead)
    for who in ([], ["--as", "ana"]):
        assert main(["import-codings", str(lead), str(rows), *who]) == 2
        assert "line" in capsys.readouterr().err
    assert everything(lead) == before
    rows.write_text("coder,conversation_id,turn,code,value\nana,c3,2,overall,2\n",
                    encoding="utf-8")
    assert main(["import-codings", str(lead), str(rows), "--as", "ana"]) == 0


def test_final_export_says_how_each_merged_value_was_made(
        lead_and_package: tuple[Path, Path], tmp_path: Path) -> None:
    lead, package = lead_and_package
    assert main(["merge", str(lead), str(package), "--as", "lee"]) == 0
    out = tmp_path / "final.csv"
    assert main(["export", str(lead), str(out), "--kind", "final", "--provenance",
                 "--as", "lee"]) == 0
    with out.open(encoding="utf-8", newline="") as fh:
        final = {(r["conversation_id"], r["turn"]): r for r in csv.DictReader(fh)
                 if r["code"] == "overall"}
    assert (final[("c2", "4")]["source"], final[("c2", "4")]["blind"],
            final[("c2", "4")]["origin"]) == ("coded", "1", "ana.sense7")
    assert (final[("c2", "2")]["source"], final[("c2", "2")]["origin"]) \
        == ("imported", "earlier.csv")


def test_a_package_relabelled_as_the_leads_or_with_foreign_rows_lands_nothing_of_them(
        lead_and_package: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    lead, package = lead_and_package
    as_lead = tmp_path / "lee.sense7"
    shutil.copy(package, as_lead)
    con = sqlite3.connect(as_lead)
    with con:
        con.execute("UPDATE meta SET value = 'lee' WHERE key = 'package_coder'")
        con.execute("UPDATE codings SET coder = 'lee'")
    con.close()
    before = everything(lead)
    assert main(["merge", str(lead), str(as_lead), "--as", "lee"]) == 2
    assert "a lead of the target project" in capsys.readouterr().err
    assert everything(lead) == before
    # her own rows on a conversation not assigned to her, and a change after the reveal
    # while the lock is on
    con = sqlite3.connect(package)
    with con:
        con.execute("INSERT INTO conversations(conversation_id, n_turns) VALUES ('c3', 4)")
        con.execute("INSERT INTO turns(conversation_id, position, role, text) "
                    "SELECT 'c3', position, role, text FROM turns WHERE conversation_id = 'c2'")
        con.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, "
                    "value, updated_at) VALUES ('ana', 'c3', 2, 0, 'overall', 1, "
                    "'2030-01-01T00:00:00')")
        con.execute("INSERT INTO revisions(coder, conversation_id, position, sentence, code, "
                    "value, updated_at) VALUES ('ana', 'c1', 2, 0, 'overall', 1, "
                    "'2030-01-01T00:00:00')")
    con.close()
    assert main(["merge", str(lead), str(package), "--as", "lee"]) == 0
    out = capsys.readouterr().out
    assert "not assigned to 'ana' here (c3)" in out
    assert "refused: 1 change after the reveal" in out
    assert rows_of(lead, "SELECT COUNT(*) FROM codings WHERE conversation_id = 'c3'") == [(0,)]
    assert rows_of(lead, "SELECT COUNT(*) FROM revisions") == [(0,)]
    assert rows_of(lead, "SELECT value FROM codings WHERE coder = 'ana' AND "
                   "conversation_id = 'c2' AND position = 4") == [(5,)]


def test_the_study_and_the_consensus_are_a_leads(lead_and_package: tuple[Path, Path]
                                                 ) -> None:
    from sense7_coder.domain.codebook.codes import Code
    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.project.codebook.editing import add_code, retire_code

    lead, package = lead_and_package
    with Project.open(package, backup=False) as p:  # a package: never
        with pytest.raises(ProjectError, match="coder package"):
            retire_code(p, "overall")
        with pytest.raises(ProjectError, match="coder package"):
            p.clear_consensus(Unit("c1", 2), "overall")
    with Project.open(lead, backup=False) as p:
        p.set_coder("lee")
        p.set_consensus(Unit("c1", 2), "overall", 3)
        p.blind_coding = False
        p.set_lead_passphrase("pw")
        p.set_coder("ana")
        with pytest.raises(ProjectError, match="only a lead"):
            add_code(p, Code(key="warmth", label="Warmth", kind="ordinal",
                             levels=p.code("overall").levels))
        with pytest.raises(ProjectError, match="only an adjudicator"):
            p.clear_consensus(Unit("c1", 2), "overall")
        p.set_adjudicator("lee")  # naming the lead is not being the lead
        with pytest.raises(ProjectError, match="only a lead"):
            p.set_consensus(Unit("c1", 2), "overall", 1)
        with pytest.raises(ProjectError, match="only a lead"):
            p.clear_consensus(Unit("c1", 2), "overall")
        assert p.db.execute("SELECT value, adjudicator FROM consensus").fetchall() == [
            (3, "lee")]


def test_a_fix_made_in_her_package_after_a_merge_lands_as_coded_blind(tmp_path: Path) -> None:
    """Inside her blind package nothing is revealed (it holds no other coder's value and no
    user's rating), so the window lets her fix a turn she marked done there. The merge
    agrees: the target's lock holds only where she marked the turn done in the target
    itself (and could have seen its values there), not where her done mark came from her
    package. Her fix lands, marked as coded blind in the package."""
    from sense7_coder.project.package import make_package

    path = study(tmp_path)
    package = tmp_path / "ana-pkg.sense7"
    with Project.open(path, backup=False) as lead:
        lead.set_coder("lee")
        make_package(lead, "ana", package)
    with Project.open(package, backup=False) as pkg:
        pkg.set_value(Unit("c2", 4), "overall", 2)
        pkg.set_done("c2", 4)
    assert main(["merge", str(path), str(package), "--as", "lee"]) == 0
    with Project.open(package, backup=False) as pkg:
        pkg.set_value(Unit("c2", 4), "overall", 5)  # her quick fix, in the package
    assert main(["merge", str(path), str(package), "--as", "lee",
                 "--on-conflict", "keep-source"]) == 0
    assert rows_of(path, "SELECT value, blind, origin FROM codings WHERE coder = 'ana' AND "
                         "conversation_id = 'c2' AND position = 4") == [(5, 1, package.name)]
    # where she marked the turn done in the lead's project itself, the lock still holds
    with Project.open(package, backup=False) as pkg:
        pkg.set_value(Unit("c1", 2), "overall", 1)
    assert main(["merge", str(path), str(package), "--as", "lee",
                 "--on-conflict", "keep-source"]) == 0
    assert rows_of(path, "SELECT value FROM codings WHERE coder = 'ana' AND "
                         "conversation_id = 'c1' AND position = 2") == [(3,)]

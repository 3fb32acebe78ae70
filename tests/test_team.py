"""Assignments, coder packages, blinding rules, the audit trail and the team exports."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest
from analysis_support import code, conversation_lines, make_project
from sqlite_utils import Database

from sense7_coder.cli import main
from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.errors import InputError, ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.assignments import assign, assigned_to, progress
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.project.export import export_frame
from sense7_coder.project.imports import import_codings
from sense7_coder.project.package import make_package
from sense7_coder.project.project import HIDDEN_VALUE
from sense7_coder.project.team.tables import history_table
from sense7_coder.store import conversations as store_conv
from sense7_coder.store.db import APPLICATION_ID
from sense7_coder.store.schema import migrations


def chats(n: int, first: int = 0) -> str:
    return conversation_lines([(f"k{i:02d}", f"P{i % 3}", "GPT4" if i % 2 else "IC", 3, 4)
                               for i in range(first, first + n)])


@pytest.fixture
def study(tmp_path: Path) -> Project:
    project = make_project(tmp_path, "study.sense7", chats(10))
    yield project
    project.close()


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


# -- assignments -----------------------------------------------------------------------------

def test_assign_is_even_seeded_and_rounds_the_overlap(study: Project) -> None:
    report = assign(study, ["a", "b", "c"], overlap=0.25, seed=1)  # 2.5 -> 3 shared
    assert report.overlap == 3
    mine = {c: set(assigned_to(study, c)) for c in "abc"}
    shared = mine["a"] & mine["b"] & mine["c"]
    assert len(shared) == 3
    assert sorted(len(ids - shared) for ids in mine.values()) == [2, 2, 3]
    assert set().union(*mine.values()) == {f"k{i:02d}" for i in range(10)}
    assert "assigned 10 conversations (3 overlap conversations to every coder)" in \
        report.lines()[0]
    # the same seed on a copy gives the same split; another seed another one
    twin = make_project(study.path.parent, "twin.sense7", chats(10))
    assign(twin, ["a", "b", "c"], overlap=0.25, seed=1)
    assert {c: set(assigned_to(twin, c)) for c in "abc"} == mine
    other = make_project(study.path.parent, "other.sense7", chats(10))
    assign(other, ["a", "b", "c"], overlap=0.25, seed=2)
    assert {c: set(assigned_to(other, c)) for c in "abc"} != mine
    twin.close()
    other.close()


def test_assign_per_coder_filter_and_rerun(study: Project) -> None:
    report = assign(study, ["a", "b"], per_coder=3, overlap=0.34,
                    conversations=store_conv.ConversationFilter(models=["GPT4"]))
    # 5 GPT4 conversations: 1 shared + 2 each = 5; nothing left over
    assert report.overlap == 1 and report.new == {"a": 3, "b": 3}
    assert report.unassigned == 0
    ids = set(assigned_to(study, "a")) | set(assigned_to(study, "b"))
    assert all(int(cid[1:]) % 2 == 1 for cid in ids)
    again = assign(study, ["a", "b"], conversations=store_conv.ConversationFilter(
        models=["GPT4"]))
    assert again.lines() == ["nothing new to assign: every selected conversation is "
                             "already assigned"]
    rows = {(r["coder"], r["done"], r["conversations"]) for r in progress(study)}
    assert rows == {("a", 0, 3), ("b", 0, 3)}


def test_assign_refuses_bad_requests(study: Project) -> None:
    with pytest.raises(ProjectError, match="between 0 and 1"):
        assign(study, ["a"], overlap=20)
    with pytest.raises(ProjectError, match="listed twice"):
        assign(study, ["a", "a"])
    study.set_coder("lee", "adjudicator")
    study.set_coder("ann")
    with pytest.raises(ProjectError, match="only a lead"):
        assign(study, ["a"])


def test_shuffled_order_differs_per_coder_but_repeats(study: Project) -> None:
    assign(study, ["a", "b"], overlap=1.0, shuffle=True, seed=4)
    a, b = assigned_to(study, "a"), assigned_to(study, "b")
    assert sorted(a) == sorted(b) and a != b
    twin = make_project(study.path.parent, "twin.sense7", chats(10))
    assign(twin, ["a", "b"], overlap=1.0, shuffle=True, seed=4)
    assert assigned_to(twin, "a") == a
    twin.close()


# -- packages --------------------------------------------------------------------------------

def test_package_keeps_ratings_when_not_blind_and_brings_own_work(study: Project,
                                                                  tmp_path: Path) -> None:
    assign(study, ["a", "b"], seed=0)
    mine = assigned_to(study, "a")
    code(study, "a", {(mine[0], 2, "overall"): 4}, done=[(mine[0], 2)])
    code(study, "b", {(assigned_to(study, "b")[0], 2, "overall"): 2})
    study.set_coder("lee", "adjudicator")
    study.set_consensus(Unit(mine[0], 2), "overall", 4)
    summary = make_package(study, "a", tmp_path / "a.sense7")
    assert "with the users' ratings" in summary.line()
    with Project.open(tmp_path / "a.sense7", backup=False) as pkg:
        assert pkg.blind_coding and pkg.package_coder == "a"
        assert pkg.info()["user_ratings"] > 0
        got = pkg.db.execute("SELECT coder, conversation_id, value FROM codings").fetchall()
        assert got == [("a", mine[0], 4)]
        assert pkg.db.execute("SELECT COUNT(*) FROM consensus").fetchone()[0] == 0
        order = [r[0] for r in pkg.db.execute(
            "SELECT conversation_id FROM conversations ORDER BY rowid")]
        assert order == mine
        pkg.set_coder("a")
        with pytest.raises(ProjectError, match="coder package"):
            pkg.require_all_codes = True
    with pytest.raises(ProjectError, match="already exists"):
        make_package(study, "a", tmp_path / "a.sense7")


def test_package_refuses_unknown_coder_and_unassigned(study: Project, tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no coder 'x'"):
        make_package(study, "x", tmp_path / "x.sense7")
    study.set_coder("solo")
    with pytest.raises(ProjectError, match="no conversations are assigned"):
        make_package(study, "solo", tmp_path / "solo.sense7")
    assert not (tmp_path / "solo.sense7").exists()


# -- blinding --------------------------------------------------------------------------------

def test_only_the_lead_switches_blinding_and_roles(study: Project) -> None:
    study.set_coder("lee", "adjudicator")  # the first adjudicator sets the study up
    study.blind_coding = True
    study.set_coder("ann")
    with pytest.raises(ProjectError, match="only a lead"):
        study.blind_coding = False
    with pytest.raises(ProjectError, match="only a lead"):
        study.set_coder("ann", "adjudicator")
    with pytest.raises(ProjectError, match="only a lead"):
        study.set_adjudicator("ann")
    with pytest.raises(ProjectError, match="only a lead"):
        study.hidden_attributes = ["model"]
    with pytest.raises(ProjectError, match="codes blind"):
        study.require_unblinded("open reconciliation")
    assert study.blind_coding and study.coder_role("ann") == "coder"


def test_blind_coder_sees_that_others_coded_not_what(study: Project) -> None:
    code(study, "bo", {("k01", 2, "overall"): 5, ("k01", 4, "overall"): 1},
         done=[("k01", 2), ("k01", 4)])
    study.set_coder("lee", "adjudicator")
    study.blind_coding = True
    assert {r["value"] for r in study.turn_state("k01")["others"]} == {5, 1}  # the lead sees
    study.set_coder("ann")
    state = study.turn_state("k01")
    assert {r["value"] for r in state["others"]} == {HIDDEN_VALUE}
    assert state["others_done"] == {"bo": set()}
    study.set_done("k01", 2)
    shown = {r["position"]: r["value"] for r in study.turn_state("k01")["others"]}
    assert shown == {2: 5, 4: HIDDEN_VALUE}


def test_a_setting_can_require_every_applicable_code(study: Project) -> None:
    study.set_coder("lee", "adjudicator")
    study.require_all_codes = True
    study.set_coder("ann")
    study.set_value(Unit("k00", 2), "overall", 3)
    with pytest.raises(ProjectError, match="requires every applicable code, and affective"):
        study.set_done("k00", 2)
    empty = study.empty_codes("k00", 2)
    for key in empty:
        study.set_value(Unit("k00", 2), key, None)
    study.set_done("k00", 2)


# -- history ---------------------------------------------------------------------------------

def test_history_records_every_source(study: Project, tmp_path: Path) -> None:
    conn = study.db.conn
    assert conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0  # triggers run anyway
    study.set_coder("ann")
    study.set_value(Unit("k00", 2), "overall", 3)
    study.undo()
    study.redo()
    study.set_memo(Unit("k00", 2), "tone?")
    codings = tmp_path / "c.csv"
    codings.write_text("coder,conversation_id,turn,code,value,done\n"
                       "bo,k00,2,overall,4,1\nbo,k00,4,overall,NA,0\n", encoding="utf-8")
    summary = import_codings(study, codings)
    assert summary.done == 1 and study.turn_state("k00", "bo")["done"] == {2}
    codebook_ops.add_code(study, code_from_dict(
        {"key": "tone", "label": "Tone", "kind": "binary", "unit": "turn"}))
    table = history_table(study)
    mine = table[table["conversation_id"] == "k00"]
    got = [tuple(r) for r in mine[["coder", "action", "kind", "before", "after", "source"]]
           .itertuples(index=False)]
    assert got == [
        ("ann", "set", "coding", "", 3, "edit"),
        ("ann", "clear", "coding", 3, "", "undo"),
        ("ann", "set", "coding", "", 3, "redo"),
        ("ann", "set", "memo", "", "tone?", "edit"),
        ("bo", "set", "coding", "", 4, "import codings"),
        ("bo", "set", "coding", "", "NA", "import codings"),
        ("bo", "set", "done", "", 1, "import codings"),
    ]
    assert set(mine["actor"]) == {"ann"}  # the window's coder did the import
    code_rows = table[table["kind"] == "code"]
    assert code_rows.iloc[-1]["code"] == "tone" and code_rows.iloc[-1]["source"] == "codebook"


def test_import_codings_done_column_errors_name_the_line(study: Project, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("coder,conversation_id,turn,code,value,done\nbo,k00,2,overall,4,maybe\n",
                   encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2.*done 'maybe' is not 1 or 0"):
        import_codings(study, bad)
    assert study.info()["codings"] == 0


def test_upgrading_a_schema_4_file_records_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "old.sense7"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db = Database(conn, execute_plugins=False)
    migrations.apply(db, stop_before="m005_team_workflow")
    conn.execute("PRAGMA user_version = 4")
    conn.execute("INSERT INTO coders(name) VALUES ('old')")
    conn.execute("INSERT INTO conversations(conversation_id, n_turns) VALUES ('x', 1)")
    conn.execute("INSERT INTO turns(conversation_id, position, role, text) "
                 "VALUES ('x', 1, 'assistant', 'hi')")
    conn.execute("INSERT INTO codes(key, ord, label, kind, unit, levels) "
                 "VALUES ('q', 1, 'Q', 'ordinal', 'turn', '[{\"value\": 1}, {\"value\": 2}]')")
    conn.execute("INSERT INTO codings(coder, conversation_id, position, code, value) "
                 "VALUES ('old', 'x', 1, 'q', 2)")
    conn.commit()
    conn.close()
    with Project.open(path, backup=False) as project:
        table = history_table(project)
    rows = {(r.kind, r.coder, r.after, r.source) for r in table.itertuples()}
    assert ("coding", "old", 2, "upgrade") in rows
    assert any(r[0] == "code" and r[3] == "upgrade" for r in rows)


# -- team exports ----------------------------------------------------------------------------

def test_segments_memos_ratings_and_long_with_text(study: Project, tmp_path: Path) -> None:
    # ratings come out before anyone coded
    ratings = export_frame(study, "ratings")
    assert len(ratings) == 10 * 2 * 2 and set(ratings["rating"]) == {"overall", "affective"}
    code(study, "ann", {("k03", 2, "overall"): 5, ("k03", 4, "overall"): 2,
                        ("k04", 2, "overall"): 5})
    study.set_memo(Unit("k03", 4), "flat")
    out = tmp_path / "seg.csv"
    assert main(["export", str(study.path), str(out), "--kind", "segments",
                 "--codes", "overall", "--value", "5"]) == 0
    rows = read_csv(out)
    assert [(r["conversation_id"], r["turn"], r["value"]) for r in rows] == \
        [("k03", "2", "5"), ("k04", "2", "5")]
    assert rows[0]["text"].startswith("That sounds draining")
    assert rows[0]["level_label"]
    memos = export_frame(study, "memos")
    assert list(memos.itertuples(index=False, name=None)) == [("ann", "k03", 4, "", "flat", "", "",
                                                               "")]
    assert main(["export", str(study.path), str(out), "--kind", "long", "--with-text"]) == 0
    long = read_csv(out)
    assert all(r["text"] for r in long) and long[0]["text"].startswith("That sounds")
    assert main(["export", str(study.path), str(out), "--kind", "wide", "--with-text"]) == 2


def test_cli_assign_and_package_refusals(study: Project, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    study.close()
    assert main(["assign", str(study.path), "--coders", "a,b", "--filter", "week"]) == 2
    assert "write ATTR=VALUE" in capsys.readouterr().err
    assert main(["assign", str(study.path), "--coders", "a,b", "--filter", "week=1"]) == 0
    assert capsys.readouterr().out == "no conversation matches the filter\n"
    assert main(["assign", str(study.path), "--coders", "a,b", "--filter", "week=2"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "assigned 10 conversations", "  a: 5 new conversations", "  b: 5 new conversations"]
    assert main(["package", str(study.path), "c", str(tmp_path / "c.sense7")]) == 2




# -- rater files -----------------------------------------------------------------------------

def test_lend_an_ear_rater_files_import_one_coder_each(tmp_path: Path, shared_data: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.domain.codebook.codes import Codebook
    from sense7_coder.domain.importers import ImportOptions
    from sense7_coder.project.agreement import project_agreement
    from sense7_coder.project.imports import import_files
    from sense7_coder.project.selection import Selection

    folder = shared_data / "mint-empathy" / "lend_an_ear_eval"
    scales = ["validating_emotions", "encouraging_elaboration", "demonstrating_understanding",
              "advice_giving", "self_oriented", "dismissing_emotions"]
    book = Codebook("lae", [code_from_dict({"key": k, "label": k, "kind": "ordinal",
                                            "unit": "conversation"}) for k in scales])
    path = tmp_path / "lae.sense7"
    with Project.create(path, book) as p:
        import_files(p, [folder / "lend_an_ear_50_conversations.csv"],
                     ImportOptions(format="transcript"))
    files = [folder / "expert_ratings" / f"expert{i}_ratings.csv" for i in (1, 2, 3)]
    assert main(["import-ratings", str(path), *map(str, files)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("imported 300 codings for expert1 (validating_emotions="
                           "validating_emotions, encouraging_elaboration=encouraging_"
                           "elaboration, demonstrating_understanding=demonstrating_"
                           "understanding, advice_giving=advice_giving, self_oriented="
                           "self_oriented, dismissing_emotions=dismissing_emotions)")
    with Project.open(path, backup=False) as p:
        assert sorted(c["name"] for c in p.coders()) == ["expert1", "expert2", "expert3"]
        report = project_agreement(p, Selection(codes=["advice_giving"]),
                                   AgreementSettings(bootstrap=0))
    from sense7_coder.domain.agreement import ALPHA
    alpha = next(r for r in report.records if r.measure == ALPHA)
    assert (alpha.n_units, alpha.n_values) == (50, 150)
    # a column that is no code is named; a mapped column reads under its code
    other = tmp_path / "r.csv"
    other.write_text("conversation_id,Advice\n20241031145103738386,4.0\n", encoding="utf-8")
    assert main(["import-ratings", str(path), str(other), "--coder", "x",
                 "--map", "Advice=advice_giving"]) == 0
    assert "imported 1 coding for x (Advice=advice_giving)" in capsys.readouterr().out
    bad = tmp_path / "bad_ratings.csv"
    bad.write_text("conversation_id,advice_giving\n20241031145103738386,9\n", encoding="utf-8")
    assert main(["import-ratings", str(path), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad_ratings.csv" in err and "line 2" in err and "advice_giving" in err


def test_rater_files_whose_id_column_has_another_name_import_with_a_mapping(
        tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The published EmpatheticDialogues ratings name the conversation ``conv_id``: the
    refusal says how to name the id column, and mapping it to conversation_id imports
    them (before, no mapping could, so the files had to be edited by hand)."""
    folder = shared_data / "empathic-communication-reliability"
    path = tmp_path / "ed.sense7"
    assert main(["init", str(path)]) == 0
    assert main(["import", str(path),
                 str(folder / "original_data" / "sample_empatheticdialogues.csv")]) == 0
    for key in ("empathy", "relevance", "fluency"):
        assert main(["codebook", str(path), "add", key, "--kind", "ordinal", "--levels",
                     "1..5", "--unit", "conversation"]) == 0
    capsys.readouterr()
    before = path.read_bytes()
    files = [folder / "annotations" / "empatheticdialogues" / f"expert{i}_ratings.csv"
             for i in (1, 2, 3)]
    assert main(["import-ratings", str(path), *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expert1_ratings.csv, line 1" in err
    assert "columns present: conv_id" in err and "--map COLUMN=conversation_id" in err
    assert path.read_bytes() == before
    assert main(["import-ratings", str(path), *map(str, files),
                 "--map", "conv_id=conversation_id"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("imported 150 codings for expert1 (empathy=empathy, "
                           "relevance=relevance, fluency=fluency)")
    with Project.open(path, backup=False) as p:
        assert sorted(c["name"] for c in p.coders()) == ["expert1", "expert2", "expert3"]
        assert p.info()["codings"] == 450


def test_export_xlsx_writes_a_workbook_and_other_sheets_are_refused(
        study: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import openpyxl

    code(study, "ann", {("k01", 2, "overall"): 4})
    study.close()
    out = tmp_path / "long.xlsx"
    assert main(["export", str(study.path), str(out), "--kind", "long"]) == 0
    sheet = openpyxl.load_workbook(out).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:2] == ("coder", "conversation_id") and rows[1][:2] == ("ann", "k01")
    assert main(["export", str(study.path), str(tmp_path / "long.ods"), "--kind", "long"]) == 2
    assert "unknown export format '.ods'" in capsys.readouterr().err
    assert not (tmp_path / "long.ods").exists()
    assert main(["agreement", str(study.path), "--format", "JSON", "--bootstrap", "0"]) == 0


def test_accept_majority_counts_agree_with_the_table(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.project.demo import build_demo

    path = build_demo(tmp_path)
    assert main(["consensus", str(path), "--coder", "lee", "--role", "adjudicator",
                 "--accept-majority", "--list", "0", "--format", "table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines[3:11]]
    decided = sum(int(r[3]) for r in rows)
    disagreeing = sum(int(r[2]) for r in rows)
    consensus = sum(int(r[5]) for r in rows)
    assert lines[0] == (f"accepted the majority on {consensus} units: {decided} disagreements "
                        f"(now {decided} of {disagreeing} decided) and {consensus - decided} "
                        "units where the coders all agreed")


def test_merge_lines_count_in_the_singular_and_plural() -> None:
    from sense7_coder.project.merge.merging import SourceSummary

    one = SourceSummary("a.sense7", codings=1, statuses=1, consensus=1, memos=2)
    assert one.line(False) == ("a.sense7: added 1 coding, 1 turn marked done, 2 memos, "
                               "1 consensus decision")
    assert SourceSummary("b.sense7", codings_unchanged=1).line(False) == \
        "b.sense7: nothing new (1 coding already present)"

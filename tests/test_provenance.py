"""Independent coding that holds: revealed turns lock (or keep a second value), every
value says how it was made, agreement says which values it used."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement import ALPHA, CONSENSUS_RATER, AgreementReport
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import methods_paragraph, project_agreement
from sense7_coder.project.reconcile import accept_majorities, coders_vs_consensus
from sense7_coder.project.selection import Selection


def blind_study(folder: Path, *, lock: bool = True) -> Project:
    """A blind project led by 'lead', coded by alice and bob on c1..c3 turns 2 and 4."""
    project = make_project(folder)
    project.set_coder("lead", "adjudicator")
    project.blind_coding = True
    project.lock_after_reveal = lock
    values = {
        "alice": {("c1", 2): 5, ("c1", 4): 4, ("c2", 2): 3, ("c2", 4): 2, ("c3", 2): 1},
        "bob": {("c1", 2): 1, ("c1", 4): 4, ("c2", 2): 3, ("c2", 4): 2, ("c3", 2): 1},
    }
    for coder, given in values.items():
        code(project, coder, {(cid, pos, "overall"): v for (cid, pos), v in given.items()},
             done=list(given))
    return project


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Project]:
    project = blind_study(tmp_path)
    yield project
    project.close()


@pytest.fixture
def unlocked(tmp_path: Path) -> Iterator[Project]:
    project = blind_study(tmp_path, lock=False)
    yield project
    project.close()


def stored(project: Project, coder: str, cid: str, pos: int) -> object:
    return project.db.execute(
        "SELECT value FROM codings WHERE coder = ? AND conversation_id = ? AND position = ? "
        "AND code = 'overall'", [coder, cid, pos]).fetchone()[0]


# -- reveal and after ---------------------------------------------------------------------------

def test_a_blind_coder_cannot_change_a_revealed_turn_while_the_lock_is_on(
        locked: Project) -> None:
    locked.set_coder("alice")
    assert locked.lock_after_reveal  # on by default
    with pytest.raises(ProjectError, match="turn 2 of 'c1' was revealed to 'alice'.*locked"):
        locked.set_value(Unit("c1", 2), "overall", 1)
    with pytest.raises(ProjectError, match="locked"):
        locked.clear_value(Unit("c1", 2), "overall")
    # marking the turn not done again does not hide what was seen: still locked
    locked.set_done("c1", 2, False)
    with pytest.raises(ProjectError, match="locked"):
        locked.set_value(Unit("c1", 2), "overall", 1)
    assert stored(locked, "alice", "c1", 2) == 5
    # a turn not revealed yet can still be coded
    locked.set_value(Unit("c3", 4), "overall", 2)
    # the lead (who sees everything) is not locked
    locked.set_coder("lead")
    locked.set_value(Unit("c1", 2), "overall", 3)


def test_undo_after_the_reveal_cannot_change_a_blind_value(locked: Project) -> None:
    locked.set_coder("alice")
    locked.set_value(Unit("c3", 4), "overall", 2)
    locked.set_done("c3", 4)
    with pytest.raises(ProjectError, match="revealed"):
        locked.undo()  # the done mark
        locked.undo()  # the value, now revealed
    assert stored(locked, "alice", "c3", 4) == 2


def test_only_a_lead_turns_the_lock_off(locked: Project) -> None:
    locked.set_coder("alice")
    with pytest.raises(ProjectError, match="only a lead"):
        locked.lock_after_reveal = False
    assert locked.lock_after_reveal


def test_with_the_lock_off_a_change_is_kept_beside_the_blind_value(unlocked: Project) -> None:
    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)
    assert stored(unlocked, "alice", "c1", 2) == 5  # the blind value stays
    assert unlocked.db.execute("SELECT value FROM revisions WHERE coder = 'alice'").fetchall() \
        == [(1,)]
    # the coder sees her latest value; the history says it came after the reveal
    assert unlocked.turn_state("c1")["codings"][(2, 0, "overall")] == 1
    source = unlocked.db.execute(
        "SELECT source FROM history WHERE kind = 'coding' ORDER BY id DESC LIMIT 1").fetchone()
    assert source[0] == "edit after reveal"
    # clearing takes the change back, never the blind value
    unlocked.clear_value(Unit("c1", 2), "overall")
    assert unlocked.db.execute("SELECT COUNT(*) FROM revisions").fetchone()[0] == 0
    with pytest.raises(ProjectError, match="set blind"):
        unlocked.clear_value(Unit("c1", 2), "overall")
    assert stored(unlocked, "alice", "c1", 2) == 5


def alpha_of(report: AgreementReport) -> float:
    rec = next(r for r in report.records if r.measure == ALPHA
               and r.coders == ["alice", "bob"] and r.level != "applicability")
    return float(rec.value)


def test_agreement_uses_blind_values_unless_asked_for_final(unlocked: Project) -> None:
    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)  # now agrees with bob, after the reveal
    unlocked.set_coder("lead")
    opts = (Selection(codes=["overall"], include_consensus=False), AgreementSettings(bootstrap=0))
    blind = project_agreement(unlocked, *opts)
    final = project_agreement(unlocked,
                              Selection(codes=["overall"], include_consensus=False,
                                        values="final"), AgreementSettings(bootstrap=0))
    assert alpha_of(blind) < alpha_of(final) == pytest.approx(1.0)
    assert blind.values == "blind" and blind.after_reveal == 1
    assert {r.values for r in blind.records} == {"blind"}
    assert set(final.to_frame()["values"]) == {"final"}
    text = methods_paragraph(unlocked, blind, *opts)
    assert "Blind values" in text and "1 value coders changed after the turn was revealed" \
        in text


def test_agreement_command_says_which_values(unlocked: Project,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)
    path = unlocked.path
    unlocked.close()
    assert main(["agreement", str(path), "--as", "lead", "--codes", "overall", "--bootstrap",
                 "0"]) == 0
    assert "Blind values" in capsys.readouterr().out
    assert main(["agreement", str(path), "--as", "lead", "--codes", "overall", "--bootstrap", "0",
                 "--values", "final", "--format", "csv"]) == 0
    assert ",final," in capsys.readouterr().out


def test_accept_majority_counts_blind_values_unless_the_lead_chooses_final(
        unlocked: Project, capsys: pytest.CaptureFixture[str]) -> None:
    """alice gave 5 and bob 1 on c1 turn 2 blind; after the reveal alice changed hers to 1.
    The blind values have no majority there, the final ones do: the lead chooses which
    count, and the command says which it counted."""
    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)
    path = unlocked.path
    unlocked.close()
    args = ["consensus", str(path), "--as", "lead", "--codes", "overall", "--accept-majority",
            "--coder", "lead"]
    assert main([*args, "--format", "json"]) == 0
    blind = json.loads(capsys.readouterr().out)
    assert blind["values"] == "blind" and blind["open_total"] == 1
    with Project.open(path, backup=False) as project:
        decided = project.db.execute("SELECT COUNT(*) FROM consensus WHERE conversation_id = "
                                     "'c1' AND position = 2").fetchone()[0]
    assert decided == 0  # 5 against 1: no majority among the blind values
    assert main([*args, "--values", "final"]) == 0
    out = capsys.readouterr().out
    assert "counted: the coders' final values" in out
    with Project.open(path, backup=False) as project:
        value = project.db.execute("SELECT value FROM consensus WHERE conversation_id = 'c1' "
                                   "AND position = 2").fetchone()[0]
    assert value == 1
    assert main(["consensus", str(path), "--as", "lead", "--codes", "overall"]) == 0
    assert "counted: the coders' blind values" in capsys.readouterr().out


# -- the consensus made of the coders' own majority ---------------------------------------------

def test_coders_against_their_own_majority_are_flagged(locked: Project,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    locked.set_coder("lead")
    accept_majorities(locked, Selection(codes=["overall"]))  # two coders: where they agreed
    report = project_agreement(locked, Selection(codes=["overall"]), AgreementSettings(bootstrap=0))
    against = [r for r in report.records if CONSENSUS_RATER in r.coders and r.measure == ALPHA]
    assert against and all(r.by_construction and r.band() == "by construction"
                           for r in against)
    assert all(r.value == pytest.approx(1.0) for r in against)
    assert not any(r.by_construction for r in report.records if CONSENSUS_RATER not in r.coders)
    assert "by construction" in methods_paragraph(locked, report,
                                                  Selection(codes=["overall"]),
                                                  AgreementSettings(bootstrap=0))
    assert all(r.by_construction
               for r in coders_vs_consensus(locked, Selection(codes=["overall"])).records)
    # a decision the lead takes by hand makes the consensus a reference again
    locked.set_consensus(Unit("c1", 2), "overall", 3)
    report = project_agreement(locked, Selection(codes=["overall"]), AgreementSettings(bootstrap=0))
    assert not any(r.by_construction for r in report.records)
    path = locked.path
    locked.clear_consensus(Unit("c1", 2), "overall")
    locked.close()
    assert main(["consensus", str(path), "--as", "lead", "--codes", "overall"]) == 0
    assert "by construction" in capsys.readouterr().out


# -- provenance -----------------------------------------------------------------------------------

def provenance(project: Project, table: str = "codings") -> list[tuple[object, ...]]:
    who = "coder, " if table == "codings" else ""
    blind = "blind, " if table == "codings" else ""
    return sorted(project.db.execute(
        f"SELECT {who}conversation_id, position, source, {blind}origin FROM {table}"
    ).fetchall(), key=str)


def test_each_value_records_how_it_was_made(locked: Project, tmp_path: Path) -> None:
    rows = provenance(locked)
    assert {r[3:] for r in rows} == {("coded", 1, None)}  # coders, blind
    locked.set_coder("lead")
    locked.set_value(Unit("c1", 2), "overall", 2)
    locked.set_value(Unit("c1", 4), "overall", 2, suggested=True)
    lead = {r[1:] for r in provenance(locked) if r[0] == "lead"}
    assert lead == {("c1", 2, "coded", 0, None), ("c1", 4, "suggestion_accepted", 0, None)}
    accept_majorities(locked, Selection(codes=["overall"]))
    locked.set_consensus(Unit("c1", 2), "overall", 3, "discussed")
    consensus = provenance(locked, "consensus")
    assert ("c1", 2, "adjudicated", None) in consensus
    assert ("c2", 2, "majority", None) in consensus
    # imported codings name their file
    csv_path = tmp_path / "extra.csv"
    csv_path.write_text("coder,conversation_id,turn,code,value\ncarol,c2,2,overall,4\n",
                        encoding="utf-8")
    assert main(["import-codings", str(locked.path), str(csv_path), "--as", "lead"]) == 0
    carol = [r for r in provenance(locked) if r[0] == "carol"]
    assert carol == [("carol", "c2", 2, "imported", 0, "extra.csv")]


def test_importing_a_value_already_held_keeps_how_it_was_made(locked: Project,
                                                             tmp_path: Path) -> None:
    """A codings file that repeats a value a coder set blind in the window does not turn it
    into an imported, non-blind value; a value the file changes is the file's."""
    before = {r[:3]: r[3:] for r in provenance(locked) if r[0] == "alice"}
    assert before[("alice", "c1", 2)] == ("coded", 1, None)
    csv_path = tmp_path / "again.csv"
    csv_path.write_text("coder,conversation_id,turn,code,value\n"
                        "alice,c1,2,overall,5\nalice,c3,4,overall,1\n", encoding="utf-8")
    locked.close()
    assert main(["import-codings", str(locked.path), str(csv_path), "--as", "lead"]) == 0
    with Project.open(locked.path, backup=False) as again:
        after = {r[:3]: r[3:] for r in provenance(again) if r[0] == "alice"}
    assert after[("alice", "c1", 2)] == ("coded", 1, None)  # same value: untouched
    assert after[("alice", "c3", 4)] == ("imported", 0, "again.csv")  # set by the file


def test_merged_values_name_their_file_and_keep_blindness(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    lead.set_coder("lead", "adjudicator")
    lead.blind_coding = True
    path = lead.path
    lead.close()
    other = make_project(tmp_path, "dana.sense7")  # the same conversations, coded blind
    other.set_coder("boss", "adjudicator")
    other.blind_coding = True
    code(other, "dana", {("c1", 2, "overall"): 4})
    other.close()
    package = tmp_path / "dana.sense7"
    assert main(["merge", str(path), str(package), "--as", "lead"]) == 0
    con = sqlite3.connect(path)
    try:
        row = con.execute("SELECT source, blind, origin FROM codings WHERE coder = 'dana'"
                          ).fetchall()
    finally:
        con.close()
    # how it was made there (coded, blind) stays; the file it came from is its origin
    assert row == [("coded", 1, "dana.sense7")]


# -- exports with provenance, and the final dataset -------------------------------------------------

def read_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def revised(unlocked: Project) -> Project:
    """alice changed c1/2 after the reveal (5 -> 1) and coded c3/4 alone; the lead accepted
    the majorities and decided c1/2 by hand."""
    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)
    unlocked.set_value(Unit("c3", 4), "overall", 2)
    unlocked.set_coder("lead")
    accept_majorities(unlocked, Selection(codes=["overall"]))
    return unlocked


def test_long_export_carries_provenance_and_the_value_after_the_reveal(
        revised: Project, tmp_path: Path) -> None:
    path = revised.path
    revised.close()
    out = tmp_path / "long.csv"
    assert main(["export", str(path), "--as", "lead", str(out), "--kind", "long",
                 "--provenance"]) == 0
    rows = read_rows(out)
    alice = [(r["value"], r["source"], r["blind"], r["after_reveal"]) for r in rows
             if r["coder"] == "alice" and r["conversation_id"] == "c1" and r["turn"] == "2"]
    assert alice == [("5", "coded", "1", "0"), ("1", "coded", "0", "1")]
    assert all(r["set_at"] for r in rows)
    plain = tmp_path / "plain.csv"
    assert main(["export", str(path), "--as", "lead", str(plain), "--kind", "long"]) == 0
    assert "source" not in read_rows(plain)[0]
    wide = tmp_path / "wide.csv"
    assert main(["export", str(path), "--as", "lead", str(wide), "--kind", "wide",
                 "--provenance"]) == 0
    first = read_rows(wide)[0]
    assert (first["overall__alice"], first["overall__alice__after_reveal"],
            first["overall__alice__blind"], first["overall__bob__after_reveal"]) \
        == ("5", "1", "1", "")
    cons = tmp_path / "cons.csv"
    assert main(["export", str(path), "--as", "lead", str(cons), "--kind", "consensus",
                 "--provenance"]) == 0
    assert {r["source"] for r in read_rows(cons)} == {"majority"}
    with pytest.raises(ProjectError, match="provenance"), Project.open(path, backup=False) as p:
        from sense7_coder.project.export import export_frame

        export_frame(p, "codebook", provenance=True)


def test_final_dataset_names_every_rows_source(revised: Project, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    revised.set_consensus(Unit("c2", 4), "overall", 3, "discussed")
    path = revised.path
    revised.close()
    out = tmp_path / "final.csv"
    assert main(["export", str(path), "--as", "lead", str(out), "--kind", "final"]) == 0
    printed = capsys.readouterr().out
    rows = {(r["conversation_id"], r["turn"]): r for r in read_rows(out)}
    # c1/2: alice 1 (after the reveal) and bob 1, blind 5 vs 1: nobody decided
    assert rows[("c1", "2")]["source"] == "unresolved"
    assert rows[("c1", "2")]["values"] == "alice=1; bob=1" and rows[("c1", "2")]["value"] == ""
    assert (rows[("c1", "4")]["source"], rows[("c1", "4")]["value"]) == ("majority", "4")
    assert (rows[("c2", "4")]["source"], rows[("c2", "4")]["value"],
            rows[("c2", "4")]["decided_by"]) == ("adjudicated", "3", "lead")
    single = rows[("c3", "4")]  # coded by alice alone
    assert (single["source"], single["value"], single["decided_by"], single["blind"]) \
        == ("coded", "2", "alice", "1")
    assert len(rows) == 6 and all(r["source"] for r in rows.values())
    assert "1 coded, 3 majority, 1 adjudicated, 1 unresolved" in printed
    meta = __import__("json").loads((tmp_path / "final.csv.meta.json").read_text())
    assert meta["rows_by_source"]["majority"] == 3 and meta["rows"] == 6


def test_analyze_reads_the_final_dataset(revised: Project, tmp_path: Path) -> None:
    from sense7_coder.project.analyses import rating_values

    values, _, _ = rating_values(revised, "final")
    got = {(r.conversation_id, r.position): r.value for r in values.itertuples()
           if r.dimension == "overall"}
    # the unresolved c1/2 is left out; the majorities and alice's single value are in
    assert got == {("c1", 4): 4.0, ("c2", 2): 3.0, ("c2", 4): 2.0, ("c3", 2): 1.0,
                   ("c3", 4): 2.0}
    path = revised.path
    revised.close()
    assert main(["analyze", str(path), "--as", "lead", "--out", str(tmp_path / "an"), "--source",
                 "final",
                 "--no-figures"]) == 0


# -- the upgrade of an older file -----------------------------------------------------------------

def test_an_older_file_learns_its_values_provenance_from_the_history(tmp_path: Path) -> None:
    from sqlite_utils import Database
    from test_store import BOOK, _conv

    from sense7_coder.store import codes as store_codes
    from sense7_coder.store import conversations as store_conv
    from sense7_coder.store import meta as store_meta
    from sense7_coder.store.schema import APPLICATION_ID, migrations

    path = tmp_path / "old.sense7"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    db = Database(conn, execute_plugins=False)
    migrations.apply(db, stop_before="m009_provenance")
    before_m009 = [m.name for m in migrations._migrations].index("m009_provenance")
    conn.execute(f"PRAGMA user_version = {before_m009}")

    def as_(source: str, sql: str) -> None:
        conn.execute("UPDATE history_context SET source = ?", [source])
        conn.execute(sql)

    with db.atomic():
        store_conv.insert_conversations(db, [_conv("c1", 4)])
        store_codes.upsert_code(db, BOOK.codes[0], 1)
        store_meta.set_meta(db, "blind_coding", "1")
        conn.execute("INSERT INTO coders(name, role) VALUES ('alice', 'coder'), "
                     "('bob', 'coder'), ('lead', 'adjudicator')")
        row = ("INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
               "VALUES ('{}', 'c1', {}, 0, 'affective', 3)")
        as_("import codings", row.format("alice", 2))
        as_("merge bob.sense7", row.format("bob", 2))
        as_("edit", row.format("alice", 4))  # before alice marked turn 4 done: blind
        as_("edit", "INSERT INTO turn_status(coder, conversation_id, position, done) "
            "VALUES ('bob', 'c1', 4, 1)")
        as_("edit", row.format("bob", 4))  # after bob's reveal: not blind
        as_("edit", row.format("lead", 4))  # a lead is never blind
        as_("edit", "INSERT INTO consensus(conversation_id, position, sentence, code, value, "
            "adjudicator, rationale) VALUES ('c1', 2, 0, 'affective', 3, 'lead', "
            "'majority of coders')")
        as_("edit", "INSERT INTO consensus(conversation_id, position, sentence, code, value, "
            "adjudicator, rationale) VALUES ('c1', 4, 0, 'affective', 3, 'lead', 'talked')")
    conn.close()
    with Project.open(path, backup=False) as project:
        got = {(r[0], r[1]): r[2:] for r in project.db.execute(
            "SELECT coder, position, source, blind, origin FROM codings")}
        decided = dict(project.db.execute("SELECT position, source FROM consensus").fetchall())
    assert got == {("alice", 2): ("imported", 1, None), ("bob", 2): ("merged", 1, "bob.sense7"),
                   ("alice", 4): ("coded", 1, None), ("bob", 4): ("coded", 0, None),
                   ("lead", 4): ("coded", 0, None)}
    assert decided == {2: "majority", 4: "adjudicated"}


def test_a_hand_edited_provenance_is_exported_as_found(revised: Project, tmp_path: Path
                                                       ) -> None:
    path = revised.path
    revised.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE codings SET blind = 'yes', source = X'00ff' WHERE coder = 'bob'")
    conn.commit()
    conn.close()
    out = tmp_path / "long.csv"
    assert main(["export", str(path), "--as", "lead", str(out), "--kind", "final"]) == 0
    assert main(["export", str(path), "--as", "lead", str(out), "--kind", "long",
                 "--provenance"]) == 0
    bob = [r for r in read_rows(out) if r["coder"] == "bob"]
    assert bob and {r["blind"] for r in bob} == {"0"}


def test_the_agreement_window_chooses_blind_or_final_values(qtbot: object,
                                                            unlocked: Project) -> None:
    from sense7_coder.ui.analysis.agreement_panel import AgreementPanel

    unlocked.set_coder("alice")
    unlocked.set_value(Unit("c1", 2), "overall", 1)
    unlocked.set_coder("lead")
    panel = AgreementPanel(unlocked)
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    panel.filters.lists["codes"].set_checked(["overall"])
    panel.bootstrap.setValue(0)
    panel.include_consensus.setChecked(False)
    for values, text in (("blind", "Blind values"), ("final", "Final values")):
        panel.values.setCurrentIndex(panel.values.findData(values))
        panel.run()
        assert panel.wait(60) and panel.error is None, panel.error
        assert panel.report is not None and panel.report.values == values
        assert text in panel.summary.text()
        alpha = next(r for r in panel.report.records if r.measure == ALPHA
                     and r.coders == ["alice", "bob"] and r.level != "applicability")
        assert (alpha.value == pytest.approx(1.0)) == (values == "final")


def test_a_change_after_the_reveal_comes_along_in_a_merge(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    lead.close()
    other = make_project(tmp_path, "dana.sense7")
    other.set_coder("boss", "adjudicator")
    other.blind_coding = True
    other.lock_after_reveal = False
    code(other, "dana", {("c1", 2, "overall"): 4}, done=[("c1", 2)])
    other.set_value(Unit("c1", 2), "overall", 2)  # after the reveal
    other.close()
    assert main(["merge", str(tmp_path / "lead.sense7"), str(tmp_path / "dana.sense7")]) == 0
    with Project.open(tmp_path / "lead.sense7", backup=False) as p:
        assert stored(p, "dana", "c1", 2) == 4
        assert p.db.execute("SELECT coder, value FROM revisions").fetchall() == [("dana", 2)]
    # a hand-edited revision off the scale is refused like any coding
    conn = sqlite3.connect(tmp_path / "dana.sense7")
    conn.execute("UPDATE revisions SET value = 9")
    conn.commit()
    conn.close()
    assert main(["merge", str(tmp_path / "lead.sense7"), str(tmp_path / "dana.sense7")]) == 2


def test_the_workspace_keeps_the_blind_value_and_shows_the_latest(
        gui: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    project = blind_study(tmp_path, lock=False)
    path = project.path
    project.close()
    w = gui.open(path, coder="alice")  # type: ignore[attr-defined]
    ws = w.workspace
    assert ws.go_to("c1", 2)
    assert ws.coding.value_of("overall") == 5
    assert ws.choose("overall", 1)  # after the reveal: kept beside the blind value
    assert ws.coding.value_of("overall") == 1
    assert gui.stored(path, "alice", "c1", 2, "overall") == 5  # type: ignore[attr-defined]
    assert ws.clear("overall")  # takes the change back: the blind value shows again
    assert ws.coding.value_of("overall") == 5
    with Project.open(path, backup=False) as p:
        p.set_coder("lead")
        p.lock_after_reveal = True
    assert ws.go_to("c1", 2)
    assert not ws.choose("overall", 2)  # locked: refused, with the reason in the window
    assert len(warnings) == 1 and "locked" in warnings[0]
    assert ws.coding.value_of("overall") == 5


def test_the_lead_turns_the_lock_off_in_the_team_window(qtbot: object, locked: Project
                                                         ) -> None:
    from sense7_coder.ui.team_dialog import TeamDialog

    locked.set_coder("lead")
    dialog = TeamDialog(locked)
    qtbot.addWidget(dialog)  # type: ignore[attr-defined]
    assert dialog.lock_revealed.isChecked()
    dialog.lock_revealed.setChecked(False)
    assert not locked.lock_after_reveal
    locked.set_coder("alice")
    locked.set_value(Unit("c1", 2), "overall", 1)  # kept beside the blind value now
    assert stored(locked, "alice", "c1", 2) == 5


def test_undo_puts_back_how_a_value_was_made(locked: Project, tmp_path: Path) -> None:
    csv_path = tmp_path / "extra.csv"
    csv_path.write_text("coder,conversation_id,turn,code,value\nlead,c3,4,overall,4\n",
                        encoding="utf-8")
    from sense7_coder.project.imports import import_codings

    locked.set_coder("lead")
    import_codings(locked, csv_path)
    locked.set_value(Unit("c3", 4), "overall", 2)
    made = "SELECT value, source, origin FROM codings WHERE coder = 'lead'"
    assert locked.db.execute(made).fetchall() == [(2, "coded", None)]
    locked.undo()
    assert locked.db.execute(made).fetchall() == [(4, "imported", "extra.csv")]
    locked.redo()
    assert locked.db.execute(made).fetchall() == [(2, "coded", None)]


def test_the_wide_spss_file_labels_the_provenance_columns(revised: Project,
                                                          tmp_path: Path) -> None:
    import pyreadstat

    from sense7_coder.project.export import export_project

    out = tmp_path / "wide.sav"
    export_project(revised, out, "wide", provenance=True)
    frame, meta = pyreadstat.read_sav(str(out))
    labels = dict(zip(meta.column_names, meta.column_labels, strict=True))
    assert labels["overall__alice__source"] == "Overall empathy (overall), coded by alice: source"
    assert "overall__alice__source" not in meta.variable_value_labels  # text, not levels
    assert meta.variable_value_labels["overall__alice__after_reveal"][1.0] == "very poor"
    assert list(frame["overall__alice__source"])[:1] == ["coded"]

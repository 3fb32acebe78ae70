"""Calibration rounds: a lead samples conversations (seeded, stratified when asked) for every
listed coder under the codebook as it stands and a threshold set before; a round's status
gives alpha per code against it and what to discuss first; closing records the figures; the
next round waits for a revised codebook; the main coding's reliability subsample is
compared with the last round (drift). Command line and window."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, conversation_lines, make_project

from sense7_coder.cli import main
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project import rounds as rp
from sense7_coder.project.assignments import assign
from sense7_coder.project.codebook.editing import update_code

#: 30 conversations, two assistants (20 of model a, 10 of model b)
CHATS = [(f"k{i:02d}", f"p{i}", "a" if i % 3 else "b", 3, 4) for i in range(30)]


@pytest.fixture
def study(tmp_path: Path) -> Project:
    project = make_project(tmp_path, conversations=conversation_lines(CHATS))
    project.set_coder("lead", "adjudicator")
    return project


def code_round(project: Project, cids: list[str], agree: bool) -> None:
    """alice and bob code turns 2 and 4 of ``cids``: the same values, or bob off by two."""
    for coder in ("alice", "bob"):
        values = {}
        for i, cid in enumerate(cids):
            for pos in (2, 4):
                v = 1 + (i + pos) % 5
                if coder == "bob" and not agree:
                    v = 1 + (v + 1) % 5
                values[(cid, pos, "overall")] = v
        code(project, coder, values)
    project.set_coder("lead")


def overall(status: rp.RoundStatus) -> rp.CodeVerdict:
    return next(v for v in status.verdicts if v.code == "overall")


def test_a_round_samples_assigns_records_and_judges_against_its_threshold(
        study: Project) -> None:
    number, _ = rp.start_round(study, sample_size=9, seed=4, coders=["alice", "bob"],
                               threshold=0.8, stratify="model")
    assert number == 1
    (r,) = rp.rounds(study)
    cids = rp.store.conversations(study.db, 1)
    models = [cid for cid in cids if int(cid[1:]) % 3 == 0]
    assert len(cids) == 9 and len(models) == 3  # model b's share: 10 of 30
    assert r["codebook_version"] == 1 and r["threshold"] == 0.8 and r["coders"] == ["alice",
                                                                                    "bob"]
    mine = {a["conversation_id"] for a in rp.store_assignments.all_assignments(study.db)
            if a["coder"] == "alice"}
    assert mine == set(cids)  # every listed coder gets the whole sample
    # the same seed draws the same sample in another project
    assert rp.sample([c for c, *_ in CHATS], 9, 4) == rp.sample([c for c, *_ in CHATS], 9, 4)
    code_round(study, cids, agree=True)
    status = rp.round_status(study, draws=200)
    v = overall(status)
    assert v.alpha == 1.0 and v.met and v.verdict() == "met" and v.units == 18
    assert status.discuss == []
    with pytest.raises(ProjectError, match="round 1 is still open"):
        rp.start_round(study, sample_size=4, seed=1, coders=["alice", "bob"], threshold=0.8)
    closed = rp.close_round(study, draws=200)
    assert closed.round["closed_at"] is not None
    assert [(f["round"], f["code"], f["met"]) for f in rp.results(study)
            if f["code"] == "overall"] == [(1, "overall", 1)]
    with pytest.raises(ProjectError, match="was closed"):
        rp.close_round(study, 1)


def test_the_next_round_waits_for_a_revised_codebook_and_shows_what_to_discuss(
        study: Project) -> None:
    rp.start_round(study, sample_size=6, seed=1, coders=["alice", "bob"], threshold=0.667)
    code_round(study, rp.store.conversations(study.db, 1), agree=False)
    status = rp.close_round(study, draws=200)
    v = overall(status)
    assert not v.met and v.verdict().startswith("not met")
    assert status.discuss and status.discuss[0].code == "overall"
    assert status.discuss[0].spread >= status.discuss[-1].spread  # furthest apart first
    with pytest.raises(ProjectError, match="has not changed since round 1"):
        rp.start_round(study, sample_size=6, seed=2, coders=["alice", "bob"], threshold=0.667)
    revised = copy.deepcopy(study.code("overall"))
    revised.description = "Revised after round 1: judge the whole turn"
    update_code(study, revised)
    number, _ = rp.start_round(study, sample_size=6, seed=2, coders=["alice", "bob"],
                               threshold=0.667)
    assert rp.rounds(study)[-1]["codebook_version"] == 2
    second = set(rp.store.conversations(study.db, number))
    assert not second & set(rp.store.conversations(study.db, 1))  # fresh conversations
    with pytest.raises(ProjectError, match="round 2: no two coders coded its conversations"):
        rp.close_round(study, draws=50)
    code_round(study, sorted(second), agree=True)
    assert overall(rp.close_round(study, draws=50)).met
    rp.start_round(study, sample_size=2, seed=3, coders=["alice", "bob"], threshold=0.667,
                   same_codebook=True)  # the lead may keep the codebook, saying so


def test_refusals(study: Project) -> None:
    with pytest.raises(ProjectError, match="two or more different coders"):
        rp.start_round(study, sample_size=4, seed=0, coders=["alice"], threshold=0.8)
    with pytest.raises(ProjectError, match="between 0 and 1"):
        rp.start_round(study, sample_size=4, seed=0, coders=["alice", "bob"], threshold=80)
    with pytest.raises(ProjectError, match="only 30 conversations are assigned to no one"):
        rp.start_round(study, sample_size=31, seed=0, coders=["alice", "bob"], threshold=0.8)
    with pytest.raises(ProjectError, match="no conversation has that attribute"):
        rp.start_round(study, sample_size=4, seed=0, coders=["alice", "bob"], threshold=0.8,
                       stratify="colour")
    with pytest.raises(ProjectError, match="no calibration round yet"):
        rp.round_status(study)
    study.set_coder("alice")
    with pytest.raises(ProjectError, match="only a lead"):
        rp.start_round(study, sample_size=4, seed=0, coders=["alice", "bob"], threshold=0.8)
    assert rp.rounds(study) == []


def test_drift_compares_the_reliability_subsample_with_the_last_round(study: Project) -> None:
    rp.start_round(study, sample_size=8, seed=1, coders=["alice", "bob"], threshold=0.667)
    code_round(study, rp.store.conversations(study.db, 1), agree=True)
    rp.close_round(study, draws=100)
    with pytest.raises(ProjectError, match="no reliability subsample"):
        rp.drift(study)
    assign(study, ["alice", "bob"], overlap=0.6, seed=2)
    shared = sorted({a["conversation_id"] for a in rp.store_assignments.all_assignments(study.db)
                     if a["overlap"]} - set(rp.store.conversations(study.db, 1)))
    code_round(study, shared, agree=False)  # the coders drifted apart in the main coding
    last, n, rows = rp.drift(study, draws=200)
    d = next(d for d in rows if d.code == "overall")
    assert last["number"] == 1 and n == len(shared) >= 10
    assert d.round_alpha == 1.0 and d.reading() == "drift: lower than in the round"


def test_the_command_line_runs_the_procedure(study: Project,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = study.path
    study.close()
    base = ["--as", "lead"]
    assert main(["round", "start", str(path), "--sample", "6", "--seed", "3", "--coders",
                 "alice,bob", "--threshold", ".800", *base]) == 0
    out = capsys.readouterr().out
    assert "round 1: 6 conversations (seed 3) assigned to alice, bob; codebook version 1" in out
    with Project.open(path, backup=False) as project:
        code_round(project, rp.store.conversations(project.db, 1), agree=False)
    assert main(["round", "status", str(path), "--bootstrap", "100", *base]) == 0
    out = capsys.readouterr().out
    assert "threshold 0.800" in out and "worth discussing first" in out
    assert "overall" in out and "BCa" in out
    assert main(["round", "close", str(path), "--bootstrap", "100", "--format", "json",
                 *base]) == 0
    closed = json.loads(capsys.readouterr().out)
    assert closed["round"]["closed_at"] and any(c["code"] == "overall" for c in closed["codes"])
    assert main(["round", "list", str(path), *base]) == 0
    assert "round 1 (closed)" in capsys.readouterr().out
    assert main(["round", "start", str(path), "--sample", "6", "--coders", "alice,bob",
                 "--threshold", ".8", *base]) == 2
    assert "has not changed since round 1" in capsys.readouterr().err


def test_the_rounds_window_shows_verdicts_what_to_discuss_and_drift(
        study: Project, qtbot: Any) -> None:
    from sense7_coder.ui.rounds_dialog import RoundsDialog

    rp.start_round(study, sample_size=6, seed=1, coders=["alice", "bob"], threshold=0.8)
    code_round(study, rp.store.conversations(study.db, 1), agree=False)
    dialog = RoundsDialog(study, draws=100)
    qtbot.addWidget(dialog)
    assert dialog.choice.currentText() == "1 (open)"
    rows = {dialog.verdicts.item(i, 0).text(): i for i in range(dialog.verdicts.rowCount())}
    row = rows["overall"]
    assert dialog.verdicts.item(row, 4).text().startswith("not met")
    assert "BCa" in dialog.verdicts.item(row, 2).text()
    assert "overall" in dialog.discuss.toPlainText()
    assert "no closed calibration round" in dialog.drift_label.text()
    assert dialog.close_round()
    assert dialog.choice.currentText() == "1 (closed)"
    assert not dialog.close_button.isEnabled()


def test_the_methods_paragraph_and_the_report_tell_the_calibration(
        study: Project, tmp_path: Path) -> None:
    from sense7_coder.domain.agreement_settings import AgreementSettings
    from sense7_coder.project.agreement import methods_paragraph, project_agreement
    from sense7_coder.project.analysis_report import image_html
    from sense7_coder.project.calibration import calibration_html
    from sense7_coder.project.selection import Selection

    rp.start_round(study, sample_size=6, seed=1, coders=["alice", "bob"], threshold=0.8)
    code_round(study, rp.store.conversations(study.db, 1), agree=False)
    rp.close_round(study, draws=100)
    revised = copy.deepcopy(study.code("overall"))
    revised.description = "Revised after round 1"
    update_code(study, revised)
    rp.start_round(study, sample_size=6, seed=2, coders=["alice", "bob"], threshold=0.8)
    code_round(study, rp.store.conversations(study.db, 2), agree=True)
    rp.close_round(study, draws=100)
    options = (Selection(codes=["overall"], include_consensus=False),
               AgreementSettings(bootstrap=50))
    report = project_agreement(study, *options)
    text = methods_paragraph(study, report, *options)
    assert "calibrated in 2 rounds" in text and "threshold when the lower end" in text
    assert "Round 2 after the codebook was revised (overall changed)" in text
    assert "codebook version 1" in text and "codebook version 2" in text
    assert "Each code first met the threshold in: overall round 2" in text
    assert "Neuendorf, K. A. (2017)" in text and "Krippendorff, K. (2019)" in text
    latex = methods_paragraph(study, report, *options, fmt="latex")
    assert "overall $-$." in latex or "$-$" in latex.split("Round 1", 1)[1]
    page, figures = calibration_html(study, tmp_path, True, image_html)
    assert 'id="calibration"' in page and "calibrated in 2 rounds" in page
    assert [p.name for p in figures] == ["calibration_rounds.png", "calibration_rounds.svg"]
    assert page.count("<tr><td>") >= 2 and "not met" in page and ">met<" in page

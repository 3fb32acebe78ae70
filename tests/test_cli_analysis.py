"""The analysis commands as a researcher runs them: agreement, export, merge, consensus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from analysis_support import code, make_project, state

from sense7_coder.cli import main
from sense7_coder.domain.measures import MEASURES_BY_KEY
from sense7_coder.project import Project


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def study(tmp_path: Path) -> Path:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 4, ("c1", 4, "overall"): 5,
                            ("c2", 2, "overall"): 2, ("c2", 4, "overall"): 3,
                            ("c3", 2, "overall"): 5, ("c4", 2, "overall"): 1})
    code(project, "bashir", {("c1", 2, "overall"): 4, ("c1", 4, "overall"): 4,
                             ("c2", 2, "overall"): 2, ("c2", 4, "overall"): 3,
                             ("c3", 2, "overall"): 4, ("c4", 2, "overall"): 1})
    project.close()
    return tmp_path / "study.sense7"


def test_agreement_json_lists_records(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "agreement", study, "--format", "json", "--bootstrap", "100",
                           "--include-users")
    assert status == 0, err
    records = json.loads(out)
    for r in records:
        assert {"code", "measure", "level", "weights", "coders", "value", "n_units", "ci_low",
                "ci_high"} <= set(r)
    measures = {r["measure"] for r in records}
    assert measures == set(MEASURES_BY_KEY)  # every measure of the table
    alpha = next(r for r in records if r["measure"] == "krippendorff_alpha"
                 and r["coders"] == ["alice", "bashir"])
    assert alpha["level"] == "ordinal" and alpha["n_units"] == 6
    assert alpha["ci_low"] <= alpha["value"] <= alpha["ci_high"]
    assert {r["weights"] for r in records if r["measure"] == "cohen_kappa"} == {
        "none", "linear", "quadratic"}
    assert any(r["coders"] == ["alice", "users"] for r in records)


def test_agreement_table_and_csv(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "agreement", study, "--bootstrap", "0", "--codes", "overall")
    assert status == 0
    lines = out.splitlines()
    header = lines[0].split()
    assert header[:4] == ["code", "measure", "level/weights", "raters"]
    alpha_line = next(line for line in lines if "krippendorff_alpha" in line)
    # six units are below the default minimum of ten: no good/tentative/low band
    assert "alice, bashir" in alpha_line and alpha_line.endswith("too few units")
    assert "good >= .800, tentative >= .667" in out
    # every row of the table is aligned under the header
    assert lines[2].index("krippendorff_alpha") == lines[0].index("measure")
    status, out, _ = run(capsys, "agreement", study, "--bootstrap", "0", "--format", "csv")
    assert status == 0 and out.splitlines()[0].startswith("code,measure,level,weights,coders")


def test_agreement_errors_are_one_line(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "agreement", study, "--codes", "warmth")
    assert status == 2 and out == ""
    assert err.startswith("sense7-coder: error: no code 'warmth'") and err.count("\n") == 1
    status, _, err = run(capsys, "agreement", study, "--coders", "alice,zoe")
    assert status == 2 and "no coder 'zoe'" in err
    status, _, err = run(capsys, "agreement", study.parent / "nothing.sense7")
    assert status == 2 and "no such project file" in err
    status, _, err = run(capsys, "agreement", study, "--attribute", "novalue")
    assert status == 2 and "NAME=VALUE" in err


def test_export_kinds_and_raw(study: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    for kind in ("long", "wide", "consensus", "agreement", "codebook"):
        out = tmp_path / f"{kind}.csv"
        draws = ["--bootstrap", "0"] if kind == "agreement" else []
        status, text, err = run(capsys, "export", study, out, "--kind", kind, *draws)
        assert status == 0, err
        assert text.startswith(f"wrote {out}") and out.exists()
    status, _, err = run(capsys, "export", study, tmp_path / "no" / "x.csv", "--kind", "long")
    assert status == 2 and "does not exist" in err
    with Project.open(study, backup=False) as project:
        code(project, "@bob", {("c1", 2, "overall"): 3})
    run(capsys, "export", study, tmp_path / "safe.csv", "--kind", "long")
    run(capsys, "export", study, tmp_path / "raw.csv", "--kind", "long", "--raw")
    assert "\n'@bob," in (tmp_path / "safe.csv").read_text(encoding="utf-8")
    assert "\n@bob," in (tmp_path / "raw.csv").read_text(encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:  # argparse refuses an unknown kind
        main(["export", str(study), str(tmp_path / "x.csv"), "--kind", "pretty"])
    assert exit_.value.code == 2 and "invalid choice: 'pretty'" in capsys.readouterr().err


def test_merge_statuses(study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.sense7"
    shutil.copy(study, mine)
    with Project.open(mine, backup=False) as p:
        code(p, "chen", {("c1", 2, "overall"): 3})
    status, out, _ = run(capsys, "merge", study, mine, "--dry-run")
    assert status == 0 and "would add 1 coding" in out and "dry run" in out
    status, out, _ = run(capsys, "merge", study, mine)
    assert status == 0 and "added 1 coding (" in out and "new coders: chen" in out
    status, out, _ = run(capsys, "merge", study, mine)
    assert status == 0 and "nothing new" in out

    theirs = tmp_path / "theirs.sense7"
    shutil.copy(study, theirs)
    with Project.open(theirs, backup=False) as p:
        code(p, "chen", {("c1", 2, "overall"): 1})
    with Project.open(study, backup=False) as p:
        before = state(p)
    status, out, err = run(capsys, "merge", study, theirs)
    assert status == 3 and out == ""
    assert "coder 'chen', code 'overall', conversation 'c1', turn 2: target has 3, source has 1" \
        in err
    assert err.splitlines()[-1].startswith("sense7-coder: error: merge refused")
    with Project.open(study, backup=False) as p:
        assert state(p) == before
    status, out, _ = run(capsys, "merge", study, theirs, "--on-conflict", "keep-target")
    assert status == 0 and "1 target value kept" in out
    assert "target has 3, source has 1; kept the target's" in out
    # a coder's correction in her own file: taken, and reported row by row
    status, out, _ = run(capsys, "merge", study, theirs, "--on-conflict", "keep-source")
    assert status == 0 and "1 value replaced" in out
    assert "target has 3, source has 1; kept the source's" in out
    with Project.open(study, backup=False) as p:
        assert ("chen", "c1", 2, 0, "overall", 1) in state(p)["codings"]
    status, out, _ = run(capsys, "merge", study, theirs, "--on-conflict", "newest")
    assert status == 0 and "nothing new" in out  # the files agree now

    status, _, err = run(capsys, "merge", study, tmp_path / "missing.sense7")
    assert status == 2 and "no such project file" in err


def test_consensus_command(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "consensus", study, "--codes", "overall")
    assert status == 0
    assert out.splitlines()[0].split() == ["code", "compared", "disagreeing", "decided", "open",
                                           "consensus"]
    assert "overall" in out and "c1 turn 4" in out  # alice 5 vs bashir 4
    status, _, err = run(capsys, "consensus", study, "--accept-majority")
    assert status == 2 and "--coder" in err
    status, _, err = run(capsys, "consensus", study, "--accept-majority", "--coder", "dana")
    assert status == 2 and "only an adjudicator" in err
    status, out, _ = run(capsys, "consensus", study, "--accept-majority", "--coder", "dana",
                         "--role", "adjudicator", "--format", "json")
    assert status == 0
    result = json.loads(out)
    assert result["accepted"] == 4  # the four units where alice and bashir agree
    (progress,) = [p for p in result["progress"] if p["code"] == "overall"]
    assert (progress["compared"], progress["disagreeing"], progress["consensus"]) == (6, 2, 4)
    assert result["open_total"] == 2
    assert {r["coders"][0] for r in result["coders_vs_consensus"]} == {"alice", "bashir"}


@pytest.mark.parametrize("command", ["agreement", "export"])
def test_more_bootstrap_draws_than_can_finish_are_refused_at_once(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    """A hundred million draws ran for hours (every code, span codes first) instead of
    saying the number is out of reach; 100,000 is the most a run takes."""
    extra = [str(tmp_path / "a.csv"), "--kind", "agreement"] if command == "export" else []
    code, _, err = run(capsys, command, demo_project, *extra, "--bootstrap", "100000000")
    assert code == 2
    assert err == ("sense7-coder: error: at most 100,000 bootstrap draws are taken, "
                   "got 100,000,000\n")
    assert not (tmp_path / "a.csv").exists()


@pytest.mark.parametrize("below", ["", "sub"])
def test_analyze_into_a_file_says_a_folder_is_needed(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        below: str) -> None:
    """--out naming a file (or a path under one) gave only the system's 'File exists' /
    'Not a directory', with exit status 1, and did not say a folder is wanted."""
    taken = tmp_path / "results.csv"
    taken.write_text("kept\n", encoding="utf-8")
    out = taken / below if below else taken
    code, _, err = run(capsys, "analyze", demo_project, "--out", out, "--no-figures")
    assert code == 2 and err.count("\n") == 1
    assert err == (f"sense7-coder: error: {out}: {taken} is a file; the analyses are "
                   "written into a folder: give a folder's name\n")
    assert taken.read_text(encoding="utf-8") == "kept\n"


def test_export_refuses_options_its_kind_ignores(study: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """final always writes the latest values: --values blind was accepted and the file came
    out byte-identical to --values final; now every ignored option is refused in one line,
    and nothing is written."""
    out = tmp_path / "final.csv"
    status, _, err = run(capsys, "export", study, out, "--kind", "final", "--values", "blind")
    assert status == 2 and not out.exists()
    assert "export --kind final ignores --values (only --kind agreement reads it)" in err
    assert len(err.strip().splitlines()) == 1
    status, _, err = run(capsys, "export", study, out, "--kind", "long", "--bootstrap", "10",
                         "--ci", "bca", "--scope", "span")
    assert status == 2 and "ignores --bootstrap, --ci, --scope" in err
    assert "--kind agreement, cooccurrence read them" in err
    status, _, err = run(capsys, "export", study, out, "--kind", "codebook", "--provenance")
    assert status == 2 and "only --kind consensus, final, long, wide read it" in err
    # the options the kind reads still work, and their defaults stand where not given
    status, _, err = run(capsys, "export", study, out, "--kind", "final", "--provenance")
    assert status == 0, err
    agreement = tmp_path / "agreement.csv"
    status, _, err = run(capsys, "export", study, agreement, "--kind", "agreement",
                         "--bootstrap", "50", "--values", "final")
    assert status == 0, err
    text = agreement.read_text(encoding="utf-8")
    assert "BCa bootstrap over units, 50 draws, seed 0" in text

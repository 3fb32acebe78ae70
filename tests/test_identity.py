"""Who acts: roles, the lead passphrase, identity in the history, blinding enforced in the
project layer and on the command line, and coder packages that hold nothing blinding hides."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.analyses import run_analyses
from sense7_coder.project.assignments import assign
from sense7_coder.project.exchange import export_qdpx
from sense7_coder.project.export import export_frame
from sense7_coder.project.identity import PassphraseNeeded
from sense7_coder.project.merge.merging import merge
from sense7_coder.project.package import make_package
from sense7_coder.project.prediction.predictors import evaluate_all, predictor_counts
from sense7_coder.project.reconcile import coders_vs_consensus, disagreements, unit_values
from sense7_coder.project.selection import Selection
from sense7_coder.project.team.tables import history_table, retrieve

SECRET = "correct horse battery"


def _study(tmp_path: Path, *, blind: bool = True) -> Project:
    """lee leads; ana and bob coded c1 turn 2 apart."""
    p = make_project(tmp_path)
    p.set_coder("lee", "adjudicator")
    code(p, "ana", {("c1", 2, "overall"): 4})
    code(p, "bob", {("c1", 2, "overall"): 2})
    p.set_coder("lee")
    if blind:
        p.blind_coding = True
    return p


def _history(project: Project, kind: str) -> list[dict[str, Any]]:
    return [r for r in history_table(project).to_dict("records") if r["kind"] == kind]


# -- roles and identity --------------------------------------------------------------------------

def test_a_new_name_is_a_coder_and_only_a_lead_changes_roles(tmp_path: Path) -> None:
    p = _study(tmp_path, blind=False)
    p.set_coder("alice")
    assert p.coder_role("alice") == "coder"
    with pytest.raises(ProjectError, match="only a lead"):
        p.set_role("bob", "adjudicator")
    with pytest.raises(ProjectError, match="only a lead"):
        p.set_coder("alice", "adjudicator")  # nobody promotes themselves
    with pytest.raises(ProjectError, match="only a lead"):
        p.set_role("lee", "coder")
    assert p.coder_role("alice") == "coder" and p.coder_role("lee") == "adjudicator"
    with pytest.raises(ProjectError, match="no coder 'zoe'"):
        p.set_role("zoe", "coder")
    p.set_coder("lee")
    p.set_role("alice", "adjudicator")
    p.blind_coding = True
    assert p.coder_role("alice") == "adjudicator"

    roles = _history(p, "role")
    assert {"coder": "alice", "action": "change", "before": "coder", "after": "adjudicator",
            "actor": "lee"}.items() <= roles[-1].items()
    assert [(r["coder"], r["after"]) for r in roles if r["action"] == "set"][:1] == \
        [("lee", "coder")]
    switches = [(r["before"], r["after"], r["actor"]) for r in _history(p, "identity")]
    assert ("lee", "alice", "lee") in switches and ("alice", "lee", "alice") in switches
    blind = _history(p, "setting")
    assert [(r["code"], r["before"], r["after"]) for r in blind] == [("blind_coding", "", "1")]
    p.close()
    # the history export carries them too
    out = tmp_path / "h.csv"
    assert main(["export", str(p.path), str(out), "--kind", "history", "--as", "lee"]) == 0
    with out.open(encoding="utf-8", newline="") as fh:
        kinds = {r["kind"] for r in csv.DictReader(fh)}
    assert {"role", "identity", "setting"} <= kinds


def test_the_lead_passphrase_is_a_slow_salted_hash_asked_for_lead_identities(
        tmp_path: Path) -> None:
    p = _study(tmp_path, blind=False)
    p.set_lead_passphrase(SECRET)
    stored = p.setting("lead_passphrase") or ""
    assert stored.startswith("scrypt:16384:8:1:") and SECRET not in stored
    p.set_coder("ana")
    with pytest.raises(ProjectError, match="only a lead"):
        p.set_lead_passphrase("mine now")
    assert ("lead_passphrase", "", "set") in [
        (r["code"], r["before"], r["after"]) for r in _history(p, "setting")]
    assert stored not in history_table(p).to_csv()  # the hash never enters the history
    p.close()

    with Project.open(p.path, backup=False) as again:
        again.set_coder("bob")  # a coder needs nothing
        with pytest.raises(PassphraseNeeded):
            again.set_coder("lee")
        with pytest.raises(ProjectError, match="wrong lead passphrase"):
            again.set_coder("lee", passphrase="guess")
        assert again.coder == "bob" and not again.is_lead()
        again.set_coder("lee", passphrase=SECRET)
        assert again.is_lead()
        again.set_coder("lee")  # the same identity again asks nothing
        with pytest.raises(ProjectError, match="only lead and a lead passphrase is set"):
            again.set_role("lee", "coder")  # nobody could lead the study again
        again.set_lead_passphrase(None)
    # a hash edited by hand (a cheaper cost) matches nothing
    con = sqlite3.connect(p.path)
    cheap = stored.replace("scrypt:16384:", "scrypt:2:")
    con.execute("UPDATE meta SET value = ? WHERE key = 'lead_passphrase'", [cheap])
    con.commit()
    con.close()
    with Project.open(p.path, backup=False) as edited, \
            pytest.raises(ProjectError, match="wrong lead passphrase"):
        edited.set_coder("lee", passphrase=SECRET)


def test_command_line_asks_the_passphrase_for_as_lead(tmp_path: Path, capsys: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    p = _study(tmp_path)
    p.set_lead_passphrase(SECRET)
    p.close()
    path = str(p.path)
    monkeypatch.delenv("SENSE7_CODER_PASSPHRASE", raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(["agreement", path, "--codes", "overall", "--as", "lee"]) == 2
    err = capsys.readouterr().err
    assert "SENSE7_CODER_PASSPHRASE" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("SENSE7_CODER_PASSPHRASE", "guess")
    assert main(["agreement", path, "--codes", "overall", "--as", "lee"]) == 2
    assert "wrong lead passphrase" in capsys.readouterr().err
    monkeypatch.setenv("SENSE7_CODER_PASSPHRASE", SECRET)
    assert main(["agreement", path, "--codes", "overall", "--as", "lee"]) == 0
    assert "overall" in capsys.readouterr().out
    # at a terminal it is asked with getpass
    monkeypatch.delenv("SENSE7_CODER_PASSPHRASE")
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    asked: list[str] = []

    def getpass(prompt: str = "") -> str:
        asked.append(prompt)
        return SECRET

    monkeypatch.setattr("getpass.getpass", getpass)
    assert main(["agreement", path, "--codes", "overall", "--as", "lee"]) == 0
    assert asked == ["lead passphrase: "]
    # lead-only commands need it too: nobody named is not a lead
    assert main(["assign", path, "--coders", "ana,bob"]) == 2
    assert "--as NAME" in capsys.readouterr().err


# -- blinding below the window --------------------------------------------------------------------

def test_every_view_of_what_blinding_hides_is_refused_to_a_blind_coder(tmp_path: Path) -> None:
    p = _study(tmp_path)
    p.set_coder("ana")
    refused = {
        "agreement": lambda: project_agreement(p, Selection(codes=["overall"])),
        "reconcile": lambda: disagreements(p, Selection(codes=["overall"])),
        "unit values": lambda: unit_values(p, Unit("c1", 2), "overall"),
        "vs consensus": lambda: coders_vs_consensus(p, Selection(codes=["overall"])),
        "long export": lambda: export_frame(p, "long"),
        "history export": lambda: export_frame(p, "history"),
        "ratings export": lambda: export_frame(p, "ratings"),
        "history": lambda: history_table(p),
        "analyze": lambda: run_analyses(p, tmp_path / "out", figures=False),
        "classify evaluation": lambda: evaluate_all(p),
        "qdpx": lambda: export_qdpx(p, tmp_path / "x.qdpx"),
    }
    for what, call in refused.items():
        with pytest.raises(ProjectError, match="'ana' codes blind"):
            call()
        assert what
    assert not (tmp_path / "x.qdpx").exists() and not (tmp_path / "out").exists()
    # retrieval shows only her own work; the codebook is no secret
    assert set(retrieve(p, "overall")["coder"]) == {"ana"}
    assert len(export_frame(p, "codebook")) > 0
    p.set_coder("lee")  # the lead sees it all
    assert set(unit_values(p, Unit("c1", 2), "overall")) == {"ana", "bob"}
    assert len(export_frame(p, "long")) == 2
    p.close()


def test_command_line_acts_as_a_coder_on_a_blind_project(tmp_path: Path, capsys: Any) -> None:
    p = _study(tmp_path)
    p.close()
    path, out = str(p.path), str(tmp_path / "long.csv")
    for argv in (["agreement", path], ["export", path, out, "--kind", "long"],
                 ["consensus", path], ["export", path, out, "--kind", "long", "--as", "ana"],
                 ["classify", path, "--evaluate", "--model", "baseline"],
                 ["analyze", path, "--out", str(tmp_path / "an")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "blind" in err, err
    assert not Path(out).exists()
    assert main(["export", path, out, "--kind", "long", "--as", "nobody"]) == 2
    assert "no coder 'nobody'" in capsys.readouterr().err
    assert main(["export", path, out, "--kind", "long", "--as", "lee"]) == 0
    assert Path(out).exists()
    assert main(["export", path, str(tmp_path / "cb.csv"), "--kind", "codebook"]) == 0
    assert main(["consensus", path, "--accept-majority", "--as", "lee"]) == 0  # decides as lee
    assert "accepted the majority on 0 units" in capsys.readouterr().out
    with Project.open(p.path, backup=False) as again:  # --as named nobody new
        assert {c["name"] for c in again.coders()} == {"lee", "ana", "bob"}
        assert not predictor_counts(again)  # refused before the baseline ran


# -- packages ---------------------------------------------------------------------------------------

def test_a_package_holds_nothing_blinding_hides_and_codes_only_as_its_coder(
        tmp_path: Path) -> None:
    p = _study(tmp_path)
    p.hidden_attributes = ["model", "week"]
    p.set_lead_passphrase(SECRET)
    with p.pdb.atomic() as db:
        db.execute("UPDATE turns SET comment = 'the user loved it', speaker = 'GPT4' "
                   "WHERE conversation_id = 'c1' AND position = 2")
    p.set_consensus(Unit("c1", 2), "overall", 3)
    p.set_coder("bob")
    p.set_memo(Unit("c1", 2), "bob thinks so")
    p.set_coder("lee", passphrase=SECRET)
    assign(p, ["ana", "bob"], overlap=1.0)
    p.set_coder("ana")
    p.set_memo(Unit("c1", 2), "a note of ana")
    p.set_coder("lee", passphrase=SECRET)
    make_package(p, "ana", tmp_path / "ana.sense7")

    con = sqlite3.connect(tmp_path / "ana.sense7")
    dump = "\n".join(con.iterdump())
    tables = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("user_ratings", "consensus")}
    coders = {r[0] for r in con.execute(
        "SELECT coder FROM codings UNION SELECT coder FROM memos UNION SELECT name FROM "
        "coders UNION SELECT coder FROM history WHERE coder IS NOT NULL")}
    keys = {r[0] for r in con.execute("SELECT key FROM meta")}
    models = con.execute("SELECT COUNT(*) FROM conversations WHERE model IS NOT NULL").fetchone()
    con.close()
    assert tables == {"user_ratings": 0, "consensus": 0}
    assert coders == {"ana"}
    assert "lead_passphrase" not in keys and "scrypt:" not in dump
    assert models == (0,)
    for hidden in ("GPT4", "the user loved it", "bob thinks so", '"week"'):
        assert hidden not in dump, hidden
    assert "a note of ana" in dump

    with Project.open(tmp_path / "ana.sense7", backup=False) as pkg:
        assert pkg.coder == "ana"  # opens as the coder it was made for
        with pytest.raises(ProjectError, match="codes only as 'ana'"):
            pkg.set_coder("bob")
        with pytest.raises(ProjectError, match="codes only as 'ana'"):
            pkg.set_coder("lee")
        pkg.set_value(Unit("c2", 2), "overall", 5)
        assert pkg.coder == "ana"
    report = merge(p, [tmp_path / "ana.sense7"])  # what was withheld does not stop a merge
    assert report.lines()
    assert p.db.execute("SELECT value FROM codings WHERE coder = 'ana' AND conversation_id = "
                        "'c2'").fetchone() == (5,)
    assert p.db.execute("SELECT model FROM conversations WHERE conversation_id = 'c1'"
                        ).fetchone() != (None,)
    p.close()


def test_a_background_connection_acts_as_its_window_does(tmp_path: Path) -> None:
    p = _study(tmp_path)
    p.set_lead_passphrase(SECRET)
    worker = Project.open(p.path, backup=False)
    with pytest.raises(ProjectError, match="coders code blind"):
        project_agreement(worker, Selection(codes=["overall"]))
    worker.act_as(p)  # the lead's window: the lead, passphrase given
    assert worker.coder == "lee" and worker.is_lead()
    assert project_agreement(worker, Selection(codes=["overall"])).records
    p.set_coder("ana")
    worker.act_as(p)  # a coder's window: a coder
    with pytest.raises(ProjectError, match="'ana' codes blind"):
        project_agreement(worker, Selection(codes=["overall"]))
    other = make_project(tmp_path, "other.sense7")
    with pytest.raises(ProjectError, match="is not"):
        other.act_as(p)
    for project in (worker, other, p):
        project.close()

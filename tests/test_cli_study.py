"""`sense7-coder study`: a study set up from the command line (roles, blind coding, the lock,
the lead passphrase, the attributes coders see), the --as rules applying, each change a
history row; `study PROJECT` alone prints the set-up."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from analysis_support import make_project

from sense7_coder.cli import main
from sense7_coder.project import Project


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    project = make_project(tmp_path)
    path = project.path
    project.close()
    return path


def history(path: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        return [tuple(r) for r in con.execute(
            "SELECT kind, coder, code, before, after FROM history "
            "WHERE kind IN ('setting', 'role') ORDER BY id")]
    finally:
        con.close()


def test_a_lead_scripts_the_set_up_and_each_change_is_a_history_row(
        fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "lead.txt"
    secret.write_text("correct horse\n", encoding="utf-8")
    assert main(["study", str(fresh), "--role", "lee=adjudicator", "--role", "ana=coder",
                 "--blind", "on", "--lock", "off", "--hide-attribute", "model",
                 "--passphrase-file", str(secret)]) == 0
    out = capsys.readouterr().out
    assert "new coder: lee (adjudicator)" in out and "blind coding: on" in out
    rows = history(fresh)
    assert ("role", "lee", None, None, "adjudicator") in rows
    assert ("role", "ana", None, None, "coder") in rows
    assert ("setting", None, "blind_coding", None, "1") in rows
    assert ("setting", None, "lock_after_reveal", None, "0") in rows
    assert ("setting", None, "hidden_attributes", None, "model") in rows
    assert ("setting", None, "lead_passphrase", None, "set") in rows  # never the hash
    # now the study has a lead, a passphrase and blind coding: the person at the file is
    # nobody, ana is a coder, and lee must give the passphrase
    before = history(fresh)
    assert main(["study", str(fresh), "--lock", "on"]) == 2
    assert main(["study", str(fresh), "--lock", "on", "--as", "ana"]) == 2
    assert "only a lead" in capsys.readouterr().err
    monkeypatch.setenv("SENSE7_CODER_PASSPHRASE", "wrong")
    assert main(["study", str(fresh), "--lock", "on", "--as", "lee"]) == 2
    assert history(fresh) == before
    monkeypatch.setenv("SENSE7_CODER_PASSPHRASE", "correct horse")
    assert main(["study", str(fresh), "--lock", "on", "--show-attribute", "model",
                 "--role", "ana=adjudicator", "--as", "lee"]) == 0
    assert history(fresh)[len(before):] == [
        ("role", "ana", None, "coder", "adjudicator"),
        ("setting", None, "lock_after_reveal", "0", "1"),
        ("setting", None, "hidden_attributes", "model", None),
    ]
    with Project.open(fresh, backup=False) as p:
        assert p.blind_coding and p.lock_after_reveal and p.hidden_attributes == []
        assert {c["name"]: c["role"] for c in p.coders()} == {"lee": "adjudicator",
                                                              "ana": "adjudicator"}


def test_study_alone_prints_the_set_up(fresh: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    assert main(["study", str(fresh), "--role", "lee=adjudicator", "--hide-attribute",
                 "week"]) == 0
    capsys.readouterr()
    assert main(["study", str(fresh)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "blind coding: off" in out and "lead passphrase: none" in out
    assert "coders: lee (adjudicator)" in out
    assert "attributes blind coders see: model" in out
    assert "attributes hidden from blind coders: week" in out
    assert main(["study", str(fresh), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["attributes"] == [
        {"name": "model", "users_judgment": False, "shown": True},
        {"name": "week", "users_judgment": False, "shown": False}]


def test_bad_requests_change_nothing(fresh: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = history(fresh)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    # read as every input file is: another encoding is named, the project is not a file
    wide = tmp_path / "wide.txt"
    wide.write_text("correct horse\n", encoding="utf-16")
    for args, said in (
            (["--passphrase-file", str(wide)], "wide.txt: the file is UTF-16 encoded"),
            (["--passphrase-file", str(fresh)], "is a sense7-coder project file"),
            (["--hide-attribute", "nosuch"], "no attribute 'nosuch'"),
            (["--role", "ana"], "NAME=ROLE"),
            (["--role", "ana=boss"], "must be one of"),
            (["--passphrase-file", str(empty)], "empty"),
            (["--blind", "on", "--passphrase-file", str(tmp_path / "missing.txt")],
             "cannot read"),
            (["--show-attribute", "week", "--hide-attribute", "week"], "both"),
    ):
        assert main(["study", str(fresh), *args]) == 2, args
        assert said in capsys.readouterr().err, args
    secret = tmp_path / "pw.txt"
    secret.write_text("pw\n", encoding="utf-8")
    # a passphrase with nobody to give it: refused, and the blind switch with it
    assert main(["study", str(fresh), "--blind", "on", "--passphrase-file", str(secret)]) == 2
    assert "no lead yet" in capsys.readouterr().err
    assert history(fresh) == before


def test_a_coder_package_is_not_set_up(fresh: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", str(fresh), "--role", "lee=adjudicator", "--role", "ana=coder"]
                ) == 0
    assert main(["assign", str(fresh), "--coders", "ana", "--as", "lee"]) == 0
    package = tmp_path / "ana.sense7"
    assert main(["package", str(fresh), "ana", str(package), "--as", "lee"]) == 0
    capsys.readouterr()
    assert main(["study", str(package), "--blind", "off"]) == 2
    assert "coder package of 'ana'" in capsys.readouterr().err
    assert main(["study", str(package)]) == 0
    assert "coder package of: ana" in capsys.readouterr().out

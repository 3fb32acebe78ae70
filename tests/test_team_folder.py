"""The team folder: three coders and a lead, each on a home folder of their own, linked
through a folder a sync service copies badly, code a blind study to the end; the lead's
project then holds what merging the coders' packages by hand gives, and no coder can read
another's work from the folder."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from analysis_support import make_project
from team_support import BadSync

from sense7_coder.domain import team_seal
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project, rationales
from sense7_coder.project.assignments import assign
from sense7_coder.project.merge.merging import merge
from sense7_coder.project.team.folder import FOR_CODERS, TO_LEAD, invite, join, link
from sense7_coder.project.team.sync import sync

CODERS = ("ana", "ben", "cai")
COMPARED = {
    "codings": "coder, conversation_id, position, sentence, code, value, source, blind",
    "revisions": "coder, conversation_id, position, sentence, code, value",
    "memos": "coder, conversation_id, position, sentence, text",
    "turn_status": "coder, conversation_id, position, done",
    "value_rationales": "coder, conversation_id, position, sentence, code, text",
}


def rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(path)
    try:
        return {t: sorted(map(tuple, con.execute(f"SELECT {c} FROM {t}")), key=repr)
                for t, c in COMPARED.items()}
    finally:
        con.close()


class Team:
    """The lead's and each coder's home folder, each with its own copy of the team folder."""

    def __init__(self, root: Path, seed: int = 0) -> None:
        self.root = root
        self.home = {who: root / who for who in ("lee", *CODERS, "ben2")}
        for home in self.home.values():
            (home / "team").mkdir(parents=True)
        self.net = BadSync([h / "team" for h in self.home.values()], seed)
        project = make_project(self.home["lee"])
        project.set_coder("lee", "adjudicator")
        project.blind_coding = True
        for coder in CODERS:
            project.set_coder(coder, "coder")
        project.set_coder("lee")
        assign(project, list(CODERS), overlap=0.5, seed=3)
        self.lead = project.path
        link(project, self.home["lee"] / "team", keys=self.keys("lee"))
        self.invitations = {c: invite(project, c, self.home["lee"] / f"{c}.invitation",
                                      keys=self.keys("lee")) for c in CODERS}
        project.close()
        # the lead's project as it was before any coder's work came: the by-hand baseline
        shutil.copy(self.lead, root / "before.sense7")

    def keys(self, who: str) -> Path:
        return self.home[who] / "keys"

    def package(self, who: str) -> Path:
        return self.home[who] / f"{who}.sense7"

    def join(self, who: str, coder: str) -> None:
        join(self.invitations[coder], self.package(who), folder=self.home[who] / "team",
             keys=self.keys(who))

    def sync(self, who: str) -> list[str]:
        path = self.lead if who == "lee" else self.package(who)
        return sync(path, keys=self.keys(who)).lines()


def code_some(path: Path, step: int, half: int | None = None) -> None:
    """Code the next few turns of the package at ``path``: values, a memo, done marks (of
    the conversations of one half only, when ``half`` is 0 or 1: one machine's share)."""
    with Project.open(path, backup=False) as p:
        turns = [(c, t) for c, t in p.db.execute(
            "SELECT conversation_id, position FROM turns WHERE role = 'assistant' "
            "ORDER BY conversation_id, position")]
        if half is not None:
            turns = turns[half::2]
        for cid, pos in turns[step::3]:
            p.set_value(Unit(cid, pos), "overall", 1 + (pos + step) % 5)
            p.set_value(Unit(cid, pos), "strategy", "advice")
            if step == 1:
                p.set_memo(Unit(cid, pos), f"{p.coder} secret note {cid}/{pos}")
                rationales.set_rationale(p, Unit(cid, pos), "strategy", f"{p.coder} says")
            if step >= 1:
                p.set_value(Unit(cid, pos), "overall", 5)  # a change of mind, after a sync
                p.set_done(cid, pos)
        if step == 2:  # a change of the first round's values, after it was sent; all done
            for cid, pos in turns[0::3]:
                p.set_value(Unit(cid, pos), "strategy", "question")
            for cid, pos in turns:
                p.set_done(cid, pos)


def test_three_coders_and_a_lead_through_a_badly_synced_folder_equal_a_by_hand_merge(
        tmp_path: Path) -> None:
    team = Team(tmp_path, seed=14)
    team.net.settle()  # the invitations go by hand; the packages through the folder
    for coder in CODERS:
        team.join(coder, coder)
    team.join("ben2", "ben")  # ben on a second machine
    for step in range(3):
        for who in (*CODERS, "ben2"):
            if team.package(who).exists():
                code_some(team.package(who), step, {"ben": 0, "ben2": 1}.get(who))
            team.sync(who)
        team.net.round()
        team.sync("lee")
        team.net.round()
    team.net.settle()
    for who in (*CODERS, "ben2"):
        team.sync(who)
    team.net.settle()
    report = team.sync("lee")
    assert team.net.mangled > 10  # the harness did misbehave
    again = team.sync("lee")
    assert again == ["nothing new"], again

    by_hand = tmp_path / "before.sense7"
    with Project.open(by_hand, backup=False) as lead:
        lead.set_coder("lee")
        merge(lead, [team.package(w) for w in (*CODERS, "ben2")], on_conflict="keep-source")
    got, want = rows(team.lead), rows(by_hand)
    assert got == want, ([r for r in got["codings"] if r not in want["codings"]],
                         [r for r in want["codings"] if r not in got["codings"]], report)
    assert {r[0] for r in got["codings"]} == set(CODERS)
    with Project.open(team.lead, backup=False) as lead:  # coded to the end
        for coder in CODERS:
            assigned = {r[0] for r in lead.db.execute(
                "SELECT conversation_id FROM assignments WHERE coder = ?", [coder])}
            done = {(r[0], r[1]) for r in lead.db.execute(
                "SELECT conversation_id, position FROM turn_status WHERE coder = ? AND done",
                [coder])}
            assert {c for c, _ in done} == assigned and len(done) == 2 * len(assigned)
    assert any(r[4] == "ben secret note c1/2" or "secret note" in r[4] for r in got["memos"])
    assert {r[0] for r in got["value_rationales"]} == set(CODERS)  # their reasons came too

    # no coder can read another coder's files, nor find their words in the folder
    ana = sorted((team.keys("ana")).glob("coder-*.json"))[0].read_text()
    import json
    ana_keys = json.loads(ana)
    folder = team.home["ana"] / "team"
    for path in (p for p in folder.rglob("*") if p.is_file()):
        assert b"secret note" not in path.read_bytes()
        parts = team_seal.parse_name(path.name)
        if parts is None or (parts.coder == "ana" and parts.kind in "pa"):
            continue  # a renamed copy, the marker, her own package or acknowledgement
        with pytest.raises(ProjectError):
            team_seal.open_sealed(path.read_bytes(), ana_keys["reader"],
                                  {team_seal.writer_of(path.read_bytes())})
        with pytest.raises(ProjectError):
            team_seal.open_sealed(path.read_bytes(), ana_keys["keys"]["x25519"],
                                  {team_seal.writer_of(path.read_bytes())})


def test_a_forged_or_foreign_change_is_refused_and_a_cut_one_waits(tmp_path: Path) -> None:
    team = Team(tmp_path)
    team.net.settle()
    team.join("ana", "ana")
    team.join("ben", "ben")
    team.sync("ana")
    code_some(team.package("ana"), 0)
    team.sync("ana")
    lead_folder = team.home["lee"] / "team" / TO_LEAD
    ana_folder = team.home["ana"] / "team" / TO_LEAD
    change = next(p for p in ana_folder.iterdir() if p.name.startswith("c-"))
    # half of it, under its name: not read, not recorded
    (lead_folder / change.name).write_bytes(change.read_bytes()[:100])
    team.net.round(bad=False)  # the joins, whole; the cut file stays as it is where it is
    (lead_folder / change.name).write_bytes(change.read_bytes()[:100])
    lines = team.sync("lee")
    assert any(line.startswith("waiting for c-") for line in lines), lines
    # ben writes a file in ana's name, signed with his own machine's key: never applied
    ben = json.loads(sorted(team.keys("ben").glob("coder-*.json"))[0].read_text())
    body = json.dumps({"coder": "ana", "install": ben["install"], "counter": 9, "rows": [
        ["codings", ["ana", "c1", 2, 0, "overall"], None]]}).encode()
    data = team_seal.seal(body, ben["keys"]["ed25519"], [ben["lead"]["x25519"]])
    forged = team_seal.name_for("c", "ana", ben["install"], 9, data)
    (lead_folder / forged.text).write_bytes(data)
    # and a file of his own bringing a row of ana's
    body = json.dumps({"coder": "ben", "install": ben["install"], "counter": 7, "rows": [
        ["codings", ["ana", "c1", 2, 0, "overall"],
         {"coder": "ana", "conversation_id": "c1", "position": 2, "sentence": 0,
          "code": "overall", "value": 1}]]}).encode()
    data = team_seal.seal(body, ben["keys"]["ed25519"], [ben["lead"]["x25519"]])
    foreign = team_seal.name_for("c", "ben", ben["install"], 7, data)
    (lead_folder / foreign.text).write_bytes(data)
    team.net.settle()
    lines = team.sync("lee")
    assert f"refused {foreign.text}: a codings row of another coder than ben" in lines
    assert f"refused {forged.text}: named as ana's but from a machine of ben" in lines
    with Project.open(team.lead, backup=False) as lead:
        values = {tuple(r) for r in lead.db.execute(
            "SELECT coder, conversation_id, position, code, value FROM codings")}
    assert ("ana", "c1", 2, "overall", 1) not in values
    assert {v[0] for v in values} == {"ana"}  # ana's own work did arrive, whole


def test_a_later_change_that_arrives_first_is_not_undone_by_an_earlier_one(tmp_path: Path
                                                                        ) -> None:
    team = Team(tmp_path)
    team.net.settle()
    team.join("ana", "ana")
    team.sync("ana")
    code_some(team.package("ana"), 0)
    team.sync("ana")
    code_some(team.package("ana"), 2)  # changes the values the first file brought
    team.sync("ana")
    team.net.settle()
    lead_folder = team.home["lee"] / "team" / TO_LEAD
    first = next(p for p in lead_folder.iterdir() if p.name.startswith("c-") and
                 p.name.split("-")[3] == "0000000001")
    held = first.read_bytes()
    first.unlink()
    team.sync("lee")  # the second file alone
    first.write_bytes(held)  # and the first one, late
    team.sync("lee")
    by_hand = tmp_path / "before.sense7"
    with Project.open(by_hand, backup=False) as lead:
        lead.set_coder("lee")
        merge(lead, [team.package("ana")], on_conflict="keep-source")
    assert rows(team.lead) == rows(by_hand)
    assert ("question" in {r[5] for r in rows(team.lead)["codings"]})


def test_the_command_line_links_invites_joins_and_syncs(tmp_path: Path, monkeypatch:
                                                        pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from sense7_coder.cli import main

    lead_home, ana_home, shared = tmp_path / "lee", tmp_path / "ana", tmp_path / "shared"
    for d in (lead_home, ana_home, shared):
        d.mkdir()
    project = make_project(lead_home)
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    project.set_coder("ana", "coder")
    project.set_coder("lee")
    assign(project, ["ana"])
    path = project.path
    project.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(lead_home / "data"))
    assert main(["team", "link", str(path), str(shared), "--as", "lee"]) == 0
    assert main(["team", "invite", str(path), "ana", str(lead_home / "ana.inv"),
                 "--as", "lee"]) == 0
    assert main(["team", "link", str(path), str(shared / "other"), "--as", "lee"]) == 2
    assert "already linked" in capsys.readouterr().err
    assert main(["team", "invite", str(path), "ana", str(shared / "ana.inv"),
                 "--as", "lee"]) == 2
    assert "inside the team folder, where everyone could join as ana" in \
        capsys.readouterr().err
    monkeypatch.setenv("XDG_DATA_HOME", str(ana_home / "data"))
    package = ana_home / "ana.sense7"
    assert main(["team", "join", str(lead_home / "ana.inv"), str(shared / "ana.sense7"),
                 "--folder", str(shared)]) == 2
    assert "inside the team folder" in capsys.readouterr().err
    assert main(["team", "join", str(lead_home / "ana.inv"), str(package),
                 "--folder", str(shared)]) == 0
    assert "received p-" in capsys.readouterr().out
    with Project.open(package, backup=False) as p:
        p.set_value(Unit("c1", 2), "overall", 3)
    assert main(["team", "sync", str(package)]) == 0
    assert "sent c-" in capsys.readouterr().out
    monkeypatch.setenv("XDG_DATA_HOME", str(lead_home / "data"))
    assert main(["team", "sync", str(path)]) == 0
    out = capsys.readouterr().out
    assert "joined: ana" in out and "applied from ana: 1 change file(s)" in out
    assert rows(path)["codings"][0][:6] == ("ana", "c1", 2, 0, "overall", 3)
    assert main(["team", "sync", str(path)]) == 0
    assert capsys.readouterr().out == "nothing new\n"
    # the lead has read ana's files: her next sync takes them out of the folder
    assert len(list((shared / TO_LEAD).iterdir())) == 2  # her join and her change
    monkeypatch.setenv("XDG_DATA_HOME", str(ana_home / "data"))
    assert main(["team", "sync", str(package)]) == 0
    assert "took 2 file(s) the lead has read out of the folder" in capsys.readouterr().out
    assert list((shared / TO_LEAD).iterdir()) == []
    assert sorted(f.name[:2] for f in (shared / FOR_CODERS).iterdir()) == ["a-", "p-"]


def test_one_coder_on_two_machines_changing_one_value_is_reported(tmp_path: Path) -> None:
    team = Team(tmp_path)
    team.net.settle()
    team.join("ben", "ben")
    team.join("ben2", "ben")
    team.sync("ben")
    team.sync("ben2")
    for who, value in (("ben", 2), ("ben2", 4)):
        with Project.open(team.package(who), backup=False) as p:
            cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
            p.set_value(Unit(cid, 2), "overall", value)
        team.sync(who)
    team.net.settle()
    lines = team.sync("lee")
    crossed = [line for line in lines if "on two machines" in line]
    assert len(crossed) == 1 and crossed[0].startswith(f"ben gave codings ['{cid}', 2, 0, "
                                                       "'overall'] different values"), lines
    kept = crossed[0].rsplit(" ", 1)[1]
    with Project.open(team.lead, backup=False) as lead:
        value = lead.db.execute("SELECT value FROM codings WHERE coder = 'ben'").fetchone()[0]
    keys = {json.loads(p.read_text())["install"]: w for w in ("ben", "ben2")
            for p in team.keys(w).glob("coder-*.json")}
    assert value == {"ben": 2, "ben2": 4}[keys[kept]]


def test_a_fix_in_her_package_travels_as_a_blind_value(tmp_path: Path) -> None:
    """Her package reveals nothing (no other coder's value, no user's rating), so the
    window lets her fix a turn she marked done there, and the lead's side takes the fix as
    a by-hand merge of her package does: coded blind, not refused by the lead's lock
    (which holds only where she marked a turn done in the lead's project itself)."""
    team = Team(tmp_path)
    with Project.open(team.lead, backup=False) as lead:
        lead.set_coder("lee")
        lead.lock_after_reveal = True
    team.net.settle()
    team.join("ana", "ana")
    team.sync("ana")
    with Project.open(team.package("ana"), backup=False) as p:
        cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
        p.set_value(Unit(cid, 2), "overall", 3)
        p.set_done(cid, 2)
    team.sync("ana")
    team.net.settle()
    team.sync("lee")
    with Project.open(team.package("ana"), backup=False) as p:  # her package lets her
        p.set_value(Unit(cid, 2), "overall", 5)
    team.sync("ana")
    team.net.settle()
    lines = team.sync("lee")
    assert not any("locked" in line for line in lines), lines
    assert [r[5] for r in rows(team.lead)["codings"]] == [5]
    assert rows(team.lead)["revisions"] == []


def test_new_assignments_reach_the_coder_with_her_work_kept(tmp_path: Path) -> None:
    home = {w: tmp_path / w for w in ("lee", "ana")}
    shared = tmp_path / "shared"
    for d in (*home.values(), shared):
        d.mkdir()
    project = make_project(home["lee"])
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    project.set_coder("ana", "coder")
    project.set_coder("lee")
    assign(project, ["ana"], per_coder=1, seed=2)
    link(project, shared, keys=home["lee"] / "keys")
    inv = invite(project, "ana", home["lee"] / "ana.inv", keys=home["lee"] / "keys")
    lead_path = project.path
    project.close()
    package = home["ana"] / "ana.sense7"
    join(inv, package, folder=shared, keys=home["ana"] / "keys")
    assert "received p-" in " ".join(sync(package, keys=home["ana"] / "keys").lines())
    with Project.open(package, backup=False) as p:
        first = p.db.execute("SELECT conversation_id FROM conversations").fetchall()
        assert len(first) == 1
        p.set_value(Unit(first[0][0], 2), "overall", 2)
    sync(package, keys=home["ana"] / "keys")
    with Project.open(lead_path, backup=False) as lead:  # the rest, to ana
        lead.set_coder("lee")
        assign(lead, ["ana"], seed=2)
    lines = sync(lead_path, keys=home["lee"] / "keys").lines()
    assert "sent ana a new package (her assignments, the codebook or the study's settings " \
        "changed)" in lines, lines
    with Project.open(package, backup=False) as p:  # coded before the new package came
        p.set_value(Unit(first[0][0], 4), "overall", 1)
    lines = sync(package, keys=home["ana"] / "keys").lines()
    assert any(line.startswith("sent c-") for line in lines)
    assert "moved your work into the lead's new package (new assignments or codebook)" in lines
    with Project.open(package, backup=False) as p:
        held = {r[0] for r in p.db.execute("SELECT conversation_id FROM conversations")}
        assert len(held) == 4
        assert {tuple(r) for r in p.db.execute(
            "SELECT conversation_id, position, value FROM codings WHERE coder = 'ana'")} == {
            (first[0][0], 2, 2), (first[0][0], 4, 1)}
        later = sorted(held - {first[0][0]})[0]
        p.set_value(Unit(later, 2), "overall", 5)
    assert sync(package, keys=home["ana"] / "keys").lines()[0].startswith("sent c-")
    sync(lead_path, keys=home["lee"] / "keys")
    assert sorted((r[1], r[2], r[5]) for r in rows(lead_path)["codings"]) == sorted(
        [(first[0][0], 2, 2), (first[0][0], 4, 1), (later, 2, 5)])
    assert sync(package, keys=home["ana"] / "keys").lines()[-1].startswith("took ")


def test_a_value_off_the_scale_is_held_back_with_the_merge_s_reason(tmp_path: Path) -> None:
    team = Team(tmp_path)
    team.net.settle()
    team.join("ana", "ana")
    team.sync("ana")
    ana = json.loads(sorted(team.keys("ana").glob("coder-*.json"))[0].read_text())
    with Project.open(team.package("ana"), backup=False) as p:
        cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
        p.set_value(Unit(cid, 2), "overall", 3)
        row = dict(zip([d[0] for d in p.db.execute("SELECT * FROM codings").description],
                       p.db.execute("SELECT * FROM codings").fetchone(), strict=True))
    row.pop("id", None)
    row["value"] = 9  # not a level of 'overall'
    key = [row[c] for c in ("coder", "conversation_id", "position", "sentence", "code")]
    body = json.dumps({"coder": "ana", "install": ana["install"], "counter": 1, "after": 0,
                       "rows": [["codings", key, row]]}).encode()
    data = team_seal.seal(body, ana["keys"]["ed25519"], [ana["lead"]["x25519"]])
    name = team_seal.name_for("c", "ana", ana["install"], 1, data)
    (team.home["ana"] / "team" / TO_LEAD / name.text).write_bytes(data)
    team.net.settle()
    lines = team.sync("lee")
    held = [line for line in lines if line.startswith(f"waiting for {name.text}: merging "
                                                      "ana's package")]
    assert held and "overall" in held[0], lines
    assert rows(team.lead)["codings"] == []
    # her own correction (a later change of the same value) lets it through
    state = json.loads(sorted(team.keys("ana").glob("coder-*.json"))[0].read_text())
    state["counter"] = state["written"] = 1
    sorted(team.keys("ana").glob("coder-*.json"))[0].write_text(json.dumps(state))
    with Project.open(team.package("ana"), backup=False) as p:
        p.set_value(Unit(cid, 2), "overall", 4)
    team.sync("ana")
    team.net.settle()
    team.sync("lee")
    assert [r[5] for r in rows(team.lead)["codings"]] == [4]


def _attributes(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {k for (text,) in con.execute("SELECT attributes FROM conversations")
                for k in json.loads(text or "{}")}
    finally:
        con.close()


def _reveal_round(team: Team) -> None:
    lines = team.sync("lee")
    for coder in CODERS:
        assert f"sent {coder} a new package (her assignments, the codebook or the " \
            "study's settings changed)" in lines, lines
    team.net.settle()
    for coder in CODERS:
        lines = team.sync(coder)
        assert "moved your work into the lead's new package (new assignments or " \
            "codebook)" in lines, lines


def _each_package_opens_for_its_coder_only(team: Team) -> None:
    """What the folder carries to one coder opens with her key and with no other's."""
    keys = {c: json.loads(sorted(team.keys(c).glob("coder-*.json"))[0].read_text())
            for c in CODERS}
    lead_key = {keys["ana"]["lead"]["ed25519"]}
    for name in sorted(p.name for p in (team.home["lee"] / "team" / FOR_CODERS).iterdir()):
        parts = team_seal.parse_name(name)
        if parts is None or parts.kind != "p":
            continue
        data = (team.home["lee"] / "team" / FOR_CODERS / name).read_bytes()
        assert b"user_ratings" not in data and b"SQLite format" not in data
        assert team_seal.open_sealed(data, keys[parts.coder]["reader"], lead_key)
        for other in set(CODERS) - {parts.coder}:
            with pytest.raises(ProjectError):
                team_seal.open_sealed(data, keys[other]["reader"], lead_key)


def test_the_lead_s_reveal_reaches_each_coder_sealed_to_her_alone(tmp_path: Path) -> None:
    """The lead shows a hidden attribute, then stops coding blind: each coder's next sync
    brings her a package holding what was revealed (the attribute, then the users' ratings,
    as a package made by hand of a study not coding blind holds them), her work kept; the
    package the folder carries for one coder opens with no other coder's key."""
    team = Team(tmp_path)
    with Project.open(team.lead, backup=False) as lead:
        lead.set_coder("lee")
        lead.hidden_attributes = ["week"]
    team.net.settle()
    for coder in CODERS:
        team.join(coder, coder)
        team.sync(coder)
    team.net.settle()
    team.sync("lee")
    team.net.settle()
    for coder in CODERS:
        team.sync(coder)  # her package from the lead, blind: no ratings, no 'week'
        assert "week" not in _attributes(team.package(coder))
        with Project.open(team.package(coder), backup=False) as p:
            assert p.db.execute("SELECT COUNT(*) FROM user_ratings").fetchone()[0] == 0
            cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
            p.set_value(Unit(cid, 2), "overall", 2)
            assert p.sight().ratings_state(cid, 2) == "withheld"

    with Project.open(team.lead, backup=False) as lead:  # the lead shows 'week'
        lead.set_coder("lee")
        lead.hidden_attributes = []
    _reveal_round(team)
    for coder in CODERS:
        assert "week" in _attributes(team.package(coder))
    with Project.open(team.lead, backup=False) as lead:  # and stops coding blind
        lead.set_coder("lee")
        lead.blind_coding = False
        held = {c: {r[0] for r in lead.db.execute(
            "SELECT conversation_id FROM assignments WHERE coder = ?", [c])} for c in CODERS}
        ratings = {c: lead.db.execute(
            f"SELECT COUNT(*) FROM user_ratings WHERE conversation_id IN "
            f"({','.join('?' * len(held[c]))})", sorted(held[c])).fetchone()[0]
            for c in CODERS}
    _reveal_round(team)
    for coder in CODERS:
        with Project.open(team.package(coder), backup=False) as p:
            got = p.db.execute("SELECT COUNT(*) FROM user_ratings").fetchone()[0]
            assert got == ratings[coder] > 0
            assert p.db.execute("SELECT COUNT(*) FROM codings WHERE coder = ? AND value = 2",
                                [coder]).fetchone()[0] == 1  # her work kept
            cid = p.db.execute("SELECT conversation_id FROM codings").fetchone()[0]
            p.set_done(cid, 2)
            assert p.sight().ratings_state(cid, 2) == "shown"
    _each_package_opens_for_its_coder_only(team)


def test_many_files_in_one_sync_keep_each_row_s_newest_change_and_a_bad_one_is_refused_alone(
        tmp_path: Path) -> None:
    """Five of her files arrive at once, shuffled: the lead's project holds each value as
    her last file left it; a file with a column the table has not, or a row named by a key
    that is not a row's, is refused with its reason while the files after it still land."""
    team = Team(tmp_path)
    team.net.settle()
    team.join("ana", "ana")
    team.sync("ana")
    team.net.settle()
    assert "joined: ana" in team.sync("lee")
    ana = json.loads(sorted(team.keys("ana").glob("coder-*.json"))[0].read_text())
    with Project.open(team.package("ana"), backup=False) as p:
        cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
        cols = [d[0] for d in p.db.execute("SELECT * FROM codings LIMIT 0").description
                if d[0] != "id"]

    def coding(pos: int, value: int, **extra: Any) -> list[Any]:
        row: dict[str, Any] = dict.fromkeys(cols)
        row.update(coder="ana", conversation_id=cid, position=pos, sentence=0, code="overall",
                   value=value, updated_at="2026-12-06T10:00:00Z", source="coded", blind=1,
                   **extra)
        return ["codings", ["ana", cid, pos, 0, "overall"], row]

    bad_key = coding(2, 5)
    bad_key[1] = ["ana", [cid], 2, 0, "overall"]
    files = {1: [coding(2, 1)], 2: [coding(2, 3), coding(4, 2)], 3: [coding(2, 5, zzz=1)],
             4: [bad_key], 5: [coding(4, 4)]}
    names = {}
    for n, rows_of in sorted(files.items(), key=lambda f: -f[0]):
        body = json.dumps({"coder": "ana", "install": ana["install"], "counter": n,
                           "after": n - 1, "rows": rows_of}).encode()
        data = team_seal.seal(body, ana["keys"]["ed25519"], [ana["lead"]["x25519"]])
        names[n] = team_seal.name_for("c", "ana", ana["install"], n, data).text
        (team.home["lee"] / "team" / TO_LEAD / names[n]).write_bytes(data)
    lines = team.sync("lee")
    assert "applied from ana: 3 change file(s)" in lines, lines
    assert f"refused {names[3]}: a codings row with columns the table has not" in lines
    assert f"refused {names[4]}: a codings row named by a key that is not a row's" in lines
    assert sorted((r[2], r[5]) for r in rows(team.lead)["codings"]) == [(2, 3), (4, 4)]
    assert team.sync("lee") == ["nothing new"]  # each read once


def test_a_merge_refused_for_one_coder_holds_back_only_her_files(tmp_path: Path) -> None:
    """Two coders' files in one sync, one with a value off the scale: the other's land."""
    team = Team(tmp_path)
    team.net.settle()
    for coder in ("ana", "ben"):
        team.join(coder, coder)
        team.sync(coder)
    team.net.settle()
    team.sync("lee")
    with Project.open(team.package("ben"), backup=False) as p:
        cid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
        p.set_value(Unit(cid, 2), "overall", 2)
    team.sync("ben")
    ana = json.loads(sorted(team.keys("ana").glob("coder-*.json"))[0].read_text())
    with Project.open(team.package("ana"), backup=False) as p:
        aid = p.db.execute("SELECT conversation_id FROM assignments LIMIT 1").fetchone()[0]
        cols = [d[0] for d in p.db.execute("SELECT * FROM codings LIMIT 0").description
                if d[0] != "id"]
    row: dict[str, Any] = dict.fromkeys(cols)
    row.update(coder="ana", conversation_id=aid, position=2, sentence=0, code="overall",
               value=9, updated_at="2026-12-06T10:00:00Z", source="coded", blind=1)
    body = json.dumps({"coder": "ana", "install": ana["install"], "counter": 1, "after": 0,
                       "rows": [["codings", ["ana", aid, 2, 0, "overall"], row]]}).encode()
    data = team_seal.seal(body, ana["keys"]["ed25519"], [ana["lead"]["x25519"]])
    name = team_seal.name_for("c", "ana", ana["install"], 1, data).text
    (team.home["ana"] / "team" / TO_LEAD / name).write_bytes(data)
    team.net.settle()
    lines = team.sync("lee")
    assert "applied from ben: 1 change file(s)" in lines, lines
    assert any(line.startswith(f"waiting for {name}: merging ana's package") for line in lines)
    assert [(r[0], r[5]) for r in rows(team.lead)["codings"]] == [("ben", 2)]

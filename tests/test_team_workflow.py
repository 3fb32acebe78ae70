"""A reliability study run by a lead: assign with an overlap, send each coder a package,
merge the packages back; agreement covers exactly the overlap, blinding holds inside a
package, and the history accounts for every value in the final project."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from analysis_support import conversation_lines, make_project

from sense7_coder.cli import main
from sense7_coder.domain.agreement import ALPHA
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.imports import import_files
from sense7_coder.project.selection import Selection

CODERS = ("ana", "ben", "cai")


def chats(first: int, n: int) -> str:
    rows = [(f"s{i:03d}", f"P{i % 7}", "GPT4" if i % 2 else "IC", 1 + i % 5, 1 + (i + 2) % 5)
            for i in range(first, first + n)]
    return conversation_lines(rows)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def value_for(coder: str, cid: str, position: int) -> int:
    """Coders mostly agree; ben differs on every third conversation."""
    base = 1 + (int(cid[1:]) + position) % 5
    if coder == "ben" and int(cid[1:]) % 3 == 0:
        return 1 + base % 5
    return base


def code_package(path: Path, coder: str) -> None:
    with Project.open(path, backup=False) as p:
        p.set_coder(coder)
        assert p.blind_coding and p.package_coder == coder
        with pytest.raises(ProjectError, match="coder package"):
            p.blind_coding = False
        with pytest.raises(ProjectError, match="coder package"):
            p.set_coder(coder, "adjudicator")
        ids = [r[0] for r in p.db.execute(
            "SELECT conversation_id FROM conversations ORDER BY rowid")]
        for cid in ids:
            for pos in (2, 4):
                p.set_value(Unit(cid, pos), "overall", value_for(coder, cid, pos))
                if (cid, pos) == (ids[-1], 4):
                    # a change of mind, undone: the history shows all three steps
                    p.set_value(Unit(cid, pos), "overall", None)
                    p.undo()
                p.set_done(cid, pos)
        # her package holds no one else's values nor the users' ratings: marking a turn
        # done showed her nothing, so nothing is locked and a quick fix is still blind
        assert not p.sight().revealed(ids[0], 2) and not p.sight().locked(Unit(ids[0], 2))
        p.set_value(Unit(ids[0], 2), "overall", None)
        assert p.db.execute("SELECT blind FROM codings WHERE conversation_id = ? AND "
                            "position = 2", [ids[0]]).fetchone()[0] == 1
        p.undo()


def test_lead_assigns_packages_merges_and_gets_agreement_on_exactly_the_overlap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lead_path = tmp_path / "study.sense7"
    with make_project(tmp_path, "study.sense7", chats(0, 100)) as lead:
        lead.set_coder("lee", "adjudicator")
        lead.blind_coding = True
    assert main(["assign", str(lead_path), "--coders", ",".join(CODERS), "--overlap", "0.2",
                 "--seed", "7", "--as", "lee"]) == 0
    assert main(["export", str(lead_path), str(tmp_path / "a.csv"),
                 "--kind", "assignments"]) == 0
    rows = read_csv(tmp_path / "a.csv")
    assert list(rows[0]) == ["coder", "conversation_id", "overlap"]
    overlap = {r["conversation_id"] for r in rows if r["overlap"] == "1"}
    assert len(overlap) == 20
    per_coder = {c: {r["conversation_id"] for r in rows if r["coder"] == c} for c in CODERS}
    assert all(overlap <= ids for ids in per_coder.values())
    singles = {c: len(ids - overlap) for c, ids in per_coder.items()}
    assert sorted(singles.values()) == [26, 27, 27]  # the other 80, split evenly
    assert set().union(*per_coder.values()) == {f"s{i:03d}" for i in range(100)}

    packages = {c: tmp_path / f"{c}.sense7" for c in CODERS}
    for c, path in packages.items():
        assert main(["package", str(lead_path), c, str(path), "--shuffle", "--seed", "3",
                     "--as", "lee"]) == 0
        con = sqlite3.connect(path)
        got = {r[0] for r in con.execute("SELECT conversation_id FROM conversations")}
        assert got == per_coder[c]
        assert con.execute("SELECT COUNT(*) FROM user_ratings").fetchone()[0] == 0  # blind
        assert [r[0] for r in con.execute("SELECT name FROM coders")] == [c]
        assert con.execute("SELECT COUNT(*) FROM consensus").fetchone()[0] == 0
        con.close()
        code_package(path, c)

    # a blind study's packages come back through its lead
    assert main(["merge", str(lead_path), *map(str, packages.values())]) == 2
    assert "only a lead" in capsys.readouterr().err
    assert main(["merge", str(lead_path), *map(str, packages.values()), "--as", "lee"]) == 0
    out = capsys.readouterr().out
    assert "nothing new" not in out
    with Project.open(lead_path, backup=False) as lead:
        lead.set_coder("lee")
        report = project_agreement(lead, Selection(codes=["overall"]),
                                   AgreementSettings(bootstrap=0))
        alpha = next(r for r in report.records
                     if r.measure == ALPHA and set(r.coders) == set(CODERS))
        assert alpha.n_units == 2 * len(overlap)  # two assistant turns per conversation
        assert 0 < alpha.value < 1  # ben's differences show
        final = {(r[0], r[1], r[2], r[3], r[4]): r[5] for r in lead.db.execute(
            "SELECT coder, conversation_id, position, sentence, code, value FROM codings")}
        done = {(r[0], r[1], r[2]) for r in lead.db.execute(
            "SELECT coder, conversation_id, position FROM turn_status WHERE done = 1")}
    assert len(final) == 2 * (100 + 2 * len(overlap))

    assert main(["export", str(lead_path), str(tmp_path / "h.csv"), "--kind", "history",
                 "--as", "lee"]) == 0
    history = read_csv(tmp_path / "h.csv")
    # every value in the final project is the last value the history records for it here
    last: dict[tuple[Any, ...], dict[str, str]] = {}
    for r in history:
        if r["origin"]:
            continue
        if r["kind"] == "coding":
            key: tuple[Any, ...] = (r["coder"], r["conversation_id"], int(r["turn"]),
                                    int(r["sentence"] or 0), r["code"])
            last[key] = r
        elif r["kind"] == "done":
            last[("done", r["coder"], r["conversation_id"], int(r["turn"]))] = r
    coded = {k: v for k, v in last.items() if k[0] != "done" and v["action"] != "clear"}
    assert set(coded) == set(final)
    assert all(coded[k]["after"] == ("NA" if v is None else str(v)) for k, v in final.items())
    marked = {k[1:] for k, v in last.items() if k[0] == "done" and v["after"] == "1"}
    assert marked == done
    merged = [r for r in history if r["kind"] == "coding" and r["source"].startswith("merge")]
    assert len(merged) == len(final)
    # a package's own history is what its holder says: it never comes along (this file
    # records what the merge wrote, as it wrote it)
    assert not [r for r in history if r["origin"] == "ana.sense7"]

    # merging again adds nothing, and re-running assign after an import moves nobody
    assert main(["merge", str(lead_path), *map(str, packages.values()), "--as", "lee"]) == 0
    assert capsys.readouterr().out.count("nothing new") == 3
    extra = tmp_path / "more.jsonl"
    extra.write_text(chats(100, 10), encoding="utf-8")
    with Project.open(lead_path, backup=False) as lead:
        import_files(lead, [extra])
    assert main(["assign", str(lead_path), "--coders", ",".join(CODERS), "--overlap", "0.2",
                 "--seed", "7", "--as", "lee"]) == 0
    assert main(["export", str(lead_path), str(tmp_path / "a2.csv"),
                 "--kind", "assignments"]) == 0
    again = read_csv(tmp_path / "a2.csv")
    kept = {(r["coder"], r["conversation_id"], r["overlap"]) for r in rows}
    assert kept <= {(r["coder"], r["conversation_id"], r["overlap"]) for r in again}
    new_ids = {r["conversation_id"] for r in again} - {r["conversation_id"] for r in rows}
    assert new_ids == {f"s{i:03d}" for i in range(100, 110)}
    assert len({r["conversation_id"] for r in again if r["overlap"] == "1"}) == 22

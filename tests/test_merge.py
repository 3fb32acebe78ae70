"""Merging coders' project files: everything new arrives once, conflicts are never silently
overwritten, and a merge that cannot be done leaves the target exactly as it was."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from analysis_support import CONVERSATIONS, code, conversation_lines, make_project, state

from sense7_coder.domain.codebook.codes import Level, code_from_dict
from sense7_coder.domain.errors import Cancelled, ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.project.merge.merging import MergeConflicts, merge


@pytest.fixture
def files(tmp_path: Path) -> Callable[..., Path]:
    """Copies of one freshly imported project, as each coder would receive it."""
    base = make_project(tmp_path, "base.sense7")
    base.close()

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copy(tmp_path / "base.sense7", target)
        return target

    return copy


def work(path: Path, coder: str, values: dict[tuple[Any, ...], Any],
         done: Sequence[tuple[str, int]] = (), role: str | None = None,
         memo: tuple[Unit, str] | None = None) -> None:
    with Project.open(path, backup=False) as p:
        code(p, coder, values, done, role)
        if memo:
            p.set_memo(*memo)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_merge_brings_coders_work_together_and_twice_adds_nothing(files: Callable[..., Path]
                                                                  ) -> None:
    target, a, b = files("lead.sense7"), files("alice.sense7"), files("bashir.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4, ("c1", 4, "overall"): None}, done=[("c1", 2)],
         memo=(Unit("c1", 2), "hesitant"))
    work(b, "bashir", {("c1", 2, "overall"): 2, ("c2", 2, "strategy"): "advice"},
         done=[("c1", 2), ("c2", 2)])
    with Project.open(target, backup=False) as lead:
        report = merge(lead, [a, b])
        assert report.written and not report.conflicts
        assert report.changes.everything  # the window reloads everything after a merge
        got = state(lead)
        assert ("alice", "c1", 2, 0, "overall", 4) in got["codings"]
        assert ("alice", "c1", 4, 0, "overall", None) in got["codings"]  # NA stays NA
        assert ("bashir", "c2", 2, 0, "strategy", "advice") in got["codings"]
        assert got["info"]["codings"] == 4 and got["info"]["turns_done"] == 3
        assert got["memos"] == [("alice", "c1", 2, 0, "hesitant")]
        assert [s.new_coders for s in report.sources] == [["alice"], ["bashir"]]
        again = merge(lead, [a, b])
        assert again.additions == 0 and again.changes.empty and state(lead) == got
        assert "nothing new" in again.lines()[0]


def test_conflicts_are_listed_and_nothing_is_written(files: Callable[..., Path]) -> None:
    target, a, b = files("lead.sense7"), files("alice1.sense7"), files("alice2.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 3})
    work(b, "alice", {("c1", 2, "overall"): 5, ("c2", 2, "overall"): 3, ("c3", 2, "overall"): 1,
                      ("c4", 2, "overall"): None}, memo=(Unit("c1", 2), "second thoughts"))
    with Project.open(target, backup=False) as lead:
        merge(lead, [a])
        before = state(lead)
        with pytest.raises(MergeConflicts, match="merge refused: 1 conflict") as err:
            merge(lead, [b])
        (conflict,) = err.value.report.conflicts
        assert (conflict.coder, conflict.code, conflict.unit) == ("alice", "overall", Unit("c1", 2))
        assert (conflict.target_value, conflict.source_value) == (4, 5)
        assert "target has 4, source has 5" in conflict.describe()
        assert state(lead) == before  # c3, c4 and the memo did not land either


def test_keep_target_merges_everything_but_the_conflicts(files: Callable[..., Path]) -> None:
    target, b = files("lead.sense7"), files("alice2.sense7")
    work(target, "alice", {("c1", 2, "overall"): 4})
    work(b, "alice", {("c1", 2, "overall"): 5, ("c3", 2, "overall"): 1})
    with Project.open(target, backup=False) as lead:
        report = merge(lead, [b], on_conflict="keep-target")
        assert len(report.conflicts) == 1 and report.written
        got = state(lead)["codings"]
    assert ("alice", "c1", 2, 0, "overall", 4) in got
    assert ("alice", "c3", 2, 0, "overall", 1) in got
    assert not any(row[-1] == 5 for row in got)


def _corrected(files: Callable[..., Path]) -> tuple[Path, Path]:
    """The lead merged alice's file; then alice corrected c1 turn 2 in her own file (and
    wrote a memo), while the lead set alice's c3 turn 2 in the lead file later still."""
    target, mine = files("lead.sense7"), files("alice.sense7")
    work(mine, "alice", {("c1", 2, "overall"): 4, ("c3", 2, "overall"): 1},
         memo=(Unit("c1", 2), "first"))
    with Project.open(target, backup=False) as lead:
        merge(lead, [mine])
    time.sleep(0.01)
    work(mine, "alice", {("c1", 2, "overall"): 5}, memo=(Unit("c1", 2), "on second thought"))
    time.sleep(0.01)
    work(target, "alice", {("c3", 2, "overall"): 2})
    return target, mine


def test_keep_source_takes_a_coders_correction_and_reports_each_row(
        files: Callable[..., Path]) -> None:
    target, mine = _corrected(files)
    with Project.open(target, backup=False) as lead:
        report = merge(lead, [mine], on_conflict="keep-source")
        got = state(lead)
        history = lead.db.execute(
            "SELECT source, before, after FROM history WHERE kind = 'coding' "
            "AND position = 2 AND conversation_id = 'c1' ORDER BY id").fetchall()
    assert ("alice", "c1", 2, 0, "overall", 5) in got["codings"]
    assert ("alice", "c3", 2, 0, "overall", 1) in got["codings"]  # the file's value, older
    assert got["memos"] == [("alice", "c1", 2, 0, "on second thought")]
    assert [c.kept for c in report.conflicts] == ["source"] * 3
    lines = report.lines()
    assert "3 conflicts (keep-source): 3 source values taken, 0 target values kept:" in lines
    assert any("code 'overall', conversation 'c1', turn 2: target has 4, source has 5; kept "
               "the source's" in line for line in lines)
    assert "3 values replaced" in lines[0]
    assert history[-1] == ("merge alice.sense7", 4, 5)  # the change is in the history


def test_newest_keeps_the_value_set_last_per_row(files: Callable[..., Path]) -> None:
    target, mine = _corrected(files)
    with Project.open(target, backup=False) as lead:
        dry = merge(lead, [mine], on_conflict="newest", dry_run=True)
        assert state(lead)["memos"] == [("alice", "c1", 2, 0, "first")]  # nothing written
        report = merge(lead, [mine], on_conflict="newest")
        got = state(lead)
    kept = {(c.kind, c.unit.conversation_id): c.kept for c in report.conflicts}
    assert kept == {("coding", "c1"): "source", ("coding", "c3"): "target",
                    ("memo", "c1"): "source"}
    assert [c.kept for c in dry.conflicts] == [c.kept for c in report.conflicts]
    assert ("alice", "c1", 2, 0, "overall", 5) in got["codings"]  # her correction, newer
    assert ("alice", "c3", 2, 0, "overall", 2) in got["codings"]  # the lead's, newer
    assert got["memos"] == [("alice", "c1", 2, 0, "on second thought")]
    c3 = next(c for c in report.conflicts if c.unit.conversation_id == "c3")
    assert "kept the target's (newer: " in c3.describe()


def test_newest_keeps_the_target_where_a_time_is_missing(files: Callable[..., Path]) -> None:
    target, mine = _corrected(files)
    conn = sqlite3.connect(mine)
    with conn:
        conn.execute("UPDATE codings SET updated_at = NULL WHERE conversation_id = 'c1'")
    conn.close()
    with Project.open(target, backup=False) as lead:
        report = merge(lead, [mine], on_conflict="newest")
        got = state(lead)
    c1 = next(c for c in report.conflicts if c.kind == "coding" and c.unit.conversation_id == "c1")
    assert (c1.kept, c1.why) == ("target", "no time to compare")
    assert ("alice", "c1", 2, 0, "overall", 4) in got["codings"]


def test_conflicting_sources_in_one_call_are_caught(files: Callable[..., Path]) -> None:
    target, a, b = files("lead.sense7"), files("a.sense7"), files("b.sense7")
    work(a, "chen", {("c1", 2, "overall"): 2})
    work(b, "chen", {("c1", 2, "overall"): 3})
    with Project.open(target, backup=False) as lead:
        before = state(lead)
        with pytest.raises(MergeConflicts):
            merge(lead, [a, b])
        assert state(lead) == before


def test_consensus_and_statuses_merge(files: Callable[..., Path]) -> None:
    target, a = files("lead.sense7"), files("a.sense7")
    work(target, "alice", {("c1", 2, "overall"): 4})
    with Project.open(target, backup=False) as lead:
        lead.set_coder("alice")
        lead.set_done("c1", 2, False)  # explicitly not done in the target
    with Project.open(a, backup=False) as p:
        code(p, "alice", {("c1", 2, "overall"): 4}, done=[("c1", 2)])
        p.set_coder("dana", "adjudicator")
        p.set_consensus(Unit("c1", 2), "overall", 4, "agreed")
    with Project.open(target, backup=False) as lead:
        report = merge(lead, [a])
        got = state(lead)
    assert got["consensus"] == [("c1", 2, 0, "overall", 4)]
    assert ("alice", "c1", 2, 1) in got["status"]  # done in either file = done
    assert ("dana", "adjudicator") in got["coders"]
    assert report.sources[0].consensus == 1

    with Project.open(a, backup=False) as p:
        p.set_coder("dana")
        p.set_consensus(Unit("c1", 2), "overall", 3, "rethought")
        p.set_memo(Unit("c1", 2), "see discussion")
    with Project.open(target, backup=False) as lead:
        lead.set_coder("dana")
        lead.set_memo(Unit("c1", 2), "first note")
        with pytest.raises(MergeConflicts) as err:
            merge(lead, [a])
    kinds = sorted((c.kind, c.target_value, c.source_value) for c in err.value.report.conflicts)
    assert kinds == [("consensus", 4, 3), ("memo", "first note", "see discussion")]


def test_dry_run_reports_and_writes_nothing(files: Callable[..., Path]) -> None:
    target, a = files("lead.sense7"), files("a.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 1}, done=[("c1", 2)])
    with Project.open(target, backup=False) as lead:
        before = state(lead)
        report = merge(lead, [a], dry_run=True)
        assert not report.written
        assert report.sources[0].codings == 2 and report.sources[0].new_coders == ["alice"]
        assert report.lines()[0].startswith(f"{a}: would add 2 codings")
        assert report.lines()[-1] == "dry run: nothing was written"
        assert state(lead) == before


def test_conversations_missing_from_the_target_are_imported(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    more = [*CONVERSATIONS, ("c5", "P3", "Llama2-70b", 3, 4)]
    src = make_project(tmp_path, "src.sense7", conversation_lines(more))
    code(src, "alice", {("c5", 2, "overall"): 3, ("c1", 2, "overall"): 4})
    src.close()
    report = merge(lead, [tmp_path / "src.sense7"])
    assert (report.sources[0].conversations, report.sources[0].turns) == (1, 4)
    c5 = lead.conversation("c5")
    assert c5 is not None and c5.participant_id == "P3" and c5.model == "Llama2-70b"
    assert c5.turns[1].ratings["overall"] == 3
    assert lead.db.execute("SELECT COUNT(*) FROM sentences WHERE conversation_id = 'c5'"
                           ).fetchone()[0] > 0
    assert ("alice", "c5", 2, 0, "overall", 3) in state(lead)["codings"]
    lead.close()


def test_different_turn_text_is_refused_naming_the_turn(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    good = make_project(tmp_path, "good.sense7")
    code(good, "alice", {("c1", 2, "overall"): 4})
    good.close()
    text = conversation_lines().replace("Let us plan it together.", "Let's plan it.", 1)
    other = make_project(tmp_path, "other.sense7", text)
    code(other, "bashir", {("c1", 2, "overall"): 2})
    other.close()
    before = state(lead)
    with pytest.raises(ProjectError, match=r"conversation 'c1' turn 4: a different text"):
        merge(lead, [tmp_path / "good.sense7", tmp_path / "other.sense7"])
    assert state(lead) == before  # not even the good file's coding landed
    lead.close()


def test_broken_sources_are_refused_before_anything_is_written(
    files: Callable[..., Path], tmp_path: Path
) -> None:
    target, good = files("lead.sense7"), files("good.sense7")
    work(good, "alice", {("c1", 2, "overall"): 4})
    corrupt = files("corrupt.sense7")
    data = bytearray(corrupt.read_bytes())
    page = 4096
    for i in range(page, min(len(data), 3 * page)):
        data[i] = 0x5A
    corrupt.write_bytes(bytes(data))
    text = tmp_path / "notes.sense7"
    text.write_text("not a project", encoding="utf-8")
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with Project.open(target, backup=False) as lead:
        before = state(lead)
        for bad, message in ((corrupt, "damaged"), (text, "not an SQLite file"),
                             (foreign, "another program"), (tmp_path / "gone.sense7", "no such"),
                             (target, "the target project itself")):
            with pytest.raises(ProjectError, match=message):
                merge(lead, [good, bad])
            assert state(lead) == before


def test_code_definitions_must_match(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    src = make_project(tmp_path, "src.sense7")
    # this coder's copy of the codebook drifted before anyone coded 'strategy'
    changed = src.code("strategy")
    changed.levels = [Level("advice", "advice"), Level("humour", "humour")]
    codebook_ops.update_code(src, changed)
    code(src, "alice", {("c1", 2, "strategy"): "humour"})
    src.close()
    with pytest.raises(ProjectError, match="code 'strategy' is nominal.*levels advice, humour"):
        merge(lead, [tmp_path / "src.sense7"])
    assert lead.info()["codings"] == 0
    lead.close()


def test_unknown_code_in_use_is_refused(tmp_path: Path) -> None:
    lead = make_project(tmp_path, "lead.sense7")
    src = make_project(tmp_path, "src.sense7")
    codebook_ops.add_code(src, code_from_dict({"key": "humour", "kind": "binary"}))
    code(src, "alice", {("c1", 2, "humour"): 1})
    src.close()
    with pytest.raises(ProjectError, match="code 'humour' is used in this file but is not in"):
        merge(lead, [tmp_path / "src.sense7"])
    lead.close()


def test_the_source_file_is_only_read(files: Callable[..., Path]) -> None:
    target, a = files("lead.sense7"), files("a.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4})
    before = digest(a)
    with Project.open(target, backup=False) as lead:
        merge(lead, [a])
    assert digest(a) == before
    assert not Path(str(a) + "-wal").exists() or Path(str(a) + "-wal").stat().st_size == 0


def test_cancel_leaves_the_target_unchanged(files: Callable[..., Path]) -> None:
    target, a = files("lead.sense7"), files("a.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4})
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3  # after the source was checked and staging began

    with Project.open(target, backup=False) as lead:
        before = state(lead)
        with pytest.raises(Cancelled):
            merge(lead, [a], cancel=cancel)
        assert state(lead) == before
        assert merge(lead, [a]).sources[0].codings == 1  # the connection is still usable


def test_what_a_file_says_otherwise_of_a_held_conversation_is_told_and_kept(
        files: Callable[..., Path]) -> None:
    """A merge takes only the coders' work: a conversation this project holds keeps its
    model, attributes, turns and the users' ratings, and the report says which the file
    describes otherwise (what a file leaves out, as a blind package does, is no difference)."""
    target, a = files("lead.sense7"), files("alice.sense7")
    work(a, "alice", {("c1", 2, "overall"): 4})
    with sqlite3.connect(a) as db:  # the coder's copy, edited by another tool
        db.execute("UPDATE conversations SET model = 'Other-9b', "
                   "attributes = json_set(attributes, '$.arm', 'B') WHERE conversation_id = 'c1'")
        db.execute("UPDATE turns SET comment = 'too long' "
                   "WHERE conversation_id = 'c2' AND position = 2")
        db.execute("UPDATE user_ratings SET value = 1 WHERE conversation_id = 'c3' "
                   "AND position = 2 AND rating = 'overall'")
        db.execute("DELETE FROM user_ratings WHERE conversation_id = 'c4'")  # withheld
        db.execute("UPDATE conversations SET attributes = '{}' WHERE conversation_id = 'c4'")
    with Project.open(target, backup=False) as lead:
        before = {c: lead.conversation(c) for c in ("c1", "c2", "c3", "c4")}
        report = merge(lead, [a])
        (note,) = [n for n in report.sources[0].notes if "described otherwise" in n]
        assert note.startswith("3 conversations this project holds are described otherwise")
        assert "'c1': model, attributes" in note and "'c2': turn comment" in note
        assert "'c3': the users' ratings" in note and "'c4'" not in note
        assert "so they stay as they are here" in note  # three: plural
        assert {c: lead.conversation(c) for c in before} == before  # nothing of them taken
        assert ("alice", "c1", 2, 0, "overall", 4) in state(lead)["codings"]
        assert "described otherwise" in "\n".join(report.lines())
        # the copy's history of those edits (kind 'attribute') was checked, then left there
        assert not lead.db.execute("SELECT 1 FROM history WHERE kind = 'attribute'").fetchall()
        again = merge(lead, [files("copy.sense7")])  # the same conversations: nothing said
        assert not [n for s in again.sources for n in s.notes if "described otherwise" in n]

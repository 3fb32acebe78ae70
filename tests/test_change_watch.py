"""What another window or program writes reaches this one as named changes (the poll),
or as "everything" when the file changed in a way the history does not name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_support import conversation_lines, make_project

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.changes import NOTHING, Changes
from sense7_coder.project.codebook import editing as codebook_ops
from sense7_coder.project.imports import import_files
from sense7_coder.project.watch import MOST_ROWS, ChangeWatch


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Project, Project]]:
    make_project(tmp_path).close()
    a = Project.open(tmp_path / "study.sense7", backup=False)
    b = Project.open(tmp_path / "study.sense7", backup=False)
    a.set_coder("alice", "adjudicator")
    b.set_coder("bob")
    yield a, b
    a.close()
    b.close()


def test_the_poll_names_what_another_window_wrote(two: tuple[Project, Project]) -> None:
    a, b = two
    watch = ChangeWatch(a)
    assert watch.poll() == NOTHING
    b.set_value(Unit("c1", 2), "overall", 3)
    b.set_done("c2", 4)
    b.set_memo(Unit("c3", 2), "a memo")
    assert watch.poll() == Changes(units=frozenset({("c1", 2, 0)}),
                                   done=frozenset({("c2", 4)}),
                                   memos=frozenset({("c3", 2, 0)}))
    assert watch.poll() == NOTHING  # seen once
    a.set_value(Unit("c1", 4), "overall", 1)  # this window's own write is not "elsewhere"
    assert watch.poll() == NOTHING


def test_codebook_coders_and_settings_are_named_too(two: tuple[Project, Project]) -> None:
    a, b = two
    watch, watch_b = ChangeWatch(a), ChangeWatch(b)
    codebook_ops.retire_code(a, "overall")  # alice leads
    assert watch_b.poll() == Changes(codebook=True)
    a.blind_coding = True
    assert watch_b.poll() == Changes(settings=True)
    assert watch.poll() == NOTHING  # written here: not reported by this window's poll
    b.set_coder("carol")
    assert watch.poll().coders


def test_an_import_or_a_flood_of_rows_is_everything(tmp_path: Path,
                                                    two: tuple[Project, Project]) -> None:
    a, b = two
    watch = ChangeWatch(a)
    src = tmp_path / "more.jsonl"
    src.write_text(conversation_lines([("n1", "P9", "GPT4", 3, 4)]), encoding="utf-8")
    assert import_files(b, [src]).changes.everything
    assert watch.poll().everything
    decisions = [(Unit(f"c{i}", pos), "overall", 2) for i in (1, 2, 3) for pos in (2, 4)]
    b.set_coder("alice", "adjudicator")
    for _ in range(MOST_ROWS // len(decisions) + 1):
        b.set_consensus_many(decisions)
        b.set_consensus_many([(u, k, 3) for u, k, _v in decisions])
    assert watch.poll().everything


def test_a_hand_written_history_row_reloads_everything_rather_than_guessing(
        two: tuple[Project, Project], tmp_path: Path) -> None:
    import sqlite3

    a, _b = two
    watch = ChangeWatch(a)
    conn = sqlite3.connect(tmp_path / "study.sense7")
    try:
        with conn:
            conn.execute("INSERT INTO history(at, coder, action, kind, conversation_id, "
                         "position, sentence, code, before, after, source, actor) VALUES "
                         "('2026-01-01', 'x', 'set', 'coding', 'c1', 'two', NULL, 'overall', "
                         "NULL, 1, 'edit', 'x')")
    finally:
        conn.close()
    assert watch.poll() == Changes(everything=True)


def test_the_state_of_some_turns_is_the_whole_state_cut_to_them(
        two: tuple[Project, Project]) -> None:
    a, b = two
    for p, v in ((a, 1), (b, 4)):
        p.set_value(Unit("c1", 2), "overall", v)
        p.set_value(Unit("c1", 4), "overall", v + 1)
    whole = a.turn_state("c1")
    part = a.turn_state("c1", positions={4})
    assert part["codings"] == {k: v for k, v in whole["codings"].items() if k[0] == 4} \
        == {(4, 0, "overall"): 2}
    assert part["others"] == [r for r in whole["others"] if r["position"] == 4]
    assert part["done"] == whole["done"] and part["memos"] == whole["memos"]


def test_an_attribute_a_run_and_a_prompt_written_elsewhere_are_named(
        two: tuple[Project, Project]) -> None:
    from sense7_coder.project.attributes import set_attribute
    from sense7_coder.project.suggestions.asking import set_code_prompt
    from sense7_coder.project.suggestions.stored import NewSuggestion, delete_run, store_run

    a, b = two
    watch = ChangeWatch(b)
    assert set_attribute(a, "c2", "site", "Leeds") == Changes(conversations=frozenset({"c2"}))
    assert watch.poll() == Changes(conversations=frozenset({"c2"}))
    run = store_run(a, "judge", "llm", "turn",
                    [NewSuggestion(Unit("c1", 2), "overall", "ok", 4, "warm")], requests=1)
    assert run.changes == Changes(suggestions=True)
    assert watch.poll() == Changes(suggestions=True)  # not "everything": no reload of all
    assert set_code_prompt(a, "overall", "Rate the reply's warmth.") == Changes(suggestions=True)
    assert watch.poll() == Changes(suggestions=True)
    assert delete_run(a, run.run) == Changes(suggestions=True)
    set_attribute(a, "c1", "site", "York")
    assert watch.poll() == Changes(suggestions=True, conversations=frozenset({"c1"}))
    assert watch.poll() == NOTHING


def test_an_edit_that_changes_nothing_says_so(two: tuple[Project, Project]) -> None:
    from sense7_coder.project.attributes import set_attribute
    from sense7_coder.project.suggestions.asking import set_code_prompt
    from sense7_coder.project.suggestions.view import set_shown_in_workspace

    a, b = two
    watch = ChangeWatch(b)
    assert set_attribute(a, "c2", "site", "Leeds")
    assert not set_attribute(a, "c2", "site", "Leeds")
    assert set_shown_in_workspace(a, True) == Changes(settings=True)
    assert set_shown_in_workspace(a, True) == NOTHING
    assert set_code_prompt(a, "overall", "  Rate warmth.  ")
    assert set_code_prompt(a, "overall", "Rate warmth.") == NOTHING  # kept stripped
    assert set_code_prompt(a, "overall", None)
    assert set_code_prompt(a, "overall", "   ") == NOTHING  # blank: the codebook's, as now
    assert set_code_prompt(a, "overall", "Rate warmth.")
    assert watch.poll() == Changes(conversations=frozenset({"c2"}), settings=True,
                                   suggestions=True)
    assert set_code_prompt(a, "overall", "Rate warmth only.")
    assert watch.poll() == Changes(suggestions=True)


def test_two_prompt_edits_with_one_stamp_are_told_apart(
        two: tuple[Project, Project], monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp of a prompt edit has a resolution (a millisecond); two edits within it,
    or a clock set back, must still read as a change in another window. The clock is
    frozen here, so the test does not depend on how fast the machine is."""
    import datetime as dt

    from sense7_coder.project.suggestions.asking import set_code_prompt
    from sense7_coder.store import suggestions as store_suggestions

    frozen = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
            return frozen

    monkeypatch.setattr(store_suggestions.dt, "datetime", Frozen)
    a, b = two
    watch = ChangeWatch(b)
    assert set_code_prompt(a, "overall", "Rate warmth.")
    assert watch.poll() == Changes(suggestions=True)
    assert set_code_prompt(a, "overall", "Rate warmth only.")  # the same stamp
    assert watch.poll() == Changes(suggestions=True)
    assert watch.poll() == NOTHING

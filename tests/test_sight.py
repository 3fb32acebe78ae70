"""Who sees what: the truth table of blind coding, asked through the real Project API.

Persons: the lead (an adjudicator), a second adjudicator (who leads too), a coder, and,
in coder packages, the coder and an adjudicator coding in her own package. States of the
turn for that person: never done, done, reopened (done, then marked not done again).
Places: the lead's project, the person's package. What: another coder's value, the users'
rating, a turn attribute and a hidden conversation attribute, a model's suggestion, the
turn's history, another coder's memo, and whether her own value is locked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from analysis_support import codebook

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.assignments import assign
from sense7_coder.project.imports import import_files
from sense7_coder.project.package import make_package
from sense7_coder.project.project import HIDDEN_VALUE
from sense7_coder.project.sight import RATINGS_HIDDEN, RATINGS_SHOWN, RATINGS_WITHHELD
from sense7_coder.project.suggestions.stored import NewSuggestion, store_run, suggestions
from sense7_coder.project.team.tables import memos_table, turn_history

T2 = Unit("c1", 2)
BOB_VALUE, BOB_MEMO = 1, "bob wonders about tone"


def chats(path: Path) -> Path:
    """Two conversations, the assistant turns rated by the users and carrying a turn
    attribute (ESConv's supporter strategy); the conversation attribute 'week' (hidden by
    the lead)."""
    lines = []
    for cid in ("c1", "c2"):
        turns: list[dict[str, Any]] = []
        for pos in (1, 2, 3, 4):
            if pos % 2:
                turns.append({"role": "user", "content": f"{cid} user turn {pos}"})
            else:
                turns.append({"role": "assistant", "content": f"{cid} reply {pos}",
                              "ratings": {"overall": 4}, "strategy": "Question"})
        lines.append(json.dumps({"conversation_id": cid, "participant_id": "P1",
                                 "model": "GPT4", "attributes": {"week": "1"},
                                 "messages": turns}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def study(folder: Path, *, blind: bool = True) -> Path:
    """A blind study led by lee with a second adjudicator ada; bob has coded c1 (values,
    a memo, done); ana and ada set their own values of c1 (nothing done yet); a model's
    suggestion of c1 turn 2 is stored."""
    path = folder / "study.sense7"
    with Project.create(path, codebook()) as p:
        import_files(p, [chats(folder / "chats.jsonl")])
        p.set_coder("lee", "adjudicator")
        p.set_coder("bob")
        for pos in (2, 4):
            p.set_value(Unit("c1", pos), "overall", BOB_VALUE)
            p.set_done("c1", pos)
        p.set_memo(T2, BOB_MEMO)
        for who in ("ana", "ada"):
            p.set_coder(who)
            for pos in (2, 4):
                p.set_value(Unit("c1", pos), "overall", 3)
        p.set_coder("lee")
        p.set_role("ada", "adjudicator")
        assign(p, ["ana", "ada"], overlap=1.0)
        store_run(p, "judge", "llm", "turn", [NewSuggestion(T2, "overall", "ok", 2, "why")])
        p.blind_coding = blind
        p.hidden_attributes = ["week", "model"]
    return path


def put_in_state(p: Project, state: str) -> None:
    """Bring the acting person's c1 to ``state``."""
    if state == "never done":
        return
    for pos in (2, 4):
        p.set_done("c1", pos)
    if state == "reopened":
        for pos in (2, 4):
            p.set_done("c1", pos, False)


def seen(p: Project) -> dict[str, Any]:
    """What the acting person gets of c1 turn 2 through the API, and whether her value is
    locked (tried, then put back)."""
    others = [r for r in p.turn_state("c1")["others"] if r["position"] == 2
              and r["coder"] == "bob"]
    conv = p.conversation_for_coder("c1")
    assert conv is not None
    turn = next(t for t in conv.turns if t.position == 2)
    try:
        shown_suggestion = bool(suggestions(p, T2, "overall"))
    except ProjectError:
        shown_suggestion = False
    try:
        p.set_value(T2, "overall", 2)
        p.undo()
        locked = False
    except ProjectError as e:
        assert "locked" in str(e)
        locked = True
    sight = p.sight()
    out = {
        "value": bool(others) and others[0]["value"] == BOB_VALUE,
        "rating": sight.ratings_state("c1", 2),
        "attribute": turn.attributes.get("strategy") == "Question",
        "conversation attribute": conv.attributes.get("week") == "1",
        "suggestion": shown_suggestion,
        "history": any(r["coder"] == "bob" for r in turn_history(p, "c1", 2)),
        "memo": BOB_MEMO in set(memos_table(p)["text"]),
        "locked": locked,
    }
    # the window's panel and the API read the same sight
    assert bool(turn.ratings) == (out["rating"] == RATINGS_SHOWN)
    assert out["locked"] == sight.locked(T2)
    assert out["suggestion"] == sight.sees_suggestion(T2, "overall")
    if others and not out["value"]:
        assert others[0]["value"] == HIDDEN_VALUE  # that bob coded it, not what
    return out


def row(value: bool, rating: str, attribute: bool, suggestion: bool, history: bool,
        memo: bool, locked: bool) -> dict[str, Any]:
    return {"value": value, "rating": rating, "attribute": attribute,
            "conversation attribute": attribute, "suggestion": suggestion,
            "history": history, "memo": memo, "locked": locked}


EVERYTHING = row(True, RATINGS_SHOWN, True, True, True, True, False)
BLIND = row(False, RATINGS_HIDDEN, False, False, False, False, False)
REVEALED = row(True, RATINGS_SHOWN, True, True, True, True, True)
#: in a blind package: no one else's work, no users' ratings, no model suggestions, the
#: hidden conversation attribute withheld; nothing revealed, so nothing locked
PACKAGE_CLOSED = row(False, RATINGS_WITHHELD, False, False, False, False, False)
PACKAGE_OPEN = {**PACKAGE_CLOSED, "attribute": True}

#: (person, state) -> what she gets in the lead's project
IN_PROJECT = {
    ("lee", "never done"): EVERYTHING, ("lee", "done"): EVERYTHING,
    ("lee", "reopened"): EVERYTHING,
    ("ada", "never done"): EVERYTHING, ("ada", "done"): EVERYTHING,
    ("ada", "reopened"): EVERYTHING,
    ("ana", "never done"): BLIND, ("ana", "done"): REVEALED,
    # marking it not done again does not take back what she saw: still shown, still locked
    ("ana", "reopened"): REVEALED,
}
#: (person, state) -> what she gets in her own package
IN_PACKAGE = {
    ("ana", "never done"): PACKAGE_CLOSED, ("ana", "done"): PACKAGE_OPEN,
    ("ana", "reopened"): PACKAGE_OPEN,
    # an adjudicator coding in her own package is a coder there
    ("ada", "never done"): PACKAGE_CLOSED, ("ada", "done"): PACKAGE_OPEN,
    ("ada", "reopened"): PACKAGE_OPEN,
}


@pytest.mark.parametrize(("person", "state"), list(IN_PROJECT))
def test_in_the_leads_project(tmp_path: Path, person: str, state: str) -> None:
    path = study(tmp_path)
    with Project.open(path, backup=False) as p:
        p.set_coder(person)
        put_in_state(p, state)
        assert seen(p) == IN_PROJECT[(person, state)]
        sight = p.sight()
        assert sight.works_blind == (person == "ana")
        assert sight.revealed("c1", 2) == (person == "ana" and state != "never done")


@pytest.mark.parametrize(("person", "state"), list(IN_PACKAGE))
def test_in_the_persons_package(tmp_path: Path, person: str, state: str) -> None:
    path = study(tmp_path)
    package = tmp_path / f"{person}.sense7"
    with Project.open(path, backup=False) as p:
        p.set_coder("lee")
        make_package(p, person, package)
    with Project.open(package, backup=False) as p:
        p.set_coder(person)
        assert p.sight().works_blind and not p.is_lead()
        put_in_state(p, state)
        assert seen(p) == IN_PACKAGE[(person, state)]
        # her quick fix of a turn she marked done is kept, and kept as coded blind
        p.set_value(T2, "overall", 5)
        assert p.db.execute("SELECT value, blind FROM codings WHERE coder = ? AND "
                            "conversation_id = 'c1' AND position = 2 AND code = 'overall'",
                            [person]).fetchone() == (5, 1)
        # nobody else acts in her package, a lead least of all
        with pytest.raises(ProjectError, match="coder package"):
            p.set_coder("lee")


def test_a_package_that_holds_the_users_ratings_reveals_them_and_locks(tmp_path: Path
                                                                        ) -> None:
    """A package of a study that did not code blind keeps the users' ratings (it codes
    blind itself): marking a turn done there shows them, so the lock holds."""
    path = study(tmp_path, blind=False)
    with Project.open(path, backup=False) as p:
        p.set_coder("lee")
        make_package(p, "ana", tmp_path / "ana.sense7")
    with Project.open(tmp_path / "ana.sense7", backup=False) as p:
        p.set_coder("ana")
        assert p.sight().ratings_state("c1", 2) == RATINGS_HIDDEN
        p.set_done("c1", 2)
        assert p.sight().revealed("c1", 2) and p.sight().locked(T2)
        with pytest.raises(ProjectError, match="locked"):
            p.set_value(T2, "overall", 5)
        p.set_done("c1", 2, False)  # reopening takes nothing back
        with pytest.raises(ProjectError, match="locked"):
            p.set_value(T2, "overall", 5)


def test_with_the_lock_off_a_revealed_value_is_a_change_after_the_reveal(tmp_path: Path
                                                                           ) -> None:
    path = study(tmp_path)
    with Project.open(path, backup=False) as p:
        p.set_coder("lee")
        p.lock_after_reveal = False
        p.set_coder("ana")
        put_in_state(p, "reopened")
        assert p.sight().revealed("c1", 2) and not p.sight().locked(T2)
        p.set_value(T2, "overall", 5)
        assert p.db.execute("SELECT value FROM revisions WHERE coder = 'ana'").fetchone() == (5,)


def test_nobody_named_works_blind_and_sees_nothing_hidden(tmp_path: Path) -> None:
    path = study(tmp_path)
    with Project.open(path, backup=False) as p:
        sight = p.sight()
        assert sight.person is None and sight.works_blind and not sight.sees_everything
        assert not sight.is_open("c1", 2) and not sight.revealed("c1", 2)
        assert not sight.sees_attribute("week") and sight.sees_attribute("participant_id")
        with pytest.raises(ProjectError, match="only a lead"):
            sight.require_everything("see agreement")


def test_outside_blind_coding_everyone_sees_everything_and_nothing_locks(tmp_path: Path
                                                                          ) -> None:
    path = study(tmp_path, blind=False)
    with Project.open(path, backup=False) as p:
        p.set_coder("ana")
        put_in_state(p, "done")
        got = seen(p)
        assert got == EVERYTHING


def test_the_rules_helpers_ask_the_sight(tmp_path: Path) -> None:
    """The older helpers of project/rules.py answer as the sight does."""
    path = study(tmp_path)
    with Project.open(path, backup=False) as p:
        p.set_coder("ana")
        assert p.blind_for("c1", 2) and not p.revealed_to("ana", "c1", 2)
        put_in_state(p, "reopened")
        assert not p.blind_for("c1", 2) and p.revealed_to("ana", "c1", 2)
        assert not p.revealed_to("lee", "c1", 2) and not p.blind_for("c1", 2, "lee")
        assert p.hides("week") and p.hides("model") and not p.hides("participant_id")


# -- the window reads the same sight --------------------------------------------------------------

CLOSED = ("agreement", "reconcile", "analyses", "export", "merge", "cooccurrence")


def items(w: Any) -> dict[str, Any]:
    return {**w.actions_.all, **w.analysis.menu_actions}


def test_the_blind_coders_window(gui: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication, QMessageBox

    path = study(tmp_path)
    w = gui.open(path, coder="ana")
    ws = w.workspace
    for name in CLOSED:  # greyed, and the item says why
        action = items(w)[name]
        assert not action.isEnabled(), name
        assert "'ana' codes blind in this project: only a lead" in action.toolTip()
        assert action.statusTip() == action.toolTip()
    assert items(w)["retrieve"].isEnabled()  # her own codings she may retrieve
    # the pointer over a greyed item puts the reason on the status line too
    menu = w.menus["analysis"]
    menu.popup(w.mapToGlobal(w.rect().topLeft()))
    spot = QPointF(menu.actionGeometry(items(w)["agreement"]).center())
    QApplication.sendEvent(menu, QMouseEvent(QEvent.Type.MouseMove, spot, spot,
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))
    assert "'ana' codes blind" in w.statusBar().currentMessage()
    menu.hide()
    assert (ws.conversation_id, ws.position) == ("c1", 2)
    row = ws.coding.rows["overall"]
    assert "hidden until you mark it done" in row.others_label.text()
    assert "Hidden while blind coding" in ws.ratings.shown_text()
    assert "did not rate" not in ws.ratings.shown_text()
    assert "Question" not in ws.transcript.toPlainText()  # the turn attribute waits too

    gui.press(w, "D", "D")  # done (D twice: some codes are empty); it stays on the turn
    assert ws.position == 2
    assert "bob <b>1</b>" in row.others_label.text()
    assert "overall: 4" in ws.ratings.shown_text()
    assert "Question" in ws.transcript.toPlainText()
    w.actions_.reopen.trigger()  # not done again: what she saw stays shown, and locked
    assert 2 not in ws.state.done
    assert "bob <b>1</b>" in row.others_label.text()
    assert "overall: 4" in ws.ratings.shown_text()
    assert "Locked" in ws.coding.status.text()  # the panel says so before she tries
    refused: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        refused.append(box.text())
        box.accept()

    QTimer.singleShot(0, answer)
    gui.press(w, "5")
    assert w.project.turn_state("c1")["codings"][(2, 0, "overall")] == 3  # locked
    assert refused and "locked" in refused[0]


def test_the_leads_window_opens_everything(gui: Any, tmp_path: Path) -> None:
    path = study(tmp_path)
    w = gui.open(path, coder="lee")
    for name in CLOSED:
        action = items(w)[name]
        assert action.isEnabled(), name
        assert "codes blind" not in action.toolTip()
    assert "overall: 4" in w.workspace.ratings.shown_text()
    # the lead switches to a coder: the items close with the reason
    w.project.set_coder("ana")
    w.coder_changed()
    assert not items(w)["agreement"].isEnabled()
    assert "only a lead" in items(w)["agreement"].toolTip()


def test_the_window_in_her_package_says_the_ratings_are_not_there(gui: Any, tmp_path: Path
                                                                  ) -> None:
    path = study(tmp_path)
    with Project.open(path, backup=False) as p:
        p.set_coder("lee")
        make_package(p, "ana", tmp_path / "ana.sense7")
    w = gui.open(tmp_path / "ana.sense7", coder="ana")
    ws = w.workspace
    text = ws.ratings.shown_text()
    assert "package holds none of the users' ratings" in text and "did not rate" not in text
    assert not items(w)["agreement"].isEnabled()
    # marking it done shows what her package holds of the turn, and says no more than that
    assert "marks it done and shows the turn's attributes" in ws.coding.status.text()
    gui.press(w, "D", "D")
    assert 2 in ws.state.done
    said = w.message_log.entries[-1].text
    assert "the turn's attributes are shown now" in said and "ratings" not in said
    assert "package holds none of the users' ratings" in ws.ratings.shown_text()
    gui.press(w, "5")  # her quick fix of a turn she marked done
    assert w.project.turn_state("c1")["codings"][(2, 0, "overall")] == 5


def test_blind_coding_switched_elsewhere_greys_the_coders_items(gui: Any, tmp_path: Path
                                                                ) -> None:
    """The lead switches blind coding on from another program: the coder's open window
    greys what she may no longer use as soon as it hears of the change."""
    path = study(tmp_path, blind=False)
    w = gui.open(path, coder="ana")
    assert items(w)["agreement"].isEnabled()
    assert "overall: 4" in w.workspace.ratings.shown_text()
    with Project.open(path, backup=False) as p:
        p.set_coder("lee")
        p.blind_coding = True
    w.check_elsewhere()
    assert not items(w)["agreement"].isEnabled()
    assert "only a lead" in items(w)["agreement"].toolTip()
    assert "Hidden while blind coding" in w.workspace.ratings.shown_text()

"""The transcript: every character shown as stored, code in monospace, sentences marked."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor

from sense7_coder.domain.models import Conversation, Turn
from sense7_coder.ui.workspace.transcript import TranscriptView, codepoint_index, utf16_index
from sense7_coder.ui.workspace.transcript_text import code_lines, format_offset

pytestmark = pytest.mark.gui
ALT = Qt.KeyboardModifier.AltModifier


def _body(view: TranscriptView, turn: Turn) -> str:
    start = view.body_start(turn.position)
    assert start is not None
    cursor = QTextCursor(view.document())
    cursor.setPosition(start)
    cursor.setPosition(start + utf16_index(turn.text, len(turn.text)), QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText().replace("\u2029", "\n").replace("\u2028", "\n")


def _view(qtbot, conv: Conversation, *, shown: bool = False) -> TranscriptView:
    """A transcript of ``conv`` at its first turn (``shown``: in a 500 x 300 window)."""
    view = TranscriptView()
    qtbot.addWidget(view)
    if shown:
        view.resize(500, 300)
        view.show()
    view.show_conversation(conv, 1)
    return view


def test_messages_are_shown_verbatim_and_escaped(qtbot) -> None:
    texts = ["<b>not bold</b> & <script>x</script>", "a\nb\n\n  indented   spaces",
             "emoji 😀 then text", "tab\there", ""]
    conv = Conversation("c1", turns=[Turn(i + 1, "user" if i % 2 else "assistant", t)
                                     for i, t in enumerate(texts)])
    view = _view(qtbot, conv)
    qtbot.waitUntil(lambda: view.complete)
    for turn in conv.turns:
        assert _body(view, turn) == turn.text
    assert "not bold" in view.toPlainText() and "<b>" in view.toPlainText()
    assert view.locate(view.body_start(3) + 2) == (3, 0)
    assert "5 messages" in view.toPlainText()
    view.show_conversation(Conversation("c2", turns=conv.turns[:1]), 1)
    assert "1 message\n" in view.toPlainText()


def test_windows_line_ends_break_a_line_once_and_keep_every_offset(qtbot) -> None:
    text = "First line.\r\nSecond line.\r\n\r\nThird, after a blank line.\rOld Mac end."
    conv = Conversation("c1", turns=[Turn(1, "assistant", text)])
    view = _view(qtbot, conv)
    shown = _body(view, conv.turns[0])
    assert len(shown) == len(text)  # one document character per character: offsets hold
    assert shown == text.replace("\r\n", "\u200b\n").replace("\r", "\n")
    lines = shown.replace("\u200b", "").split("\n")
    assert lines == ["First line.", "Second line.", "", "Third, after a blank line.",
                     "Old Mac end."]  # no extra empty line per Windows line end


def test_moving_turn_does_not_rebuild_the_document(qtbot) -> None:
    conv = Conversation("c1", turns=[Turn(i + 1, "assistant", f"turn {i}") for i in range(40)])
    view = _view(qtbot, conv, shown=True)
    renders = view.renders
    view.set_current(35)
    assert view.renders == renders
    assert view.verticalScrollBar().value() > 0  # scrolled to show turn 35


def test_a_long_conversation_shows_its_current_turn_first_and_the_rest_follows(qtbot) -> None:
    conv = Conversation("c1", turns=[Turn(i + 1, "user" if i % 2 else "assistant",
                                          f"message {i + 1}") for i in range(300)])
    view = _view(qtbot, conv, shown=True)
    assert view.body_start(1) is not None and not view.complete  # on screen before the rest
    qtbot.waitUntil(lambda: view.complete)
    assert view.toPlainText().count("message ") == 300
    assert [view.locate(view.body_start(p)) for p in (1, 150, 300)] == [(1, 0), (150, 0), (300, 0)]
    view.show_conversation(conv, 299)  # entering at the end builds at least that far at once
    assert view.body_start(299) is not None
    assert view.verticalScrollBar().value() > 0
    view.set_search("message 3")  # a search marks every hit, built or not yet
    assert view.complete and view.search_hits() == 12  # messages 3, 30-39 and 300
    view.set_search("")
    view.show_conversation(conv, 1)
    assert not view.complete
    assert "message 300" in view.toPlainText()  # whoever reads the text gets all of it


def test_only_the_current_turn_is_marked_after_moves_and_scrolls(qtbot) -> None:
    conv = Conversation("c1", turns=[Turn(i + 1, "user" if i % 2 else "assistant",
                                          f"message {i + 1}") for i in range(40)])
    view = _view(qtbot, conv, shown=True)
    qtbot.waitUntil(lambda: view.complete)
    accent = view.palette().color(view.palette().ColorRole.Highlight)

    def bar_colour(position: int):  # the pixel on screen in the middle of the turn's bar
        rect = view._turn_rect(position)
        assert rect is not None
        x = int(rect.left()) + 1 - view.horizontalScrollBar().value()
        y = int(rect.center().y()) - view.verticalScrollBar().value()
        if not 0 <= y < view.viewport().height():
            return None  # scrolled out of sight
        at = view.viewport().mapTo(view.window(), QPoint(x, y))
        shot = view.screen().grabWindow(view.window().winId())  # what was painted, not a
        return shot.toImage().pixelColor(at)                     # fresh render

    for position in range(2, 31):
        view.set_current(position)
        qtbot.wait(1)
        assert bar_colour(position) == accent, position
        assert bar_colour(position - 1) in (None, view._formats.backgrounds[
            "user" if (position - 1) % 2 == 0 else "assistant"]), position


def test_code_like_lines_are_detected() -> None:
    text = "Try this:\n```\nx = 1\n```\n=SUM(A1:A3)\nplain line\n\n    def f():\n        pass\nend"
    assert code_lines(text) == [False, True, True, True, True, False, False, True, True, False]
    assert code_lines("Set B2 to =VLOOKUP(A2, D:E, 2, FALSE) please") == [True]
    assert format_offset(65) == "1:05" and format_offset(3725) == "1:02:05"
    assert format_offset(None) == ""


def test_utf16_index_round_trip() -> None:
    text = "a😀b😀c"
    for i in range(len(text) + 1):
        assert codepoint_index(text, utf16_index(text, i)) == i


def test_sentence_codes_move_by_sentence(gui, qtbot, tmp_path: Path) -> None:
    path = gui.synthetic(tmp_path / "tactics.sense7", 2, turns=4, codebook="tactics")
    w = gui.open(path)
    ws = w.workspace
    assert (ws.conversation_id, ws.position, ws.sentence) == ("c00000", 2, 1)
    assert len(ws.sentences[2]) == 2
    assert ws.coding.focused_key == "advice"
    assert ws.transcript.extraSelections()  # sentence boundaries are shown
    gui.press(w, "1")  # advice present in sentence 1
    gui.press(w, Qt.Key.Key_Down, modifier=ALT)
    assert ws.sentence == 2
    gui.press(w, "Q", "1", "V", " ")  # questioning present, validation toggled on
    assert gui.stored(path, "dana", "c00000", 2, "advice", sentence=1) == 1
    assert gui.stored(path, "dana", "c00000", 2, "questioning", sentence=2) == 1
    assert gui.stored(path, "dana", "c00000", 2, "validation", sentence=2) == 1
    gui.press(w, Qt.Key.Key_Down, modifier=ALT)
    assert (ws.position, ws.sentence) == (4, 1)
    gui.press(w, Qt.Key.Key_Up, modifier=ALT)
    assert (ws.position, ws.sentence) == (2, 2)
    start = ws.transcript.body_start(2)
    assert ws.transcript.locate(start + 1) == (2, 1)

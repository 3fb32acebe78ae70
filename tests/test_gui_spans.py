"""Span coding in the window: keyboard alone, the context menu, highlights, undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from sense7_coder.project import Project
from sense7_coder.project.spans import editing as project_spans


def stored_spans(path: Path, coder: str) -> list[tuple[Any, ...]]:
    with Project.open(path, backup=False) as p:
        return [(s.conversation_id, s.position, s.start, s.end, s.code)
                for s in project_spans.spans(p, "101") if s.coder == coder]


def shortcut_of(path: Path, key: str) -> str:
    with Project.open(path, backup=False) as p:
        return p.code(key).shortcut


def test_a_coder_marks_a_span_with_the_keyboard_alone_and_undoes_it(
        gui: Any, demo_project: Path) -> None:
    window = gui.open(demo_project, coder="dana")
    ws = window.workspace
    assert ws.go_to("101", 2)
    letter = shortcut_of(demo_project, "paraphrasing")
    gui.press(window, Qt.Key.Key_F2)
    assert QApplication.focusWidget() is ws.transcript
    for _ in range(6):  # six words, word by word, to the start of "at"
        gui.press(window, Qt.Key.Key_Right,
                  modifier=Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    gui.press(window, Qt.Key.Key_Left, modifier=Qt.KeyboardModifier.ShiftModifier)  # the space
    assert ws.transcript.textCursor().selectedText() == "That is a lot to carry"
    gui.press(window, letter)
    assert stored_spans(demo_project, "dana") == [("101", 2, 0, 22, "paraphrasing")]
    # painted in its code's colour
    assert any(sel.format.background().color().alpha() > 0
               for sel in ws.transcript.extraSelections())
    gui.press(window, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is ws.coding
    gui.press(window, "z", modifier=Qt.KeyboardModifier.ControlModifier)
    assert stored_spans(demo_project, "dana") == []


def test_the_context_menu_marks_recodes_and_deletes(gui: Any, demo_project: Path,
                                                    qtbot: Any) -> None:
    window = gui.open(demo_project, coder="dana")
    ws = window.workspace
    assert ws.go_to("101", 2)
    view = ws.transcript
    body = view.body_start(2)
    cursor = view.textCursor()
    cursor.setPosition(body + 36)
    cursor.setPosition(body + 79, cursor.MoveMode.KeepAnchor)  # "it makes sense ... thin"
    view.setTextCursor(cursor)
    point = view.cursorRect(cursor).center()
    menu = ws.spans.build_menu(point)
    mark = next(a.menu() for a in menu.actions() if a.text() == "Mark selection as")
    next(a for a in mark.actions() if a.text() == "Validation").trigger()
    assert stored_spans(demo_project, "dana") == [("101", 2, 36, 79, "validation")]
    cursor.setPosition(body + 40)
    view.setTextCursor(cursor)
    menu = ws.spans.build_menu(view.cursorRect(cursor).center())
    span_menu = next(a.menu() for a in menu.actions() if a.text().startswith("Span: "))
    recode = next(a.menu() for a in span_menu.actions() if a.text() == "Recode as")
    next(a for a in recode.actions() if a.text() == "Paraphrasing").trigger()
    assert stored_spans(demo_project, "dana") == [("101", 2, 36, 79, "paraphrasing")]
    menu = ws.spans.build_menu(view.cursorRect(cursor).center())
    span_menu = next(a.menu() for a in menu.actions() if a.text().startswith("Span: "))
    next(a for a in span_menu.actions() if a.text() == "Delete").trigger()
    assert stored_spans(demo_project, "dana") == []
    assert isinstance(point, QPoint)


def test_the_agreement_window_shows_the_span_codes(qtbot: Any, demo_project: Path) -> None:
    from sense7_coder.ui.analysis.agreement_panel import AgreementPanel

    with Project.open(demo_project, backup=False) as project:
        panel = AgreementPanel(project)
        qtbot.addWidget(panel)
        panel.bootstrap.setValue(30)
        panel.show()
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert panel.wait(120)
        assert panel.error is None, panel.error
        tabs = [panel.results.tabText(i) for i in range(panel.results.count())]
        assert "Spans" in tabs
        table = panel.span_tab.table
        codes = [table.item(i, 0).text() for i in range(table.rowCount())]
        assert "validation" in codes
        row = codes.index("validation")
        assert table.item(row, 5).text() != "–"  # alice's and bashir's validation spans
        panel.close()


def test_shift_alt_arrows_resize_the_span_at_the_cursor_and_undo_takes_it_back(
        gui: Any, demo_project: Path) -> None:
    window = gui.open(demo_project, coder="dana")
    ws = window.workspace
    assert ws.go_to("101", 2)
    text = ws.transcript.turn_text(2)
    shift_alt = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier
    by_word = shift_alt | Qt.KeyboardModifier.ControlModifier
    gui.press(window, Qt.Key.Key_Right, modifier=shift_alt)  # no span at the cursor: refused
    assert stored_spans(demo_project, "dana") == []
    gui.press(window, Qt.Key.Key_F2)
    for _ in range(6):
        gui.press(window, Qt.Key.Key_Right,
                  modifier=Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    gui.press(window, Qt.Key.Key_Left, modifier=Qt.KeyboardModifier.ShiftModifier)
    gui.press(window, shortcut_of(demo_project, "paraphrasing"))
    assert stored_spans(demo_project, "dana") == [("101", 2, 0, 22, "paraphrasing")]

    def marked() -> str:
        (span,) = stored_spans(demo_project, "dana")
        return text[span[2]:span[3]]

    gui.press(window, Qt.Key.Key_Left, modifier=shift_alt)
    assert marked() == "That is a lot to carr"
    gui.press(window, Qt.Key.Key_Left, modifier=by_word)
    assert marked() == "That is a lot to"
    gui.press(window, Qt.Key.Key_Right, modifier=by_word)
    assert marked() == "That is a lot to carry"
    gui.press(window, Qt.Key.Key_Right, modifier=shift_alt)
    assert marked() == text[:23]
    for _ in range(6):  # five words back to "That", which cannot shrink to nothing
        gui.press(window, Qt.Key.Key_Left, modifier=by_word)
    assert marked() == "That"
    bar = window.statusBar()  # said in the status bar (the whole text in its tooltip)
    assert "cannot shrink to nothing" in (bar.toolTip() or bar.currentMessage())
    assert ws.transcript.hasFocus()
    for want in ("That is", "That is a", "That is a lot", "That is a lot to", text[:23]):
        gui.press(window, "z", modifier=Qt.KeyboardModifier.ControlModifier)
        if marked() != want:  # undo may need the codes' focus; say what the coder sees
            raise AssertionError((want, marked()))

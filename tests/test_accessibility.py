"""Every control of the main screens has a name a screen reader can say and a keyboard path;
the focus shows; the window works at 200% and with a high-contrast palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sense7_coder.ui.accessibility import unnamed_controls

pytestmark = pytest.mark.gui


def _describe(widgets) -> list[str]:
    return [f"{type(w).__name__} {w.objectName()!r} tip={w.toolTip()[:40]!r} in "
            f"{type(w.parent()).__name__}" for w in widgets]


def test_every_control_of_the_main_screens_has_a_name(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    assert _describe(unnamed_controls(w)) == []
    ws = w.workspace
    for key in ws.coding.visible_keys():
        for button in ws.coding.rows[key].buttons:  # a level says its code, value and anchor
            assert button.accessibleName().startswith(ws.coding.rows[key].code.label)
    w.show_welcome()
    assert _describe(unnamed_controls(w)) == []
    panel = w.analysis.agreement()
    qtbot.addWidget(panel)
    assert _describe(unnamed_controls(panel)) == []
    panel.close()


def test_the_codes_are_reached_and_rated_from_the_keyboard(gui, demo_project: Path) -> None:
    """The level buttons take no focus: the keys act on the focused code instead, and the
    code rows are reached with the arrows and letters from the panel that has the focus.
    Every other control of the workspace is reached with Tab."""
    from PySide6.QtWidgets import QHeaderView, QScrollBar, QToolButton, QWidget

    from sense7_coder.ui.accessibility import INTERACTIVE
    from sense7_coder.ui.workspace.code_row import CodeRow

    w = gui.open(demo_project)
    no_tab = [x for x in w.findChildren(QWidget)
              if isinstance(x, INTERACTIVE) and x.isVisibleTo(w)
              and not isinstance(x, (QHeaderView, QScrollBar))
              and not x.focusPolicy() & Qt.FocusPolicy.TabFocus]
    left = [x for x in no_tab if not (isinstance(x, QToolButton) and isinstance(
        x.parent(), CodeRow))]
    assert _describe(left) == []
    coding = w.workspace.coding
    assert coding.focusPolicy() == Qt.FocusPolicy.StrongFocus and coding.hasFocus()
    gui.press(w, "3")  # rated the focused code, moved on
    gui.press(w, Qt.Key.Key_Up)
    assert coding.value_of(coding.focused_key) == 3
    gui.press(w, "X")  # a code's letter
    assert coding.focused_key == "contextual"


def test_focus_is_drawn_and_the_contrast_palette_reads(gui, qtbot, demo_project: Path) -> None:
    from PySide6.QtGui import QColor, QPalette

    from sense7_coder.ui.accessibility import contrast_palette

    w = gui.open(demo_project)
    table = w.workspace.list_panel.table
    before = table.grab().toImage()
    table.setFocus()
    qtbot.waitUntil(table.hasFocus, timeout=2000)
    after = table.grab().toImage()
    highlight = table.palette().color(QPalette.ColorRole.Highlight)
    edge = QColor(after.pixel(0, after.height() // 2))
    assert edge == highlight and QColor(before.pixel(0, before.height() // 2)) != highlight
    p = contrast_palette()
    text = p.color(QPalette.ColorRole.WindowText)
    back = p.color(QPalette.ColorRole.Window)
    assert abs(text.lightness() - back.lightness()) == 255  # white on black
    assert p.color(QPalette.ColorRole.Highlight) != p.color(QPalette.ColorRole.Window)


def test_the_transcript_is_reached_with_tab_and_f2_and_framed(gui, qtbot,
                                                               demo_project: Path) -> None:
    """Tab and Shift+Tab walk into the transcript and out again; F2 puts a text cursor in the
    current turn; the focused transcript wears the focus frame; Escape goes back to the codes."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    w = gui.open(demo_project)
    ws = w.workspace
    view = ws.transcript
    before = view.grab().toImage()
    seen = []
    for _ in range(80):  # from the codes (Tab walks them first), round the chain
        gui.press(w, Qt.Key.Key_Tab)
        seen.append(QApplication.focusWidget())
        if seen[-1] is view:
            break
    assert view.hasFocus(), " ".join(type(x).__name__ for x in seen if type(x).__name__ != "CodingPanel")
    assert view.textCursor().position() == view.body_start(ws.position)  # the current turn
    after = view.grab().toImage()
    highlight = view.palette().color(QPalette.ColorRole.Highlight)
    edge = QColor(after.pixel(0, after.height() // 2))
    assert edge == highlight and QColor(before.pixel(0, before.height() // 2)) != highlight
    gui.press(w, Qt.Key.Key_Tab)  # and out again: Tab is not swallowed by the text
    assert not view.hasFocus()
    for _ in range(40):  # back again: Shift+Tab walks up the codes, then leaves them
        gui.press(w, Qt.Key.Key_Tab, modifier=Qt.KeyboardModifier.ShiftModifier)
        if view.hasFocus():
            break
    assert view.hasFocus()
    gui.press(w, Qt.Key.Key_Escape)
    assert ws.coding.hasFocus()
    gui.press(w, Qt.Key.Key_F2)  # a text cursor at the start of the current turn's message
    assert view.hasFocus()
    assert view.textCursor().position() == view.body_start(ws.position)


def test_the_focus_frame_leaves_with_the_focus_and_the_window_paints_plainly(
        gui, qtbot, demo_project: Path) -> None:
    """The frame goes when the focus leaves, and a widget's own style sheet comes back; the
    window itself carries no style sheet (every widget under one paints through Qt's slow
    style-sheet style)."""
    from PySide6.QtGui import QColor, QPalette

    w = gui.open(demo_project)
    table = w.workspace.list_panel.table
    recent_style = "QTableView::item { padding: 1px; }"
    table.setStyleSheet(recent_style)  # a widget's own style sheet is kept
    table.setFocus()
    qtbot.waitUntil(table.hasFocus, timeout=2000)
    highlight = table.palette().color(QPalette.ColorRole.Highlight)
    assert QColor(table.grab().toImage().pixel(0, table.height() // 2)) == highlight
    w.workspace.coding.setFocus()
    qtbot.waitUntil(lambda: not table.hasFocus(), timeout=2000)
    assert QColor(table.grab().toImage().pixel(0, table.height() // 2)) != highlight
    assert table.styleSheet() == recent_style
    assert w.styleSheet() == ""

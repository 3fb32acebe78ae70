"""What a researcher met walking through the app for a day, checked so it stays fixed:
windows that fit a laptop screen, keys that keep working after a menu, the turn's title in
view, blind coding that shows what it hid, and colours that read on a dark palette."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QMenu

from sense7_coder.ui.analysis.agreement_panel import AgreementPanel
from sense7_coder.ui.dialogs.form_widgets import MessageLabel
from sense7_coder.ui.dialogs.import_check import Message
from sense7_coder.ui.dialogs.import_dialog import ImportDialog
from sense7_coder.ui.dialogs.import_panels import MessageList
from sense7_coder.ui.palette import dark_palette
from sense7_coder.ui.screen import available, fitted_size
from sense7_coder.ui.workspace.transcript import palette_colours
from sense7_coder.ui.workspace.transcript_text import body_segments

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier


def luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(colour.red()) + 0.7152 * channel(colour.green()) + 0.0722 * channel(colour.blue())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def within_screen(widget: Any) -> bool:
    area = available(widget)
    assert area is not None
    return widget.width() <= area.width() and widget.height() <= area.height()


@pytest.fixture
def dark(qtbot: Any) -> Iterator[QPalette]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.palette()
    app.setPalette(dark_palette())
    yield app.palette()
    app.setPalette(before)


# -- sizes ------------------------------------------------------------------------------------

def test_windows_fit_the_screen_with_room_for_the_frame(gui, qtbot, demo_project: Path) -> None:
    laptop = QRect(0, 0, 1280, 800)
    size = fitted_size(1280, 800, laptop)
    assert size.width() <= 1280 - 16 and size.height() <= 800 - 40  # title bar + status bar show
    assert fitted_size(900, 600, laptop).toTuple() == (900, 600)  # smaller windows keep theirs

    w = gui.open(demo_project)
    assert within_screen(w)
    panel = AgreementPanel(w.project)
    qtbot.addWidget(panel)
    assert within_screen(panel)
    dialog = ImportDialog(w.project, w)
    assert within_screen(dialog)  # its Import and Cancel buttons stay on screen
    dialog.reject()


# -- menus and keys -----------------------------------------------------------------------------

def test_each_menu_gives_every_letter_to_one_item(gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    for name, menu in w.menus.items():
        letters = [m.group(1).lower() for a in menu.actions()
                   for m in [re.search(r"&(\w)", a.text())] if m and a.isVisible()]
        assert len(letters) == len(set(letters)), (name, letters)


def test_escape_out_of_a_menu_leaves_the_keys_with_the_codes(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    gui.press(w, "e", modifier=Qt.KeyboardModifier.AltModifier)  # Alt+E opens the Edit menu
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=2000)
    # Esc closes the menu; Qt's menu bar would now keep the keyboard
    qtbot.keyClick(QApplication.activePopupWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)
    qtbot.waitUntil(lambda: w.focusWidget() is w.workspace.coding, timeout=2000)
    w.activateWindow()  # (the test platform leaves no window active once a popup closes)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.workspace.coding, timeout=2000)
    gui.press(w, "4")
    assert gui.stored(demo_project, "dana", "101", 2, "overall") == 4


def test_analysis_needs_a_project(gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    assert all(a.isEnabled() for a in w.analysis.menu_actions.values())
    w.close_project()
    assert not any(a.isEnabled() for a in w.analysis.menu_actions.values())


def test_agreement_window_runs_and_closes_from_the_keyboard(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = w.analysis.agreement()
    assert isinstance(panel, AgreementPanel)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.run_button, timeout=2000)
    panel.bootstrap.setValue(0)
    qtbot.keyClick(panel.run_button, Qt.Key.Key_Return, CTRL)
    assert panel.task is not None
    qtbot.waitUntil(lambda: panel.report is not None, timeout=20000)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.run_button, timeout=2000)  # Enter runs it again
    qtbot.keyClick(panel.run_button, Qt.Key.Key_W, CTRL)
    assert not panel.isVisible()


# -- coding ---------------------------------------------------------------------------------------

def test_turn_title_and_focused_code_stay_in_view(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    w.resize(900, 560)  # a small window: the codes need scrolling
    qtbot.wait(20)
    gui.press(w, "L")  # the last code (relational); its description opens under it
    coding = ws.coding
    row = coding.rows["relational"]
    assert row.description.isVisible()
    top_left = row.mapTo(coding.viewport(), row.rect().topLeft())
    bottom = top_left.y() + row.height()
    assert coding.verticalScrollBar().value() > 0
    assert top_left.y() >= 0 and bottom <= coding.viewport().height()  # whole row in view
    assert coding.title.isVisible() and coding.title.text() == "Turn 2 · Assistant"
    title_y = coding.title.mapTo(w, coding.title.rect().bottomLeft()).y()
    assert title_y <= coding.viewport().mapTo(w, coding.viewport().rect().topLeft()).y()


def test_blind_done_shows_the_users_ratings_then_goes_on(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    w.actions_.blind.trigger()
    assert "shows the users' ratings" in ws.coding.status.text()
    gui.press(w, "4", "4", "5", "3", "4", "3", "4")  # seven of the eight codes
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)  # one is empty: it asks first
    assert not gui.stored_done(demo_project, "dana", "101", 2)
    assert (w.statusBar().toolTip() or w.statusBar().currentMessage()).startswith("Press Ctrl+Enter (or D) again to mark "
                                                     "turn 2 done with 1 code left empty")
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)
    assert gui.stored_done(demo_project, "dana", "101", 2)
    assert ws.position == 2  # stays: what blind coding hid is shown now
    assert "overall: 5 very good" in ws.ratings.shown_text()
    message = (w.statusBar().toolTip() or w.statusBar().currentMessage())
    assert "Ctrl+Enter goes on" in message  # the whole text, when cut to fit, in the tip
    assert "1 left empty: Relational continuity" in (w.statusBar().toolTip() or message)
    assert "goes on" in ws.coding.status.text()
    gui.press(w, Qt.Key.Key_Return, modifier=CTRL)
    assert (ws.conversation_id, ws.position) == ("101", 4)
    assert "Hidden while blind coding" in ws.ratings.shown_text()


def test_done_without_blind_coding_moves_on_at_once(gui, demo_project: Path) -> None:
    w = gui.open(demo_project)
    gui.press(w, "4", "D")
    assert w.workspace.position == 2 and "again to mark turn 2 done" in \
        (w.statusBar().toolTip() or w.statusBar().currentMessage())
    gui.press(w, "D")
    assert w.workspace.position == 4
    assert "7 left empty" in (w.statusBar().toolTip() or w.statusBar().currentMessage())


def test_the_list_counts_without_of_when_nothing_is_filtered(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    panel = w.workspace.list_panel
    panel.apply_filter()
    assert panel.count_label.text() == "12 conversations"
    panel.search.setText("101")
    panel.apply_filter()
    assert panel.count_label.text() == "1 of 12 conversations"


def test_search_then_enter_opens_the_match_and_returns_to_the_codes(gui, qtbot,
                                                                    demo_project: Path) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    gui.press(w, "f", modifier=CTRL)
    assert QApplication.focusWidget() is ws.list_panel.search
    gui.press(w, "107")  # typed into the box, not taken as levels
    assert gui.stored(demo_project, "dana", "101", 2, "overall") is gui.MISSING
    gui.press(w, Qt.Key.Key_Return)
    assert ws.conversation_id == "107"
    assert QApplication.focusWidget() is ws.coding
    gui.press(w, "4")
    assert gui.stored(demo_project, "dana", "107", ws.position, "overall") == 4
    gui.press(w, "f", modifier=CTRL)
    gui.press(w, "no such words", Qt.Key.Key_Return)  # nothing matches: stay to fix it
    assert QApplication.focusWidget() is ws.list_panel.search
    gui.press(w, Qt.Key.Key_Escape)  # Esc leaves the box without moving
    assert QApplication.focusWidget() is ws.coding and ws.conversation_id == "107"


def test_formulas_in_prose_are_monospace_but_the_prose_is_not() -> None:
    line = 'Check with =ISNUMBER(A2); if it says "FALSE", convert.'
    assert body_segments(line) == [("Check with ", False), ("=ISNUMBER(A2)", True),
                                   ('; if it says "FALSE", convert.', False)]
    assert body_segments("=SUM(A1:A3)") == [("=SUM(A1:A3)", True)]
    text = "Type this:\n=SUM(A1:A3)\n\nthen Enter"
    segments = body_segments(text)
    assert "".join(s for s, _ in segments) == text  # every character kept, in order
    assert [s for s, mono in segments if mono] == ["=SUM(A1:A3)"]


# -- dark palette -----------------------------------------------------------------------------------

def test_dark_palette_keeps_messages_and_transcript_readable(gui, qtbot, demo_project: Path,
                                                              dark: QPalette) -> None:
    base = dark.color(QPalette.ColorRole.Base)
    for kind in ("error", "warning", "ok"):
        label = MessageLabel()
        qtbot.addWidget(label)
        label.show_message("Not saved yet", kind)
        sheet = label.styleSheet()
        fg = QColor(re.search(r"color: (#\w+)", sheet).group(1))  # type: ignore[union-attr]
        bg = QColor(re.search(r"background: (#\w+)", sheet).group(1))  # type: ignore[union-attr]
        assert bg.lightness() < 100, (kind, sheet)  # a dark box on a dark window
        assert contrast(fg, bg) >= 4.5, (kind, sheet)
    messages = MessageList()
    qtbot.addWidget(messages)
    messages.set_messages([Message("error", "bad"), Message("ok", "imported")])
    for i in range(2):
        assert contrast(messages.item(i).foreground().color(), base) >= 4.5

    w = gui.open(demo_project)
    view = w.workspace.transcript
    colours = palette_colours(view.palette())
    assert contrast(QColor(colours.text), QColor(colours.assistant_bg)) >= 7
    assert contrast(QColor(colours.muted), QColor(colours.user_bg)) >= 3
    assert w.workspace.set_done(True)  # the tick of a done turn reads on the dark window
    ink = re.search(r"color:\s*(#\w+)", w.workspace.coding.status.text())
    assert ink is not None
    assert contrast(QColor(ink.group(1)), dark.color(QPalette.ColorRole.Window)) >= 4.5

"""View › Messages…: the status bar's last messages, whole, newest first, with their times."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sense7_coder.ui.accessibility import unnamed_controls
from sense7_coder.ui.messages import KEEP

pytestmark = pytest.mark.gui

LONG = ("5 codes left empty: Cognitive understanding, Affective resonance, Compassionate "
        "response, Relational attunement, Perspective taking — press Ctrl+Enter again to "
        "mark the turn done anyway")


def test_a_message_cut_in_the_bar_is_read_whole(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    w.resize(800, 600)
    w.show_message(LONG)
    shown = w.statusBar().currentMessage()
    assert shown != LONG and shown.endswith("…")  # the bar had to cut it
    gui.press(w, Qt.Key.Key_M, modifier=Qt.KeyboardModifier.ControlModifier
              | Qt.KeyboardModifier.ShiftModifier)
    dialog = w.message_log.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    first = dialog.text.toPlainText().splitlines()[0]
    assert re.fullmatch(r"\d\d:\d\d:\d\d  " + re.escape(LONG), first)
    assert unnamed_controls(dialog) == []
    w.show_message("Backup saved in backups")  # an open list follows new messages
    assert dialog.text.toPlainText().splitlines()[0].endswith("Backup saved in backups")
    dialog.close()


def test_the_last_fifty_are_kept_newest_first(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    for i in range(KEEP + 10):
        w.show_message(f"message {i}")
    qtbot.mouseClick(w.statusBar(), Qt.MouseButton.LeftButton)  # a click on the bar opens it
    dialog = w.message_log.dialog
    assert dialog is not None and dialog.isVisible()
    lines = [line.split("  ", 1)[1] for line in dialog.text.toPlainText().splitlines()]
    assert len(lines) == KEEP == 50
    assert lines[0] == f"message {KEEP + 9}" and lines[-1] == "message 10"
    assert dialog.heading.text().startswith("The last 50 messages, newest first")
    dialog.close()


def test_a_message_repeated_is_one_line_with_its_count(gui, qtbot, demo_project: Path) -> None:
    w = gui.open(demo_project)
    w.show_message("First line\nsecond line")
    for _ in range(3):
        w.show_message("No more conversations in the list")
    dialog = w.message_log.show()
    lines = dialog.text.toPlainText().splitlines()
    assert lines[0].endswith("  No more conversations in the list  (×3)")
    assert lines[1].endswith("  First line second line")  # one message, one line
    dialog.close()

"""The window's menus and their actions (shortcuts shown in the menus)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu

Seq = QKeySequence.StandardKey | str


class Actions:
    """Every action of the main window, by name (``actions.undo``, ``actions.next_turn``...)."""

    def __init__(self) -> None:
        self.all: dict[str, QAction] = {}

    def __getattr__(self, name: str) -> QAction:
        try:
            return self.all[name]
        except KeyError:
            raise AttributeError(name) from None


def build_menus(win: QMainWindow, slots: dict[str, Callable[..., Any]]) -> tuple[Actions, dict[str, QMenu]]:
    """Create the menus; ``slots`` maps action names to callables."""
    acts = Actions()
    menus: dict[str, QMenu] = {}
    bar = win.menuBar()

    def act(menu: QMenu, name: str, text: str, keys: tuple[Seq, ...] = (), *,
            tip: str = "", checkable: bool = False) -> QAction:
        a = QAction(text, win)
        if keys:
            a.setShortcuts([QKeySequence(k) for k in keys])
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.setCheckable(checkable)
        if name in slots:
            a.triggered.connect(slots[name])
        menu.addAction(a)
        acts.all[name] = a
        return a

    m = menus["file"] = bar.addMenu("&File")
    act(m, "new", "&New project…", (QKeySequence.StandardKey.New,))
    act(m, "open", "&Open project…", (QKeySequence.StandardKey.Open,))
    menus["recent"] = m.addMenu("Open &recent")
    act(m, "demo", "Open the &demo project")
    m.addSeparator()
    act(m, "import", "&Import conversations…", ("Ctrl+I",),
        tip="Add conversations from spreadsheets, CSV or JSON files")
    act(m, "import_qdpx", "Import REFI-QDA &project (.qdpx)…",
        tip="Texts, codes, coders, codings and memos from QualCoder, ATLAS.ti, MAXQDA, NVivo")
    m.addSeparator()
    act(m, "close", "&Close project", (QKeySequence.StandardKey.Close,))
    act(m, "quit", "&Quit", (QKeySequence.StandardKey.Quit,))

    m = menus["edit"] = bar.addMenu("&Edit")
    act(m, "undo", "&Undo", ("Ctrl+Z",))
    act(m, "redo", "&Redo", ("Ctrl+Shift+Z", "Ctrl+Y"))
    m.addSeparator()
    act(m, "find", "&Find conversation…", ("Ctrl+F",))
    act(m, "memo", "Edit &memo", ("Ctrl+M",))
    act(m, "focus_codes", "Back to the &codes", ("Ctrl+K",))

    m = menus["go"] = bar.addMenu("&Go")
    act(m, "next_turn", "&Next turn", ("PgDown", "Ctrl+Down"))
    act(m, "prev_turn", "&Previous turn", ("PgUp", "Ctrl+Up"))
    act(m, "next_unfinished", "Next &unfinished turn", ("Ctrl+J",),
        tip="The next turn you have not marked done, across conversations")
    m.addSeparator()
    act(m, "next_sentence", "Next &sentence", ("Alt+Down",))
    act(m, "prev_sentence", "Previous s&entence", ("Alt+Up",))
    m.addSeparator()
    act(m, "next_conversation", "Next &conversation", ("Ctrl+PgDown",))
    act(m, "prev_conversation", "Previous c&onversation", ("Ctrl+PgUp",))

    m = menus["coding"] = bar.addMenu("&Coding")
    act(m, "done", "Mark &done and go on", ("Ctrl+Return", "Ctrl+Enter"),
        tip="Mark this turn done (also D) and go to your next unfinished turn")
    act(m, "reopen", "Mark turn &not done", ("Ctrl+Shift+Return",))
    m.addSeparator()
    for label in ("Set level\t1–9", "Not applicable\t0  N", "Clear value\tDel",
                  "Jump to a code\tits letter"):
        info = QAction(label, win)  # keys handled by the workspace; listed for discovery
        info.setEnabled(False)
        m.addAction(info)
    m.addSeparator()
    act(m, "auto_advance", "Move to the next code &after rating", checkable=True)
    act(m, "blind", "&Blind coding", checkable=True,
        tip="Hide other coders' values and the users' ratings of a turn until you mark it done")
    act(m, "coder", "Switch &coder…", ("Ctrl+Shift+K",))
    act(m, "history", "&History of this turn…", ("Ctrl+H",),
        tip="Every change to this turn: who, when, before and after, and how")
    m.addSeparator()
    act(m, "codebook", "&Edit codebook…", ("Ctrl+Shift+B",))
    act(m, "team", "Assi&gnments and packages…",
        tip="Assign conversations to coders, see their progress, write coder packages")
    act(m, "retrieve", "&Retrieve coded units…", ("Ctrl+Shift+F",),
        tip="Every unit coded with a code (or one of its values), with its text")
    act(m, "cooccurrence", "Co-&occurrence of codes…",
        tip="How often codes occur together, or by a conversation attribute, as a heat map")
    act(m, "attributes", "Conversation a&ttributes…",
        tip="Every conversation's attributes, sortable and filterable; a lead edits them")

    m = menus["view"] = bar.addMenu("&View")
    act(m, "toggle_list", "Conversation &list", ("Ctrl+L",), checkable=True)
    act(m, "toggle_side", "Users' ratings and &memo", checkable=True)
    m.addSeparator()
    act(m, "messages", "Messa&ges…", ("Ctrl+Shift+M",),
        tip="The last status-bar messages, whole, with their times (or click the status bar)")
    menus["analysis"] = bar.addMenu("&Analysis")
    menus["analysis"].menuAction().setVisible(False)

    m = menus["help"] = bar.addMenu("&Help")
    act(m, "shortcuts", "&Keyboard shortcuts", ("F1",))
    act(m, "guide", "&User guide")
    m.addSeparator()
    act(m, "about", "&About sense7-coder")
    return acts, menus


def keys_back_after_menus(win: QMainWindow, menus: Iterable[QMenu],
                          refocus: Callable[[], Any]) -> None:
    """A menu closed with Esc leaves Qt's menu bar holding the keyboard, so the coder's digits
    would do nothing, with no sign why: give the keys back to where they were."""
    def leave() -> None:
        bar = win.menuBar()
        if QApplication.activePopupWidget() is not None or not bar.hasFocus():
            return  # another menu opened, or the keys are elsewhere already
        escape = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(bar, escape)  # leaves keyboard mode, restoring the old focus
        if bar.hasFocus() or QApplication.focusWidget() is None:
            refocus()

    for menu in menus:
        menu.aboutToHide.connect(lambda: QTimer.singleShot(0, win, leave))

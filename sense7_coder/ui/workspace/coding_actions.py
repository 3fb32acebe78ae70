"""What the coder's keys do: set, clear, mark done, undo and redo (a mixin of Workspace)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut

from ...domain.errors import ProjectError
from ...domain.models import Unit
from ...domain.words import and_list
from ...project import workspace as ws
from ...project.cells import CodingCell, RevisionCell
from ...project.undo import Command
from .code_row import NOT_SET

if TYPE_CHECKING:
    from ...domain.codebook.codes import Code
    from ...domain.models import Conversation
    from ...project import Project
    from ..changes_hub import ChangesHub
    from .coding_panel import CodingPanel
    from .conversation_list import ConversationListPanel
    from .memo import MemoPanel

DIGITS = "0123456789"


class CodingActions:
    """Key handling and writes for :class:`~.view.Workspace` (kept apart for length)."""

    auto_advance = True
    _shortcuts: list[QShortcut]
    #: the turn where marking done with empty codes was asked about (the next press confirms)
    _confirm_empty: tuple[str, int] | None = None

    if TYPE_CHECKING:  # provided by Workspace
        project: Project
        coding: CodingPanel
        memo: MemoPanel
        list_panel: ConversationListPanel
        conversation: Conversation | None
        state: ws.TurnState
        codable: list[int]
        position: int
        saved: Any
        message: Any
        failed: Any
        hub: ChangesHub

        @property
        def conversation_id(self) -> str | None: ...
        def unit_for(self, code: Code) -> Unit: ...
        def refresh_panel(self) -> None: ...
        def reload_state(self) -> None: ...
        def next_unfinished(self) -> bool: ...
        def go_to(self, cid: str, position: int | None = None,
                  sentence: int | None = None) -> bool: ...

    # -- shortcuts ----------------------------------------------------------------------------
    def setup_shortcuts(self) -> None:
        """Plain keys active anywhere in the workspace except text fields (they take them)."""
        for sc in getattr(self, "_shortcuts", []):
            sc.setEnabled(False)
            sc.deleteLater()
        self._shortcuts = []
        letters = {c.shortcut for c in self.project.codebook.active if c.shortcut}

        def add(key: QKeySequence | str | Qt.Key, fn: Callable[[], Any]) -> None:
            sc = QShortcut(QKeySequence(key), cast(QObject, self))
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.setAutoRepeat(False)
            sc.activated.connect(fn)
            self._shortcuts.append(sc)

        for d in DIGITS:
            press: Callable[[], None] = partial(self.key_value, d)
            add(d, press)
            add(QKeySequence(Qt.KeyboardModifier.KeypadModifier | Qt.Key(ord(d))), press)
        if "N" not in letters:
            add("N", lambda: self.key_value("N"))
        if "D" not in letters:
            add("D", self.mark_done_and_next)
        add(Qt.Key.Key_Delete, self.clear_focused)
        add(Qt.Key.Key_Backspace, self.clear_focused)
        add(Qt.Key.Key_Space, self.toggle_focused)
        for letter in sorted(letters):
            add(letter, partial(self._focus_letter, letter))

    def _focus_letter(self, letter: str) -> None:
        if not self.coding.focus_shortcut(letter):
            code = next((c for c in self.project.codebook.active if c.shortcut == letter), None)
            if code is not None:
                self.message.emit(f"{code.label} does not apply here")

    # -- keys on the focused code -------------------------------------------------------------
    def key_value(self, key: str) -> None:
        code = self.coding.focused_code()
        if code is None:
            return
        row = self.coding.rows[code.key]
        value = row.value_for_key(key)
        if value is NOT_SET:
            self.message.emit(f"{key} is not a level of {code.label}")
            return
        if self.choose(code.key, value) and self.auto_advance:
            self.coding.advance_after_rating()

    def clear_focused(self) -> None:
        code = self.coding.focused_code()
        if code is not None:
            self.clear(code.key)

    def toggle_focused(self) -> None:
        code = self.coding.focused_code()
        if code is None or code.kind != "binary":
            return
        current = self.coding.value_of(code.key)
        self.choose(code.key, 0 if current == 1 else 1)

    # -- writes -------------------------------------------------------------------------------
    def _write(self, fn: Callable[..., Command], *args: Any) -> Command | None:
        """Run one coding action; its changes go to every view through the hub."""
        try:
            cmd = fn(*args)
        except ProjectError as e:
            self.failed.emit(str(e))
            return None
        self.hub.publish(cmd.changes)
        self.saved.emit()
        return cmd

    def choose(self, code_key: str, value: Any) -> bool:
        code = self.project.codebook.get(code_key)
        if code is None or self.conversation is None:
            return False
        unit = self.unit_for(code)
        return self._write(self.project.set_value, unit, code_key, value) is not None

    def clear(self, code_key: str) -> bool:
        code = self.project.codebook.get(code_key)
        if code is None or self.conversation is None:
            return False
        unit = self.unit_for(code)
        return self._write(self.project.clear_value, unit, code_key) is not None

    def set_done(self, done: bool) -> bool:
        cid = self.conversation_id
        if not cid or self.position not in self.codable:
            return False
        return self._write(self.project.set_done, cid, self.position, done) is not None

    def mark_done_and_next(self) -> None:
        """Mark the turn done and go on. With blind coding, when marking it done reveals the
        users' ratings or others' values, stay so the coder sees them; the next press goes on."""
        self.memo.flush()
        undone = self.position in self.codable and self.position not in self.state.done
        if undone:
            empty = self.empty_codes()
            here = (self.conversation_id or "", self.position)
            if empty and not self.project.require_all_codes and \
                    self._confirm_empty != here:
                # asks first: a second press marks it done with those codes left empty
                self._confirm_empty = here
                n = len(empty)
                self.message.emit(
                    f"Press Ctrl+Enter (or D) again to mark turn {self.position} done with "
                    f"{n} code{'s' if n != 1 else ''} left empty: {', '.join(empty)}")
                return
            self._confirm_empty = None
            reveals = self.hidden_here()
            if not self.set_done(True):
                return
            note = f" ({len(empty)} left empty: {', '.join(empty)})" if empty else ""
            if reveals:
                self.message.emit(f"Turn {self.position} done: {and_list(reveals)} are "
                                  f"shown now. Ctrl+Enter goes on.{note}")
                return
            done_text = f"Turn {self.position} done{note}"
            if self.next_unfinished():  # said after the move, which clears older messages
                self.message.emit(done_text)
            return
        self.next_unfinished()

    def empty_codes(self) -> list[str]:
        """Labels of the turn-level codes shown here that have no value yet."""
        keys = self.coding.visible_keys()
        codes = [self.coding.rows[k].code for k in keys]
        return [c.label for c in codes if c.unit == "turn" and c.kind != "binary"
                and self.coding.value_of(c.key) is NOT_SET]

    def hidden_here(self) -> list[str]:
        """What blind coding hides here that the project holds (the users' ratings, others'
        values, the turn's attributes), in words; the project's sight decides."""
        if not self.conversation_id:
            return []
        return self.project.sight().hidden_here(self.conversation_id, self.position)

    def reopen(self) -> None:
        self.set_done(False)

    def _save_memo(self, unit: Unit, text: str) -> None:
        self._write(self.project.set_memo, unit, text)

    # -- history ------------------------------------------------------------------------------
    def undo(self) -> Command | None:
        return self._history(self.project.undo, "undo")

    def redo(self) -> Command | None:
        return self._history(self.project.redo, "redo")

    def _history(self, fn: Callable[[], Command | None], what: str) -> Command | None:
        self.memo.flush()
        try:
            cmd = fn()
        except ProjectError as e:
            self.failed.emit(str(e))
            return None
        if cmd is None:
            self.message.emit(f"Nothing to {what}")
            return None
        self.hub.publish(cmd.changes)
        loc = cmd.location
        if loc is not None:  # show where it happened
            cid, pos, sent = loc
            if cid != self.conversation_id:
                self.go_to(cid, pos or None, sent or None)
            else:
                self.go_to(cid, pos or self.position, sent or None)
            code_key = next((c.code for c in cmd.cells
                             if isinstance(c, CodingCell | RevisionCell)), None)
            if code_key in self.coding.visible_keys():
                self.coding.focus_code(code_key)
        self.saved.emit()
        self.message.emit(f"{what.capitalize()}: {cmd.label}")
        return cmd

"""Span coding in the transcript: select text, press a span code's key (or pick it from
the context menu); spans show in their code's colour.

Keyboard alone: F2 puts a text cursor at the start of the current turn's message; Shift
with the arrows (Ctrl: word by word) selects; a span code's key marks the selection;
Escape goes back to the codes. With the text cursor inside one of the coder's own spans,
Shift+Alt+Right / Shift+Alt+Left grow / shrink its end by a character (with Ctrl: by a
word), each step one undoable change. The context menu (right click, or the Menu key / Shift+F10)
marks the selection with any span code, and on a span: recode, resize to the selection,
memo, delete. The coder's own spans are painted with their code's colour (overlapping
spans stack, so an overlap is darker); other coders' spans, where blinding shows them,
are underlined in their code's colour. Every action goes through
:mod:`sense7_coder.project.spans.editing` (checked, saved at once, undoable).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QInputDialog, QMenu, QTextEdit

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.spans import Span, SpanKey, nudged_end
from ...project.spans import editing as project_spans
from .transcript import codepoint_index, utf16_index

#: a code without a colour of its own is painted in this one
DEFAULT_COLOUR = "#e0a030"
#: how strongly one span tints the text behind it (0-255); overlaps add up
ALPHA = 70
_NAVIGATION = {Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down,
               Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown}


def colour_of(code: Code | None) -> QColor:
    return QColor(code.color if code is not None and code.color else DEFAULT_COLOUR)


class SpanCoding(QObject):
    """Span coding for one workspace (its transcript, project and changes hub)."""

    def __init__(self, workspace: Any) -> None:
        """``workspace``: the Workspace (view.py) it works in (not imported: view.py
        imports this module)."""
        super().__init__(workspace)
        self.ws = workspace
        self.view = workspace.transcript
        flags = (self.view.textInteractionFlags()
                 | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.view.setTextInteractionFlags(flags)
        self.view.extra_layers.append(self.selections)
        self.view.installEventFilter(self)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self.menu)
        start = QShortcut(QKeySequence(Qt.Key.Key_F2), workspace)
        start.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        start.activated.connect(self.start_selecting)
        workspace.hub.changed.connect(lambda _changes: self.view.refresh_marks())

    # -- reading -----------------------------------------------------------------------------
    @property
    def project(self) -> Any:
        return self.ws.project

    def span_codes(self, position: int | None = None) -> list[Code]:
        """Active span codes (that apply to the turn at ``position``)."""
        conv = self.ws.conversation
        role = next((t.role for t in conv.turns if t.position == position), None) \
            if conv is not None and position is not None else None
        return [c for c in self.project.codebook.active if c.unit == "span"
                and (role is None or c.applies_to in ("any", role))]

    def visible_spans(self) -> list[Span]:
        cid = self.ws.conversation_id
        if cid is None:
            return []
        try:
            return project_spans.spans(self.project, cid)
        except ProjectError:
            return []

    def selection(self) -> tuple[int, int, int] | None:
        """(turn position, start, end) of the selected text, in code points of the turn's
        text; None unless the selection lies inside one turn's message."""
        cursor = self.view.textCursor()
        if not cursor.hasSelection():
            return None
        a, b = cursor.selectionStart(), cursor.selectionEnd()
        hit = self.view.locate(a)
        last = self.view.locate(max(a, b - 1))
        if hit is None or last is None or last[0] != hit[0]:
            return None
        position = hit[0]
        body = self.view.body_start(position)
        text = self.view.turn_text(position)
        if body is None or a < body:
            return None
        start = codepoint_index(text, a - body)
        end = codepoint_index(text, b - body)
        if b - body > utf16_index(text, len(text)) or start >= end:
            return None
        return position, start, end

    def spans_at(self, doc_pos: int) -> list[Span]:
        hit = self.view.locate(doc_pos)
        body = self.view.body_start(hit[0]) if hit is not None else None
        if hit is None or body is None:
            return []
        offset = codepoint_index(self.view.turn_text(hit[0]), doc_pos - body)
        return [s for s in self.visible_spans()
                if s.position == hit[0] and s.start <= offset < s.end]

    # -- painting ----------------------------------------------------------------------------
    def selections(self) -> list[QTextEdit.ExtraSelection]:
        book = self.project.codebook
        me = self.project.coder
        out = []
        for span in self.visible_spans():
            body = self.view.body_start(span.position)
            if body is None:
                continue
            text = self.view.turn_text(span.position)
            if span.end > len(text):
                continue  # beyond the part of a long message shown
            cursor = QTextCursor(self.view.document())
            cursor.setPosition(body + utf16_index(text, span.start))
            cursor.setPosition(body + utf16_index(text, span.end),
                               QTextCursor.MoveMode.KeepAnchor)
            colour = colour_of(book.get(span.code))
            fmt = QTextCharFormat()
            if span.coder == me:
                tint = QColor(colour)
                tint.setAlpha(ALPHA)
                fmt.setBackground(tint)
            else:
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
                fmt.setUnderlineColor(colour)
            fmt.setToolTip(self._tip(span))
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor
            sel.format = fmt
            out.append(sel)
        return out

    def _tip(self, span: Span) -> str:
        code = self.project.codebook.get(span.code)
        label = code.label if code is not None else span.code
        value = "" if code is None or code.kind == "binary" else f" = {code.level_label(span.value)}"
        memo = f" — {span.memo}" if span.memo else ""
        return f"{label}{value} ({span.coder}){memo}"

    # -- keys ---------------------------------------------------------------------------------
    def start_selecting(self) -> None:
        """Put a text cursor at the start of the current turn's message (F2)."""
        body = self.view.body_start(self.ws.position)
        if body is None:
            return
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(body)
        self.view.setTextCursor(cursor)
        self.view.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.ws.message.emit("Select with Shift+arrows (Ctrl: by word), then press a span "
                             "code's key; Escape returns to the codes")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is not self.view:
            return False
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        key_event = event if isinstance(event, QKeyEvent) else None
        if key_event is None:
            return False
        key = Qt.Key(key_event.key())
        if kind == QEvent.Type.ShortcutOverride:
            if self._nudge_of(key_event) is not None:
                event.accept()
                return False
            if key in _NAVIGATION or key == Qt.Key.Key_Escape or self._code_for(key_event):
                event.accept()  # the transcript takes it, not the workspace's shortcut
            return False
        if key == Qt.Key.Key_Escape:
            self.ws.coding.setFocus()
            return True
        code = self._code_for(key_event)
        if code is not None:
            self.mark(code)
            return True
        nudge = self._nudge_of(key_event)
        if nudge is not None:
            self.nudge(*nudge)
            return True
        return False

    @staticmethod
    def _nudge_of(event: QKeyEvent) -> tuple[bool, bool] | None:
        """(grow, by word) for Shift+Alt(+Ctrl)+Right/Left, else None."""
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        base = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier
        key = event.key()
        if key not in (Qt.Key.Key_Right, Qt.Key.Key_Left) or mods & base != base:
            return None
        if mods & ~(base | Qt.KeyboardModifier.ControlModifier):
            return None
        return key == Qt.Key.Key_Right, bool(mods & Qt.KeyboardModifier.ControlModifier)

    def _code_for(self, event: QKeyEvent) -> Code | None:
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if mods not in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
            return None
        letter = event.text().upper()
        if not letter or not self.view.textCursor().hasSelection():
            return None
        return next((c for c in self.span_codes() if c.shortcut == letter), None)

    # -- actions ------------------------------------------------------------------------------
    def _run(self, fn: Any, *args: Any, **kwargs: Any) -> bool:
        try:
            cmd = fn(self.project, *args, **kwargs)
        except ProjectError as e:
            self.ws.failed.emit(str(e))
            return False
        self.ws.hub.publish(cmd.changes)
        self.ws.saved.emit()
        self.ws.message.emit(cmd.label.capitalize())
        return True

    def mark(self, code: Code) -> bool:
        """Mark the selection with ``code`` (the text cursor moves to its end)."""
        where = self.selection()
        cid = self.ws.conversation_id
        if where is None or cid is None:
            self.ws.failed.emit("select text inside one message to mark a span")
            return False
        position, start, end = where
        value = None if code.kind == "binary" else self._level(code)
        if code.kind != "binary" and value is None:
            return False
        done = self._run(project_spans.add, cid, position, start, end, code.key,
                         *(() if value is None else (value,)))
        if done:
            cursor = self.view.textCursor()
            cursor.clearSelection()
            self.view.setTextCursor(cursor)
        return done

    def _level(self, code: Code) -> Any:
        labels = [f"{lv.value}: {lv.label}" for lv in code.levels]
        choice, ok = QInputDialog.getItem(self.view, code.label, "Level of the span:", labels,
                                          0, False)
        if not ok:
            return None
        return code.levels[labels.index(choice)].value

    def menu(self, point: QPoint) -> None:
        menu = self.build_menu(point)
        menu.exec(self.view.viewport().mapToGlobal(point))

    def build_menu(self, point: QPoint) -> QMenu:
        menu = self.view.createStandardContextMenu(point)
        where = self.selection()
        codes = self.span_codes(where[0] if where else None)
        if codes:
            menu.addSeparator()
            mark = menu.addMenu("Mark selection as")
            mark.setEnabled(where is not None)
            for code in codes:
                action = mark.addAction(code.label)
                if code.shortcut:
                    action.setShortcut(QKeySequence(code.shortcut))
                action.triggered.connect(lambda _=False, c=code: self.mark(c))
        doc_pos = self.view.cursorForPosition(point).position()
        me = self.project.coder
        for span in self.spans_at(doc_pos):
            if span.coder != me:
                continue
            menu.addSeparator()
            sub = menu.addMenu(f"Span: {self._tip(span)}")
            recode = sub.addMenu("Recode as")
            for code in self.span_codes(span.position):
                if code.key != span.code:
                    recode.addAction(code.label).triggered.connect(
                        lambda _=False, k=span.key, c=code.key:
                        self._run(project_spans.change, k, code=c))
            resize = sub.addAction("Resize to the selection")
            resize.setEnabled(where is not None and where[0] == span.position)
            resize.triggered.connect(lambda _=False, k=span.key: self.resize(k))
            sub.addAction("Memo…").triggered.connect(
                lambda _=False, s=span: self.edit_memo(s))
            sub.addAction("Delete").triggered.connect(
                lambda _=False, k=span.key: self._run(project_spans.delete, k))
        return menu

    def resize(self, key: SpanKey) -> bool:
        where = self.selection()
        if where is None or where[0] != key.position:
            self.ws.failed.emit("select the new extent inside the same message first")
            return False
        return self._run(project_spans.change, key, start=where[1], end=where[2])

    def span_at_cursor(self) -> Span | None:
        """The coder's own span the text cursor is in (or just after); the shortest
        where spans overlap."""
        doc_pos = self.view.textCursor().position()
        hit = self.view.locate(doc_pos) or self.view.locate(max(doc_pos - 1, 0))
        body = self.view.body_start(hit[0]) if hit is not None else None
        if hit is None or body is None or doc_pos < body:
            return None
        offset = codepoint_index(self.view.turn_text(hit[0]), doc_pos - body)
        me = self.project.coder
        mine = [s for s in self.visible_spans() if s.coder == me and s.position == hit[0]
                and s.start <= offset <= s.end]
        return min(mine, key=lambda s: (s.end - s.start, s.start), default=None)

    def nudge(self, grow: bool, by_word: bool) -> bool:
        """Grow or shrink the end of the span at the text cursor (Shift+Alt+Right/Left;
        Ctrl: by a word); the cursor follows the new end."""
        span = self.span_at_cursor()
        if span is None:
            self.ws.message.emit("Put the text cursor inside one of your spans to resize it")
            return False
        text = self.view.turn_text(span.position)
        end = nudged_end(text, span.start, span.end, grow, by_word)
        if end is None:
            self.ws.message.emit("The span cannot " + ("grow past the end of the message"
                                                       if grow else "shrink to nothing"))
            return False
        if not self._run(project_spans.change, span.key, start=span.start, end=end):
            return False
        body = self.view.body_start(span.position)
        if body is not None:
            cursor = QTextCursor(self.view.document())
            cursor.setPosition(body + utf16_index(text, end))
            self.view.setTextCursor(cursor)
        return True

    def edit_memo(self, span: Span) -> bool:
        text, ok = QInputDialog.getMultiLineText(self.view, "Memo on the span",
                                                 self._tip(span), span.memo)
        return ok and self._run(project_spans.set_memo, span.key, text)

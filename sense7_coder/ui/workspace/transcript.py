"""The transcript: the conversation as a readable chat, the current turn marked.

The document is built once per conversation. Moving to another turn only recolours the
accent bars of the old and new turn (in one edit block: one relayout) and moves the
sentence highlights (extra selections), so stepping through turns costs a few
milliseconds whatever the conversation's length.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPalette, QTextCharFormat, QTextCursor, QTextTable
from PySide6.QtWidgets import QFrame, QTextBrowser, QTextEdit, QWidget

from ...domain.models import Conversation
from .transcript_html import Colours, conversation_html


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def palette_colours(palette: QPalette) -> Colours:
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    accent = palette.color(QPalette.ColorRole.Highlight)
    dark = is_dark(palette)
    user_hue = QColor("#3f7fbf") if not dark else QColor("#6fa8dc")
    assistant_hue = QColor("#5a8f5a") if not dark else QColor("#8fc78f")
    return Colours(
        text=text.name(),
        muted=mix(text, base, 0.45).name(),
        user_bg=mix(base, user_hue, 0.10 if not dark else 0.16).name(),
        assistant_bg=mix(base, text, 0.035 if not dark else 0.06).name(),
        code_bg=mix(base, text, 0.07).name(),
        user_label=mix(user_hue, text, 0.25).name(),
        assistant_label=mix(assistant_hue, text, 0.3).name(),
    ) if accent.isValid() else Colours(text.name(), text.name(), base.name(), base.name(),
                                       base.name(), text.name(), text.name())


def utf16_index(text: str, index: int) -> int:
    """A Python (code point) index of ``text`` as a Qt (UTF-16 unit) index."""
    head = text[:index]
    return index + sum(1 for ch in head if ord(ch) > 0xFFFF)


def codepoint_index(text: str, index16: int) -> int:
    """A Qt (UTF-16 unit) index of ``text`` as a Python index."""
    units = 0
    for i, ch in enumerate(text):
        if units >= index16:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


class TranscriptView(QTextBrowser):
    """Read-only chat view. Click a turn (or a sentence) to move there."""

    turnClicked = Signal(int, int)  # position, sentence (0 when sentences are not shown)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.document().setDocumentMargin(14)
        self.conversation: Conversation | None = None
        self._tables: dict[int, QTextTable] = {}
        self._bg: dict[int, QColor] = {}
        self._sentences: dict[int, list[tuple[int, int]]] = {}
        self._show_sentences = False
        self.position = 0
        self.sentence = 0
        self.renders = 0
        self._press: QPoint | None = None

    # -- building -----------------------------------------------------------------------------
    def show_conversation(
        self,
        conversation: Conversation | None,
        position: int = 0,
        sentence: int = 0,
        sentences: dict[int, list[tuple[int, int]]] | None = None,
        show_sentences: bool = False,
    ) -> None:
        self.conversation = conversation
        self._sentences = sentences or {}
        self._show_sentences = show_sentences
        self._render()
        self.position = 0
        self.set_current(position, sentence)

    def _render(self) -> None:
        self._tables.clear()
        self._bg.clear()
        self.setExtraSelections([])
        if self.conversation is None:
            self.setHtml("")
            return
        self.setHtml(conversation_html(self.conversation, palette_colours(self.palette())))
        self.renders += 1
        frames = [f for f in self.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
        for turn, table in zip(self.conversation.turns, frames, strict=False):
            self._tables[turn.position] = table
            self._bg[turn.position] = table.format().background().color()

    def set_sentences(self, sentences: dict[int, list[tuple[int, int]]], show: bool) -> None:
        self._sentences = sentences
        self._show_sentences = show
        self._update_selections()

    # -- moving -------------------------------------------------------------------------------
    def set_current(self, position: int, sentence: int = 0) -> None:
        old = self.position
        self.position, self.sentence = position, sentence
        if old != position:
            block = QTextCursor(self.document())
            block.beginEditBlock()  # both turns recoloured, the document laid out once
            self._paint_turn(old, current=False)
            self._paint_turn(position, current=True)
            block.endEditBlock()
            self._scroll_to(position)
        self._update_selections()

    def _paint_turn(self, position: int, *, current: bool) -> None:
        table = self._tables.get(position)
        if table is None:
            return
        pal = self.palette()
        accent = pal.color(QPalette.ColorRole.Highlight)
        bg = self._bg[position]
        fmt = table.format()
        fmt.setBackground(mix(bg, accent, 0.10) if current else bg)
        table.setFormat(fmt)
        for row, col in ((0, 0), (0, 1), (1, 1)):
            cell = table.cellAt(row, col)
            cf = cell.format().toTableCellFormat()
            if col == 0:
                cf.setBackground(accent if current else bg)
            else:
                cf.setBackground(mix(bg, accent, 0.10) if current else bg)
            cell.setFormat(cf)

    def _text(self, position: int) -> str:
        if self.conversation is None:
            return ""
        return next((t.text for t in self.conversation.turns if t.position == position), "")

    def body_start(self, position: int) -> int | None:
        table = self._tables.get(position)
        if table is None:
            return None
        return table.cellAt(1, 1).firstCursorPosition().position()

    def _update_selections(self) -> None:
        selections: list[QTextEdit.ExtraSelection] = []
        start = self.body_start(self.position)
        spans = self._sentences.get(self.position, [])
        if self._show_sentences and start is not None and spans:
            pal = self.palette()
            accent = pal.color(QPalette.ColorRole.Highlight)
            base = pal.color(QPalette.ColorRole.Base)
            text = self._text(self.position)
            for i, (a, b) in enumerate(spans, 1):
                cursor = QTextCursor(self.document())
                cursor.setPosition(start + utf16_index(text, a))
                cursor.setPosition(start + utf16_index(text, b), QTextCursor.MoveMode.KeepAnchor)
                fmt = QTextCharFormat()
                if i == self.sentence:
                    colour = QColor(accent)
                    colour.setAlpha(90)
                    fmt.setBackground(colour)
                    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                    fmt.setUnderlineColor(accent)
                else:
                    fmt.setBackground(mix(base, accent, 0.05 if i % 2 else 0.11))
                sel = QTextEdit.ExtraSelection()
                sel.cursor = cursor
                sel.format = fmt
                selections.append(sel)
        selections += self._search_selections()
        self.setExtraSelections(selections)
        if self._show_sentences and start is not None and 0 < self.sentence <= len(spans):
            cursor = QTextCursor(self.document())
            first = utf16_index(self._text(self.position), spans[self.sentence - 1][0])
            cursor.setPosition(start + first)
            if not self.viewport().rect().contains(self.cursorRect(cursor)):
                self._reveal_cursor(cursor)

    #: the conversation list's search text, marked wherever it occurs in the transcript
    search_text = ""

    def set_search(self, text: str) -> None:
        text = text.strip()
        if text != self.search_text:
            self.search_text = text
            self._update_selections()

    def search_hits(self) -> int:
        return len(self._search_selections())

    def _search_selections(self) -> list[QTextEdit.ExtraSelection]:
        if not self.search_text or self.conversation is None:
            return []
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(255, 214, 10, 150))  # a marker pen, readable on both palettes
        fmt.setForeground(QColor(20, 20, 20))
        out = []
        cursor = self.document().find(self.search_text, 0)
        while not cursor.isNull():
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor
            sel.format = fmt
            out.append(sel)
            cursor = self.document().find(self.search_text, cursor)
        return out

    def _reveal_cursor(self, cursor: QTextCursor) -> None:
        keep = self.textCursor()
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        self.setTextCursor(keep)

    def _scroll_to(self, position: int) -> None:
        table = self._tables.get(position)
        if table is None:
            return
        rect = self.document().documentLayout().frameBoundingRect(table)
        bar = self.verticalScrollBar()
        view_h = self.viewport().height()
        top, bottom = rect.top(), rect.bottom()
        if top >= bar.value() and bottom <= bar.value() + view_h:
            return
        if rect.height() > view_h * 0.75:
            bar.setValue(int(top - 16))
        else:
            bar.setValue(int(max(0.0, top - view_h * 0.3)))

    # -- clicks -------------------------------------------------------------------------------
    def mousePressEvent(self, e: QMouseEvent) -> None:
        self._press = e.position().toPoint()
        super().mousePressEvent(e)

    def mouseReleaseEvent(self, e: QMouseEvent) -> None:
        super().mouseReleaseEvent(e)
        if self._press is None or (e.position().toPoint() - self._press).manhattanLength() > 4:
            return
        if self.textCursor().hasSelection():
            return
        pos = self.cursorForPosition(e.position().toPoint()).position()
        hit = self.locate(pos)
        if hit is not None:
            self.turnClicked.emit(*hit)

    def locate(self, doc_pos: int) -> tuple[int, int] | None:
        """(turn position, sentence) at a document position; sentence 0 when none shown."""
        for position, table in self._tables.items():
            if table.firstPosition() <= doc_pos <= table.lastPosition():
                sentence = 0
                start = self.body_start(position)
                if self._show_sentences and start is not None:
                    offset = codepoint_index(self._text(position), doc_pos - start)
                    for i, (a, b) in enumerate(self._sentences.get(position, []), 1):
                        if a <= offset <= b:
                            sentence = i
                            break
                return position, sentence
        return None

    # -- palette ------------------------------------------------------------------------------
    def changeEvent(self, e: QEvent) -> None:
        super().changeEvent(e)
        palette_events = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if e.type() in palette_events and self.conversation is not None:
            position, sentence = self.position, self.sentence
            self._render()
            self.position = 0
            self.set_current(position, sentence)

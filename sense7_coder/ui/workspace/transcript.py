"""The transcript: the conversation as a readable chat, the current turn marked.

Each turn is a frame of the document (its margins and padding make the chat bubble);
the bubbles' colours, the current turn's tint and its accent bar are painted under the
text by the view itself, so moving to another turn changes nothing in the document: no
relayout, only a repaint and the sentence highlights (extra selections).

A conversation is built as plain text pieces through a text cursor (no markup to parse),
and only as far as the current turn and a few after it before the first paint; the rest
follows in growing slices from the event loop, at the end of the document where adding
moves nothing on screen. Entering a long conversation thus costs about the same as a
short one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QFont,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFrame,
    QTextFrameFormat,
)
from PySide6.QtWidgets import QFrame, QTextBrowser, QTextEdit, QWidget

from ...domain.models import Conversation, Turn
from .transcript_text import (
    Colours,
    body_segments,
    conversation_facts,
    shown_text,
    turn_header,
)


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
    return len(head) + sum(1 for ch in head if ord(ch) > 0xFFFF)


def codepoint_index(text: str, index16: int) -> int:
    """A Qt (UTF-16 unit) index of ``text`` as a Python index."""
    units = 0
    for i, ch in enumerate(text):
        if units >= index16:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


#: text after the current turn built before the first paint (with each turn's heading
#: counted as a line); the rest follows a frame later
FIRST_CHARS = 1000
#: turns added per slice, one slice every FILL_MS, until the conversation is complete;
#: each slice twice the one before, up to SLICE_MAX (a 300-turn conversation is whole
#: within about 0.15 s, no slice taking much more than a frame)
SLICE = 4
SLICE_MAX = 32
FILL_MS = 15
#: the accent bar at the left of the current turn, in pixels
BAR = 4
#: the focus frame drawn round the transcript when it has the focus (px)
FOCUS_WIDTH = 2


class _Formats:
    """The document's formats for one palette, made once per build."""

    def __init__(self, colours: Colours, font: QFont) -> None:
        size = font.pointSizeF() if font.pointSizeF() > 0 else 10.0
        self.title = QTextCharFormat()
        self.title.setFontWeight(QFont.Weight.DemiBold)
        self.title.setFontPointSize(size * 1.2)
        self.title.setForeground(QColor(colours.text))
        self.plain = QTextCharFormat()
        self.plain.setForeground(QColor(colours.text))
        self.muted = QTextCharFormat()
        self.muted.setForeground(QColor(colours.muted))
        self.mono = QTextCharFormat(self.plain)
        self.mono.setFontFamilies(["monospace"])
        self.mono.setFontFixedPitch(True)
        self.mono.setBackground(QColor(colours.code_bg))
        self.labels = {}
        for role, colour in (("user", colours.user_label), ("assistant", colours.assistant_label)):
            label = QTextCharFormat()
            label.setFontWeight(QFont.Weight.DemiBold)
            label.setForeground(QColor(colour))
            self.labels[role] = label
        self.facts = QTextBlockFormat()
        self.facts.setTopMargin(0)
        self.header = QTextBlockFormat()
        self.header.setLeftMargin(BAR)
        self.header.setBottomMargin(2)
        self.body = QTextBlockFormat()
        self.body.setLeftMargin(BAR)
        self.gap = QTextBlockFormat()  # the empty block between two turns: no height
        self.gap.setLineHeight(1, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        self.frames = {}
        for role in ("user", "assistant"):
            frame = QTextFrameFormat()
            frame.setBorder(0)
            frame.setPadding(10)
            frame.setTopMargin(10)
            if role == "user":
                frame.setLeftMargin(90)
            else:
                frame.setRightMargin(40)
            self.frames[role] = frame
        self.backgrounds = {"user": QColor(colours.user_bg),
                            "assistant": QColor(colours.assistant_bg)}

    def role(self, turn: Turn) -> str:
        return "user" if turn.role == "user" else "assistant"


class TranscriptView(QTextBrowser):
    """Read-only chat view. Click a turn (or a sentence) to move there."""

    turnClicked = Signal(int, int)  # position, sentence (0 when sentences are not shown)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Tab / Shift+Tab reach it (F2 too, with a text cursor in the current turn); the
        # focused transcript is framed like every focused text box (FocusFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # a scroll bar that came and went with each conversation's length would change the
        # text's width: a second layout of the whole conversation at every change
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.document().setUndoRedoEnabled(False)  # read-only: no undo history to keep
        self.document().setDocumentMargin(14)
        self.conversation: Conversation | None = None
        self._frames: dict[int, QTextFrame] = {}  # turn position -> its frame, built so far
        self._slice = SLICE
        self._formats: _Formats | None = None
        self._filler = QTimer(self)
        self._filler.setSingleShot(True)
        self._filler.setInterval(FILL_MS)  # after the first frame is on screen
        self._filler.timeout.connect(self._fill_slice)
        self._sentences: dict[int, list[tuple[int, int]]] = {}
        self._show_sentences = False
        self.position = 0
        self.sentence = 0
        self.renders = 0
        self._press: QPoint | None = None
        #: more marks painted over the text (spans): each returns its extra selections
        self.extra_layers: list[Callable[[], list[QTextEdit.ExtraSelection]]] = []

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
        self._render(position)
        self.position = 0
        self.set_current(position, sentence)

    @property
    def _built(self) -> int:
        """How many of the conversation's turns are in the document (in order)."""
        return len(self._frames)

    @property
    def complete(self) -> bool:
        """Is every turn of the conversation in the document?"""
        return self.conversation is None or self._built >= len(self.conversation.turns)

    def finish(self) -> None:
        """Build the rest of the conversation now (a search needs all of it)."""
        if self.conversation is not None and not self.complete:
            self._build_until(len(self.conversation.turns) - 1)

    def _index(self, position: int) -> int:
        turns = self.conversation.turns if self.conversation else []
        return next((i for i, t in enumerate(turns) if t.position == position), 0)

    def _render(self, position: int) -> None:
        self._filler.stop()
        self._frames.clear()
        self._slice = SLICE // 2  # the first slice adds SLICE turns
        self.setExtraSelections([])
        doc = self.document()
        doc.clear()
        doc.setDocumentMargin(14)
        if self.conversation is None:
            self._formats = None
            return
        self.renders += 1
        fmt = self._formats = _Formats(palette_colours(self.palette()), self.font())
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        cursor.insertText(self.conversation.conversation_id, fmt.title)
        for line in conversation_facts(self.conversation):
            cursor.insertBlock(fmt.facts, fmt.muted)
            cursor.insertText(line, fmt.muted)
        cursor.endEditBlock()
        self._build_until(self._first_screen(self._index(position)))

    def _first_screen(self, index: int) -> int:
        """The last turn to build before the first paint: the current one and those after
        it up to about ``FIRST_CHARS`` of text."""
        turns = self.conversation.turns if self.conversation else []
        last, chars = index, 0
        while last + 1 < len(turns) and chars < FIRST_CHARS:
            last += 1
            chars += len(turns[last].text) + 80
        return last

    def _build_until(self, last: int) -> None:
        """Add turns up to index ``last`` (one edit block: one layout), and schedule the
        rest."""
        conv, fmt = self.conversation, self._formats
        if conv is None or fmt is None:
            return
        last = min(last, len(conv.turns) - 1)
        if self._built <= last:
            doc = self.document()
            root = doc.rootFrame()
            cursor = QTextCursor(doc)
            cursor.beginEditBlock()
            for turn in conv.turns[self._built:last + 1]:
                cursor.setPosition(root.lastPosition())
                if self._frames:
                    cursor.setBlockFormat(fmt.gap)
                self._frames[turn.position] = self._write_turn(cursor, conv, turn, fmt)
            cursor.endEditBlock()
        if self._built < len(conv.turns):
            self._filler.start()
        else:
            self._filler.stop()

    @staticmethod
    def _write_turn(cursor: QTextCursor, conv: Conversation, turn: Turn,
                    fmt: _Formats) -> QTextFrame:
        role = fmt.role(turn)
        frame = cursor.insertFrame(fmt.frames[role])
        label, meta = turn_header(conv, turn)
        cursor.setBlockFormat(fmt.header)
        cursor.insertText(label, fmt.labels[role])
        cursor.insertText("\u00a0\u00a0" + meta, fmt.muted)
        cursor.insertBlock(fmt.body, fmt.plain)
        body, note = shown_text(turn.text)
        segments = body_segments(body)
        for i, (text, mono) in enumerate(segments):
            if text == "\n":
                cursor.insertBlock(fmt.body, fmt.plain)
                continue
            if text.endswith("\r") and i + 1 < len(segments) and segments[i + 1][0] == "\n":
                # a Windows line end: Qt would break the line at the "\r" too (an empty line
                # between every two); a zero-width space keeps its one character in place
                text = text[:-1] + "\u200b"
            cursor.insertText(text, fmt.mono if mono else fmt.plain)
        if note:
            cursor.insertText(note, fmt.muted)
        return frame

    def _fill_slice(self) -> None:
        if self.conversation is None or self.complete:
            return
        self._slice = min(self._slice * 2, SLICE_MAX)
        self._build_until(self._built + self._slice - 1)
        if self.complete and self.search_text:
            self._update_selections()

    # whoever reads the transcript's text gets the whole conversation
    def toPlainText(self) -> str:
        self.finish()
        return super().toPlainText()

    def toHtml(self) -> str:
        self.finish()
        return super().toHtml()

    def toMarkdown(self, features: Any = None) -> str:
        self.finish()
        return super().toMarkdown() if features is None else super().toMarkdown(features)

    def set_sentences(self, sentences: dict[int, list[tuple[int, int]]], show: bool) -> None:
        self._sentences = sentences
        self._show_sentences = show
        self._update_selections()

    # -- moving -------------------------------------------------------------------------------
    def set_current(self, position: int, sentence: int = 0) -> None:
        old = self.position
        if self.conversation is not None and position not in self._frames:
            self._build_until(self._first_screen(self._index(position)))
        self.position, self.sentence = position, sentence
        if old != position:
            self._scroll_to(position)  # a scroll moves the pixels; the two bubbles changed
            for turn in (old, position):
                self._update_turn(turn)
        self._update_selections()

    def _update_turn(self, position: int) -> None:
        """Repaint one bubble (they are painted by the view, not the document)."""
        rect = self._turn_rect(position)
        if rect is not None:
            x, y = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
            self.viewport().update(rect.translated(-x, -y).toAlignedRect())

    # -- painting -----------------------------------------------------------------------------
    def _turn_rect(self, position: int) -> QRectF | None:
        frame = self._frames.get(position)
        if frame is None:
            return None
        return self._bubble(frame)

    def _bubble(self, frame: QTextFrame) -> QRectF:
        """A turn's bubble in document coordinates (its frame less the margins)."""
        rect = self.document().documentLayout().frameBoundingRect(frame)
        f = frame.frameFormat()
        return rect.adjusted(f.leftMargin(), f.topMargin(), -f.rightMargin(), -f.bottomMargin())

    def paintEvent(self, e: QPaintEvent) -> None:
        fmt = self._formats
        if fmt is not None and self._frames and self.conversation is not None:
            painter = QPainter(self.viewport())
            dx = -self.horizontalScrollBar().value()
            dy = -self.verticalScrollBar().value()
            clip = QRectF(e.rect())
            accent = self.palette().color(QPalette.ColorRole.Highlight)
            turns = self.conversation.turns
            for turn in turns[:self._built]:
                frame = self._frames.get(turn.position)
                if frame is None:
                    continue
                rect = self._bubble(frame).translated(dx, dy)
                if rect.top() > clip.bottom():
                    break
                if rect.bottom() < clip.top():
                    continue
                bg = fmt.backgrounds[fmt.role(turn)]
                if turn.position == self.position:
                    painter.fillRect(rect, mix(bg, accent, 0.10))
                    painter.fillRect(QRectF(rect.left(), rect.top(), BAR, rect.height()), accent)
                else:
                    painter.fillRect(rect, bg)
            painter.end()
        super().paintEvent(e)
        if self.hasFocus():  # the focus frame (the view has no frame of its own to colour)
            painter = QPainter(self.viewport())
            edge = self.palette().color(QPalette.ColorRole.Highlight)
            r, w = self.viewport().rect(), FOCUS_WIDTH
            for band in (r.adjusted(0, 0, w - r.width(), 0), r.adjusted(0, 0, 0, w - r.height()),
                         r.adjusted(r.width() - w, 0, 0, 0), r.adjusted(0, r.height() - w, 0, 0)):
                painter.fillRect(band, edge)
            painter.end()

    def focusInEvent(self, e: QFocusEvent) -> None:
        super().focusInEvent(e)
        tabbed = e.reason() in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason)
        body = self.body_start(self.position)
        if tabbed and body is not None and not self.textCursor().hasSelection():
            cursor = QTextCursor(self.document())  # reached with Tab: start at the current turn
            cursor.setPosition(body)
            self.setTextCursor(cursor)
        self.viewport().update()

    def focusOutEvent(self, e: QFocusEvent) -> None:
        super().focusOutEvent(e)
        self.viewport().update()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if self.hasFocus():  # the frame stays on the edges, not scrolled with the text
            self.viewport().update()

    def _text(self, position: int) -> str:
        if self.conversation is None:
            return ""
        # the part shown (sentences beyond it end where it ends)
        return shown_text(next((t.text for t in self.conversation.turns
                                if t.position == position), ""))[0]

    def turn_text(self, position: int) -> str:
        """The part of a turn's message shown (offsets into it are offsets of the text)."""
        return self._text(position)

    def refresh_marks(self) -> None:
        """Paint the sentence, span and search marks again."""
        self._update_selections()

    def body_start(self, position: int) -> int | None:
        """The document position of the first character of a turn's message."""
        frame = self._frames.get(position)
        if frame is None:
            return None
        return self.document().findBlock(frame.firstPosition()).next().position()

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
        for layer in self.extra_layers:
            selections += layer()
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
            if text:
                self.finish()  # every hit of the conversation is marked at once
            self._update_selections()

    def search_hits(self) -> int:
        self.finish()
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
        rect = self._turn_rect(position)
        if rect is None:
            return
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
        for position, frame in self._frames.items():
            if frame.firstPosition() <= doc_pos <= frame.lastPosition():
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
            self._render(position)
            self.position = 0
            self.set_current(position, sentence)

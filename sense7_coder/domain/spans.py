"""Coded spans: a stretch of one turn's text given a code.

Offsets are code points into the turn's text (Python ``str`` indices, as REFI-QDA counts
them), ``end`` exclusive. A span is identified by its :class:`SpanKey`: whose, which turn,
where, which code -- so the same stretch can carry several codes, and two coders' spans of
the same stretch are two spans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .models import Coding, Value


@dataclass(frozen=True, slots=True, order=True)
class SpanKey:
    coder: str
    conversation_id: str
    position: int
    start: int
    end: int
    code: str

    def moved(self, start: int | None = None, end: int | None = None,
              code: str | None = None) -> SpanKey:
        """The same coder's span on the same turn with other offsets or another code."""
        return SpanKey(self.coder, self.conversation_id, self.position,
                       self.start if start is None else start,
                       self.end if end is None else end,
                       self.code if code is None else code)

    def place(self) -> str:
        """Where the span is, in words."""
        return (f"{self.coder}'s '{self.code}' span {self.start}-{self.end} on turn "
                f"{self.position} of conversation '{self.conversation_id}'")


@dataclass(frozen=True, slots=True)
class Span:
    key: SpanKey
    value: Value
    memo: str = ""
    #: how it was made: coded, imported, merged
    source: str = "coded"
    blind: bool = False
    origin: str | None = None

    # the key's parts, for readers
    @property
    def coder(self) -> str:
        return self.key.coder

    @property
    def conversation_id(self) -> str:
        return self.key.conversation_id

    @property
    def position(self) -> int:
        return self.key.position

    @property
    def start(self) -> int:
        return self.key.start

    @property
    def end(self) -> int:
        return self.key.end

    @property
    def code(self) -> str:
        return self.key.code

    def text_of(self, turn_text: str) -> str:
        return turn_text[self.start:self.end]


@dataclass
class SpanCoding(Coding):
    """A coding of a span code read from a file (``import-codings``): the turn's unit plus
    the stretch's offsets."""

    start: int = 0
    end: int = 0

    def key(self) -> SpanKey:
        return SpanKey(self.coder, self.unit.conversation_id, self.unit.position, self.start,
                       self.end, self.code)


def nudged_end(text: str, start: int, end: int, grow: bool, by_word: bool) -> int | None:
    """The end of the span ``start``-``end`` of ``text`` moved one character (a word when
    ``by_word``) to the right (``grow``) or left; None when it cannot move (at the end of
    the text, or the span would become empty). Offsets are code points, end exclusive."""
    if grow:
        if end >= len(text):
            return None
        if not by_word:
            return end + 1
        found = re.compile(r"\W*\w+").match(text, end)
        return found.end() if found else len(text)
    if by_word:
        kept = re.sub(r"\w+\W*$|\W+$", "", text[start:end])
        new = start + len(kept.rstrip())
    else:
        new = end - 1
    return new if new > start else None

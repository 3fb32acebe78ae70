"""Sentence segmentation of turns, for codes whose unit is the sentence.

spaCy's blank English pipeline with its rule-based ``sentencizer`` does the work: no model
download, fast, and deterministic, so every coder who imports the same file gets the same
sentence numbers (sentences are identified by ``(conversation_id, position, sentence)`` when
projects are merged). Three rules are ours:

* a line break always ends a sentence, so that list items, headings and lines of code in an
  assistant's answer become units of their own even without final punctuation;
* a list number ("1.", "2)") at the start of a line, or inline after the end of a sentence
  or a colon, stays with its item instead of becoming a sentence of its own;
* offsets are trimmed of surrounding whitespace and whitespace-only pieces are dropped.

Offsets are Python string indices (code points), so ``text[start:end]`` is the sentence.
Abbreviations that spaCy's English tokenizer knows ("e.g.", "i.e.", "Dr.") do not end a
sentence.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

from .models import Sentence

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.pipeline import Sentencizer
    from spacy.tokenizer import Tokenizer
    from spacy.tokens import Doc, Token

#: texts handed to spaCy per batch in :func:`segment_turns`
BATCH_SIZE = 256
#: longest text accepted (characters); spaCy's default of 1,000,000 is raised because the
#: blank pipeline needs little memory per character
MAX_LENGTH = 20_000_000

#: what follows a list number at the start of a line ("1." or "1)")
LIST_NUMBER_ENDS = frozenset({".", ")"})
#: what may precede an inline list number ("... updates. 2. Volunteer ...")
LIST_NUMBER_AFTER = frozenset({".", "!", "?", ":", ";"})

_nlp: Language | None = None
_lock = threading.Lock()


def _pipeline() -> Language:
    """The shared blank-English pipeline with a sentencizer, built on first use."""
    global _nlp
    if _nlp is None:
        with _lock:
            if _nlp is None:
                import spacy  # deferred: importing spaCy takes a noticeable moment

                nlp = spacy.blank("en")
                nlp.add_pipe("sentencizer")
                nlp.max_length = MAX_LENGTH
                _nlp = nlp
    return _nlp


def _sentencizer(nlp: Language) -> Sentencizer:
    return cast("Sentencizer", nlp.get_pipe("sentencizer"))


def _is_line_break(token: Token) -> bool:
    return token.is_space and ("\n" in token.text or "\r" in token.text)


def _mark_boundaries(doc: Doc) -> Doc:
    """Preset sentence starts: each line starts one, and list numbers stay with their item.

    A list number is one or two digits followed by "." or ")" at the start of a line, or
    inline after ".", "!", "?", ":" or ";" (as in "Tips: 1. Rest. 2. Eat."); an inline one
    after a colon starts a new sentence. The sentencizer keeps boundaries that are already
    set, so this runs before it.
    """
    n = len(doc)
    for token in doc:
        i = token.i
        previous = doc[i - 1] if i > 0 else None
        line_start = previous is None or _is_line_break(previous)
        if previous is not None and line_start:
            token.is_sent_start = True
        if not (
            i + 2 < n
            and token.text.isdigit()
            and len(token.text) <= 2
            and doc[i + 1].text in LIST_NUMBER_ENDS
            and not doc[i + 2].is_space
        ):
            continue
        if line_start:
            doc[i + 2].is_sent_start = False
        elif previous is not None and previous.text in LIST_NUMBER_AFTER:
            doc[i + 2].is_sent_start = False
            if previous.text in {":", ";"}:
                token.is_sent_start = True
    return doc


def _offsets(doc: Doc) -> list[tuple[int, int]]:
    text = doc.text
    spans: list[tuple[int, int]] = []
    for sent in doc.sents:
        start, end = sent.start_char, sent.end_char
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character offsets ``(start, end)`` of the sentences of ``text``, in order.

    Empty or whitespace-only text gives ``[]``.
    """
    if not text or text.isspace():
        return []
    nlp = _pipeline()
    doc = _mark_boundaries(nlp.make_doc(text))
    doc = _sentencizer(nlp)(doc)
    return _offsets(doc)


def segment_turns(turns: Iterable[tuple[str, int, str]]) -> Iterator[Sentence]:
    """Sentences of many turns given as ``(conversation_id, position, text)``.

    Yields :class:`Sentence` objects numbered from 1 within each turn, turn after turn in
    the order given; a turn with no text yields nothing. Texts go through spaCy in batches.
    """
    nlp = _pipeline()
    sentencizer = _sentencizer(nlp)
    tokenizer: Tokenizer = nlp.tokenizer
    keys: deque[tuple[str, int]] = deque()

    def texts() -> Iterator[str]:
        for conversation_id, position, text in turns:
            keys.append((conversation_id, position))
            yield text or ""

    docs = (_mark_boundaries(d) for d in tokenizer.pipe(texts(), batch_size=BATCH_SIZE))
    for doc in sentencizer.pipe(docs, batch_size=BATCH_SIZE):
        conversation_id, position = keys.popleft()
        for number, (start, end) in enumerate(_offsets(doc), 1):
            yield Sentence(conversation_id, position, number, start, end)

"""Reading JSON conversations one at a time, so that memory does not grow with the file.

A JSON array of conversations is read element by element, and JSON Lines line by line,
each element parsed by the same parser as a whole file (``json``), with the same checks
(nesting depth, lone surrogate escapes, NUL bytes, the encoding). Only one element (and a
buffer of about a megabyte) is held at a time.

The streams check what they can see and stop at the first thing they do not take as read
(:class:`NotStreamed`): malformed or truncated JSON, a check that fails, a shape other than
an array of conversations. The caller then reads the file whole, as before, which words
the problem exactly as it always has (naming the line and column). So a file that imports
imports streamed, and a file that is refused is refused with the same message.
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..file_reading import MAX_JSON_DEPTH, check_encoding, open_regular
from ..models import Conversation
from .options import ImportOptions
from .roles import RoleResolver
from .ticker import CHECK_EVERY, Ticker, gc_paused
from .values import RecordError

#: bytes read at a time
CHUNK = 1 << 20
_WHITESPACE = " \t\n\r"


class NotStreamed(Exception):
    """The stream met something it leaves to the whole-file reader to word (or to read)."""


class ExtraData(NotStreamed):
    """Something follows the top-level array (a JSON Lines file with a ``.json`` name?)."""


def streamable(encoding: str | None) -> bool:
    """Files in UTF-8 (the default) are streamed; another encoding is read whole."""
    return encoding is None or check_encoding(encoding) == "utf-8"


def element_checks(text: str, depth: int) -> None:
    """What reading the whole file checks before parsing, on one element found at nesting
    ``depth`` (1 inside the top-level array, 0 for a JSON Lines record)."""
    from .jsonchat import lone_surrogate, too_deep_at

    if "\x00" in text:
        raise NotStreamed("NUL")
    brackets = text.count("[") + text.count("{")
    if "\\u" not in text and brackets + depth <= MAX_JSON_DEPTH:
        return
    raw = text.encode("utf-8", errors="surrogatepass")
    if brackets + depth > MAX_JSON_DEPTH and too_deep_at(raw, MAX_JSON_DEPTH - depth) >= 0:
        raise NotStreamed("deep")
    if b"\\u" in raw and lone_surrogate(raw) >= 0:
        raise NotStreamed("surrogate")


class _Buffer:
    """Decoded text of a file read a chunk at a time; ``pos`` is where reading stands."""

    def __init__(self, fh: IO[bytes]):
        self.fh = fh
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
        self.text = ""
        self.pos = 0
        self.eof = False
        self.bytes_read = 0

    def fill(self, at_least: int = CHUNK) -> bool:
        """Read more; False at the end of the file."""
        if self.eof:
            return False
        if self.pos > len(self.text) // 2:
            self.text = self.text[self.pos:]
            self.pos = 0
        data = self.fh.read(max(at_least, CHUNK))
        self.bytes_read += len(data)
        try:
            more = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise NotStreamed("encoding") from None
        if not data:
            self.eof = True
        self.text += more
        return bool(data) or bool(more)

    def skip_space(self) -> str:
        """The next character that is not JSON whitespace ("" at the end of the file)."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _WHITESPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.fill():
                return ""


def first_character(path: Path) -> str:
    """The first character of the file that is not whitespace (after a BOM)."""
    with open_regular(path) as fh:
        return _Buffer(fh).skip_space()


def array_elements(path: Path) -> Iterator[tuple[Any, float]]:
    """The elements of the file's top-level JSON array, one at a time, each with the share
    of the file read so far; raises :class:`NotStreamed` where the whole-file reader must
    decide (and :class:`ExtraData` when more follows the array)."""
    decoder = json.JSONDecoder()
    size = max(os.path.getsize(path), 1)
    with open_regular(path) as fh:
        buf = _Buffer(fh)
        if buf.skip_space() != "[":
            raise NotStreamed("not an array")
        buf.pos += 1
        if buf.skip_space() == "]":
            buf.pos += 1
        else:
            while True:
                yield _element(buf, decoder), buf.bytes_read / size
                after = buf.skip_space()
                buf.pos += 1
                if after == "]":
                    break
                if after != ",":
                    raise NotStreamed("delimiter")
                if buf.skip_space() in ("]", ""):
                    raise NotStreamed("trailing comma")
        if buf.skip_space() != "":
            raise ExtraData("extra data")


def _element(buf: _Buffer, decoder: json.JSONDecoder) -> Any:
    """Parse the value at ``buf.pos`` (reading on until it is complete) and move past it."""
    while True:
        try:
            obj, end = decoder.raw_decode(buf.text, buf.pos)
        except json.JSONDecodeError:
            if buf.fill(len(buf.text) - buf.pos):  # perhaps cut at the buffer's end
                continue
            raise NotStreamed("malformed") from None
        except (ValueError, RecursionError):  # a number too long to convert; nesting
            raise NotStreamed("number or nesting") from None
        if end >= len(buf.text) and buf.fill():  # a number may go on in the next chunk
            continue
        element_checks(buf.text[buf.pos:end], 1)
        buf.pos = end
        return obj


def lines(path: Path) -> Iterator[tuple[int, str, float]]:
    """The lines of a JSON Lines file (ending at "\\n" only), decoded and checked as the
    whole-file reader checks them, with their number and the share of the file read."""
    size = max(os.path.getsize(path), 1)
    done = 0
    with open_regular(path) as fh:
        for i, raw in enumerate(fh, 1):
            done += len(raw)
            if i == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise NotStreamed("encoding") from None
            element_checks(line, 0)
            yield i, line, done / size
        if done == 0:
            raise NotStreamed("empty")


def conversations(path: Path, fmt: str, options: ImportOptions,
                  ticker: Ticker | None) -> Iterator[Conversation]:
    """The conversations of a JSON array (``fmt`` json) or a JSON Lines file, built one at
    a time exactly as :func:`.jsonchat.read_json` and :func:`.jsonchat.read_jsonl` build
    them (same numbering, ids, places named); :class:`NotStreamed` where those must
    decide."""
    from .jsonchat import MessageReader, build_conversation

    reader = MessageReader(RoleResolver(options.roles), options.mapping)
    items = _json_items(path, options) if fmt == "json" else _jsonl_items(path, options)
    n = 0
    with gc_paused():
        for n, (where, obj, share) in enumerate(items, 1):
            if ticker is not None and n % max(1, CHECK_EVERY // 20) == 0:
                ticker.rows(int(share * 1000), 1000)
            try:
                conv = build_conversation(obj, n, path.stem, reader, where)
            except RecordError:
                raise NotStreamed("record") from None
            conv.source = path.name
            yield conv
    if n == 0:
        raise NotStreamed("no conversations")


def _json_items(path: Path, options: ImportOptions) -> Iterator[tuple[str, Any, float]]:
    from .jsonchat import _is_message

    for n, (obj, share) in enumerate(array_elements(path), 1):
        if n == 1 and _is_message(obj, options.mapping):
            raise NotStreamed("a bare list of messages: one conversation")
        yield f"conversation {n}", obj, share


def _jsonl_items(path: Path, options: ImportOptions) -> Iterator[tuple[str, Any, float]]:
    from .jsonchat import _is_message, _message_list

    for i, line, share in lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            raise NotStreamed("line") from None
        if isinstance(obj, dict) and _message_list(obj, options.mapping)[0] is None \
                and _is_message(obj, options.mapping):
            raise NotStreamed("a single message")
        yield f"line {i}", obj, share

"""JSON and JSON Lines conversations.

Accepted layouts (keys matched ignoring case):

* the native one::

    {"conversation_id": "c1", "participant_id": "p1", "model": "gpt-4", "topic": "...",
     "attributes": {...},
     "messages": [{"role": "user", "content": "...", "ratings": {"overall": 4, ...},
                   "comment": "...", "time_offset": 12.5}, ...]}

* the common chat layout: ``messages`` of ``role``/``content`` (OpenAI style; ``content``
  may be a list of parts, whose text parts are joined), ShareGPT's ``conversations`` of
  ``from``/``value``, and lists called ``conversation``, ``dialog`` or ``dialogue``;
* a top-level list of conversations, a single conversation, ``{"conversations": [...]}``,
  or a bare list of messages (one conversation);
* JSON Lines: one conversation (or one bare list of messages) per line; blank lines are
  skipped.

Conversation ids come from ``conversation_id`` (or ``id``, ``conv_id``, ``dialog_id``);
without one a conversation gets ``<file stem>-<n>``, n counting conversations from 1.
Other scalar keys of a conversation (e.g. ``source``) and the ``attributes`` object become
conversation attributes; other keys of a message become turn attributes. Role names are
mapped with ``--roles`` first, then common names (user/human/seeker -> user;
assistant/bot/gpt/supporter/listener -> assistant; system); an unknown role is an error.
Message texts are kept exactly, empty ones included. ``--map`` renames keys, e.g.
``--map text=body``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..file_reading import MAX_JSON_DEPTH, decode_text, read_bytes
from ..models import RATING_KEYS, ROLES, Conversation, ImportBatch, Participant, Turn
from .options import ImportOptions
from .roles import RoleResolver
from .ticker import CHECK_EVERY, Ticker, gc_paused
from .values import (
    ABSENT,
    NO_VALUES,
    RecordError,
    control_character,
    parse_number,
    parse_rating,
    rating_candidates,
    shown,
)

LIST_KEYS = ("messages", "conversation", "conversations", "dialog", "dialogue", "turns",
             "utterances", "chat")
KEYS: dict[str, tuple[str, ...]] = {
    "conversation_id": ("conversation_id", "id", "conv_id", "dialog_id", "dialogue_id",
                        "chat_id"),
    "participant_id": ("participant_id", "participant", "pid", "user_id"),
    "model": ("model",),
    "topic": ("topic",),
    "role": ("role", "from", "speaker", "author", "sender"),
    "speaker": ("name", "speaker_name"),
    "text": ("content", "text", "value", "message", "utterance"),
    "time_offset": ("time_offset", "time_offset_seconds"),
    "comment": ("comment",),
}

RATING_NAMES = {c.casefold(): key for key in RATING_KEYS for c in rating_candidates(key)}


def load_json(path: Path, encoding: str | None = None) -> Any:
    """Parse a JSON file; truncated or malformed JSON names the line and column."""
    text = json_text(path, encoding)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        hint = "; is the file complete?" if e.pos >= len(text.rstrip()) - 1 else ""
        if e.msg == "Extra data":
            hint = "; if the file holds one JSON object per line, import it as JSON Lines (jsonl)"
        raise InputError(str(path), f"not valid JSON ({e.msg}{hint})",
                         location=f"line {e.lineno}, column {e.colno}") from None
    except ValueError as e:  # a number beyond Python's int-string conversion limit
        raise too_long_number(path, text, e) from None
    except RecursionError:  # json_text refuses deeper nesting first; a safety net
        raise InputError(str(path), "JSON nested too deeply") from None


def json_text(path: Path, encoding: str | None = None) -> str:
    """The text of a JSON (or JSON Lines) file, checked so that parsing it costs no more
    than its size: nesting deeper than :data:`MAX_JSON_DEPTH` and escapes of lone
    surrogates (``\\ud800``, which no text can hold) are refused naming the line and
    column. (Numbers too long for Python to convert are refused when parsing,
    :func:`too_long_number`.)"""
    data = read_bytes(path)
    text = decode_text(path, data, encoding)
    raw = text.encode("utf-8") if encoding is not None else data.removeprefix(b"\xef\xbb\xbf")
    _check_json_bytes(path, raw)
    return text


def _where(raw: bytes, offset: int) -> str:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode("utf-8", errors="replace")) + 1
    line = raw.count(b"\n", 0, offset) + 1
    return f"line {line}, column {column}"


_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_SURROGATE = re.compile(rb"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LOW = re.compile(rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _masked(raw: bytes) -> bytes:
    """``raw`` with the inside of every JSON string blanked (offsets unchanged)."""
    return _STRING.sub(lambda m: b'"' + b" " * (len(m.group()) - 2) + b'"', raw)


def _too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """The offset where nesting first exceeds ``limit``, or -1 (brackets in strings
    count too: the caller confirms on the masked text)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return -1
    import numpy as np

    step = np.zeros(256, dtype=np.int8)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    arr = np.frombuffer(raw, dtype=np.uint8)
    depth = 0
    chunk = 1 << 22
    for start in range(0, len(arr), chunk):
        level = np.cumsum(step[arr[start : start + chunk]], dtype=np.int32)
        level += depth
        if int(level.max()) > limit:
            return start + int(np.argmax(level > limit))
        depth = int(level[-1])
    return -1


def too_deep_at(raw: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """The offset where the nesting of arrays and objects (outside strings) first exceeds
    ``limit``, or -1."""
    if _too_deep(raw, limit) < 0:
        return -1
    return _too_deep(_masked(raw), limit)


def lone_surrogate(raw: bytes) -> int:
    """The offset of the first escape of half a UTF-16 surrogate pair without its other
    half (``\\ud800``), or -1."""
    paired: set[int] = set()
    for m in _SURROGATE.finditer(raw):
        start = m.end() - 6
        high = raw[start + 3 : start + 4] in b"89abAB"
        if high and _LOW.match(raw, m.end()):
            paired.add(m.end())
        elif high or start not in paired:
            return start
    return -1


def _check_json_bytes(path: Path, raw: bytes) -> None:
    offset = too_deep_at(raw)
    if offset >= 0:
        raise InputError(str(path), f"JSON nested more than {MAX_JSON_DEPTH} levels deep "
                         f"(arrays and objects); at most {MAX_JSON_DEPTH} are read",
                         location=_where(raw, offset))
    if b"\\u" in raw:
        start = lone_surrogate(raw)
        if start >= 0:
            escape = raw[start : start + 6].decode("ascii")
            raise InputError(str(path), f"the escape {escape} is half of a UTF-16 "
                             "surrogate pair with no other half; no text can hold it "
                             "(was the file cut or converted wrongly?)",
                             location=_where(raw, start))


def too_long_number(path: Path, text: str, error: ValueError, line: int = 1) -> InputError:
    """The error for a number beyond Python's int-string conversion limit (``json.loads``
    raised ``error`` for it), naming its line and column; ``line`` is the first line of
    ``text`` in the file."""
    raw = text.encode("utf-8")
    limit = sys.get_int_max_str_digits()
    number = re.search(rb"[0-9]{%d,}" % (limit + 1), _masked(raw)) if limit else None
    if number is None:
        return InputError(str(path), f"cannot be read as JSON ({str(error).split(';')[0]})")
    where = _where(raw, number.start())
    if line > 1:
        where = f"line {line}" + where[where.index(","):]
    return InputError(str(path), f"a number of {len(number.group()):,} digits; numbers of more "
                      f"than {limit:,} digits are not read", location=where)


def _lower(obj: dict[str, Any]) -> dict[str, str]:
    return {k.casefold(): k for k in obj}


def _get(obj: dict[str, Any], field: str, mapping: dict[str, str],
         lower: dict[str, str] | None = None) -> tuple[str | None, Any]:
    """The key (as written) and value holding ``field`` in ``obj``."""
    wanted = mapping.get(field)
    names = (wanted.casefold(),) if wanted else KEYS[field]
    if lower is None:
        lower = _lower(obj)
    for name in names:
        key = lower.get(name)
        if key is not None:
            return key, obj[key]
    return None, None


def _is_message(obj: Any, mapping: dict[str, str]) -> bool:
    if not isinstance(obj, dict):
        return False
    lower = _lower(obj)
    return (_get(obj, "role", mapping, lower)[0] is not None
            and _get(obj, "text", mapping, lower)[0] is not None)


def _message_list(obj: dict[str, Any], mapping: dict[str, str]) -> tuple[str | None, Any]:
    lower = {k.casefold(): k for k in obj}
    for name in LIST_KEYS:
        key = lower.get(name)
        if key is not None and isinstance(obj[key], list):
            items = obj[key]
            if not items or any(_is_message(m, mapping) for m in items[:5]):
                return key, items
    return None, None


def conversations_in(data: Any, mapping: dict[str, str]) -> list[Any]:
    """The conversation objects (dicts, or lists of messages) of a parsed JSON document."""
    if isinstance(data, dict):
        if _message_list(data, mapping)[0] is not None:
            return [data]
        lower = {k.casefold(): k for k in data}
        for name in ("conversations", "data", "items", "dialogs", "dialogues"):
            key = lower.get(name)
            if key is not None and isinstance(data[key], list):
                return list(data[key])
        raise RecordError("expected a conversation (an object with a 'messages' list) or a list of "
                   f"conversations; found an object with keys {', '.join(list(data)[:12])}")
    if isinstance(data, list):
        if data and _is_message(data[0], mapping):
            return [data]
        return data
    raise RecordError("expected a conversation or a list of conversations, found "
               f"{type(data).__name__}")


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in value]
        return "\n".join(str(p) for p in parts if p)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RecordError(f"the message text must be text, found {type(value).__name__}", where, "content")


def _ratings(value: Any, where: str) -> dict[str, int | None]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError("'ratings' must be an object such as {\"overall\": 4}", where, "ratings")
    out: dict[str, int | None] = {}
    for raw_key, raw in value.items():
        key = RATING_NAMES.get(str(raw_key).casefold())
        if key is None:
            raise RecordError(f"unknown rating '{raw_key}' (known: {', '.join(RATING_KEYS)})",
                       where, f"ratings.{raw_key}")
        try:
            parsed = parse_rating(raw)
        except ValueError as e:
            raise RecordError(str(e), where, f"ratings.{raw_key}") from None
        if parsed is not ABSENT:
            out[key] = parsed  # type: ignore[assignment]
    return out


@dataclass(frozen=True)
class _KeyPlan:
    """Which key of a message holds what; worked out once per set of keys."""

    role: str | None
    text: str | None
    speaker: str | None
    time_offset: str | None
    comment: str | None
    ratings: str | None
    others: tuple[str, ...]


class MessageReader:
    """Builds turns from message objects; messages of one file usually share their keys,
    so the key lookup is planned once per distinct key set."""

    def __init__(self, resolver: RoleResolver, mapping: dict[str, str]):
        self.resolver = resolver
        self.mapping = mapping
        self.plans: dict[tuple[str, ...], _KeyPlan] = {}
        self.roles: dict[str, str | None] = {}

    def plan(self, keys: tuple[str, ...]) -> _KeyPlan:
        plan = self.plans.get(keys)
        if plan is None:
            lower = {k.casefold(): k for k in keys}
            found = {f: _get(dict.fromkeys(keys), f, self.mapping, lower)[0]
                     for f in ("role", "text", "speaker", "time_offset", "comment")}
            ratings = lower.get("ratings")
            used = {*found.values(), ratings}
            plan = _KeyPlan(ratings=ratings, others=tuple(k for k in keys if k not in used),
                            **found)
            self.plans[keys] = plan
        return plan

    def role(self, raw: str) -> str | None:
        if raw not in self.roles:
            self.roles[raw] = self.resolver.role(raw)
        return self.roles[raw]

    def turn(self, msg: Any, position: int, where: str) -> Turn:
        if not isinstance(msg, dict):
            raise RecordError(f"a message must be an object, found {type(msg).__name__}", where)
        plan = self.plan(tuple(msg))
        raw_role = msg[plan.role] if plan.role is not None else None
        if not isinstance(raw_role, str):
            raise RecordError("the message has no role", where, plan.role or "role")
        role = self.role(raw_role)
        if role is None:
            raise RecordError(self.resolver.unknown_message(raw_role), where, plan.role,
                              self.resolver.unknown_hint(raw_role))
        if plan.text is None:
            raise RecordError("the message has no text ('content')", where, "content")
        raw_text = msg[plan.text]
        name = msg[plan.speaker] if plan.speaker is not None else None
        speaker = name if isinstance(name, str) and name else (
            None if raw_role.strip().casefold() in ROLES else raw_role)
        offset = None
        if plan.time_offset is not None:
            try:
                offset = parse_number(msg[plan.time_offset])
            except ValueError as e:
                raise RecordError(str(e), where, plan.time_offset) from None
        comment = msg[plan.comment] if plan.comment is not None else None
        return Turn(
            position=position,
            role=role,
            text=raw_text if isinstance(raw_text, str) else _text(raw_text, where),
            speaker=speaker,
            time_offset=offset,
            ratings=(_ratings(msg[plan.ratings], where) or NO_VALUES) if plan.ratings is not None
            else NO_VALUES,
            comment=str(comment) if comment not in (None, "") else None,
            attributes={k: msg[k] for k in plan.others} if plan.others else NO_VALUES,
        )


def build_conversation(obj: Any, n: int, stem: str, reader: MessageReader,
                       where: str) -> Conversation:
    mapping = reader.mapping
    if isinstance(obj, list):
        conv = Conversation(conversation_id=f"{stem}-{n}")
        messages: Any = obj
        used: set[str | None] = set()
    elif isinstance(obj, dict):
        list_key, messages = _message_list(obj, mapping)
        if list_key is None:
            raise RecordError("the conversation has no list of messages ('messages', "
                       "'conversation' or 'dialog')", where)
        id_key, raw_id = _get(obj, "conversation_id", mapping)
        if raw_id is None or str(raw_id).strip() == "":
            cid = f"{stem}-{n}"
        elif isinstance(raw_id, str | int) and not isinstance(raw_id, bool):
            cid = str(raw_id).strip()
        else:
            raise RecordError("the conversation id must be text or a number", where, id_key)
        char = control_character(cid)
        if char is not None:
            raise RecordError(f"the conversation id '{shown(cid)}' holds the control character "
                              f"{char}", where, id_key)
        conv = Conversation(conversation_id=cid)
        if raw_id is not None and str(raw_id).strip():
            where = f"{where} (id '{cid}')"
        used = {list_key, id_key}
        for name in ("participant_id", "model", "topic"):
            key, value = _get(obj, name, mapping)
            used.add(key)
            if value is not None and value != "":
                if not isinstance(value, str | int | float) or isinstance(value, bool):
                    raise RecordError(f"'{key}' must be text", where, key)
                setattr(conv, name, str(value))
        lower = {k.casefold(): k for k in obj}
        attrs_key = lower.get("attributes")
        if attrs_key is not None:
            used.add(attrs_key)
            if not isinstance(obj[attrs_key], dict):
                raise RecordError("'attributes' must be an object", where, attrs_key)
            conv.attributes.update(obj[attrs_key])
        for k, v in obj.items():
            if k not in used and k not in conv.attributes:
                conv.attributes[k] = v
    else:
        raise RecordError(f"a conversation must be an object, found {type(obj).__name__}", where)
    for i, msg in enumerate(messages, 1):
        conv.turns.append(reader.turn(msg, i, f"{where}, message {i}"))
    return conv


def _batch(path: Path, items: Iterator[tuple[str, Any]], options: ImportOptions,
           total: int, ticker: Ticker | None) -> ImportBatch:
    reader = MessageReader(RoleResolver(options.roles), options.mapping)
    conversations: list[Conversation] = []
    seen: dict[str, str] = {}
    with gc_paused():
        for n, (where, obj) in enumerate(items, 1):
            if ticker is not None and n % max(1, CHECK_EVERY // 20) == 0:
                ticker.rows(n, total)
            try:
                conv = build_conversation(obj, n, path.stem, reader, where)
            except RecordError as e:
                raise InputError(str(path), e.message, location=e.where or where,
                                 field=e.field, hint=e.hint) from None
            if conv.conversation_id in seen:
                raise InputError(str(path), f"conversation id '{conv.conversation_id}' appears "
                                 f"twice (also {seen[conv.conversation_id]})", location=where,
                                 field="conversation_id")
            seen[conv.conversation_id] = where
            conv.source = path.name
            conversations.append(conv)
    if not conversations:
        raise InputError(str(path), "no conversations in the file")
    participants = {c.participant_id: Participant(c.participant_id)
                    for c in conversations if c.participant_id}
    return ImportBatch(source=str(path), conversations=conversations,
                       participants=list(participants.values()))


def read_json(path: Path, options: ImportOptions, ticker: Ticker | None = None,
              data: Any = None) -> ImportBatch:
    if data is None:
        data = load_json(path, options.encoding)
    try:
        items = conversations_in(data, options.mapping)
    except RecordError as e:
        raise InputError(str(path), e.message, hint=e.hint) from None
    numbered = ((f"conversation {i}", obj) for i, obj in enumerate(items, 1))
    return _batch(path, numbered, options, len(items), ticker)


def read_jsonl(path: Path, options: ImportOptions, ticker: Ticker | None = None) -> ImportBatch:
    # a record ends at "\n" only (a "\r" before it is JSON whitespace): a raw U+2028,
    # U+2029 or U+0085 inside a string belongs to the string, whatever str.splitlines says
    lines = json_text(path, options.encoding).split("\n")

    def objects() -> Iterator[tuple[str, Any]]:
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(str(path), f"not valid JSON ({e.msg} at column {e.colno}); "
                                 "each line must hold one whole conversation",
                                 location=f"line {i}") from None
            except ValueError as e:  # a number beyond Python's int-string conversion limit
                raise too_long_number(path, line, e, i) from None
            except RecursionError:  # json_text refuses deeper nesting first; a safety net
                raise InputError(str(path), "JSON nested too deeply",
                                 location=f"line {i}") from None
            if isinstance(obj, dict) and _message_list(obj, options.mapping)[0] is None \
                    and _is_message(obj, options.mapping):
                raise InputError(str(path), "this line holds a single message; each line must "
                                 "hold one conversation (an object with 'messages', or a list "
                                 "of messages)", location=f"line {i}")
            yield f"line {i}", obj

    return _batch(path, objects(), options, len(lines), ticker)

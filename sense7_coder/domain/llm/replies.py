"""Reading a model's reply the way servers give it: a value (and a rationale) per code.

Pure functions: nothing here talks to a server or a project.

* :func:`reply_schema` is the JSON schema sent as ``response_format`` where a server takes
  structured output (llama.cpp, vLLM, Ollama): one object, a ``value`` and a
  ``rationale`` per code asked.
* :func:`read_reply` reads a reply for the codes asked, tolerantly, in this order: a JSON
  object (also inside a ```json fence, or amid text), tags such as ``<S2>4</S2>`` (the
  SENSE-7 paper's format: ``S1``, ``S2``... number the codes in the order they were asked;
  a tag may also be a code's key, or ``score``/``level``/``value``), lines such as
  ``level: 4``, ``Empathy level: 4`` or ``Affective understanding: 4``, ``4/5`` (the
  denominator must be the scale's top), a level's label (``good``), or a reply that is
  only a value.

Strict types: a JSON list, object or bool is never a level (not even ``true`` for a
present/absent code: the schema asks for 0 or 1); a JSON number must be a level's value,
and a whole number written as a fraction (``4.0``) is read as that level (JSON does not
tell them apart, and some servers write every number so), while ``4.5`` is no level;
``null`` and the words ``N/A`` / ``not applicable`` mean not applicable and are read only
for a code that allows it. Text is read through :meth:`Code.parse_value` (a level's value
or label, the present/absent words), like every other incoming value.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..codebook.codes import Code

#: the keys a single value may go by in a JSON object
VALUE_KEYS = ("value", "level", "score", "rating", "label", "answer")
RATIONALE_KEYS = ("rationale", "reasoning", "reason", "explanation", "justification")
NA_WORDS = frozenset({"n/a", "na", "not applicable", "none", "null"})
MAX_RATIONALE_CHARS = 2000
#: a number written with more characters than this is no level
MAX_NUMBER_CHARS = 20
#: the characters of a reply read for a value outside a JSON object
MAX_TEXT_CHARS = 20_000


class Unreadable(ValueError):
    """No value for a code could be read from the reply (the message says why)."""


@dataclass(frozen=True)
class Reading:
    """A value read for one code (None: not applicable) and the model's rationale."""

    value: int | str | None
    rationale: str = ""


def reply_schema(codes: Sequence[Code]) -> dict[str, Any]:
    """The JSON schema of a reply for ``codes``: {code key: {value, rationale}}."""
    props: dict[str, Any] = {}
    for code in codes:
        allowed: list[Any] = list(code.values) + ([None] if code.allow_na else [])
        props[code.key] = {
            "type": "object",
            "properties": {"value": {"enum": allowed}, "rationale": {"type": "string"}},
            "required": ["value", "rationale"],
            "additionalProperties": False,
        }
    return {"type": "object", "properties": props, "required": [c.key for c in codes],
            "additionalProperties": False}


def response_format(codes: Sequence[Code]) -> dict[str, Any]:
    """The ``response_format`` of an OpenAI-compatible request asking for that schema."""
    return {"type": "json_schema",
            "json_schema": {"name": "suggestion", "strict": True,
                            "schema": reply_schema(codes)}}


# -- values ------------------------------------------------------------------------------------

class AsWritten(str):
    """A JSON number or constant kept as written (too long, NaN, Infinity): no value."""


def _json_value(code: Code, value: Any) -> int | str | None:
    """A level from a JSON value, under the strict types of the module notes."""
    if value is None:
        if not code.allow_na:
            raise Unreadable(f"{code.key}: not applicable is not allowed for this code")
        return None
    if isinstance(value, (bool, list | dict, AsWritten)):
        shown = json.dumps(value)[:40] if not isinstance(value, AsWritten) else value[:40]
        raise Unreadable(f"{code.key}: {shown} is {_kind(value)}, not a level")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise Unreadable(f"{code.key}: {value!r} is not a level")
        value = int(value)
    if isinstance(value, int):
        if value not in code.values:
            raise Unreadable(f"{code.key}: {value} is not a level (allowed: "
                             f"{', '.join(map(str, code.values[:20]))})")
        return value
    return _text_value(code, str(value))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a number too long"


def _text_value(code: Code, text: str) -> int | str | None:
    text = text.strip().strip("*_`\"'").strip().rstrip(".!").strip()
    if not text:
        raise Unreadable(f"{code.key}: an empty value")
    if text.casefold() in NA_WORDS:
        if not code.allow_na:
            raise Unreadable(f"{code.key}: not applicable is not allowed for this code")
        return None
    if _NUMERIC.fullmatch(text) and text not in {str(v) for v in code.values}:
        # a number as text is exact: 4.0 is 4, but 4.99999999999999999999999 is no 5
        try:
            number = decimal.Decimal(text)
        except decimal.InvalidOperation:
            number = None
        if (len(text) > MAX_NUMBER_CHARS or number is None or not number.is_finite()
                or number != number.to_integral_value()):
            raise Unreadable(f"{code.key}: {text[:40]} is not a level")
    try:
        return code.parse_value(text)
    except ValueError as e:
        raise Unreadable(str(e)) from None


def _rationale(obj: dict[str, Any]) -> str:
    for key in RATIONALE_KEYS:
        if key in obj:
            value = obj[key]
            text = value if isinstance(value, str) else json.dumps(value)
            return text.strip()[:MAX_RATIONALE_CHARS]
    return ""


# -- the reply's shapes ------------------------------------------------------------------------

_NUMERIC = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TAG = re.compile(r"<\s*([A-Za-z][\w-]{0,40})\s*>\s*([^<>]{0,80}?)\s*<\s*/\s*\1\s*>")


def json_objects(reply: str, max_number_chars: int = MAX_NUMBER_CHARS
                 ) -> list[dict[str, Any]]:
    """The JSON objects in a model's reply, read tolerantly: each ```json fence, then the
    text from the first ``{`` to the last ``}`` (prose around it is left). A number longer
    than ``max_number_chars``, NaN and Infinity come back :class:`AsWritten`; what does not
    parse, or nests too deep, is skipped. The one reader of reply JSON (the suggestions'
    and the judge's)."""
    def number(text: str) -> Any:
        return AsWritten(text) if len(text) > max_number_chars else json.loads(text)

    texts = [m.group(1) for m in _FENCE.finditer(reply)]
    first, last = reply.find("{"), reply.rfind("}")
    if 0 <= first < last:
        texts.append(reply[first:last + 1])
    out = []
    for text in texts:
        try:
            obj = json.loads(text, parse_int=number, parse_float=number,
                             parse_constant=AsWritten)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _lowered(obj: dict[str, Any]) -> dict[str, Any]:
    return {str(k).strip().casefold(): v for k, v in obj.items()}


def _from_object(obj: dict[str, Any], codes: Sequence[Code]) -> dict[str, Reading | str]:
    """Each code's reading (or why not) from one JSON object."""
    low = _lowered(obj)
    out: dict[str, Reading | str] = {}
    for code in codes:
        names = (code.key.casefold(), code.label.casefold())
        entry = next((low[n] for n in names if n in low), _MISSING)
        if entry is _MISSING and len(codes) == 1:
            entry = low  # a single code: the object itself holds the value
        if entry is _MISSING:
            out[code.key] = f"{code.key}: not in the reply's JSON object"
            continue
        try:
            if isinstance(entry, dict):
                inner = _lowered(entry)
                key = next((k for k in VALUE_KEYS if k in inner), None)
                if key is None:
                    raise Unreadable(f"{code.key}: the object has no value")
                out[code.key] = Reading(_json_value(code, inner[key]), _rationale(inner))
            else:
                out[code.key] = Reading(_json_value(code, entry), _rationale(low))
        except Unreadable as e:
            out[code.key] = str(e)
    return out


_MISSING: Any = object()


def _from_tags(reply: str, codes: Sequence[Code]) -> dict[str, Reading | str]:
    tags: dict[str, str] = {}
    for name, text in _TAG.findall(reply):
        tags.setdefault(name.casefold(), text)
    out: dict[str, Reading | str] = {}
    for i, code in enumerate(codes, 1):
        names = [code.key.casefold(), f"s{i}"]
        if len(codes) == 1:
            names += ["score", "level", "value", "rating", "answer"]
            names += [n for n in tags if re.fullmatch(r"s\d{1,2}", n)][:1] if len(tags) == 1 \
                else []
        text = next((tags[n] for n in names if n in tags), None)
        if text is None:
            continue
        try:
            out[code.key] = Reading(_text_value(code, text))
        except Unreadable as e:
            out[code.key] = str(e)
    return out


def _line_patterns(code: Code, single: bool) -> list[re.Pattern[str]]:
    names = [re.escape(code.key), re.escape(code.label)]
    if single:
        names += [r"(?:[\w-]+\s+){0,2}(?:level|score|rating|value)"]
    head = "|".join(names)
    return [re.compile(rf"(?:^|[\s*_#>-])(?:{head})\s*\**\s*[:=]\s*\**\s*([^\n,;]{{1,60}})",
                       re.I | re.M)]


_FRACTION = re.compile(r"(?<![\d.])(\d{1,6})\s*/\s*(\d{1,6})(?![\d.])")


def _from_lines(reply: str, codes: Sequence[Code]) -> dict[str, Reading | str]:
    out: dict[str, Reading | str] = {}
    single = len(codes) == 1
    for code in codes:
        for pattern in _line_patterns(code, single):
            m = pattern.search(reply)
            if m is None:
                continue
            raw = m.group(1).strip()
            frac = _FRACTION.match(raw)
            raw = frac.group(1) if frac else re.split(r"\s[-(–—]\s?|\s\(|\.\s", raw)[0]
            try:
                out[code.key] = Reading(_text_value(code, raw))
            except Unreadable as e:
                out[code.key] = str(e)
            break
    return out


def _from_text(reply: str, code: Code) -> Reading | str:
    """One code from a reply with no structure: ``4/5``, only a value, one level's label."""
    fractions = [(a, b) for a, b in _FRACTION.findall(reply)
                 if code.kind == "ordinal" and code.values
                 and int(b) == max(int(v) for v in code.values)]
    if len({a for a, _ in fractions}) == 1:
        try:
            return Reading(_text_value(code, fractions[0][0]))
        except Unreadable as e:
            return str(e)
    try:
        return Reading(_text_value(code, reply))
    except Unreadable:
        pass
    lowered = reply.casefold()
    found = []
    for level in sorted(code.levels, key=lambda lv: -len(lv.label)):
        label = level.label.casefold()
        if not label:
            continue
        hit = re.search(rf"(?<![\w]){re.escape(label)}(?![\w])", lowered)
        if hit:
            found.append(level.value)
            lowered = lowered[:hit.start()] + " " * len(label) + lowered[hit.end():]
    if len(found) == 1 and len(reply) <= 200:
        return Reading(found[0])
    return f"{code.key}: no level in the reply"


def read_reply(reply: str, codes: Sequence[Code]) -> dict[str, Reading | str]:
    """For each of ``codes`` (by key): the :class:`Reading`, or a one-line reason why no
    value could be read. A JSON object is believed first; tags, labelled lines and plain
    text fill in the codes it does not answer."""
    if not codes:
        return {}
    reply = reply if isinstance(reply, str) else ""
    out: dict[str, Reading | str] = {}
    for obj in json_objects(reply):
        for key, got in _from_object(obj, codes).items():
            if not isinstance(out.get(key), Reading):
                out[key] = got
        if all(isinstance(out.get(c.key), Reading) for c in codes):
            return out
    # the text readers scan the beginning only: a value is stated near the top, and a
    # reply of megabytes must not take seconds of regular-expression work
    head = reply[:MAX_TEXT_CHARS]
    for reader in (_from_tags, _from_lines):
        for key, got in reader(head, codes).items():
            if not isinstance(out.get(key), Reading):
                out[key] = got
    if len(codes) == 1 and not isinstance(out.get(codes[0].key), Reading):
        got = _from_text(head.strip(), codes[0])
        previous = out.get(codes[0].key)
        out[codes[0].key] = got if isinstance(got, Reading) or previous is None else previous
    said = reply.strip()[:MAX_RATIONALE_CHARS]
    for code in codes:
        got = out.setdefault(code.key, f"{code.key}: no value in the reply")
        if isinstance(got, Reading) and not got.rationale:
            out[code.key] = Reading(got.value, said)  # the reply is its own rationale
    return out

"""One validator per kind of row that enters a project.

Every path that writes a row -- the project API the window uses, the importers,
``import-codings``, ``import-ratings``, ``merge`` (and so packages, which come back by
merge) -- checks it here, so that what one path accepts every other path accepts too.
Each validator takes the row's raw values (whatever a file or a hand-edited project
holds: text, numbers, bytes, None) and returns the checked value or raises
:class:`RowError` naming the field and what is wrong. What needs the project (does that
turn exist, does the code apply to its role) is checked by the project layer on top.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import unicodedata
from typing import Any

from .models import RATING_KEYS
from .models import ROLES as TURN_ROLES

#: the roles of a coder in a project
CODER_ROLES = ("coder", "adjudicator")
#: the longest name or id (coder, conversation, participant), in characters
MAX_NAME_CHARS = 1_000
#: the largest turn, sentence or order number
MAX_NUMBER = 10**9
#: the users' own rating scale
RATING_SCALE = (1, 5)
#: kinds and actions of history events (the triggers of schemas 5, 11 and 12 write these)
#: (``code``, ``role``, ``setting`` and ``attribute`` events -- a conversation's model,
#: participant, topic or attributes changed -- stay in the file that recorded them: a
#: merge validates them with the rest, then leaves them out)
HISTORY_KINDS = ("coding", "done", "memo", "consensus", "assignment", "code", "role",
                 "setting", "identity", "span", "span memo", "attribute")
HISTORY_ACTIONS = ("set", "change", "clear")
#: Unicode categories a name must not hold: control characters, format characters
#: (zero-width spaces and joiners, bidi overrides and isolates, byte order marks), line
#: and paragraph separators, lone surrogates. They cannot be told apart on screen, and a
#: line break splits a row of every export.
_ODD_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


class RowError(ValueError):
    """A value of a row that sense7-coder does not accept: its field and what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


_KIND = {"Cc": "control character", "Cf": "zero-width or direction character",
         "Zl": "line separator", "Zp": "paragraph separator", "Cs": "lone surrogate"}


def _odd(text: str) -> tuple[str, str] | None:
    for ch in text:
        category = unicodedata.category(ch)
        if category in _ODD_CATEGORIES:
            return f"U+{ord(ch):04X}", _KIND[category]
    return None


def odd_character(text: str) -> str | None:
    """The first character of ``text`` a name must not hold, as ``U+200B``, or None."""
    found = _odd(text)
    return None if found is None else found[0]


def _shown(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def name(value: Any, what: str, field: str) -> str:
    """A name or id: text, not blank, no surrounding spaces, no odd characters, not huge."""
    if not isinstance(value, str):
        raise RowError(field, f"the {what} {_shown(value)} is not text")
    problem = _name_problem(value)
    if problem is not None:
        raise RowError(field, f"the {what} {_shown(value)} {problem}")
    return value


@functools.lru_cache(maxsize=1 << 16)  # names repeat on every row of a coder or conversation
def _name_problem(value: str) -> str | None:
    if not value.strip():
        return "is empty"
    if len(value) > MAX_NAME_CHARS:
        return f"has {len(value):,} characters (at most {MAX_NAME_CHARS:,})"
    found = _odd(value)
    if found is not None:
        return f"holds the {found[1]} {found[0]}"
    if value != value.strip():
        return "begins or ends with a space"
    return None


#: what begins the name of a model read as a rater; no coder's name may begin with it
MODEL_RATER_PREFIX = "model:"


def coder_name(value: Any, field: str = "coder") -> str:
    value = name(value, "coder name", field)
    if value.casefold().startswith(MODEL_RATER_PREFIX):
        raise RowError(field, f"the coder name {_shown(value)} begins with "
                              f"'{MODEL_RATER_PREFIX}', which names a model's suggestions")
    return value


def conversation_id(value: Any, field: str = "conversation_id") -> str:
    return name(value, "conversation id", field)


def participant_id(value: Any, field: str = "participant_id") -> str:
    return name(value, "participant id", field)


def coder_role(value: Any, field: str = "role") -> str:
    if value not in CODER_ROLES:
        raise RowError(field, f"the role {_shown(value)} is not one of {', '.join(CODER_ROLES)}")
    return str(value)


def whole(value: Any, what: str, field: str, least: int = 0) -> int:
    """A whole number from ``least`` to :data:`MAX_NUMBER` (stored as an integer)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise RowError(field, f"the {what} {_shown(value)} is not a whole number")
    if not least <= value <= MAX_NUMBER:
        raise RowError(field, f"the {what} {value} is not from {least} to {MAX_NUMBER:,}")
    return value


def turn_position(value: Any, field: str = "position") -> int:
    """A turn's position: 1, 2, ... (0 means the whole conversation, which is no turn)."""
    return whole(value, "turn", field, least=1)


def unit_position(value: Any, field: str = "position") -> int:
    """The position of a coded unit: 0 for the whole conversation, else a turn."""
    return whole(value, "turn", field, least=0)


def sentence_number(value: Any, field: str = "sentence") -> int:
    """0 for the whole turn, else a sentence (1, 2, ...)."""
    return whole(value, "sentence", field, least=0)


def text(value: Any, what: str, field: str, *, null: bool = False, blank: bool = True
         ) -> str | None:
    if value is None and null:
        return None
    if not isinstance(value, str):
        raise RowError(field, f"the {what} {_shown(value)} is not text")
    if not blank and not value.strip():
        raise RowError(field, f"the {what} is empty")
    return value


def time(value: Any, what: str, field: str, *, null: bool = True) -> str | None:
    """A time as sense7-coder writes it (ISO 8601 text), or None where allowed."""
    if value is None and null:
        return None
    if not isinstance(value, str):
        raise RowError(field, f"the {what} {_shown(value)} is not a time")
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        raise RowError(field, f"the {what} {_shown(value)} is not a time") from None
    return value


def json_object(value: Any, what: str, field: str) -> str:
    """Attributes: a JSON object as text."""
    if value == "{}":  # most rows
        return value
    try:
        ok = isinstance(value, str) and isinstance(json.loads(value), dict)
    except (ValueError, RecursionError):
        ok = False
    if not ok:
        raise RowError(field, f"the {what} {_shown(value)} are not a JSON object")
    return str(value)


def time_offset(value: Any, field: str = "time_offset") -> float | int | None:
    """Seconds since the conversation began: a finite number, or None."""
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise RowError(field, f"the time offset {_shown(value)} is not a finite number")
    return value


# -- rows --------------------------------------------------------------------------------------

def coder(name_: Any, role: Any, created_at: Any) -> None:
    coder_name(name_, "name")
    coder_role(role)
    time(created_at, "creation time", "created_at")


def participant(pid: Any, attributes: Any) -> None:
    participant_id(pid)
    json_object(attributes, "attributes", "attributes")


def conversation(cid: Any, participant: Any, model: Any, topic: Any, source: Any,
                 attributes: Any, n_turns: Any, imported_at: Any, *, turns: int) -> None:
    """A conversation row; ``turns``: how many turns it has (``n_turns`` must say so)."""
    conversation_id(cid)
    if participant is not None:
        participant_id(participant)
    for value, what in ((model, "model"), (topic, "topic"), (source, "source")):
        text(value, what, what, null=True)
    json_object(attributes, "attributes", "attributes")
    count = whole(n_turns, "turn count", "n_turns")
    if count != turns:
        raise RowError("n_turns", f"the turn count {count} is not the number of its turns "
                       f"({turns})")
    time(imported_at, "import time", "imported_at")


def turn(cid: Any, position: Any, role: Any, speaker: Any, text_: Any, offset: Any,
         comment: Any, attributes: Any) -> None:
    conversation_id(cid)
    turn_position(position)
    if role not in TURN_ROLES:
        raise RowError("role", f"the role {_shown(role)} is not one of {', '.join(TURN_ROLES)}")
    text(speaker, "speaker", "speaker", null=True)
    text(text_, "text", "text")
    time_offset(offset)
    text(comment, "comment", "comment", null=True)
    json_object(attributes, "attributes", "attributes")


def rating_value(value: Any, field: str = "value") -> int | None:
    """A user's rating: 1..5, or None (not applicable)."""
    low, high = RATING_SCALE
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RowError(field, f"the rating {_shown(value)} is not from {low} to {high}")
    return value


def user_rating(cid: Any, position: Any, key: Any, value: Any) -> None:
    conversation_id(cid)
    turn_position(position)
    if key not in RATING_KEYS:
        raise RowError("rating", f"{_shown(key)} is not one of the users' ratings "
                       f"({', '.join(RATING_KEYS)})")
    rating_value(value)


def sentence(cid: Any, position: Any, number: Any, start: Any, end: Any, *,
             text_length: int) -> None:
    """A sentence of a turn whose text has ``text_length`` characters."""
    conversation_id(cid)
    turn_position(position)
    whole(number, "sentence", "sentence", least=1)
    first = whole(start, "start", "start")
    last = whole(end, "end", "end")
    if not first <= last <= text_length:
        raise RowError("end", f"the sentence's characters {first} to {last} are not within its "
                       f"turn's text ({text_length} characters)")


def coding_key(coder_: Any, cid: Any, position: Any, number: Any, code: Any) -> None:
    """Whose value of which code on which unit (the value is checked against the code)."""
    coder_name(coder_)
    conversation_id(cid)
    unit_position(position)
    sentence_number(number)
    text(code, "code", "code", blank=False)


def span_offsets(start: Any, end: Any, *, text_length: int) -> tuple[int, int]:
    """A span's offsets: code points into its turn's text (``text_length`` of them), end
    exclusive, so 0 <= start < end <= text_length."""
    first = whole(start, "span start", "start")
    last = whole(end, "span end", "end")
    if first >= last:
        raise RowError("end", f"the span ends at {last}, not after its start {first}")
    if last > text_length:
        raise RowError("end", f"the span {first}-{last} ends outside its turn's text "
                       f"({text_length} characters)")
    return first, last


def span(coder_: Any, cid: Any, position: Any, start: Any, end: Any, code: Any, memo_: Any,
         *, text_length: int) -> tuple[int, int]:
    """A coded span of a turn whose text has ``text_length`` characters (its value is
    checked against its code, and the code's unit, by the project); the offsets."""
    coder_name(coder_)
    conversation_id(cid)
    turn_position(position)
    text(code, "code", "code", blank=False)
    text(memo_, "memo", "memo")
    return span_offsets(start, end, text_length=text_length)


def span_provenance(source: Any, blind: Any, origin: Any) -> None:
    """How a span was made, as a project file holds it."""
    text(source, "source", "source", blank=False)
    if isinstance(blind, bool) or blind not in (0, 1):
        raise RowError("blind", f"blind is {_shown(blind)}, not 0 or 1")
    if origin is not None:
        name(origin, "origin", "origin")


def memo(coder_: Any, cid: Any, position: Any, number: Any, text_: Any,
         updated_at: Any) -> None:
    coder_name(coder_)
    conversation_id(cid)
    unit_position(position)
    sentence_number(number)
    text(text_, "memo", "text", blank=False)
    time(updated_at, "update time", "updated_at")


def done_mark(coder_: Any, cid: Any, position: Any, done: Any, updated_at: Any) -> None:
    coder_name(coder_)
    conversation_id(cid)
    turn_position(position)
    if isinstance(done, bool) or done not in (0, 1):
        raise RowError("done", f"done is {_shown(done)}, not 0 or 1")
    time(updated_at, "update time", "updated_at")


def consensus(cid: Any, position: Any, number: Any, code: Any, adjudicator: Any,
              rationale: Any, decided_at: Any) -> None:
    conversation_id(cid)
    unit_position(position)
    sentence_number(number)
    text(code, "code", "code", blank=False)
    if adjudicator is not None:
        coder_name(adjudicator, "adjudicator")
    text(rationale, "rationale", "rationale")
    time(decided_at, "decision time", "decided_at")


#: the longest rationale on a value (a reason, not a memo)
RATIONALE_CHARS = 500


def value_rationale(coder_: Any, cid: Any, position: Any, number: Any, code: Any, text_: Any,
                    updated_at: Any) -> None:
    """A coder's rationale of one value, as :func:`..project.rationales.set_rationale`
    stores it: one trimmed line of text, at most :data:`RATIONALE_CHARS` characters."""
    coding_key(coder_, cid, position, number, code)
    shown = str(text(text_, "rationale", "text", blank=False))
    if shown != shown.strip():
        raise RowError("text", "the rationale is not trimmed (spaces at its ends)")
    if len(shown) > RATIONALE_CHARS:
        raise RowError("text", f"a rationale has at most {RATIONALE_CHARS} characters (this "
                       f"one {len(shown):,})")
    odd = odd_character(shown)
    if odd is not None:
        raise RowError("text", f"the rationale holds {odd} (line breaks, control or "
                       "invisible characters)")
    time(updated_at, "update time", "updated_at")


def assignment(coder_: Any, cid: Any, overlap: Any, order: Any, assigned_at: Any) -> None:
    coder_name(coder_)
    conversation_id(cid)
    if isinstance(overlap, bool) or overlap not in (0, 1):
        raise RowError("overlap", f"overlap is {_shown(overlap)}, not 0 or 1")
    whole(order, "order", "ord")
    time(assigned_at, "assignment time", "assigned_at")


def _plain(value: Any, what: str) -> None:
    """A history field: NULL, text or a finite number -- never bytes."""
    if value is None or isinstance(value, str):
        return
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return
    raise RowError(what, f"the {what} {_shown(value)} is not text or a number")


def history(at: Any, coder_: Any, action: Any, kind: Any, cid: Any, position: Any,
            number: Any, code: Any, before: Any, after: Any, source: Any, actor: Any,
            origin: Any) -> None:
    """One history event. ``origin``: None for an event recorded in this file, else the
    name of the file it was first recorded in -- never empty."""
    time(at, "event time", "at", null=False)
    if action not in HISTORY_ACTIONS:
        raise RowError("action", f"the action {_shown(action)} is not one of "
                       f"{', '.join(HISTORY_ACTIONS)}")
    if kind not in HISTORY_KINDS:
        raise RowError("kind", f"the kind {_shown(kind)} is not one of "
                       f"{', '.join(HISTORY_KINDS)}")
    if coder_ is not None:
        coder_name(coder_)
    if cid is not None:
        conversation_id(cid)
    if position is not None:
        unit_position(position)
    if number is not None:
        sentence_number(number)
    text(code, "code", "code", null=True)
    for value, what in ((before, "before"), (after, "after")):
        _plain(value, what)
    text(source, "source", "source", null=True)
    text(actor, "actor", "actor", null=True)
    if origin is not None:  # None: an event of the file itself (a merge names the file)
        name(origin, "origin", "origin")


#: a model's suggestion: ok (a value was read) or no_answer (none could be)
SUGGESTION_STATUSES = ("ok", "no_answer")
#: the most characters of a model's rationale or kept reply
MAX_REPLY_CHARS = 100_000


def suggestion(status: Any, rationale: Any, reply: Any, spread: Any) -> None:
    """A model's suggestion apart from its value (which its code checks, as a coder's):
    a known status, a rationale and kept reply of text, a finite spread or none."""
    if status not in SUGGESTION_STATUSES:
        raise RowError("status", f"the status {_shown(status)} is not one of "
                                 f"{', '.join(SUGGESTION_STATUSES)}")
    for field, value in (("rationale", rationale), ("reply", reply)):
        if value is None and field == "reply":
            continue
        if not isinstance(value, str):
            raise RowError(field, f"the {field} {_shown(value)} is not text")
        if len(value) > MAX_REPLY_CHARS:
            raise RowError(field, f"the {field} has {len(value):,} characters "
                                  f"(at most {MAX_REPLY_CHARS:,})")
    if spread is not None and (isinstance(spread, bool) or not isinstance(spread, int | float)
                               or spread != spread or abs(spread) > 1e15):
        raise RowError("spread", f"the spread {_shown(spread)} is not a number")

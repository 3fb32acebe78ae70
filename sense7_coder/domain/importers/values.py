"""The values of a record as read from a file: ratings, numbers, attribute values, the
text shown of them in messages, and the errors a record raises (the reader adds the file).

Pure Python; no Qt, no SQL.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..errors import Hint
from ..models import NA_LABELS, SCALE_LABELS
from ..rows import odd_character


class RecordError(Exception):
    """A problem inside one record (a conversation, a message); the reader adds the file."""

    def __init__(self, message: str, where: str = "", field: str | None = None,
                 hint: Hint | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.field = field
        self.hint = hint


class HintedValueError(ValueError):
    """A value a converter refuses, with the way out (kept when it becomes an InputError)."""

    def __init__(self, message: str, hint: Hint | None = None):
        super().__init__(message)
        self.hint = hint


class _NoValues(dict[str, Any]):
    """The empty ratings (or attributes) that turns without any share: one object for a
    million turns instead of a million empty dicts. Changing it is refused; a reader that
    adds values gives the turn a dict of its own."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("shared empty values: give the turn a dict of its own to change it")

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = setdefault = pop = popitem = clear = _refuse


#: the empty mapping shared by the turns that hold no value of a kind
NO_VALUES: dict[str, Any] = _NoValues()


# -- ratings --------------------------------------------------------------------------------------


class _Absent:
    """Marker: the cell is empty, i.e. the turn was not rated on that key."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()
RATING_HELP = "give 1-5, a label very poor/poor/neutral/good/very good, or unknown"


def parse_rating(raw: Any) -> int | None | _Absent:
    """One rating cell: empty -> ABSENT; unknown/NA -> None; label or 1..5 -> int.

    Raises ValueError naming the bad value.
    """
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return ABSENT
    if isinstance(raw, bool):
        raise ValueError(f"'{raw}' is not a rating; {RATING_HELP}")
    if isinstance(raw, int | float):
        if isinstance(raw, int) and not -10**6 < raw < 10**6:
            raise ValueError(f"a number of {len(str(abs(raw))):,} digits is not a rating; "
                             f"{RATING_HELP}")
        number: float | None = float(raw)
        text = str(raw)
    else:
        text = str(raw).strip()
        if text == "":
            return ABSENT
        key = " ".join(text.casefold().replace("_", " ").split())
        if key in SCALE_LABELS:
            return SCALE_LABELS[key]
        if key in NA_LABELS or key in {"none", "not rated", "null"}:
            return None
        try:
            number = float(text)
        except ValueError:
            number = None
    if number is not None and number.is_integer() and 1 <= number <= 5:
        return int(number)
    raise ValueError(f"'{shown(text)}' is not a rating; {RATING_HELP}")


#: column/key names that hold each rating, besides the key itself and ``rating_<key>``
RATING_ALIASES: dict[str, tuple[str, ...]] = {"overall": ("empathyoverall", "empathy_overall")}


def rating_candidates(key: str) -> tuple[str, ...]:
    return (key, f"rating_{key}", *RATING_ALIASES.get(key, ()))


# -- values -----------------------------------------------------------------------------------------

_INT_RE = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_FLOAT_RE = re.compile(r"-?(0|[1-9][0-9]*)\.[0-9]+")


def coerce_scalar(text: str) -> Any:
    """A table cell as an attribute value: whole numbers and decimals become numbers.

    Numbers with leading zeros (``007``) stay text, so identifiers survive.
    """
    if _INT_RE.fullmatch(text):
        return int(text)
    if _FLOAT_RE.fullmatch(text):
        return float(text)
    if text in ("TRUE", "True", "true"):
        return True
    if text in ("FALSE", "False", "false"):
        return False
    return text


def parse_number(raw: Any) -> float | None:
    """A time offset or position: empty -> None; a number -> float; else ValueError."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return None
    if isinstance(raw, bool):
        raise ValueError(f"'{raw}' is not a number")
    if isinstance(raw, int | float):
        try:
            value = float(raw)
        except OverflowError:
            raise ValueError(f"a number of {len(str(abs(raw))):,} digits is too large") from None
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"'{raw}' is not a number")
        return value
    text = str(raw).strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"'{shown(text)}' is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"'{shown(text)}' is not a number")
    return value


# -- text checks ------------------------------------------------------------------------------------

#: control characters, and the zero-width and direction characters, written as escapes
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                      r"\u2060-\u206f\ufeff\ufff9-\ufffb]")


def control_character(text: str) -> str | None:
    """The first control, zero-width or direction character of ``text`` as ``U+0007``,
    or None (:func:`..rows.odd_character`).

    Identifiers (conversation ids, coder names) must not hold them: they cannot be told
    apart on screen, and a line break would split a row of every export."""
    return odd_character(text)


def shown(text: str, limit: int = 60) -> str:
    """``text`` for an error message: shortened, control characters as escapes (``\\t``)."""
    if len(text) > limit:
        return f"{escaped(text[:limit])}... ({len(text):,} characters)"
    return escaped(text)


def escaped(text: str) -> str:
    """``text`` with its control characters written as escapes, so it stays on one line."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


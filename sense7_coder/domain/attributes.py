"""Attributes of conversations and turns as a researcher sees and edits them: the value a
typed text stands for, the check every edited attribute passes, and the export columns
that carry turn attributes."""

from __future__ import annotations

import math
from typing import Any

from . import rows

#: attributes kept in their own columns (the rest live in the attributes object)
COLUMN_NAMES = ("participant_id", "model", "topic")
#: an attribute's value longer than this is refused (a value is a label, not a text)
MAX_VALUE_CHARS = 2000
#: what a turn attribute's column is called in an export
TURN_PREFIX = "turn_"


def typed_value(text: str, before: Any = None) -> Any:
    """The value a text typed into the sheet stands for: empty removes the attribute;
    a number stays a number where the attribute held one (or the text is plainly one);
    ``true``/``false`` stay truth values where the attribute held one."""
    text = text.strip()
    if not text:
        return None
    if isinstance(before, bool) and text.casefold() in ("true", "false"):
        return text.casefold() == "true"
    if not isinstance(before, str):
        try:
            number = float(text)
        except ValueError:
            return text
        if math.isfinite(number):
            return int(number) if number.is_integer() and "." not in text else number
    return text


def checked(name: Any, value: Any) -> tuple[str, Any]:
    """The attribute ``name`` = ``value`` as it may be stored (``value`` None removes it);
    :class:`rows.RowError` naming the field otherwise."""
    key = rows.name(name, "attribute name", "name")
    if value is None:
        return key, None
    if key == "participant_id":
        return key, rows.participant_id(value, "value")
    if isinstance(value, bool):
        return key, value
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise rows.RowError("value", f"the value of {key!r} is not a finite number")
        return key, value
    if not isinstance(value, str):
        raise rows.RowError("value", f"the value of {key!r} must be text, a number or "
                            "true/false")
    if len(value) > MAX_VALUE_CHARS:
        raise rows.RowError("value", f"the value of {key!r} has {len(value):,} characters "
                            f"(at most {MAX_VALUE_CHARS:,})")
    odd = rows.odd_character(value)
    if odd is not None:
        raise rows.RowError("value", f"the value of {key!r} holds the character {odd}")
    return key, value


def shown(value: Any) -> str:
    """An attribute's value as a cell shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict | list):
        import json

        return json.dumps(value, ensure_ascii=False)
    return str(value)


def turn_column(name: str, taken: set[str]) -> str:
    """The export column of turn attribute ``name`` (``turn_strategy``), clear of
    ``taken``."""
    column = TURN_PREFIX + name
    while column in taken:
        column = TURN_PREFIX + column
    return column


#: how the names of attributes that hold the users' own judgments begin, whatever the
#: importer (a rating, feedback, a survey or post-task score)
JUDGMENT_PREFIXES = ("rating", "feedback", "survey_", "posttask", "empathyoverall",
                     "empathy_overall", "user_rating")


def looks_like_judgment(name: str) -> bool:
    """An attribute named as the users' own judgment (``rating_overall``, ``feedback``,
    ``survey_seeker_empathy``, ``PostTaskEmpathy_Overall``, or a rating key such as
    ``overall``): hidden from blind coders unless the lead shows it."""
    from .models import RATING_KEYS

    folded = name.strip().casefold()
    return folded in RATING_KEYS or folded.startswith(JUDGMENT_PREFIXES)


def judgment_names(conversations: Any) -> set[str]:
    """The attributes of these conversations and their turns named as judgments."""
    names: set[str] = set()
    for conv in conversations:
        names.update(k for k in conv.attributes if looks_like_judgment(k))
        for turn in conv.turns:
            if turn.attributes:
                names.update(k for k in turn.attributes if looks_like_judgment(k))
    return names

"""How the window words an error's hint: the control to use, in the window's words, after
the advice (the command line has its own words in ``cli.wording``)."""

from __future__ import annotations

from collections.abc import Callable

from ..domain.errors import Hint, Sense7Error

#: where each setting is made in the window, by the hint's option; a setting the window has
#: no control for is worded by its advice alone
PLACES: dict[str, Callable[[Hint], str]] = {
    "roles": lambda h: "on the Speakers tab",
    "map": lambda h: f"choose the column for {h.value.partition('=')[0] or 'it'} on the "
                     "Columns tab",
    "format": lambda h: "choose it in the Format list",
    "encoding": lambda h: f"the window reads UTF-8 only; the command line's import reads "
                          f"{h.value or 'other encodings'}",
    "to": lambda h: "choose the file type when you save",
    "codes": lambda h: "tick them in the Codes list",
    "coders": lambda h: "tick them in the Coders list",
    "as": lambda h: "choose who you are with Coding › Switch coder",
    "role": lambda h: "in the coder dialog (Coding › Switch coder)",
    "on-conflict": lambda h: "choose what to keep in the Merge dialog",
}


def hint_text(hint: Hint) -> str:
    """A hint in the window's words: the advice, then where to act in brackets."""
    place = PLACES.get(hint.option)
    if place is None:
        return hint.advice or f"change the {hint.option} setting"
    where = place(hint)
    return f"{hint.advice} ({where})" if hint.advice else where


def error_text(error: BaseException) -> str:
    """An error's message with its hint in the window's words (other errors as ``str``)."""
    return error.worded(hint_text) if isinstance(error, Sense7Error) else str(error)

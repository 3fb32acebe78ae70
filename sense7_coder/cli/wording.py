"""How the command line words an error's hint: the option to give, as typed
(``--roles Bob=user``), after the advice in words."""

from __future__ import annotations

from ..domain.errors import Hint, Sense7Error


def option_text(hint: Hint) -> str:
    """The option a hint points at, as typed on the command line (``a|b|c``: a choice of
    values, shown as the help shows choices)."""
    import shlex

    flag = f"--{hint.option}"
    if not hint.value:
        return flag
    choices = "|" in hint.value and all(v and shlex.quote(v) == v for v in hint.value.split("|"))
    return f"{flag} {hint.value if choices else shlex.quote(hint.value)}"


def hint_text(hint: Hint) -> str:
    """A hint in the command line's words: the advice, then the option in brackets."""
    return f"{hint.advice} ({option_text(hint)})" if hint.advice else f"give {option_text(hint)}"


def error_text(error: Sense7Error) -> str:
    """An error's message with its hint in the command line's words."""
    return error.worded(hint_text)

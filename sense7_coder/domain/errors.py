"""Errors that reach the user as one clear message (no traceback).

Every error names the file, and where it can, the line or row and the field, so that a
researcher can open the file and fix it.

A way out that a front end offers (an option of the command line, a control of the window)
travels as a structured :class:`Hint`, never as a command-line word in the message: the
command line words it ``--roles Bob=user``, the window "on the Speakers tab", and ``str()``
gives the plain advice alone (:meth:`Sense7Error.worded`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Hint:
    """A way out of an error, for each front end to word its own way.

    ``option`` names the setting as the command line's option does, without dashes
    (``roles``, ``map``, ``format``, ``encoding``, ``to``, ``codes``, ``coders``, ``as``,
    ``role``, ``on-conflict``); ``value`` is what to give it (``Bob=user``, ``utf-16``; empty
    when any value will do); ``advice`` says what to do in words that fit any front end.
    """

    option: str
    value: str = ""
    advice: str = ""


def plain_advice(hint: Hint) -> str:
    """A hint in words free of any front end: its advice, else which setting to change."""
    return hint.advice or f"change the {hint.option} setting"


class Sense7Error(Exception):
    """Base class for errors shown to the user as a single message.

    ``hint`` (keyword only) is a :class:`Hint`; ``str()`` appends its plain advice,
    :meth:`worded` the words a front end gives it.
    """

    hint: Hint | None = None

    def __init__(self, *args: object, hint: Hint | None = None) -> None:
        super().__init__(*args)
        self.hint = hint

    def plain(self) -> str:
        """The message without its hint."""
        return super().__str__()

    def worded(self, say: Callable[[Hint], str] = plain_advice) -> str:
        """The message, and its hint as ``say`` words it."""
        text = self.plain()
        return text if self.hint is None else _one_line(f"{text}; {say(self.hint)}")

    def __str__(self) -> str:
        return self.worded()


@dataclass
class InputError(Sense7Error):
    """Bad input: a file, row/line and field that could not be read.

    ``location`` is free text such as ``"line 12"`` or ``"row 4"`` or ``"sheet Messages, row 9"``.
    """

    file: str
    message: str
    location: str | None = None
    field: str | None = None
    hint: Hint | None = None

    def plain(self) -> str:
        parts = [self.file]
        if self.location:
            parts.append(self.location)
        if self.field:
            parts.append(f"field '{self.field}'")
        return _one_line(f"{', '.join(parts)}: {self.message}")


_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line(text: str) -> str:
    """Control characters (line breaks above all) quoted from a file, written as escapes,
    so that the message stays one line."""
    return _LINE_BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class ProjectError(Sense7Error):
    """A project file that cannot be opened or changed (damaged, foreign, too new, locked)."""


class CodebookError(Sense7Error):
    """A codebook file or code definition that does not validate."""


class Cancelled(Sense7Error):
    """Raised inside a job when the user pressed Cancel; nothing was written."""

    def __init__(self) -> None:
        super().__init__("cancelled; nothing was changed")

"""Errors that reach the user as one clear message (no traceback).

Every error names the file, and where it can, the line or row and the field, so that a
researcher can open the file and fix it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class Sense7Error(Exception):
    """Base class for errors shown to the user as a single message."""


@dataclass
class InputError(Sense7Error):
    """Bad input: a file, row/line and field that could not be read.

    ``location`` is free text such as ``"line 12"`` or ``"row 4"`` or ``"sheet Messages, row 9"``.
    """

    file: str
    message: str
    location: str | None = None
    field: str | None = None

    def __str__(self) -> str:
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

"""One way to give a list on the command line: ``--codes a,b --codes c`` everywhere, and
``--codes a b c`` too where an option takes several words (``nargs="+"``)."""

from __future__ import annotations

import argparse
from typing import Any


def names(text: str) -> list[str]:
    """The comma-separated names of ``text``, without blanks."""
    return [s.strip() for s in text.split(",") if s.strip()]


class ListAction(argparse.Action):
    """``--codes a,b --codes c`` -> ['a', 'b', 'c']; with ``nargs="+"`` also
    ``--codes a b,c`` -> ['a', 'b', 'c']."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        for value in values if isinstance(values, list) else [values]:
            items += names(str(value))
        setattr(namespace, self.dest, items)

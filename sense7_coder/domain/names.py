"""Lists of names (coders, raters) as one line of text."""

from __future__ import annotations

from collections.abc import Sequence

#: names (or values) listed one by one up to this many; more are summed up
MOST_LISTED = 6


def names_text(names: Sequence[str], noun: str = "", most: int = MOST_LISTED) -> str:
    """All of a few names, else the first three and how many ('a, b, c, ... (3,000
    raters)'): a crowd's 3,000 names made one line of 60,000 characters."""
    if len(names) <= most:
        return ", ".join(names)
    return f"{', '.join(names[:3])}, ... ({len(names):,}{' ' + noun if noun else ''})"

"""The users' ratings checked for the target of a level, before a predictor trains on them
or is evaluated against them.

:class:`MissingTarget` is a structured refusal: front ends word it in their own terms (the
command line names its options; this layer names none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..domain.errors import ProjectError
from ..domain.models import DIMENSIONS


class MissingTarget(ProjectError):
    """The users' ratings lack what the target of ``level`` is made of.

    ``rated`` holds the rating keys the users gave at least once; ``overall_turns`` the
    number of turns with an overall rating; ``other_level`` the level whose target the data
    do hold (None when neither)."""

    def __init__(self, level: str, rated: Sequence[str], overall_turns: int) -> None:
        self.level = level
        self.rated = sorted(rated)
        self.overall_turns = overall_turns
        self.other_level: str | None = None
        if level == "conversation" and overall_turns:
            self.other_level = "turn"
        if not rated:
            text = "the users rated no assistant turn in the selected conversations: there is "\
                   "nothing to train on or evaluate against"
        elif level == "conversation":
            text = (f"the conversation-level target is the mean of the seven dimensions "
                    f"({', '.join(DIMENSIONS)}) over the assistant turns, and the users rated "
                    f"only {', '.join(self.rated)}"
                    + (f" ({overall_turns} turns); evaluate at turn level, against the "
                       "overall rating" if overall_turns else ""))
        else:
            text = (f"the turn-level target is the user's overall rating of the turn, and the "
                    f"users rated only {', '.join(self.rated)}")
        super().__init__(text)


def require_target(turns: Sequence[Any], level: str) -> None:
    """Raise :class:`MissingTarget` unless some of ``turns`` (``RatedTurn``) carry the
    target of ``level``."""
    rated = {k for t in turns for k, v in t.ratings.items() if v is not None}
    overall = sum(1 for t in turns if t.ratings.get("overall") is not None)
    has = bool(rated & set(DIMENSIONS)) if level == "conversation" else overall > 0
    if not has:
        raise MissingTarget(level, sorted(rated), overall)

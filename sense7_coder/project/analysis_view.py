"""What the analysis windows (agreement, reconciliation) ask of a project, as plain functions.

No Qt here. The agreement, reconciliation, export and merge work itself lives in
:mod:`.agreement`, :mod:`.reconcile`, :mod:`.export` and :mod:`.merge`; these are the few
look-ups the windows need besides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..domain.models import Conversation, Unit
from ..store import codings as store_codings
from ..store import conversations as store_conv
from .cells import ConsensusCell
from .project import Project
from .undo import Command


def conversation_with_sentences(
    project: Project, conversation_id: str
) -> tuple[Conversation | None, dict[int, list[tuple[int, int]]]]:
    """A conversation and its stored sentence spans (position -> [(start, end)])."""
    conversation = project.conversation(conversation_id)
    if conversation is None:
        return None, {}
    return conversation, store_conv.sentences_of(project.db, conversation_id)


def consensus_now(project: Project, keys: Iterable[tuple[str, int, int, str]]
                  ) -> list[tuple[tuple[str, int, int, str], dict[str, Any] | None]]:
    """The stored consensus decision of each (cid, pos, sent, code): [(key, decision or
    None)], read from the project (what a view shows after a change names those units)."""
    return [(key, store_codings.get_consensus(project.db, Unit(*key[:3]), key[3]))
            for key in keys]


def only_consensus(cmd: Command) -> bool:
    """Does the command change nothing but consensus decisions?"""
    return bool(cmd.cells) and all(isinstance(c, ConsensusCell) for c in cmd.cells)


def adjudicators(project: Project) -> list[str]:
    """Names of the project's adjudicators, then its other coders (for choosing who decides)."""
    people = project.coders()
    first = [c["name"] for c in people if c["role"] == "adjudicator"]
    return first + [c["name"] for c in people if c["role"] != "adjudicator"]


def attribute_names(project: Project) -> list[str]:
    """The conversation attributes a filter can ask for (PreTaskDesiredEmpathy, ...)."""
    return store_conv.attribute_names(project.db)


def attribute_choices(project: Project, name: str, limit: int = 500) -> list[str]:
    """Values one conversation attribute takes, as text; numbers in numeric order."""

    def order(text: str) -> tuple[int, float, str]:
        try:
            return 0, float(text), text
        except ValueError:
            return 1, 0.0, text

    return sorted(store_conv.attribute_values(project.db, name, limit=limit), key=order)

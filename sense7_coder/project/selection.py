"""What a person chose to look at: one value every analysis, export and query takes.

A :class:`Selection` names the codes, the coders, the conversations (by assistant,
participant, attribute or id), which of the coders' values (blind or final) and which
codebook version's codings, and which other raters join the coders (the users' own
ratings, the consensus, stored predictors, the models' suggestions). Empty lists mean
"all". How an operation computes over it is its own value: agreement's is
:class:`sense7_coder.domain.agreement_settings.AgreementSettings`; an export's kind,
format and columns are the arguments of :func:`sense7_coder.project.export.export_project`.

The front ends build one (the command line from its filter options, the window from
``ui/analysis/filters.py``) and pass it down unchanged; nothing below edits it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..domain.agreement_settings import VALUES_DEFAULT
from ..store.conversations import ConversationFilter


@dataclass(frozen=True)
class Selection:
    """The codes, coders, conversations, values and raters of one request (empty: all)."""

    codes: Sequence[str] = ()
    coders: Sequence[str] = ()
    #: conversations with these assistants
    models: Sequence[str] = ()
    #: conversations of these participants
    participants: Sequence[str] = ()
    #: conversations whose attribute NAME equals VALUE, for every pair
    attributes: Mapping[str, str] = field(default_factory=dict, hash=False)
    conversation_ids: Sequence[str] = ()
    #: 'blind': each coder's value as set before the turn was revealed to them (a change
    #: made after the reveal is left out); 'final': with those changes
    values: str = VALUES_DEFAULT
    #: only the codings whose value was set under this codebook version (None: all)
    codebook_version: int | None = None
    #: the users' own ratings join as the rater 'users'
    include_users: bool = False
    #: the adjudicated consensus joins as the rater 'consensus'
    include_consensus: bool = True
    #: stored predictors whose turn-level scores join as raters ("model:<name>") of the
    #: codes that correspond to the users' overall rating
    predictors: Sequence[str] = ()
    #: a model's suggestions join as raters "model:<name>" of every code they suggest
    #: (each unit's latest suggestion of the model): all models by default, these by name,
    #: none with ``include_models`` False
    model_raters: Sequence[str] = ()
    include_models: bool = True

    def __post_init__(self) -> None:
        # a value, not a view of the caller's lists: later edits of those change nothing;
        # one name given as text is that name, not its letters
        for name in ("codes", "coders", "models", "participants", "conversation_ids",
                     "predictors", "model_raters"):
            given = getattr(self, name)
            object.__setattr__(self, name, (given,) if isinstance(given, str) else tuple(given))
        object.__setattr__(self, "attributes", dict(self.attributes))

    def conversation_filter(self) -> ConversationFilter:
        """The conversations chosen, as the store reads them."""
        return ConversationFilter(
            models=list(self.models),
            participants=list(self.participants),
            attributes=dict(self.attributes) or None,
            conversation_ids=list(self.conversation_ids),
        )

    @classmethod
    def of_conversations(cls, conversations: ConversationFilter | None, **parts: Any
                         ) -> Selection:
        """A selection of the conversations of ``conversations`` (None: all) and ``parts``
        (codes, coders, values, ...)."""
        f = conversations or ConversationFilter()
        return replace(cls(models=f.models, participants=f.participants,
                           attributes=f.attributes or {}, conversation_ids=f.conversation_ids),
                       **parts)

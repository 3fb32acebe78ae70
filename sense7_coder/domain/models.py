"""Domain objects shared by importers, the store, the project facade and the GUI.

Identity is stable across files so that coders' projects can be merged:

* a conversation is identified by ``conversation_id`` (its id in the source file);
* a turn by ``(conversation_id, position)``, ``position`` being the 1-based index of the
  message in its conversation counting every message;
* a sentence by ``(conversation_id, position, sentence)``, ``sentence`` 1-based;
* a code by its ``key``; a coder by their ``name``.

A *unit* of coding uses position 0 for conversation-level codes and sentence 0 for
turn-level (or conversation-level) codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Roles a message can have. Importers map speaker names onto these.
ROLES = ("user", "assistant", "system")

#: turn roles a code's ``applies_to`` covers
ROLES_OF = {
    "assistant": ("assistant",),
    "user": ("user",),
    "any": ("user", "assistant", "system"),
}

#: Keys of the users' own per-turn ratings (SENSE-7): overall plus the seven dimensions.
DIMENSIONS = (
    "affective",
    "cognitive",
    "response",
    "prosocial",
    "interest",
    "contextual",
    "relational",
)
RATING_KEYS = ("overall", *DIMENSIONS)

#: SENSE-7 release text labels -> scale value; ``unknown`` means not applicable (missing).
SCALE_LABELS = {"very poor": 1, "poor": 2, "neutral": 3, "good": 4, "very good": 5}
NA_LABELS = {"unknown", "n/a", "na", "not applicable", ""}

Value = int | str | None  # a coded value; None = not applicable


@dataclass(slots=True)
class Turn:
    """One message of a conversation (slots: an import may hold a million of them)."""

    position: int
    role: str
    text: str
    speaker: str | None = None
    time_offset: float | None = None
    #: the user's own ratings of this turn: key in RATING_KEYS -> 1..5, or None for
    #: "not applicable"; a key that is absent was not rated at all.
    ratings: dict[str, int | None] = field(default_factory=dict)
    #: the user's free-text remark on this turn
    comment: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Conversation:
    conversation_id: str
    turns: list[Turn] = field(default_factory=list)
    participant_id: str | None = None
    model: str | None = None
    topic: str | None = None
    source: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Participant:
    participant_id: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Unit:
    """What a coding applies to. position 0 = whole conversation; sentence 0 = whole turn."""

    conversation_id: str
    position: int = 0
    sentence: int = 0


@dataclass
class Coding:
    """One coder's value for one code on one unit. ``value`` None = not applicable."""

    coder: str
    unit: Unit
    code: str
    value: Value


@dataclass
class Sentence:
    conversation_id: str
    position: int
    sentence: int  # 1-based
    start: int  # character offsets into the turn's text
    end: int


@dataclass
class ImportBatch:
    """What an importer read from one file: everything lands together or not at all."""

    source: str
    conversations: list[Conversation] = field(default_factory=list)
    participants: list[Participant] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped_rows: int = 0
    #: attributes (of conversations or turns) the file holds as the users' own judgments
    #: (ratings, feedback, survey scores): hidden from blind coders unless the lead shows them
    judgments: set[str] = field(default_factory=set)

"""What the coding workspace asks of a project, as plain functions (no Qt here).

The window keeps a cursor on (conversation, turn, sentence); these functions answer which
codes apply there, which turns are codable, what other coders and the users said about a
turn and whether blind coding still hides it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domain.codebook.codes import TURN_ROLES, Code, Codebook
from ..domain.models import Conversation, Turn
from ..store import conversations as store_conv
from ..store import views as store_views
from ..store.conversations import ConversationFilter as ConversationFilter  # re-exported
from .project import Project

ALL_ROLES = TURN_ROLES
STATUSES = ("not started", "in progress", "done")


def _roles(applies_to: str) -> tuple[str, ...]:
    return ALL_ROLES if applies_to == "any" else (applies_to,)


def codable_roles(codebook: Codebook) -> tuple[str, ...]:
    """Roles of the turns that turn- or sentence-level codes apply to (sorted)."""
    return codebook.codable_roles


def codes_for(codebook: Codebook, unit: str, role: str | None = None) -> list[Code]:
    """Active codes of a unit kind ('turn', 'sentence', 'conversation') that apply to ``role``."""
    out = []
    for code in codebook.active:
        if code.unit != unit:
            continue
        if unit != "conversation" and role is not None and role not in _roles(code.applies_to):
            continue
        out.append(code)
    return out


def codable_positions(conversation: Conversation, codebook: Codebook) -> list[int]:
    """Positions of the turns a coder works through (every turn if no turn codes exist)."""
    roles = codable_roles(codebook)
    if not roles:
        return [t.position for t in conversation.turns]
    return [t.position for t in conversation.turns if t.role in roles]


def turn_at(conversation: Conversation, position: int) -> Turn | None:
    return next((t for t in conversation.turns if t.position == position), None)


def codable_total(project: Project) -> int:
    """How many turns of the project the codebook's turn or sentence codes apply to."""
    roles = codable_roles(project.codebook) or ("assistant",)
    return store_views.codable_turn_count(project.db, roles)


def coder_done(project: Project, coder: str | None = None) -> int:
    """How many of those turns ``coder`` (default: the current coder) has marked done."""
    coder = coder or project.coder
    roles = codable_roles(project.codebook) or ("assistant",)
    return store_views.done_turn_count(project.db, coder, roles) if coder else 0


def conversation_count(project: Project) -> int:
    return store_views.conversation_count(project.db)


@dataclass
class FilterChoices:
    models: list[str]
    participants: list[str]


def filter_choices(project: Project) -> FilterChoices:
    return FilterChoices(
        models=store_conv.distinct_values(project.db, "model"),
        participants=store_conv.distinct_values(project.db, "participant_id"),
    )


# -- the conversation as one coder sees it --------------------------------------------------------

@dataclass
class TurnState:
    """A conversation as the store holds it for the coder (:meth:`Project.turn_state`):
    what the workspace shows, read again whenever a change touches it."""

    #: this coder's values: (position, sentence, code) -> value
    codings: dict[tuple[int, int, str], Any] = field(default_factory=dict)
    #: the turns this coder marked done
    done: set[int] = field(default_factory=set)
    #: this coder's memos: (position, sentence) -> text
    memos: dict[tuple[int, int], str] = field(default_factory=dict)
    #: the other coders' codings (values hidden while blind coding hides them)
    others: list[dict[str, Any]] = field(default_factory=list)
    #: the turns each other coder marked done
    others_done: dict[str, set[int]] = field(default_factory=dict)
    #: the units open to this coder (:meth:`.Sight.is_open`); None: every unit
    open: set[int] | None = None
    #: the units revealed to this coder (:meth:`.Sight.revealed`)
    revealed: set[int] = field(default_factory=set)

    @classmethod
    def read(cls, project: Project, conversation_id: str,
             positions: Collection[int] | None = None) -> TurnState:
        """The state of ``conversation_id`` (``positions``: the codings and others' values
        of those turns only)."""
        s = project.turn_state(conversation_id, positions=positions)
        return cls(codings=s["codings"], done=s["done"], memos=s["memos"],
                   others=s["others"], others_done=s["others_done"], open=s["open"],
                   revealed=s["revealed"])

    def with_turns(self, part: TurnState, positions: Collection[int]) -> TurnState:
        """This state with the codings and others' values of ``positions`` taken from
        ``part`` (read for those turns only); done marks and memos from ``part``."""
        codings = {k: v for k, v in self.codings.items() if k[0] not in positions}
        others = [r for r in self.others if r["position"] not in positions]
        return TurnState(codings={**codings, **part.codings}, done=part.done,
                         memos=part.memos, others=others + part.others,
                         others_done=part.others_done, open=part.open,
                         revealed=part.revealed)


# -- what other coders and the users said, subject to blind coding ------------------------------

def revealed(project: Project, state: TurnState, position: int,
             codable: Sequence[int] = ()) -> bool:
    """May this coder see others' codings and the users' ratings of a unit now? Whether it
    is open to them (:meth:`.Sight.is_open`, as read into ``state``): without blind coding
    always; with it a turn once this coder marked it done, now or before; the whole
    conversation (position 0) once every codable turn of it is. (``codable`` is no longer
    needed: the state knows; kept for callers written against it.)"""
    del project, codable
    return state.open is None or position in state.open


def others_values(
    state: TurnState, position: int, sentence: int, code_key: str
) -> list[tuple[str, Any]]:
    """[(coder, value)] of the other coders for one code on one unit, by coder name."""
    rows = [
        (r["coder"], r["value"])
        for r in state.others
        if r["position"] == position and r["sentence"] == sentence and r["code"] == code_key
    ]
    return sorted(rows, key=lambda r: r[0])


def value_text(code: Code | None, value: Any) -> str:
    """Short text for a value: the level value for ordinal codes, else its label (the
    value itself for a code the codebook no longer has)."""
    if value is None:
        return "n/a"
    if code is None:
        return str(value)
    if code.kind == "ordinal":
        return str(value)
    return code.level_label(value)


def level_counts(code: Code | None, values: Iterable[Any]) -> list[tuple[str, int]]:
    """How many of ``values`` gave each level, as (short text, count), in the scale's
    order, then not applicable, then anything else (how a crowd's values are shown)."""
    counts = Counter(value_text(code, v) for v in values)
    order = [*(value_text(code, v) for v in (code.values if code is not None else ())), "n/a",
             *sorted(counts)]
    return [(t, counts[t]) for t in dict.fromkeys(order) if counts[t]]


# -- the conversation list and sentences (the window reads the store only through these) ----

def conversation_rowids(project: Project, f: ConversationFilter | None = None) -> list[int]:
    """Row ids of the conversations that pass ``f``, in import order (ids only: cheap)."""
    return store_conv.conversation_rowids(project.db, f)


def conversation_rows(project: Project, rowids: Sequence[int]) -> list[dict[str, Any]]:
    """Summary rows for the conversation list, with the current coder's progress."""
    return store_conv.conversation_rows(project.db, rowids, project.coder)


def conversation_index(project: Project, conversation_id: str) -> int | None:
    """The row id of a conversation (None if the project has no such conversation)."""
    return store_conv.conversation_index(project.db, conversation_id)


def sentences_of(project: Project, conversation_id: str) -> dict[int, list[tuple[int, int]]]:
    """Stored sentence spans of a conversation: position -> [(start, end), ...]."""
    return store_conv.sentences_of(project.db, conversation_id)


def assignment_progress(project: Project) -> dict[str, Any] | None:
    """The current coder's assignment (conversations, turns to code, turns done), or None."""
    from ..store import assignments as store_assignments

    coder = project.coder
    if not coder:
        return None
    return next((r for r in store_assignments.progress(project.db) if r["coder"] == coder),
                None)

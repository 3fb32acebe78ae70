"""What one person sees of a project under blind coding: the one place that decides it.

Every reader in ``project/`` and every window asks a :class:`Sight` (``project.sight()``
for the current coder, ``project.sight(name)`` for another) instead of writing its own
condition. The words, as the README's blind-coding section and docs/ARCHITECTURE.md use them:

*Works blind*
    The project codes blind and the person does not lead it (a lead is an adjudicator
    outside a coder package who, where a lead passphrase is set, gave it). Nobody named, on
    a blind project, works blind. Outside blind coding nobody does.

*Open*
    A unit is open to a person when the window shows her everything the file holds of it:
    always for whoever does not work blind; for a blind coder a turn once she marked it
    done, **now or before** (marking it not done again does not take back what she saw),
    and the conversation (position 0) once every codable turn of it is open. Her own
    values, memos, spans and history rows are always hers to see.

*Revealed*
    A unit is revealed to a blind coder when it is open to her and the file showed her
    there what blinding hides: the other coders' values and spans, the users' ratings and
    comment. In the lead's project every open unit is revealed (others' values can arrive
    by a merge at any time, and then show). A coder package holds no other coder's work
    and, when the study codes blind, none of the users' ratings: there a unit is revealed
    only if the package holds such a thing of it (a package made of a project that did
    not code blind keeps the users' ratings). Never revealed to a lead or outside blind
    coding: nothing was hidden.

*Locked*
    A blind coder's value of a revealed unit is locked when the project locks revealed
    turns (the lead's setting, on by default): every write path refuses to change it; with
    the lock off a change is kept beside the blind value, marked as made after the reveal.
    Spans keep no second layer: a blind coder's spans of a revealed turn stay as set.

So a coder who marks a turn done and reopens it keeps seeing what she saw, stays locked
and sees the model's suggestions; inside her blind package she marks a turn done, sees
what the package holds of it (its turn attributes) and may still fix her value, since
nothing the lock protects against was shown to her there. A model's suggestion of a code
on a unit shows to a blind coder only once the unit is revealed and her own value of the
code is set: anything that could anchor a value comes after the value is locked (or, with
the lock off, is kept as a change after the reveal).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any, Protocol

from ..domain.codebook.codes import TURN_ROLES, Codebook
from ..domain.errors import ProjectError
from ..domain.models import Unit
from ..store import codings as store_codings
from ..store import conversations as store_conv
from ..store import sight as store_sight
from .hints import AS_LEAD


class Seen(Protocol):
    """What a sight reads of a project (a :class:`~.project.Project`)."""

    @property
    def db(self) -> Any: ...

    @property
    def codebook(self) -> Codebook: ...

    @property
    def blind_coding(self) -> bool: ...

    @property
    def lock_after_reveal(self) -> bool: ...

    @property
    def hidden_attributes(self) -> Sequence[str]: ...

    @property
    def package_coder(self) -> str | None: ...

    def is_lead(self, name: str | None = None) -> bool: ...

#: what a blind coder's window and command line say of the users' ratings of a unit
RATINGS_SHOWN, RATINGS_HIDDEN, RATINGS_WITHHELD = "shown", "hidden", "withheld"
#: what a turn can hold that blinding hides, in words
HELD_WORDS = (("ratings", "the users' ratings"), ("others", "the other coders' values"),
              ("attributes", "the turn's attributes"))


class Sight:
    """What ``person`` (None: nobody named) sees of ``project``, asked unit by unit.

    Cheap to build; it reads the settings once and each conversation's done marks once,
    so build a new one after a change (``project.sight()`` does)."""

    def __init__(self, project: Seen, person: str | None) -> None:
        self.project = project
        self.person = person
        self.package = project.package_coder is not None
        self.lead = person is not None and project.is_lead(person)
        #: the person codes blind in this project (see the module's words)
        self.works_blind = project.blind_coding and not self.lead
        self._open: dict[str, set[int]] = {}
        self._revealed: dict[str, set[int]] = {}

    # -- the settings behind it ------------------------------------------------------------
    @cached_property
    def lock_on(self) -> bool:
        return self.project.lock_after_reveal

    @cached_property
    def hidden_attributes(self) -> frozenset[str]:
        return frozenset(self.project.hidden_attributes) if self.works_blind else frozenset()

    @cached_property
    def _codable_roles(self) -> tuple[str, ...]:
        return self.project.codebook.codable_roles or TURN_ROLES

    def codable_positions(self, conversation_id: str) -> set[int]:
        """The turns of a conversation the codebook's turn and sentence codes apply to
        (every turn when none does), as the window steps through them."""
        db = self.project.db
        return {p for role in self._codable_roles
                for p in store_conv.positions_of_role(db, conversation_id, role)}

    # -- open and revealed -----------------------------------------------------------------
    def open_positions(self, conversation_id: str) -> set[int]:
        """The units of a conversation open to the person (position 0: the conversation);
        only for one working blind (to others every unit is open)."""
        if conversation_id not in self._open:
            opened: set[int] = set()
            if self.works_blind and self.person is not None:
                db = self.project.db
                opened = store_sight.ever_done_positions(db, conversation_id, self.person)
                codable = self.codable_positions(conversation_id)
                if codable and codable <= opened:
                    opened.add(0)
            self._open[conversation_id] = opened
        return self._open[conversation_id]

    def is_open(self, conversation_id: str, position: int) -> bool:
        """The window shows the person everything the file holds of this unit."""
        return not self.works_blind or position in self.open_positions(conversation_id)

    def revealed_positions(self, conversation_id: str) -> set[int]:
        """The units of a conversation revealed to the person (empty unless working blind)."""
        if conversation_id not in self._revealed:
            opened = self.open_positions(conversation_id)
            if opened and self.package and self.person is not None:
                held = store_sight.hidden_material_positions(
                    self.project.db, conversation_id, self.person)
                turns = {p for p in opened if p in held}
                codable = self.codable_positions(conversation_id)
                opened = turns | ({0} if 0 in opened and ({0} | codable) & held else set())
            self._revealed[conversation_id] = opened
        return self._revealed[conversation_id]

    def revealed(self, conversation_id: str, position: int) -> bool:
        """Blinding showed the person what it hides of this unit (the module's one
        definition)."""
        return self.works_blind and position in self.revealed_positions(conversation_id)

    def locked(self, unit: Unit | tuple[str, int]) -> bool:
        """The person's values of this unit are locked: every write path refuses to change
        them (for a lead, outside blind coding and before the reveal: never)."""
        cid, pos = (unit.conversation_id, unit.position) if isinstance(unit, Unit) else unit
        return self.lock_on and self.revealed(cid, pos)

    def spans_locked(self, conversation_id: str, position: int) -> bool:
        """The person's spans of this turn stay as set (spans keep no second layer, so
        the reveal fixes them whatever the lock)."""
        return self.revealed(conversation_id, position)

    def hidden_here(self, conversation_id: str, position: int) -> list[str]:
        """What the window hides from the person that the file holds of this turn, in words
        (the users' ratings, the other coders' values, the turn's attributes): what marking
        it done would show. Empty when it is open or holds nothing hidden."""
        if self.is_open(conversation_id, position) or self.person is None:
            return []
        held = store_sight.held_at(self.project.db, conversation_id, position, self.person)
        return [words for kind, words in HELD_WORDS if kind in held]

    # -- what of a unit the person sees ---------------------------------------------------
    def sees_others(self, conversation_id: str, position: int) -> bool:
        """The other coders' values, spans and done marks of this unit."""
        return self.is_open(conversation_id, position)

    def sees_ratings(self, conversation_id: str, position: int) -> bool:
        """The users' ratings and comment of this turn."""
        return self.is_open(conversation_id, position)

    def ratings_state(self, conversation_id: str, position: int) -> str:
        """What the window says of the users' ratings of a turn: shown, hidden (until the
        turn is done) or withheld (a blind coder package holds none)."""
        if not self.works_blind:
            return RATINGS_SHOWN
        if self.package and not store_sight.holds_user_ratings(self.project.db):
            return RATINGS_WITHHELD
        return RATINGS_SHOWN if self.is_open(conversation_id, position) else RATINGS_HIDDEN

    def sees_turn_attributes(self, conversation_id: str, position: int) -> bool:
        """A turn's attributes (another annotator's label; ESConv's feedback, which is the
        user's rating): they wait for the turn to be open, like the users' ratings."""
        return self.is_open(conversation_id, position)

    def sees_attribute(self, name: str, conversation_id: str | None = None) -> bool:
        """A conversation attribute (or 'model'): always, unless the person works blind and
        the lead hid it; then only in a conversation open to her (``conversation_id``), never
        across the project (the attribute sheet, filters, tables by attribute)."""
        if name not in self.hidden_attributes:
            return True
        return conversation_id is not None and self.is_open(conversation_id, 0)

    def sees_history(self, conversation_id: str, position: int) -> bool:
        """Other coders' rows of this unit's history (her own always)."""
        return self.is_open(conversation_id, position)

    def sees_memo(self, conversation_id: str, position: int, author: str | None) -> bool:
        """A memo of this unit written by ``author``."""
        return author == self.person or self.is_open(conversation_id, position)

    def sees_suggestion(self, unit: Unit, code: str) -> bool:
        """A model's suggestion of ``code`` on ``unit``: outside blind coding and for a lead
        always; to a blind coder once the unit is revealed to her and her own value of the
        code is set (not applicable counts), never before."""
        if not self.project.blind_coding or self.lead:
            return True
        if self.person is None or not self.revealed(unit.conversation_id, unit.position):
            return False
        return store_codings.get_coding(self.project.db, self.person, unit,
                                        code) is not store_codings.MISSING

    @property
    def sees_predictions(self) -> bool:
        """Stored predictions of the empathy level beside the coding panel (trained on the
        users' ratings): never while the project codes blind, for anyone, so that no
        screen a coder may look at shows them."""
        return not self.project.blind_coding

    # -- what shows every coder's work ----------------------------------------------------
    @property
    def sees_everything(self) -> bool:
        """Agreement, reconciliation, analyses against the users' ratings, exports of every
        coder's values, the whole history, merges: only for whoever does not work blind."""
        return not self.works_blind

    def why_hidden(self, what: str) -> str | None:
        """Why ``what`` (which shows every coder's work) is closed to the person; None when
        it is not."""
        if not self.works_blind:
            return None
        if self.person is None:
            return f"coders code blind in this project: only a lead (an adjudicator) can {what}"
        return (f"'{self.person}' codes blind in this project: only a lead (an adjudicator) "
                f"can {what}")

    def require_everything(self, what: str) -> None:
        """Refuse ``what`` (which shows other coders' values) to a person working blind."""
        why = self.why_hidden(what)
        if why is not None:
            raise ProjectError(why, hint=AS_LEAD if self.person is None else None)

"""Typed cells: one stored value a coding action changes, and how to read, write and
compare it.

An undoable action is a list of cells (:class:`~.undo.Command`); each cell holds the value
before and after, and, where the kind keeps one, how the value was made before and after
(source, blind, origin), put back with it by undo and redo. A cell names its place with
named fields (coder, conversation_id, position, ...), never a tuple read by position.

Adding an undoable kind is ONE new class here (or in a module imported by the project):

    @dataclass(frozen=True, kw_only=True)
    class TagCell(Cell):
        kind: ClassVar[str] = "tag"
        coder: str
        conversation_id: str
        position: int

        def read(self, db): ...          # the stored value (store/ functions: no SQL here)
        def write(self, ctx, value, made): ...
        def place(self): ...             # "alice's tag on conversation 'c1', turn 2"
        def location(self): ...          # (conversation_id, position, sentence)
        def changes(self): ...           # Changes naming what it touched

and optionally ``same`` (when two stored values mean the same), ``read_made`` (provenance)
and ``blind_turn`` (a value set blind that stays once the turn is revealed). Defining the
class registers it under its ``kind``; a class missing any of the five is refused when it is
defined (TypeError), as is a second class of the same kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..domain.models import Unit
from ..store import codings as store_codings
from .changes import Changes, UnitKey

#: how a coding was made: (source, blind, origin)
Made = tuple[Any, Any, Any]
#: "no stored row", as opposed to a row whose value is NULL (not applicable)
MISSING = store_codings.MISSING

#: kind -> cell class; filled as the classes are defined
CELL_KINDS: dict[str, type[Cell]] = {}
#: what every concrete kind must define itself
REQUIRED = ("read", "write", "place", "location", "changes")
_BOOKKEEPING = ("before", "after", "made_before", "made_after")


@dataclass(frozen=True)
class WriteContext:
    """What a cell writes with: the database, and how a coding written now is made."""

    db: Any
    #: the source of codings written now ('coded', 'suggestion_accepted')
    source: str = "coded"
    #: is a value ``coder`` writes now written blind?
    blind_for: Callable[[str], bool] = lambda coder: False


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One stored value an action changes. Subclass per kind (see the module text)."""

    kind: ClassVar[str] = ""
    before: Any = None
    after: Any = None
    #: how the value before and after was made (source, blind, origin), where kept
    made_before: Made | None = None
    made_after: Made | None = None

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if abstract:
            return
        if not isinstance(cls.__dict__.get("kind"), str) or not cls.__dict__["kind"]:
            raise TypeError(f"cell class {cls.__name__} needs its own kind (a ClassVar str)")
        missing = [name for name in REQUIRED if getattr(cls, name) is getattr(Cell, name)]
        if missing:
            raise TypeError(f"cell class {cls.__name__} ('{cls.kind}') does not define "
                            f"{', '.join(missing)}")
        if cls.kind in CELL_KINDS and CELL_KINDS[cls.kind].__qualname__ != cls.__qualname__:
            raise TypeError(f"a cell of kind '{cls.kind}' exists already "
                            f"({CELL_KINDS[cls.kind].__name__})")
        CELL_KINDS[cls.kind] = cls

    # -- what each kind defines ------------------------------------------------------------
    def read(self, db: Any) -> Any:
        """The value stored at this cell's place now (MISSING where none)."""
        raise NotImplementedError

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        """Store ``value`` at this cell's place; ``made``: how it was made (undo and redo
        put it back), else it is made now."""
        raise NotImplementedError

    def place(self) -> str:
        """Where the cell is, in words, for messages."""
        raise NotImplementedError

    def location(self) -> UnitKey:
        """(conversation_id, position, sentence) of the unit the cell belongs to."""
        raise NotImplementedError

    def changes(self) -> Changes:
        """What writing this cell changes."""
        raise NotImplementedError

    # -- what a kind may redefine ----------------------------------------------------------
    @classmethod
    def same(cls, a: Any, b: Any) -> bool:
        """Do two stored values mean the same? (A coded level 1 is not level "1".)"""
        return bool(a == b) and type(a) is type(b)

    def read_made(self, db: Any) -> Made | None:
        """How the stored value was made (None: this kind keeps no provenance)."""
        return None

    def blind_turn(self) -> tuple[str, str, int] | None:
        """(coder, conversation_id, position) when a value set blind here must stay once
        that turn is revealed to that coder (undo and redo are refused then)."""
        return None

    # -- common --------------------------------------------------------------------------
    @property
    def key(self) -> tuple[Any, ...]:
        """The cell's place as a tuple of its named fields, for grouping and equality of
        places (not for reading fields by position)."""
        return (self.kind,) + tuple(getattr(self, f.name) for f in fields(self)
                                    if f.name not in _BOOKKEEPING)

    @property
    def unchanged(self) -> bool:
        """Did writing it leave the stored value as it was?"""
        return bool(self.before == self.after) and type(self.before) is type(self.after)


def cell_class(kind: str) -> type[Cell]:
    """The cell class of a kind (KeyError naming the known kinds when there is none)."""
    try:
        return CELL_KINDS[kind]
    except KeyError:
        raise KeyError(f"no cell kind '{kind}' (known: {', '.join(sorted(CELL_KINDS))})"
                       ) from None


def _where(conversation_id: str, position: int, sentence: int = 0) -> str:
    where = f"conversation '{conversation_id}'" + (f", turn {position}" if position else "")
    return where + (f", sentence {sentence}" if sentence else "")


# -- the kinds ---------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class UnitCell(Cell, abstract=True):
    """A cell on one unit (conversation, turn position, sentence)."""

    conversation_id: str
    position: int = 0
    sentence: int = 0

    @property
    def unit(self) -> Unit:
        return Unit(self.conversation_id, self.position, self.sentence)

    def location(self) -> UnitKey:
        return self.conversation_id, self.position, self.sentence


@dataclass(frozen=True, kw_only=True)
class CodingCell(UnitCell):
    """A coder's value of a code on a unit; made before/after: (source, blind, origin)."""

    kind: ClassVar[str] = "coding"
    coder: str
    code: str

    def read(self, db: Any) -> Any:
        return store_codings.get_coding(db, self.coder, self.unit, self.code)

    def read_made(self, db: Any) -> Made | None:
        return store_codings.get_provenance(db, self.coder, self.unit, self.code)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        source, blind, origin = made if made is not None else (
            ctx.source, ctx.blind_for(self.coder), None)
        store_codings.put_coding(ctx.db, self.coder, self.unit, self.code, value,
                                 source=source, blind=bool(blind), origin=origin)

    def place(self) -> str:
        return f"{self.coder}'s '{self.code}' on {_where(*self.location())}"

    def changes(self) -> Changes:
        return Changes(units=frozenset({self.location()}))

    def blind_turn(self) -> tuple[str, str, int] | None:
        return self.coder, self.conversation_id, self.position


@dataclass(frozen=True, kw_only=True)
class RevisionCell(UnitCell):
    """A coder's change of a value after the turn was revealed to them (the blind value
    stays beside it)."""

    kind: ClassVar[str] = "revision"
    coder: str
    code: str

    def read(self, db: Any) -> Any:
        return store_codings.get_revision(db, self.coder, self.unit, self.code)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        store_codings.put_revision(ctx.db, self.coder, self.unit, self.code, value)

    def place(self) -> str:
        return (f"{self.coder}'s change of '{self.code}' after the reveal on "
                f"{_where(*self.location())}")

    def changes(self) -> Changes:
        return Changes(units=frozenset({self.location()}))


@dataclass(frozen=True, kw_only=True)
class DoneCell(Cell):
    """Whether a coder has marked a turn done."""

    kind: ClassVar[str] = "done"
    coder: str
    conversation_id: str
    position: int

    def read(self, db: Any) -> Any:
        return store_codings.get_done(db, self.coder, self.conversation_id, self.position)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        store_codings.put_done(ctx.db, self.coder, self.conversation_id, self.position,
                               bool(value))

    @classmethod
    def same(cls, a: Any, b: Any) -> bool:
        return bool(a) == bool(b)

    def place(self) -> str:
        return f"{self.coder}'s done mark on {_where(self.conversation_id, self.position)}"

    def location(self) -> UnitKey:
        return self.conversation_id, self.position, 0

    def changes(self) -> Changes:
        return Changes(done=frozenset({(self.conversation_id, self.position)}))


@dataclass(frozen=True, kw_only=True)
class MemoCell(UnitCell):
    """A coder's memo on a unit ('' = none)."""

    kind: ClassVar[str] = "memo"
    coder: str

    def read(self, db: Any) -> Any:
        return store_codings.get_memo(db, self.coder, self.unit)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        store_codings.put_memo(ctx.db, self.coder, self.unit, value)

    def place(self) -> str:
        return f"{self.coder}'s memo on {_where(*self.location())}"

    def changes(self) -> Changes:
        return Changes(memos=frozenset({self.location()}))


@dataclass(frozen=True, kw_only=True)
class ConsensusCell(UnitCell):
    """The adjudicated decision on a unit: {value, adjudicator, rationale, source, ...} or
    None (no decision)."""

    kind: ClassVar[str] = "consensus"
    code: str

    def read(self, db: Any) -> Any:
        return store_codings.get_consensus(db, self.unit, self.code)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        store_codings.put_consensus(ctx.db, self.unit, self.code, value)

    @classmethod
    def same(cls, a: Any, b: Any) -> bool:
        """The same decision: value (and its type), adjudicator and rationale; the time it
        was taken is not compared."""
        if a is None or b is None:
            return a is b
        va, vb = a.get("value"), b.get("value")
        return (va == vb and type(va) is type(vb)
                and a.get("adjudicator") == b.get("adjudicator")
                and (a.get("rationale") or "") == (b.get("rationale") or ""))

    def place(self) -> str:
        return f"the consensus of '{self.code}' on {_where(*self.location())}"

    def changes(self) -> Changes:
        return Changes(consensus=frozenset({self.location()}))

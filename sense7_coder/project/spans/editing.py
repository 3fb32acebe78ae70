"""Span coding through the project: add, resize, recode, memo, delete and list spans.

Every action checks what it writes the way every other path into the project does (the
code is a span code that applies to the turn's role, the offsets lie inside the turn's
text, the value is on the code's scale: :func:`checked_span`), runs in one transaction,
records how the span was made (source, blind, origin) and returns the undo command it
pushed. Blinding: a blind coder lists only their own spans of a turn until they marked it
done; a span set blind stays as it was set once the turn was revealed to its coder (spans
keep no second, after-the-reveal layer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ...domain import rows
from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.models import Value
from ...domain.spans import Span, SpanKey
from ...store import conversations as store_conv
from ...store.spans import table as store_spans
from ..cells import Cell, Made, WriteContext
from ..changes import Changes, UnitKey
from ..undo import Command

if TYPE_CHECKING:
    from ..project import Project

#: the cell kind of a span in undo commands
KIND = "span"

_KEEP = object()  # "leave as it is" for change()


def span_value(code: Code, value: Value | object = _KEEP) -> Value:
    """The value a span of ``code`` stores: given, or 1 for a binary code (a span marks
    that the code is present there). Not applicable is no value for a span (delete it)."""
    if value is _KEEP or value is None or value == "":
        if code.kind == "binary":
            return 1
        raise ProjectError(f"a span of '{code.key}' needs one of its levels "
                           f"({', '.join(str(v) for v in code.values)})")
    try:
        parsed = code.parse_value(value)
    except ValueError as e:
        raise ProjectError(str(e)) from None
    if parsed is None:
        raise ProjectError(f"a span of '{code.key}' cannot be not applicable; delete the span")
    return parsed


def checked_span(project: Project, key: SpanKey, value: Value | object = _KEEP,
                 memo: str = "") -> tuple[SpanKey, Value]:
    """The span as stored, after every check the API makes; raises ProjectError naming
    the field. Used by the window, ``import-codings``, merges and packages alike."""
    code = project.code(key.code) if isinstance(key.code, str) else None
    if code is None:
        raise ProjectError(f"the code {key.code!r} is not text")
    if code.unit != "span":
        raise ProjectError(f"code '{code.key}' applies to {code.unit}s, not to spans")
    text = (store_conv.turn_text(project.db, key.conversation_id, key.position)
            if isinstance(key.position, int) and not isinstance(key.position, bool) else None)
    if text is None:
        raise ProjectError(f"no turn {key.position} in conversation '{key.conversation_id}'")
    try:
        start, end = rows.span(key.coder, key.conversation_id, key.position, key.start,
                               key.end, key.code, memo, text_length=len(text))
    except rows.RowError as e:
        raise ProjectError(f"{e.field}: {e.message}") from None
    role = store_conv.turn_role(project.db, key.conversation_id, key.position)
    if code.applies_to not in ("any", role):
        raise ProjectError(f"code '{code.key}' applies to {code.applies_to} turns; turn "
                           f"{key.position} of '{key.conversation_id}' is a {role} turn")
    return key.moved(start, end), span_value(code, value)


def _mine(project: Project, conversation_id: str, position: int, start: int, end: int,
          code: str) -> SpanKey:
    return SpanKey(project._require_coder(), conversation_id, position, start, end, code)


def _require_unrevealed(project: Project, key: SpanKey) -> None:
    if project.sight(key.coder).spans_locked(key.conversation_id, key.position):
        raise ProjectError(
            f"turn {key.position} of '{key.conversation_id}' was revealed to '{key.coder}' "
            "when they marked it done: the spans set blind stay as they were set")


def _made(project: Project, coder: str) -> tuple[str, bool, None]:
    return project._coding_source, project.sight(coder).works_blind, None


@dataclass(frozen=True, kw_only=True)
class SpanCell(Cell):
    """One span's place (coder, turn, offsets, code); its value is the :class:`Span` there
    (its level, memo and how it was made) or None (no span)."""

    kind: ClassVar[str] = KIND
    coder: str
    conversation_id: str
    position: int
    start: int
    end: int
    code: str

    @property
    def span_key(self) -> SpanKey:
        return SpanKey(self.coder, self.conversation_id, self.position, self.start,
                       self.end, self.code)

    def read(self, db: Any) -> Span | None:
        return store_spans.get_span(db, self.span_key)

    def write(self, ctx: WriteContext, value: Any, made: Made | None = None) -> None:
        if value is None:
            store_spans.delete_span(ctx.db, self.span_key)
        else:
            store_spans.put_span(ctx.db, value)

    def place(self) -> str:
        return self.span_key.place()

    def location(self) -> UnitKey:
        return self.conversation_id, self.position, 0

    def changes(self) -> Changes:
        return Changes(units=frozenset({self.location()}))

    def blind_turn(self) -> tuple[str, str, int] | None:
        return self.coder, self.conversation_id, self.position


def _cell(key: SpanKey, after: Span | None) -> SpanCell:
    return SpanCell(coder=key.coder, conversation_id=key.conversation_id,
                    position=key.position, start=key.start, end=key.end, code=key.code,
                    after=after)


def _apply(project: Project, label: str,
           writes: Sequence[tuple[SpanKey, Span | None]]) -> Command:
    """Write each (key, span or None = delete) in one transaction and push one undo step;
    the command (``.changes`` names the turns touched)."""
    return project.apply(label, [_cell(key, after) for key, after in writes])


def add(project: Project, conversation_id: str, position: int, start: int, end: int,
        code: str, value: Value | object = _KEEP, memo: str = "") -> Command:
    """The current coder marks ``start``-``end`` of a turn with ``code`` (and a level)."""
    key, checked = checked_span(project, _mine(project, conversation_id, position, start, end,
                                               code), value, memo)
    _require_unrevealed(project, key)
    source, blind, origin = _made(project, key.coder)
    return _apply(project, f"mark a span as {project.code(code).label}",
                  [(key, Span(key, checked, memo, source, blind, origin))])


def _existing(project: Project, key: SpanKey) -> Span:
    if key.coder != project._require_coder():
        raise ProjectError(f"{key.place()} is not yours to change")
    found = store_spans.get_span(project.db, key)
    if found is None:
        raise ProjectError(f"there is no {key.place()}")
    _require_unrevealed(project, key)
    return found


def change(project: Project, key: SpanKey, *, start: int | None = None,
           end: int | None = None, code: str | None = None,
           value: Value | object = _KEEP, memo: str | None = None) -> Command:
    """Resize, recode, revalue or memo one of the current coder's spans (one undo step)."""
    old = _existing(project, key)
    new_key = key.moved(start, end, code)
    if value is _KEEP and new_key.code == key.code:
        value = old.value
    text = old.memo if memo is None else memo
    new_key, checked = checked_span(project, new_key, value, text)
    source, blind, origin = _made(project, key.coder)
    span = Span(new_key, checked, text, source, blind, origin)
    if new_key == key:
        return _apply(project, "change a span", [(key, span)])
    if store_spans.get_span(project.db, new_key) is not None:
        raise ProjectError(f"there already is {new_key.place()}")
    what = "recode a span" if new_key.code != key.code else "resize a span"
    return _apply(project, what, [(key, None), (new_key, span)])


def set_memo(project: Project, key: SpanKey, memo: str) -> Command:
    return change(project, key, memo=memo)


def delete(project: Project, key: SpanKey) -> Command:
    _existing(project, key)
    return _apply(project, "delete a span", [(key, None)])


def spans(project: Project, conversation_id: str, position: int | None = None) -> list[Span]:
    """The spans the current coder may see: their own, and the other coders' unless
    blinding hides them (:meth:`.Sight.sees_others`: a blind coder sees others' spans of a
    turn once it is open to them; a lead sees everything)."""
    sight = project.sight()
    found = store_spans.spans_of_conversation(project.db, conversation_id, position=position)
    return [s for s in found if s.coder == sight.person
            or sight.sees_others(conversation_id, s.position)]


def own_spans(project: Project, conversation_id: str, position: int | None = None
              ) -> list[Span]:
    coder = project._require_coder()
    return store_spans.spans_of_conversation(project.db, conversation_id, coder, position)


def all_spans(project: Project, code: str | None = None) -> list[Span]:
    """Every coder's spans, for agreement and exports: refused to a blind coder."""
    project.require_unblinded("see every coder's spans")
    return store_spans.all_spans(project.db, code)

"""What a ``.qdpx`` written by sense7-coder carries for itself (the ``sense7-coder`` text
variable of each source, see :func:`sense7_coder.domain.refi.writing.conversation_extra`):
each turn's role, speaker, time, users' ratings, comment and attributes, the attributes
that are not text, and the coders' done marks. Read back through the checks every row
passes; a value that fails names the file, source and field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...domain import rows
from ...domain.errors import InputError
from ...domain.models import Conversation
from ...domain.refi.reading import RefiProject, RefiSource
from ...domain.refi.writing import EXTRA_VARIABLE
from ...store import codings as store_codings


def whole(src: RefiSource, start: int, end: int) -> bool:
    """Whether a selection covers every turn of its source (a conversation-level unit)."""
    return bool(src.turns) and start <= src.turns[0].start and \
        end >= src.turns[-1].start + len(src.turns[-1].text)


def _fail(where: str, conv: Conversation, e: rows.RowError) -> InputError:
    return InputError(where, e.message, location=f"source {conv.conversation_id!r}",
                      field=f"{EXTRA_VARIABLE} {e.field}")


def restore(conv: Conversation, extra: Mapping[str, Any], where: str) -> None:
    """Put the turn data of ``extra`` on ``conv``'s turns (checked as any imported turn)."""
    turns = extra.get("turns", [])
    if not isinstance(turns, list) or len(turns) != len(conv.turns):
        raise InputError(where, f"its {len(turns) if isinstance(turns, list) else 'unreadable'}"
                         f" turns do not match the {len(conv.turns)} of the text",
                         location=f"source {conv.conversation_id!r}",
                         field=f"{EXTRA_VARIABLE} turns")
    cid = conv.conversation_id
    try:
        for turn, item in zip(conv.turns, turns, strict=True):
            if not isinstance(item, dict) or item.get("position") != turn.position:
                raise rows.RowError("turns", f"turn {turn.position} is not described in order")
            turn.role = item.get("role", turn.role)
            turn.speaker = item.get("speaker")
            turn.time_offset = rows.time_offset(item.get("time_offset"))
            turn.comment = item.get("comment")
            attributes = item.get("attributes") or {}
            if not isinstance(attributes, dict):
                raise rows.RowError("attributes", f"turn {turn.position}: the attributes are "
                                    "not an object")
            turn.attributes = dict(attributes)
            ratings = item.get("ratings") or {}
            if not isinstance(ratings, dict):
                raise rows.RowError("ratings", f"turn {turn.position}: ratings are not an object")
            for rating, value in ratings.items():
                rows.user_rating(cid, turn.position, rating, value)
            turn.ratings = dict(ratings)
            rows.turn(cid, turn.position, turn.role, turn.speaker, turn.text, turn.time_offset,
                      turn.comment, _json(turn.attributes))
        typed = extra.get("attributes") or {}
        if not isinstance(typed, dict):
            raise rows.RowError("attributes", "the attributes are not an object")
        conv.attributes.update(typed)
        rows.json_object(_json(conv.attributes), "attributes", "attributes")
        source = extra.get("source")
        if source is not None:
            conv.source = rows.text(source, "source", "source")
    except rows.RowError as e:
        raise _fail(where, conv, e) from None


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        raise rows.RowError("attributes", "the attributes are not JSON") from None


def write_done(db: Any, doc: RefiProject, ids: Mapping[str, str],
               users: Mapping[str, str], where: str) -> None:
    """The done marks of every source that carries them (their coders as in the file)."""
    known = {v for v in users.values()} | set(users)
    for src in doc.sources:
        marks = (src.extra or {}).get("done") or {}
        cid = ids[src.guid]
        if not isinstance(marks, dict):
            raise InputError(where, "the done marks are not an object",
                             location=f"source {src.name!r}", field=f"{EXTRA_VARIABLE} done")
        for coder, positions in marks.items():
            try:
                name = users.get(coder, coder)
                if name not in known:
                    raise rows.RowError("done", f"the coder {coder!r} is not a user of the file")
                if not isinstance(positions, list):
                    raise rows.RowError("done", f"the done turns of {coder!r} are not a list")
                for position in positions:
                    rows.done_mark(name, cid, position, 1, "2000-01-01T00:00:00+00:00")
                    if not 1 <= position <= len(src.turns):
                        raise rows.RowError("done", f"turn {position} is not in the source")
            except rows.RowError as e:
                raise InputError(where, e.message, location=f"source {src.name!r}",
                                 field=f"{EXTRA_VARIABLE} {e.field}") from None
            store_codings.ensure_coder(db, name)
            for position in positions:
                store_codings.put_done(db, name, cid, position, True)

"""Every row a merge stages is checked as the API checks it: one validator of
:mod:`...domain.rows` per kind of row, then what needs the project (the turn exists, the code
applies to it, the value is on its scale). A source holding any row the API would not have
written is refused whole, naming the table, row and field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...domain import rows
from ...domain.errors import ProjectError
from ...domain.models import Unit
from ...domain.spans import SpanKey
from ...store.merge import staging as store_merge
from ..project import Project
from ..spans.editing import checked_span

# -- every row checked as the API checks it --------------------------------------------------

#: problems listed when a source is refused for invalid rows
_LISTED = 5


class _Problems:
    """Collects what is wrong with a source's rows (the first few, and how many)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.listed: list[str] = []
        self.count = 0

    def add(self, table: str, row: int, what: str) -> None:
        self.count += 1
        if len(self.listed) < _LISTED:
            self.listed.append(f"{table} row {row}: {what}")

    def raise_any(self) -> None:
        if not self.count:
            return
        more = self.count - len(self.listed)
        tail = f"; and {more} more" if more else ""
        raise ProjectError(
            f"{self.name}: merge refused: the file holds rows sense7-coder does not accept; "
            f"nothing was changed: {'; '.join(self.listed)}{tail}"
        )


def _row_ok(problems: _Problems, table: str, row: tuple[Any, ...],
            check: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
    """Run one validator of :mod:`...domain.rows` on a staged row; note what it refuses."""
    try:
        check(*args, **kwargs)
    except rows.RowError as e:
        problems.add(table, row[0], f"field '{e.field}': {e.message}")
        return False
    return True


def _check_value_row(project: Project, problems: _Problems, table: str, row: tuple[Any, ...],
                     unit: Unit, key: Any, value: Any) -> None:
    """A coding or decision: the API's checks (code, unit, role, scale), then the type."""
    if project.codebook.get(key) is None:
        problems.add(table, row[0], f"unknown code {key!r}")
        return
    try:
        checked = project.checked_value(unit, key, value, strict_sentences=True)
    except ProjectError as e:
        problems.add(table, row[0], str(e))
        return
    if type(checked) is not type(value) or checked != value:
        problems.add(table, row[0], f"value {value!r} of code '{key}' is not stored as "
                     f"sense7-coder stores its level {checked!r}")


def _check_turn(project: Project, problems: _Problems, table: str, row: tuple[Any, ...],
                cid: str, position: int) -> None:
    try:
        project.check_turn(cid, position)
    except ProjectError as e:
        problems.add(table, row[0], str(e))


def validate_rows(project: Project, name: str) -> None:
    """Refuse the merge if any staged row is one the API would not have written.

    Every row passes the validator of its kind (:mod:`...domain.rows`), the same the API
    and the importers use; then what needs the project (the turn exists, the code applies
    to it, the value is on its scale). Runs inside the merge's transaction after the new
    conversations and coders were added, so turns, sentences and coders are checked
    against the merged result.
    """
    db = project.db
    problems = _Problems(name)
    _check_file_rows(db, problems)
    coders = {c["name"] for c in project.coders()}

    def coder_ok(table: str, row: tuple[Any, ...], who: Any) -> bool:
        if who not in coders:
            problems.add(table, row[0], f"coder {who!r} is not a coder of the project")
            return False
        return True

    _check_value_rows(project, problems, coder_ok)
    _check_turn_rows(project, problems, coder_ok)
    staged = store_merge.staged_rows
    for row in staged(db, "assignments"):
        _row_ok(problems, "assignments", row, rows.assignment, *row[1:])
    for row in staged(db, "history"):
        _row_ok(problems, "history", row, rows.history, *row[2:])
    for row in staged(db, "spans"):
        _check_span_row(project, problems, row, coder_ok)
    problems.raise_any()


def _check_turn_rows(project: Project, problems: _Problems,
                     coder_ok: Callable[[str, tuple[Any, ...], Any], bool]) -> None:
    """Memos, done marks and rationales: a coder's notes on turns."""
    db = project.db
    staged = store_merge.staged_rows
    for row in staged(db, "memos"):
        if _row_ok(problems, "memos", row, rows.memo, *row[1:]) \
                and coder_ok("memos", row, row[1]):
            _check_turn(project, problems, "memos", row, row[2], row[3])
    for row in staged(db, "turn_status"):
        if _row_ok(problems, "turn_status", row, rows.done_mark, *row[1:]) \
                and coder_ok("turn_status", row, row[1]):
            _check_turn(project, problems, "turn_status", row, row[2], row[3])
    for row in staged(db, "value_rationales"):
        if _row_ok(problems, "value_rationales", row, rows.value_rationale, *row[1:]) \
                and coder_ok("value_rationales", row, row[1]):
            _check_rationale_row(project, problems, row)


def _check_file_rows(db: Any, problems: _Problems) -> None:
    """Coders, participants, conversations, turns, users' ratings and sentences."""
    staged = store_merge.staged_rows
    for row in staged(db, "coders"):
        _row_ok(problems, "coders", row, rows.coder, *row[1:])
    for row in staged(db, "participants"):
        _row_ok(problems, "participants", row, rows.participant, *row[1:])
    counts = store_merge.staged_turn_counts(db)
    for row in staged(db, "conversations"):
        _row_ok(problems, "conversations", row, rows.conversation, *row[1:],
                turns=counts.get(row[1], 0))
    for row in staged(db, "turns"):
        _row_ok(problems, "turns", row, rows.turn, *row[1:])
    for row in staged(db, "user_ratings"):
        _row_ok(problems, "user_ratings", row, rows.user_rating, *row[1:])
    lengths = store_merge.sentence_text_lengths(db)
    for row in staged(db, "sentences"):
        length = lengths.get((row[1], row[2]))
        if length is None:
            problems.add("sentences", row[0], f"no turn {row[2]!r} in conversation {row[1]!r}")
            continue
        _row_ok(problems, "sentences", row, rows.sentence, *row[1:], text_length=length)


def _check_value_rows(project: Project, problems: _Problems,
                      coder_ok: Callable[[str, tuple[Any, ...], Any], bool]) -> None:
    """Codings, changes after the reveal and consensus decisions."""
    db = project.db
    staged = store_merge.staged_rows
    for table in ("codings", "revisions"):
        for row in staged(db, table):
            _n, coder, cid, pos, sent, key, value, updated = row
            if not (_row_ok(problems, table, row, rows.coding_key, coder, cid, pos, sent, key)
                    and _row_ok(problems, table, row, rows.time, updated, "update time",
                                "updated_at")
                    and coder_ok(table, row, coder)):
                continue
            _check_value_row(project, problems, table, row, Unit(cid, pos, sent), key, value)
    for row in staged(db, "consensus"):
        _n, cid, pos, sent, key, value, adjudicator, rationale, decided = row
        if not _row_ok(problems, "consensus", row, rows.consensus, cid, pos, sent, key,
                       adjudicator, rationale, decided):
            continue
        if adjudicator is not None and not coder_ok("consensus", row, adjudicator):
            continue
        _check_value_row(project, problems, "consensus", row, Unit(cid, pos, sent), key, value)


def _check_rationale_row(project: Project, problems: _Problems, row: tuple[Any, ...]) -> None:
    """A rationale on a value: a code of the project, a turn this file holds (that the
    value it explains exists is checked once the locks have had their say:
    :func:`.guard.hold_locks`)."""
    _n, _coder, cid, pos, _sent, key, _text, _updated = row
    if project.codebook.get(key) is None:
        problems.add("value_rationales", row[0], f"unknown code {key!r}")
        return
    _check_turn(project, problems, "value_rationales", row, cid, pos)


def _check_span_row(project: Project, problems: _Problems, row: tuple[Any, ...],
                    coder_ok: Callable[[str, tuple[Any, ...], Any], bool]) -> None:
    """A source's span: the row validator, then the API's checks (a span code that
    applies to the turn, offsets inside the turn's text as this file holds it)."""
    _n, coder, cid, pos, start, end, code, value, memo, updated, blind = row
    if not (_row_ok(problems, "spans", row, rows.coding_key, coder, cid, pos, 0, code)
            and _row_ok(problems, "spans", row, rows.time, updated, "update time",
                        "updated_at")
            and _row_ok(problems, "spans", row, rows.span_provenance, "merged", blind, None)
            and coder_ok("spans", row, coder)):
        return
    try:
        _key, checked = checked_span(project, SpanKey(coder, cid, pos, start, end, code),
                                     value, memo)
    except ProjectError as e:
        problems.add("spans", row[0], str(e))
        return
    if checked != value or type(checked) is not type(value):
        problems.add("spans", row[0], f"the value {value!r} is not a level of '{code}'")



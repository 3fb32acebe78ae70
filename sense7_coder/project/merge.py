"""Merging coders' project files into one project.

Each coder codes in a copy of the project; :func:`merge` brings their work together:

* **conversations** are matched by id and **turns** by position; a conversation in both
  files must have the same turns (role and text) -- otherwise the merge is refused,
  naming the conversation and turn. Conversations the target lacks are copied with their
  turns, users' ratings, participants and sentences;
* **codes** are matched by key: a code the source uses must exist in the target with the
  same kind, unit and level values (else refused); labels and guidance may differ (the
  target's are kept);
* **coders** are matched by name (new ones are added with their role);
* **codings, memos and consensus decisions** the target lacks are added; identical ones
  change nothing, so merging a file twice adds nothing. The same coder with a different
  value (or memo text, or a different consensus value) for the same unit is a
  **conflict**: every conflict is listed and, by default (``on_conflict='refuse'``), the
  whole merge is refused and nothing is written. With ``'keep-target'`` the target's
  values are kept, the source's conflicting ones are skipped, and the rest is merged;
* **turn status**: a turn marked done in either file is done.

Everything happens in one transaction on the target; a failure at any point (a bad
source, a mismatch, a conflict, Cancel) leaves the target as it was. ``dry_run`` runs the
same steps and rolls them back, reporting what would change.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..domain.errors import Cancelled, ProjectError
from ..domain.models import RATING_KEYS, ROLES_OF, Unit
from ..domain.models import ROLES as TURN_ROLES
from ..domain.names import names_text
from ..store import StorageError
from ..store import assignments as store_assignments
from ..store import history as store_history
from ..store import merge as store_merge
from ..store.values import restored
from .project import ROLES, Project

ProgressFn = Callable[[int, int], None] | None
CancelFn = Callable[[], bool] | None

ON_CONFLICT = ("refuse", "keep-target")
#: steps of progress per source file
_STEPS = 6


@dataclass
class Conflict:
    """One unit on which the two files disagree for the same coder (or the consensus)."""

    kind: str  # 'coding' | 'memo' | 'consensus'
    source: str
    unit: Unit
    coder: str | None
    code: str | None
    target_value: Any
    source_value: Any

    def describe(self) -> str:
        def show(v: Any) -> str:
            if v is None:
                return "NA"
            return repr(v) if isinstance(v, str) else str(v)

        where = f"conversation '{self.unit.conversation_id}'"
        where += f", turn {self.unit.position}" if self.unit.position else " (whole conversation)"
        if self.unit.sentence:
            where += f", sentence {self.unit.sentence}"
        who = f"coder '{self.coder}'" if self.coder else "consensus"
        what = f"code '{self.code}'" if self.code else "memo"
        return (f"{self.source}: {who}, {what}, {where}: target has {show(self.target_value)}, "
                f"source has {show(self.source_value)}")


_SINGULAR = {
    "codings": "coding", "conversations": "conversation", "turns": "turn",
    "user ratings": "user rating", "turns marked done": "turn marked done", "memos": "memo",
    "consensus decisions": "consensus decision", "assignments": "assignment",
    "history events": "history event",
}


@dataclass
class SourceSummary:
    """What one source file brought (or would bring) into the target."""

    source: str
    conversations: int = 0
    turns: int = 0
    user_ratings: int = 0
    sentences: int = 0
    new_coders: list[str] = field(default_factory=list)
    codings: int = 0
    codings_unchanged: int = 0
    statuses: int = 0
    memos: int = 0
    consensus: int = 0
    assignments: int = 0
    history: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return (self.conversations + self.turns + self.user_ratings + self.sentences
                + len(self.new_coders) + self.codings + self.statuses + self.memos
                + self.consensus + self.assignments + self.history)

    def line(self, dry_run: bool) -> str:
        verb = "would add" if dry_run else "added"
        def count(n: int, what: str) -> str:  # "1 coding", "2 codings", "1 turn marked done"
            return f"{n} {_SINGULAR.get(what, what) if n == 1 else what}"

        if not self.changes:
            return (f"{self.source}: nothing new "
                    f"({count(self.codings_unchanged, 'codings')} already present)")
        parts = [count(self.codings, "codings")]
        if self.codings_unchanged:
            parts[0] += f" ({self.codings_unchanged} already present)"
        for n, what in ((self.conversations, "conversations"), (self.turns, "turns"),
                        (self.user_ratings, "user ratings"), (self.statuses, "turns marked done"),
                        (self.memos, "memos"), (self.consensus, "consensus decisions"),
                        (self.assignments, "assignments"), (self.history, "history events")):
            if n:
                parts.append(count(n, what))
        if self.new_coders:
            parts.append(f"new coders: {names_text(self.new_coders, 'coders')}")
        return f"{self.source}: {verb} " + ", ".join(parts)


@dataclass
class MergeReport:
    sources: list[SourceSummary] = field(default_factory=list)
    dry_run: bool = False
    on_conflict: str = "refuse"
    #: True once the merge was committed to the target
    written: bool = False

    @property
    def conflicts(self) -> list[Conflict]:
        return [c for s in self.sources for c in s.conflicts]

    @property
    def changes(self) -> int:
        return sum(s.changes for s in self.sources)

    def lines(self) -> list[str]:
        out = []
        for s in self.sources:
            out.append(s.line(self.dry_run or not self.written))  # refused: nothing added
            out += [f"  note: {n}" for n in s.notes]
        if self.conflicts:
            n = len(self.conflicts)
            kept = ", the target's values kept" if self.on_conflict == "keep-target" else ""
            out.append(f"{n} conflict{'s' if n != 1 else ''}{kept}:")
            out += [f"  {c.describe()}" for c in self.conflicts]
        if self.dry_run:
            out.append("dry run: nothing was written")
        return out


class MergeConflicts(ProjectError):
    """The merge was refused because coders' values conflict; nothing was written."""

    def __init__(self, report: MergeReport) -> None:
        self.report = report
        n = len(report.conflicts)
        super().__init__(
            f"merge refused: {n} conflict{'s' if n != 1 else ''} between the files (listed "
            "above); nothing was changed. Resolve them, or merge with --on-conflict keep-target "
            "to keep the target's values"
        )


class _RollBack(Exception):
    """Raised inside the transaction to undo a dry run."""


# -- checks before anything is written -------------------------------------------------------

def _source_levels(raw: Any, name: str, key: str) -> list[Any]:
    """The level values of a source's code, refusing a hand-edited ``levels`` column."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, list) or not all(isinstance(lv, dict) and "value" in lv
                                             for lv in data):
        shown = str(raw)[:40] + ("..." if len(str(raw)) > 40 else "")
        raise ProjectError(
            f"{name}: code '{key}' has levels that are not a list of levels ({shown!r}); the "
            "file was edited outside sense7-coder, so it cannot be merged. Nothing was changed"
        )
    return [lv["value"] for lv in data]


def _check_codes(project: Project, conn: Any, name: str) -> list[str]:
    """Refuse codes the source uses that the target lacks or defines differently."""
    notes = []
    used = store_merge.codes_in_use(conn)
    for row in store_merge.source_codes(conn):
        key = row["key"]
        mine = project.codebook.get(key)
        if mine is None:
            if key in used:
                raise ProjectError(
                    f"{name}: code '{key}' is used in this file but is not in the target's "
                    "codebook; add it to the target first (sense7-coder codebook TARGET import "
                    "FILE) and merge again"
                )
            notes.append(f"code '{key}' is not in the target and is not used; left out")
            continue
        levels = _source_levels(row["levels"], name, key)
        same_levels = (levels == mine.values if mine.kind == "ordinal"
                       else sorted(map(str, levels)) == sorted(map(str, mine.values)))
        if row["kind"] != mine.kind or row["unit"] != mine.unit or not same_levels:
            if key not in used:
                notes.append(f"code '{key}' is defined differently and is not used; left out")
                continue
            raise ProjectError(
                f"{name}: code '{key}' is {row['kind']}, {row['unit']} level, levels "
                f"{', '.join(map(str, levels))} here but {mine.kind}, {mine.unit} level, "
                f"levels {', '.join(map(str, mine.values))} in the target; codes must match "
                "to be merged"
            )
        if used.get(key) and not mine.allow_na:
            raise ProjectError(
                f"{name}: code '{key}' is marked not applicable in this file, which the "
                "target's codebook does not allow"
            )
        allowed = set(ROLES_OF.get(mine.applies_to, ()))
        # a role another program stored as binary data or a number is shown as it is
        wrong = ([] if mine.unit == "conversation"
                 else sorted(r if isinstance(r, str) else repr(r)
                             for r in store_merge.coded_roles(conn, key) - allowed))
        if wrong:
            raise ProjectError(
                f"{name}: code '{key}' is coded on {' and '.join(wrong)} turns in this file, "
                f"but applies to {mine.applies_to} turns in the target"
            )
        off = sorted(str(v) for v in store_merge.values_in_use(conn, key)
                     if restored(v, mine.values) not in set(mine.values))
        if off:
            raise ProjectError(
                f"{name}: code '{key}' has values {', '.join(off)} that are not levels in the "
                "target's codebook"
            )
    return notes


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


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


def _text(value: Any, *, empty: bool = False, null: bool = False) -> bool:
    if value is None:
        return null
    return isinstance(value, str) and (empty or bool(value.strip()))


def _whole(value: Any, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _json_object(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return isinstance(json.loads(value), dict)
    except (ValueError, RecursionError):  # malformed, or nested deeper than Python recurses
        return False


def _unit_of(row: tuple[Any, ...], problems: _Problems, table: str, start: int,
             sentence: bool = True) -> Unit | None:
    """The (conversation, turn, sentence) at ``row[start:]`` if their types are right."""
    cid, pos = row[start], row[start + 1]
    sent = row[start + 2] if sentence else 0
    if not _text(cid):
        problems.add(table, row[0], f"conversation id {cid!r} is not a name")
    elif not _whole(pos):
        problems.add(table, row[0], f"turn {pos!r} is not a turn number")
    elif not _whole(sent):
        problems.add(table, row[0], f"sentence {sent!r} is not a sentence number")
    else:
        return Unit(cid, pos, sent)
    return None


def _check_value_row(project: Project, problems: _Problems, table: str, row: tuple[Any, ...],
                     unit: Unit, key: Any, value: Any) -> None:
    """A coding or decision: the API's checks (code, unit, role, scale), then the type."""
    if not _text(key) or project.codebook.get(key) is None:
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


def _validate(project: Project, name: str) -> None:
    """Refuse the merge if any staged row is one the API would not have written.

    Runs inside the merge's transaction after the new conversations and coders were added,
    so turns, sentences and coders are checked against the merged result.
    """
    db = project.db
    problems = _Problems(name)
    rows = store_merge.staged_rows
    for row in rows(db, "coders"):
        _n, cname, role, created = row
        if not _text(cname):
            problems.add("coders", row[0], f"coder name {cname!r} is not a name")
        elif role not in ROLES:
            problems.add("coders", row[0], f"coder '{cname}' has the role {role!r}; roles are "
                         f"{', '.join(ROLES)}")
        elif not _text(created, empty=True, null=True):
            problems.add("coders", row[0], f"coder '{cname}' has a creation time {created!r}")
    for row in rows(db, "participants"):
        if not _text(row[1]) or not _json_object(row[2]):
            problems.add("participants", row[0], f"participant {row[1]!r} is not valid")
    for row in rows(db, "conversations"):
        _n, cid, participant, model, topic, source, attributes, n_turns, imported = row
        texts = (participant, model, topic, source, imported)
        if not _text(cid):
            problems.add("conversations", row[0], f"conversation id {cid!r} is not a name")
        elif not all(_text(t, empty=True, null=True) for t in texts) \
                or not _json_object(attributes) or not _whole(n_turns):
            problems.add("conversations", row[0], f"conversation '{cid}' has values of the "
                         "wrong kind")
    for row in rows(db, "turns"):
        unit = _unit_of(row, problems, "turns", 1, sentence=False)
        _n, _cid, _pos, role, speaker, text, offset, comment, attributes = row
        if unit is None:
            continue
        if unit.position < 1:
            problems.add("turns", row[0], f"turn {unit.position} is not a turn number")
        elif role not in TURN_ROLES:
            problems.add("turns", row[0], f"turn {unit.position} of '{unit.conversation_id}' "
                         f"has the role {role!r}; roles are {', '.join(TURN_ROLES)}")
        elif (not _text(text, empty=True) or not _text(speaker, empty=True, null=True)
              or not _text(comment, empty=True, null=True) or not _json_object(attributes)
              or not (offset is None or isinstance(offset, int | float))):
            problems.add("turns", row[0], f"turn {unit.position} of '{unit.conversation_id}' "
                         "has values of the wrong kind")
    for row in rows(db, "user_ratings"):
        if row[3] not in RATING_KEYS or not (row[4] is None or _whole(row[4])):
            problems.add("user_ratings", row[0], f"rating {row[3]!r} = {row[4]!r} is not valid")
    for row in rows(db, "sentences"):
        _n, _cid, _pos, sent, start, end = row
        if not (_unit_of(row, problems, "sentences", 1, sentence=False) and _whole(sent, 1)
                and _whole(start) and _whole(end, start if _whole(start) else 0)):
            problems.add("sentences", row[0], "a sentence with positions of the wrong kind")
    coders = {c["name"] for c in project.coders()}

    def coder_ok(table: str, row: tuple[Any, ...], who: Any) -> bool:
        if not _text(who) or who not in coders:
            problems.add(table, row[0], f"coder {who!r} is not a coder of the project")
            return False
        return True

    for row in rows(db, "codings"):
        _n, coder, _cid, _pos, _sent, key, value, updated = row
        if not coder_ok("codings", row, coder):
            continue
        unit = _unit_of(row, problems, "codings", 2)
        if unit is not None:
            _check_value_row(project, problems, "codings", row, unit, key, value)
        if not _text(updated, null=True):
            problems.add("codings", row[0], f"update time {updated!r} is not a time")
    for row in rows(db, "consensus"):
        _n, _cid, _pos, _sent, key, value, adjudicator, rationale, decided = row
        unit = _unit_of(row, problems, "consensus", 1)
        if unit is not None:
            _check_value_row(project, problems, "consensus", row, unit, key, value)
        if adjudicator is not None:
            coder_ok("consensus", row, adjudicator)
        if not _text(rationale, empty=True) or not _text(decided, null=True):
            problems.add("consensus", row[0], "rationale or decision time of the wrong kind")
    for table in ("memos", "turn_status"):
        for row in rows(db, table):
            if not coder_ok(table, row, row[1]):
                continue
            unit = _unit_of(row, problems, table, 2, sentence=table == "memos")
            if unit is None:
                continue
            try:
                if table == "turn_status" and unit.position < 1:
                    raise ProjectError(f"turn {unit.position} is not a turn number")
                project.check_turn(unit.conversation_id, unit.position)
            except ProjectError as e:
                problems.add(table, row[0], str(e))
                continue
            what = row[5] if table == "memos" else row[4]
            if table == "memos" and not _text(what):
                problems.add(table, row[0], "a memo without text")
            elif table == "turn_status" and what not in (0, 1):
                problems.add(table, row[0], f"done is {what!r}, not 0 or 1")
    problems.raise_any()


# -- the merge -------------------------------------------------------------------------------

def _unit(row: tuple[Any, ...], start: int) -> Unit:
    return Unit(str(row[start]), int(row[start + 1]), int(row[start + 2]))


def _merge_one(project: Project, conn: Any, summary: SourceSummary, step: Callable[[], None]
               ) -> None:
    db = project.db
    name = summary.source
    try:
        store_merge.stage(db, conn)
    except store_merge.NotText as e:
        raise ProjectError(
            f"{name}: table '{e.table}', row {e.rowid}, column '{e.column}' holds bytes that "
            "are not UTF-8 text: the file was changed outside sense7-coder. Merge an earlier "
            f"copy ('sense7-coder restore {name}' lists its backups) or leave it out. "
            "Nothing was changed"
        ) from None
    step()
    bad = store_merge.turn_mismatches(db)
    if bad:
        listed = "; ".join(f"conversation '{c}' turn {p}: {why}" for c, p, why in bad[:5])
        raise ProjectError(
            f"{name}: conversations with the same id hold different turns ({listed}); they are "
            "not the same conversations, so the files cannot be merged. Nothing was changed"
        )
    bad_sent = store_merge.sentence_mismatches(db)
    if bad_sent:
        listed = "; ".join(f"conversation '{c}' turn {p}" for c, p in bad_sent[:5])
        raise ProjectError(
            f"{name}: sentences are split differently in the two files where this file codes "
            f"sentences ({listed}); nothing was changed"
        )
    added = store_merge.insert_new_conversations(db)
    summary.conversations = added["conversations"]
    summary.turns = added["turns"]
    summary.user_ratings = added["user_ratings"]
    summary.sentences = added["sentences"]
    step()
    for coder, mine, theirs in store_merge.role_differences(db):
        summary.notes.append(f"coder '{coder}' is {theirs} here but {mine} in the target; "
                             f"kept {mine}")
    summary.new_coders = store_merge.insert_new_coders(db)
    _validate(project, name)
    summary.assignments = store_assignments.insert_merged(db)
    step()
    for row in store_merge.conflicts(db, "codings", store_merge.CODING_KEY, "value"):
        summary.conflicts.append(Conflict("coding", name, _unit(row, 1), row[0], row[4],
                                          row[5], row[6]))
    for row in store_merge.conflicts(db, "memos", store_merge.MEMO_KEY, "text"):
        summary.conflicts.append(Conflict("memo", name, _unit(row, 1), row[0], None,
                                          row[4], row[5]))
    for row in store_merge.conflicts(db, "consensus", store_merge.CONSENSUS_KEY, "value"):
        summary.conflicts.append(Conflict("consensus", name, _unit(row, 0), None, row[3],
                                          row[4], row[5]))
    step()
    # the source's own history first, then this file's record of what the merge changes
    summary.history = store_history.insert_merged(db, Path(name).name)
    store_history.stamp_context(db, project.pdb.actor, f"merge {Path(name).name}")
    summary.codings_unchanged = store_merge.count_same(
        db, "codings", store_merge.CODING_KEY, "value"
    )
    summary.codings = store_merge.insert_missing(db, "codings", store_merge.CODING_KEY)
    summary.memos = store_merge.insert_missing(db, "memos", store_merge.MEMO_KEY)
    summary.consensus = store_merge.insert_missing(db, "consensus", store_merge.CONSENSUS_KEY)
    summary.statuses = store_merge.merge_statuses(db)
    step()
    store_merge.drop_stage(db)


def merge(
    target: Project,
    sources: Sequence[str | Path],
    *,
    dry_run: bool = False,
    on_conflict: str = "refuse",
    progress: ProgressFn = None,
    cancel: CancelFn = None,
) -> MergeReport:
    """Merge the project files ``sources`` into ``target`` (see the module notes).

    Raises :class:`MergeConflicts` (with the full report) when values conflict and
    ``on_conflict`` is 'refuse', :class:`ProjectError` for a source that cannot be merged,
    :class:`Cancelled` when ``cancel()`` answers True. In every such case the target is
    unchanged.
    """
    if on_conflict not in ON_CONFLICT:
        raise ProjectError(f"on-conflict must be one of {', '.join(ON_CONFLICT)}, got {on_conflict!r}")
    if not sources:
        raise ProjectError("give at least one project file to merge")
    report = MergeReport(dry_run=dry_run, on_conflict=on_conflict)
    conns = []
    total = _STEPS * len(sources)
    done = 0

    def step() -> None:
        nonlocal done
        if cancel and cancel():
            raise Cancelled()
        done += 1
        if progress:
            progress(done, total)

    try:
        for path in sources:
            path = Path(path)
            if _same_file(path, target.path):
                raise ProjectError(f"{path}: this is the target project itself")
            conn = store_merge.open_source(path)
            conns.append(conn)
            summary = SourceSummary(str(path))
            summary.notes += _check_codes(target, conn, str(path))
            report.sources.append(summary)
            step()
        try:
            with target.pdb.atomic():
                for conn, summary in zip(conns, report.sources, strict=True):
                    _merge_one(target, conn, summary, step)
                if report.conflicts and on_conflict == "refuse":
                    raise MergeConflicts(report)
                if dry_run:
                    raise _RollBack()
        except _RollBack:
            pass
        else:
            report.written = True
    finally:
        for conn in conns:
            conn.close()
        _drop_quietly(target)
    target.invalidate_codebook()
    return report


def _drop_quietly(project: Project) -> None:
    # after a failure the connection may be unusable; there is nothing to clean up then
    with contextlib.suppress(StorageError):
        store_merge.drop_stage(project.db)

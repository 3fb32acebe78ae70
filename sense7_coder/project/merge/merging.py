"""Merging coders' project files into one project.

Each coder codes in a copy of the project; :func:`merge` brings their work together:

* **conversations** are matched by id and **turns** by position; a conversation in both
  files must have the same turns (role and text) -- otherwise the merge is refused,
  naming the conversation and turn. Conversations the target lacks are copied with their
  turns, users' ratings, participants and sentences;
* **codes** are matched by key: a code the source uses must exist in the target with the
  same kind, unit and level values (else refused); labels and guidance may differ (the
  target's are kept);
* **coders** are matched by name (new ones are added with their role); a **coder
  package** brings only its coder's own work, checked against the reveal lock
  (:mod:`.guard`), and only a lead merges into a blind project;
* **codings, memos and consensus decisions** the target lacks are added; identical ones
  change nothing, so merging a file twice adds nothing. The same coder with a different
  value (or memo text, or a different consensus value) for the same unit is a
  **conflict**: every conflict is listed and, by default (``on_conflict='refuse'``), the
  whole merge is refused and nothing is written. With ``'keep-target'`` the target's
  values are kept, the source's conflicting ones are skipped, and the rest is merged;
  with ``'keep-source'`` the source's values replace the target's (a coder's correction
  in her own file); with ``'newest'`` the value set last wins, by each value's own time
  (``updated_at``, or ``decided_at`` for the consensus), the target's kept on a tie or
  where either time is missing. The report lists every conflict and which value was kept;
* **turn status**: a turn marked done in either file is done.

Everything happens in one transaction on the target; a failure at any point (a bad
source, a mismatch, a conflict, Cancel) leaves the target as it was. ``dry_run`` runs the
same steps and rolls them back, reporting what would change.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...domain.errors import Cancelled, Hint, ProjectError
from ...domain.merging import ON_CONFLICT
from ...domain.models import ROLES_OF, Unit
from ...domain.names import names_text
from ...domain.progress import CancelFn, ProgressFn
from ...domain.words import count as counted
from ...store import StorageError
from ...store import assignments as store_assignments
from ...store import codings as store_codings
from ...store import history as store_history
from ...store.merge import differences as merge_differences
from ...store.merge import staging as store_merge
from ...store.spans import table as store_spans
from ...store.values import restored
from ..changes import EVERYTHING, NOTHING, Changes
from ..dry_run import trial
from ..project import Project
from . import guard as merge_guard
from .rows import validate_rows

#: steps of progress per source file
_STEPS = 6


@dataclass
class Conflict:
    """One unit on which the two files disagree for the same coder (or the consensus)."""

    kind: str  # 'coding' | 'revision' (changed after the reveal) | 'rationale' | 'memo' | ...
    source: str
    unit: Unit
    coder: str | None
    code: str | None
    target_value: Any
    source_value: Any
    #: when each file's value was set (ISO 8601 text, or None where not recorded)
    target_time: Any = None
    source_time: Any = None
    #: which value the merge keeps: 'target' or 'source'; None when the merge is refused
    kept: str | None = None
    #: why, in a few words (for 'newest': which was set later)
    why: str = ""
    #: a span's (start, end) (kind 'span')
    span: tuple[int, int] | None = None

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
        if self.kind == "revision":
            what += " (changed after the reveal)"
        elif self.kind == "rationale":
            what = f"the rationale of {what}"
        if self.span is not None:
            what += f", span {self.span[0]}-{self.span[1]}"
        text = (f"{self.source}: {who}, {what}, {where}: target has {show(self.target_value)}, "
                f"source has {show(self.source_value)}")
        if self.kept:
            text += f"; kept the {self.kept}'s" + (f" ({self.why})" if self.why else "")
        return text


_SINGULAR = {
    "codings": "coding", "conversations": "conversation", "turns": "turn",
    "user ratings": "user rating", "turns marked done": "turn marked done", "memos": "memo",
    "consensus decisions": "consensus decision", "assignments": "assignment",
    "history events": "history event", "values replaced": "value replaced",
    "spans": "span", "rationales": "rationale",
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
    rationales: int = 0
    consensus: int = 0
    spans: int = 0
    assignments: int = 0
    history: int = 0
    #: the target's values replaced by the source's (keep-source, newest)
    replaced: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the coder whose package the file is (None: a whole project)
    package_coder: str | None = None
    #: the target's codebook version as the merge stamps values (:mod:`.versions`)
    version_now: int = 0

    @property
    def additions(self) -> int:
        """How many rows the source adds (or replaces)."""
        return (self.conversations + self.turns + self.user_ratings + self.sentences
                + len(self.new_coders) + self.codings + self.statuses + self.memos
                + self.consensus + self.assignments + self.history + self.replaced
                + self.spans + self.rationales)

    def line(self, dry_run: bool) -> str:
        verb = "would add" if dry_run else "added"
        def count(n: int, what: str) -> str:  # "1 coding", "2 codings", "1 turn marked done"
            return f"{n} {_SINGULAR.get(what, what) if n == 1 else what}"

        if not self.additions:
            return (f"{self.source}: nothing new "
                    f"({count(self.codings_unchanged, 'codings')} already present)")
        parts = [count(self.codings, "codings")]
        if self.codings_unchanged:
            parts[0] += f" ({self.codings_unchanged} already present)"
        for n, what in ((self.conversations, "conversations"), (self.turns, "turns"),
                        (self.user_ratings, "user ratings"), (self.statuses, "turns marked done"),
                        (self.memos, "memos"), (self.rationales, "rationales"),
                        (self.consensus, "consensus decisions"),
                        (self.spans, "spans"),
                        (self.assignments, "assignments"), (self.history, "history events"),
                        (self.replaced, "values replaced")):
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
    def additions(self) -> int:
        """How many rows the merge adds (or replaces), over every source."""
        return sum(s.additions for s in self.sources)

    @property
    def changes(self) -> Changes:
        """What the merge changed: everything, once it wrote anything."""
        return EVERYTHING if self.written and not self.dry_run and self.additions else NOTHING

    def lines(self) -> list[str]:
        out = []
        for s in self.sources:
            out.append(s.line(self.dry_run or not self.written))  # refused: nothing added
            out += [f"  note: {n}" for n in s.notes]
        if self.conflicts:
            n = len(self.conflicts)
            kept = ""
            if self.on_conflict != "refuse":
                taken = sum(c.kept == "source" for c in self.conflicts)
                kept = (f" ({self.on_conflict}): {taken} source value"
                        f"{'s' if taken != 1 else ''} taken, {n - taken} target value"
                        f"{'s' if n - taken != 1 else ''} kept")
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
            "above); nothing was changed",
            hint=Hint("on-conflict", "keep-target",
                      "resolve them, or merge keeping the target's values (keep-target), the "
                      "files' values (keep-source) or the value set last (newest)"),
        )


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


# -- the merge -------------------------------------------------------------------------------

def _unit(row: tuple[Any, ...], start: int) -> Unit:
    return Unit(str(row[start]), int(row[start + 1]), int(row[start + 2]))


def _conflicts(db: Any, name: str) -> list[Conflict]:
    """Every unit on which the staged source and the target disagree."""
    out = []
    for row in store_merge.conflicts(db, "codings", store_merge.CODING_KEY, "value"):
        out.append(Conflict("coding", name, _unit(row, 1), row[0], row[4], *row[5:]))
    for row in store_merge.conflicts(db, "revisions", store_merge.CODING_KEY, "value"):
        out.append(Conflict("revision", name, _unit(row, 1), row[0], row[4], *row[5:]))
    for row in store_merge.conflicts(db, "value_rationales", store_merge.CODING_KEY, "text"):
        out.append(Conflict("rationale", name, _unit(row, 1), row[0], row[4], *row[5:]))
    for row in store_merge.conflicts(db, "memos", store_merge.MEMO_KEY, "text"):
        out.append(Conflict("memo", name, _unit(row, 1), row[0], None, *row[4:]))
    for row in store_merge.conflicts(db, "consensus", store_merge.CONSENSUS_KEY, "value"):
        out.append(Conflict("consensus", name, _unit(row, 0), None, row[3], *row[4:]))
    for row in store_merge.conflicts(db, "spans", store_merge.SPAN_KEY, "value"):
        coder, cid, pos, start, end, code, mine, theirs, my_time, their_time = row
        out.append(Conflict("span", name, Unit(str(cid), int(pos)), coder, code, mine, theirs,
                            my_time, their_time, span=(int(start), int(end))))
    return out


def _moment(stamp: Any) -> dt.datetime | None:
    """A stored time as an aware datetime (a time without a zone is UTC), or None."""
    try:
        moment = dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _choose(conflict: Conflict, on_conflict: str) -> tuple[str | None, str]:
    """Which value to keep, and why."""
    if on_conflict == "refuse":
        return None, ""
    if on_conflict == "keep-target":
        return "target", ""
    if on_conflict == "keep-source":
        return "source", ""
    mine, theirs = _moment(conflict.target_time), _moment(conflict.source_time)
    if mine is None or theirs is None:
        return "target", "no time to compare"
    if theirs > mine:
        return "source", f"newer: {conflict.source_time}"
    if theirs == mine:
        return "target", "set at the same time"
    return "target", f"newer: {conflict.target_time}"


_TABLE = {"coding": ("codings", store_merge.CODING_KEY),
          "revision": ("revisions", store_merge.CODING_KEY),
          "memo": ("memos", store_merge.MEMO_KEY),
          "rationale": ("value_rationales", store_merge.CODING_KEY),
          "consensus": ("consensus", store_merge.CONSENSUS_KEY),
          "span": ("spans", store_merge.SPAN_KEY)}


def _settle(db: Any, conflicts: list[Conflict], on_conflict: str,
            origin: str) -> tuple[int, list[tuple[Any, ...]]]:
    """Decide each conflict; write the source's value where it is the one kept (recorded
    as merged from ``origin``). Returns how many of the target's values were replaced, and
    the keys of the codings replaced."""
    taken: dict[str, list[tuple[Any, ...]]] = {}
    for c in conflicts:
        c.kept, c.why = _choose(c, on_conflict)
        if c.kept == "source":
            unit = (c.unit.conversation_id, c.unit.position, c.unit.sentence)
            if c.kind == "span" and c.span is not None:
                taken.setdefault(c.kind, []).append(
                    (c.coder, c.unit.conversation_id, c.unit.position, *c.span, c.code))
                continue
            key = {"coding": (c.coder, *unit, c.code), "revision": (c.coder, *unit, c.code),
                   "rationale": (c.coder, *unit, c.code),
                   "memo": (c.coder, *unit),
                   "consensus": (*unit, c.code)}[c.kind]
            taken.setdefault(c.kind, []).append(key)
    replaced = 0
    for kind, keys in taken.items():
        table, key_columns = _TABLE[kind]
        replaced += store_merge.take_source(db, table, key_columns, keys, origin)
    return replaced, taken.get("coding", [])


def _insert_values(db: Any, summary: SourceSummary) -> None:
    """The source's codings, changes after the reveal, memos and rationales the target
    lacks."""
    key = store_merge.CODING_KEY
    summary.codings = store_merge.insert_missing(db, "codings", key)
    summary.codings += store_merge.insert_missing(db, "revisions", key)
    summary.memos = store_merge.insert_missing(db, "memos", store_merge.MEMO_KEY)
    summary.rationales = store_merge.insert_missing(db, "value_rationales", key)


def _note_kept_differences(project: Project, name: str, summary: SourceSummary) -> None:
    """Say which conversations this project holds that the file describes otherwise (their
    model, attributes, turns' speakers or comments, the users' ratings): a merge takes only
    the coders' work, so they stay as they are here (never silently)."""
    differ, examples = merge_differences.kept_differences(project.db)
    if differ:
        listed = "; ".join(f"'{c}': {what}" for c, what in examples)
        more = f"; and {differ - len(examples)} more" if differ > len(examples) else ""
        one = differ == 1
        summary.notes.append(
            f"{counted(differ, 'conversation')} this project holds "
            f"{'is' if one else 'are'} described otherwise in {name} ({listed}{more}); a "
            "merge takes only the coders' work, so "
            f"{'it stays as it is' if one else 'they stay as they are'} here")


def _merge_one(project: Project, conn: Any, summary: SourceSummary, step: Callable[[], None],
               on_conflict: str = "refuse") -> None:
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
    merge_guard.restrict(project, summary)
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
    _note_kept_differences(project, name, summary)
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
    validate_rows(project, name)
    merge_guard.hold_locks(project, summary)
    summary.assignments = store_assignments.insert_merged(db)
    step()
    found = _conflicts(db, name)
    summary.conflicts += found
    step()
    # the source's own history first, then this file's record of what the merge changes
    summary.history = store_history.insert_merged(db, Path(name).name)
    store_history.stamp_context(db, project.pdb.actor, f"merge {Path(name).name}")
    summary.codings_unchanged = store_merge.count_same(
        db, "codings", store_merge.CODING_KEY, "value"
    )
    codings_before = store_codings.last_rowid(db, "codings")
    consensus_before = store_codings.last_rowid(db, "consensus")
    summary.replaced, replaced = _settle(db, found, on_conflict, Path(name).name)
    _insert_values(db, summary)
    summary.consensus = store_merge.insert_missing(db, "consensus", store_merge.CONSENSUS_KEY)
    spans_before = store_codings.last_rowid(db, "spans")
    summary.spans = store_merge.insert_missing(db, "spans", store_merge.SPAN_KEY)
    store_spans.mark_spans_merged(db, spans_before, Path(name).name)
    # how the values were made, as far as this file can tell (merge_guard), from this file
    merge_guard.stage_made(project, conn, summary)
    merge_guard.stamp(project, codings_before, replaced, Path(name).name, summary)
    store_codings.mark_merged(db, "consensus", consensus_before, Path(name).name)
    summary.statuses = store_merge.merge_statuses(db)
    step()
    store_merge.drop_stage(db)


def merge(
    target: Project,
    sources: Sequence[str | Path],
    *,
    dry_run: bool = False,
    on_conflict: str = "refuse",
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
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
            summary.notes += store_merge.log_notes(path, conn)
            summary.package_coder = merge_guard.check_source(target, conn, str(path))
            summary.notes += _check_codes(target, conn, str(path))
            report.sources.append(summary)
            step()
        with trial(target.pdb, dry_run):
            for conn, summary in zip(conns, report.sources, strict=True):
                _merge_one(target, conn, summary, step, on_conflict)
            if report.conflicts and on_conflict == "refuse":
                raise MergeConflicts(report)
        report.written = not dry_run
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

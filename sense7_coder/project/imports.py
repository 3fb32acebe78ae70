"""Importing conversation files and coders' codings into a project.

Each call is one transaction: every file of the call lands, or none does. Re-importing a
file adds nothing: a conversation whose id is already in the project with the same messages
is skipped; one with the same id but different messages is refused (it would otherwise be
silently shadowed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..domain import rows as rows_check
from ..domain.attributes import judgment_names
from ..domain.codings_csv import read_codings_file
from ..domain.errors import Cancelled, Hint, InputError, ProjectError
from ..domain.importers import ImportOptions
from ..domain.importers.reading import StreamedFile, stream_files
from ..domain.models import Coding, Conversation, Sentence, Unit
from ..domain.progress import CancelFn, ProgressFn
from ..domain.sentences import segment_turns
from ..domain.spans import Span, SpanCoding
from ..domain.words import count
from ..store import codings as store_codings
from ..store import conversations as store_conv
from ..store import meta as store_meta
from ..store.db import refuse_open_project_file
from ..store.spans import table as store_spans
from . import authority, judgments
from .changes import EVERYTHING, NOTHING, Changes
from .project import Project

T = TypeVar("T")


@dataclass
class FileSummary:
    source: str
    conversations: int = 0
    turns: int = 0
    user_ratings: int = 0
    already_present: int = 0
    skipped_rows: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class ImportSummary:
    files: list[FileSummary] = field(default_factory=list)
    dry_run: bool = False

    @property
    def conversations(self) -> int:
        return sum(f.conversations for f in self.files)

    @property
    def turns(self) -> int:
        return sum(f.turns for f in self.files)

    @property
    def already_present(self) -> int:
        return sum(f.already_present for f in self.files)

    @property
    def changes(self) -> Changes:
        """What the import changed: everything, once it wrote conversations."""
        return NOTHING if self.dry_run or not self.conversations else EVERYTHING

    def lines(self) -> list[str]:
        verb = "would import" if self.dry_run else "imported"
        out = []
        for f in self.files:
            text = (f"{f.source}: {verb} {count(f.conversations, 'conversation')}, "
                    f"{count(f.turns, 'turn')}, {count(f.user_ratings, 'user rating')}")
            if f.already_present:
                text += f"; {f.already_present} already in the project (skipped)"
            if f.skipped_rows:
                text += f"; {count(f.skipped_rows, 'row')} skipped"
            out.append(text)
            out += [f"  warning: {w}" for w in f.warnings]
        return out


def _same_messages(project: Project, conv: Conversation) -> bool:
    stored = store_conv.load_conversation(project.db, conv.conversation_id)
    if stored is None or len(stored.turns) != len(conv.turns):
        return False
    return all(
        a.position == b.position and a.role == b.role and a.text == b.text
        for a, b in zip(stored.turns, conv.turns, strict=True)
    )


#: conversations checked and written together (a bounded share of a streamed file)
CHUNK = 2000


def _chunks(items: Iterator[T], size: int = CHUNK) -> Iterator[list[T]]:
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _plan(project: Project, source: str, conversations: list[Conversation],
          fs: FileSummary) -> list[Conversation]:
    """Of a chunk of one file's conversations, those to write: one already in the project
    with the same messages is counted and skipped, one with the same id but different
    messages is refused. (Ids are unique across the files read: :func:`stream_files`.)"""
    existing = store_conv.existing_conversation_ids(
        project.db, [c.conversation_id for c in conversations])
    keep: list[Conversation] = []
    for conv in conversations:
        cid = conv.conversation_id
        if cid in existing:
            if _same_messages(project, conv):
                fs.already_present += 1
                continue
            raise InputError(
                source,
                f"conversation '{cid}' is already in the project with different messages; "
                "give it another id to import it",
                field="conversation_id",
                hint=Hint("map", "conversation_id=COLUMN",
                          "or take the ids from another column"),
            )
        keep.append(conv)
        fs.conversations += 1
        fs.turns += len(conv.turns)
        fs.user_ratings += sum(
            1 for t in conv.turns for v in t.ratings.values() if v is not None
        )
    return keep


def import_files(
    project: Project,
    paths: Sequence[str | Path],
    options: ImportOptions | None = None,
    *,
    dry_run: bool = False,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> ImportSummary:
    """Read every file, check it and write it, all in one transaction (nothing is written
    on a dry run). Files are read a share at a time and written as they are read (JSON
    arrays and JSON Lines one conversation at a time), so memory does not grow with
    their size; a problem anywhere raises its one error and nothing of the call lands."""
    options = options or ImportOptions()
    for p in paths:
        refuse_open_project_file(p, "to import")
    files = stream_files([Path(p) for p in paths], options, progress=progress, cancel=cancel)
    if dry_run:
        summary = ImportSummary(dry_run=True)
        for file in files:
            fs = FileSummary(file.source)
            for chunk in _chunks(file.conversations):
                _plan(project, file.source, chunk, fs)
            summary.files.append(_finished(fs, file))
        return summary

    def check() -> None:
        if cancel and cancel():
            raise Cancelled()

    summary = ImportSummary()
    sentence_roles = sorted(
        {c.applies_to for c in project.codebook.active if c.unit == "sentence"}
    )
    roles = {"user", "assistant", "system"} if "any" in sentence_roles else set(sentence_roles)
    with project.pdb.acting("import"), project.pdb.atomic() as db:
        for file in files:
            fs = FileSummary(file.source)
            participants = file.participants
            for chunk in _chunks(file.conversations):
                keep = _plan(project, file.source, chunk, fs)
                store_conv.insert_conversations(db, keep, participants, check=check)
                mark_judgments(project, file.judgments, keep)
                participants = []
                if sentence_roles:
                    store_conv.insert_sentences(db, _checked(segment_turns(
                        (c.conversation_id, t.position, t.text)
                        for c in keep for t in c.turns if t.role in roles), check))
            summary.files.append(_finished(fs, file))
        check()
    if progress:
        progress(1, 1)
    return summary


def _finished(fs: FileSummary, file: StreamedFile) -> FileSummary:
    """The file's summary with what is known once it was read to its end."""
    fs.skipped_rows = file.skipped_rows
    fs.warnings = list(file.warnings)
    return fs


def _checked(items: Iterable[T], check: Callable[[], None], every: int = 5000) -> Iterator[T]:
    """``items``, calling ``check`` (which raises on Cancel) every few thousand."""
    for i, item in enumerate(items):
        if i % every == 0:
            check()
        yield item


def ensure_sentences(project: Project, conversation_id: str) -> Changes:
    """Segment (once) the turns of a conversation that sentence-level codes apply to; the
    conversation changed when its turns were segmented here."""
    roles = {c.applies_to for c in project.codebook.active if c.unit == "sentence"}
    if not roles:
        return NOTHING
    role_list = ["user", "assistant", "system"] if "any" in roles else sorted(roles)
    todo = store_conv.unsegmented_turns(project.db, role_list, conversation_id)
    if not todo:
        return NOTHING
    with project.pdb.acting("import"), project.pdb.atomic() as db:
        store_conv.insert_sentences(db, segment_turns(todo))
    return Changes(conversations=frozenset({conversation_id}))


def _check_sentences(project: Project, path: Path, rows: Sequence[tuple[int, Coding]]
                     ) -> list[Sentence]:
    """Refuse a coding of a sentence its turn does not have (naming the line).

    Turns not segmented yet are segmented here; their sentences are returned to be stored
    with the codings (so both land, or neither does).
    """
    wanted = {(c.unit.conversation_id, c.unit.position) for _, c in rows if c.unit.sentence}
    if not wanted:
        return []
    counts = store_conv.sentence_counts(project.db)
    todo = []
    for cid, pos in sorted(wanted - set(counts)):
        text = store_conv.turn_text(project.db, cid, pos)
        if text is not None:
            todo.append((cid, pos, text))
    new = list(segment_turns(todo))
    for s in new:
        key = (s.conversation_id, s.position)
        counts[key] = max(counts.get(key, 0), s.sentence)
    for line, c in rows:
        n = counts.get((c.unit.conversation_id, c.unit.position), 0)
        if c.unit.sentence > n:
            raise InputError(
                str(path),
                f"turn {c.unit.position} of '{c.unit.conversation_id}' has {n} sentences; "
                f"there is no sentence {c.unit.sentence}",
                location=f"line {line}", field="sentence",
            )
    return new


@dataclass
class CodingsSummary:
    source: str
    codings: int = 0
    new_coders: list[str] = field(default_factory=list)
    unchanged: int = 0
    #: turns the file's done column marks done that were not done before
    done: int = 0
    #: spans new or changed (span codes' rows, with start and end)
    spans: int = 0
    #: what the import changed (everything once it wrote; nothing on a dry run)
    changes: Changes = NOTHING



def _split_spans(project: Project, path: Path, rows: Sequence[tuple[int, Coding]]
                 ) -> tuple[list[tuple[int, Coding]], list[Span]]:
    """The file's codings of unit codes, and its spans checked against their turns' text
    (one line naming the file, row and field when one lies outside it)."""
    codings: list[tuple[int, Coding]] = []
    spans: list[Span] = []
    lengths: dict[tuple[str, int], int] = {}
    for line, c in rows:
        if not isinstance(c, SpanCoding):
            codings.append((line, c))
            continue
        where = (c.unit.conversation_id, c.unit.position)
        if where not in lengths:
            lengths[where] = len(store_conv.turn_text(project.db, *where) or "")
        try:
            rows_check.span_offsets(c.start, c.end, text_length=lengths[where])
        except rows_check.RowError as e:
            raise InputError(str(path), e.message, location=f"line {line}",
                             field=e.field) from None
        spans.append(Span(c.key(), c.value, "", "imported", False, path.name))
    return codings, spans


def import_codings(project: Project, path: str | Path, *, dry_run: bool = False,
                   encoding: str | None = None) -> CodingsSummary:
    """Load coders' codings from ``coder,conversation_id,turn,code,value[,sentence]``.

    Unknown coders are created. Unknown codes, conversations, turns and out-of-range values
    are errors naming the line; nothing is written then. ``encoding`` names the file's
    text encoding when it is not UTF-8.
    """
    path = Path(path)
    refuse_open_project_file(path, "to import")
    turns = store_conv.turn_roles(project.db)
    conv_ids = store_conv.all_conversation_ids(project.db)
    rows, marks = read_codings_file(path, project.codebook, turns=turns,
                                    conversations=conv_ids, encoding=encoding)
    beside = authority.check_import(project, str(path), rows, marks)
    rows, spans = _split_spans(project, path, rows)
    summary = CodingsSummary(str(path))
    summary.spans = sum(1 for s in spans if (old := store_spans.get_span(project.db, s.key))
                        is None or old.value != s.value)
    known = {c["name"] for c in project.coders()}
    summary.new_coders = sorted(({c.coder for _, c in rows} | {s.coder for s in spans})
                                - known)
    keys = [
        (c.coder, c.unit.conversation_id, c.unit.position, c.unit.sentence, c.code) for _, c in rows
    ]
    sentences = _check_sentences(project, path, rows)
    existing = store_codings.existing_codings(project.db, keys)
    summary.unchanged = sum(
        1 for k, (_, c) in zip(keys, rows, strict=True) if k in existing and existing[k] == c.value
    )
    summary.codings = len(rows) - summary.unchanged
    summary.done = len([m for m in marks if not store_codings.get_done(project.db, *m)])
    if dry_run:
        return summary
    with project.pdb.acting("import codings"), project.pdb.atomic() as db:
        store_conv.insert_sentences(db, sentences)
        for name in summary.new_coders:
            store_codings.ensure_coder(db, name)
        write_imported(db, [(c.coder, c.unit.conversation_id, c.unit.position,
                             c.unit.sentence, c.code, c.value) for _, c in rows],
                       beside, path.name)
        store_spans.insert_spans(db, spans)
        for coder, cid, position in marks:
            store_codings.put_done(db, coder, cid, position, True)
    summary.changes = EVERYTHING
    return summary


@dataclass
class RaterSummary:
    files: list[Any] = field(default_factory=list)
    #: what the import changed (everything once it wrote; nothing on a dry run)
    changes: Changes = NOTHING

    def lines(self, dry_run: bool = False) -> list[str]:
        verb = "would import" if dry_run else "imported"
        out = []
        for f in self.files:
            n = len(f.codings)
            cols = ", ".join(f"{col}={key}" for key, col in f.columns.items())
            out.append(f"{f.path}: {verb} {n} coding{'s' if n != 1 else ''} for "
                       f"{f.rater} ({cols})")
            if f.left_out:
                out.append(f"  left out (no code): {', '.join(f.left_out)}")
        return out


def import_rater_files(project: Project, paths: Sequence[str | Path], *,
                       mapping: dict[str, str] | None = None, rater: str | None = None,
                       turn_column: str = "turn", dry_run: bool = False) -> RaterSummary:
    """Import rater files (one per rater, one column per code; see
    :mod:`sense7_coder.domain.rater_files`) in one transaction: all land, or none."""
    from ..domain.rater_files import read_rater_file

    if rater and len(paths) > 1:
        raise ProjectError("give one file when naming its rater; with several files each "
                           "rater is named after their file")
    roles = store_conv.turn_roles(project.db)
    conv_ids = store_conv.all_conversation_ids(project.db)

    def exists(cid: str, position: int) -> bool:
        return cid in conv_ids if position == 0 else (cid, position) in roles

    summary = RaterSummary()
    for path in paths:
        summary.files.append(read_rater_file(path, project.codebook, rater=rater,
                                             mapping=mapping, turn_column=turn_column,
                                             exists=exists,
                                             role_of=lambda c, p: roles.get((c, p))))
    raters = [f.rater for f in summary.files]
    twice = sorted({r for r in raters if raters.count(r) > 1})
    if twice:
        raise ProjectError(f"two files are rated by {twice[0]!r}; name each file's rater")
    if dry_run:
        return summary
    beside = [authority.check_import(project, str(f.path), f.codings) for f in summary.files]
    with project.pdb.acting("import ratings"), project.pdb.atomic() as db:
        for f, later in zip(summary.files, beside, strict=True):
            store_codings.ensure_coder(db, f.rater)
            write_imported(db, [(c.coder, c.unit.conversation_id, c.unit.position,
                                 c.unit.sentence, c.code, c.value) for _, c in f.codings],
                           later, Path(f.path).name)
    summary.changes = EVERYTHING
    return summary


def write_imported(db: Any, values: list[tuple[Any, ...]], beside: list[tuple[Any, ...]],
                   origin: str) -> None:
    """Imported values: those of turns revealed to their blind coder (the lock off) go
    beside the values set blind, as changes after the reveal; the rest as imported."""
    later = {tuple(r) for r in beside}
    store_codings.insert_codings(db, (r for r in values if tuple(r) not in later),
                                 origin=origin)
    for coder, cid, pos, sentence, code, value in beside:
        store_codings.put_revision(db, coder, Unit(cid, pos, sentence), code, value)


def mark_judgments(project: Project, known: Iterable[str],
                   conversations: Sequence[Conversation]) -> None:
    """Add the attributes a file holds as the users' own judgments (``known``: as its
    importer knows them; or as the names of the attributes of ``conversations`` say) to
    the project's list of them; the caller holds the transaction."""
    names = set(known) | judgment_names(conversations)
    if names - set(judgments.judgments(project)):
        store_meta.set_meta(project.db, "judgment_attributes",
                             judgments.marked_text({*judgments.judgments(project), *names}))

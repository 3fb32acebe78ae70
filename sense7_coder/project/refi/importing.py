"""Importing a REFI-QDA project (``.qdpx``) into a sense7-coder project, in one
transaction: its codebook is merged into the project's (as ``codebook import`` does), its
text sources become conversations, its users coders, its codings turn, sentence,
conversation or span codings and its notes memos (see
:mod:`sense7_coder.domain.refi.reading` for the mapping). Every row passes the checks the
API makes (coder names, conversation ids, values on the code's scale, spans inside their
turn's text); the first that fails names the file and nothing is written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...domain import rows
from ...domain.errors import InputError, ProjectError
from ...domain.importers.roles import RoleResolver
from ...domain.models import Conversation, Participant, Turn, Unit
from ...domain.refi.reading import RefiProject, RefiSource, read_qdpx, turn_pieces
from ...domain.sentences import segment_turns
from ...domain.spans import Span, SpanKey
from ...store import codings as store_codings
from ...store import conversations as store_conv
from ...store.db import refuse_open_project_file
from ...store.spans import table as store_spans
from .. import authority
from ..changes import EVERYTHING, NOTHING, Changes
from ..codebook import editing as codebook_ops
from ..dry_run import trial
from ..imports import write_imported
from ..project import Project
from ..spans.editing import checked_span
from . import extra as refi_extra

#: the users sense7-coder exports its consensus as (see :mod:`..exchange`)
CONSENSUS_USERS = ("consensus", "consensus (adjudicated)")
#: variables sense7-coder writes for each source, read back into their own fields
_FIELDS = ("participant_id", "model", "topic")


@dataclass
class QdpxImportSummary:
    path: str
    conversations: int = 0
    turns: int = 0
    codes_added: int = 0
    coders: list[str] = field(default_factory=list)
    codings: int = 0
    spans: int = 0
    memos: int = 0
    #: consensus decisions (a sense7-coder export's user ``consensus``)
    decisions: int = 0
    unchanged: int = 0
    #: codings and spans the project held already with the same value
    present: int = 0
    skipped: list[str] = field(default_factory=list)
    #: what may not have been read as meant (a source's ambiguous line ends)
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False

    @property
    def changes(self) -> Changes:
        """What the import changed: everything a view shows (nothing on a dry run)."""
        return NOTHING if self.dry_run else EVERYTHING

    def lines(self) -> list[str]:
        verb = "would import" if self.dry_run else "imported"
        out = [f"{self.path}: {verb} {self.conversations} conversations ({self.turns} turns), "
               f"{self.codes_added} new codes, {len(self.coders)} coders, {self.codings} "
               f"codings, {self.spans} spans"
               + (f" ({self.present} already present)" if self.present else "")
               + f", {self.memos} memos"
               + (f", {self.decisions} consensus decisions" if self.decisions else "")]
        if self.unchanged:
            out.append(f"  {self.unchanged} conversations already in the project (kept)")
        if self.skipped:
            out.append("  left out: " + "; ".join(self.skipped))
        out += [f"  warning: {w}" for w in self.warnings]
        return out


def schema_file() -> Path:
    """The REFI-QDA project schema that ships with sense7-coder."""
    from ...resources import resources_dir

    return resources_dir() / "refi" / "Project.xsd"


def _conversation_ids(project: Project, doc: RefiProject, where: str) -> dict[str, str]:
    """Source GUID -> conversation id (its name, made unique)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for src in doc.sources:
        base = " ".join(src.name.split()) or src.guid
        try:
            rows.conversation_id(base)
        except rows.RowError:
            base = src.guid
        cid, n = base, 2
        while cid in taken:
            cid, n = f"{base} ({n})", n + 1
        taken.add(cid)
        out[src.guid] = cid
    return out


def _conversation(cid: str, src: RefiSource, where: str) -> Conversation:
    fields = {k: (v or None) for k, v in src.variables.items() if k in _FIELDS}
    attributes = {k: v for k, v in src.variables.items() if k not in _FIELDS and v != ""}
    turns = [Turn(position=i, role=t.role, text=t.text, speaker=t.speaker)
             for i, t in enumerate(src.turns, 1)]
    conv = Conversation(cid, turns, participant_id=fields.get("participant_id"),
                        model=fields.get("model"), topic=fields.get("topic"),
                        source="refi-qda", attributes=attributes)
    if src.extra is not None:
        refi_extra.restore(conv, src.extra, where)
    return conv


def import_qdpx(project: Project, path: str | Path, *, dry_run: bool = False,
                roles: Mapping[str, str] | None = None,
                read: RefiProject | None = None) -> QdpxImportSummary:
    """Import a ``.qdpx`` into ``project`` (a lead only: it changes the codebook);
    ``read``: the file as :func:`read_qdpx` already read it."""
    path = Path(path)
    refuse_open_project_file(path, "to import")
    project.require_lead("import a REFI-QDA project (it changes the codebook)")
    where = str(path)
    doc = read if read is not None else read_qdpx(path, RoleResolver(dict(roles or {})),
                                                  schema_file())
    summary = QdpxImportSummary(where, dry_run=dry_run, skipped=list(doc.skipped),
                                warnings=list(doc.warnings))
    ids = _conversation_ids(project, doc, where)
    existing = store_conv.existing_conversation_ids(project.db, ids.values())
    new_sources = []
    for src in doc.sources:
        cid = ids[src.guid]
        if cid in existing:
            stored = project.conversation(cid)
            if stored is None or [t.text for t in stored.turns] != [t.text for t in src.turns]:
                raise InputError(where, f"the project already holds a conversation '{cid}' "
                                 "with other text", field="TextSource")
            summary.unchanged += 1
        else:
            new_sources.append(src)
    conversations = [_conversation(ids[s.guid], s, where) for s in new_sources]
    for conv in conversations:
        for t in conv.turns:
            rows.turn(conv.conversation_id, t.position, t.role, t.speaker, t.text, None, None,
                      "{}")
    summary.conversations = len(conversations)
    summary.turns = sum(len(c.turns) for c in conversations)
    users = {}
    for name in doc.users:
        shown = " ".join(name.split()) or "imported"
        try:
            users[name] = rows.coder_name(shown)
        except rows.RowError as e:
            raise InputError(where, e.message, field="User") from None
    known_codes = {c.key for c in project.codebook.codes}
    summary.codes_added = len([c for c in doc.codebook.codes if c.key not in known_codes])
    try:
        # on a dry run every check made, as the import makes them; nothing kept
        with project.pdb.acting("import"), trial(project.pdb, dry_run) as db:
            codebook_ops.apply_codebook(project, doc.codebook)
            participants = sorted({c.participant_id for c in conversations
                                   if c.participant_id})
            store_conv.insert_conversations(db, conversations,
                                            [Participant(p) for p in participants])
            _write_codings(project, doc, ids, users, summary, where)
    finally:
        project.invalidate_codebook()
    return summary


def _present(db: Any, codings: dict[tuple[str, str, int, int, str], Any],
             spans: dict[SpanKey, Span]) -> tuple[int, int]:
    """How many of ``codings`` and of ``spans`` the project holds already, same value."""
    existing = store_codings.existing_codings(db, list(codings))
    same_codings = sum(1 for k, v in codings.items() if k in existing and existing[k] == v)
    same_spans = sum(1 for k, sp in spans.items()
                     if (old := store_spans.get_span(db, k)) is not None
                     and old.value == sp.value)
    return same_codings, same_spans


def _write_codings(project: Project, doc: RefiProject, ids: dict[str, str],
                   users: dict[str, str], summary: QdpxImportSummary, where: str) -> None:
    db = project.db
    book = project.codebook
    sources = {s.guid: s for s in doc.sources}
    origin = Path(where).name
    segmented: dict[tuple[str, int], list[tuple[int, int]]] = {}

    def sentences(cid: str, position: int, text: str) -> list[tuple[int, int]]:
        key = (cid, position)
        if key not in segmented:
            stored = store_conv.sentences_of(db, cid).get(position)
            if not stored:
                new = list(segment_turns([(cid, position, text)]))
                store_conv.insert_sentences(db, new)
                stored = [(s.start, s.end) for s in new]
            segmented[key] = list(stored)
        return segmented[key]

    codings: dict[tuple[str, str, int, int, str], Any] = {}
    spans: dict[SpanKey, Span] = {}
    left: dict[str, int] = {}
    for c in doc.codings:
        code = book.get(c.code)
        src = sources[c.source]
        cid = ids[c.source]
        coder = users.get(c.user, "imported")
        if code is None:
            continue
        if c.start is None or c.end is None or (
                code.unit == "conversation" and refi_extra.whole(src, c.start, c.end)):
            if code.unit == "conversation":
                codings[(coder, cid, 0, 0, code.key)] = c.value
            else:
                left[f"codings of whole sources with the {code.unit} code '{code.key}'"] = \
                    left.get(f"codings of whole sources with the {code.unit} code "
                             f"'{code.key}'", 0) + 1
            continue
        for position, a, b in turn_pieces(src, c.start, c.end):
            text = src.turns[position - 1].text
            if code.unit == "span" and c.value is None:
                what = (f"not-applicable codings of '{code.key}' on passages (a span holds "
                        "one of its levels)")
                left[what] = left.get(what, 0) + 1
            elif code.unit == "span":
                try:
                    key, value = checked_span(project, SpanKey(coder, cid, position, a, b,
                                                               code.key), c.value)
                except ProjectError as e:
                    raise InputError(where, str(e), location=f"source {src.name!r}",
                                     field="PlainTextSelection") from None
                spans[key] = Span(key, value, "", "imported", False, origin)
            elif code.unit == "turn" and (a, b) == (0, len(text)):
                codings[(coder, cid, position, 0, code.key)] = c.value
            elif code.unit == "sentence" and (a, b) in sentences(cid, position, text):
                number = sentences(cid, position, text).index((a, b)) + 1
                codings[(coder, cid, position, number, code.key)] = c.value
            else:
                what = f"selections that are not a whole {code.unit} ('{code.key}')"
                left[what] = left.get(what, 0) + 1
    for (coder, cid, pos, sent, ckey), value in codings.items():
        code = book.get(ckey)
        assert code is not None
        try:
            rows.coding_key(coder, cid, pos, sent, ckey)
            parsed = code.parse_value(value)
        except (rows.RowError, ValueError) as e:
            raise InputError(where, str(getattr(e, "message", e)),
                             location=f"{cid} turn {pos}", field=ckey) from None
        codings[(coder, cid, pos, sent, ckey)] = parsed
    decided: dict[tuple[str, int, int, str], Any] = {}
    if doc.origin.startswith("sense7-coder"):  # its consensus was exported as a user
        for unit in [u for u in codings if u[0] in CONSENSUS_USERS]:
            decided[unit[1:]] = codings.pop(unit)
    coders = sorted({k[0] for k in codings} | {k.coder for k in spans}
                    | {users.get(n.user, "imported") for n in doc.notes})
    known = {c["name"] for c in project.coders()}
    for name in coders:
        store_codings.ensure_coder(db, name)
    summary.coders = [c for c in coders if c not in known]
    memos: dict[tuple[str, str, int], list[str]] = {}
    by_place: dict[tuple[str, str, int, int, int], list[SpanKey]] = {}
    for k in spans:
        by_place.setdefault((k.coder, k.conversation_id, k.position, k.start, k.end),
                            []).append(k)
    for n in doc.notes:
        cid = ids[n.source]
        coder = users.get(n.user, "imported")
        position = 0
        if n.start is not None and n.end is not None \
                and not refi_extra.whole(sources[n.source], n.start, n.end):
            pieces = list(turn_pieces(sources[n.source], n.start, n.end))
            position = pieces[0][0] if pieces else 0
            if len(pieces) == 1 and (coder, cid, *pieces[0]) in by_place:
                for k in by_place[(coder, cid, *pieces[0])]:  # a note on a span: its memo
                    text = "\n\n".join(x for x in (spans[k].memo, n.text) if x)
                    try:
                        rows.text(text, "memo", "Note")
                    except rows.RowError as e:
                        raise InputError(where, e.message, field="Note") from None
                    spans[k] = replace(spans[k], memo=text)
                continue
        memos.setdefault((coder, cid, position), []).append(n.text)
    same_codings, same_spans = _present(db, codings, spans)

    def refuse(place: str, message: str) -> None:
        raise InputError(where, message, location=place, field="Coding")

    beside = authority.split_by_lock(
        project, [(f"{k[1]} turn {k[2]}", (*k, v)) for k, v in codings.items()], refuse)[1]
    write_imported(db, [(*k, v) for k, v in codings.items()], beside, origin)
    for (cid, pos, sent, code_key), value in decided.items():
        store_codings.put_consensus(db, Unit(cid, pos, sent), code_key, {
            "value": value, "adjudicator": None, "rationale": f"imported from {origin}",
            "source": "imported", "origin": origin})
    summary.decisions = len(decided)
    store_spans.insert_spans(db, spans.values())
    summary.codings, summary.spans = len(codings) - same_codings, len(spans) - same_spans
    summary.present = same_codings + same_spans
    for (coder, cid, position), texts in memos.items():
        text = "\n\n".join(texts)
        try:
            rows.memo(coder, cid, position, 0, text, None)
        except rows.RowError as e:
            raise InputError(where, e.message, location=f"{cid} turn {position}",
                             field="Note") from None
        store_codings.put_memo(db, coder, Unit(cid, position, 0), text)
    summary.memos = len(memos)
    summary.skipped += [f"{n} {what}" for what, n in sorted(left.items())]
    refi_extra.write_done(db, doc, ids, users, where)


def new_project_from_qdpx(target: str | Path, path: str | Path,
                          roles: Mapping[str, str] | None = None
                          ) -> tuple[Project, QdpxImportSummary]:
    """A new project holding a ``.qdpx``: its codebook, conversations, codings and memos.
    When the import fails the new file is removed again."""
    target = Path(target)
    if target.exists():
        raise ProjectError(f"{target} already exists")
    refuse_open_project_file(path, "to import")
    doc = read_qdpx(path, RoleResolver(dict(roles or {})), schema_file())
    project = Project.create(target, doc.codebook)
    try:
        summary = import_qdpx(project, path, roles=roles, read=doc)
        summary.codes_added = len(doc.codebook.codes)  # the project was made with them
    except BaseException:
        project.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(target) + suffix).unlink(missing_ok=True)
        raise
    return project, summary

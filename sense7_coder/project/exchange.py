"""Exchanging codebooks and coded projects with other QDA tools (REFI-QDA).

The mapping is described in :mod:`sense7_coder.domain.refi.qdc`. Files are written under a
temporary name and renamed when complete; a codebook import is one transaction (through
:func:`.codebook.editing.apply_codebook`, with the same checks as any codebook change).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain.errors import Cancelled
from ..domain.export.formats import atomic_binary_path
from ..domain.progress import CancelFn, ProgressFn
from ..domain.refi.qdc import ORIGIN, codebook_qdc, load_qdc
from ..domain.refi.writing import (
    Mark,
    ProjectDocument,
    Source,
    SourceTurn,
    conversation_extra,
    conversation_variables,
    write_qdpx,
)
from ..domain.words import count
from ..store import codings as store_codings
from ..store import conversations as store_conv
from ..store import frames
from ..store.db import refuse_open_project_file
from .codebook import editing as codebook_ops
from .project import Project

#: the user the adjudicated consensus is exported as
CONSENSUS_USER = "consensus"


def export_qdc(project: Project, path: str | Path) -> Path:
    """Write the project's codebook as a REFI-QDA ``.qdc`` file."""
    refuse_open_project_file(path, "to export the codebook to")
    data = codebook_qdc(project.codebook, origin=ORIGIN)
    with atomic_binary_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def import_qdc(project: Project, path: str | Path,
               notes: list[str] | None = None) -> codebook_ops.CodebookImport:
    """Merge a ``.qdc`` codebook (or a ``.qdpx`` project's code book) into the project
    (a shortcut already taken moves to a free letter, with a line in ``notes``)."""
    refuse_open_project_file(path, "to import the codebook from")
    return codebook_ops.apply_codebook(project, load_qdc(path), notes)


@dataclass
class QdpxSummary:
    path: Path
    sources: int
    selections: int
    codings: int
    notes: int
    users: int

    def line(self) -> str:
        return (f"wrote {self.path}: {count(self.sources, 'conversation')}, "
                f"{count(self.selections, 'coded passage')}, {count(self.codings, 'coding')}, "
                f"{count(self.notes, 'memo')}, {count(self.users, 'user')}")


def export_qdpx(
    project: Project,
    out: str | Path,
    *,
    consensus: bool = True,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> QdpxSummary:
    """Write the whole project as a REFI-QDA ``.qdpx`` (conversations, codebook, every
    coder's codings and memos, and the consensus as the user ``consensus``)."""
    project.require_unblinded("export every coder's codings")
    refuse_open_project_file(out, "to export to")
    with project.snapshot():  # the texts and codings of one state of the file
        doc, sources = _qdpx_document(project, consensus, progress, cancel)
    with atomic_binary_path(out) as tmp, open(tmp, "wb") as fh:
        write_qdpx(fh, doc)
    return QdpxSummary(Path(out), sources, doc.selections, doc.codings, doc.memos,
                       len(doc.users))


def _qdpx_document(project: Project, consensus: bool, progress: ProgressFn | None,
                   cancel: CancelFn | None) -> tuple[ProjectDocument, int]:
    """The project as a REFI-QDA document, and its number of sources."""
    db = project.db
    codings = frames.codings_frame(db)
    memos = frames.memos_frame(db)
    decided = frames.consensus_frame(db) if consensus else None
    marks: dict[str, list[Mark]] = {}
    for coder, cid, pos, sent, code, value in zip(
            codings["coder"], codings["conversation_id"], codings["position"],
            codings["sentence"], codings["code"], codings["value"], strict=True):
        marks.setdefault(cid, []).append(Mark(coder, int(pos), int(sent), code, value))
    users = [c["name"] for c in project.coders()]
    if decided is not None and len(decided):
        user = CONSENSUS_USER if CONSENSUS_USER not in users else "consensus (adjudicated)"
        users.append(user)
        for cid, pos, sent, code, value in zip(
                decided["conversation_id"], decided["position"], decided["sentence"],
                decided["code"], decided["value"], strict=True):
            marks.setdefault(cid, []).append(Mark(user, int(pos), int(sent), code, value))
    for coder, cid, pos, sent, text in zip(
            memos["coder"], memos["conversation_id"], memos["position"], memos["sentence"],
            memos["text"], strict=True):
        if text:
            marks.setdefault(cid, []).append(Mark(coder, int(pos), int(sent), memo=text))
    from ..store.spans import table as store_spans

    for span in store_spans.all_spans(db):  # each span a selection of its own
        marks.setdefault(span.conversation_id, []).append(
            Mark(span.coder, span.position, 0, span.code, span.value,
                 span=(span.start, span.end)))
        if span.memo:
            marks[span.conversation_id].append(
                Mark(span.coder, span.position, 0, memo=span.memo, span=(span.start, span.end)))
    doc = ProjectDocument(project.path.stem, project.codebook, users, origin=ORIGIN,
                          variables=("participant_id", "model", "topic"))
    sources = frames.conversation_sources(db)
    for i, (cid, _participant, _model) in enumerate(sources, 1):
        if cancel and cancel():
            raise Cancelled()
        conv = store_conv.load_conversation(db, cid)
        if conv is None:
            continue
        offsets = store_conv.sentences_of(db, cid)
        turns = [SourceTurn(t.position, t.role, t.text, offsets.get(t.position, []))
                 for t in conv.turns]
        doc.add_source(Source(cid, turns, conversation_variables(conv)),
                       marks.get(cid, []),
                       conversation_extra(conv, store_codings.done_positions(db, cid)))
        if progress:
            progress(i, len(sources))
    return doc, len(sources)

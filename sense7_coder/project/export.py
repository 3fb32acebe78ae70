"""Exporting a project as tidy tables: read the frames, shape them, write atomically.

The shapes and the CSV rules are in :mod:`sense7_coder.domain.export.tables`, the ``.xlsx`` and
``.sav`` writers in :mod:`sense7_coder.domain.export.formats`. The ``long``,
``wide`` and ``consensus`` kinds hold what is stored: a binary code a coder did not apply
is absent from them (the agreement figures, not the export, count finished turns as 0).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import APP_NAME, __version__
from ..domain import provenance as prov
from ..domain.agreement_settings import AgreementSettings
from ..domain.codebook.codes import Codebook
from ..domain.errors import Cancelled, Hint, ProjectError
from ..domain.export.formats import table_format, write_table
from ..domain.export.kinds import PROVENANCE_KINDS, UNBLINDED_KINDS
from ..domain.export.tables import (
    EXPORT_KINDS,
    codebook_table,
    consensus_table,
    long_table,
    wide_table,
    write_csv,
)
from ..domain.files import atomic_text_file, destination
from ..domain.progress import CancelFn, ProgressFn
from ..domain.versions import computed_with
from ..domain.words import count
from ..store import frames
from ..store.conversations import ConversationFilter
from ..store.db import refuse_open_project_file
from .agreement import check_request, project_agreement
from .project import Project
from .selection import Selection


@dataclass
class ExportSummary:
    path: Path
    kind: str
    rows: int
    columns: int
    #: the final dataset: how many rows came from each source
    sources: dict[str, int] | None = None
    #: where those counts were written beside the table
    metadata: Path | None = None

    def line(self) -> str:
        text = (f"wrote {self.path}: {count(self.rows, 'row')}, {count(self.columns, 'column')} "
                f"({self.kind})")
        if self.sources is not None:
            counts = ", ".join(f"{n} {source}" for source, n in self.sources.items() if n)
            text += f"\n  rows by source: {counts or 'none'}"
            if self.metadata is not None:
                text += f" (also in {self.metadata.name})"
        elif self.metadata is not None:
            text += f"\n  the versions that computed it: {self.metadata.name}"
        return text


def metadata_path(out: str | Path) -> Path:
    """Where the summary of a final dataset or an agreement table is written (with the
    versions that computed it): beside it, ``<name>.meta.json``."""
    out = Path(out)
    return out.with_name(out.name + ".meta.json")


def export_frame(
    project: Project,
    kind: str,
    selection: Selection | None = None,
    settings: AgreementSettings | None = None,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    with_text: bool = False,
    value: str | None = None,
    provenance: bool = False,
    scope: str = "turn",
    by: str = "model",
) -> pd.DataFrame:
    """The table an export of ``kind`` writes, for the codes, coders and conversations in
    ``selection`` (the agreement kind computes as ``settings`` say; no other reads
    them). ``with_text`` adds the coded turn's (or sentence's) text to ``long``;
    ``value`` keeps only the ``segments`` of that value (of the one code asked for);
    ``provenance`` adds how each value was made to ``long``, ``wide`` and ``consensus``
    (see :mod:`sense7_coder.domain.provenance`; ``final`` always has it). ``scope`` and
    ``by`` are the ``cooccurrence`` and ``codes-by-attribute`` queries' (see
    :mod:`.queries`).
    """
    if kind not in EXPORT_KINDS:
        raise ProjectError(f"export kind must be one of {', '.join(EXPORT_KINDS)}, got {kind!r}")
    if kind not in UNBLINDED_KINDS:
        project.require_unblinded(f"export {kind} (it shows what blind coding hides)")
    selection = selection or Selection()
    if provenance and kind not in PROVENANCE_KINDS:
        raise ProjectError(f"provenance columns come with the {', '.join(PROVENANCE_KINDS)} "
                           "exports")
    with project.snapshot():  # every table read from one state of the file
        if kind in QUERY_KINDS:
            from .queries import query_table

            return query_table(project, kind, selection, scope, by)
        table = _export_frame(project, kind, selection, settings, progress, cancel, with_text,
                              value, provenance)
        if kind in TURN_ATTRIBUTE_KINDS:
            from .attributes import with_turn_attributes

            table = with_turn_attributes(project, table)
        return table


#: the query tables (see :mod:`.queries`)
QUERY_KINDS = ("cooccurrence", "codes-by-attribute")
#: the exports that carry the turns' attributes (``turn_<name>`` columns)
TURN_ATTRIBUTE_KINDS = ("long", "segments", "final")




def _export_frame(project: Project, kind: str, selection: Selection,
                  settings: AgreementSettings | None, progress: ProgressFn | None,
                  cancel: CancelFn | None, with_text: bool, value: str | None,
                  provenance: bool = False) -> pd.DataFrame:
    """:func:`export_frame`, inside its snapshot."""
    if kind in TEAM_KINDS:
        return _team_table(project, kind, selection, value)
    if value is not None:
        raise ProjectError("a value applies to the segments export only")
    if kind == "final":
        if with_text:
            raise ProjectError("turn text can be added to the long export only")
        return _final_table(project, selection)
    if kind == "agreement":
        return project_agreement(project, selection, settings, progress=progress,
                                 cancel=cancel).to_frame()
    if kind == "suggestions":  # a model's values: never mixed with the coders' (long, wide)
        from .suggestions.stored import suggestions_table

        return suggestions_table(project, check_request(project, selection),
                                 selection.conversation_filter())
    selected = check_request(project, selection)
    keys = [c.key for c in selected]
    book = project.codebook
    filt = selection.conversation_filter()
    if kind == "codebook":
        return codebook_table(Codebook(book.name, selected, book.title, book.description))
    if kind == "consensus":
        decided = frames.consensus_frame(project.db, codes=keys, conversations=filt,
                                         categorical=True)
        table = consensus_table(decided, book)
        return prov.consensus_with_provenance(table, decided) if provenance else table
    codings = frames.codings_frame(project.db, codes=keys, coders=selection.coders,
                                   conversations=filt, categorical=True)
    if selection.codes and not keys:  # only span codes named: no coding of a unit
        codings = codings.iloc[0:0]
    if cancel and cancel():
        raise Cancelled()
    if kind != "long":
        if with_text:
            raise ProjectError("turn text can be added to the long export only")
        table = wide_table(codings, book)
        if provenance:
            table = prov.wide_with_provenance(
                table, codings, _provenance(project, keys, selection),
                frames.revisions_frame(project.db, codes=keys, coders=selection.coders,
                                       conversations=filt))
        return table
    table = long_table(codings, book)
    if provenance:
        table = _long_with_provenance(project, table, codings, keys, selection)
    if with_text:
        from .team.tables import unit_texts

        table["text"] = unit_texts(project, table)
    from .spans.export import long_with_spans

    return long_with_spans(project, table, list(selection.codes), selection.coders, filt)


TEAM_KINDS = ("assignments", "history", "segments", "memos", "ratings", "rationales")


def _provenance(project: Project, keys: list[str], selection: Selection
                ) -> pd.DataFrame:
    return frames.provenance_frame(project.db, codes=keys, coders=selection.coders,
                                   conversations=selection.conversation_filter())


def _long_with_provenance(project: Project, table: pd.DataFrame, codings: pd.DataFrame,
                          keys: list[str], selection: Selection) -> pd.DataFrame:
    revised = frames.revised_codings_frame(project.db, codes=keys, coders=selection.coders,
                                           conversations=selection.conversation_filter())
    return prov.long_with_provenance(table, codings, _provenance(project, keys, selection),
                                     long_table(revised, project.codebook), revised)


def _final_table(project: Project, selection: Selection) -> pd.DataFrame:
    """The final dataset (see :mod:`sense7_coder.domain.provenance`)."""
    keys = [c.key for c in check_request(project, selection)]
    filt = selection.conversation_filter()
    book = project.codebook
    codings = frames.codings_frame(project.db, codes=keys, coders=selection.coders,
                                   conversations=filt, categorical=True)
    long = _long_with_provenance(project, long_table(codings, book), codings, keys, selection)
    decided = frames.consensus_frame(project.db, codes=keys, conversations=filt,
                                     categorical=True)
    consensus = prov.consensus_with_provenance(consensus_table(decided, book), decided)
    return prov.final_table(long, consensus, book)


def _whole_tables(project: Project, selection: Selection, filt: ConversationFilter
                  ) -> dict[str, Callable[[], pd.DataFrame]]:
    """The team exports that take no code: each kind's table, made when called."""
    from .rationales import rationale_table
    from .team import tables as team_tables

    return {
        "assignments": lambda: team_tables.assignments_table(project),
        "history": lambda: team_tables.history_table(project),
        "memos": lambda: team_tables.memos_table(project, coders=list(selection.coders),
                                                 conversations=filt),
        "ratings": lambda: team_tables.ratings_table(project, conversations=filt),
        "rationales": lambda: rationale_table(project),
    }


def _team_table(project: Project, kind: str, selection: Selection,
                value: str | None) -> pd.DataFrame:
    from .team import tables as team_tables

    if value is not None and kind != "segments":
        raise ProjectError("a value applies to the segments export only")
    filt = selection.conversation_filter()
    whole = _whole_tables(project, selection, filt)
    if kind in whole:
        return whole[kind]()
    from .spans.queries import query_codes

    keys = [c.key for c in query_codes(project, selection)]  # span codes too
    parsed: object = None
    if value is not None:
        if len(selection.codes) != 1:
            raise ProjectError("retrieving the units of a value needs exactly one code",
                               hint=Hint("codes", "KEY", "choose one code"))
        code = project.code(selection.codes[0])
        if value.strip().casefold() in ("na", "not applicable"):
            parsed = None
        else:
            try:
                parsed = code.parse_value(value)
            except ValueError as e:
                raise ProjectError(str(e)) from None
    return team_tables.segments_table(project, codes=keys, coders=list(selection.coders),
                                      conversations=filt, value=parsed,
                                      with_value=value is not None)


def export_project(
    project: Project,
    out: str | Path,
    kind: str,
    selection: Selection | None = None,
    settings: AgreementSettings | None = None,
    *,
    raw: bool = False,
    to: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    with_text: bool = False,
    value: str | None = None,
    provenance: bool = False,
    scope: str = "turn",
    by: str = "model",
) -> ExportSummary:
    """Write one export of the project to ``out`` (see :func:`export_frame`), as CSV,
    ``.xlsx`` or ``.sav`` by ``to`` or else by the extension (``raw`` is for CSV only).
    ``selection`` is what every kind holds; ``settings`` how the agreement kind computes.

    Progress runs over reading (first half) and writing (second half); for the
    agreement kind the computation takes the first half.
    """
    def first_half(done: int, total: int) -> None:
        if progress:
            progress(done, 2 * max(total, 1))

    def second_half(done: int, total: int) -> None:
        if progress:
            progress(max(total, 1) + done, 2 * max(total, 1))

    refuse_open_project_file(out, "to export to")
    fmt = table_format(out, to)
    destination(out)  # a bad destination is reported before any long computation
    if kind in ("final", "agreement"):
        refuse_open_project_file(metadata_path(out), "to export to")
    versions = computed_with(APP_NAME, __version__)
    # only the agreement kind computes, as ``settings`` say (None: the defaults); no
    # other kind is handed any, so no draw count is checked or taken where none is drawn
    table = export_frame(project, kind, selection,
                         settings if kind == "agreement" else None,
                         progress=first_half, cancel=cancel,
                         with_text=with_text, value=value, provenance=provenance,
                         scope=scope, by=by)
    if fmt == "csv":
        rows = write_csv(table, out, raw=raw, progress=second_half, cancel=cancel)
    else:
        rows = write_table(table, out, fmt, kind=kind, codebook=project.codebook,
                           progress=second_half, cancel=cancel, computed_with=versions)
    summary = ExportSummary(Path(out), kind, rows, len(table.columns))
    if kind == "agreement":
        summary.metadata = metadata_path(out)
        with atomic_text_file(summary.metadata) as fh:
            json.dump({"kind": "agreement", "file": Path(out).name, "rows": rows,
                       "computed_with": versions}, fh, indent=2)
            fh.write("\n")
    if kind == "final":
        summary.sources = prov.source_counts(table)
        summary.metadata = metadata_path(out)
        with atomic_text_file(summary.metadata) as fh:
            json.dump({"kind": "final", "file": Path(out).name, "rows": rows,
                       "rows_by_source": summary.sources,
                       "sources": "consensus where decided (adjudicated, majority, merged, "
                                  "imported); else the one coder's latest value (coded, "
                                  "imported, merged, suggestion_accepted); else unresolved, "
                                  "with every coder's value in 'values'",
                       "computed_with": versions},
                      fh, indent=2)
            fh.write("\n")
    return summary


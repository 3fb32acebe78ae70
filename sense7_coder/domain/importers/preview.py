"""What the import dialog shows before anything is written: the first turns as they will be
read, the source columns (to map), and the problems found when reading the whole file."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..models import RATING_KEYS, ImportBatch
from .jsonchat import _message_list, conversations_in, load_json
from .options import ImportOptions
from .reading import plan, read_files
from .sheets import open_book, read_sheet, sheet_names
from .tables import norm, read_header
from .values import RecordError

BASE_COLUMNS = ("conversation_id", "position", "role", "speaker", "text")
#: how the preview shows a rating of "not applicable" (an unrated turn shows None)
NOT_APPLICABLE = "n/a"


@dataclass
class PreviewResult:
    """``frame``: the first turns (conversation_id, position, role, speaker, text, the rating
    keys present, comment, time_offset); a rating is 1..5, ``"n/a"`` for not applicable, or
    None when the turn was not rated. ``messages``: warnings and, when the file cannot be
    imported, the error (then ``error`` is set and ``frame`` is empty)."""

    format: str
    frame: pd.DataFrame
    columns: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    conversations: int = 0
    turns: int = 0
    skipped_rows: int = 0
    error: InputError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def turns_frame(batches: Sequence[ImportBatch], limit: int | None = None) -> pd.DataFrame:
    """The turns of some batches as a table, one row per turn (the first ``limit``)."""
    rows: list[dict[str, Any]] = []
    for batch in batches:
        for conv in batch.conversations:
            for turn in conv.turns:
                if limit is not None and len(rows) >= limit:
                    break
                row: dict[str, Any] = {
                    "conversation_id": conv.conversation_id,
                    "position": turn.position,
                    "role": turn.role,
                    "speaker": turn.speaker,
                    "text": turn.text,
                }
                row.update({k: NOT_APPLICABLE if v is None else v
                            for k, v in turn.ratings.items()})
                row["comment"] = turn.comment
                row["time_offset"] = turn.time_offset
                rows.append(row)
    keys = [k for k in RATING_KEYS if any(k in r for r in rows)]
    columns = [*BASE_COLUMNS, *keys, "comment", "time_offset"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame


def source_columns(paths: Sequence[Path], fmt: str,
                   options: ImportOptions | None = None) -> list[str]:
    """The columns (or keys) a user could map, as named in the source."""
    options = options or ImportOptions()
    out: list[str] = []
    for path in paths:
        suffix = path.suffix.casefold()
        try:
            if suffix in (".csv", ".tsv"):
                out.extend(c for c in read_header(path, options.encoding) if c not in out)
            elif suffix in (".xlsx", ".xlsm"):
                with open_book(path) as book:
                    for sheet in sheet_names(book):
                        if norm(sheet) in ("tasks", "messages"):
                            columns = read_sheet(path, book, sheet, header_only=True).columns
                            out.extend(c for c in columns if c not in out)
            elif suffix == ".json":
                items = conversations_in(load_json(path, options.encoding), {})
                first = items[0] if items else None
                if isinstance(first, dict):
                    out.extend(str(k) for k in first)
                    key, messages = _message_list(first, {})
                    first = messages if key else None
                if isinstance(first, list):
                    for message in first:
                        if isinstance(message, dict):
                            out.extend(str(k) for k in message if str(k) not in out)
        except (InputError, RecordError, OSError, ValueError, KeyError, zipfile.BadZipFile):
            continue  # columns are a convenience; reading the file reports the problem
    return out


def preview(path: Path | str | Sequence[Path | str], options: ImportOptions,
            n: int = 20) -> PreviewResult:
    """Read the whole file (or the two SENSE-7 CSV tables, given as a list) and show the
    first ``n`` turns. Never raises InputError: a problem is reported in ``messages``."""
    paths = [Path(p) for p in path] if isinstance(path, list | tuple) else [Path(str(path))]
    fmt = options.format
    try:
        groups = plan(paths, options)
        fmt = ", ".join(sorted({g.format for g in groups}))
        batches = read_files(paths, options)
    except InputError as e:
        return PreviewResult(
            format=fmt,
            frame=turns_frame([]),
            columns=source_columns(paths, fmt, options),
            messages=[str(e)],
            error=e,
        )
    messages = [w for b in batches for w in b.warnings]
    return PreviewResult(
        format=fmt,
        frame=turns_frame(batches, n),
        columns=source_columns(paths, fmt, options),
        messages=messages,
        conversations=sum(len(b.conversations) for b in batches),
        turns=sum(len(c.turns) for b in batches for c in b.conversations),
        skipped_rows=sum(b.skipped_rows for b in batches),
    )

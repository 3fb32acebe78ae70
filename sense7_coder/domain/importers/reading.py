"""Reading a set of files into import batches: format choice, grouping, checks."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import rows
from ..errors import Cancelled, InputError
from ..file_reading import regular_file
from ..models import Conversation, ImportBatch, Participant
from ..progress import CancelFn, ProgressFn
from . import jsonstream
from .csv_long import read_long_csv
from .detect import check_format, detect_with_data
from .esconv import read_esconv
from .formats import FORMATS_BY_KEY
from .jsonchat import read_json, read_jsonl
from .jsonstream import streamable
from .options import ImportOptions
from .sense7 import read_sense7_csv, read_sense7_workbook
from .ticker import Ticker
from .transcript import read_transcript_csv, read_transcript_txt
from .values import shown


@dataclass
class Group:
    """Files read together into one batch (one file, or the two SENSE-7 CSV tables)."""

    format: str
    paths: list[Path]
    data: Any = None  # a JSON document already parsed while detecting the format

    @property
    def name(self) -> str:
        return " + ".join(str(p) for p in self.paths)


def _pair_key(path: Path) -> str:
    return re.sub(r"(?i)tasks?|messages?", "", path.stem).strip(" _-.").casefold()


def plan(paths: Sequence[Path | str], options: ImportOptions, *,
         streamed: bool = False) -> list[Group]:
    """Decide each file's format and group the SENSE-7 CSV tables in pairs (``streamed``:
    without parsing a JSON array whole to tell its format; see :func:`.detect.detect_json`)."""
    check_format(options.format)
    groups: list[Group] = []
    sense7_csv: list[Path] = []
    for raw in paths:
        path = Path(raw)
        regular_file(path)
        if options.format == "auto":
            fmt, data = detect_with_data(path, options, streamed=streamed)
        else:
            fmt, data = options.format, None
        if fmt == "sense7-csv":
            sense7_csv.append(path)
        else:
            groups.append(Group(fmt, [path], data))
    if len(sense7_csv) == 2:
        groups.append(Group("sense7-csv", sense7_csv))
    elif sense7_csv:
        pairs: dict[str, list[Path]] = {}
        for path in sense7_csv:
            pairs.setdefault(_pair_key(path), []).append(path)
        groups.extend(Group("sense7-csv", group) for group in pairs.values())
    return groups


def read_sense7_xlsx_group(group: Group, options: ImportOptions,
                           ticker: Ticker | None) -> ImportBatch:
    path = group.paths[0]
    if path.suffix.casefold() in (".csv", ".tsv"):
        raise InputError(str(path), "sense7-xlsx reads .xlsx workbooks; for the two CSV "
                         "tables use the format sense7-csv")
    return read_sense7_workbook(path, options, ticker)


def read_sense7_csv_group(group: Group, options: ImportOptions,
                          ticker: Ticker | None) -> ImportBatch:
    return read_sense7_csv(group.paths, options, ticker)


def read_long_csv_group(group: Group, options: ImportOptions,
                        ticker: Ticker | None) -> ImportBatch:
    return read_long_csv(group.paths[0], options, ticker)


def read_json_group(group: Group, options: ImportOptions, ticker: Ticker | None) -> ImportBatch:
    return read_json(group.paths[0], options, ticker, group.data)


def read_jsonl_group(group: Group, options: ImportOptions,
                     ticker: Ticker | None) -> ImportBatch:
    return read_jsonl(group.paths[0], options, ticker)


def read_esconv_group(group: Group, options: ImportOptions,
                      ticker: Ticker | None) -> ImportBatch:
    return read_esconv(group.paths[0], options, ticker, group.data)


def read_transcript_group(group: Group, options: ImportOptions,
                          ticker: Ticker | None) -> ImportBatch:
    path = group.paths[0]
    if path.suffix.casefold() in (".csv", ".tsv"):
        return read_transcript_csv(path, options, ticker)
    return read_transcript_txt(path, options, ticker)


def reader_of(fmt: str) -> Callable[[Group, ImportOptions, Ticker | None], ImportBatch]:
    """The reader the formats table names for ``fmt``."""
    module, name = FORMATS_BY_KEY[fmt].reader.split(":")
    found: Callable[[Group, ImportOptions, Ticker | None], ImportBatch] = getattr(
        importlib.import_module(f".{module}", __package__), name)
    return found


def read_group(group: Group, options: ImportOptions, ticker: Ticker | None) -> ImportBatch:
    return reader_of(group.format)(group, options, ticker)


def read_files(
    paths: Sequence[Path | str],
    options: ImportOptions,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> list[ImportBatch]:
    """Read every file (or group) whole, or raise one InputError; nothing partial.

    ``progress(done, total)`` is called in arbitrary, increasing units with a fixed total;
    ``cancel()`` is polled every few thousand rows and raises ``Cancelled`` when true.
    Conversation ids must be unique across all the files read together.
    """
    if cancel is not None and cancel():
        raise Cancelled()
    groups = plan(paths, options)
    ticker = Ticker(progress, cancel, len(groups))
    batches: list[ImportBatch] = []
    seen: dict[str, str] = {}
    for i, group in enumerate(groups):
        ticker.start_file(i)
        try:
            batch = read_group(group, options, ticker)
        except (OSError, UnicodeError) as e:
            raise InputError(group.name, f"cannot be read ({e})") from None
        for conv in batch.conversations:
            try:  # the same check as every other path that writes a conversation
                rows.conversation_id(conv.conversation_id)
                if conv.participant_id is not None:
                    rows.participant_id(conv.participant_id)
            except rows.RowError as e:
                raise InputError(group.name, f"conversation '{shown(conv.conversation_id)}': "
                                 f"{e.message}", field=e.field) from None
            other = seen.get(conv.conversation_id)
            if other is not None:
                raise InputError(group.name, f"conversation id '{conv.conversation_id}' is "
                                 f"also in {other}; ids must be unique",
                                 field="conversation_id")
            seen[conv.conversation_id] = group.name
        batches.append(batch)
        ticker.finish_file()
    return batches


@dataclass
class StreamedFile:
    """One file (or group) of :func:`stream_files`: its conversations come one at a time
    and must be used up before the next file is asked for; ``warnings`` and
    ``skipped_rows`` are complete once they are."""

    source: str
    conversations: Iterator[Conversation]
    participants: list[Participant]
    warnings: list[str]
    skipped_rows: int = 0
    #: attributes the importer knows to be the users' own judgments
    judgments: set[str] = field(default_factory=set)


#: formats read a share at a time (in UTF-8): JSON arrays and JSON Lines one conversation
#: at a time, long CSV tables a chunk of rows at a time
STREAMED = ("json", "jsonl", "csv")


def stream_files(
    paths: Sequence[Path | str],
    options: ImportOptions,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Iterator[StreamedFile]:
    """:func:`read_files`, one file at a time, with JSON arrays and JSON Lines read one
    conversation at a time (memory does not grow with their size); the same checks and
    the same messages. A file refused part-way raises its one InputError then: the caller
    writes inside one transaction, so nothing of the call lands."""
    if cancel is not None and cancel():
        raise Cancelled()
    groups = plan(paths, options, streamed=True)
    ticker = Ticker(progress, cancel, len(groups))
    seen: dict[str, int] = {}  # conversation id -> the group it came from
    for i, group in enumerate(groups):
        ticker.start_file(i)
        streamed = (group.format in STREAMED and group.data is None
                    and streamable(options.encoding))
        if streamed:
            warnings: list[str] = []
            file = StreamedFile(group.name, _streamed(group, options, ticker, seen, i, warnings),
                                [], warnings)
        else:
            batch = _whole(group, options, ticker)
            file = StreamedFile(batch.source, iter(batch.conversations), batch.participants,
                                batch.warnings, batch.skipped_rows, set(batch.judgments))

        def first_its_own(group: Group = group, streamed: bool = streamed) -> None:
            """Before an id is refused, the file's own problems, as reading it whole
            first found them (a streamed file is read whole then: it is refused anyway)."""
            if streamed:
                _whole(group, options, None)

        file.conversations = _unique(file.conversations, groups, i, seen, first_its_own)
        yield file
        ticker.finish_file()


def _whole(group: Group, options: ImportOptions, ticker: Ticker | None) -> ImportBatch:
    try:
        return read_group(group, options, ticker)
    except (OSError, UnicodeError) as e:
        raise InputError(group.name, f"cannot be read ({e})") from None


def _streamed(group: Group, options: ImportOptions, ticker: Ticker, seen: dict[str, int],
              index: int, warnings: list[str]) -> Iterator[Conversation]:
    """The group's conversations streamed; where the stream stops short, the file is read
    whole, which raises the error it always raised (or, should it read, gives the rest).
    (An id met twice in the file: the whole reader names both places.)"""
    done = 0
    path = group.paths[0]
    try:
        if group.format == "csv":
            from .csvstream import conversations as csv_conversations

            stream = csv_conversations(path, options, ticker, warnings)
        else:
            stream = jsonstream.conversations(path, group.format, options, ticker)
        for conv in stream:
            if seen.get(conv.conversation_id) == index:
                raise jsonstream.NotStreamed("an id twice")
            yield conv
            done += 1
    except (jsonstream.NotStreamed, InputError, OSError, UnicodeError):
        batch = _whole(group, options, None)
        warnings[:] = batch.warnings
        yield from batch.conversations[done:]


def _unique(conversations: Iterator[Conversation], groups: list[Group], index: int,
            seen: dict[str, int], first_its_own: Callable[[], None]) -> Iterator[Conversation]:
    """Each conversation checked as :func:`read_files` checks it: a valid id (and
    participant id), used once across all the files (``first_its_own`` raises the file's
    own error, which reading it whole reported first)."""
    name = groups[index].name
    for conv in conversations:
        try:  # the same check as every other path that writes a conversation
            rows.conversation_id(conv.conversation_id)
            if conv.participant_id is not None:
                rows.participant_id(conv.participant_id)
        except rows.RowError as e:
            first_its_own()
            raise InputError(name, f"conversation '{shown(conv.conversation_id)}': "
                             f"{e.message}", field=e.field) from None
        other = seen.setdefault(conv.conversation_id, index)
        if other != index:
            first_its_own()
            raise InputError(name, f"conversation id '{conv.conversation_id}' is also in "
                             f"{groups[other].name}; ids must be unique",
                             field="conversation_id")
        yield conv

"""Reading a long CSV (one row per message) a share at a time, so that memory does not grow
with the file.

The file is read by the same parser with the same settings as a whole file (pandas, every
cell as text), in chunks of rows; each chunk's complete conversations are built exactly as
:func:`.csv_long.batch_from_table` builds them from the whole table (the conversion is
per value, never per column, so a share of the rows gives the same turns). The rows of the
last conversation of a chunk wait for the next one.

It streams a table with a conversation id column whose conversations each lie in one run of
rows (the common layout). Anything else -- no id column, a conversation whose rows are
apart, a file wider than the columns read at once, anything the whole-file reader would
refuse -- stops the stream (:class:`~.jsonstream.NotStreamed`): the caller then reads the
file whole, as before, which reads it or words the problem as it always has.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..file_reading import read_bytes, refuse_foreign
from ..models import Conversation
from .csv_long import batch_from_table, message_columns
from .jsonstream import CHUNK, NotStreamed, open_regular, streamable
from .options import ImportOptions
from .tables import (
    MAX_CELL_CHARS,
    MAX_COLUMNS,
    Table,
    _check_cell_sizes,
    _checked_header,
    drop_blank_rows,
    sniff_delimiter,
)
from .ticker import Ticker

#: rows parsed at a time
ROWS = 50_000


def _prescan(path: Path) -> int:
    """What the whole-file reader checks of the bytes before parsing, a chunk at a time
    (a NUL byte anywhere); the file's size."""
    size = 0
    with open_regular(path) as fh:
        while data := fh.read(CHUNK):
            size += len(data)
            if b"\x00" in data:
                raise NotStreamed("NUL")
    return size


def conversations(path: Path, options: ImportOptions, ticker: Ticker | None,
                  warnings: list[str]) -> Iterator[Conversation]:
    """The conversations of a long CSV, a chunk of rows at a time; see the module. The
    file's warnings (columns without a header) are added to ``warnings``."""
    sep, header, id_column = _head(path, options)
    size = max(_prescan(path), 1)
    _check_runs(path, sep, header.index(id_column))  # before anything is built or written
    header_lines = 1 + sum(c.count("\n") for c in header)
    chunks = 0
    for frame, share in _complete_runs(path, sep, id_column):
        table = Table(str(path), frame, header_lines=header_lines)
        if size > MAX_CELL_CHARS:
            _check_cell_sizes(table)
        batch = batch_from_table(table, path, options, None)
        if not chunks:
            warnings.extend(batch.warnings)
        chunks += 1
        if ticker is not None:
            ticker.rows(int(share * 1000), 1000)
        yield from batch.conversations
    if not chunks:
        raise NotStreamed("no rows")


def _head(path: Path, options: ImportOptions) -> tuple[str, list[str], str]:
    """The separator, the header (as written) and the conversation id column, checked as
    the whole-file reader checks them; NotStreamed for what it must decide."""
    if not streamable(options.encoding):
        raise NotStreamed("encoding")
    head = read_bytes(path, 1 << 20).removeprefix(b"\xef\xbb\xbf")
    if not head.strip():
        raise NotStreamed("empty")
    try:
        refuse_foreign(path, head)
        sep = sniff_delimiter(path, head[:65536])
        header = _checked_header(path, head, sep)
    except InputError:
        raise NotStreamed("head") from None
    names = [c.strip() for c in header]
    if len(names) > MAX_COLUMNS:
        raise NotStreamed("wide")
    cols, _ = message_columns(Table.header(str(path), names), options)
    if cols.conversation_id is None:
        raise NotStreamed("no conversation ids")
    return sep, names, cols.conversation_id


def _check_runs(path: Path, sep: str, column: int) -> None:
    """The rows of each conversation lie in one run (empty ids aside), read one column at
    a time; else the file is read whole (it is valid, only not streamed)."""
    done: set[str] = set()
    current = None
    with open_regular(path) as fh:
        try:
            for chunk in pd.read_csv(fh, dtype=str, keep_default_na=False, sep=sep,
                                     skip_blank_lines=False, encoding="utf-8-sig",
                                     usecols=[column], chunksize=ROWS * 4):
                ids = chunk.iloc[:, 0].str.strip()
                ids = ids[ids != ""]
                starts = ids[ids.ne(ids.shift())].tolist()
                for cid in starts:
                    if cid == current:
                        continue
                    if cid in done:
                        raise NotStreamed("a conversation's rows lie apart")
                    if current is not None:
                        done.add(current)
                    current = cid
        except (ValueError, UnicodeError, pd.errors.ParserError):
            raise NotStreamed("the parser") from None


def _complete_runs(path: Path, sep: str, id_column: str) -> Iterator[tuple[pd.DataFrame, float]]:
    """Chunks of the table's rows (blank rows dropped) that end where a conversation does,
    each with the share of the file read."""
    size = max(path.stat().st_size, 1)
    held: pd.DataFrame | None = None
    with open_regular(path) as fh:
        try:
            reader = pd.read_csv(fh, dtype=str, keep_default_na=False, skip_blank_lines=False,
                                 encoding="utf-8-sig", sep=sep, chunksize=ROWS)
            for raw in reader:
                if not isinstance(raw.index, pd.RangeIndex):
                    raise NotStreamed("a row has more cells than the header")
                raw.columns = [str(c).strip() for c in raw.columns]
                frame = drop_blank_rows(raw)
                if held is not None:
                    frame = pd.concat([held, frame])
                if frame.empty:
                    continue
                ids = frame[id_column].str.strip()
                last = ids == ids.iloc[-1]
                held = frame[last]
                if not bool(last.all()):
                    yield frame[~last], fh.tell() / size
        except (ValueError, UnicodeError, pd.errors.ParserError):  # EmptyDataError included
            raise NotStreamed("the parser") from None
    if held is not None:
        yield held, 1.0

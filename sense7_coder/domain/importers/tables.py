"""Reading tables (CSV files and workbook sheets) into all-text pandas frames.

Every cell is read as text (``dtype=str``, no "NA" guessing) so that a message reading
"NA" or "None" stays a message. Rows whose cells are all empty are dropped. Row numbers in
messages are those a user sees: ``line N`` of a CSV file (exact even when quoted cells span
several lines) and ``sheet S, row N`` of a workbook (the header being row 1).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import Hint, InputError
from ..file_reading import MAX_CELL_CHARS, MAX_COLUMNS, check_utf8_file, read_bytes, utf8_bytes

# Python's csv module refuses cells above its field size limit (128 KiB by default).
csv.field_size_limit(4 * MAX_CELL_CHARS + 1)
#: the most bytes the header (the first record of a CSV file) may take
MAX_HEADER_BYTES = 16 * 1024 * 1024


_NOT_ALNUM = re.compile(r"[^0-9a-z]")


def norm(name: str) -> str:
    """Column names are matched ignoring case, spaces, underscores and punctuation."""
    return _NOT_ALNUM.sub("", name.casefold())


@dataclass
class Table:
    """One table as read: ``frame`` keeps the original row labels (0 = first data row)."""

    file: str
    frame: pd.DataFrame
    sheet: str | None = None
    raw: pd.DataFrame | None = None  # the frame before blank rows were dropped (CSV)
    header_lines: int = 1
    #: the columns of a file wider than :data:`MAX_COLUMNS` that were not read
    ignored: list[str] = field(default_factory=list)
    _line_starts: list[int] | None = field(default=None, repr=False)
    _norms: dict[str, str] | None = field(default=None, repr=False)
    _names: frozenset[str] | None = field(default=None, repr=False)

    @classmethod
    def header(cls, file: str, names: Sequence[str], sheet: str | None = None) -> Table:
        """A table of a header alone (no rows), built at once however many columns."""
        # one numeric block: pandas neither splits nor inspects the (absent) values
        frame = pd.DataFrame(np.empty((0, len(names))), columns=list(names))
        return cls(file, frame, sheet=sheet)

    def by_norm(self) -> dict[str, str]:
        """Normalised name (:func:`norm`) -> the first column of that name."""
        if self._norms is None:
            self._norms = {}
            for c in self.columns:
                self._norms.setdefault(norm(c), c)
        return self._norms

    def has_column(self, name: str) -> bool:
        if self._names is None:
            self._names = frozenset(self.columns)
        return name in self._names

    def shown_columns(self, limit: int = 30) -> str:
        """The column names for a message (the first ``limit`` of a wide table)."""
        names = self.columns
        if len(names) <= limit:
            return ", ".join(names)
        return f"{', '.join(names[:limit])}, ... ({len(names):,} in all)"

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    def ignored_note(self) -> list[str]:
        """The warning for the columns of a wide file that were not read (or none)."""
        if not self.ignored:
            return []
        shown = ", ".join(self.ignored[:5]) + (", ..." if len(self.ignored) > 5 else "")
        what = f"sheet {self.sheet}" if self.sheet is not None else "the file"
        return [f"{what} is too large to read whole ({len(self.ignored) + len(self.columns):,} "
                f"columns): only the {len(self.columns)} the import needs were read "
                f"({', '.join(self.columns)}); the other {len(self.ignored):,} were ignored "
                f"({shown})"]

    def header_location(self) -> str:
        return f"sheet {self.sheet}, row 1" if self.sheet else "line 1"

    def line_number(self, label: int) -> int:
        """The line of a CSV file where data row ``label`` starts (0-based label)."""
        if self._line_starts is None:
            raw = self.raw if self.raw is not None else self.frame
            extra = np.zeros(len(raw), dtype=np.int64)
            for col in raw.columns:
                extra += raw[col].astype(str).str.count("\n").to_numpy(dtype=np.int64)
            starts = np.cumsum(np.concatenate(([self.header_lines + 1], 1 + extra[:-1])))
            self._line_starts = starts.tolist()
        if 0 <= label < len(self._line_starts):
            return int(self._line_starts[label])
        return label + self.header_lines + 1

    def locate(self, label: int) -> str:
        """Where data row ``label`` (0-based, before dropping blank rows) is in the file."""
        if self.sheet is not None:
            return f"sheet {self.sheet}, row {label + 2}"
        return f"line {self.line_number(label)}"

    def error(self, label: int, message: str, column: str | None = None,
              hint: Hint | None = None) -> InputError:
        return InputError(self.file, message, location=self.locate(label), field=column,
                          hint=hint)

    def first_label(self, mask: pd.Series) -> int:
        """The label of the first row where ``mask`` is true."""
        return int(mask[mask].index[0])


# -- CSV --------------------------------------------------------------------------------------


def sniff_delimiter(path: Path, head: bytes) -> str:
    if path.suffix.casefold() == ".tsv":
        return "\t"
    first = head.split(b"\n", 1)[0]
    counts = {sep: first.count(sep.encode()) for sep in (",", ";", "\t")}
    best = max(counts, key=lambda s: counts[s])
    return best if counts[best] > 0 and counts[best] > counts[","] else ","


def _first_record(data: bytes, sep: str) -> tuple[list[str], bool]:
    """The first CSV record of ``data`` (UTF-8) and whether it ended within
    :data:`MAX_HEADER_BYTES`.

    Reads a growing prefix, so that a header longer than any fixed size is read whole
    while a large file is not decoded just to learn its columns.
    """
    size = 65536
    while True:
        prefix = data[:size]
        whole = len(prefix) == len(data)
        text = prefix.decode("utf-8", errors="replace")
        buffer = io.StringIO(text, newline="")
        try:
            record: list[str] | None = next(csv.reader(buffer, delimiter=sep))
        except StopIteration:
            return [], True
        except csv.Error:
            record = None
        if record is not None and (whole or buffer.tell() < len(text)):
            return record, True
        if size >= MAX_HEADER_BYTES:
            return record or [], False
        size = min(size * 4, MAX_HEADER_BYTES)


def _checked_header(path: Path, data: bytes, sep: str) -> list[str]:
    """The header of a CSV file, refused when it is too long or repeats a name."""
    header, complete = _first_record(data, sep)
    if not complete:
        raise InputError(str(path), f"the header (the first record) is longer than "
                         f"{MAX_HEADER_BYTES:,} bytes, or a quote in it is never closed",
                         location="line 1")
    seen: set[str] = set()
    for name in header:
        key = name.strip()
        if len(key) > MAX_CELL_CHARS:
            raise InputError(str(path), f"a column name is {len(key):,} characters long; at "
                             f"most {MAX_CELL_CHARS:,} are read", location="line 1")
        if key in seen:
            raise InputError(str(path), f"column '{key}' appears twice in the header",
                             location="line 1", field=key)
        seen.add(key)
    return header


#: chooses, from a table of the header alone, the columns a reader needs
ColumnChoice = Callable[[Table], Collection[str]]


def read_csv_table(path: Path, encoding: str | None = None,
                   choose: ColumnChoice | None = None) -> Table:
    """Read a CSV (or TSV) file as all-text cells. Raises InputError with a clear message.

    The file must be UTF-8 unless ``encoding`` names its encoding; only regular files are
    read; the header and each cell's size are capped (:data:`MAX_CELL_CHARS`). A file with
    more than :data:`MAX_COLUMNS` columns is refused unless the reader says which columns
    it needs (``choose``, given the header as a table without rows): then only those are
    read, and the others are listed in ``Table.ignored``."""
    data = utf8_bytes(path, read_bytes(path), encoding)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    sep = sniff_delimiter(path, data[:65536])
    header = _checked_header(path, data, sep)
    names = [c.strip() for c in header]
    usecols: list[int] | None = None
    if len(header) > MAX_COLUMNS:
        if choose is None:
            raise InputError(str(path), f"the header has {len(header):,} columns; at most "
                             f"{MAX_COLUMNS:,} columns are read", location="line 1")
        keep = set(choose(Table.header(str(path), names)))
        usecols = [i for i, name in enumerate(names) if name in keep]
    try:
        raw = pd.read_csv(
            io.BytesIO(data),
            dtype=str,
            keep_default_na=False,
            skip_blank_lines=False,
            encoding="utf-8",
            sep=sep,
            usecols=usecols,
        )
    except UnicodeDecodeError:
        check_utf8_file(path)
        raise InputError(str(path), "not UTF-8 text; save it as UTF-8 and import again") from None
    except pd.errors.EmptyDataError:
        raise InputError(str(path), "the file is empty") from None
    except pd.errors.ParserError as e:
        raise malformed_csv(path, data, sep, str(e)) from None
    if not isinstance(raw.index, pd.RangeIndex):
        # pandas takes the first column(s) as the index when the first data row has more
        # cells than the header: that row is malformed, not a table with an index.
        raise malformed_csv(path, data, sep, "a row has more cells than the header")
    raw.columns = [str(c).strip() for c in raw.columns]
    header_lines = 1 + sum(c.count("\n") for c in header)
    if raw.empty:
        raise InputError(str(path), "the table has a header but no rows", location="line 2")
    frame = drop_blank_rows(raw)
    if frame.empty:
        raise InputError(str(path), "the table has a header but no rows", location="line 2")
    table = Table(str(path), frame, raw=raw, header_lines=header_lines)
    if usecols is not None:
        read = set(usecols)
        table.ignored = [name for i, name in enumerate(names) if i not in read]
        # the ignored cells may span lines too: the lines records start on, from the file
        table._line_starts = _record_lines(data, sep)[1:]
    if len(data) > MAX_CELL_CHARS:
        _check_cell_sizes(table)
    return table


def read_named_columns(path: Path, encoding: str | None, required: Sequence[str],
                       optional: Sequence[str], has: str) -> tuple[Table, dict[str, str]]:
    """A file of columns the reader knows by name (compared as :func:`norm` makes them;
    the others are not read, so a file too wide to read whole is still read), and each
    column's header by its :func:`norm` name. InputError when a ``required`` one is
    missing; ``has`` says what columns such a file has, for that message."""
    wanted = {norm(c) for c in (*required, *optional)}
    table = read_csv_table(path, encoding,
                           lambda header: [c for c in header.columns if norm(c) in wanted])
    by_norm = {norm(c): c for c in table.columns}
    missing = [c for c in required if norm(c) not in by_norm]
    if missing:
        raise InputError(
            str(path),
            f"missing column(s) {', '.join(missing)}; {has}; columns present: "
            f"{', '.join(table.columns)}",
            location="line 1",
            field=missing[0],
        )
    return table, by_norm


def _record_lines(data: bytes, sep: str) -> list[int]:
    """The line each CSV record of ``data`` starts on (the header's first)."""
    reader = csv.reader(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=""),
                        delimiter=sep)
    starts: list[int] = []
    line = 1
    for _record in reader:
        starts.append(line)
        line = reader.line_num + 1
    return starts


def _check_cell_sizes(table: Table) -> None:
    """Refuse a cell longer than :data:`MAX_CELL_CHARS` (naming its line and column)."""
    for column in table.frame.columns:
        lengths = table.frame[column].str.len()
        if int(lengths.max()) > MAX_CELL_CHARS:
            label = table.first_label(lengths > MAX_CELL_CHARS)
            raise table.error(label, f"the cell holds {int(lengths[label]):,} characters; at "
                              f"most {MAX_CELL_CHARS:,} are read per cell", str(column))


def malformed_csv(path: Path, data: bytes, sep: str, detail: str) -> InputError:
    """Find where a CSV file pandas refused goes wrong (the line a record starts on)."""
    text = data.decode("utf-8-sig", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    start, width = 1, None
    try:
        for record in reader:
            if width is None:
                width = len(record)
            elif len(record) > width:
                return InputError(str(path), f"not a well-formed CSV table: this row has "
                                  f"{len(record)} cells but the header has {width}; check "
                                  "quotes and separators", location=f"line {start}")
            start = reader.line_num + 1
    except csv.Error as e:
        if "field limit" in str(e):
            return InputError(str(path), f"a cell starting on this line is longer than "
                              f"{MAX_CELL_CHARS:,} characters (or a quote is never closed)",
                              location=f"line {start}")
        return InputError(str(path), "not a well-formed CSV table: a quoted cell starting "
                          "on this line is never closed (a missing '\"'?)",
                          location=f"line {start}")
    detail = re.sub(r"^Error tokenizing data\. C error: ", "", detail).strip()
    m = re.search(r"line (\d+)", detail)
    return InputError(str(path), f"not a well-formed CSV table ({detail})",
                      location=f"line {m.group(1)}" if m else None)


def drop_blank_rows(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.shape[1] == 0:
        return frame
    blank = (frame == "").all(axis=1)
    return frame[~blank] if bool(blank.any()) else frame


def read_header(path: Path, encoding: str | None = None) -> list[str]:
    """The column names of a CSV file (for format detection and previews)."""
    data = utf8_bytes(path, read_bytes(path), encoding)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return [c.strip() for c in _checked_header(path, data, sniff_delimiter(path, data[:65536]))]


# -- columns ----------------------------------------------------------------------------------


def find_column(
    table: Table,
    field_name: str,
    candidates: Sequence[str],
    mapping: dict[str, str],
    *,
    required: bool = False,
    what: str | None = None,
) -> str | None:
    """The column holding ``field_name``: the one named in ``--map``, else a candidate name.

    Raises InputError when a mapped column is absent or a required one is missing; the
    message lists the columns present.
    """
    by_norm = table.by_norm()
    mapped = mapping.get(field_name)
    if mapped is not None:
        if table.has_column(mapped):
            return mapped
        if norm(mapped) in by_norm:
            return by_norm[norm(mapped)]
        raise InputError(
            table.file,
            f"column '{mapped}' (chosen for {field_name}) is not in the table; "
            f"columns present: {table.shown_columns()}",
            location=table.header_location(),
            field=mapped,
            hint=Hint("map", f"{field_name}=COLUMN", f"choose another column for {field_name}"),
        )
    for cand in candidates:
        if norm(cand) in by_norm:
            return by_norm[norm(cand)]
    if required:
        expected = " or ".join(f"'{c}'" for c in candidates)
        raise InputError(
            table.file,
            f"missing the {what or field_name} column (expected {expected}); "
            f"columns present: {table.shown_columns()}",
            location=table.header_location(),
            field=field_name,
            hint=Hint("map", f"{field_name}=COLUMN", f"name the column for {field_name}"),
        )
    return None


def unique_map(
    table: Table,
    column: str,
    convert: Callable[[str], Any],
    values: pd.Series | None = None,
) -> list[Any]:
    """Apply ``convert`` once per distinct value of a column (as a list in row order).

    A ValueError from ``convert`` becomes an InputError naming the first row holding that value.
    """
    series = table.frame[column] if values is None else values
    out: dict[str, Any] = {}
    for value in pd.unique(series):
        try:
            out[value] = convert(value)
        except ValueError as e:
            label = table.first_label(series == value)
            raise table.error(label, str(e), column, getattr(e, "hint", None)) from None
    return [out[v] for v in series.tolist()]


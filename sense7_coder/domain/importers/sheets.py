"""Reading workbook sheets as all-text tables, cell by cell, bounded by the cells that hold data.

A sheet's declared size (its ``<dimension>``) and the position of its cells are not
trusted: a 2 KB workbook can hold one cell at ``XFD1048576``, and a reader that pads every
row to the widest one (or believes the declared range) then builds 17 billion empty cells.
Here openpyxl opens the workbook read-only (streaming) and each sheet's XML is parsed one
row at a time; only the cells that hold a value are kept (by column number), so memory and
time follow the cells present, not the addresses they claim. The header is the first row
that holds a value; a value below a header cell that is empty goes into a column named
``Unnamed: N`` (N counted from 0, as pandas names them); empty rows are left out, and each
row keeps its sheet row number, so messages name the row a user sees.

Values become text as a spreadsheet program shows them: whole numbers without ``.0``,
dates as ``YYYY-MM-DD HH:MM:SS``, errors (``#DIV/0!``) as written.
"""

from __future__ import annotations

import datetime as dt
import math
import warnings
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..file_reading import MAX_CELL_CHARS, MAX_COLUMNS
from .tables import ColumnChoice, Table, norm
from .workbook import check_workbook, reading

#: the most rows read from one sheet (Excel's own limit)
MAX_SHEET_ROWS = 1_048_576
#: the most cells (rows x columns, empty ones included) a sheet's table may have before
#: only the columns the reader needs are built
MAX_TABLE_CELLS = 20_000_000


def cell_text(value: Any) -> str:
    """A cell's value as the text a spreadsheet program shows."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):  # a hand-made part ("1e999999"): no spreadsheet holds it
            raise ValueError(f"a cell holds {value}, a number no spreadsheet holds")
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time | dt.timedelta):
        return str(value)
    return str(value)


@contextmanager
def open_book(path: Path) -> Iterator[Any]:
    """The workbook, opened read-only after :func:`check_workbook`; closed on leaving."""
    check_workbook(path)
    from openpyxl import load_workbook

    try:
        with warnings.catch_warnings(), reading(path):
            warnings.simplefilter("ignore")  # "no default style", unknown extensions
            book = load_workbook(path, read_only=True, data_only=True, keep_links=False)
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except OSError as e:  # what the reader raises on a damaged part, reading() words
        raise InputError(str(path), f"not a readable Excel workbook (.xlsx): "
                         f"{_first_line(e)}") from None
    try:
        yield book
    finally:
        book.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def sheet_names(book: Any) -> list[str]:
    return [str(s) for s in book.sheetnames]


def find_sheet(book: Any, wanted: str) -> str | None:
    """The sheet named ``wanted`` (ignoring case, spaces and punctuation), or None."""
    return next((s for s in sheet_names(book) if norm(s) == norm(wanted)), None)


def _sparse_rows(book: Any, sheet: str) -> Iterator[tuple[int, list[tuple[int, Any]]]]:
    """(row number, [(column number, value), ...]) for each row that holds a value.

    openpyxl's own worksheet parser reads the sheet XML a row at a time; its read-only
    rows would pad each row to its last cell and insert every missing row, so the rows
    are taken from the parser before that padding."""
    from openpyxl.worksheet._reader import WorkSheetParser

    ws = book[sheet]
    with ws._get_source() as src:
        parser = WorkSheetParser(src, ws._shared_strings, data_only=True, epoch=book.epoch,
                                 date_formats=book._date_formats,
                                 timedelta_formats=book._timedelta_formats)
        for number, cells in parser.parse():
            kept = [(c["column"], c["value"]) for c in cells
                    if c["value"] is not None and c["value"] != ""]
            if kept:
                yield number, kept


def read_sheet(path: Path, book: Any, sheet: str, *, header_only: bool = False,
               choose: ColumnChoice | None = None) -> Table:
    """One sheet as an all-text table (see :func:`_read_sheet`); a sheet whose XML is
    malformed, nested too deeply or out of range is refused in one line naming it."""
    with reading(path, sheet):
        return _read_sheet(path, book, sheet, header_only=header_only, choose=choose)


def _read_sheet(path: Path, book: Any, sheet: str, *, header_only: bool = False,
                choose: ColumnChoice | None = None) -> Table:
    """One sheet as an all-text table (empty rows left out; labels = sheet row - 2).

    A header of more than :data:`MAX_COLUMNS` columns is refused unless the reader says
    which columns it needs (``choose``, given the header as a table without rows): then
    only those are read, and the others are listed in ``Table.ignored``. The same choice
    is made when the table would have more than :data:`MAX_TABLE_CELLS` cells (a few
    values spread over many rows and columns)."""
    where = f"sheet {sheet}"
    ignored: list[str] = []
    rows = _sparse_rows(book, sheet)
    try:
        first = next(rows, None)
        if first is None:
            raise InputError(str(path), "the sheet has no rows", location=where)
        header_row, header_cells = first
        names: dict[int, str] = {}
        for column, value in header_cells:
            names[column] = cell_text(value).strip()
        if len(names) > MAX_COLUMNS and not header_only:
            if choose is None:
                raise InputError(str(path), f"the header has {len(names):,} columns; at most "
                                 f"{MAX_COLUMNS:,} columns are read",
                                 location=f"{where}, row {header_row}")
            names, ignored = _chosen(path, sheet, names, choose)
        cells_of: dict[int, list[tuple[int, str]]] = {c: [] for c in names}
        labels: list[int] = []
        if not header_only:
            for number, cells in rows:
                if len(labels) >= MAX_SHEET_ROWS:
                    raise InputError(str(path), f"the sheet has more than {MAX_SHEET_ROWS:,} "
                                     "rows", location=where)
                n = len(labels)
                for column, value in cells:
                    if ignored and column not in names:
                        continue
                    text = cell_text(value)
                    if len(text) > MAX_CELL_CHARS:
                        raise InputError(str(path), f"the cell holds {len(text):,} characters; "
                                         f"at most {MAX_CELL_CHARS:,} are read per cell",
                                         location=f"{where}, row {number}",
                                         field=names.get(column))
                    found = cells_of.get(column)
                    if found is None:
                        if len(cells_of) >= MAX_COLUMNS:
                            raise InputError(str(path), f"the sheet has values in more than "
                                             f"{MAX_COLUMNS:,} columns; at most "
                                             f"{MAX_COLUMNS:,} columns are read",
                                             location=f"{where}, row {number}")
                        found = cells_of[column] = []
                    found.append((n, text))
                labels.append(number - 2)
    except zlib.error as e:  # a damaged compressed part (the rest :func:`reading` words)
        raise InputError(str(path), f"cannot read the sheet: a damaged part ({e})",
                         location=where) from None
    if choose is not None and not ignored and len(cells_of) * len(labels) > MAX_TABLE_CELLS:
        # a few cells spread over many rows and columns: a table of them all would be
        # mostly padding, so only the columns the reader needs are built
        every = {c: names.get(c, "") for c in cells_of}
        names, ignored = _chosen(path, sheet, every, choose)
        cells_of = {c: cells for c, cells in cells_of.items() if c in names}
    ordered = sorted(cells_of)
    headers = _unique([names.get(c) or f"Unnamed: {c - 1}" for c in ordered])
    data: dict[str, list[str]] = {}
    for header, column in zip(headers, ordered, strict=True):
        values = [""] * len(labels)
        for i, text in cells_of.pop(column):
            values[i] = text
        data[header] = values
    frame = pd.DataFrame(data, index=pd.Index(labels, dtype="int64"), columns=headers,
                         dtype=str)
    return Table(str(path), frame, sheet=sheet, ignored=ignored)


def _chosen(path: Path, sheet: str, names: dict[int, str],
            choose: ColumnChoice) -> tuple[dict[int, str], list[str]]:
    """The columns (number -> header) ``choose`` keeps, and the names of the others."""
    order = sorted(names)
    named = dict(zip(order, _unique([names[c] or f"Unnamed: {c - 1}" for c in order]),
                     strict=True))
    keep = set(choose(Table.header(str(path), list(named.values()), sheet=sheet)))
    ignored = [name for name in named.values() if name not in keep]
    return {c: names[c] for c, name in named.items() if name in keep}, ignored


def _unique(headers: Sequence[str]) -> list[str]:
    """Repeated column names numbered as pandas numbers them: ``x``, ``x.1``, ``x.2``."""
    seen: dict[str, int] = {}
    out: list[str] = []
    taken = set(headers)
    for name in headers:
        if name in seen:
            k = seen[name]
            while f"{name}.{k}" in taken:
                k += 1
            seen[name] = k + 1
            new = f"{name}.{k}"
            taken.add(new)
            out.append(new)
        else:
            seen[name] = 1
            out.append(name)
    return out

"""The export tables as Excel workbooks (``.xlsx``) and SPSS data files (``.sav``).

The same tables as the CSV export (:mod:`.export`), written by openpyxl (write-only mode)
and pyreadstat. The format comes from ``to`` (``csv``, ``xlsx``, ``sav``) or else from the
file's extension; a file without an extension is CSV, any other extension is refused
(:func:`table_format`).

**xlsx**: one sheet named after the kind, a bold header row frozen at the top. Numbers are
numbers; every text is stored as a text cell, so a cell starting with ``=`` is shown, never
run (no leading ``'`` is needed or added). ``NA`` marks not applicable as in the CSV, an
empty cell a value nobody gave. Characters that XML cannot hold (control characters other
than tab and line breaks) become U+FFFD. A sheet holds at most 1,048,575 rows below its
header; a larger table is refused before anything is written.

**sav**: variable names are the column names, made SPSS-safe where needed (letters,
digits, ``_``, ``.``, ``@``, ``#``, ``$``; starting with a letter; at most 64 bytes; not
a reserved word), and every variable carries a label (the column's original name and
meaning; for the wide table the code's label and the coder). Columns of coded values
(``value`` and ``user_rating`` of the long and consensus tables, every ``<code>__<coder>``
column of the wide one) are numeric when their codes have numeric levels, with the codes'
level labels as value labels (1 = very poor ... 5 = very good; 0 = absent, 1 = present)
where the codes in the column agree on them, and "not applicable" written as a
*user-missing* value (99, or 999/9999/-99 when a level already uses 99) labelled "not
applicable"; an empty (system-missing) cell is a value nobody gave. Columns of nominal
codes are strings with ``NA`` as the user-missing value. Measurement levels: ordinal for
ordinal codes, nominal for ids, names and categories, scale for other numbers.

Both are written under a temporary name beside the destination and renamed when complete.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..codebook.codes import Code, Codebook
from ..errors import Cancelled, Hint
from ..files import ExportError, destination
from ..progress import CancelFn, ProgressFn
from .kinds import TABLES

TABLE_FORMATS = TABLES  # the export kinds table's file formats
XLSX_MAX_ROWS = 1_048_575  # below the header row
XLSX_MAX_COLUMNS = 16_384  # Excel opens no sheet wider (the wide export of a crowd is)
XLSX_MAX_CELL_CHARS = 32_767  # the longest text an Excel cell holds (openpyxl cuts longer)
NA_TEXT = "NA"
NA_LABEL = "not applicable"
NA_CODES = (99, 999, 9999, -99, -999)
WIDE_SEPARATOR = "__"
VALUE_COLUMNS = ("value", "user_rating")


_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_SPSS_RESERVED = {"ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO",
                  "WITH"}
#: variable labels of the standard columns (sav)
COLUMN_LABELS = {
    "coder": "Coder",
    "conversation_id": "Conversation id",
    "participant_id": "Participant id",
    "model": "Assistant (model)",
    "turn": "Turn: 1-based message position (empty = conversation level)",
    "sentence": "Sentence in the turn (empty unless sentence level)",
    "role": "Role of the turn's speaker",
    "code": "Code key",
    "value": "Coded value (user-missing = not applicable)",
    "level_label": "Label of the coded value",
    "user_rating": "The user's own rating of the turn on this code's dimension",
    "user_rating_na": "1 = the user said not applicable, 0 = rated, empty = not rated",
    "adjudicator": "Adjudicator who set the consensus",
    "rationale": "Adjudicator's rationale",
    "decided_at": "When the consensus was decided (UTC)",
}


def table_format(path: str | Path, to: str | None = None) -> str:
    """The format to write ``path`` in: ``to`` when given, else from the extension.

    No extension (or a device such as ``/dev/stdout``) means CSV; ``to`` that contradicts
    a known extension, or an unknown extension without ``to``, is an :class:`ExportError`.
    """
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if to is not None:
        to = to.lower()
        if to not in TABLE_FORMATS:
            raise ExportError(f"export format must be one of {', '.join(TABLE_FORMATS)}, "
                              f"got {to!r}")
        if suffix in TABLE_FORMATS and suffix != to:
            raise ExportError(f"{path}: the extension .{suffix} contradicts the format {to}",
                              hint=Hint("to", suffix, "make them agree"))
        return to
    if suffix in TABLE_FORMATS:
        return suffix
    if not suffix or (path.exists() and not path.is_file() and not path.is_dir()):
        return "csv"
    raise ExportError(f"{path}: unknown export format '.{suffix}'; name the file .csv, .xlsx "
                      "or .sav", hint=Hint("to", "|".join(TABLE_FORMATS), "or choose the format"))


@contextlib.contextmanager
def atomic_binary_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write a whole file to; renamed over ``path`` when the ``with``
    block ends without an error, removed otherwise. A device (``/dev/stdout``) gets the
    bytes copied into it."""
    path = destination(path)
    special = path.exists() and not path.is_file() and not path.is_dir()
    folder = Path(tempfile.gettempdir()) if special else path.parent
    tmp = folder / f".{path.name}.{uuid.uuid4().hex[:8]}.part"
    try:
        yield tmp
        if special:
            with open(tmp, "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            return
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        raise ExportError(
            f"{path}: cannot be written ({e.strerror or e}); nothing was written") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


# -- cells -----------------------------------------------------------------------------------

def _missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    try:
        import pandas as pd

        return v is pd.NA or v is pd.NaT
    except ImportError:  # pragma: no cover
        return False


def _cell(v: Any) -> Any:
    """A value as openpyxl should store it: None, a number, or a text cell's text."""
    if _missing(v):
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float):
        return v
    if hasattr(v, "item") and not isinstance(v, str):  # numpy scalars
        return _cell(v.item())
    return _ILLEGAL_XML.sub("\ufffd", str(v))


def _columns(frame: Any) -> list[list[Any]]:
    """Each column of a pandas frame as a plain list of Python values."""
    import numpy as np

    out = []
    for name in frame.columns:
        col = frame[name]
        out.append(np.asarray(col.astype(object) if hasattr(col, "cat") and
                              str(col.dtype) == "category" else col, dtype=object).tolist())
    return out


def versions_note(computed_with: dict[str, str]) -> str:
    """'Written by sense7-coder 0.2.0; computed with numpy 2.4.6, scipy 1.17.1, ...'."""
    (app, app_version), *libs = computed_with.items()
    text = f"Written by {app} {app_version}"
    if libs:
        text += "; computed with " + ", ".join(f"{name} {v}" for name, v in libs)
    return text + "."


def _sav_note(computed_with: dict[str, str] | None) -> list[str] | None:
    """The note as SPSS documents take it: lines of at most 80 characters."""
    import textwrap

    return textwrap.wrap(versions_note(computed_with), 80) if computed_with else None


# -- xlsx ------------------------------------------------------------------------------------

def _xlsx_value(ws: Any, value: Any, path: str | Path, index: int, column: object) -> Any:
    """One data cell of a write-only sheet; a text longer than an Excel cell holds is
    refused (openpyxl would cut it silently)."""
    from openpyxl.cell import WriteOnlyCell

    v = _cell(value)
    if not isinstance(v, str):
        return v
    if len(v) > XLSX_MAX_CELL_CHARS:
        raise ExportError(
            f"{path}: row {index + 2}, column '{column}': a text of {len(v):,} characters "
            f"does not fit an Excel cell (at most {XLSX_MAX_CELL_CHARS:,}); export as .csv or "
            ".sav, which keep the whole text")
    if v[:1] != "=":
        return v
    text = WriteOnlyCell(ws, value=v)
    text.data_type = "s"  # shown as text, never run as a formula
    return text


def write_xlsx(
    frame: Any,
    path: str | Path,
    *,
    sheet: str = "export",
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_rows: int = 50_000,
    computed_with: dict[str, str] | None = None,
) -> int:
    """Write ``frame`` as one sheet of an ``.xlsx`` workbook, atomically; returns the rows.
    ``computed_with`` (software -> version, the writing app first) goes into the workbook's
    document properties (creator, description)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    total = len(frame)
    if total > XLSX_MAX_ROWS:
        raise ExportError(
            f"{path}: {total:,} rows do not fit an Excel sheet (at most {XLSX_MAX_ROWS:,}); "
            "export as .csv or .sav, or narrow the export with the filters")
    if len(frame.columns) > XLSX_MAX_COLUMNS:
        raise ExportError(
            f"{path}: {len(frame.columns):,} columns do not fit an Excel sheet (at most "
            f"{XLSX_MAX_COLUMNS:,}); export as .csv or .sav",
            hint=Hint("coders", "", "or choose fewer coders or codes"))
    wb = Workbook(write_only=True)
    if computed_with:
        app, *_ = computed_with.items()
        wb.properties.creator = f"{app[0]} {app[1]}"
        wb.properties.description = versions_note(computed_with)
    ws = wb.create_sheet(title=sheet[:31] or "export")
    ws.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for name in frame.columns:
        cell = WriteOnlyCell(ws, value=_cell(str(name)))
        cell.data_type = "s"
        cell.font = bold
        header.append(cell)
    ws.append(header)
    try:
        _append_rows(ws, frame, path, progress, cancel, chunk_rows)
    except BaseException:
        # a refused cell or a cancel: end the sheet's stream now; left open, openpyxl
        # writes to its closed temporary file when collected and prints a traceback
        # after the one-line refusal
        with contextlib.suppress(Exception):
            ws.close()
        raise
    with atomic_binary_path(path) as tmp:
        wb.save(tmp)
    if progress and total == 0:
        progress(0, 0)
    return total


def _append_rows(ws: Any, frame: Any, path: str | Path, progress: ProgressFn | None,
                 cancel: CancelFn | None, chunk_rows: int) -> None:
    """The frame's rows, in chunks (progress and cancel between them)."""
    total = len(frame)
    columns = _columns(frame)
    width = len(columns)
    for start in range(0, total, max(chunk_rows, 1)):
        if cancel and cancel():
            raise Cancelled()
        stop = min(start + chunk_rows, total)
        for i in range(start, stop):
            ws.append([_xlsx_value(ws, columns[j][i], path, i, frame.columns[j])
                       for j in range(width)])
        if progress:
            progress(stop, total)


# -- sav -------------------------------------------------------------------------------------

def spss_names(names: Sequence[str]) -> list[str]:
    """SPSS-safe, unique variable names for ``names`` (kept as they are when already safe)."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        safe = re.sub(r"[^\w.@#$]", "_", str(name), flags=re.ASCII)
        if not safe or not safe[0].isalpha():
            safe = "v_" + safe
        safe = safe.rstrip(".") or "v"
        if safe.upper() in _SPSS_RESERVED:
            safe += "_"
        safe = safe.encode()[:64].decode(errors="ignore")
        base, n = safe, 1
        while safe.lower() in seen:
            n += 1
            tail = f"_{n}"
            safe = base.encode()[: 64 - len(tail)].decode(errors="ignore") + tail
        seen.add(safe.lower())
        out.append(safe)
    return out


#: the wide export's provenance columns ``<code>__<coder>__<suffix>`` that hold no value
PROVENANCE_SUFFIXES = ("source", "blind", "set_at", "origin")


def value_codes(frame: Any, kind: str, codebook: Codebook) -> dict[str, list[Code]]:
    """Which codes' values each column of coded values holds."""
    out: dict[str, list[Code]] = {}
    if kind in ("long", "consensus", "final") and "code" in frame.columns:
        import pandas as pd

        keys = [str(k) for k in pd.unique(frame["code"].astype(object)) if not _missing(k)]
        codes = [c for c in (codebook.get(k) for k in keys) if c is not None]
        for name in VALUE_COLUMNS:
            if name in frame.columns:
                out[name] = codes
    elif kind == "wide":
        for name in frame.columns:
            key, sep, rest = str(name).partition(WIDE_SEPARATOR)
            if rest.rpartition(WIDE_SEPARATOR)[2] in (*PROVENANCE_SUFFIXES, "na") and \
                    rest.rpartition(WIDE_SEPARATOR)[0]:
                continue  # how a value was made, or whether it is not applicable
            code = codebook.get(key) if sep else None
            if code is not None:
                out[str(name)] = [code]
    return out


def _na_code(codes: Sequence[Code], seen: set[float]) -> int:
    used = {float(lv.value) for c in codes for lv in c.levels} | seen
    return next(n for n in NA_CODES if float(n) not in used)


def _number(v: Any) -> float | None:
    """A numeric cell, or None when the text is not a number."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, int | float):
        return float(v)
    if hasattr(v, "item") and not isinstance(v, str):
        return _number(v.item())
    try:
        return float(str(v))
    except ValueError:
        return None


def _coded_column(values: list[Any], codes: Sequence[Code]) -> tuple[Any, dict[str, Any]]:
    """A column of coded values as SPSS data plus its metadata."""
    import numpy as np

    numeric = all(c.kind != "nominal" for c in codes)
    meta: dict[str, Any] = {}
    if numeric:
        present = {x for v in values if not _missing(v) and v != NA_TEXT
                   and (x := _number(v)) is not None}
        na = _na_code(codes, present)
        data = np.array([np.nan if _missing(v) else float(na) if v == NA_TEXT else _number(v)
                         for v in values], dtype=float)
        labels: dict[float, str] = {}
        clash = False
        for c in codes:
            for lv in c.levels:
                key = float(lv.value)
                if labels.setdefault(key, lv.label) != lv.label:
                    clash = True
        value_labels = {} if clash else {int(k) if k.is_integer() else k: v
                                         for k, v in labels.items()}
        value_labels[na] = NA_LABEL
        meta["labels"] = value_labels
        meta["missing"] = [na]
        meta["measure"] = "ordinal" if codes and all(c.kind == "ordinal" for c in codes) \
            else "nominal"
        return data, meta
    data = np.array(["" if _missing(v) else str(v) for v in values], dtype=object)
    meta["missing"] = [NA_TEXT]
    meta["measure"] = "nominal"
    return data, meta


def _plain_column(values: list[Any]) -> tuple[Any, str]:
    """Numbers stay numeric (empty = system missing); anything else becomes text."""
    import numpy as np

    present = [v for v in values if not _missing(v)]
    if all(isinstance(v, int | float | np.integer | np.floating)
                       and not isinstance(v, bool) for v in present):
        return np.array([np.nan if _missing(v) else float(v) for v in values]), "scale"
    return np.array(["" if _missing(v) else str(v) for v in values], dtype=object), "nominal"


def sav_frame(frame: Any, kind: str, codebook: Codebook) -> tuple[Any, dict[str, Any]]:
    """The table as pyreadstat wants it, with the labels, missing values and measures."""
    import pandas as pd

    names = [str(n) for n in frame.columns]
    safe = spss_names(names)
    coded = value_codes(frame, kind, codebook)
    data: dict[str, Any] = {}
    column_labels: dict[str, str] = {}
    value_labels: dict[str, dict[Any, str]] = {}
    missing: dict[str, list[Any]] = {}
    measure: dict[str, str] = {}
    for name, var, values in zip(names, safe, _columns(frame), strict=True):
        if name in coded:
            data[var], meta = _coded_column(values, coded[name])
            if meta.get("labels"):
                value_labels[var] = meta["labels"]
            missing[var] = meta["missing"]
            measure[var] = meta["measure"]
        else:
            data[var], measure[var] = _plain_column(values)
            if name in ("turn", "sentence", "position"):
                measure[var] = "ordinal"
        column_labels[var] = _label(name, kind, codebook)
    out = pd.DataFrame(data, columns=safe)
    return out, {"column_labels": column_labels, "variable_value_labels": value_labels,
                 "missing_ranges": missing, "variable_measure": measure}


def _label(name: str, kind: str, codebook: Codebook) -> str:
    if kind == "wide":
        key, sep, coder = name.partition(WIDE_SEPARATOR)
        code = codebook.get(key) if sep else None
        if code is not None:
            who, _, what = coder.rpartition(WIDE_SEPARATOR)
            if who and what == "na":
                return (f"{code.label} ({code.key}), coded by {who}: 1 = not applicable, "
                        "0 = a value, empty = not coded")
            if who and what in (*PROVENANCE_SUFFIXES, "after_reveal"):
                return f"{code.label} ({code.key}), coded by {who}: {what.replace('_', ' ')}"
            return f"{code.label} ({code.key}), coded by {coder}"
    return (COLUMN_LABELS.get(name, name) if kind in ("long", "wide", "consensus", "final")
            else name)


def write_sav(
    frame: Any,
    path: str | Path,
    *,
    kind: str,
    codebook: Codebook,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    computed_with: dict[str, str] | None = None,
) -> int:
    """Write ``frame`` as an SPSS ``.sav`` file with labels, atomically; returns the rows.
    ``computed_with`` (software -> version) becomes the file's note (SPSS: DISPLAY
    DOCUMENTS)."""
    import pyreadstat

    total = len(frame)
    if cancel and cancel():
        raise Cancelled()
    data, meta = sav_frame(frame, kind, codebook)
    if cancel and cancel():
        raise Cancelled()
    with atomic_binary_path(path) as tmp:
        try:
            pyreadstat.write_sav(data, str(tmp), file_label=f"sense7-coder {kind} export",
                                 note=_sav_note(computed_with),
                                 **meta)
        except pyreadstat.ReadstatError as e:
            raise ExportError(f"{path}: the SPSS file cannot be written ({e})") from None
    if progress:
        progress(total, total)
    return total


def write_table(
    frame: Any,
    path: str | Path,
    fmt: str,
    *,
    kind: str,
    codebook: Codebook,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    computed_with: dict[str, str] | None = None,
) -> int:
    """Write an export table as ``xlsx`` or ``sav`` (CSV is :func:`.export.write_csv`)."""
    if fmt == "xlsx":
        return write_xlsx(frame, path, sheet=kind, progress=progress, cancel=cancel,
                          computed_with=computed_with)
    if fmt == "sav":
        return write_sav(frame, path, kind=kind, codebook=codebook, progress=progress,
                         cancel=cancel, computed_with=computed_with)
    raise ExportError(f"{path}: no writer for format {fmt!r}")

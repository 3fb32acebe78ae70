"""Checking an .xlsx workbook before a spreadsheet reader parses it.

An .xlsx file is a ZIP archive of XML parts. Before openpyxl sees it, the archive's
directory alone (no inflating) is checked against :data:`MAX_UNCOMPRESSED` bytes in all
and a compression ratio of :data:`MAX_RATIO` per part, so that a small file that inflates
to gigabytes is refused at once; then the prolog of every part (the bytes before its
first element; every part whatever its name, as a reader may take any part for XML) is
read, and a part that declares a DTD (``<!DOCTYPE``, where entity expansion attacks live,
and which no spreadsheet program writes) is refused. The parts a reader parses whole (the
styles, the workbook, the relationships, the document properties) may hold at most
:data:`MAX_WHOLE_ELEMENTS` elements each, counted while streaming, so that a styles part
with millions of formats (a few MB on disk) is refused before it is parsed.
Inflating stops at a part's size as declared in the directory (Python's ``zipfile``
checks it), so the declared sizes bound what any reader inflates.
"""

from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..file_reading import read_bytes, regular_file

#: the most bytes the parts of a workbook may inflate to, all together
MAX_UNCOMPRESSED = 1024 * 1024 * 1024 // 2
#: the highest compression ratio of a part larger than :data:`RATIO_FLOOR` bytes
MAX_RATIO = 200
RATIO_FLOOR = 1024 * 1024
#: the most parts (files inside the ZIP archive) a workbook may hold
MAX_PARTS = 10_000
#: the most bytes read looking for the first element of an XML part
MAX_PROLOG = 1024 * 1024
#: the most XML elements in a part a reader parses whole (Excel itself stops at 64,000
#: cell formats, about as many elements in a styles part)
MAX_WHOLE_ELEMENTS = 200_000
#: the parts (by name, ignoring case) a reader parses whole rather than streaming
WHOLE_PARTS = ("styles.xml", "workbook.xml", ".rels", "[content_types].xml", "core.xml",
               "app.xml", "custom.xml")
#: the first bytes of an OLE compound file: .xls workbooks and password-protected .xlsx
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: what a spreadsheet reader raises on a part it cannot parse: malformed XML
#: (``ParseError`` is a ``SyntaxError``), elements nested past Python's recursion, a
#: number or reference out of range, an attribute of the wrong type
READER_ERRORS = (zipfile.BadZipFile, EOFError, KeyError, ValueError, TypeError, IndexError,
                 AttributeError, SyntaxError, OverflowError, RecursionError)


@contextlib.contextmanager
def reading(path: Path, sheet: str | None = None) -> Iterator[None]:
    """Turn what a reader raises parsing a damaged or hostile workbook (or ``sheet`` of
    it) into one InputError naming the file and sheet."""
    try:
        yield
    except READER_ERRORS as e:
        if isinstance(e, SyntaxError):
            why = f"its XML is malformed ({e.msg if hasattr(e, 'msg') else e})"
        elif isinstance(e, RecursionError):
            why = "its XML is nested too deeply"
        else:
            why = f"{type(e).__name__}: {e}" if not str(e) else str(e)
        what = "cannot read the sheet" if sheet else "not a readable Excel workbook (.xlsx)"
        raise InputError(str(path), f"{what}: {why[:200]}",
                         location=f"sheet {sheet}" if sheet else None) from None


def check_workbook(path: Path) -> None:
    """Refuse a workbook that is not a regular file, would inflate too much or has a DTD."""
    regular_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
            if len(parts) > MAX_PARTS:
                raise InputError(str(path), f"the workbook holds {len(parts):,} parts; at most "
                                 f"{MAX_PARTS:,} are read")
            total = sum(p.file_size for p in parts)
            if total > MAX_UNCOMPRESSED:
                raise InputError(
                    str(path),
                    f"the workbook would inflate to {total / 2**20:,.0f} MiB; at most "
                    f"{MAX_UNCOMPRESSED // 2**20:,} MiB are read (save the sheets as CSV files "
                    "and import those)",
                )
            for part in parts:
                ratio = part.file_size / max(part.compress_size, 1)
                if part.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
                    raise InputError(
                        str(path),
                        f"the workbook's part {part.filename} is compressed {ratio:,.0f} to 1; "
                        f"more than {MAX_RATIO} to 1 is refused as a likely ZIP bomb",
                    )
            for part in parts:
                if not part.is_dir():  # every part that starts like XML, whatever its name
                    with archive.open(part) as fh:
                        verdict = _declares_dtd(fh)
                    if verdict:
                        raise InputError(
                            str(path),
                            f"the workbook's part {part.filename} {verdict}; a workbook "
                            "saved by a spreadsheet program has none, so it is refused",
                        )
                    if part.filename.casefold().endswith(WHOLE_PARTS):
                        with archive.open(part) as fh:
                            if _more_elements(fh, MAX_WHOLE_ELEMENTS):
                                raise InputError(
                                    str(path),
                                    f"the workbook's part {part.filename} holds more than "
                                    f"{MAX_WHOLE_ELEMENTS:,} XML elements (Excel itself "
                                    "allows 64,000 cell formats); refused before reading",
                                )
    except zipfile.BadZipFile as e:
        if read_bytes(path, 8) == OLE_MAGIC:
            raise InputError(str(path), "is an old Excel (.xls) workbook or a password-"
                             "protected one; save it as .xlsx without a password") from None
        raise InputError(str(path), f"not a readable Excel workbook (.xlsx): {e}") from None
    except (OSError, EOFError, RuntimeError, NotImplementedError) as e:
        raise InputError(str(path), f"not a readable Excel workbook (.xlsx): {e}") from None


def _more_elements(fh: object, limit: int) -> bool:
    """Does an XML part hold more than ``limit`` elements? Streams it, stops when it does."""
    count = 0
    tail = b""
    while True:
        chunk = fh.read(1 << 20)  # type: ignore[attr-defined]
        if not chunk:
            return False
        data = tail + chunk
        count += data.count(b"<") - data.count(b"</") - data.count(b"<?") - data.count(b"<!")
        count -= tail.count(b"<") - tail.count(b"</") - tail.count(b"<?") - tail.count(b"<!")
        if count > limit:
            return True
        tail = data[-1:]


def _declares_dtd(fh: object) -> str | None:
    """Why an XML part's prolog is refused (it declares a DTD, or never ends), or None."""
    buf = b""
    while len(buf) < MAX_PROLOG:
        chunk = fh.read(8192)  # type: ignore[attr-defined]
        buf += chunk
        verdict = _scan_prolog(buf, final=not chunk)
        if verdict is not None:
            return verdict or None
        if not chunk:
            return None
    return f"has more than {MAX_PROLOG:,} bytes before its first element"


def _scan_prolog(raw: bytes, final: bool) -> str | None:
    """'' when the first element is reached with no DTD, a reason when a DTD is declared,
    None when more bytes are needed."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(raw) > 1 and b"\x00" in raw[:4]):
        codec = "utf-16-be" if raw[:1] == b"\x00" or raw[:2] == b"\xfe\xff" else "utf-16-le"
        text = raw[: len(raw) // 2 * 2].decode(codec, errors="ignore")
        raw = text.lstrip("\ufeff").encode("utf-8")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    i = 0
    while True:
        while i < len(raw) and raw[i : i + 1] in b" \t\r\n":
            i += 1
        rest = raw[i:]
        if len(rest) < 9 and not final:
            return None
        if not rest:
            return ""
        if rest.startswith(b"<?"):
            end = rest.find(b"?>")
            if end < 0:
                return "" if final else None
            i += end + 2
        elif rest.startswith(b"<!--"):
            end = rest.find(b"-->", 4)
            if end < 0:
                return "" if final else None
            i += end + 3
        elif rest.startswith(b"<!"):
            return "declares a DTD (<!DOCTYPE ...>)"
        else:  # the first element, or not XML at all (an image)
            return ""

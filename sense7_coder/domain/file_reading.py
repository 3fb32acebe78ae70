"""Reading an input file: one definition for every reader of the domain.

A file is read only when it is a regular file (not a pipe, device, socket or folder), up to
a size limit where the reader gives one, and decoded as UTF-8 (a BOM is allowed) or in the
encoding the person named; archives, binary files and text in other encodings are refused
in one line naming the file, the line and the byte. Readers that hand the file to a
library (pandas, openpyxl, ijson) check it here first.

Which files must never be opened (a project file this process holds: closing any
descriptor on it drops the process's locks) is not decided here: the store registers its
check (:func:`guard_inputs_with`) and every file passes it before it is opened.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .errors import Hint, InputError

#: a check that refuses a file which must not be opened, raising a one-line error naming it
InputGuard = Callable[[Path], None]
#: the checks every input file passes before it is opened (one: the store's)
_guards: list[InputGuard] = []


def guard_inputs_with(check: InputGuard) -> None:
    """Make every input file pass ``check`` before it is opened. The store registers the one
    check that knows which project files this process holds (by device and inode, so a
    link or another spelling of the name is caught too)."""
    if check not in _guards:
        _guards.append(check)


#: the most characters one table cell (or one header) may hold
MAX_CELL_CHARS = 1_000_000
#: the most columns a table may have
MAX_COLUMNS = 2_000
#: the deepest nesting of JSON arrays and objects read
MAX_JSON_DEPTH = 200

NEWLINE = b"\n"
#: the first bytes of files that are archives or binary formats, not text
_MAGIC = (
    (b"\x1f\x8b", "a gzip-compressed file; decompress it first"),
    (b"PK\x03\x04", "a ZIP archive (an Excel workbook?); give .xlsx workbooks the ending .xlsx"),
    (b"BZh", "a bzip2-compressed file; decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file; decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; extract it first"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel (.xls) or Word file; save it as .xlsx or CSV"),
    (b"%PDF-", "a PDF document, not a data file"),
    (b"SQLite format 3\x00", "an SQLite database (a project file?), not a data file"),
)
_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32", "utf-32"),
    (b"\x00\x00\xfe\xff", "UTF-32", "utf-32"),
    (b"\xff\xfe", "UTF-16", "utf-16"),
    (b"\xfe\xff", "UTF-16", "utf-16"),
)
_FILE_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_encoding(name: str) -> str:
    """The codec name for ``--encoding NAME``; raises ValueError naming an unknown one."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        what = "unknown encoding" if info is None else "not a text encoding"
        raise ValueError(f"encoding '{name}': {what}; give a name such as "
                         "utf-8, utf-16, utf-32, cp1252 or latin-1")
    return info.name


def _not_regular(path: Path, mode: int) -> InputError:
    if stat.S_ISDIR(mode):
        return InputError(str(path), "is a folder, not a file")
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
    return InputError(str(path), f"is {kind}; only regular files are read")


def regular_file(path: Path) -> os.stat_result:
    """Check that ``path`` is a regular file (not a pipe, device, socket or folder) that
    may be opened (see :func:`guard_inputs_with`); nothing is opened here."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)
    for check in _guards:
        check(path)
    return st


def open_regular(path: Path) -> BinaryIO:
    """A regular file opened for reading (after :func:`regular_file`); anything else is
    refused in one line naming it. The file is opened without blocking and checked again
    once open, so a pipe or a device put in its place can neither hang the reader nor
    fill memory. For readers that stream the file (ijson) and for :func:`read_bytes`."""
    regular_file(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most ``limit`` of them); anything else is refused
    (see :func:`open_regular`)."""
    with open_regular(path) as fh:
        try:
            return fh.read() if limit is None else fh.read(limit)
        except OSError as e:
            raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None


def _line_of(data: bytes, offset: int) -> str:
    return f"line {data.count(NEWLINE, 0, offset) + 1}"


def sniff_encoding(data: bytes) -> tuple[str, str] | None:
    """(name, codec) of a UTF-16 or UTF-32 file, told by its BOM or by its NUL bytes."""
    for bom, name, codec in _BOMS:
        if data.startswith(bom):
            return name, codec
    head = data[:4096]
    head = head[: len(head) // 4 * 4]
    if len(head) < 4 or b"\x00" not in head:
        return None
    quarter = len(head) // 4
    zeros = [head[k::4].count(0) / quarter for k in range(4)]
    if min(zeros[1:]) > 0.6 and zeros[0] < 0.4:
        return "UTF-32 (little-endian, no byte-order mark)", "utf-32-le"
    if min(zeros[:3]) > 0.6 and zeros[3] < 0.4:
        return "UTF-32 (big-endian, no byte-order mark)", "utf-32-be"
    if zeros[1] > 0.6 and zeros[3] > 0.6 and max(zeros[0], zeros[2]) < 0.4:
        return "UTF-16 (little-endian, no byte-order mark)", "utf-16-le"
    if zeros[0] > 0.6 and zeros[2] > 0.6 and max(zeros[1], zeros[3]) < 0.4:
        return "UTF-16 (big-endian, no byte-order mark)", "utf-16-be"
    return None


def refuse_foreign(path: Path, data: bytes) -> None:
    """Refuse what is not UTF-8 text at a glance: other encodings (named), archives,
    binary files, NUL bytes. Cheap: looks at the first bytes and searches for NUL once."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise InputError(str(path), f"is {what}")
    found = sniff_encoding(data)
    if found is not None:
        name, codec = found
        raise InputError(str(path), f"the file is {name} encoded; re-save it as UTF-8",
                         hint=Hint("encoding", codec, f"or read it as {codec}"))
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(str(path), f"holds a NUL byte at byte offset {nul}: binary data, "
                         "not text", location=_line_of(data, nul),
                         hint=Hint("encoding", "utf-16", "if it is UTF-16 text in a script the "
                                   "importer cannot recognise, read it as utf-16"))


def decode_text(path: Path, data: bytes, encoding: str | None = None) -> str:
    """The text of a file: UTF-8 (a BOM is allowed), or ``encoding`` when the user gave one.

    Raises InputError for empty files, NUL bytes and text in another encoding (naming
    the encoding where it can be recognised)."""
    if encoding is not None:
        return _decode_as(path, data, encoding)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError(str(path), "the file is empty")
    refuse_foreign(path, data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(path, data, e.start) from None


def _decode_as(path: Path, data: bytes, encoding: str) -> str:
    """The text of a file in the encoding the person named (see :func:`decode_text`)."""
    codec = check_encoding(encoding)
    if codec == "utf-8":
        codec = "utf-8-sig"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as e:
        raise InputError(str(path), f"cannot be read as {encoding}: bytes at byte offset "
                         f"{e.start} are not {encoding} ({e.reason})",
                         location=_line_of(data, e.start)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:  # lone surrogates, e.g. from unicode_escape
        raise InputError(str(path), f"read as {encoding}, the file holds a character no "
                         f"text can hold (U+{ord(text[e.start]):04X})",
                         location=f"line {text.count(chr(10), 0, e.start) + 1}") from None
    if not text.strip():
        raise InputError(str(path), "the file is empty")
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(str(path), f"holds a NUL character: binary data, not {encoding} "
                         "text", location=f"line {text.count(chr(10), 0, nul) + 1}")
    return text


def utf8_bytes(path: Path, data: bytes, encoding: str | None = None) -> bytes:
    """The file's bytes as UTF-8 (BOM kept) after the checks of :func:`decode_text`;
    without ``encoding`` the bytes are only looked at, not decoded (the reader will)."""
    if encoding is not None:
        return decode_text(path, data, encoding).encode("utf-8")
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if not body.strip():
        raise InputError(str(path), "the file is empty")
    refuse_foreign(path, body)
    return data


def _binary(sample: bytes) -> bool:
    controls = sum(sample.count(bytes([b])) for b in (*range(1, 9), *range(14, 32), 127))
    return controls > max(len(sample) // 20, 2)


def not_utf8(path: Path, data: bytes, offset: int) -> InputError:
    """The error for bytes that are not UTF-8: binary data, or text in an 8-bit encoding."""
    if _binary(data[:65536]):
        return InputError(str(path), "holds binary data, not text (is it the right file?)")
    sample = data[offset: offset + 4096]
    windows = any(0x80 <= b <= 0x9F for b in sample)
    guess = "Windows-1252" if windows else "Latin-1 (ISO-8859-1) or Windows-1252"
    codec = "cp1252" if windows else "latin-1"
    return InputError(
        str(path),
        f"not UTF-8 text: byte 0x{data[offset]:02x} at byte offset {offset} cannot be decoded; "
        f"the file looks like {guess} text; re-save it as UTF-8",
        location=_line_of(data, offset),
        hint=Hint("encoding", codec, f"or read it as {codec}"),
    )


def read_text(path: Path, encoding: str | None = None) -> str:
    return decode_text(path, read_bytes(path), encoding)


def check_utf8_file(path: Path, encoding: str | None = None) -> None:
    """Raise the clear InputError for a file pandas could not decode."""
    read_text(path, encoding)


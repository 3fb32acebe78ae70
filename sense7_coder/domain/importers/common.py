"""Shared pieces of the importers: options, role names, ratings, encodings, progress.

Everything here is pure Python (plus pandas for tables); no Qt, no SQL.
"""

from __future__ import annotations

import codecs
import gc
import math
import os
import re
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Cancelled, Hint, InputError
from ..models import NA_LABELS, RATING_KEYS, ROLES, SCALE_LABELS
from ..progress import CancelFn, ProgressFn
from ..rows import odd_character
from .formats import FORMATS as FORMATS  # the formats table's keys, auto first

#: Fields a ``--map FIELD=COLUMN`` (or a JSON key) may be pointed at.
MAP_FIELDS = (
    "conversation_id",
    "participant_id",
    "model",
    "topic",
    "role",
    "speaker",
    "text",
    "position",
    "time_offset",
    "comment",
    "transcript",
    *RATING_KEYS,
)

#: Speaker or role names understood without ``--roles`` (compared case-insensitively).
DEFAULT_ROLE_NAMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "user", "human", "seeker", "help-seeker", "helpseeker", "speaker", "usr",
            "client", "customer", "patient", "prompter",
        ),
        "user",
    ),
    **dict.fromkeys(
        (
            "assistant", "bot", "chatbot", "gpt", "chatgpt", "ai", "llm", "model", "supporter",
            "listener", "agent", "helper", "counselor", "counsellor", "therapist",
        ),
        "assistant",
    ),
    **dict.fromkeys(("system", "developer"), "system"),
}

#: How often (in rows or messages) long loops report progress and look at cancel().
CHECK_EVERY = 2000



@dataclass
class ImportOptions:
    """What the user chose on the command line or in the import dialog.

    ``roles`` maps speaker/role names as written in the file to ``user``/``assistant``/
    ``system``; ``mapping`` maps a field of :data:`MAP_FIELDS` to the column (or JSON key)
    that holds it; ``encoding`` names the files' text encoding when it is not UTF-8.
    """

    format: str = "auto"
    roles: dict[str, str] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)
    #: ``--encoding``: the text encoding of the files (None = UTF-8, others refused)
    encoding: str | None = None


class RecordError(Exception):
    """A problem inside one record (a conversation, a message); the reader adds the file."""

    def __init__(self, message: str, where: str = "", field: str | None = None,
                 hint: Hint | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.field = field
        self.hint = hint


class HintedValueError(ValueError):
    """A value a converter refuses, with the way out (kept when it becomes an InputError)."""

    def __init__(self, message: str, hint: Hint | None = None):
        super().__init__(message)
        self.hint = hint


class _NoValues(dict[str, Any]):
    """The empty ratings (or attributes) that turns without any share: one object for a
    million turns instead of a million empty dicts. Changing it is refused; a reader that
    adds values gives the turn a dict of its own."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("shared empty values: give the turn a dict of its own to change it")

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = setdefault = pop = popitem = clear = _refuse


#: the empty mapping shared by the turns that hold no value of a kind
NO_VALUES: dict[str, Any] = _NoValues()


# -- command-line specs -------------------------------------------------------------------------


def _pairs(spec: str, what: str, example: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in spec.split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(
                f"{what} '{spec}': '{item.strip()}' is not NAME=VALUE; "
                f"give comma-separated pairs such as {example}"
            )
        pairs.append((name.strip(), value.strip()))
    return pairs


def parse_roles(spec: str) -> dict[str, str]:
    """Parse ``"Seeker=user,Supporter=assistant"``; raises ValueError with a clear reason."""
    example = "Seeker=user,Supporter=assistant"
    roles: dict[str, str] = {}
    seen: set[str] = set()
    for name, role in _pairs(spec, "speaker roles", example):
        role_key = role.casefold()
        if role_key not in ROLES:
            raise ValueError(
                f"speaker roles '{spec}': role '{role}' for '{name}' must be one of "
                f"{', '.join(ROLES)}"
            )
        if name.casefold() in seen:
            raise ValueError(f"speaker roles '{spec}': '{name}' is given twice")
        seen.add(name.casefold())
        roles[name] = role_key
    return roles


def parse_mapping(spec: str) -> dict[str, str]:
    """Parse ``"text=Content,conversation_id=Conv"``; raises ValueError with a clear reason."""
    mapping: dict[str, str] = {}
    for name, column in _pairs(spec, "column mapping", "text=Content,conversation_id=Conv"):
        key = name.casefold()
        if key not in MAP_FIELDS:
            raise ValueError(
                f"column mapping '{spec}': '{name}' is not a field; fields: "
                f"{', '.join(MAP_FIELDS)}"
            )
        if key in mapping:
            raise ValueError(f"column mapping '{spec}': field '{key}' is given twice")
        mapping[key] = column
    return mapping


# -- roles ----------------------------------------------------------------------------------------


class RoleResolver:
    """Maps speaker/role names onto ROLES: the user's ``--roles`` first, then defaults."""

    def __init__(self, roles: Mapping[str, str], defaults: Mapping[str, str] | None = None):
        base = DEFAULT_ROLE_NAMES if defaults is None else defaults
        self.table: dict[str, str] = {k.casefold(): v for k, v in base.items()}
        self.table.update({k.strip().casefold(): v for k, v in roles.items()})

    def knows(self, name: str) -> bool:
        return name.strip().casefold() in self.table

    def role(self, name: str) -> str | None:
        return self.table.get(name.strip().casefold())

    @staticmethod
    def unknown_message(name: str, what: str = "role") -> str:
        shown = name.strip() or "(empty)"
        return f"unknown {what} '{shown}'"

    @staticmethod
    def unknown_hint(name: str) -> Hint:
        """The way out of an unknown speaker: say which role it has."""
        shown = name.strip() or "(empty)"
        return Hint("roles", f"{shown}=user",
                    f"say which role '{shown}' has (user, assistant or system)")


# -- ratings --------------------------------------------------------------------------------------


class _Absent:
    """Marker: the cell is empty, i.e. the turn was not rated on that key."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()
RATING_HELP = "give 1-5, a label very poor/poor/neutral/good/very good, or unknown"


def parse_rating(raw: Any) -> int | None | _Absent:
    """One rating cell: empty -> ABSENT; unknown/NA -> None; label or 1..5 -> int.

    Raises ValueError naming the bad value.
    """
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return ABSENT
    if isinstance(raw, bool):
        raise ValueError(f"'{raw}' is not a rating; {RATING_HELP}")
    if isinstance(raw, int | float):
        if isinstance(raw, int) and not -10**6 < raw < 10**6:
            raise ValueError(f"a number of {len(str(abs(raw))):,} digits is not a rating; "
                             f"{RATING_HELP}")
        number: float | None = float(raw)
        text = str(raw)
    else:
        text = str(raw).strip()
        if text == "":
            return ABSENT
        key = " ".join(text.casefold().replace("_", " ").split())
        if key in SCALE_LABELS:
            return SCALE_LABELS[key]
        if key in NA_LABELS or key in {"none", "not rated", "null"}:
            return None
        try:
            number = float(text)
        except ValueError:
            number = None
    if number is not None and number.is_integer() and 1 <= number <= 5:
        return int(number)
    raise ValueError(f"'{shown(text)}' is not a rating; {RATING_HELP}")


#: column/key names that hold each rating, besides the key itself and ``rating_<key>``
RATING_ALIASES: dict[str, tuple[str, ...]] = {"overall": ("empathyoverall", "empathy_overall")}


def rating_candidates(key: str) -> tuple[str, ...]:
    return (key, f"rating_{key}", *RATING_ALIASES.get(key, ()))


# -- values -----------------------------------------------------------------------------------------

_INT_RE = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_FLOAT_RE = re.compile(r"-?(0|[1-9][0-9]*)\.[0-9]+")


def coerce_scalar(text: str) -> Any:
    """A table cell as an attribute value: whole numbers and decimals become numbers.

    Numbers with leading zeros (``007``) stay text, so identifiers survive.
    """
    if _INT_RE.fullmatch(text):
        return int(text)
    if _FLOAT_RE.fullmatch(text):
        return float(text)
    if text in ("TRUE", "True", "true"):
        return True
    if text in ("FALSE", "False", "false"):
        return False
    return text


def parse_number(raw: Any) -> float | None:
    """A time offset or position: empty -> None; a number -> float; else ValueError."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return None
    if isinstance(raw, bool):
        raise ValueError(f"'{raw}' is not a number")
    if isinstance(raw, int | float):
        try:
            value = float(raw)
        except OverflowError:
            raise ValueError(f"a number of {len(str(abs(raw))):,} digits is too large") from None
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"'{raw}' is not a number")
        return value
    text = str(raw).strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"'{shown(text)}' is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"'{shown(text)}' is not a number")
    return value


# -- text checks ------------------------------------------------------------------------------------

#: control characters, and the zero-width and direction characters, written as escapes
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                      r"\u2060-\u206f\ufeff\ufff9-\ufffb]")


def control_character(text: str) -> str | None:
    """The first control, zero-width or direction character of ``text`` as ``U+0007``,
    or None (:func:`..rows.odd_character`).

    Identifiers (conversation ids, coder names) must not hold them: they cannot be told
    apart on screen, and a line break would split a row of every export."""
    return odd_character(text)


def shown(text: str, limit: int = 60) -> str:
    """``text`` for an error message: shortened, control characters as escapes (``\\t``)."""
    if len(text) > limit:
        return f"{escaped(text[:limit])}... ({len(text):,} characters)"
    return escaped(text)


def escaped(text: str) -> str:
    """``text`` with its control characters written as escapes, so it stays on one line."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


# -- files and encodings -------------------------------------------------------------------------

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


_SIDECARS = ("-wal", "-shm", "-journal")


def _database_in_use(path: Path) -> bool:
    """Is ``path`` a database (a project file) with its ``-wal``/``-shm`` beside it, or one
    of those? Told from names alone: opening and closing such a file in a process holding
    a connection to it would drop that connection's locks."""
    name = str(path)
    for suffix in _SIDECARS:
        if name.endswith(suffix) and os.path.exists(name[: -len(suffix)]):
            return True
        if os.path.exists(name + suffix):
            return True
    return False


def regular_file(path: Path) -> os.stat_result:
    """Check that ``path`` is a regular file (not a pipe, device, socket or folder) and
    not a database in use (see :func:`_database_in_use`); nothing is opened."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)
    if _database_in_use(path):
        raise InputError(str(path), "is a database in use (a -wal or -shm file lies beside "
                         "it: a project file?), not a data file; it is not read")
    return st


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most ``limit`` of them); anything else is refused.

    The file is opened without blocking and checked again once open, so a pipe or a
    device put in its place can neither hang the reader nor fill memory.
    """
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
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read() if limit is None else fh.read(limit)
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None
    finally:
        os.close(fd)


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
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError(str(path), "the file is empty")
    refuse_foreign(path, data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(path, data, e.start) from None


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


# -- progress and cancel ------------------------------------------------------------------------


class Ticker:
    """Reports progress over several files (1000 units per file) and honours cancel()."""

    UNITS = 1000

    def __init__(self, progress: ProgressFn | None, cancel: CancelFn | None, files: int = 1):
        self.progress = progress
        self.cancel = cancel
        self.total = max(files, 1) * self.UNITS
        self.file_index = 0

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled()

    def start_file(self, index: int) -> None:
        self.file_index = index
        self.check()
        self._report(0.0)

    def rows(self, done: int, total: int) -> None:
        """Call inside loops (every CHECK_EVERY rows): checks cancel, reports progress."""
        self.check()
        self._report(done / total if total else 1.0)

    def finish_file(self) -> None:
        self._report(1.0)

    def _report(self, fraction: float) -> None:
        if self.progress is not None:
            fraction = min(max(fraction, 0.0), 1.0)
            done = self.file_index * self.UNITS + int(fraction * self.UNITS)
            self.progress(done, self.total)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects.

    Building a million turns otherwise triggers repeated full collections that cost more
    than the building itself; nothing built here forms reference cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

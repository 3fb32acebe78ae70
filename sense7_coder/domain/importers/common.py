"""Shared pieces of the importers: options, role names, ratings, encodings, progress.

Everything here is pure Python (plus pandas for tables); no Qt, no SQL.
"""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Cancelled, InputError
from ..models import NA_LABELS, RATING_KEYS, ROLES, SCALE_LABELS

FORMATS = ("auto", "sense7-xlsx", "sense7-csv", "csv", "json", "jsonl", "esconv", "transcript")

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

ProgressFn = Callable[[int, int], None]
CancelFn = Callable[[], bool]


@dataclass
class ImportOptions:
    """What the user chose on the command line or in the import dialog.

    ``roles`` maps speaker/role names as written in the file to ``user``/``assistant``/
    ``system``; ``mapping`` maps a field of :data:`MAP_FIELDS` to the column (or JSON key)
    that holds it.
    """

    format: str = "auto"
    roles: dict[str, str] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)


class RecordError(Exception):
    """A problem inside one record (a conversation, a message); the reader adds the file."""

    def __init__(self, message: str, where: str = "", field: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.field = field


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
    for name, role in _pairs(spec, "--roles", example):
        role_key = role.casefold()
        if role_key not in ROLES:
            raise ValueError(
                f"--roles '{spec}': role '{role}' for '{name}' must be one of {', '.join(ROLES)}"
            )
        if name.casefold() in seen:
            raise ValueError(f"--roles '{spec}': '{name}' is given twice")
        seen.add(name.casefold())
        roles[name] = role_key
    return roles


def parse_mapping(spec: str) -> dict[str, str]:
    """Parse ``"text=Content,conversation_id=Conv"``; raises ValueError with a clear reason."""
    mapping: dict[str, str] = {}
    for name, column in _pairs(spec, "--map", "text=Content,conversation_id=Conv"):
        key = name.casefold()
        if key not in MAP_FIELDS:
            raise ValueError(
                f"--map '{spec}': '{name}' is not a field; fields: {', '.join(MAP_FIELDS)}"
            )
        if key in mapping:
            raise ValueError(f"--map '{spec}': field '{key}' is given twice")
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
        return (
            f"unknown {what} '{shown}'; tell the importer what it is with "
            f"--roles '{shown}=user' (or =assistant, =system)"
        )


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
    raise ValueError(f"'{text}' is not a rating; {RATING_HELP}")


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
        return float(raw)
    text = str(raw).strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"'{text}' is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"'{text}' is not a number")
    return value


# -- files and encodings -------------------------------------------------------------------------


def read_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})") from None
    return data


def decode_utf8(path: Path, data: bytes) -> str:
    """Decode UTF-8 (a BOM is allowed). Raises InputError for empty or non-UTF-8 files."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(str(path), "is UTF-16 text; save it as UTF-8 and import again")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError(str(path), "the file is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(path, data, e.start) from None


def not_utf8(path: Path, data: bytes, offset: int) -> InputError:
    line = data.count(b"\n", 0, offset) + 1
    return InputError(
        str(path),
        f"not UTF-8 text: byte 0x{data[offset]:02x} at byte offset {offset} cannot be decoded "
        "(the file may be Latin-1 or Windows-1252); save it as UTF-8 and import again",
        location=f"line {line}",
    )


def read_text(path: Path) -> str:
    return decode_utf8(path, read_bytes(path))


def check_utf8_file(path: Path) -> None:
    """Raise the clear InputError for a file pandas could not decode."""
    decode_utf8(path, read_bytes(path))


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

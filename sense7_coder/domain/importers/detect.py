"""Recognising a file's format from its name and its first bytes or header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import Hint, InputError
from ..file_reading import read_text
from .esconv import looks_like_esconv
from .formats import CLAIMED, FORMATS, endings_text
from .jsonchat import load_json
from .jsonstream import NotStreamed, array_elements, first_character, streamable
from .options import ImportOptions
from .sense7 import is_messages_header, is_tasks_header
from .tables import norm, read_header

#: the endings auto-detection gives a format on the name alone (from the formats table)
SUFFIXES = CLAIMED
ROLE_COLUMNS = ("role", "speaker", "name", "author", "sender")
TRANSCRIPT_COLUMNS = ("transcript", "fullconversation", "conversation", "dialog", "dialogue")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}'; formats: {', '.join(FORMATS)}")
    return fmt


def detect_csv(path: Path, options: ImportOptions) -> str:
    columns = read_header(path, options.encoding)
    if is_messages_header(columns, options) or is_tasks_header(columns, options):
        return "sense7-csv"
    names = {norm(c) for c in columns}
    mapped = {f: norm(c) for f, c in options.mapping.items()}
    if names & {norm(c) for c in ROLE_COLUMNS} or mapped.get("role") in names \
            or mapped.get("speaker") in names:
        return "csv"
    if mapped.get("transcript") in names or names & set(TRANSCRIPT_COLUMNS):
        return "transcript"
    return "csv"


def detect_json(path: Path, encoding: str | None = None) -> tuple[str, Any]:
    """The format of a ``.json`` file and, when it parsed as a whole, its data."""
    try:
        data = load_json(path, encoding)
    except InputError as e:
        if "Extra data" in e.message:
            first = next((ln for ln in read_text(path, encoding).split("\n") if ln.strip()),
                         "")  # JSON Lines end at "\n" only (U+2028 may sit in a string)
            try:
                json.loads(first)
            except json.JSONDecodeError:
                raise e from None
            return "jsonl", None
        raise
    return ("esconv" if looks_like_esconv(data) else "json"), data


def detect_json_streamed(path: Path, encoding: str | None = None) -> tuple[str, Any]:
    """:func:`detect_json` without holding the file: a top-level array is read through one
    element at a time (its first tells ESConv); what follows it, or anything the stream
    leaves to the whole-file reader, is decided by :func:`detect_json` as before."""
    if not streamable(encoding):
        return detect_json(path, encoding)
    try:
        if first_character(path) != "[":
            return detect_json(path, encoding)
        first: list[Any] = []
        for element, _share in array_elements(path):
            if not first:
                first.append(element)
    except (NotStreamed, InputError, OSError, UnicodeError):
        return detect_json(path, encoding)  # JSON Lines, or the error as always worded
    return ("esconv" if looks_like_esconv(first) else "json"), None


def detect_with_data(path: Path, options: ImportOptions, *,
                     streamed: bool = False) -> tuple[str, Any]:
    suffix = path.suffix.casefold()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix], None
    if suffix == ".json":
        if streamed:
            return detect_json_streamed(path, options.encoding)
        return detect_json(path, options.encoding)
    if suffix in (".csv", ".tsv"):
        return detect_csv(path, options), None
    if not path.exists():
        raise InputError(str(path), "no such file")
    raise InputError(
        str(path),
        f"cannot tell the format of a '{suffix or 'extensionless'}' file; known endings: "
        f"{endings_text()}",
        hint=Hint("format", "", "or choose the format"),
    )


def detect_format(path: Path | str, options: ImportOptions | None = None) -> str:
    """The format ``read_files`` would use for ``path`` under ``--format auto``."""
    return detect_with_data(Path(path), options or ImportOptions())[0]

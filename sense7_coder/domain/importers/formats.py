"""The conversation import formats, one row each (:data:`IMPORT_FORMATS`): the name, the
reader, the file endings it takes, the endings ``auto`` gives it on the name alone, and
how ``auto`` tells it from the other formats of the same ending.

The command line's ``--format`` choices, the import dialog's format list and file filter,
the window's drag-and-drop and the "known endings" of an unrecognised file all come from
here. Adding a format is one row plus its reader; ``tests/test_tables.py`` fails when a row
is incomplete or its reader cannot be found.

Light (no pandas): the command line builds its choices from it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the format that picks one of the others from each file's name and content
AUTO = "auto"


@dataclass(frozen=True)
class ImportFormat:
    """One import format."""

    key: str
    #: in words (the import dialog's list, help text)
    name: str
    #: the function that reads a group of files in this format, ``module:function`` under
    #: :mod:`sense7_coder.domain.importers` (loaded on use: readers need pandas)
    reader: str
    #: file endings (lower case, with the dot) this format reads
    endings: tuple[str, ...]
    #: the endings ``auto`` gives this format on the name alone (without looking inside)
    claims: tuple[str, ...]
    #: how ``auto`` recognises it among the formats that share its endings
    sniffing: str


IMPORT_FORMATS: tuple[ImportFormat, ...] = (
    ImportFormat("sense7-xlsx", "SENSE-7 workbook (Tasks and Messages sheets)",
                 "reading:read_sense7_xlsx_group", (".xlsx", ".xlsm"), (".xlsx", ".xlsm"),
                 "any .xlsx or .xlsm workbook"),
    ImportFormat("sense7-csv", "SENSE-7 tables as two CSV files (tasks and messages)",
                 "reading:read_sense7_csv_group", (".csv", ".tsv"), (),
                 "a CSV whose header is the SENSE-7 tasks or messages table; the two files "
                 "are paired by name"),
    ImportFormat("csv", "long table, one row per message", "reading:read_long_csv_group",
                 (".csv", ".tsv"), (),
                 "a CSV with a role or speaker column (and any other CSV no other format "
                 "claims)"),
    ImportFormat("json", "JSON chat (native or common chat layouts)",
                 "reading:read_json_group", (".json",), (),
                 "a .json file that parses whole and is not ESConv"),
    ImportFormat("jsonl", "JSON Lines, one conversation per line", "reading:read_jsonl_group",
                 (".jsonl", ".ndjson", ".json"), (".jsonl", ".ndjson"),
                 "a .json file whose first line is a JSON value followed by more data"),
    ImportFormat("esconv", "ESConv (emotional support conversations)",
                 "reading:read_esconv_group", (".json",), (),
                 "a .json file laid out as ESConv (dialog with speaker and content)"),
    ImportFormat("transcript", "transcripts (Name: text lines)",
                 "reading:read_transcript_group", (".txt", ".csv", ".tsv"), (".txt",),
                 "a .txt file, or a CSV with a transcript or conversation column"),
)

#: the rows by key
FORMATS_BY_KEY: dict[str, ImportFormat] = {f.key: f for f in IMPORT_FORMATS}
#: the ``--format`` choices: ``auto`` first, then every row
FORMATS = (AUTO, *FORMATS_BY_KEY)
#: every ending some format reads, in the order the rows give them
ENDINGS: tuple[str, ...] = tuple(dict.fromkeys(e for f in IMPORT_FORMATS for e in f.endings))
#: the ending ``auto`` maps to a format without looking inside
CLAIMED: dict[str, str] = {e: f.key for f in IMPORT_FORMATS for e in f.claims}


def endings_text() -> str:
    """The endings as a list in words: ``.xlsx, .xlsm, .csv, ...``."""
    return ", ".join(ENDINGS)


def dialog_filter() -> str:
    """A file dialog's filter: every ending any format reads, then all files."""
    patterns = " ".join(f"*{e}" for e in ENDINGS)
    return f"Conversation files ({patterns});;All files (*)"


def importable(name: str) -> bool:
    """Whether a file's ending is one some format reads (case-insensitive)."""
    dot = name.rfind(".")
    return dot >= 0 and name[dot:].casefold() in ENDINGS

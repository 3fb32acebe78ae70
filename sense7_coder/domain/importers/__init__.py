"""Importers: conversation files -> domain objects (pure Python; no SQL, no Qt).

Formats (``FORMATS``; ``auto`` picks one from the file name and content):

* ``sense7-xlsx``: the SENSE-7 release workbook, sheets ``Tasks`` and ``Messages``
  (see :mod:`.sense7`);
* ``sense7-csv``: the same two tables as CSV files, read together into one batch;
* ``csv``: a long table, one row per message (see :mod:`.csv_long`);
* ``json`` / ``jsonl``: native or common chat layouts (see :mod:`.jsonchat`);
* ``esconv``: ESConv files (see :mod:`.esconv`);
* ``transcript``: ``Name: text`` transcripts in a ``.txt`` file or a CSV column
  (see :mod:`.transcript`).

Every file (or group of files) is read whole or raises one
:class:`~sense7_coder.domain.errors.InputError` naming the file, the line or row, and the
field; nothing is returned partially. Files must be UTF-8 (a BOM is allowed); other
encodings are refused with the byte offset and line of the first undecodable byte rather
than guessed.

Usage::

    options = ImportOptions(format="auto", roles=parse_roles("Seeker=user"),
                            mapping=parse_mapping("text=Content"))
    batches = read_files(["data.xlsx"], options, progress=..., cancel=...)
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from .formats import FORMATS
from .options import MAP_FIELDS, ImportOptions, parse_mapping, parse_roles
from .roles import DEFAULT_ROLE_NAMES
from .values import parse_rating

if TYPE_CHECKING:
    from .detect import detect_format
    from .preview import PreviewResult, preview, turns_frame
    from .reading import read_files

#: names whose modules need pandas: imported on first use (PEP 562), so that the command
#: line can offer ``FORMATS`` without loading pandas
_LATER = {
    "detect_format": ".detect",
    "PreviewResult": ".preview",
    "preview": ".preview",
    "turns_frame": ".preview",
    "read_files": ".reading",
}


def __getattr__(name: str) -> Any:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_LATER[name], __name__)
    for other, where in _LATER.items():
        if where == _LATER[name]:
            globals()[other] = getattr(module, other)
    return globals()[name]


class _Package(types.ModuleType):
    """Keeps ``preview`` the function: loading the submodule ``.preview`` (from anywhere,
    at any time) makes Python set the package attribute of that name to the submodule."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _LATER.get(name) == "." + name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "DEFAULT_ROLE_NAMES",
    "FORMATS",
    "MAP_FIELDS",
    "ImportOptions",
    "PreviewResult",
    "detect_format",
    "parse_mapping",
    "parse_rating",
    "parse_roles",
    "preview",
    "read_files",
    "turns_frame",
]

"""Where the bundled resources (codebooks, demo data, icons) live.

In a source checkout or an editable install they sit in ``resources/`` beside the package;
a wheel install places them under ``<prefix>/share/sense7-coder``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .domain.codebook.codes import Codebook, load_codebook
from .domain.errors import CodebookError


def resources_dir() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)  # a PyInstaller build
    if bundle and (Path(bundle) / "resources").is_dir():
        return Path(bundle) / "resources"
    here = Path(__file__).resolve().parent.parent / "resources"
    if here.is_dir():
        return here
    shared = Path(sys.prefix) / "share" / "sense7-coder"
    if shared.is_dir():
        return shared
    raise FileNotFoundError("sense7-coder resources folder not found")


def codebooks_dir() -> Path:
    return resources_dir() / "codebooks"


def demo_dir() -> Path:
    return resources_dir() / "demo"


#: bundled codebooks also offered at the grain of spans: name -> the codebook it recodes
SPAN_GRAIN = {"tactics-spans": "tactics"}


def bundled_codebooks() -> list[str]:
    return sorted([p.stem for p in codebooks_dir().glob("*.json")] + list(SPAN_GRAIN))


def at_span_grain(book: Codebook) -> Codebook:
    """The codebook with every code coded on spans of text (a stretch of a turn shows the
    tactic) instead of its own unit; keys, levels and definitions stay."""
    import dataclasses

    codes = [dataclasses.replace(c, unit="span", allow_na=False) for c in book.codes]
    return dataclasses.replace(book, codes=codes, name=f"{book.name}-spans",
                               title=f"{book.title} (spans)")


def resolve_codebook(name_or_path: str) -> Codebook:
    """A bundled codebook by name (``sense7``, ``tactics``) or a codebook file path (JSON,
    or REFI-QDA ``.qdc``/``.qdpx``)."""
    p = Path(name_or_path)
    if p.suffix.lower() in (".qdc", ".qdpx"):  # REFI-QDA (ATLAS.ti, MAXQDA, QualCoder...)
        from .domain.refi.qdc import load_qdc

        return load_qdc(p)
    if p.suffix == ".json" or p.exists():
        return load_codebook(p)
    if name_or_path in SPAN_GRAIN:
        return at_span_grain(resolve_codebook(SPAN_GRAIN[name_or_path]))
    bundled = codebooks_dir() / f"{name_or_path}.json"
    if bundled.exists():
        return load_codebook(bundled)
    raise CodebookError(
        f"no codebook named '{name_or_path}' (bundled: {', '.join(bundled_codebooks())}); "
        "give a file path to use your own"
    )

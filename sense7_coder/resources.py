"""Where the bundled resources (codebooks, demo data, icons) live.

In a source checkout or an editable install they sit in ``resources/`` beside the package;
a wheel install places them under ``<prefix>/share/sense7-coder``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .domain.codebook import Codebook, load_codebook
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


def bundled_codebooks() -> list[str]:
    return sorted(p.stem for p in codebooks_dir().glob("*.json"))


def resolve_codebook(name_or_path: str) -> Codebook:
    """A bundled codebook by name (``sense7``, ``tactics``) or a codebook file path (JSON,
    or REFI-QDA ``.qdc``/``.qdpx``)."""
    p = Path(name_or_path)
    if p.suffix.lower() in (".qdc", ".qdpx"):  # REFI-QDA (ATLAS.ti, MAXQDA, QualCoder...)
        from .domain.refi import load_qdc

        return load_qdc(p)
    if p.suffix == ".json" or p.exists():
        return load_codebook(p)
    bundled = codebooks_dir() / f"{name_or_path}.json"
    if bundled.exists():
        return load_codebook(bundled)
    raise CodebookError(
        f"no codebook named '{name_or_path}' (bundled: {', '.join(bundled_codebooks())}); "
        "give a file path to use your own"
    )

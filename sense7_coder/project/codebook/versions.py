"""Codebook versions as a study reads them: the list (numbered, dated, by whom, what
changed, how many codings were set under each), the codebook at any version, the
differences between two, its export (JSON or REFI-QDA ``.qdc``), and the codings set
under one version (to restrict agreement to them).

Versions are recorded by the codebook operations themselves (:mod:`.editing`, through
:mod:`...store.codebook_versions`); nothing here writes to the project.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...domain.codebook.codes import Codebook
from ...domain.codebook.diff import codebook_diff
from ...domain.errors import ProjectError
from ...domain.export.formats import atomic_binary_path
from ...domain.files import atomic_text_file
from ...store import codebook_versions as store
from ...store.db import refuse_open_project_file
from ..project import Project


@dataclass(frozen=True)
class VersionInfo:
    number: int
    at: str
    by: str | None
    changed: str
    #: codings whose value was last set under this version
    codings: int

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "at": self.at, "by": self.by, "changed": self.changed,
                "codings": self.codings}


def versions(project: Project) -> list[VersionInfo]:
    """Every version, oldest first (none before the first codebook change or coding)."""
    with project.snapshot():
        counts = store.counts_by_version(project.db)
        return [VersionInfo(v.number, v.at, v.by, v.changed, counts.get(v.number, 0))
                for v in store.versions(project.db)]


def unversioned_codings(project: Project) -> int:
    """Codings set before versions were recorded (a project made by an older release)."""
    return store.counts_by_version(project.db).get(None, 0)


def latest(project: Project) -> int | None:
    return store.latest_number(project.db)


def codebook_at(project: Project, number: int) -> Codebook:
    """The codebook as version ``number`` recorded it."""
    found = store.version(project.db, number)
    if found is None:
        have = store.latest_number(project.db)
        known = f"versions 1 to {have}" if have else "no version yet (none before the first "\
            "codebook change or coding)"
        raise ProjectError(f"codebook version {number}: no such version; the project has "
                           f"{known}")
    return found.codebook


def diff(project: Project, old: int, new: int) -> list[str]:
    """What changed in what the codes mean from version ``old`` to ``new``."""
    return codebook_diff(codebook_at(project, old), codebook_at(project, new))


def export_at(project: Project, number: int, path: str | Path) -> Path:
    """Write the codebook of version ``number`` as JSON, or REFI-QDA ``.qdc`` by the
    extension (whole or not at all)."""
    book = codebook_at(project, number)
    refuse_open_project_file(path, "to export the codebook to")
    if Path(path).suffix.lower() == ".qdc":
        from ...domain.refi.qdc import ORIGIN, codebook_qdc

        data = codebook_qdc(book, origin=ORIGIN)
        with atomic_binary_path(path) as tmp:
            tmp.write_bytes(data)
    else:
        with atomic_text_file(path) as fh:
            fh.write(book.to_json())
    return Path(path)


def keep_version(codings: pd.DataFrame, project: Project, number: int | None) -> pd.DataFrame:
    """The rows of ``codings`` (coder, conversation_id, position, sentence, code, ...) whose
    value was set under version ``number`` (None: every row)."""
    if number is None:
        return codings
    codebook_at(project, number)  # an unknown version is refused, not an empty result
    keys = store.coding_keys(project.db, number)
    if codings.empty:
        return codings
    rows = zip(codings["coder"].astype(str), codings["conversation_id"].astype(str),
               codings["position"].astype(int), codings["sentence"].astype(int),
               codings["code"].astype(str), strict=True)
    mask = [key in keys for key in rows]
    return codings[mask]

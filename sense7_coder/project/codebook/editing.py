"""Changing a project's codebook without orphaning anyone's codings.

Each function is one transaction. A change that would leave stored codings or consensus
decisions meaningless (a removed level still in use, a new kind or unit for a code that has
codings, forbidding not-applicable where it was used, deleting a used code) is refused with
a :class:`ProjectError` that says why and what to do instead (retire the code).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from string import ascii_uppercase
from typing import Any

from ...domain.codebook.codes import (
    MAX_CODES,
    Code,
    Codebook,
    free_shortcut,
    load_codebook,
    validate_codes,
)
from ...domain.errors import CodebookError, ProjectError
from ...domain.files import atomic_text_file
from ...store import codebook_versions as versions
from ...store import codes as store_codes
from ...store import meta as store_meta
from ...store.db import refuse_open_project_file
from ..authority import require_study
from ..changes import Changes
from ..project import Project

#: what every codebook operation changes (each returns it)
CODEBOOK = Changes(codebook=True)


@contextlib.contextmanager
def _change(project: Project) -> Iterator[Any]:
    """One codebook change: a write transaction recorded in the history as the codebook's,
    with the codebook before it kept as version 1 when the project has no version yet, and
    a new version recorded after it when what a code means changed
    (:mod:`...store.codebook_versions`)."""
    with project.pdb.acting("codebook"), project.pdb.atomic() as db:
        versions.ensure_first(db, project.coder)
        yield db
        versions.record(db, project.coder)


def _stored(project: Project, key: str) -> Code | None:
    """The code as saved (not the cached object, which a caller may have edited in place)."""
    return next((c for c in store_codes.load_codes(project.db) if c.key == key), None)


def _check_change(project: Project, new: Code) -> None:
    old = _stored(project, new.key)
    if old is None:
        return
    used = store_codes.code_usage(project.db, new.key)
    if not used:
        return
    if new.kind != old.kind:
        raise ProjectError(
            f"code '{new.key}' has {used} codings; its kind cannot change from {old.kind} to "
            f"{new.kind}. Retire it and add a new code instead."
        )
    if new.unit != old.unit:
        raise ProjectError(
            f"code '{new.key}' has {used} codings at the {old.unit} level; its unit cannot "
            f"change to {new.unit}. Retire it and add a new code instead."
        )
    in_use = store_codes.values_in_use(project.db, new.key)
    missing = sorted(str(v) for v in in_use if v not in set(new.values))
    if missing:
        raise ProjectError(
            f"code '{new.key}': level(s) {', '.join(missing)} are used by existing codings "
            "and cannot be removed"
        )
    if not new.allow_na and store_codes.na_in_use(project.db, new.key):
        raise ProjectError(
            f"code '{new.key}': some codings mark it not applicable, so not-applicable must stay allowed"
        )


def _validate_all(project: Project, changed: Sequence[Code]) -> None:
    by_key = {c.key: c for c in project.codebook.codes}
    for c in changed:
        by_key[c.key] = c
    if len(by_key) > MAX_CODES:
        raise ProjectError(f"the codebook would hold {len(by_key):,} codes; a codebook has at "
                           f"most {MAX_CODES:,} codes")
    try:
        validate_codes(list(by_key.values()), "codebook")
    except CodebookError as e:
        raise ProjectError(str(e)) from None


def add_code(project: Project, code: Code) -> Changes:
    """Add ``code``; a span code given no shortcut gets a free letter (its key marks a
    selection in the transcript: without one the code could be given only by the menu)."""
    require_study(project, "change the codebook")
    if project.codebook.get(code.key) is not None:
        raise ProjectError(f"a code with key '{code.key}' already exists")
    if code.unit == "span" and not code.shortcut:
        code = dataclasses.replace(
            code, shortcut=free_shortcut(project.codebook.codes, code.key, code.label))
    _validate_all(project, [code])
    with _change(project) as db:
        store_codes.upsert_code(db, code)
    project.invalidate_codebook()
    return CODEBOOK


def update_code(project: Project, code: Code) -> Changes:
    require_study(project, "change the codebook")
    if project.codebook.get(code.key) is None:
        raise ProjectError(f"no code '{code.key}' to change")
    _check_change(project, code)
    _validate_all(project, [code])
    with _change(project) as db:
        store_codes.upsert_code(db, code)
    project.invalidate_codebook()
    return CODEBOOK


def retire_code(project: Project, key: str, retired: bool = True) -> Changes:
    """Hide a code from coding (its codings stay and still export)."""
    require_study(project, "change the codebook")
    code = copy.deepcopy(project.code(key))
    code.retired = retired
    _validate_all(project, [code])
    with _change(project) as db:
        store_codes.upsert_code(db, code)
    project.invalidate_codebook()
    return CODEBOOK


def delete_code(project: Project, key: str) -> Changes:
    require_study(project, "change the codebook")
    project.code(key)
    used = store_codes.code_usage(project.db, key)
    if used:
        raise ProjectError(
            f"code '{key}' has {used} codings or decisions; retire it instead of deleting it"
        )
    with _change(project) as db:
        store_codes.delete_code(db, key)
    project.invalidate_codebook()
    return CODEBOOK


def reorder_codes(project: Project, keys: Sequence[str]) -> Changes:
    require_study(project, "change the codebook")
    current = {c.key for c in project.codebook.codes}
    if set(keys) != current or len(keys) != len(current):
        raise ProjectError("reordering must list every code exactly once")
    with _change(project) as db:
        store_codes.reorder_codes(db, keys)
    project.invalidate_codebook()
    return CODEBOOK


def _free_shortcuts(project: Project, codes: Sequence[Code], notes: list[str]) -> list[Code]:
    """``codes`` with each shortcut that another code of the project already uses moved to
    the first free letter (or dropped when none is free), with a note for each."""
    incoming = {c.key for c in codes}
    taken = {c.shortcut: c.key for c in project.codebook.codes
             if c.shortcut and not c.retired and c.key not in incoming}
    out = []
    for code in codes:
        letter = code.shortcut
        if letter and not code.retired and letter in taken:
            free = next((ch for ch in ascii_uppercase if ch not in taken), "")
            owner = taken[letter]
            code = dataclasses.replace(code, shortcut=free)
            notes.append(f"shortcut '{letter}' of code '{code.key}' is already used by "
                         f"'{owner}'; " + (f"'{code.key}' gets '{free}'" if free else
                                           f"'{code.key}' has no shortcut now"))
        if code.shortcut and not code.retired:
            taken[code.shortcut] = code.key
        out.append(code)
    return out


@dataclasses.dataclass(frozen=True)
class CodebookImport:
    """What merging a codebook file did: codes added and updated, and the change."""

    added: int
    updated: int
    changes: Changes


def apply_codebook(project: Project, codebook: Codebook,
                   notes: list[str] | None = None) -> CodebookImport:
    """Merge a codebook file into the project: new codes are added, known ones updated.

    Codes of the project missing from the file stay as they are. A code whose shortcut
    another code of the project uses gets a free letter (none when all are used), and a
    line saying so is appended to ``notes``. All or nothing.
    """
    require_study(project, "change the codebook")
    codes = _free_shortcuts(project, codebook.codes, notes if notes is not None else [])
    for code in codes:
        _check_change(project, code)
    _validate_all(project, codes)
    added = updated = 0
    with _change(project) as db:
        for code in codes:
            if project.codebook.get(code.key) is None:
                added += 1
            else:
                updated += 1
            store_codes.upsert_code(db, code)
        if not project.codebook.codes:
            store_meta.set_meta(db, "codebook_name", codebook.name)
            store_meta.set_meta(db, "codebook_title", codebook.title)
    project.invalidate_codebook()
    return CodebookImport(added, updated, CODEBOOK if added or updated else Changes())


def read_codebook_file(path: str | Path) -> Codebook:
    """A codebook file: JSON, or REFI-QDA ``.qdc``/``.qdpx`` by the extension.

    Never a project file: reading one through a plain file handle while it is open would
    drop the locks that protect its write-ahead log.
    """
    refuse_open_project_file(path, "to import the codebook from")
    if Path(path).suffix.lower() in (".qdc", ".qdpx"):  # REFI-QDA
        from ...domain.refi.qdc import load_qdc

        return load_qdc(path)
    return load_codebook(path)


def export_codebook(project: Project, path: str | Path) -> Path:
    """Write the project's codebook as a JSON codebook file (whole or not at all)."""
    refuse_open_project_file(path, "to export the codebook to")
    with atomic_text_file(path) as fh:
        fh.write(project.codebook.to_json())
    return Path(path)


def code_usage(project: Project, key: str) -> int:
    """How many codings and consensus decisions use the code ``key``."""
    return store_codes.code_usage(project.db, key)

"""The demo project: a dozen fictional work conversations, users' ratings, three coders,
and a few spans of the empathy tactics marked by two of them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..domain.importers import ImportOptions
from ..paths import PROJECT_SUFFIX, user_data_dir
from ..resources import demo_dir, resolve_codebook
from ..store import codings as store_codings
from ..store.spans import table as store_spans
from .codebook.editing import add_code
from .imports import import_codings, import_files
from .project import Project

DEMO_NAME = "sense7-demo" + PROJECT_SUFFIX


def build_demo(folder: str | Path | None = None, *, fresh: bool = False) -> Path:
    """Build the demo project in ``folder`` (default: the user's data folder) and return its path.

    An existing demo project is kept (it may hold the researcher's own trial codings) unless
    ``fresh`` is set. The file is built under a temporary name and moved into place, so a
    half-built demo never appears.
    """
    folder = Path(folder) if folder is not None else user_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / DEMO_NAME
    if target.exists() and not fresh:
        return target
    tmp = folder / (DEMO_NAME + ".building")
    for leftover in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    src = demo_dir()
    project = Project.create(tmp, resolve_codebook("sense7"))
    try:
        import_files(
            project,
            [src / "Tasks.csv", src / "Messages.csv"],
            ImportOptions(format="sense7-csv"),
        )
        import_codings(project, src / "codings.csv")
        # the ten empathy tactics at their natural grain: stretches of text, two coders
        _add_span_codes(project)
        import_codings(project, src / "spans.csv")
        _mark_coded_turns_done(project)
        project.blind_coding = False
    finally:
        project.close()
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(tmp) + suffix).unlink()
    if target.exists():
        target.unlink()
    os.replace(tmp, target)
    return target


def _mark_coded_turns_done(project: Project) -> None:
    """A demo coder has finished every turn they coded."""
    rows = store_codings.coded_turns(project.db) + store_spans.spanned_turns(project.db)
    with project.pdb.atomic() as db:
        for coder, cid, pos in rows:
            store_codings.put_done(db, coder, cid, pos, True)



def _add_span_codes(project: Project) -> None:
    """The tactics as span codes, each keeping its key's shortcut where the sense7 codes
    leave it free, else taking a free letter of its label."""
    import dataclasses
    from string import ascii_uppercase

    # D and N keep their meaning in the workspace (done, not applicable)
    used = {c.shortcut for c in project.codebook.codes if c.shortcut} | {"D", "N"}
    for code in resolve_codebook("tactics-spans").codes:
        letters = [ch for ch in (code.shortcut + code.label.upper() + ascii_uppercase)
                   if ch in ascii_uppercase]
        shortcut = next((ch for ch in letters if ch not in used), "")
        used.add(shortcut)
        add_code(project, dataclasses.replace(code, shortcut=shortcut))

"""The demo project: a dozen fictional work conversations, users' ratings, three coders."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..domain.importers import ImportOptions
from ..paths import PROJECT_SUFFIX, user_data_dir
from ..resources import demo_dir, resolve_codebook
from ..store import codings as store_codings
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
    rows = store_codings.coded_turns(project.db)
    with project.pdb.atomic() as db:
        for coder, cid, pos in rows:
            store_codings.put_done(db, coder, cid, pos, True)


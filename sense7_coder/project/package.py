"""Coder packages: one coder's share of a study, as a project file of its own.

:func:`make_package` writes a new project file holding only the conversations assigned
to the coder (see :mod:`.assignments`), the codebook and the project's settings, with
blind coding on and marked as that coder's package (nobody can switch blinding off or
change roles in it). Other coders' codings, memos and done marks and the consensus are
left out. When the project codes blind the package holds only what the lead chose to show
coders (an allow-list): no users' ratings, no comments, and of the attributes of
conversations, turns and participants only those not hidden -- the users' own judgments an
import marked (:mod:`.judgments`) are hidden unless the lead shows them. The coder's own
earlier work on those conversations comes along. ``merge`` brings the package back.

A package travels alone, so it keeps a rollback journal instead of WAL (see
:mod:`..store.journal`): after every commit the file holds everything, with nothing beside
it, however the program that wrote it ended.

Presentation order: the assignment's order, or with ``shuffle`` a seeded order of the
coder's own (``random.Random(f"{seed}:{coder}")``), to spread order effects.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..domain.errors import ProjectError
from ..store import assignments as store_assignments
from ..store import meta as store_meta
from ..store import package as store_package
from ..store.backups import STALE_PART_S
from .project import Project

#: settings a package never takes over from the lead's project (the lead passphrase's hash
#: stays with the lead)
_OWN_SETTINGS = ("package_coder", "lead_passphrase")


@dataclass
class PackageSummary:
    path: Path
    coder: str
    conversations: int
    ratings: bool
    #: the attributes the package holds, and those left out of it (a blind study)
    attributes: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)

    def line(self) -> str:
        n = self.conversations
        ratings = "with" if self.ratings else "without (blind coding)"
        text = (f"wrote {self.path}: {n} conversation{'s' if n != 1 else ''} for "
                f"{self.coder}, {ratings} the users' ratings; blind coding on")
        if not self.ratings:
            text += (f"; attributes it holds: {', '.join(self.attributes) or 'none'}; "
                     f"left out: {', '.join(self.withheld) or 'none'}")
        return text


def make_package(project: Project, coder: str, out: str | Path, *, shuffle: bool = False,
                 seed: int = 0) -> PackageSummary:
    with project.snapshot():  # the assignments and every table copied, of one state
        return _make_package(project, coder, Path(out), shuffle, seed)


def _make_package(project: Project, coder: str, out: Path, shuffle: bool,
                  seed: int) -> PackageSummary:
    """:func:`make_package`, inside a read snapshot of the project."""
    coder = coder.strip()
    if coder not in {c["name"] for c in project.coders()}:
        raise ProjectError(f"no coder '{coder}' in this project")
    project.require_lead("make coder packages")
    ids = store_assignments.conversations_of(project.db, coder)
    if not ids:
        raise ProjectError(f"no conversations are assigned to '{coder}'; assign them first")
    if shuffle:
        random.Random(f"{seed}:{coder}").shuffle(ids)
    with_ratings = not project.blind_coding
    if out.is_dir():
        raise ProjectError(f"{out}: is a folder; give a file name for the package")
    if not out.parent.is_dir():
        raise ProjectError(f"{out}: the folder {out.parent} does not exist")
    if os.path.lexists(out):
        raise ProjectError(f"{out}: a file of that name already exists; choose another name")
    # written under a temporary name in the same folder, made durable, then renamed: a
    # kill or a full disk leaves nothing (or a hidden .part) where the package should be
    _clean_stale_parts(out)
    partial = _temporary_name(out)
    try:
        # a package is written once and closed before it gets its name: a synced folder
        # (to hand it to the coder) is no danger to it
        package = Project.create(partial, codebook=project.codebook, shared_folder=True)
    except BaseException:
        _remove_files(partial)
        raise
    try:
        with package.pdb.acting("package", coder), package.pdb.atomic() as db:
            store_package.copy_meta(project.db, db, _OWN_SETTINGS)
            store_meta.set_meta(db, "blind_coding", "1")
            store_meta.set_meta(db, "package_coder", coder)
            # a blind study: only what the lead chose to show goes out, left out of the
            # rows as they are copied (the history is append-only: nothing is taken back)
            shown, withheld = _shown(project, ids, with_ratings)
            store_package.copy_share(
                project.db, db, coder, ids, with_ratings=with_ratings,
                shown=None if with_ratings else shown, model="model" not in withheld)
        # a rollback journal from now on: after every commit the file alone is complete
        store_package.keep_whole_alone(package.db, partial)
        package.close()
        _sync(partial)
        _rename_new(partial, out)
    except BaseException:
        package.close()
        _remove_files(partial)
        raise
    return PackageSummary(out, coder, len(ids), with_ratings, sorted(shown),
                          sorted(withheld))


def _shown(project: Project, ids: list[str], with_ratings: bool
           ) -> tuple[set[str], set[str]]:
    """The attributes a blind package holds (an allow-list: those its conversations, turns
    and participants carry that the project does not hide from coders) and those it leaves
    out (with 'model' when the model is hidden)."""
    found = store_package.share_attribute_names(project.db, ids)
    if with_ratings:
        return found, set()
    hidden = set(project.hidden_attributes)
    return found - hidden, (found & hidden) | ({"model"} & hidden)


def _temporary_name(out: Path) -> Path:
    """A fresh hidden name beside ``out`` (so that the rename stays on one disk); the file
    is created by SQLite, with the permissions any new file gets."""
    return out.with_name(f".{out.name}.{secrets.token_hex(6)}.part")


def _clean_stale_parts(out: Path) -> None:
    """Delete what a killed package left under its temporary names (untouched for a while:
    one being written by another window is left alone)."""
    name = re.compile(rf"\.{re.escape(out.name)}\.[0-9a-f]{{12}}\.part(-wal|-shm|-journal)?")
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(out.parent):
            if name.fullmatch(entry.name):
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_PART_S:
                        os.unlink(entry.path)


def _sync(path: Path) -> None:
    """Make the closed package file and its folder's entry reach the disk."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError, AttributeError):  # folders cannot be synced on Windows
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _rename_new(partial: Path, out: Path) -> None:
    """Give the package its name, never over a file that appeared there meanwhile."""
    try:
        os.link(partial, out)
    except FileExistsError:
        raise ProjectError(f"{out}: a file of that name appeared meanwhile; choose another "
                           "name") from None
    except OSError:  # a file system without hard links
        if out.exists():
            raise ProjectError(f"{out}: a file of that name already exists; choose another "
                               "name") from None
        os.replace(partial, out)
        return
    partial.unlink()


def _remove_files(path: Path) -> None:
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        path.with_name(name).unlink(missing_ok=True)

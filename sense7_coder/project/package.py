"""Coder packages: one coder's share of a study, as a project file of its own.

:func:`make_package` writes a new project file holding only the conversations assigned
to the coder (see :mod:`.assignments`), the codebook and the project's settings, with
blind coding on and marked as that coder's package (nobody can switch blinding off or
change roles in it). Other coders' codings, memos and done marks and the consensus are
left out; so are the users' own ratings when the project codes blind. The coder's own
earlier work on those conversations comes along. ``merge`` brings the package back.

Presentation order: the assignment's order, or with ``shuffle`` a seeded order of the
coder's own (``random.Random(f"{seed}:{coder}")``), to spread order effects.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..domain.errors import ProjectError
from ..store import assignments as store_assignments
from ..store import codes as store_codes
from ..store import package as store_package
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

    def line(self) -> str:
        n = self.conversations
        ratings = "with" if self.ratings else "without (blind coding)"
        return (f"wrote {self.path}: {n} conversation{'s' if n != 1 else ''} for "
                f"{self.coder}, {ratings} the users' ratings; blind coding on")


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
        raise ProjectError(f"no conversations are assigned to '{coder}'; assign them first "
                           "(sense7-coder assign PROJECT --coders ...)")
    if shuffle:
        random.Random(f"{seed}:{coder}").shuffle(ids)
    with_ratings = not project.blind_coding
    package = Project.create(out, codebook=project.codebook)
    try:
        with package.pdb.acting("package", coder), package.pdb.atomic() as db:
            store_package.copy_meta(project.db, db, _OWN_SETTINGS)
            store_codes.set_meta(db, "blind_coding", "1")
            store_codes.set_meta(db, "package_coder", coder)
            store_package.copy_share(project.db, db, coder, ids, with_ratings=with_ratings)
            if not with_ratings:  # a blind study: nothing blinding hides goes out
                store_package.withhold_blinded(db, project.hidden_attributes)
    except BaseException:
        package.close()
        for name in (out.name, out.name + "-wal", out.name + "-shm"):
            out.with_name(name).unlink(missing_ok=True)
        raise
    package.close()
    return PackageSummary(out, coder, len(ids), with_ratings)

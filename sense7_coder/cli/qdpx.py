"""The command line's REFI-QDA project import: ``init PROJECT --from FILE.qdpx`` and
``import PROJECT FILE.qdpx``."""

from __future__ import annotations

import argparse

from ..domain.errors import Sense7Error
from ..domain.importers import parse_roles
from .acting import open_as


def init_from_qdpx(args: argparse.Namespace) -> int:
    from ..project.refi.importing import new_project_from_qdpx

    roles = parse_roles(getattr(args, "roles", "") or "")
    project, summary = new_project_from_qdpx(args.project, args.from_qdpx, roles=roles)
    with project:
        n = len(project.codebook.codes)
    print(f"created {args.project} with the codebook of {args.from_qdpx.name} ({n} codes)")
    for line in summary.lines():
        print(line)
    return 0


def import_qdpx_files(args: argparse.Namespace) -> int:
    from ..project.refi.importing import import_qdpx

    if not all(f.suffix.lower() == ".qdpx" for f in args.files):
        raise Sense7Error("import REFI-QDA projects (.qdpx) on their own, without other files")
    roles = parse_roles(args.roles)
    with open_as(args, args.project) as project:
        for path in args.files:
            summary = import_qdpx(project, path, dry_run=args.dry_run, roles=roles)
            for line in summary.lines():
                print(line)
    if args.dry_run:
        print("dry run: nothing was written")
    return 0

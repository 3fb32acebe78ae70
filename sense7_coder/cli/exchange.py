"""Exchange with other QDA tools: ``export-qdpx`` (REFI-QDA project).

Codebooks move through ``codebook PROJECT import|export FILE.qdc`` (see foundation).
Heavy modules are imported inside the command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .acting import open_as


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-qdpx", help="write the coded project as a REFI-QDA .qdpx (ATLAS.ti, MAXQDA, "
        "NVivo, QualCoder)",
        description="Each conversation becomes a text source, every coded turn and sentence "
        "a text selection at its character positions with one coding per coder and code "
        "(ordinal and nominal codes: the level's child code), conversation-level codes "
        "codings of the whole source; coders (and the consensus) are users, memos notes, "
        "participant and assistant text variables.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, metavar="OUT.qdpx")
    p.add_argument("--no-consensus", action="store_true",
                   help="leave the adjudicated consensus out")
    p.set_defaults(func=cmd_export_qdpx)


def cmd_export_qdpx(args: argparse.Namespace) -> int:
    from ..domain.errors import ProjectError
    from ..project.exchange import export_qdpx

    if args.out.suffix.lower() != ".qdpx":
        raise ProjectError(f"{args.out}: a REFI-QDA project file ends in .qdpx")
    progress = None
    if sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            end = "\n" if done >= total else ""
            sys.stderr.write(f"\rexport-qdpx: {100 * done // max(total, 1):3d}%{end}")

    with open_as(args, backup=False) as project:
        summary = export_qdpx(project, args.out, consensus=not args.no_consensus,
                              progress=progress)
    print(summary.line())
    return 0

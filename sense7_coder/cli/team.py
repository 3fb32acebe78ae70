"""Commands for running a study as a team: assign, package."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..domain.errors import ProjectError
from .acting import open_as


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "assign", help="split conversations among coders, with an overlap for reliability",
        description="Every selected conversation that no coder has yet goes to one coder, "
        "split evenly; an overlap share (a fraction, rounded to the nearest whole "
        "conversation) goes to every listed coder, for reliability. Seeded and reproducible; "
        "running it again after an import hands out only the new conversations and never "
        "moves one already assigned. --per-coder N gives each coder N conversations this run "
        "(round(overlap x N) of them the overlap) and leaves the rest for later. --shuffle "
        "gives each coder a presentation order of their own (seeded).",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--coders", required=True, metavar="A,B,...")
    p.add_argument("--overlap", type=float, default=0.0, metavar="FRACTION",
                   help="share coded by every coder (default 0)")
    p.add_argument("--per-coder", type=int, metavar="N")
    p.add_argument("--filter", action="append", default=[], metavar="ATTR=VALUE",
                   help="only conversations whose attribute (or model, participant) is VALUE; "
                   "repeatable")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--shuffle", action="store_true",
                   help="a seeded presentation order per coder (default: the project's order)")
    p.add_argument("--by-uncertainty", action="store_true",
                   help="then order each listed coder's queue by the model's uncertainty "
                   "(runs of a model that disagree, or the baseline's spread): the "
                   "conversations where it is least sure come first")
    p.set_defaults(func=cmd_assign)

    p = sub.add_parser(
        "package", help="a project file with one coder's assigned conversations",
        description="Writes OUT, a project file holding only the conversations assigned to "
        "CODER, the codebook and the settings, with blind coding on; other coders' codings "
        "and the consensus are left out, and the users' ratings too when the project codes "
        "blind. The coder codes it anywhere; 'merge PROJECT OUT' brings the work back.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("coder")
    p.add_argument("out", type=Path, metavar="OUT")
    p.add_argument("--shuffle", action="store_true",
                   help="present the conversations in a seeded order of this coder's own")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.set_defaults(func=cmd_package)


def _filter(items: list[str]) -> object:
    from ..project import ConversationFilter

    models: list[str] = []
    participants: list[str] = []
    attributes: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ProjectError(f"--filter {item!r}: write ATTR=VALUE")
        if name == "model":
            models.append(value.strip())
        elif name in ("participant", "participant_id"):
            participants.append(value.strip())
        else:
            attributes[name] = value.strip()
    return ConversationFilter(models=models, participants=participants,
                              attributes=attributes or None)


def cmd_assign(args: argparse.Namespace) -> int:
    from ..project.assignments import assign

    coders = [c.strip() for c in args.coders.split(",") if c.strip()]
    filt = _filter(args.filter) if args.filter else None
    with open_as(args, backup=True) as project:
        report = assign(project, coders, overlap=args.overlap, per_coder=args.per_coder,
                        conversations=filt, seed=args.seed,  # type: ignore[arg-type]
                        shuffle=args.shuffle)
        lines = report.lines()
        if args.by_uncertainty:
            from ..project.suggestion_view import order_queues

            lines += order_queues(project, coders)
    print("\n".join(lines))
    return 0


def cmd_package(args: argparse.Namespace) -> int:
    from ..project.package import make_package

    with open_as(args, backup=False) as project:
        summary = make_package(project, args.coder, args.out, shuffle=args.shuffle,
                               seed=args.seed)
    print(summary.line())
    return 0

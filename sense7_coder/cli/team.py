"""Commands for running a study as a team: assign, package, study."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..domain.errors import InputError, ProjectError
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
    register_study(sub)


def register_study(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study", help="show or set up how a study runs: roles, blinding, the lock, the lead "
        "passphrase, the attributes coders see",
        description="Without options: how the study is set up. With options (a lead only, "
        "--as LEAD): every change in one transaction, each a history row. Attributes an "
        "import marked as the users' own judgments (ratings, feedback, survey scores) are "
        "hidden from blind coders until shown with --show-attribute.")
    p.add_argument("project", type=Path)
    for flag, what in (("--blind", "blind coding"),
                       ("--lock", "lock a turn's values once they are revealed"),
                       ("--require-all", "a turn is done only when every code has a value")):
        p.add_argument(flag, choices=("on", "off"), help=what)
    p.add_argument("--role", action="append", default=[], metavar="NAME=ROLE",
                   help="give NAME (new or existing) the role coder or adjudicator (a lead); "
                   "repeatable")
    p.add_argument("--show-attribute", action="append", default=[], metavar="NAME",
                   help="blind coders see this attribute (repeatable)")
    p.add_argument("--hide-attribute", action="append", default=[], metavar="NAME",
                   help="blind coders do not see it until done; no blind package holds it "
                   "(repeatable; 'model' hides the model)")
    pw = p.add_mutually_exclusive_group()
    pw.add_argument("--passphrase-file", type=Path, metavar="FILE",
                    help="set the lead passphrase to the first line of FILE")
    pw.add_argument("--no-passphrase", action="store_true",
                    help="remove the lead passphrase")
    p.add_argument("--json", action="store_true", help="print the set-up as JSON")
    p.set_defaults(func=cmd_study)


def _on(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def _roles(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, role = item.partition("=")
        if not sep or not name.strip():
            raise ProjectError(f"--role {item!r}: write NAME=ROLE (coder or adjudicator)")
        out[name.strip()] = role.strip()
    return out


def _passphrase_file(path: Path | None) -> str | None:
    if path is None:
        return None
    from ..domain.file_reading import read_text

    try:
        text = read_text(path)
    except InputError as e:
        raise ProjectError(f"cannot read the passphrase file: {e}") from None
    first = text.splitlines()[0].strip() if text.strip() else ""
    if not first:
        raise ProjectError(f"{path}, line 1: the passphrase file is empty")
    return first


def cmd_study(args: argparse.Namespace) -> int:
    from ..project.study import StudyChange, set_up, setup, setup_lines

    change = StudyChange(blind=_on(args.blind), lock=_on(args.lock),
                         require_all=_on(args.require_all), roles=_roles(args.role),
                         show=args.show_attribute, hide=args.hide_attribute,
                         passphrase=_passphrase_file(args.passphrase_file),
                         remove_passphrase=args.no_passphrase)
    with open_as(args, backup=not change.empty) as project:
        lines = [] if change.empty else set_up(project, change)
        if args.json:
            import json

            print(json.dumps(setup(project), indent=2, ensure_ascii=False))
            return 0
        lines += setup_lines(project) if change.empty else []
    print("\n".join(lines))
    return 0


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
            from ..project.suggestions.view import order_queues

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

"""``sense7-coder team``: working through a folder a sync service carries (link, invite,
join, sync, status)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..domain.errors import ProjectError
from .acting import open_as, take


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "team", help="code together through a folder Dropbox, OneDrive, Nextcloud, Syncthing "
        "or a network share carries (no live project file is ever in it)",
        description="The lead links the project to a team folder and invites each coder; a "
        "coder joins from her invitation; 'team sync' on either side sends and reads sealed "
        "change files (encrypted to their reader, signed by their writer).",
    )
    steps = p.add_subparsers(dest="team_command", metavar="STEP", required=True)
    s = steps.add_parser("link", help="link the lead's project to a team folder")
    s.add_argument("project", type=Path)
    s.add_argument("folder", type=Path)
    _as(s)
    s.set_defaults(func=cmd_link)
    s = steps.add_parser("invite", help="an invitation for a coder (hand it to her privately; "
                         "her package goes through the folder, sealed to her)")
    s.add_argument("project", type=Path)
    s.add_argument("coder")
    s.add_argument("out", type=Path, metavar="INVITATION")
    _as(s)
    s.set_defaults(func=cmd_invite)
    s = steps.add_parser("join", help="join a team on this computer from an invitation")
    s.add_argument("invitation", type=Path)
    s.add_argument("package", type=Path, metavar="PROJECT_OR_PACKAGE",
                   help="your package: a file you have, or where the lead's package goes")
    s.add_argument("--folder", type=Path, help="the team folder (default: the folder the "
                   "invitation lies in, or the one above it)")
    s.set_defaults(func=cmd_join)
    s = steps.add_parser("sync", help="send your changes and read what arrived")
    s.add_argument("project", type=Path, metavar="PROJECT_OR_PACKAGE")
    _as(s)
    s.set_defaults(func=cmd_sync)


def _as(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--as", dest="acting", metavar="NAME",
                        help="act as this lead of the project")


def cmd_link(args: argparse.Namespace) -> int:
    from ..project.team.folder import link

    with open_as(args) as project:
        state = link(project, args.folder)
    print(f"{args.project}: linked to the team folder {state.folder} (team {state.data['team']})")
    return 0


def cmd_invite(args: argparse.Namespace) -> int:
    from ..project.team.folder import invite

    with open_as(args) as project:
        out = invite(project, args.coder, args.out)
    print(f"{out}: the invitation of {args.coder}; hand it to her privately (not through the "
          "team folder): whoever holds it can join as her")
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    from ..project.team.folder import join
    from ..project.team.sync import sync_coder

    state = join(args.invitation, args.package, args.folder)
    print(f"joined as {state.data['coder']} on this computer (machine {state.data['install']})")
    for line in sync_coder(state).lines():
        print(line)
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from ..project.team.folder import coder_state, lead_state
    from ..project.team.sync import sync_coder, sync_lead

    state = coder_state(args.project)
    if state is not None:
        lines = sync_coder(state).lines()
    else:
        lead = lead_state(args.project)
        if lead is None:
            raise ProjectError(f"{args.project}: neither linked to a team folder nor joined "
                               "to one")
        with open_as(args) as project:
            if not args.acting:
                take(project, lead.data["lead"])
            lines = sync_lead(project).lines()
    for line in lines:
        print(line)
    return 0

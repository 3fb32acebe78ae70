"""Who the command line acts as: ``--as NAME``.

Without it the command line names nobody: in a blind project it then acts as a coder, so
what blinding hides is refused; ``--as LEAD`` acts as a lead, asking the lead passphrase
(where one is set) at the terminal or reading it from ``SENSE7_CODER_PASSPHRASE``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..domain.errors import ProjectError

if TYPE_CHECKING:  # the project layer is imported when a command opens one, not for --help
    from ..project import Project

PASSPHRASE_VARIABLE = "SENSE7_CODER_PASSPHRASE"
#: commands that open no project as someone (or open it in the window, which asks)
_WITHOUT = ("gui", "init", "demo", "restore")


def add_as_option(sub: argparse._SubParsersAction) -> None:
    """``--as NAME`` on every command that works on a project."""
    for name, parser in sub.choices.items():
        dests = {a.dest for a in parser._actions}
        if name not in _WITHOUT and dests & {"project", "target"}:
            parser.add_argument(
                "--as", dest="acting", metavar="NAME",
                help="act as this coder of the project (a lead sees what blind coding hides; "
                f"asks the lead passphrase where one is set, or reads {PASSPHRASE_VARIABLE})")


def passphrase() -> str:
    given = os.environ.get(PASSPHRASE_VARIABLE)
    if given is not None:
        return given
    if not sys.stdin.isatty():
        raise ProjectError("this project's lead identity needs the lead passphrase: type it at "
                           f"a terminal or set {PASSPHRASE_VARIABLE}")
    import getpass

    return getpass.getpass("lead passphrase: ")


def take(project: Project, name: str, role: str | None = None) -> None:
    """Act as ``name`` (with ``role``: give it that role first, as a lead may)."""
    from ..project.identity import PassphraseNeeded

    try:
        project.set_coder(name, role)
    except PassphraseNeeded:
        project.set_coder(name, role, passphrase=passphrase())


def open_as(args: argparse.Namespace, path: Path | None = None, *,
            backup: bool = False) -> Project:
    """Open the command's project, acting as ``--as`` names (an existing coder)."""
    from ..project import Project

    project = Project.open(path if path is not None else args.project, backup=backup)
    name = (getattr(args, "acting", None) or "").strip()
    if not name:
        return project
    try:
        if project.package_coder is None and project.coder_role(name) is None:
            raise ProjectError(f"--as {name}: no coder '{name}' in this project")
        take(project, name)
    except BaseException:
        project.close()
        raise
    return project

"""The command line: ``sense7-coder COMMAND ...``, on the same facade as the GUI.

Errors print one line to stderr (``sense7-coder: error: ...``) and exit with status 2 for bad
input or 1 for anything else; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..domain.errors import Sense7Error
from . import foundation
from .acting import add_as_option
from .wording import error_text

#: modules that add subcommands: each has ``register(subparsers)``
_MODULES = [foundation]
try:  # analysis commands (agreement, export, merge) live in their own module
    from . import analysis

    _MODULES.append(analysis)
except ImportError:  # pragma: no cover - during development only
    pass
from . import exchange  # noqa: E402  (REFI-QDA: export-qdpx)

_MODULES.append(exchange)
from . import predict  # noqa: E402  (analyze, classify)

_MODULES.append(predict)
from . import team  # noqa: E402  (assign, package, study)

_MODULES.append(team)
from . import team_folder  # noqa: E402  (team link, invite, join, sync)

_MODULES.append(team_folder)
from . import suggest  # noqa: E402  (a model's suggestions)

_MODULES.append(suggest)
from . import rounds  # noqa: E402  (calibration rounds)

_MODULES.append(rounds)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sense7-coder",
        description="Code human-AI conversations with the SENSE-7 empathy taxonomy, "
        "beside the users' own ratings; measure and reconcile agreement.",
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _MODULES:
        module.register(sub)
    add_as_option(sub)
    return parser


class _Version(argparse.Action):
    """``--version``: the version is read only when asked for (it reads pyproject.toml)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from .. import __version__

        print(f"sense7-coder {__version__}")
        parser.exit()


def _print_notes() -> None:
    """What opening a project finds beside it is printed to stderr, one line each (after
    the arguments are read: ``--help`` needs no logging)."""
    import logging

    class NoteLines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            print(f"sense7-coder: note: {record.getMessage()}", file=sys.stderr)

    log = logging.getLogger("sense7_coder.notes")
    if not any(type(h).__name__ == "NoteLines" for h in log.handlers):
        log.addHandler(NoteLines())
        log.propagate = False
        log.setLevel(logging.INFO)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _print_notes()
    try:
        if args.command is None:  # no command: the welcome screen
            return foundation.launch_gui(None)
        return int(args.func(args) or 0)
    except Sense7Error as e:
        print(f"sense7-coder: error: {error_text(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sense7-coder: interrupted; nothing was changed", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"sense7-coder: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except Exception as e:
        from ..project import StorageError  # imported only where a command failed

        if not isinstance(e, StorageError):
            raise
        # a project file that fails while being read
        print(f"sense7-coder: error: the project file could not be read ({e})", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

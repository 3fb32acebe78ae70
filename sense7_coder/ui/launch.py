"""The command line's door to the window: checks what Qt needs before importing it.

Importing this module imports no Qt, so a missing PySide6 or missing system libraries end
in one line on stderr instead of a traceback or Qt's abort.
"""

from __future__ import annotations

from pathlib import Path

from ..domain.errors import Sense7Error
from . import system_libs


def launch(project: Path | None) -> int:
    """Open the window (on ``project``, or the welcome screen); its exit status."""
    problem = system_libs.check()
    if problem:
        raise Sense7Error(problem)
    try:
        from .app import run_app
    except ImportError as e:  # PySide6 missing or broken
        raise Sense7Error(f"the desktop window cannot start: {e}") from None
    return run_app(project)

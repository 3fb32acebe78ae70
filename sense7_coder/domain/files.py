"""Writing an output file whole or not at all.

A file is written under a temporary name in the destination's folder and renamed over the
destination once complete (after ``fsync``), so a failed, cancelled or interrupted write
never leaves a half-written file, nor spoils an older file of the same name. A symbolic
link is followed (the link stays a link); a destination that is a device or a pipe
(``/dev/stdout``) is written straight into, as it cannot be replaced.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from .errors import Sense7Error


class ExportError(Sense7Error):
    """An output file that cannot be written (bad destination, unknown kind, disk full)."""


def destination(path: str | Path) -> Path:
    """The file to write for ``path``, after checking its folder exists."""
    path = Path(path)
    if _special(path):
        return path
    if path.is_symlink():
        path = path.resolve()
    if path.is_dir():
        raise ExportError(f"{path}: is a folder; give a file name for the export")
    if not path.parent.is_dir():
        raise ExportError(f"{path}: the folder {path.parent} does not exist")
    return path


def _special(path: Path) -> bool:
    """A device or a pipe (``/dev/stdout``), which can be written but not replaced."""
    return path.exists() and not path.is_file() and not path.is_dir()


@contextlib.contextmanager
def atomic_text_file(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text handle (no newline translation) whose content replaces ``path`` when
    the ``with`` block ends without an error. Raises :class:`ExportError` when the file
    cannot be written (read-only folder, disk full); the destination is then untouched."""
    path = destination(path)
    if _special(path):
        try:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                yield fh
        except BrokenPipeError:
            raise  # output piped into `head` and the like: not an error of the export
        except OSError as e:
            raise ExportError(f"{path}: cannot be written ({e.strerror or e})") from None
        return
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        with open(tmp, "x", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ExportError(
            f"{path}: cannot be written ({e.strerror or e}); nothing was written"
        ) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

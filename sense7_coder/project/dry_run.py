"""A dry run of an operation that writes: every write and every check made as for real, in
one transaction, then undone."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..store.db import ProjectDB


class _DryRun(Exception):
    """Raised inside the transaction to undo a dry run."""


@contextlib.contextmanager
def trial(pdb: ProjectDB, dry_run: bool) -> Iterator[Any]:
    """``pdb.atomic()`` (yielding its database), undone at the end when ``dry_run``."""
    try:
        with pdb.atomic() as db:
            yield db
            if dry_run:
                raise _DryRun()
    except _DryRun:
        pass

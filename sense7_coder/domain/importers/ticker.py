"""Progress over the files of one import, cancel, and the collector paused while a reader
builds many small objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import Cancelled
from ..progress import CancelFn, ProgressFn

#: How often (in rows or messages) long loops report progress and look at cancel().
CHECK_EVERY = 2000


class Ticker:
    """Reports progress over several files (1000 units per file) and honours cancel()."""

    UNITS = 1000

    def __init__(self, progress: ProgressFn | None, cancel: CancelFn | None, files: int = 1):
        self.progress = progress
        self.cancel = cancel
        self.total = max(files, 1) * self.UNITS
        self.file_index = 0

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled()

    def start_file(self, index: int) -> None:
        self.file_index = index
        self.check()
        self._report(0.0)

    def rows(self, done: int, total: int) -> None:
        """Call inside loops (every CHECK_EVERY rows): checks cancel, reports progress."""
        self.check()
        self._report(done / total if total else 1.0)

    def finish_file(self) -> None:
        self._report(1.0)

    def _report(self, fraction: float) -> None:
        if self.progress is not None:
            fraction = min(max(fraction, 0.0), 1.0)
            done = self.file_index * self.UNITS + int(fraction * self.UNITS)
            self.progress(done, self.total)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects.

    Building a million turns otherwise triggers repeated full collections that cost more
    than the building itself; nothing built here forms reference cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

"""The two callbacks every long job takes, defined once: ``progress(done, total)`` reports
how far it is, ``cancel()`` answers True when the person asked it to stop (the job then
raises :class:`~.errors.Cancelled` and leaves nothing half-written)."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[int, int], None]
CancelFn = Callable[[], bool]

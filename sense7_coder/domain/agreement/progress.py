"""Progress reporting and cancellation for agreement jobs."""

from __future__ import annotations

from ..errors import Cancelled
from ..progress import CancelFn, ProgressFn


class Steps:
    """Counts work done out of a known total; reports progress and honours cancel.

    ``progress(done, total)`` is called at most about 200 times over a job (and always
    at the end), so a GUI can forward every call. ``cancel()`` is asked at every
    :meth:`advance` and :meth:`check`; when it answers True, :class:`Cancelled` is raised.
    """

    def __init__(
        self, total: int, progress: ProgressFn | None = None, cancel: CancelFn | None = None
    ) -> None:
        self.total = max(int(total), 1)
        self.done = 0
        self._progress = progress
        self._cancel = cancel
        self._every = max(1, self.total // 200)
        self._reported = -1

    def check(self) -> None:
        """Raise :class:`Cancelled` if the user asked to stop."""
        if self._cancel is not None and self._cancel():
            raise Cancelled()

    def advance(self, n: int = 1) -> None:
        self.check()
        self.done = min(self.done + n, self.total)
        if self._progress is None:
            return
        if self.done == self.total or self.done - self._reported >= self._every:
            self._reported = self.done
            self._progress(self.done, self.total)

    def finish(self) -> None:
        """Report completion (once), whatever was counted so far."""
        if self.done < self.total:
            self.advance(self.total - self.done)

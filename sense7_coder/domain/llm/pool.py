"""Many requests to an LLM endpoint with a few in flight at once: the loop the judge
(:func:`.judge.judge`) and the suggest client (:func:`.suggest_client.ask_all`) share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..errors import Cancelled, ProjectError
from ..progress import CancelFn, ProgressFn

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")


def check_settings(concurrency: int, timeout_s: float, retries: int) -> None:
    """Refuse settings no request can use (a timeout of -1 s was tried and blamed on the
    server), before anything is sent."""
    if concurrency < 1:
        raise ProjectError(f"the concurrency must be 1 or more, got {concurrency}")
    if not 0 < timeout_s < float("inf"):  # NaN too
        raise ProjectError(f"the timeout must be a number of seconds above 0, got {timeout_s:g}")
    if retries < 0:
        raise ProjectError(f"the retries must be 0 or more, got {retries}")


def send_all(
    items: Sequence[T],
    send: Callable[[T, CancelFn], R],
    receive: Callable[[T, Future[R]], bool],
    *,
    concurrency: int = 4,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> int:
    """Calls ``send(item, stopped)`` for every item, in order, in worker threads with at
    most ``concurrency`` in flight; ``stopped()`` tells a call that the run is over
    (cancelled, or ended by an error). ``receive(item, done)`` takes each finished call in
    this thread (``done.result()`` raises what the call raised; an exception from
    ``receive`` ends the run) and says whether it counts as answered. Returns how many
    did, reporting ``progress(answered, len(items))``; ``cancel()`` raises Cancelled."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    total = len(items)
    if progress is not None:
        progress(0, total)
    if not items:
        return 0
    stop = False

    def stopped() -> bool:
        return stop or (cancel is not None and cancel())

    limit = max(1, concurrency)
    answered = 0
    pool = ThreadPoolExecutor(max_workers=min(limit, total))
    pending: dict[Future[R], T] = {}
    queue = list(reversed(items))
    try:
        while queue or pending:
            while queue and len(pending) < limit:
                item = queue.pop()
                pending[pool.submit(send, item, stopped)] = item
            done, _ = wait(list(pending), timeout=0.1, return_when=FIRST_COMPLETED)
            if cancel is not None and cancel():
                raise Cancelled()
            for fut in done:
                if receive(pending.pop(fut), fut):
                    answered += 1
                    if progress is not None:
                        progress(answered, total)
    finally:
        stop = True
        pool.shutdown(wait=True, cancel_futures=True)
    return answered

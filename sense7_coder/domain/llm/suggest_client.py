"""Asking an OpenAI-compatible server for suggested values, many requests at once.

* :class:`SuggestClient` posts one request through :mod:`.http` (no redirect to
  another origin, a deadline, a 4 MiB cap, cancellable within a second). It asks for
  structured output (``response_format`` with the codes' JSON schema); a server that
  refuses that with HTTP 400 is asked again without it, and so is every later request of
  the run. Timeouts, dropped connections, 429 and 5xx are retried with backoff; a reply
  that holds no readable value is asked again (another seed) up to the retries, then
  stands as *no answer* with the reply kept. Other HTTP errors (401, 403, 404...), a
  refused connection after the retries and a redirect elsewhere fail the run
  (:class:`~.judge.LLMError`): the endpoint itself is wrong.
* :func:`ask_all` keeps at most ``concurrency`` requests in flight (threads), hands each
  answer to ``save`` on the calling thread as it arrives, and stops on the first endpoint
  failure or a cancel.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..codebook.codes import Code
from ..progress import CancelFn, ProgressFn
from . import http as guarded_http
from .judge import ChatClient, LLMError, attempts
from .pool import send_all
from .replies import Reading, read_reply, response_format

if TYPE_CHECKING:
    from concurrent.futures import Future


@dataclass
class Answer:
    """What one request gave: each code's reading or why none (``reply``: the last reply;
    ``attempts``: requests sent)."""

    readings: dict[str, Reading | str]
    reply: str
    attempts: int


@dataclass
class SuggestClient(ChatClient):
    """The judge's client (endpoint, key, timeouts, retries) asking for a unit's codes."""

    structured: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _body(self, messages: list[dict[str, str]], codes: Sequence[Code], seed: int,
              structured: bool) -> bytes:
        body: dict[str, Any] = {"model": self.api_model, "messages": messages,
                                "temperature": self.temperature, "seed": seed}
        if structured:
            body["response_format"] = response_format(codes)
        return json.dumps(body).encode("utf-8")

    def _post_codes(self, messages: list[dict[str, str]], codes: Sequence[Code], seed: int,
                    cancel: CancelFn | None) -> str:
        structured = self.structured
        try:
            return self.chat(self._body(messages, codes, seed, structured), cancel)
        except guarded_http.HTTPFailure as e:
            if not (structured and e.code == 400):
                raise
            with self._lock:  # the server takes no response_format: never ask again
                self.structured = False
            return self.chat(self._body(messages, codes, seed, False), cancel)

    def ask(self, messages: list[dict[str, str]], codes: Sequence[Code], seed: int = 0,
            cancel: CancelFn | None = None) -> Answer:
        """Each code's value from the server; an unreadable reply is asked again (seed + 1,
        ...) up to the retries, then the best one is returned as it is (no answer for the
        codes it did not give). LLMError when the endpoint fails."""
        best: list[Answer] = []
        sent = 0

        def read(answer: Answer) -> int:
            return sum(isinstance(r, Reading) for r in answer.readings.values())

        def one(n: int) -> str | None:
            nonlocal sent
            sent += 1
            reply = self._post_codes(messages, codes, seed + n, cancel)
            answer = Answer(read_reply(reply, codes), reply, sent)
            if not best or read(answer) > read(best[0]):
                best[:] = [answer]
            return None if read(answer) == len(codes) else "a reply without every code"

        problem, tries = self.retrying(one, cancel)
        if best:
            best[0].attempts = sent
            return best[0]
        raise LLMError(f"{self.url}: {problem} after {attempts(tries)}")


@dataclass
class Request:
    """One request of a run: its cache key, messages, the codes it asks and its seed."""

    key: str
    messages: list[dict[str, str]]
    codes: Sequence[Code]
    seed: int = 0
    tag: Any = None


def ask_all(requests: Sequence[Request], client: SuggestClient, *,
            save: Callable[[Request, Answer], None], concurrency: int = 4,
            progress: ProgressFn | None = None,
            cancel: CancelFn | None = None, where: Callable[[Request], str] = str
            ) -> int:
    """Send every request with at most ``concurrency`` in flight; returns how many were
    answered. The first endpoint failure stops the run (LLMError naming ``where`` the
    request was), keeping what ``save`` got before it."""
    def send(req: Request, stopped: CancelFn) -> Answer:
        return client.ask(req.messages, req.codes, req.seed, stopped)

    def receive(req: Request, done: Future[Answer]) -> bool:
        try:
            answer = done.result()
        except LLMError as e:
            raise LLMError(f"{where(req)}: {e}") from None
        save(req, answer)
        return True

    return send_all(requests, send, receive, concurrency=concurrency, progress=progress,
                    cancel=cancel)

"""An LLM judge of perceived empathy through an OpenAI-compatible chat-completions endpoint.

As in the SENSE-7 paper, the whole conversation goes to the model as a JSON list of
``{"role", "content"}`` messages, after a system prompt (editable, stored in the project)
that asks for one score from 1 to 5. Only the standard library talks to the endpoint
(``urllib``), so nothing leaves the machine unless the user points the endpoint elsewhere.

* :func:`parse_score` reads the score from a reply: a JSON object with ``score`` (also
  inside a code fence), ``score: N`` / ``rating: N``, or a reply that is just a number.
* :class:`ChatClient` posts one request through :mod:`.http` (no redirect to another
  origin, a deadline for the whole request, a cap on the reply's size, cancellable within a
  second), retrying timeouts, dropped connections, HTTP 429 and 5xx with exponential
  backoff (``Retry-After`` honoured up to the cap) and replies it cannot read; other HTTP
  errors (401, 404, ...), redirects elsewhere and oversized replies fail at once.
* :func:`judge` runs many requests with a bounded number in flight, skips every request
  whose answer is cached, hands each answer to ``save`` on the calling thread as it
  arrives (so a cancel or a failure keeps what was answered), and reports progress.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from ..codebook.codes import Code, Level
from ..errors import Cancelled, Sense7Error
from ..progress import CancelFn, ProgressFn
from . import http as guarded_http
from .pool import send_all
from .replies import AsWritten, Reading, json_objects, read_reply

if TYPE_CHECKING:
    from concurrent.futures import Future

DEFAULT_PROMPT = """\
You will read a conversation between a user and an AI assistant, given as a JSON list of \
messages with a role and content. Judge how empathic the user perceived the assistant to \
be over the whole conversation, considering affective empathy, cognitive empathy, the \
appropriateness of the responses, prosocial behaviour, interest in the user, attention to \
the user's context and the relationship built.

Rate it on this scale: 1 = very poor, 2 = poor, 3 = neutral, 4 = good, 5 = very good.

Answer with a JSON object only: {"score": <1-5>, "reasoning": "<one or two sentences>"}"""

MAX_BACKOFF_S = 30.0


class LLMError(Sense7Error):
    """The endpoint failed or replied something that holds no score."""


class NoScore(LLMError):
    """Every attempt reached the server and got a reply, none of which held a score: the
    request stands without an answer (the endpoint itself works)."""


def conversation_messages(turns: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """``(role, text)`` turns as the JSON list the model reads."""
    return [{"role": role, "content": text} for role, text in turns]


def chat_request(prompt: str, conversation: list[dict[str, str]]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": prompt},
        {"role": "user", "content": json.dumps(conversation, ensure_ascii=False)},
    ]


def request_key(api_model: str, messages: list[dict[str, str]], run: int,
                temperature: float) -> str:
    """The cache key of a request: same model, prompt, conversation, run and temperature."""
    blob = json.dumps([api_model, messages, run, temperature], ensure_ascii=False,
                      sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


_LABELLED = re.compile(r"(?:score|rating)\W{0,5}([1-5](?:\.\d{1,3})?)(?![\d.])", re.I)
_BARE = re.compile(r"^\s*([1-5](?:\.\d{1,3})?)\s*[.!]?\s*$")
_NUMBER_TEXT = re.compile(r"\s*\+?\d(?:\.\d{1,3})?\s*")
MAX_SCORE_DIGITS = 15
"""A score written with more characters than this (a 25-digit number) is no score."""


def _score_value(value: object) -> float:
    """A score 1..5 from a JSON value: a number, or a string holding only a number."""
    if isinstance(value, AsWritten):
        raise ValueError(f"the score {value[:40]} is not a score from 1 to 5")
    if isinstance(value, str):
        if not _NUMBER_TEXT.fullmatch(value):
            raise ValueError(f"the score {value[:40]!r} is not a number")
        score = float(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        score = float(value)
    else:
        raise ValueError(f"the score is a {type(value).__name__} "
                         f"({json.dumps(value)[:40]}), not a number")
    if not (math.isfinite(score) and 1 <= score <= 5):
        raise ValueError(f"the score {value!r} is outside 1..5")
    return score


def parse_score(reply: str) -> tuple[float, str]:
    """(score, reasoning) from a model's reply; ValueError when there is no score 1..5.

    A JSON object whose ``score`` (or ``rating``) is not a plain number from 1 to 5 (a
    list, a bool, an object, NaN, a 25-digit number) is refused, not searched for digits.
    """
    for obj in json_objects(reply, MAX_SCORE_DIGITS):
        lowered = {str(k).lower(): v for k, v in obj.items()}
        for key in ("score", "rating"):
            if key in lowered:
                reasoning = lowered.get("reasoning", "") or ""
                return _score_value(lowered[key]), (
                    reasoning if isinstance(reasoning, str) else json.dumps(reasoning))
    m = _LABELLED.search(reply) or _BARE.match(reply)
    if m:
        return float(m.group(1)), reply.strip()
    # what else servers write: <S2>4</S2>, "Empathy level: 4", "4/5", "good" (see .replies)
    got = read_reply(reply, [_SCALE])[_SCALE.key]
    if isinstance(got, Reading) and got.value is not None:
        return float(got.value), reply.strip()
    raise ValueError("no score from 1 to 5 in the reply")


#: the judge's scale, as the tolerant reader of replies takes it
_SCALE = Code("score", "Empathy", kind="ordinal", allow_na=False, levels=[
    Level(1, "very poor"), Level(2, "poor"), Level(3, "neutral"), Level(4, "good"),
    Level(5, "very good")])


@dataclass
class ChatClient:
    endpoint: str
    api_model: str
    api_key: str | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 1.0
    temperature: float = 0.0
    #: HTTP requests sent so far (every attempt, retries included; read it after a run)
    sent: int = field(default=0, init=False)
    _count_lock: threading.Lock = field(default_factory=threading.Lock, init=False,
                                        repr=False, compare=False)

    @property
    def url(self) -> str:
        """The endpoint's chat completions URL: ``/chat/completions`` appended to its path
        (not after its query string, which stays at the end: ``/v1?key=x`` asks
        ``/v1/chat/completions?key=x``)."""
        parts = urlsplit(self.endpoint)
        path = parts.path.rstrip("/")
        if not path.endswith("/chat/completions"):
            path += "/chat/completions"
        return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))

    def check_key(self) -> None:
        """Refuse a key that would break the request's headers (before anything is sent)."""
        if self.api_key is not None and not _HEADER_SAFE.fullmatch(self.api_key):
            raise LLMError("the API key holds a line break or another control character")

    def chat(self, body: bytes, cancel: CancelFn | None) -> str:
        """POST one chat request to the endpoint (the key only to it) and return the text
        content of its reply; _Malformed when the reply is no chat completion."""
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Accept-Encoding": "identity", "Connection": "close"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        with self._count_lock:
            self.sent += 1
        payload = guarded_http.post(self.url, body, headers, timeout_s=self.timeout_s,
                                    cancel=cancel)
        try:
            content = json.loads(payload)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            raise _Malformed(f"the reply is not a chat completion: {payload[:200]!r}") from None
        if not isinstance(content, str):
            raise _Malformed("the reply's message has no text content")
        return content

    def _post(self, messages: list[dict[str, str]], seed: int,
              cancel: CancelFn | None) -> str:
        return self.chat(json.dumps({"model": self.api_model, "messages": messages,
                                     "temperature": self.temperature,
                                     "seed": seed}).encode("utf-8"), cancel)

    def retrying(self, attempt: Callable[[int], str | None],
                 cancel: CancelFn | None) -> tuple[str, int]:
        """The one retry loop of every request to the endpoint (the judge's and the
        suggest client's). ``attempt(n)`` sends the n-th try and returns None when its reply
        served, or why it did not (asked again at once: the server answered); a failure
        that may pass (no answer, 429, 5xx) is asked again after a backoff, any other
        raises :class:`LLMError` at once. ``cancel`` is asked before every try and at least
        every tenth of a second while waiting. Returns the last problem ("" when a reply
        served) and the tries made."""
        self.check_key()
        problem = ""
        for n in range(self.retries + 1):
            if cancel is not None and cancel():
                raise Cancelled()
            wait = min(self.backoff_s * 2 ** n, MAX_BACKOFF_S)
            try:
                unread = attempt(n)
            except TRANSPORT_FAILURES as e:
                problem, wait = retryable_problem(e, self.url, self.api_model, wait)
            else:
                if unread is None:
                    return "", n + 1
                problem = unread
                continue
            if n < self.retries:
                _sleep(wait, cancel)
        return problem, self.retries + 1

    def score(self, messages: list[dict[str, str]], seed: int,
              cancel: CancelFn | None = None) -> tuple[str, float, str]:
        """(reply, score, reasoning), retrying what may pass; LLMError when it does not,
        :class:`NoScore` when every reply came but none held a score.

        ``cancel`` is asked at least every tenth of a second, also while waiting for the
        server and between retries; :class:`Cancelled` when it answers True.
        """
        got: list[tuple[str, float, str]] = []
        unread = 0  # tries answered with a reply that held no score

        def one(_n: int) -> str | None:
            nonlocal unread
            reply = self._post(messages, seed, cancel)
            try:
                score, reasoning = parse_score(reply)
            except ValueError as e:
                unread += 1
                return f"{e}: {reply[:200]!r}"
            got.append((reply, score, reasoning))
            return None

        problem, tries = self.retrying(one, cancel)
        if got:
            return got[0]
        if unread == tries:
            raise NoScore(f"{problem} after {attempts(tries)}")
        raise LLMError(f"{self.url}: {problem} after {attempts(tries)}")


def attempts(n: int) -> str:
    """"1 attempt", "3 attempts"."""
    return f"{n} attempt{'s' if n != 1 else ''}"


_HEADER_SAFE = re.compile(r"[\x20-\x7e]*")


def _sleep(seconds: float, cancel: CancelFn | None) -> None:
    """Wait, asking ``cancel`` every tenth of a second."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel is not None and cancel():
            raise Cancelled()
        time.sleep(min(left, guarded_http.TICK_S))


class _Malformed(Exception):
    pass


#: what a request to the endpoint can fail with (see :func:`retryable_problem`)
TRANSPORT_FAILURES = (guarded_http.HTTPFailure, guarded_http.Refused, guarded_http.Unreachable,
                      TimeoutError, ConnectionError, _Malformed)


def retryable_problem(exc: BaseException, url: str, api_model: str, wait: float
                      ) -> tuple[str, float]:
    """What went wrong with one request and how long to wait before the next; raises
    :class:`LLMError` when asking again cannot help (a refusal, an HTTP error other than
    429 and 5xx). ``exc`` is one of :data:`TRANSPORT_FAILURES`."""
    if isinstance(exc, guarded_http.HTTPFailure):
        if exc.code != 429 and exc.code < 500:
            raise LLMError(f"{url}: {exc} (model '{api_model}')") from None
        if exc.retry_after and exc.retry_after.strip().isdigit():
            wait = min(max(wait, float(exc.retry_after.strip()[:6])), MAX_BACKOFF_S)
        return str(exc), wait
    if isinstance(exc, guarded_http.Refused):
        raise LLMError(f"{url}: {exc}") from None
    if isinstance(exc, guarded_http.Unreachable):
        return f"not reachable ({exc})", wait
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return f"no answer ({exc.__class__.__name__}: {exc})", wait
    return str(exc), wait


@dataclass
class Job:
    conversation_id: str
    run: int
    messages: list[dict[str, str]]
    key: str


def judge(
    jobs: Sequence[Job],
    client: ChatClient,
    *,
    cached: Callable[[str], bool],
    save: Callable[[Job, str, float, str], None],
    concurrency: int = 4,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    unanswered: list[tuple[Job, str]] | None = None,
) -> int:
    """Ask for every job not yet cached; returns how many requests were answered now.

    A job whose replies never held a score goes into ``unanswered`` (with why) and the run
    goes on; without that list it stops the run like an endpoint failure."""
    todo = [j for j in jobs if not cached(j.key)]

    def send(job: Job, stopped: CancelFn) -> tuple[str, float, str]:
        return client.score(job.messages, job.run, stopped)

    def receive(job: Job, done: Future[tuple[str, float, str]]) -> bool:
        try:
            reply, score, reasoning = done.result()
        except NoScore as e:
            if unanswered is None:
                raise LLMError(f"conversation '{job.conversation_id}' (run "
                               f"{job.run}): {e}") from None
            unanswered.append((job, str(e)))
            return False
        except LLMError as e:
            raise LLMError(f"conversation '{job.conversation_id}' (run {job.run}): "
                           f"{e}") from None
        save(job, reply, score, reasoning)
        return True

    return send_all(todo, send, receive, concurrency=concurrency, progress=progress,
                    cancel=cancel)

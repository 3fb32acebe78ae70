"""The LLM judge against misbehaving endpoints: local servers on 127.0.0.1 started by the
test, each bounded in time (they stop by themselves within seconds).

Redirects to another origin (the key checked as never received there), an endless body, a
200 MB body declared, a server that drips a byte at a time, cancel and Ctrl+C within a
second, and replies whose score is not a number."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.errors import Cancelled
from sense7_coder.domain.llm.judge import LLMError, parse_score
from sense7_coder.project import Project
from sense7_coder.project.prediction.predictors import predictor_counts, run_llm

SERVER_LIFE_S = 8.0  # no handler of these servers runs longer than this
KEY = "sk-test-secret-key"


def completion(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant",
                                                "content": content}}]}).encode()


GOOD = completion('{"score": 4, "reasoning": "warm"}')


class Server:
    """A threaded HTTP server; ``handle(handler, seen)`` answers one request."""

    def __init__(self, handle: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.seen: list[tuple[str, str, str | None]] = []  # (method, path, Authorization)
        self.stop_event = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                outer.seen.append((self.command, self.path,
                                   self.headers.get("Authorization")))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with contextlib.suppress(OSError):  # the client went away: the point
                    handle(self)

            do_POST = do_GET = _any  # noqa: N815

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.url = self.base + "/v1"

    def alive(self) -> bool:
        return not self.stop_event.is_set()

    def stop(self) -> None:
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], Server]]:
    servers: list[Server] = []

    def start(handle: Callable[[BaseHTTPRequestHandler], None]) -> Server:
        servers.append(Server(handle))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def answer(h: BaseHTTPRequestHandler, body: bytes = GOOD, status: int = 200,
           headers: dict[str, str] | None = None) -> None:
    h.send_response(status)
    for k, v in {"Content-Type": "application/json", "Content-Length": str(len(body)),
                 **(headers or {})}.items():
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(body)


def drip(h: BaseHTTPRequestHandler, every_s: float = 0.3, headers_too: bool = False) -> None:
    """One byte every ``every_s`` seconds, for at most SERVER_LIFE_S."""
    end = time.monotonic() + SERVER_LIFE_S
    if headers_too:
        data = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b" " * 100
    else:
        h.send_response(200)
        h.send_header("Content-Length", str(len(GOOD) + 10_000))
        h.end_headers()
        h.wfile.flush()
        data = GOOD + b" " * 10_000
    for i in range(len(data)):
        if time.monotonic() > end:
            return
        h.wfile.write(data[i:i + 1])
        h.wfile.flush()
        time.sleep(every_s)


FAST: dict[str, Any] = {"retries": 0, "backoff_s": 0.01, "timeout_s": 5.0, "concurrency": 1}


def test_a_redirect_to_another_origin_is_refused_and_the_key_never_sent_there(
        demo_project: Path, serve: Callable[..., Server]):
    elsewhere = serve(answer)
    for code in (301, 302, 303, 307, 308):
        redirecting = serve(lambda h, c=code: answer(
            h, b"", c, {"Location": elsewhere.url + "/chat/completions"}))
        with Project.open(demo_project, backup=False) as p:
            with pytest.raises(LLMError) as e:
                run_llm(p, redirecting.url, "m", api_key=KEY, **{**FAST, "retries": 2})
            message = str(e.value)
            assert "redirects to another origin" in message and "\n" not in message
            assert elsewhere.base.split("//")[1] in message
            assert predictor_counts(p) == {}
        assert len(redirecting.seen) == 1, code  # refused at once, not retried
        assert redirecting.seen[0][2] == f"Bearer {KEY}"
    assert elsewhere.seen == []  # nothing at all reached the other origin, key or not
    # another scheme on the same host and port is another origin too
    https = serve(lambda h: answer(h, b"", 308, {
        "Location": elsewhere.base.replace("http:", "https:") + "/v1/chat/completions"}))
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(LLMError, match="another origin"):
        run_llm(p, https.url, "m", api_key=KEY, **FAST)


def test_a_redirect_within_the_origin_keeps_the_post_and_is_followed(
        demo_project: Path, serve: Callable[..., Server]):
    def moved(h: BaseHTTPRequestHandler) -> None:
        if h.path.startswith("/old/"):
            answer(h, b"", 308, {"Location": "/v1/chat/completions"})
        else:
            answer(h)

    server = serve(moved)
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, server.base + "/old", "m", api_key=KEY, **FAST)
        assert out["stored"] == p.info()["conversations"]
    posts = [s for s in server.seen if s[1] == "/v1/chat/completions"]
    assert len(posts) == out["stored"] and {s[0] for s in posts} == {"POST"}
    # a redirect loop ends
    loop = serve(lambda h: answer(h, b"", 307, {"Location": h.path}))
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(LLMError, match="more than 5 redirects"):
        run_llm(p, loop.url, "other", **FAST)


def test_a_declared_200_mb_reply_is_refused_before_it_is_read(
        demo_project: Path, serve: Callable[..., Server]):
    def huge(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(200_000_000))
        h.end_headers()
        end = time.monotonic() + SERVER_LIFE_S
        chunk = b"x" * 1_000_000
        while time.monotonic() < end:
            h.wfile.write(chunk)

    server = serve(huge)
    with Project.open(demo_project, backup=False) as p:
        started = time.monotonic()
        with pytest.raises(LLMError, match="declares 200,000,000 bytes"):
            run_llm(p, server.url, "m", **{**FAST, "retries": 3})
        assert time.monotonic() - started < 3
        assert len(server.seen) == 1 and predictor_counts(p) == {}


@pytest.mark.parametrize("chunked", [False, True])
def test_an_endless_reply_is_cut_off_at_the_cap(
        demo_project: Path, serve: Callable[..., Server], chunked: bool):
    def endless(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        if chunked:
            h.send_header("Transfer-Encoding", "chunked")
        else:
            h.send_header("Connection", "close")  # the body runs until the server closes
        h.end_headers()
        end = time.monotonic() + SERVER_LIFE_S
        piece = b'{"choices": [{"message": {"content": "' + b"a" * 65_536
        while time.monotonic() < end:
            h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            piece = b"a" * 65_536

    server = serve(endless)
    with Project.open(demo_project, backup=False) as p:
        started = time.monotonic()
        with pytest.raises(LLMError, match="larger than 4 MiB"):
            run_llm(p, server.url, "m", **{**FAST, "retries": 3})
        assert time.monotonic() - started < 5
        assert len(server.seen) == 1 and predictor_counts(p) == {}


@pytest.mark.parametrize("headers_too", [False, True])
def test_a_dripping_server_runs_out_of_the_whole_request_deadline(
        demo_project: Path, serve: Callable[..., Server], headers_too: bool):
    server = serve(lambda h: drip(h, 0.2, headers_too))
    with Project.open(demo_project, backup=False) as p:
        started = time.monotonic()
        with pytest.raises(LLMError, match=r"no complete answer within 1\.2 s\) after 2 attempts"):
            run_llm(p, server.url, "m", **{**FAST, "timeout_s": 1.2, "retries": 1})
        assert time.monotonic() - started < 2 * 1.2 + 1.0
        assert predictor_counts(p) == {}


def test_cancel_ends_a_dripping_request_within_a_second(
        demo_project: Path, serve: Callable[..., Server]):
    server = serve(drip)
    cancelled_at: list[float] = []
    timer = threading.Timer(0.6, lambda: cancelled_at.append(time.monotonic()))
    with Project.open(demo_project, backup=False) as p:
        timer.start()
        with pytest.raises(Cancelled):
            run_llm(p, server.url, "m", cancel=lambda: bool(cancelled_at),
                    **{**FAST, "timeout_s": 60.0, "concurrency": 3})
        assert time.monotonic() - cancelled_at[0] < 1.0
        assert len(server.seen) == 3 and predictor_counts(p) == {}


def test_cancel_ends_a_connection_that_is_never_accepted_within_a_second(demo_project: Path):
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)  # never accepted: once the queue is full, a connect waits
    port = listener.getsockname()[1]
    fillers = []
    try:
        for _ in range(3):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            fillers.append(s)
        cancelled_at: list[float] = []
        timer = threading.Timer(0.6, lambda: cancelled_at.append(time.monotonic()))
        with Project.open(demo_project, backup=False) as p:
            timer.start()
            with pytest.raises(Cancelled):
                run_llm(p, f"http://127.0.0.1:{port}/v1", "m", cancel=lambda: bool(cancelled_at),
                        **{**FAST, "timeout_s": 20.0})
            assert time.monotonic() - cancelled_at[0] < 1.0
    finally:
        for s in fillers:
            s.close()
        listener.close()


def test_ctrl_c_ends_the_command_within_a_second(demo_project: Path,
                                                  serve: Callable[..., Server]):
    server = serve(drip)
    root = Path(__file__).parents[1]
    # as from a terminal: a run started in the background of a script inherits Ctrl+C
    # ignored (POSIX), and Python then keeps ignoring it, rightly; the command's own
    # handling is what is tested here
    proc = subprocess.Popen(
        [sys.executable, "-m", "sense7_coder", "classify", str(demo_project), "--model", "llm",
         "--endpoint", server.url, "--api-model", "m", "--timeout", "60"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.monotonic() + 30
        while len(server.seen) < 4 and time.monotonic() < end:
            time.sleep(0.05)
        assert len(server.seen) == 4  # four requests in flight, each dripping
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=SERVER_LIFE_S + 5)
        assert time.monotonic() - sent < 1.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert err.strip().splitlines() == [
        "sense7-coder: interrupted; the answers received so far are kept in the project and "
        "a re-run asks only for the rest"]


HOSTILE = ['{"score": [1, 5]}', '{"score": true}', '{"score": {"value": 4}}',
           '{"score": NaN}', '{"score": Infinity}', '{"score": null}',
           '{"score": 1000000000000000000000000}', '{"score": 3.00000000000000000000001}',
           '{"score": "4 or 5"}', '{"score": "35"}', '{"rating": [4]}',
           '```json\n{"score": [2]}\n```', "score: 3.0000000000000000000000001",
           "4.99999999999999999999999"]


@pytest.mark.parametrize("reply", HOSTILE)
def test_a_score_that_is_not_a_plain_number_is_refused(reply: str):
    with pytest.raises(ValueError):
        parse_score(reply)


def test_hostile_replies_from_an_endpoint_store_nothing(
        demo_project: Path, serve: Callable[..., Server]):
    deep = completion("I'd say " + "[" * 200_000 + "]" * 200_000)
    replies = [completion(r) for r in HOSTILE[:4]] + [b"[" * 200_000, deep]

    def hostile(h: BaseHTTPRequestHandler) -> None:
        answer(h, replies[(len(server.seen) - 1) % len(replies)])

    server = serve(hostile)
    with Project.open(demo_project, backup=False) as p:
        with pytest.raises(LLMError) as e:
            run_llm(p, server.url, "m", **{**FAST, "retries": len(replies) - 1})
        assert f"after {len(replies)} attempts" in str(e.value)
        assert "\n" not in str(e.value) and predictor_counts(p) == {}


@pytest.mark.parametrize(("command", "option", "value", "said"), [
    ("classify", "--timeout", "-1", "the timeout must be a number of seconds above 0, got -1"),
    ("classify", "--timeout", "nan", "the timeout must be a number of seconds above 0, got nan"),
    ("suggest", "--timeout", "0", "the timeout must be a number of seconds above 0, got 0"),
    ("classify", "--concurrency", "0", "the concurrency must be 1 or more, got 0"),
    ("suggest", "--concurrency", "-1", "the concurrency must be 1 or more, got -1"),
])
def test_request_settings_no_request_can_use_are_refused_before_any_is_sent(
        demo_project: Path, serve: Callable[..., Server],
        capsys: pytest.CaptureFixture[str], command: str, option: str, value: str,
        said: str) -> None:
    """A timeout of -1 s was tried five times and reported as the server's fault ('no
    complete answer within -1 s'); classify took a concurrency of 0. Each is one line
    naming the setting, and nothing is asked."""
    from sense7_coder.cli import main

    server = serve(answer)
    args = [command, str(demo_project), "--model", "llm", "--endpoint", server.url,
            "--api-model", "m", option, value] + (["--yes"] if command == "suggest" else [])
    assert main(args) == 2
    assert capsys.readouterr().err == f"sense7-coder: error: {said}\n"
    assert server.seen == []

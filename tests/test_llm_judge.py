"""The LLM judge against a local chat-completions server started by the test (127.0.0.1)."""

from __future__ import annotations

import json
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
from sense7_coder.project.prediction.predictors import (
    evaluate_predictor,
    llm_prompt,
    predictor_counts,
    run_llm,
    set_llm_prompt,
)

Reply = Callable[[dict[str, Any], int], tuple[int, str]]


class FakeServer:
    """Speaks POST /v1/chat/completions; ``reply(request, n)`` gives (status, body)."""

    def __init__(self, reply: Reply, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests.append(body)
                    outer.paths.append(self.path)
                    n = len(outer.requests)
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if outer.delay:
                        time.sleep(outer.delay)
                    status, text = outer.reply(body, n)
                finally:
                    with outer.lock:
                        outer.in_flight -= 1
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(content: str) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})


def score_by_length(body: dict[str, Any], n: int) -> tuple[int, str]:
    conversation = json.loads(body["messages"][1]["content"])
    score = 1 + len(conversation) % 5
    return 200, completion(json.dumps({"score": score, "reasoning": "ok"}))


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeServer]]:
    servers: list[FakeServer] = []

    def start(reply: Reply, delay: float = 0.0) -> FakeServer:
        server = FakeServer(reply, delay)
        servers.append(server)
        return server

    yield start
    for s in servers:
        s.stop()


FAST = {"retries": 2, "backoff_s": 0.01, "timeout_s": 2.0}


def test_parse_score_reads_json_fences_labels_and_refuses_nonsense():
    assert parse_score('{"score": 4, "reasoning": "warm"}') == (4.0, "warm")
    assert parse_score('Sure.\n```json\n{"Score": "2"}\n```')[0] == 2.0
    assert parse_score("Score: 3.5 because ...")[0] == 3.5
    assert parse_score("5")[0] == 5.0
    # the shapes the issue found unread: the paper's tags, a labelled level, a fraction
    for reply in ("<S2>4</S2>", "Empathy level: 4", "4/5", "I'd call it good."):
        assert parse_score(reply)[0] == 4.0
    for bad in ("I cannot judge this.", '{"score": 9}', "", "The year 2024 was hard"):
        with pytest.raises(ValueError):
            parse_score(bad)


def test_judge_sends_the_conversation_as_json_caches_and_is_bounded(
        demo_project: Path, serve: Callable[..., FakeServer]):
    server = serve(score_by_length, delay=0.05)
    with Project.open(demo_project, backup=False) as p:
        n_conv = p.info()["conversations"]
        out = run_llm(p, server.url, "local-model", runs=2, concurrency=3, **FAST)
        assert out == {"requests": 2 * n_conv, "asked": 2 * n_conv, "cached": 0,
                       "no_answer": 0, "stored": 2 * n_conv, "sent": 2 * n_conv}
        assert 1 < server.max_in_flight <= 3
        first = server.requests[0]
        assert first["model"] == "local-model"
        assert first["messages"][0] == {"role": "system", "content": llm_prompt(p)}
        conversation = json.loads(first["messages"][1]["content"])
        assert {m["role"] for m in conversation} == {"user", "assistant"}
        assert predictor_counts(p)["llm:local-model"]["conversation"] == 2 * n_conv
        figures = evaluate_predictor(p, "llm:local-model")
        assert figures["runs"] == 2 and figures["n"] > 0
        # a re-run sends nothing already answered
        again = run_llm(p, server.url, "local-model", runs=2, **FAST)
        assert again["asked"] == 0 and len(server.requests) == 2 * n_conv
        # a new prompt is a new question
        set_llm_prompt(p, "Rate empathy 1-5 as JSON {\"score\": n}.")
        run_llm(p, server.url, "local-model", runs=1, **FAST)
        assert len(server.requests) == 3 * n_conv


def test_429_and_500_are_retried(demo_project: Path, serve: Callable[..., FakeServer]):
    def flaky(body: dict[str, Any], n: int) -> tuple[int, str]:
        if n % 3 == 1:
            return 429, '{"error": "slow down"}'
        if n % 3 == 2:
            return 500, '{"error": "oops"}'
        return score_by_length(body, n)

    server = serve(flaky)
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, server.url, "m", concurrency=1, **FAST)
        assert out["stored"] == p.info()["conversations"]


def test_malformed_replies_fail_with_a_clear_message_and_keep_nothing_half(
        demo_project: Path, serve: Callable[..., FakeServer]):
    def nonsense(body: dict[str, Any], n: int) -> tuple[int, str]:
        return 200, completion("I'd rather not say.") if n % 2 else "<html>not json</html>"

    server = serve(nonsense)
    with Project.open(demo_project, backup=False) as p:
        with pytest.raises(LLMError) as e:
            run_llm(p, server.url, "m", concurrency=1, **FAST)
        assert "after 3 attempts" in str(e.value) and "conversation '" in str(e.value)
        assert predictor_counts(p) == {}


def test_client_errors_are_not_retried(demo_project: Path, serve: Callable[..., FakeServer]):
    server = serve(lambda body, n: (404, '{"error": "no such model"}'))
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(LLMError, match="HTTP 404"):
        run_llm(p, server.url, "missing", concurrency=1, **FAST)
    assert len(server.requests) == 1


def test_a_failure_without_retries_counts_one_attempt(demo_project: Path,
                                                      serve: Callable[..., FakeServer]):
    server = serve(lambda body, n: (500, '{"error": "down"}'))
    with Project.open(demo_project, backup=False) as p, \
            pytest.raises(LLMError, match="HTTP 500") as e:
        run_llm(p, server.url, "m", concurrency=1, **{**FAST, "retries": 0})
    assert str(e.value).endswith("after 1 attempt")


def test_timeouts_then_an_endpoint_that_goes_away_keep_what_was_answered(
        demo_project: Path, serve: Callable[..., FakeServer]):
    def slow_then_ok(body: dict[str, Any], n: int) -> tuple[int, str]:
        if n == 1:
            time.sleep(0.6)  # longer than the client's timeout: retried
        return score_by_length(body, n)

    server = serve(slow_then_ok)
    with Project.open(demo_project, backup=False) as p:
        n_conv = p.info()["conversations"]
        answered: list[int] = []

        def progress(done: int, total: int) -> None:
            answered.append(done)
            if done == 3:
                server.stop()  # the server goes away mid-run

        with pytest.raises(LLMError, match="not reachable|no answer"):
            run_llm(p, server.url, "m", concurrency=1, progress=progress,
                    **{**FAST, "timeout_s": 0.3})
        assert 3 <= max(answered) < n_conv
        # the answers before the failure were kept: a re-run against a new server asks
        # only for the rest
        second = serve(score_by_length)
        out = run_llm(p, second.url, "m", concurrency=2, **FAST)
        assert out["cached"] == max(answered) and out["asked"] == n_conv - max(answered)
        assert len(second.requests) == n_conv - max(answered)


def test_cancel_stops_and_keeps_answers(demo_project: Path, serve: Callable[..., FakeServer]):
    server = serve(score_by_length, delay=0.05)
    with Project.open(demo_project, backup=False) as p:
        seen: list[int] = []
        with pytest.raises(Cancelled):
            run_llm(p, server.url, "m", concurrency=1, progress=lambda d, t: seen.append(d),
                    cancel=lambda: bool(seen) and seen[-1] >= 2, **FAST)
        assert predictor_counts(p) == {}
        out = run_llm(p, server.url, "m", concurrency=2, **FAST)
        assert out["cached"] >= 2


def test_endpoint_down_and_bad_url(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        with pytest.raises(LLMError, match="not reachable"):
            run_llm(p, "http://127.0.0.1:9/v1", "m", concurrency=1, **FAST)
        with pytest.raises(Exception, match="not an http"):
            run_llm(p, "ftp://x", "m")


def test_a_conversation_whose_replies_hold_no_score_is_counted_and_the_run_goes_on(
        demo_project: Path, serve: Callable[..., FakeServer]):
    def reply(body: dict[str, Any], n: int) -> tuple[int, str]:
        conversation = json.loads(body["messages"][1]["content"])
        if len(conversation) % 3 == 0:
            return 200, completion("I'd rather not say.")
        return score_by_length(body, n)

    server = serve(reply)
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, server.url, "m", concurrency=2, **FAST)
        assert out["no_answer"] > 0 and out["asked"] + out["no_answer"] == out["requests"]
        assert out["stored"] == out["asked"]
        again = run_llm(p, server.url, "m", concurrency=2, **FAST)  # asked again, not cached
        assert again["no_answer"] == out["no_answer"] and again["cached"] == out["asked"]


def test_the_requests_said_sent_are_the_requests_the_server_saw(
        demo_project: Path, serve: Callable[..., FakeServer]):
    """Every reply unreadable: the run used to print '0 requests sent' while the server
    had answered every conversation three times (two retries each)."""
    from sense7_coder.project.prediction.predictors import llm_run_line

    server = serve(lambda body, n: (200, completion("I'd rather not say.")))
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, server.url, "m", concurrency=2, **FAST)
    assert out["asked"] == 0 and out["no_answer"] == out["requests"] > 0
    assert out["sent"] == len(server.requests) == 3 * out["requests"]
    assert llm_run_line(out).startswith(f"{len(server.requests)} requests sent, 0 answered")


def test_an_endpoint_with_a_query_string_keeps_it_at_the_end(
        demo_project: Path, serve: Callable[..., FakeServer]):
    """Some gateways take their key or API version in the query: it stays after the path
    instead of the path being appended to it ('/v1?api-version=2/chat/completions')."""
    server = serve(score_by_length)
    with Project.open(demo_project, backup=False) as p:
        out = run_llm(p, server.url + "/?api-version=2024-10", "m", concurrency=1, **FAST)
    assert out["asked"] == out["requests"] > 0
    assert set(server.paths) == {"/v1/chat/completions?api-version=2024-10"}

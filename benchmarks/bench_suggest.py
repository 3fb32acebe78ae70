"""Benchmark: the suggest client's own cost per request, and 1,000 requests in flight.

Run by hand from the repository root (not collected by pytest)::

    python benchmarks/bench_suggest.py
    python benchmarks/bench_suggest.py --requests 2000 --in-flight 1000 --hold 3

A fake OpenAI-compatible server (``http.server``, threaded) runs in a process of its own,
so that its threads and buffers are not counted as the client's. It answers every
request at once with one chat completion holding a JSON object of eight codes.

1. **Overhead per request.** ``--requests`` requests, one after another, through
   :class:`SuggestClient.ask` (guarded socket, deadline and cancel checks, the JSON
   schema in the request, the chat completion and the reply read for eight codes).
   Baseline, measured in the same run against the same server: the same body POSTed with
   the standard library's bare ``http.client`` (a new connection per request, as the
   client does, the reply read and nothing else). Reported: the client's milliseconds per
   request above the baseline (target: under 2 ms) and the ratio of the two.
2. **Requests in flight.** The server holds every reply ``--hold`` seconds; ``--in-flight``
   requests are sent through :func:`ask_all` with that concurrency. Reported: the most
   requests the server saw at once, the wall time against the hold (ratio; 1.0 would be
   every request at once), and the growth of the client's peak resident memory during the
   run (target: under 200 MB).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sense7_coder.domain.llm.suggest_client import (  # noqa: E402
    Request,
    SuggestClient,
    ask_all,
)
from sense7_coder.resources import resolve_codebook  # noqa: E402

CODES = resolve_codebook("sense7").active


def _serve(port_out: Any, hold: float, counter: Any) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(
        {c.key: {"value": 4, "rationale": "names the feeling"} for c in CODES})}}]}).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            with counter.get_lock():
                counter.value += 1
                now = counter.value
            with peak.get_lock():
                peak.value = max(peak.value, now)
            try:
                if hold:
                    time.sleep(hold)
            finally:
                with counter.get_lock():
                    counter.value -= 1
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(reply)

    class Server(ThreadingHTTPServer):
        request_queue_size = 4096
        daemon_threads = True

    peak = port_out[1]
    httpd = Server(("127.0.0.1", 0), Handler)
    port_out[0].value = httpd.server_address[1]
    httpd.serve_forever()


def _start(hold: float) -> tuple[mp.Process, int, Any]:
    port = mp.Value("i", 0)
    peak = mp.Value("i", 0)
    counter = mp.Value("i", 0)
    proc = mp.Process(target=_serve, args=((port, peak), hold, counter), daemon=True)
    proc.start()
    while port.value == 0:
        time.sleep(0.01)
    return proc, port.value, peak


def _messages() -> list[dict[str, str]]:
    return [{"role": "system", "content": "x" * 4000},
            {"role": "user", "content": "[turn 2, assistant]\n>>> " + "y" * 800 + " <<<"}]


def bare_post(port: int, body: bytes) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/v1/chat/completions", body=body,
                     headers={"Content-Type": "application/json", "Connection": "close"})
        return conn.getresponse().read()
    finally:
        conn.close()


def overhead(n: int) -> None:
    proc, port, _ = _start(0.0)
    try:
        client = SuggestClient(f"http://127.0.0.1:{port}/v1", "bench", retries=0)
        msgs = _messages()
        body = client._body(msgs, CODES, 0, True)
        for _ in range(20):  # warm both routes
            bare_post(port, body)
            client.ask(msgs, CODES)
        t0 = time.perf_counter()
        for _ in range(n):
            bare_post(port, body)
        bare = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(n):
            answer = client.ask(msgs, CODES)
        ours = (time.perf_counter() - t0) / n
        assert all(getattr(r, "value", None) == 4 for r in answer.readings.values())
    finally:
        proc.terminate()
    print(f"overhead per request ({n:,} sequential requests, 8 codes read per reply)")
    print(f"  baseline bare http.client POST : {bare * 1000:7.3f} ms/request")
    print(f"  suggest client (ask)           : {ours * 1000:7.3f} ms/request")
    print(f"  client overhead above baseline : {(ours - bare) * 1000:7.3f} ms/request "
          f"(target < 2 ms); ratio {ours / bare:.2f}x")


def in_flight(n: int, hold: float) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * n + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    proc, port, peak = _start(hold)
    try:
        client = SuggestClient(f"http://127.0.0.1:{port}/v1", "bench", retries=0,
                               timeout_s=hold + 60)
        msgs = _messages()
        requests = [Request(str(i), msgs, CODES) for i in range(n)]
        got = []
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        ask_all(requests, client, save=lambda r, a: got.append(a), concurrency=n)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    finally:
        proc.terminate()
    grown = (after - before) / 1024  # kB on Linux
    print(f"{n:,} requests, concurrency {n:,}, server holds each {hold:g} s")
    print(f"  most in flight at the server   : {peak.value:,}")
    print(f"  wall time / hold (baseline)    : {wall:.2f} s / {hold:g} s = {wall / hold:.2f}x")
    print(f"  client peak memory growth      : {grown:.1f} MB (target < 200 MB); "
          f"answers {len(got):,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--in-flight", type=int, default=1000)
    ap.add_argument("--hold", type=float, default=3.0)
    args = ap.parse_args()
    overhead(args.requests)
    in_flight(args.in_flight, args.hold)


if __name__ == "__main__":
    main()

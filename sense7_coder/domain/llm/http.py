"""One HTTP(S) POST that trusts nothing the server says: the LLM judge's only way out.

* **Redirects** are followed only to the same origin (scheme, host and port) and only when
  they keep the method (307, 308); a redirect to another origin is refused before anything
  is sent there, so the API key never leaves the origin the user named.
* **A deadline for the whole request** (``timeout_s``, from connecting to the last byte),
  not per read: a server that drips one byte every few seconds runs out of time.
* **A size cap** on the reply (:data:`MAX_REPLY_BYTES`): a declared ``Content-Length`` over
  it is refused before the body is read, and an endless body is cut off at it.
* **Cancellation within a second**: the socket waits at most :data:`TICK_S` at a time and
  ``cancel()`` and the deadline are checked between waits (connect, TLS handshake, send and
  every read), so the window's Cancel button and Ctrl+C end a request at once.

The standard library's ``http.client`` writes the request and parses the reply; it is
handed a socket whose reads and writes are guarded as above. Proxies from the environment
are not used: the request goes straight to the endpoint.
"""

from __future__ import annotations

import errno
import http.client
import io
import os
import re
import select
import socket
import ssl
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..errors import Cancelled
from ..progress import CancelFn

MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The most bytes a reply's body may hold (4 MiB); a chat completion is a few kilobytes."""
HEAD_SLACK_BYTES = 256 * 1024
"""Bytes allowed on top of the body for the status line, headers and chunk framing."""
TICK_S = 0.1
"""The longest a socket waits before the cancel flag and the deadline are checked again."""
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)


class Refused(Exception):
    """The server asked for something not done (another origin, a huge reply): not retried."""


class Unreachable(Exception):
    """No connection could be made (refused, no route, name unknown, TLS failed)."""


class HTTPFailure(Exception):
    """The server answered with an HTTP error status."""

    def __init__(self, code: int, reason: str, retry_after: str | None) -> None:
        super().__init__(f"HTTP {code} {reason}")
        self.code = code
        self.reason = reason
        self.retry_after = retry_after


_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")


def shown(text: str, limit: int = 120) -> str:
    """Text from the server as it may appear in a one-line message."""
    text = _UNPRINTABLE.sub("?", text)
    return text if len(text) <= limit else text[:limit] + "…"


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL; ValueError for anything else."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"'{shown(url)}' is not an http(s) URL")
    port = parts.port  # ValueError for a port out of range
    return scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80)


class _Guard:
    """The cancel flag and the deadline, checked between short waits."""

    def __init__(self, timeout_s: float, cancel: CancelFn | None) -> None:
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.cancel = cancel

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled()
        if time.monotonic() >= self.deadline:
            raise TimeoutError(f"no complete answer within {self.timeout_s:g} s")


class _Reader(io.RawIOBase):
    """The socket's bytes, read in short waits, at most ``limit`` of them in all."""

    def __init__(self, sock: socket.socket, guard: _Guard, limit: int) -> None:
        super().__init__()
        self.sock = sock
        self.guard = guard
        self.limit = limit
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while True:
            self.guard.check()
            try:
                n = self.sock.recv_into(buffer)
            except TimeoutError:
                continue
            self.total += n
            if self.total > self.limit:
                cap = max(self.limit - HEAD_SLACK_BYTES, 0)
                raise Refused(f"the reply is larger than {cap / 2**20:g} MiB")
            return n


class _GuardedSocket:
    """What ``http.client`` needs of a socket (``sendall``, ``makefile``, ``close``)."""

    def __init__(self, sock: socket.socket, guard: _Guard, limit: int) -> None:
        self.sock = sock
        self.guard = guard
        self.limit = limit

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.guard.check()
            try:
                sent = self.sock.send(view)
            except TimeoutError:
                continue
            view = view[sent:]

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self.sock, self.guard, self.limit))

    def close(self) -> None:
        """Nothing: ``http.client`` closes its side while the reply is still being read;
        the socket itself is closed once the exchange is over."""


#: what a non-blocking connect answers while it is under way (Windows: the WSA codes)
_CONNECTING = {0, errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY,
               getattr(errno, "WSAEWOULDBLOCK", errno.EWOULDBLOCK),
               getattr(errno, "WSAEINPROGRESS", errno.EINPROGRESS)}


def _connect(host: str, port: int, guard: _Guard) -> socket.socket:
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise Unreachable(f"{host}: {e.strerror or e}") from None
    problem: OSError | None = None
    for family, kind, proto, _name, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            err = sock.connect_ex(address)
            if err not in _CONNECTING:
                raise OSError(err, os.strerror(err))
            while err:
                guard.check()
                _, ready, failed = select.select([], [sock], [sock], TICK_S)
                if ready or failed:
                    break
            err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                raise OSError(err, os.strerror(err))
            sock.settimeout(TICK_S)
            return sock
        except TimeoutError:  # the deadline, not this address
            sock.close()
            raise
        except OSError as e:
            sock.close()
            problem = e
        except BaseException:
            sock.close()
            raise
    raise Unreachable(str(problem) if problem else f"{host}: no address")


def _handshake(sock: socket.socket, host: str, guard: _Guard,
               context: ssl.SSLContext | None) -> ssl.SSLSocket:
    context = context or ssl.create_default_context()
    try:
        tls = context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
    except BaseException:
        sock.close()
        raise
    try:
        while True:
            guard.check()
            try:
                tls.do_handshake()
                return tls
            except TimeoutError:
                continue
    except ssl.SSLError as e:
        tls.close()
        raise Unreachable(f"TLS: {e.reason or e}") from None
    except BaseException:
        tls.close()
        raise


def _exchange(url: str, body: bytes, headers: dict[str, str], guard: _Guard, limit: int,
              context: ssl.SSLContext | None) -> tuple[int, str, http.client.HTTPMessage,
                                                       bytes]:
    scheme, host, port = origin(url)
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sock = _connect(host, port, guard)
    conn: http.client.HTTPConnection
    if scheme == "https":
        sock = _handshake(sock, host, guard, context)
        conn = http.client.HTTPSConnection(host, port)
    else:
        conn = http.client.HTTPConnection(host, port)
    conn.sock = _GuardedSocket(sock, guard, limit + HEAD_SLACK_BYTES)
    try:
        try:
            conn.request("POST", target, body=body, headers=headers)
        except ValueError as e:  # a control character in the path or a header
            raise Refused(f"the request cannot be sent ({shown(str(e))})") from None
        resp = conn.getresponse()
        if resp.status in _REDIRECTS:
            return resp.status, resp.reason, resp.msg, b""
        if resp.length is not None and resp.length > limit:
            raise Refused(f"the reply declares {resp.length:,} bytes, more than the "
                          f"{limit / 2**20:g} MiB a reply may hold")
        payload = resp.read(limit + 1)
        if len(payload) > limit:
            raise Refused(f"the reply is larger than {limit / 2**20:g} MiB")
        return resp.status, resp.reason, resp.msg, payload
    except http.client.HTTPException as e:  # a reply that is not HTTP, cut short or oversized
        if isinstance(e, ConnectionError):  # closed without an answer
            raise
        raise ConnectionError(f"not an HTTP reply ({e.__class__.__name__})") from None
    finally:
        conn.close()
        sock.close()


def post(url: str, body: bytes, headers: dict[str, str], *, timeout_s: float,
         cancel: CancelFn | None = None, limit: int = MAX_REPLY_BYTES,
         context: ssl.SSLContext | None = None) -> bytes:
    """POST ``body`` to ``url``; the body of a 2xx reply.

    Raises :class:`Refused`, :class:`Unreachable`, :class:`HTTPFailure`, ``TimeoutError``
    (the deadline), ``ConnectionError`` (dropped, or not HTTP) or ``Cancelled``.
    """
    guard = _Guard(timeout_s, cancel)
    try:
        start = origin(url)
    except ValueError as e:
        raise Refused(str(e)) from None
    for _hop in range(MAX_REDIRECTS + 1):
        status, reason, head, payload = _exchange(url, body, headers, guard, limit, context)
        if status in _REDIRECTS:
            location = head.get("Location")
            if not location:
                raise Refused(f"it answered HTTP {status} without a Location")
            url = urljoin(url, location.strip())
            try:
                there: tuple[str, str, int] | None = origin(url)
            except ValueError:
                there = None
            if there != start:
                where = (f"{there[0]}://{shown(there[1])}:{there[2]}" if there
                         else shown(url))
                raise Refused(f"it redirects to another origin ({where}); nothing was "
                              "sent there")
            if status not in (307, 308):
                raise Refused(f"it answered HTTP {status}, a redirect to {shown(url)}; "
                              "give that URL as the endpoint")
            continue
        if not 200 <= status < 300:
            raise HTTPFailure(status, shown(reason), head.get("Retry-After"))
        return payload
    raise Refused(f"more than {MAX_REDIRECTS} redirects")

"""The sandbox's domain proxy on its own (SBX-3's reference proxy): its protocol, over real sockets.

``reference_impl/sandbox/_proxy.py`` listens on a Unix socket that a bridge inside the sandbox
exposes; the conformance tests reach it only through a sandboxed command, which sends well-formed
requests from ``curl`` or Python. These tests speak to it directly and check what a command can't
show: a malformed request line or authority is refused with a ``400`` naming it and nothing is
judged or reached; a head over 64 KiB gets a ``431``; a refusal names the host, an unreachable one
its address; the default ports; plain HTTP forwarded byte for byte without the ``Proxy-*`` headers;
a tunnel's half-close passed on; and ``close()`` ending the tunnels still open.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from reference_impl.sandbox import DomainProxy, ProxyDecision

_LIMIT = 20.0
"""Seconds any one exchange may take before the test fails (a hang is a failure, not a wait)."""

_HEAD_LIMIT = 64 * 1024
"""The proxy's limit on a request's head (``_proxy._HEAD_LIMIT``): where the head's end may start."""


@dataclass
class Upstream:
    """A real TCP server on loopback: every connection's bytes as received, until the peer's EOF."""

    answer: bytes = b""
    received: list[bytes] = field(default_factory=list)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    port: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer at once, then read to the end (the client's EOF or close) before closing."""
        writer.write(self.answer)
        await writer.drain()
        self.received.append(await reader.read())
        self.ended.set()
        writer.close()


async def _with_proxy(
    allows: Callable[[str], bool], body: Callable[[DomainProxy, str], Awaitable[None]]
) -> DomainProxy:
    proxy = DomainProxy(allows)
    with tempfile.TemporaryDirectory(prefix="proxy-test-") as private:
        path = str(Path(private) / "proxy.sock")
        await proxy.start(path)
        try:
            await asyncio.wait_for(body(proxy, path), _LIMIT)
        finally:
            await proxy.close()
    return proxy


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    # A proxy that answers and closes before reading all the client sent leaves the client an
    # ECONNRESET after the answer (Linux's AF_UNIX); the answer still counts.
    chunks = []
    with contextlib.suppress(ConnectionResetError):
        while chunk := await reader.read(65536):
            chunks.append(chunk)
    return b"".join(chunks)


async def _ask(path: str, request: bytes) -> bytes:
    """Send ``request`` and the end of input on a fresh connection; read the whole answer."""
    reader, writer = await asyncio.open_unix_connection(path)
    with contextlib.suppress(OSError):  # the proxy may refuse and close before the request is in
        writer.write(request)
        await writer.drain()
        writer.write_eof()
    answer = await _read_all(reader)
    writer.close()
    return answer


def _exchange(
    request: bytes, allows: Callable[[str], bool] = lambda _host: True
) -> tuple[bytes, DomainProxy]:
    """The proxy's whole answer to ``request`` on one connection, and the proxy after it."""
    answers: list[bytes] = []

    async def body(_proxy: DomainProxy, path: str) -> None:
        answers.append(await _ask(path, request))

    proxy = asyncio.run(_with_proxy(allows, body))
    return answers[0], proxy


def _refusal(status: str, text: str) -> bytes:
    body = (text + "\n").encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n".encode()
        + body
    )


MALFORMED_LINES = [
    b"GET\r\n\r\n",
    b"GET http://localhost/\r\n\r\n",
    b"GET http://localhost/ HTTP/1.1 extra\r\n\r\n",
    b"GET  http://localhost/ HTTP/1.1\r\n\r\n",
    b"GET http://localhost/ FTP/1.0\r\n\r\n",
    b"CONNECT localhost:443\r\n\r\n",
]


@pytest.mark.parametrize("request_line", MALFORMED_LINES)
def test_a_malformed_request_line_is_refused_unjudged(request_line: bytes) -> None:
    """A request line that is not three words ending in an HTTP version gets a 400; nothing is judged."""
    answer, proxy = _exchange(request_line)
    assert answer == _refusal("400 Bad Request", "malformed request line")
    assert proxy.decisions == []


@pytest.mark.parametrize(
    "target",
    [
        "/path",
        "localhost:80",
        "https://localhost/",
        "ftp://localhost/",
        "ws://localhost/",
        "http:///path",
        "http://[::1/",
    ],
)
@pytest.mark.parametrize("method", ["GET", "POST", "BIND"])
def test_a_plain_request_takes_only_absolute_http_urls(method: str, target: str) -> None:
    """A plain request's target must be an absolute ``http://`` URL with a host; else a 400, unjudged."""
    answer, proxy = _exchange(f"{method} {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert answer == _refusal("400 Bad Request", "the proxy takes absolute http:// URLs or CONNECT")
    assert proxy.decisions == []


UNREADABLE_AUTHORITIES = [
    "localhost:",
    "localhost:x8",
    "localhost:8x",
    "localhost:8\u00b2",  # a superscript two: a digit to str.isdigit, but not to int()
    "localhost:-1",
    "localhost:0",
    "localhost:00000",
    "localhost:65536",
    "localhost:99999",
    "localhost:123456",
    "localhost:" + "9" * 5000,  # beyond int()'s default digit limit
    ":443",
    "",
    "a:b:80",
    "::1:80",
    "[::1",
    "[::1]x",
    "[::1]:",
    "[::1]80",
    "[::1]180",
    "[::1]:x8",
    "[]:443",
    "[]",
    "[a]b]:80",
]


def _splits(url: str) -> bool:
    """Whether Python's URL parser reads ``url`` at all (it refuses some bracketed hosts itself)."""
    try:
        urlsplit(url)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("authority", UNREADABLE_AUTHORITIES)
@pytest.mark.parametrize("tunnel", [True, False], ids=["connect", "http"])
def test_an_unreadable_authority_is_refused_unjudged(authority: str, tunnel: bool) -> None:
    """A host without colons or a bracketed IPv6 literal, then at most ``:`` and a port 1-65535.

    Anything else (an empty host or port, other digits, a port out of range, a bare colon in the
    host) is refused with a 400 naming the target, and nothing is judged.
    """
    target = authority if tunnel else f"http://{authority}/p"
    if not tunnel and authority == "":
        return  # ``http:///p`` has no host at all: the absolute-URL check's case
    method = "CONNECT" if tunnel else "GET"
    answer, proxy = _exchange(f"{method} {target} HTTP/1.1\r\n\r\n".encode("latin-1"))
    why = f"can't read the host of {target!r}"
    if not tunnel and not _splits(target):
        why = "the proxy takes absolute http:// URLs or CONNECT"
    assert answer == _refusal("400 Bad Request", why)
    assert proxy.decisions == []


@pytest.mark.parametrize(
    ("request_line", "decision"),
    [
        ("CONNECT localhost:1 HTTP/1.1", ProxyDecision("localhost", 1, False)),
        ("CONNECT localhost:65535 HTTP/1.1", ProxyDecision("localhost", 65535, False)),
        ("CONNECT localhost:08080 HTTP/1.1", ProxyDecision("localhost", 8080, False)),
        ("CONNECT localhost HTTP/1.1", ProxyDecision("localhost", 443, False)),
        ("CONNECT [::1]:8 HTTP/1.1", ProxyDecision("[::1]", 8, False)),
        ("CONNECT [::1] HTTP/1.1", ProxyDecision("[::1]", 443, False)),
        ("CONNECT 127.0.0.1:65535 HTTP/1.1", ProxyDecision("127.0.0.1", 65535, False)),
        ("GET http://localhost/p HTTP/1.1", ProxyDecision("localhost", 80, False)),
        ("GET http://localhost:1/p HTTP/1.1", ProxyDecision("localhost", 1, False)),
        ("GET http://user:pw@localhost:8080/p HTTP/1.1", ProxyDecision("localhost", 8080, False)),
        ("GET http://[::ffff:127.0.0.1]/p HTTP/1.1", ProxyDecision("[::ffff:127.0.0.1]", 80, False)),
        ("ACL http://[::1]:65535/p HTTP/1.1", ProxyDecision("[::1]", 65535, False)),
    ],
)
def test_a_refusal_names_the_host_the_policy_was_asked_about(
    request_line: str, decision: ProxyDecision
) -> None:
    """The policy is asked about the host as a URL spells it (an IPv6 literal bracketed), and the
    port read (443 for a CONNECT without one, 80 for a URL without one) is recorded; refused, the
    answer is a 403 naming the host."""
    asked: list[str] = []

    def refuses(host: str) -> bool:
        asked.append(host)
        return False

    answer, proxy = _exchange(f"{request_line}\r\nHost: x\r\n\r\n".encode(), refuses)
    assert asked == [decision.host]
    assert proxy.decisions == [decision]
    assert answer == _refusal("403 Forbidden", f"blocked by the sandbox's network policy: {decision.host}")


def test_an_allowed_host_that_cannot_be_reached_is_named() -> None:
    """Allowed but with nothing listening, the answer is a 502 naming the address and the reason."""

    async def closed_port() -> int:
        server = await asyncio.start_server(lambda _r, w: w.close(), "127.0.0.1", 0)
        port: int = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        return port

    port = asyncio.run(closed_port())
    for request_line in (f"CONNECT 127.0.0.1:{port} HTTP/1.1", f"GET http://127.0.0.1:{port}/ HTTP/1.1"):
        answer, proxy = _exchange(f"{request_line}\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 502 Bad Gateway\r\n"), answer
        assert f"can't reach 127.0.0.1:{port}: ".encode() in answer, answer
        assert proxy.decisions == [ProxyDecision("127.0.0.1", port, True)]


@pytest.mark.parametrize(("where", "judged"), [(_HEAD_LIMIT, True), (_HEAD_LIMIT + 1, False)])
def test_a_head_over_the_limit_is_refused(where: int, judged: bool) -> None:
    """A head whose end starts at 64 KiB is read; one byte later it gets a 431, unjudged."""
    start = b"CONNECT localhost:443 HTTP/1.1\r\nX-Pad: "
    head = start + b"a" * (where - len(start)) + b"\r\n\r\n"
    assert head.index(b"\r\n\r\n") == where
    answer, proxy = _exchange(head, lambda _host: False)
    if judged:
        assert proxy.decisions == [ProxyDecision("localhost", 443, False)]
        assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    else:
        assert proxy.decisions == []
        assert answer == _refusal(
            "431 Request Header Fields Too Large", f"the request's head is over {_HEAD_LIMIT} bytes"
        )


def _through_upstream(request: Callable[[int], bytes], answer: bytes = b"") -> tuple[bytes, bytes]:
    """(what the upstream server received, what the client got) for one request through the proxy."""
    upstream = Upstream(answer=answer)
    got: list[bytes] = []

    async def body(_proxy: DomainProxy, path: str) -> None:
        server = await asyncio.start_server(upstream.serve, "127.0.0.1", 0)
        async with server:
            port = server.sockets[0].getsockname()[1]
            got.append(await _ask(path, request(port)))
            await upstream.ended.wait()

    asyncio.run(_with_proxy(lambda _host: True, body))
    return upstream.received[0], got[0]


@pytest.mark.parametrize(
    ("request_line", "forwarded_line"),
    [
        ("GET http://127.0.0.1:{port}/p?q=1&r=%20 HTTP/1.1", "GET /p?q=1&r=%20 HTTP/1.1"),
        ("GET http://127.0.0.1:{port} HTTP/1.1", "GET / HTTP/1.1"),
        ("GET http://127.0.0.1:{port}?q HTTP/1.0", "GET /?q HTTP/1.0"),
        ("BIND http://127.0.0.1:{port}/a/b HTTP/1.1", "BIND /a/b HTTP/1.1"),
        ("POST http://127.0.0.1:{port}/p? HTTP/1.1", "POST /p HTTP/1.1"),
    ],
)
def test_a_plain_request_is_forwarded_as_sent_without_proxy_headers(
    request_line: str, forwarded_line: str
) -> None:
    """The upstream gets the request line in origin form, every header but ``Proxy-*`` in order,
    then the body untouched; the client gets the upstream's answer."""
    headers = "Host: h\r\nProxy-Authorization: Basic c2VjcmV0\r\nX-A: 1\r\nPROXY-Connection: keep-alive\r\n"
    body = b"\r\nbody\r\n\r\n"
    received, got = _through_upstream(
        lambda port: (request_line.format(port=port) + "\r\n" + headers + "\r\n").encode() + body,
        answer=b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    )
    assert received == f"{forwarded_line}\r\nHost: h\r\nX-A: 1\r\n\r\n".encode() + body
    assert got == b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_a_tunnel_passes_bytes_and_the_half_close_both_ways() -> None:
    """After ``200 Connection Established`` the bytes pass unchanged; the client's EOF reaches the
    upstream while the upstream can still answer, and the upstream's close ends the client's read."""
    upstream = Upstream(answer=b"from upstream " * 2_000)
    got: list[bytes] = []

    async def body(_proxy: DomainProxy, path: str) -> None:
        server = await asyncio.start_server(upstream.serve, "127.0.0.1", 0)
        async with server:
            port = server.sockets[0].getsockname()[1]
            reader, writer = await asyncio.open_unix_connection(path)
            writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            writer.write(b"to upstream " * 2_000)
            await writer.drain()
            writer.write_eof()  # only after this may the upstream's read end
            got.append(await _read_all(reader))
            writer.close()

    asyncio.run(_with_proxy(lambda _host: True, body))
    assert got == [b"HTTP/1.1 200 Connection Established\r\n\r\n" + b"from upstream " * 2_000]
    assert upstream.received == [b"to upstream " * 2_000]


def test_closing_the_proxy_ends_the_tunnels_still_open() -> None:
    """A tunnel whose client and upstream both stay open is ended by ``close()``: the upstream
    sees its connection end, and the client too; the socket listens no more."""
    upstream = Upstream()
    client_saw: list[bytes] = []

    async def scenario() -> None:
        proxy = DomainProxy(lambda _host: True)
        with tempfile.TemporaryDirectory(prefix="proxy-test-") as private:
            path = str(Path(private) / "proxy.sock")
            await proxy.start(path)
            server = await asyncio.start_server(upstream.serve, "127.0.0.1", 0)
            async with server:
                port = server.sockets[0].getsockname()[1]
                reader, writer = await asyncio.open_unix_connection(path)
                writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
                await writer.drain()
                established = await reader.readuntil(b"\r\n\r\n")
                assert established == b"HTTP/1.1 200 Connection Established\r\n\r\n"
                await asyncio.wait_for(proxy.close(), _LIMIT)
                with pytest.raises(ConnectionRefusedError):  # nothing listens any more
                    await asyncio.open_unix_connection(path)
                await asyncio.wait_for(upstream.ended.wait(), _LIMIT)
                client_saw.append(await asyncio.wait_for(reader.read(), _LIMIT))
                writer.close()

    asyncio.run(scenario())
    assert upstream.received == [b""]
    assert client_saw == [b""]

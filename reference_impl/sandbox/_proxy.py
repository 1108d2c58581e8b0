"""The sandbox's network proxy: HTTP ``CONNECT`` and plain HTTP, outside the sandbox (SBX-3).

The sandboxed command has no network of its own (a fresh network namespace with only loopback).
Its one way out is this proxy, listening on a Unix socket that a bridge inside the sandbox (socat,
as in Claude Code) exposes as ``127.0.0.1:3128``; ``HTTP_PROXY`` / ``HTTPS_PROXY`` point there. Each
request names its host (the ``CONNECT`` target or the absolute URI); the proxy asks the policy and
either connects, or answers ``403`` naming the host. Every decision is recorded in :attr:`decisions`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit

__all__ = ["DomainProxy", "ProxyDecision"]

_HEAD_LIMIT = 64 * 1024
_CONNECT_TIMEOUT = 10.0
# A host (a bracketed IPv6 literal, or a name or IPv4 address without colons) and an optional port
# of ASCII digits: ``int`` would also read other scripts' digits.
_AUTHORITY = re.compile(r"(\[[^\]]*\]|[^\[\]:]*)(?::([0-9]{1,5}))?")


@dataclass(frozen=True, slots=True)
class ProxyDecision:
    """One request the proxy judged: the host and port asked for, and whether it went through."""

    host: str
    port: int
    allowed: bool


def _split_authority(authority: str, default_port: int) -> tuple[str, int] | None:
    """``host``, ``host:port`` or ``[address]:port`` as (host, port); None when it can't be read.

    An IPv6 literal keeps its brackets, as a URL spells it and as the policy reads it (bare, its
    colons would read as a port).
    """
    match = _AUTHORITY.fullmatch(authority)
    if match is None:
        return None
    host, port_text = match.groups()
    port = default_port if port_text is None else int(port_text)
    if host in ("", "[]") or not 0 < port < 65536:
        return None
    return host, port


def _absolute_url(target: str) -> SplitResult | None:
    """``target`` as an absolute ``http://`` URL with a host; None when it is anything else."""
    try:
        url = urlsplit(target)
    except ValueError:  # an unbalanced bracket in the host
        return None
    return url if url.scheme == "http" and url.netloc else None


@dataclass
class DomainProxy:
    """An asyncio proxy on a Unix socket that lets through only the hosts ``allows`` accepts."""

    allows: Callable[[str], bool]
    decisions: list[ProxyDecision] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self, socket_path: str) -> None:
        """Listen on ``socket_path`` (in the running loop)."""
        self._server = await asyncio.start_unix_server(self._serve, path=socket_path, limit=_HEAD_LIMIT)

    async def close(self) -> None:
        """Stop listening and end the open tunnels."""
        if self._server is not None:
            self._server.close()
        tunnels = list(self._tasks)
        for task in tunnels:
            task.cancel()
        await asyncio.gather(*tunnels, return_exceptions=True)  # their errors are theirs
        if self._server:
            await self._server.wait_closed()  # returns once closed: a server left listening holds here

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:  # close() ends what is still open
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client left: nobody to answer
        finally:
            writer.close()

    async def _refuse(self, writer: asyncio.StreamWriter, status: str, text: str) -> None:
        body = (text + "\n").encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            await self._refuse(
                writer,
                "431 Request Header Fields Too Large",
                f"the request's head is over {_HEAD_LIMIT} bytes",
            )
            return
        request_line, _, rest = head.decode("latin-1").partition("\r\n")
        parts = request_line.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            await self._refuse(writer, "400 Bad Request", "malformed request line")
            return
        method, target, version = parts
        if method == "CONNECT":
            where = _split_authority(target, 443)
            forward = b""
        else:
            url = _absolute_url(target)
            if url is None:
                await self._refuse(
                    writer, "400 Bad Request", "the proxy takes absolute http:// URLs or CONNECT"
                )
                return
            where = _split_authority(url.netloc.rpartition("@")[2], 80)
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            headers = [h for h in rest.split("\r\n") if h and not h.lower().startswith("proxy-")]
            lines = [f"{method} {path} {version}", *headers, "", ""]
            forward = "\r\n".join(lines).encode("latin-1")
        if where is None:
            await self._refuse(writer, "400 Bad Request", f"can't read the host of {target!r}")
            return
        host, port = where
        allowed = self.allows(host)
        self.decisions.append(ProxyDecision(host, port, allowed))
        if not allowed:
            await self._refuse(writer, "403 Forbidden", f"blocked by the sandbox's network policy: {host}")
            return
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection(host.strip("[]"), port), _CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as error:
            await self._refuse(writer, "502 Bad Gateway", f"can't reach {host}:{port}: {error}")
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            upstream_writer.write(forward)
        try:
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            upstream_writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()

"""Helpers of the sandbox tests (SBX-1..6): runs through the ``sandbox`` capability, local servers.

Every escape attempt runs twice, on two copies of the same layout: with the sandbox on it must
fail, and with the sandbox off the very same command must succeed, so each test shows that the
attempt was a real one (:func:`layout`, :func:`run`). The servers are real sockets on loopback
addresses and record what reached them, so a blocked connection is observed from outside.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from hypothesis import strategies as st

from pytest_toolharness.processes import ServingThread
from pytest_toolharness.specs import SETTINGS_PRECEDENCE, HostAnswer, HostSpec, SandboxOutcome, SandboxRun

FileSource = Literal["userSettings", "projectSettings", "localSettings", "flagSettings", "policySettings"]
EVERY_FILE = cast("tuple[FileSource, ...]", SETTINGS_PRECEDENCE)
"""Every settings file a session has, lowest precedence first (the harness's vocabulary: a later file's
value for a key wins)."""

ON: Mapping[str, Any] = {"sandbox": {"enabled": True}}
OFF: Mapping[str, Any] = {"sandbox": {"enabled": False}}


def missing_programs(*programs: str) -> str | None:
    """Why these tests can't run here: the first of ``programs`` that is not installed."""
    for program in programs:
        if shutil.which(program) is None:
            return f"{program} is not installed (the sandbox tests need bubblewrap, socat, curl and git)"
    return None


def skip_without(*programs: str) -> pytest.MarkDecorator:
    """Skip, naming the missing program, when one of ``programs`` is not installed."""
    problem = missing_programs(*programs)
    return pytest.mark.skipif(problem is not None, reason=problem or "")


def settings(*, sandbox: Mapping[str, Any] | None = None, **permissions: list[str]) -> dict[str, Any]:
    """A settings object: the sandbox on with ``sandbox`` added, and ``permissions`` lists."""
    result: dict[str, Any] = {"sandbox": {"enabled": True, **(sandbox or {})}}
    if permissions:
        result["permissions"] = dict(permissions)
    return result


def sandbox_off(with_settings: Mapping[str, Any]) -> dict[str, Any]:
    """The same settings with the sandbox turned off."""
    return {**with_settings, "sandbox": {**with_settings.get("sandbox", {}), "enabled": False}}


def allowing_host() -> HostSpec:
    """A host that allows whatever it is asked about, and records it."""
    return HostSpec()


def denying_host() -> HostSpec:
    """A host that denies whatever it is asked about, and records it."""
    return HostSpec(answer=lambda _name, _input: HostAnswer("deny"))


def run(
    harness: Any,
    command: str,
    workdir: Path,
    with_settings: Mapping[str, Any],
    *,
    host: HostSpec | None = None,
    disable_sandbox: bool = False,
    managed: Mapping[str, Any] | None = None,
    source: Literal["userSettings", "projectSettings", "localSettings"] = "localSettings",
    others: Sequence[tuple[FileSource, Mapping[str, Any]]] = (),
) -> SandboxOutcome:
    """One Bash call through the harness's ``sandbox`` capability.

    ``with_settings`` sit in the settings file of ``source``; ``others`` are the files of other
    sources, loaded after it in their order; ``managed`` are the managed settings.
    """
    spec = SandboxRun(
        command,
        workdir,
        with_settings,
        managed_settings=managed or {},
        disable_sandbox=disable_sandbox,
        host=host,
        settings_source=source,
        other_settings=tuple(others),
    )
    outcome: SandboxOutcome = asyncio.run(harness.run_sandboxed(spec))
    return outcome


def run_files(
    harness: Any,
    command: str,
    workdir: Path,
    files: Sequence[tuple[FileSource, Mapping[str, Any]]],
    *,
    host: HostSpec | None = None,
    disable_sandbox: bool = False,
) -> SandboxOutcome:
    """One Bash call with ``files``, one settings object per source, loaded in their order.

    The first file of the user, the project or the local settings leads (the capability's
    ``settings``); without one, an empty local file does.
    """
    lead = next((i for i, (source, _) in enumerate(files) if source in EVERY_FILE[:3]), None)
    first: tuple[FileSource, Mapping[str, Any]] = ("localSettings", {}) if lead is None else files[lead]
    others = [entry for i, entry in enumerate(files) if i != lead]
    source = cast(Literal["userSettings", "projectSettings", "localSettings"], first[0])
    return run(
        harness,
        command,
        workdir,
        first[1],
        host=host,
        disable_sandbox=disable_sandbox,
        source=source,
        others=others,
    )


def winner(placed: Mapping[FileSource, Any]) -> Any:
    """The value of the highest-precedence file among ``placed`` (None when no file sets it).

    The documented rule: the files merge from the lowest precedence to the highest (user, project,
    local, ``--settings``, managed), and a scalar set by a later file wins.
    """
    return placed[max(placed, key=EVERY_FILE.index)] if placed else None


@st.composite
def sandbox_layers(
    draw: st.DrawFn,
    values: Mapping[str, bool | None],
    lists: Mapping[str, Sequence[str]] | None = None,
    managed: Mapping[str, Any] | None = None,
) -> list[tuple[FileSource, dict[str, Any]]]:
    """The ``sandbox`` objects of several settings files, in a drawn order, that merge to ``values``.

    Each boolean key that is set (not None) is written in 1-4 drawn files: its value in the
    highest-precedence one, the opposite in every lower one (a repository or a user saying the
    opposite of the administrator, a local file the opposite of the project's); a None key is in no
    file. Each entry of ``lists`` sits in a drawn file (lists are joined across files). ``managed``
    (``bwrapPath``, which counts only there) is added to the managed file.
    """
    layers: dict[FileSource, dict[str, Any]] = {}
    for key, value in values.items():
        if value is None:
            continue
        sources = draw(st.lists(st.sampled_from(EVERY_FILE), min_size=1, max_size=4, unique=True))
        top = max(sources, key=EVERY_FILE.index)
        for source in sources:
            layers.setdefault(source, {})[key] = value if source == top else not value
    for key, entries in (lists or {}).items():
        for entry in entries:
            layers.setdefault(draw(st.sampled_from(EVERY_FILE)), {}).setdefault(key, []).append(entry)
    if managed:
        layers.setdefault("policySettings", {}).update(managed)
    return draw(st.permutations(list(layers.items())))


@dataclass(frozen=True)
class Layout:
    """A working directory and a sibling directory outside it, with a file already there."""

    root: Path
    work: Path
    outside: Path

    @property
    def existing(self) -> Path:
        """A file outside the working directory, present before the command."""
        return self.outside / "existing.txt"


def layout(base: Path, *, git: bool = False) -> Layout:
    """A fresh layout under ``base``: ``work/`` (a git repository when ``git``) and ``outside/``."""
    work, outside = base / "work", base / "outside"
    work.mkdir(parents=True)
    outside.mkdir()
    (outside / "existing.txt").write_text("original\n")
    if git:
        subprocess.run(["git", "init", "-q", str(work)], check=True)
    return Layout(base, work, outside)


@dataclass(frozen=True)
class HttpRequest:
    """An HTTP request as sent or received: method, target (path and query), headers in order, body."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


@dataclass
class Hits:
    """What reached a server: one entry per request (the path) or datagram; HTTP requests whole.

    ``in`` settles first (``settle``): a request a command sent just before it ended may still be
    in the server's queue, and must count, or an escape goes unseen and a real attempt looks failed.
    """

    seen: list[str] = field(default_factory=list)
    requests: list[HttpRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    settle: Callable[[], None] = lambda: None

    def add(self, what: str, request: HttpRequest | None = None) -> None:
        """Record one arrival (and the whole request, for an HTTP server)."""
        with self.lock:
            self.seen.append(what)
            if request is not None:
                self.requests.append(request)

    def arrived(self) -> list[HttpRequest]:
        """The whole HTTP requests that arrived so far, after settling."""
        self.settle()
        with self.lock:
            return list(self.requests)

    def __contains__(self, what: object) -> bool:
        self.settle()
        with self.lock:
            return what in self.seen


def _family(address: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def _address_usable(address: str) -> bool:
    try:
        with socket.socket(_family(address)) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


_SETTLE_PATH = "/.toolharness-settle"
_SETTLE_TIMEOUT_S = 5.0


class _CountingServer(ThreadingHTTPServer):
    """Counts the connections it accepted and those whose handling ended, for :func:`http_server`'s settling."""

    request_queue_size = 128  # socketserver's 5 makes a burst of connections wait seconds for a retried SYN

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.counts = threading.Condition()
        self.accepted = self.ended = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.counts:
            self.accepted += 1
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        with self.counts:
            self.ended += 1
            self.counts.notify_all()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that sent and left at once
            super().handle_error(request, client_address)

    def settle(self) -> None:
        """Return once every connection made before this call has been handled (or after a timeout).

        The listen queue is first in, first out: once a connection of its own has been answered,
        every earlier one has been accepted, and waiting until as many have ended as were accepted
        covers their handlers.
        """
        host, port = self.server_address[:2]
        with socket.create_connection((str(host), port), _SETTLE_TIMEOUT_S) as connection:
            connection.sendall(f"GET {_SETTLE_PATH} HTTP/1.0\r\n\r\n".encode())
            while connection.recv(4096):
                pass
        with self.counts:
            self.counts.wait_for(lambda: self.ended >= self.accepted, _SETTLE_TIMEOUT_S)


class _CountingServer6(_CountingServer):
    address_family = socket.AF_INET6


@contextmanager
def http_server(address: str = "127.0.0.1", *, close_delimited: bool = False) -> Iterator[tuple[int, Hits]]:
    """A real HTTP server on ``address`` (IPv4 or IPv6): its port and what it was asked for.

    It answers any method; ``hits`` holds the paths, and the whole requests. A ``close_delimited``
    answer has no length: closing the connection ends it, as HTTP/1.0 allows.
    """
    if not _address_usable(address):
        pytest.skip(f"the loopback address {address} can't be bound here")
    hits = Hits()

    class Handler(BaseHTTPRequestHandler):
        timeout = _SETTLE_TIMEOUT_S  # a connection that never sends a request does not hold settling up

        def __getattr__(self, name: str) -> Callable[[], None]:
            # ``do_<METHOD>`` for every method, extension methods (WebDAV's ``BIND``) included.
            if name.startswith("do_"):
                return self._answer
            raise AttributeError(name)

        def _answer(self) -> None:
            if self.path != _SETTLE_PATH:
                length = int(self.headers.get("Content-Length") or 0)
                request = HttpRequest(
                    self.command, self.path, tuple(self.headers.items()), self.rfile.read(length)
                )
                hits.add(self.path, request)
            body = b"reached\n"
            self.send_response(200)
            if not close_delimited:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = (_CountingServer6 if ":" in address else _CountingServer)((address, 0), Handler)
    hits.settle = server.settle
    serving = ServingThread(server, "SandboxTestServer")
    serving.start()
    try:
        yield server.server_address[1], hits
    finally:
        with contextlib.suppress(OSError):
            server.settle()  # what arrived before the block ended counts in checks after it
        hits.settle = lambda: None
        serving.stop()
        server.server_close()


@contextmanager
def udp_server(address: str = "127.0.0.1") -> Iterator[tuple[int, Any]]:
    """A UDP socket (a local DNS resolver's place): its port and ``received()``, the datagrams so far.

    A datagram sent on loopback is in the socket's buffer when ``sendto`` returns, so draining the
    buffer after the command ended sees everything the command sent.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((address, 0))
    sock.setblocking(False)
    got: list[bytes] = []

    def received() -> list[bytes]:
        while True:
            try:
                got.append(sock.recv(4096))
            except BlockingIOError:
                return list(got)

    try:
        yield sock.getsockname()[1], received
    finally:
        sock.close()


def dns_query(name: str) -> bytes:
    """A DNS query for ``name`` (type A, recursion desired), as a resolver gets it."""
    header = bytes.fromhex("abcd01000001000000000000")
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return header + labels + b"\x00\x00\x01\x00\x01"

"""A scripted model API server on 127.0.0.1: a test double that speaks real HTTP.

``ScriptedApiServer(script)`` listens on an ephemeral loopback port in a background thread and
answers ``POST /v1/messages`` (with or without ``?beta=true``) with the script's assistant turns,
as JSON or, for ``"stream": true``, as server-sent events exactly framed like the API's. Any client
can be pointed at :attr:`ScriptedApiServer.base_url`: the ``anthropic`` SDK, or a harness in another
language through ``ANTHROPIC_BASE_URL``.

Every request is recorded (:class:`~pytest_toolharness.wire.model_api._recording.RecordedRequest`).
A request the API would reject
(:func:`~pytest_toolharness.wire.model_api._messages_validation.validate_messages_request`) gets the
API's 400 error body and consumes no scripted turn. A request with the message-threads beta's ``thread``
field is taken as the whole conversation it stands for
(:class:`~pytest_toolharness.wire.model_api._messages_threads.ThreadStore`). ``POST /v1/messages/count_tokens`` answers with a deterministic
estimate, :func:`~pytest_toolharness.wire.model_api._messages.estimate_tokens`, unless the server is given its own counter. A script callable
that raises gets a 500 ``api_error`` answer, recorded with its traceback; the server keeps serving.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, urlsplit

from pytest_toolharness.processes import ServingThread
from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._chat import ChatCompletionsDialect
from pytest_toolharness.wire.model_api._encoding import wire_bytes
from pytest_toolharness.wire.model_api._gemini import GeminiDialect
from pytest_toolharness.wire.model_api._messages import (
    COUNT_TOKENS_PATH,
    MESSAGES_PATH,
    TokenCounter,
    estimate_tokens,
    turn_answer,
)
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS, OVERLOADED
from pytest_toolharness.wire.model_api._messages_threads import ThreadStore
from pytest_toolharness.wire.model_api._messages_validation import (
    validate_count_tokens_request,
    validate_messages_request,
)
from pytest_toolharness.wire.model_api._messages_view import view_as_messages_body
from pytest_toolharness.wire.model_api._recording import RecordedRequest, parse_json_body
from pytest_toolharness.wire.model_api._responses import ResponsesDialect
from pytest_toolharness.wire.model_api._script import Script, ScriptSource

__all__ = ["LOOPBACK_HOST", "ScriptedApiServer"]

LOOPBACK_HOST = "127.0.0.1"
"""The only address the server ever binds."""

_Dialect = ChatCompletionsDialect | GeminiDialect | ResponsesDialect


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    body: bytes = b""
    events: tuple[bytes, ...] | None = None  # SSE events, sent chunked
    # Our own errors are deterministic, so they tell the client not to retry (x-should-retry: false);
    # scripted errors leave the retry decision to the client under test.
    no_retry: bool = False


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedApiServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when the client went away mid-answer; print anything else as usual."""
        # The request was recorded before the answer was sent, and a client under test may abort
        # (a cancelled stream, a killed process): that is not a server error worth a traceback.
        if isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, each answer waits for a delayed ACK.
    disable_nagle_algorithm = True
    server: _HttpServer
    # Idle keep-alive connections give up eventually instead of pinning a thread forever.
    timeout = 60

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean; requests are recorded instead."""

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    # Skip trailers up to the blank line.
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        return self.rfile.read(length)

    def _handle(self) -> None:
        owner = self.server.owner
        split = urlsplit(self.path)
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        try:
            body = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            body = b""
            body_error: ApiError | None = ApiError("The request body could not be read (bad framing).")
        else:
            body_error = None
        request = RecordedRequest(
            index=owner._reserve_index(),
            method=self.command,
            path=split.path,
            query=dict(parse_qsl(split.query, keep_blank_values=True)),
            headers=headers,
            body=body,
            json=parse_json_body(body),
        )
        if body_error is not None:
            request, response = owner._error(request, body_error)
        else:
            request, response = owner._answer(request)
        # Record before sending: a client that got the answer must find the request recorded.
        owner._record(request)
        self._send(response, request_id=owner._request_id(request.index))

    def _send(self, response: _Response, *, request_id: str) -> None:
        self.send_response(response.status)
        self.send_header("request-id", request_id)
        if response.events is None:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(response.body)))
            if response.no_retry:
                self.send_header("x-should-retry", "false")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)
            return
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in response.events:
            self.wfile.write(f"{len(event):X}\r\n".encode("ascii") + event + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


class ScriptedApiServer:
    """The scripted Messages API on ``http://127.0.0.1:<ephemeral port>``.

    Use it as a context manager (``with ScriptedApiServer(script) as server: server.base_url``) or
    call :meth:`start` and :meth:`stop`. ``script`` is a sequence of :class:`AssistantTurn` (or
    :class:`ApiError` answers), a callable ``(RecordedRequest) -> AssistantTurn``, or a
    :class:`Script`. ``token_counter`` replaces :func:`estimate_tokens` for count_tokens answers and
    usage. ``validate=False`` answers even requests the API would reject. ``chunks`` is how many
    deltas each streamed block is cut into; ``ping`` sends a ``ping`` event in each stream.
    """

    def __init__(
        self,
        script: ScriptSource | Script = (),
        *,
        token_counter: TokenCounter | None = None,
        validate: bool = True,
        ping: bool = True,
        chunks: int = DEFAULT_CHUNKS,
        id_prefix: str = "01Scripted",
    ) -> None:
        if chunks < 1:
            raise ValueError(f"chunks must be >= 1, got {chunks}")
        self.script = script if isinstance(script, Script) else Script(script)
        self._token_counter = token_counter or estimate_tokens
        self._validate = validate
        self._ping = ping
        self._chunks = chunks
        self._id_prefix = id_prefix
        self._condition = threading.Condition()
        self._records: list[RecordedRequest] = []
        self._next_index = 0
        self._connections: set[socket.socket] = set()
        self._httpd: _HttpServer | None = None
        self._serving: ServingThread | None = None
        self._stopped = False
        self._threads = ThreadStore()
        # One set per server: the Responses dialect keeps the responses this server answered.
        self._dialects: tuple[_Dialect, ...] = (ChatCompletionsDialect(), GeminiDialect(), ResponsesDialect())

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind 127.0.0.1 on an ephemeral port and serve in a daemon thread."""
        if self._httpd is not None or self._stopped:
            raise RuntimeError("ScriptedApiServer.start() called twice; a server runs once")
        httpd = _HttpServer((LOOPBACK_HOST, 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._serving = ServingThread(httpd, "ScriptedApiServer")
        self._serving.start()
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and join the thread (idempotent)."""
        if self._httpd is None or self._stopped:
            self._stopped = True
            return
        self._stopped = True
        if self._serving is not None:
            self._serving.stop()
        with self._condition:
            connections = list(self._connections)
        for connection in connections:
            # Wakes handler threads blocked reading a kept-alive connection.
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port."""
        if self._httpd is None:
            raise RuntimeError("the server is not started; call start() or use it as a context manager")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: pass it as ``base_url`` or ``ANTHROPIC_BASE_URL``."""
        return f"http://{LOOPBACK_HOST}:{self.port}"

    # -- recording ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request answered so far, in arrival order."""
        with self._condition:
            return sorted(self._records, key=lambda r: r.index)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/messages`` requests (any query), in arrival order."""
        return [r for r in self.requests if r.is_messages]

    @property
    def script_exhausted(self) -> bool:
        """True once a fixed script ran out and a request got the ``"Done."`` turn."""
        return self.script.exhausted

    @property
    def script_errors(self) -> list[str]:
        """Tracebacks of script callables (or counters) that raised, in arrival order."""
        return [r.traceback for r in self.requests if r.traceback is not None]

    def wait_for_requests(
        self, count: int, *, timeout: float = 10.0, messages_only: bool = False
    ) -> list[RecordedRequest]:
        """Block until ``count`` requests (only ``/v1/messages`` ones if ``messages_only``) are recorded.

        Returns the recorded requests of that kind; raises :class:`TimeoutError` naming how many
        arrived when ``timeout`` seconds pass first.
        """

        def matching() -> list[RecordedRequest]:
            records = sorted(self._records, key=lambda r: r.index)
            return [r for r in records if r.is_messages] if messages_only else records

        with self._condition:
            if not self._condition.wait_for(lambda: len(matching()) >= count, timeout=timeout):
                kind = "/v1/messages requests" if messages_only else "requests"
                raise TimeoutError(f"waited {timeout}s for {count} {kind}, got {len(matching())}")
            return matching()

    def _reserve_index(self) -> int:
        with self._condition:
            index = self._next_index
            self._next_index += 1
            return index

    def _record(self, request: RecordedRequest) -> None:
        with self._condition:
            self._records.append(request)
            self._condition.notify_all()

    def _track(self, connection: socket.socket, *, add: bool) -> None:
        with self._condition:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    # -- answering ---------------------------------------------------------------------------

    def _request_id(self, index: int) -> str:
        return f"req_{self._id_prefix}{index:012d}"

    def _error(
        self, request: RecordedRequest, error: ApiError, tb: str | None = None, *, scripted: bool = False
    ) -> tuple[RecordedRequest, _Response]:
        body = wire_bytes(error.body(self._request_id(request.index)))
        response = _Response(error.status, body, no_retry=not scripted)
        return replace(request, status=error.status, error=error, traceback=tb), response

    def _answer(self, request: RecordedRequest) -> tuple[RecordedRequest, _Response]:
        try:
            dialect = next((d for d in self._dialects if d.answers(request.method, request.path)), None)
            if dialect is not None:
                return self._dialect_answer(request, dialect)
            if request.path not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
                return self._error(
                    request,
                    ApiError(
                        f"Not found: {request.method} {request.path}", type="not_found_error", status=404
                    ),
                )
            if request.method != "POST":
                return self._error(
                    request,
                    ApiError(f"Method {request.method} not allowed on {request.path}", status=405),
                )
            body = request.json
            if not isinstance(body, Mapping):
                return self._error(request, ApiError("The request body is not a valid JSON object."))
            if request.path == COUNT_TOKENS_PATH:
                return self._count_tokens(request, body)
            return self._messages(request, body)
        except Exception as exc:
            # A crashing script or counter must not kill the server: answer and keep the traceback.
            error = ApiError(f"The script raised {type(exc).__name__}: {exc}", type="api_error", status=500)
            return self._error(request, error, traceback.format_exc())

    def _dialect_answer(
        self, request: RecordedRequest, dialect: _Dialect
    ) -> tuple[RecordedRequest, _Response]:
        def error(item: ApiError, *, scripted: bool = False) -> tuple[RecordedRequest, _Response]:
            body = wire_bytes(dialect.error_body(item, self._request_id(request.index)))
            return replace(request, status=item.status, error=item), _Response(
                item.status, body, no_retry=not scripted
            )

        body = request.json
        if not isinstance(body, Mapping):
            return error(ApiError("The request body is not a valid JSON object."))
        if isinstance(dialect, GeminiDialect) and dialect.counts_tokens(request.path):
            return replace(request, status=200), _Response(
                200, dialect.count_answer(self._token_counter(body))
            )
        # The suite's checks and scripts read every API's model request in the Messages shape.
        request = replace(request, view=view_as_messages_body(dialect.neutral_request(body), body))
        invalid = dialect.validate(body, request.path) if self._validate else None
        if invalid is not None:
            return error(invalid)
        item, exhausted = self.script.next_item(request)
        request = replace(request, script_exhausted=exhausted)
        if isinstance(item, ApiError):
            return error(item, scripted=True)
        if item.fault is not None:  # fail closed: answering whole would hide that the fault was not sent
            raise TypeError(f"a StreamFault is sent on the Messages API's stream only, not on {request.path}")
        answer = dialect.answer(
            item,
            body,
            index=request.index,
            id_prefix=self._id_prefix,
            prompt_tokens=self._token_counter(body),
            chunks=self._chunks,
            path=request.path,
        )
        request = replace(request, status=200, turn=item)
        if isinstance(answer, tuple):
            return request, _Response(200, events=answer)
        return request, _Response(200, answer)

    def _count_tokens(
        self, request: RecordedRequest, body: Mapping[str, Any]
    ) -> tuple[RecordedRequest, _Response]:
        error = validate_count_tokens_request(body) if self._validate else None
        if error is not None:
            return self._error(request, error)
        tokens = self._token_counter(body)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise TypeError(f"the token counter returned {tokens!r}, not a non-negative int")
        return replace(request, status=200), _Response(200, wire_bytes({"input_tokens": tokens}))

    def _messages(
        self, request: RecordedRequest, body: Mapping[str, Any]
    ) -> tuple[RecordedRequest, _Response]:
        whole, error = self._threads.resolve(body, request.beta_headers)
        if error is not None:
            return self._error(request, error)
        request = replace(request, resolved=whole)
        error = validate_messages_request(whole or body) if self._validate else None
        if error is not None:
            return self._error(request, error)
        item, exhausted = self.script.next_item(request)
        request = replace(request, script_exhausted=exhausted)
        if isinstance(item, ApiError):
            return self._error(request, item, scripted=True)
        if item.fault is not None and not request.stream:  # a whole answer can't break mid-turn: overloaded
            overloaded = ApiError(OVERLOADED["message"], type=OVERLOADED["type"], status=529)
            return self._error(replace(request, turn=item), overloaded, scripted=True)
        model = str(body.get("model", ""))
        message_id = f"msg_{self._id_prefix}{request.index:012d}"
        input_tokens = self._token_counter(whole or body)
        if whole is not None:
            self._threads.hold(body, whole, message_id, item.content())
        request = replace(request, status=200, turn=item)
        answer = turn_answer(
            item,
            stream=request.stream,
            message_id=message_id,
            model=model,
            input_tokens=input_tokens,
            ping=self._ping,
            chunks=self._chunks,
        )
        if isinstance(answer, tuple):
            return request, _Response(200, events=answer)
        return request, _Response(200, answer)

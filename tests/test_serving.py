"""``ServingThread``: a socket server served in a thread, stopped through a pipe instead of polling."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pytest_toolharness.processes._serving import ServingThread


def _server(release: threading.Event | None = None) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if release is not None:
                release.wait(10)
            body = self.path.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    return server


def _get(server: ThreadingHTTPServer, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().read()
    finally:
        connection.close()


def test_serves_requests_until_stopped_then_refuses() -> None:
    server = _server()
    serving = ServingThread(server, "test-server")
    serving.start()
    assert [_get(server, f"/{i}") for i in range(3)] == [b"/0", b"/1", b"/2"]
    serving.stop()
    server.server_close()
    with pytest.raises(ConnectionRefusedError):
        _get(server, "/after")
    serving.stop()  # idempotent


def test_stop_never_started_and_stop_twice() -> None:
    server = _server()
    serving = ServingThread(server, "never-started")
    serving.stop()
    serving.stop()
    server.server_close()


def test_a_request_in_flight_finishes_after_stop() -> None:
    release = threading.Event()
    server = _server(release)
    serving = ServingThread(server, "in-flight")
    serving.start()
    answers: list[bytes] = []
    client = threading.Thread(target=lambda: answers.append(_get(server, "/slow")))
    client.start()
    while not any(
        t.name.startswith("Thread") and t.is_alive() for t in threading.enumerate() if t is not client
    ):
        threading.Event().wait(0.01)  # the handler thread has started
    serving.stop()
    release.set()
    client.join(10)
    server.server_close()
    assert answers == [b"/slow"]


def test_keeps_a_timeout_the_server_sets_and_bounds_one_that_is_missing() -> None:
    bounded = _server()
    kept = _server()
    kept.timeout = 7.0
    servings = [ServingThread(bounded, "bounded"), ServingThread(kept, "kept")]
    assert bounded.timeout is not None
    assert bounded.timeout > 0
    assert kept.timeout == 7.0
    for serving in servings:
        serving.stop()
        serving.server.server_close()

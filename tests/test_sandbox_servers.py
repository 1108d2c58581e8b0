"""The sandbox tests' recording HTTP server: a request counts even when its sender left at once.

The sandbox tests check ``"/x" in hits`` the moment a command ends; a request still in the
listen queue then must be seen, both for "the unsandboxed attempt connects" (else a flaky
failure) and for "the sandboxed one never arrives" (else an escape goes unseen).
"""

from __future__ import annotations

import socket
import subprocess
import sys

from conformance._sandbox_runs import http_server


def _send_and_leave(port: int, path: str) -> None:
    # A separate process that sends one request and exits without reading the answer.
    code = (
        "import socket, sys; s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), 5);"
        " s.sendall(('GET ' + sys.argv[2] + ' HTTP/1.0\\r\\n\\r\\n').encode())"
    )
    subprocess.run([sys.executable, "-I", "-S", "-c", code, str(port), path], check=True, timeout=30)


def test_a_request_whose_sender_already_exited_is_seen_at_once() -> None:
    with http_server() as (port, hits):
        for attempt in range(8):
            _send_and_leave(port, f"/x{attempt}")
            assert f"/x{attempt}" in hits
        assert "/never" not in hits


def _burst(port: int, prefix: str, count: int) -> list[str]:
    # Faster than the server accepts: most are still queued when the last one is sent.
    paths = [f"/{prefix}{number}" for number in range(count)]
    for path in paths:
        with socket.create_connection(("127.0.0.1", port), 5) as connection:
            connection.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
    return paths


def test_a_burst_of_requests_is_all_seen_at_once() -> None:
    with http_server() as (port, hits):
        paths = _burst(port, "burst", 60)
        assert paths[-1] in hits
        assert sorted(hits.seen) == sorted(paths), "the server's own settling request counted"


def test_requests_made_inside_the_block_count_after_it() -> None:
    with http_server() as (port, hits):
        paths = _burst(port, "late", 60)
    assert sorted(hits.seen) == sorted(paths)

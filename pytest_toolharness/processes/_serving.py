"""A socket server served in a thread until stopped, without polling.

``serve_forever(poll_interval)`` wakes every interval to look for a shutdown request: a short
interval costs CPU and GIL switches for as long as the server lives (about 2% of a core at 5 ms),
a long one delays every stop by up to the interval. Here the loop sleeps in one ``select`` on the
listening socket and a pipe, and :meth:`ServingThread.stop` writes to the pipe: no wakeups while
idle, and a stop that returns at once.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socketserver
import threading

__all__ = ["ServingThread"]

# handle_request() waits this long at most when the socket turned out not to be readable after all.
_HANDLE_TIMEOUT_S = 1.0


class ServingThread:
    """Serves ``server`` in a daemon thread from :meth:`start` until :meth:`stop`."""

    def __init__(self, server: socketserver.TCPServer, name: str) -> None:
        self.server = server
        if server.timeout is None:
            server.timeout = _HANDLE_TIMEOUT_S
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._stopped = False

    def start(self) -> None:
        """Start serving (once)."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and join the thread (idempotent). Requests being handled go on in their threads."""
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        if self._thread.ident is not None:
            self._thread.join()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.server, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj == self._wake_r for key, _ in ready):
                    return
                self.server.handle_request()
                self.server.service_actions()

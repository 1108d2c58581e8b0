"""Command lines for ``python -m MODULE``, started through this process's fork server when it can be.

:func:`python_module_command` is how the suite writes the commands of its own Python processes: the
reference harness (``ReferenceTarget``) and the suite's MCP tool server (the ``--mcp-config`` it
writes). With the fork server (:mod:`pytest_toolharness.processes._forkserver`, started on first use, one
per process, ended with it) the command is its requester, which has a forked child of the
server run the module: a fresh process that does not import the module's dependencies again.
Without it (``TOOLHARNESS_FORK_SERVER=0``, not Linux, or the server could not start) the command is
plain ``python -m MODULE ARGS``. Either command runs anywhere: the requester becomes the plain
command when there is no server to ask.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FORK_SERVER_ENV",
    "HOOK_PYTHON",
    "SOCKET_ENV",
    "fork_server_running",
    "prestart_fork_server",
    "python_interpreter_command",
    "python_module_command",
    "release_prestarted_fork_server",
    "share_fork_server",
]

HOOK_PYTHON = f"{shlex.quote(sys.executable)} -I -S"
"""The shell words that run a hook program: this interpreter, isolated (``-I``), without ``site`` (``-S``).

A hook program needs only the standard library. Without ``site`` and the caller's ``PYTHON*``
variables each of the suite's many hook runs starts about a third sooner, the same in any environment.
"""

#: Set to ``0`` to start every Python process of the suite with plain ``python -m``.
FORK_SERVER_ENV = "TOOLHARNESS_FORK_SERVER"

#: The socket of a server a parent process shares (the xdist controller's, for its workers).
SOCKET_ENV = "TOOLHARNESS_FORK_SERVER_SOCKET"

_SCRIPT = Path(__file__).with_name("_forkserver.py")
# A Unix socket's path is limited to about 108 bytes.
_MAX_SOCKET_PATH = 100
_START_TIMEOUT_S = 30.0

# The variables the server starts with: those a target gets from the suite (base_environment), so
# that its PYTHON* variables, which the server compares, are the targets' own.
_SERVER_ENV = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TMPDIR")


@dataclass
class _Server:
    process: subprocess.Popen[bytes]
    folder: Path
    socket_path: str


_lock = threading.Lock()
_state: dict[str, _Server | None] = {}


def _wanted() -> bool:
    return (
        os.environ.get(FORK_SERVER_ENV, "1") != "0"
        and sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and hasattr(__import__("socket"), "send_fds")
    )


def _socket_folder(within: Path | None) -> Path | None:
    for parent in (within, None, "/tmp"):
        folder = Path(tempfile.mkdtemp(prefix="thfs-", dir=parent))
        if len(str(folder / "s")) <= _MAX_SOCKET_PATH:
            return folder
        shutil.rmtree(folder, ignore_errors=True)
    return None


def _start(within: Path | None = None, preload: Sequence[str] = ()) -> _Server | None:
    folder = _socket_folder(within)
    if folder is None:
        return None
    socket_path = str(folder / "s")
    env = {name: os.environ[name] for name in _SERVER_ENV if name in os.environ}
    try:
        process = subprocess.Popen(
            [sys.executable, str(_SCRIPT), "serve", socket_path, ",".join(preload) or "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            # This process's directory: what a preloaded module reads at import (Hypothesis's
            # example database directory, say) is what the process it forks for would have read.
            cwd=os.getcwd(),
            env=env,
            start_new_session=True,  # a Ctrl-C meant for pytest doesn't reach it; its stdin closing ends it
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    server = _Server(process, folder, socket_path)
    atexit.register(_stop, server)
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not os.path.exists(socket_path):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(server)
            return None
        time.sleep(0.005)
    return server


def _stop(server: _Server) -> None:
    if server.process.stdin is not None:
        with contextlib.suppress(OSError):
            server.process.stdin.close()
    try:
        server.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    shutil.rmtree(server.folder, ignore_errors=True)


def _server() -> _Server | None:
    with _lock:
        if "server" not in _state:
            _state["server"] = _start()
        server = _state["server"]
        if server is not None and server.process.poll() is not None:
            _state["server"] = server = None  # it died: plain commands from now on
        return server


def _socket() -> str | None:
    if not _wanted():
        return None
    shared = os.environ.get(SOCKET_ENV)
    if shared:
        return shared if os.path.exists(shared) else None  # the sharing process's server is gone
    server = _server()
    return server.socket_path if server is not None else None


def prestart_fork_server(preload: Sequence[str]) -> None:
    """Start this process's server now, importing ``preload``, before it is known to be needed.

    For the xdist controller at plugin registration: the server's imports then overlap pytest's own
    start-up. :func:`share_fork_server` takes it over (its socket stays in a folder of its own);
    :func:`release_prestarted_fork_server` stops it if nobody did.
    """
    if not _wanted() or os.environ.get(SOCKET_ENV):
        return
    with _lock:
        if "server" not in _state:
            _state["server"] = _start(None, preload)
            _state["prestarted"] = _state["server"]


def release_prestarted_fork_server() -> None:
    """Stop the server :func:`prestart_fork_server` started, unless it is shared (or gone already)."""
    with _lock:
        prestarted = _state.pop("prestarted", None)
        if prestarted is None or os.environ.get(SOCKET_ENV) == prestarted.socket_path:
            return
        if _state.get("server") is prestarted:
            del _state["server"]
    _stop(prestarted)


def share_fork_server(within: Path, preload: Sequence[str] = ()) -> Callable[[], None] | None:
    """Start this process's server now, its socket in ``within``, and name it to the subprocesses.

    The xdist controller calls it before starting its workers: they (and what they start) then use
    the one server, which imports the harness's modules once for all of them. The server imports
    ``preload`` (what the workers' requests will name) as soon as it listens, while the controller
    goes on starting up. Returns the function that stops it (None when there is no server).
    """
    if not _wanted() or os.environ.get(SOCKET_ENV):
        return None
    with _lock:
        if "server" not in _state:
            _state["server"] = _start(within, preload)
        server = _state["server"]
    if server is None:
        return None
    os.environ[SOCKET_ENV] = server.socket_path

    def stop() -> None:
        os.environ.pop(SOCKET_ENV, None)
        _stop(server)

    return stop


def fork_server_running() -> bool:
    """Whether :func:`python_module_command` gives fork-server commands (starting the server if need be)."""
    return _socket() is not None


def python_module_command(module: str, args: Sequence[str], preload: Sequence[str] = ()) -> list[str]:
    """The argv that runs ``python -m module *args`` as a fresh process.

    ``preload``: modules the fork server imports before it forks: the module's heavy dependencies,
    including ones it imports only when it needs them. Not the module itself when it is not a package:
    ``runpy`` warns when the module it runs as ``__main__`` was imported already.
    """
    socket_path = _socket()
    if socket_path is None:
        return [sys.executable, "-m", module, *args]
    modules = ",".join(preload) or "-"
    # -I -S: the requester needs only the standard library, and starts in milliseconds without site.
    return [sys.executable, "-I", "-S", str(_SCRIPT), "run", socket_path, modules, module, *args]


def python_interpreter_command(preload: Sequence[str] = ()) -> list[str] | None:
    """A command that stands for ``python`` where the caller appends ``[-u] [-B] -c CODE``: a forked child.

    For xdist's ``popen//python=...``: the worker is a child of the fork server with ``preload``
    imported, not a fresh interpreter that imports them again. The request is exclusive (see
    :mod:`pytest_toolharness.processes._forkserver`), so list third-party modules only: what pytest
    rewrites (the suite, its plugins) must be imported by the worker itself. None without a server.
    """
    socket_path = _socket()
    if socket_path is None:
        return None
    modules = ",".join(preload) or "-"
    return [sys.executable, "-I", "-S", str(_SCRIPT), "python", socket_path, modules]

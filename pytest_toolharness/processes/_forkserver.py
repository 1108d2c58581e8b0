"""A fork server: ``python -m MODULE ARGS`` as a fresh process, without paying MODULE's imports each time.

The reference harness imports the anthropic SDK and ``mcp`` (about 2 s of CPU) every time it starts,
and the suite's MCP tool server ``mcp`` and pytest; a scenario run starts both. This file, run by
path with the interpreter (it imports only the standard library, so it starts in milliseconds), has
two modes:

- ``serve SOCKET [PRELOAD]``: the server, one per pytest process that runs wire scenarios
  (:mod:`pytest_toolharness.processes._launch` starts it). It listens on the Unix socket SOCKET, imports
  PRELOAD (comma-separated module names, for the requests it expects first) and ends when its stdin
  closes (the process that started it went away). A request names a module, its
  arguments, working directory and environment, and modules to import first, and passes the
  requester's stdin, stdout and stderr. The server imports those modules once, in itself, then
  forks; the child becomes the program as ``python -m`` would start it: a session and process group
  of its own, the three descriptors, the directory and environment, ``sys.argv`` and
  ``sys.path[0]``. The server answers the child's pid, later its exit status. When the child exits
  it kills whatever is left of the child's process group (as ``run_target`` does for a command);
  when the requester goes away first (killed on timeout) it kills the whole group.
- ``run SOCKET PRELOAD MODULE ARGS...``: the requester, the command line a harness or the suite
  runs (PRELOAD: comma-separated module names, or ``-``). It waits for the child and exits as it
  did (the same code, or the same signal), passing on the signals it gets. Without a server, or when
  the server refuses, it becomes ``python -m MODULE ARGS`` itself (``exec``), so the command works
  anywhere.
- ``python SOCKET PRELOAD [-u] [-B] -c CODE ARGS...``: the same for ``python -c CODE``, the command
  an xdist worker starts with (``popen//python=...``). Its request is *exclusive*: it is refused
  (and runs plainly) once the server has imported modules of another request's PRELOAD, because a
  worker must import the suite's own modules itself, after pytest's assertion rewriter is installed.

The child is a real process: it talks to the scripted API server over real sockets and runs real
hooks and MCP servers. What it shares with the server: the modules imported before the fork (their
import-time state: the hash seed, environment variables read at import), and the interpreter's
start-up options. So the server refuses a request whose ``PYTHON*`` variables differ from its own.
At exit the child waits for its threads, runs ``atexit`` handlers and flushes its streams like the
interpreter, then ends without tearing down every module (``os._exit``): that teardown of the
preloaded modules took about a second of CPU per run, and nothing of it is seen from outside (what
it leaves running is killed with its process group).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import struct
import sys
from typing import Any

_HEADER = struct.Struct("!I")
_MAX_REQUEST = 16 * 1024 * 1024
_REQUEST_TIMEOUT_S = 10.0
# Signals the requester passes on to the child's process group (SIGKILL can't be caught: the
# server sees the requester's connection close and kills the group itself).
_FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")


# Start-up variables a forked child can still honour: it sets sys.dont_write_bytecode or
# sys.pycache_prefix, or makes its stdout and stderr unbuffered. Every other PYTHON* variable must be
# the server's own.
_ADJUSTABLE = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONPYCACHEPREFIX")


def _python_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON") and k not in _ADJUSTABLE}


def _read_exact(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionError("the requester closed the connection mid-request")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _send_line(sock: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(json.dumps(message).encode() + b"\n")


# --- the server ---------------------------------------------------------------------------------


class _Refused(Exception):
    """The server won't fork for a request (it said why to the requester)."""


class _Launch:
    """What a forked child runs: the module as ``__main__``, or ``code`` as ``python -c`` runs it."""

    def __init__(self, module: str | None, code: str | None = None) -> None:
        self.module = module
        self.code = code


class _Server:
    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.path = path
        self.python_env = _python_env(dict(os.environ))
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "child")
        self.selector.register(0, selectors.EVENT_READ, "parent")
        # pid -> the requester's connection (None once it went away).
        self.children: dict[int, socket.socket | None] = {}
        # The modules requests asked to preload (an exclusive request wants no others imported).
        self.preloaded: set[str] = set()
        # What this process imported by itself, before any preload.
        self.own_modules = frozenset(sys.modules)

    def preload(self, names: list[str]) -> None:
        """Import ``names`` now, while the requests they are for are still on their way.

        The socket already listens, so a request that comes meanwhile waits for its turn. A module that
        fails to import here fails again, and is reported, when a request asks for it.
        """
        import importlib

        self.preloaded.update(names)
        for name in names:
            with contextlib.suppress(BaseException):
                importlib.import_module(name)

    def loop(self) -> _Launch | None:
        """Serve until stdin closes (None), or return the launch in a forked child."""
        while True:
            for key, _events in self.selector.select():
                what = key.data
                if what == "accept":
                    with contextlib.suppress(OSError):
                        conn, _ = self.listener.accept()
                        launch = self._request(conn)
                        if launch is not None:
                            return launch
                elif what == "parent":
                    if not os.read(0, 4096):
                        self._stop()
                        return None
                else:
                    self._bookkeeping(key)

    def _bookkeeping(self, key: selectors.SelectorKey) -> None:
        """A child ended, or a requester went away; a fault here is reported, and the server goes on.

        Every xdist worker of a run is a child of this server and dies with it (its requester kills
        it when the server is lost): a slip in the bookkeeping must cost one child at most, never
        the whole run.
        """
        try:
            if key.data == "child":
                with contextlib.suppress(OSError):
                    while os.read(self.wake_r, 4096):
                        pass
                self._reap()
            else:
                self._requester_event(key.fileobj, key.data)  # type: ignore[arg-type]
        except Exception:
            import traceback

            traceback.print_exc()

    def _request(self, conn: socket.socket) -> _Launch | None:
        fds: list[int] = []
        try:
            conn.settimeout(_REQUEST_TIMEOUT_S)
            _, fds, _, _ = socket.recv_fds(conn, 1, 3)
            (size,) = _HEADER.unpack(_read_exact(conn, _HEADER.size))
            if size > _MAX_REQUEST:
                raise ValueError(f"request of {size} bytes")
            request = json.loads(_read_exact(conn, size))
            conn.settimeout(None)
            refusal = self._refusal(request, fds)
            if refusal is not None:
                _send_line(conn, {"refused": refusal})
                raise _Refused(refusal)
            gc.freeze()  # what it imported: children never traverse it in a collection (nor copy its pages)
            pid = os.fork()
        except Exception:
            # Not this process's to keep: a reader waits for end of file on the requester's stdout.
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            conn.close()
            return None
        if pid == 0:
            return self._become_child(conn, request, fds)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        _send_line(conn, {"pid": pid})
        self.selector.register(conn, selectors.EVENT_READ, pid)
        return None

    def _refusal(self, request: dict[str, Any], fds: list[int]) -> str | None:
        import importlib
        import threading

        if len(fds) != 3:
            return f"expected stdin, stdout and stderr, got {len(fds)} descriptors"
        if _python_env(request["env"]) != self.python_env:
            return "its PYTHON* variables differ from the server's (they change the interpreter's start-up)"
        others = self.preloaded - set(request["preload"])
        if request.get("exclusive") and others:
            return f"the server has imported other requests' modules ({', '.join(sorted(others))})"
        self.preloaded.update(request["preload"])
        for name in request["preload"]:
            try:
                importlib.import_module(name)
            except BaseException as error:  # a fresh interpreter reports it itself
                return f"preloading {name} failed: {error!r}"
        if threading.active_count() > 1:
            return "the server has threads (a preloaded module started one): forking is unsafe"
        return None

    def _become_child(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> _Launch:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # SIGINT as the requester's own interpreter had it, not as the server's was started.
        signal.signal(
            signal.SIGINT, signal.SIG_IGN if request.get("sigint_ignored") else signal.default_int_handler
        )
        self.selector.close()
        self.listener.close()
        os.close(self.wake_r)
        os.close(self.wake_w)
        for other in self.children.values():
            if other is not None:
                other.close()
        conn.close()
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile = sys.modules.get("tempfile")
        if tempfile is not None:
            tempfile.tempdir = None  # type: ignore[attr-defined]  # computed again from this TMPDIR
        sys.dont_write_bytecode = bool(request["env"].get("PYTHONDONTWRITEBYTECODE")) or request.get(
            "B", False
        )
        sys.pycache_prefix = request["env"].get("PYTHONPYCACHEPREFIX") or None
        if request["env"].get("PYTHONUNBUFFERED") or request.get("u", False):
            _unbuffer_output()
        code = request.get("code")
        if code is not None:
            _not_for_rewriting(set(sys.modules) - self.own_modules)
            sys.argv = ["-c", *request["args"]]
            sys.path.insert(0, "")  # -c puts the working directory first, as ''
            return _Launch(None, code)
        sys.argv = ["-m", *request["args"]]  # runpy sets argv[0] to the module's file, as -m does
        sys.path.insert(0, os.getcwd())  # -m puts the working directory first
        return _Launch(request["module"])

    def _requester_event(self, conn: socket.socket, pid: int) -> None:
        if self.children.get(pid) is not conn:
            # Its child was reaped earlier in this batch of events: the connection is closed, and the
            # pid (no longer a zombie) may be another process's by now.
            return
        with contextlib.suppress(OSError):
            if conn.recv(4096):
                return  # the requester says nothing after its request; ignore stray bytes
        # The requester went away before its child ended (killed on timeout): end the whole group.
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        self.selector.unregister(conn)
        conn.close()
        if pid in self.children:
            self.children[pid] = None

    def _reap(self) -> None:
        while True:
            try:
                ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if ended is None:
                return
            pid = ended.si_pid
            # What the child left running in its group, killed while the child is still a zombie: its
            # pid, the group's id, is nobody else's until it is reaped.
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            conn = self.children.pop(pid, None)
            if conn is not None:
                _send_line(conn, {"status": status})
                with contextlib.suppress(KeyError, ValueError):
                    self.selector.unregister(conn)
                conn.close()

    def _stop(self) -> None:
        for pid in self.children:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def _not_for_rewriting(preloaded: set[str]) -> None:
    """Say in each preloaded package's docstring that pytest's assertion rewriter did not see it.

    A pytest run in this child (an xdist worker) marks every package of a distribution with a
    ``pytest11`` entry point for rewriting (anyio, say, which the SDK imports) and warns about each one
    already imported. ``PYTEST_DONT_REWRITE`` in a docstring is pytest's own opt-out: these were imported
    before pytest was, as plain modules, on purpose.
    """
    for name in preloaded:
        module = sys.modules.get(name)
        if "." in name or module is None:
            continue
        doc = module.__doc__ if isinstance(module.__doc__, str) else ""
        if "PYTEST_DONT_REWRITE" not in doc:
            with contextlib.suppress(AttributeError, TypeError):
                module.__doc__ = f"{doc}\n\nPYTEST_DONT_REWRITE (imported before pytest, by the fork server)"


def _unbuffer_output() -> None:
    """What ``-u`` does: stdout and stderr written through to their descriptors at once."""
    import io

    for name, fd in (("stdout", 1), ("stderr", 2)):
        encoding = getattr(getattr(sys, name), "encoding", None) or "utf-8"
        raw = io.FileIO(fd, "w", closefd=False)
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="backslashreplace", write_through=True)
        setattr(sys, name, stream)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _run_child(launch: _Launch) -> None:
    """Run the module as ``__main__``, then end as the interpreter would (see the module docstring)."""
    import atexit
    import runpy
    import threading
    import traceback

    code, interrupted = 0, False
    try:
        if launch.code is not None:
            import types

            main = types.ModuleType("__main__")
            sys.modules["__main__"] = main
            exec(compile(launch.code, "<string>", "exec"), main.__dict__)
        else:
            assert launch.module is not None
            runpy.run_module(launch.module, run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        code = _exit_code(exit_.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        interrupted = True
    except BaseException:  # reported as the interpreter reports an uncaught exception
        traceback.print_exc()
        code = 1
    shutdown = getattr(threading, "_shutdown", None)  # what the interpreter calls: joins non-daemon threads
    if shutdown is not None:
        with contextlib.suppress(Exception):
            shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if interrupted:  # as the interpreter: an uncaught KeyboardInterrupt ends the process by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 128 + signal.SIGINT
    os._exit(code & 0xFF)


def serve(path: str, preload: str = "-") -> None:
    """The ``serve`` mode: listen, import ``preload`` (what the first requests will ask for), serve."""
    server = _Server(path)
    server.preload([name for name in preload.split(",") if name and name != "-"])
    launch = server.loop()
    if launch is None:
        os._exit(0)  # skip tearing down the preloaded modules
    _run_child(launch)


# --- the requester ------------------------------------------------------------------------------


def _exec_plain(interpreter_args: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, *interpreter_args])


def _read_line(sock: socket.socket) -> dict[str, Any] | None:
    # One byte at a time: the server's next line (a quick child's exit) may follow at once, and
    # must stay in the socket for the next read, not be parsed with this one.
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = sock.recv(1)
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    message: dict[str, Any] = json.loads(data)
    return message


def run(path: str, preload: str, module: str, args: list[str]) -> None:
    """The ``run`` mode: have the server start ``module``, wait for it, exit as it did."""
    _request_and_wait(path, preload, {"module": module, "args": args}, ["-m", module, *args])


def run_code(path: str, preload: str, interpreter_args: list[str]) -> None:
    """The ``python`` mode: ``python [-u] [-B] -c CODE ARGS`` through the server, exclusively."""
    flags: dict[str, bool] = {}
    rest = list(interpreter_args)
    while rest and rest[0] in ("-u", "-B"):
        flags[rest.pop(0)[1]] = True
    if len(rest) < 2 or rest[0] != "-c":
        _exec_plain(interpreter_args)  # anything else is the interpreter's to read
        return
    launch = {"code": rest[1], "args": rest[2:], "exclusive": True, **flags}
    _request_and_wait(path, preload, launch, interpreter_args)


def _request_and_wait(path: str, preload: str, launch: dict[str, Any], plain: list[str]) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        request = {
            **launch,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "preload": [name for name in preload.split(",") if name and name != "-"],
            # A fresh interpreter keeps an ignored SIGINT ignored (a job in a shell's background);
            # otherwise it raises KeyboardInterrupt: the child must start the same way.
            "sigint_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
        }
        body = json.dumps(request).encode()
        socket.send_fds(sock, [b"F"], [0, 1, 2])
        sock.sendall(_HEADER.pack(len(body)) + body)
        reply = _read_line(sock)
    except OSError:
        reply = None
    if reply is None or "pid" not in reply:
        sock.close()
        _exec_plain(plain)
        return
    pid = int(reply["pid"])

    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(OSError):
            os.killpg(pid, signum)

    for name in _FORWARDED:
        signal.signal(getattr(signal, name), forward)
    # The child has the requester's stdin and stdout; a reader waiting for end of file on them must
    # not wait for this process too.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    ended = _read_line(sock)
    if ended is None or "status" not in ended:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        print(f"fork server: lost the server while process {pid} ran; it was killed", file=sys.stderr)
        os._exit(1)
    code = os.waitstatus_to_exitcode(int(ended["status"]))
    if code < 0:  # ended by a signal: end by the same one
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def main(argv: list[str]) -> None:
    """``serve SOCKET [PRELOAD]``, ``run SOCKET PRELOAD MODULE ARGS...`` or ``python SOCKET PRELOAD ARGS...``."""
    if len(argv) in (2, 3) and argv[0] == "serve":
        del sys.path[0]  # this file's folder: the preloaded modules are found as -m would find them
        serve(*argv[1:])
    elif len(argv) >= 4 and argv[0] == "run":
        run(argv[1], argv[2], argv[3], argv[4:])
    elif len(argv) >= 4 and argv[0] == "python":
        run_code(argv[1], argv[2], argv[3:])
    else:
        sys.exit(
            "usage: _forkserver.py serve SOCKET [PRELOAD] | run SOCKET PRELOAD MODULE [ARGS...]"
            " | python SOCKET PRELOAD [-u] [-B] -c CODE [ARGS...]"
        )


if __name__ == "__main__":
    main(sys.argv[1:])

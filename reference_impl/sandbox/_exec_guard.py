"""The supervisor of the sandbox's exec calls, outside the sandbox (SBX-7).

:class:`ExecGuard` listens on a Unix socket for the seccomp listener that
:mod:`~reference_impl.sandbox._exec_loader` sends from inside the sandbox, then answers every
``execve`` / ``execveat`` of the command's process tree: it reads the program's path and argv from
the caller's memory (``/proc/PID/mem``), opens the file through the caller's root and working
directory (``/proc/PID/root``, ``/proc/PID/cwd``), builds an :class:`ExecAttempt` and asks its judge.
A refusal fails the call with ``EPERM`` (the shell prints "Operation not permitted") and is recorded
in :attr:`ExecGuard.refusals` for the tool result; anything else continues into the kernel. Whatever
can't be read (a vanished caller, an unreadable argv) is refused: the supervisor fails closed.

That first check is made before the kernel reads the arguments again (seccomp user notification's
known limit): another thread of the caller that rewrites the argv, or renames another file over the
path, in that instant would run something else. So the guarantee comes from a second check the race
can't reach: :mod:`~reference_impl.sandbox._exec_tracer` holds the command's tree under ptrace and
reports each ``PTRACE_EVENT_EXEC`` stop, where the supervisor judges the image the kernel has committed
to (``/proc/PID/exe``, ``/proc/PID/cmdline``) and has it killed before its first instruction. The
first check stays for its message (the shell says "Operation not permitted", not "Killed").
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import platform
import select
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from reference_impl.sandbox._exec_loader import ARCHITECTURES, PROBE
from reference_impl.sandbox._exec_tracer import TRACER_SCRIPT

__all__ = ["ExecAttempt", "ExecGuard", "ExecRefusal", "exec_check_problem"]

_NOTIF_SIZE, _RESP_SIZE = 80, 24
_IOCTL_RECV, _IOCTL_SEND, _IOCTL_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
_FLAG_CONTINUE = 1
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_ARG_LIMIT = 4 * 1024 * 1024  # beyond Linux's ARG_MAX: more can't be a real exec
_POINTER_LIMIT = 1 << 17
_LINK_LIMIT = 40  # the kernel's own limit of symlinks in one lookup
_ACCEPT_TIMEOUT = 30.0
_EXECVEAT = ARCHITECTURES.get(platform.machine(), (0, 0, (0, -1), ()))[2][1]


@dataclass(frozen=True, slots=True)
class ExecAttempt:
    """One exec call: the path as given, the argv, and the file it names (an open descriptor or None).

    ``root`` and ``cwd`` lead, from outside, to the caller's root and working directory; ``pid`` is the
    caller (None: paths are opened under ``root`` and ``cwd`` as they are).
    """

    path: str
    argv: tuple[str, ...]
    fd: int | None
    root: str = "/"
    cwd: str = "."
    pid: int | None = None

    def open(self, path: str) -> int | None:
        """Another file the caller names (an interpreter, a program for the loader), opened from here."""
        if self.pid is not None:
            return _open_target(self.pid, _AT_FDCWD, path, 0)
        return _open_readable(f"{self.root}{path}" if path.startswith("/") else f"{self.cwd}/{path}")


@dataclass(frozen=True, slots=True)
class ExecRefusal:
    """An exec the supervisor refused: the argv and why (the rule that stopped it)."""

    argv: tuple[str, ...]
    reason: str


@lru_cache(maxsize=4)
def exec_check_problem(python: str, loader: str) -> str | None:
    """Why the exec check can't start here (no seccomp user notification, an unknown machine), or None.

    The loader installs its filter in a throw-away process: the kernel's answer, not a version guess.
    """
    if platform.machine() not in ARCHITECTURES:
        return f"the seccomp filter knows no syscall numbers for this machine ({platform.machine()})"
    try:
        done = subprocess.run(
            [python, "-I", "-S", loader, PROBE], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the exec check's loader can't start: {error}"
    if done.returncode:
        why = done.stderr.decode("utf-8", errors="replace").strip() or f"exit status {done.returncode}"
        return f"seccomp user notification is unavailable: {why}"
    return None


class _Unreadable(Exception):
    pass


def _read_memory(mem: int, address: int, size: int) -> bytes:
    try:
        return os.pread(mem, size, address)
    except OSError as error:
        raise _Unreadable(f"memory at {address:#x}: {error}") from error


def _read_string(mem: int, address: int, budget: list[int]) -> bytes:
    chunks: list[bytes] = []
    while True:
        want = 4096 - (address % 4096)  # never across a page that may be unmapped
        chunk = _read_memory(mem, address, want)
        if not chunk:
            raise _Unreadable(f"string at {address:#x}")
        end = chunk.find(b"\0")
        part = chunk if end < 0 else chunk[:end]
        budget[0] -= len(part) + 1
        if budget[0] < 0:
            raise _Unreadable("arguments longer than the kernel accepts")
        chunks.append(part)
        if end >= 0:
            return b"".join(chunks)
        address += len(chunk)


def _read_argv(mem: int, address: int) -> tuple[str, ...]:
    budget = [_ARG_LIMIT]
    words: list[str] = []
    for index in range(_POINTER_LIMIT):
        raw = _read_memory(mem, address + 8 * index, 8)
        if len(raw) != 8:
            raise _Unreadable("argv pointers")
        (pointer,) = struct.unpack("<Q", raw)
        if pointer == 0:
            return tuple(words)
        words.append(os.fsdecode(_read_string(mem, pointer, budget)))
    raise _Unreadable("too many arguments")


def _walk(pid: int, start: list[str], path: str) -> str | None:
    """The host path of ``path`` as the caller resolves it from the directory ``start`` (its own view).

    Symlinks are followed here, component by component, inside the caller's root: an absolute target
    starts again at *its* root (not the supervisor's), and ``/proc/self`` or ``/proc/thread-self`` (also
    reached through ``/dev/fd``) is the caller's own entry, ``/proc/PID``, whose magic links (``fd/N``,
    ``exe``) the kernel then follows. None when the links loop.
    """
    root = f"/proc/{pid}/root"
    pending = [*start, *path.split("/")]
    done: list[str] = []
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        done.append(part)
        if len(done) == 2 and done[0] == "proc":
            if part in ("self", "thread-self"):
                # thread-self is two levels, ``<pid>/task/<tid>``: a ``..`` after it is the task directory.
                entry = f"/proc/{pid}" if part == "self" else f"/proc/{pid}/task/{pid}"
                return "/".join((entry, *pending))
            if part.isdigit():  # another process's entry: its magic links are the kernel's to follow
                return "/".join((root, *done, *pending))
        try:
            target = os.readlink("/".join((root, *done)))
        except OSError:
            continue  # not a symlink (or absent: opening it will say)
        links += 1
        if links > _LINK_LIMIT:
            return None
        done.pop()
        if target.startswith("/"):
            done = []
        pending = [*target.split("/"), *pending]
    return "/".join((root, *done))


def _open_readable(where: str) -> int | None:
    try:
        return os.open(where, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        try:  # execute-only files can't be read, but their identity still counts
            return os.open(where, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return None


def _open_target(pid: int, dirfd: int, path: str, flags: int) -> int | None:
    """The file the caller names, opened from here, or None when there is none to open."""
    if not path:
        return _open_readable(f"/proc/{pid}/fd/{dirfd}") if flags & _AT_EMPTY_PATH else None
    start: list[str] = []
    if not path.startswith("/"):
        base = f"/proc/{pid}/cwd" if dirfd == _AT_FDCWD else f"/proc/{pid}/fd/{dirfd}"
        try:
            seen = os.readlink(base)
        except OSError:
            seen = ""
        if not seen.startswith("/") or seen.endswith(" (deleted)"):
            return _open_readable(f"{base}/{path}")  # a directory with no name: relative to it as it is
        start = seen.split("/")
    where = _walk(pid, start, path)
    return None if where is None else _open_readable(where)


@dataclass
class ExecGuard:
    """Answers the exec calls of one sandboxed command with ``judge`` (a refusal reason, or None)."""

    judge: Callable[[ExecAttempt], str | None]
    refusals: list[ExecRefusal] = field(default_factory=list)
    checked: int = 0
    cpu_seconds: float = 0.0
    """CPU time the supervisor spent answering (its thread's), for the benchmark."""
    failure: str | None = None
    _server: socket.socket | None = None
    _thread: threading.Thread | None = None
    _stop: tuple[int, int] | None = None
    _tracer: subprocess.Popen[bytes] | None = None

    def start(self, socket_path: str) -> None:
        """Listen on ``socket_path`` and serve in a thread until :meth:`close`."""
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(socket_path)
        self._server.listen(1)
        self._stop = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="sandbox-exec-guard", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving (the command has ended) and release everything."""
        if self._stop is not None:
            os.write(self._stop[1], b"x")
        if self._thread is not None:
            self._thread.join()
        if self._tracer is not None:
            # Ends any tracee left (PTRACE_O_EXITKILL): the command is over.
            self._tracer.kill()
            self._tracer.wait()
            for pipe in (self._tracer.stdin, self._tracer.stdout):
                if pipe is not None:
                    pipe.close()
            self._tracer = None
        if self._server is not None:
            self._server.close()
        if self._stop is not None:
            for end in self._stop:
                os.close(end)
            self._stop = None

    def _serve(self) -> None:
        assert self._server is not None
        assert self._stop is not None
        ready, _, _ = select.select([self._server.fileno(), self._stop[0]], [], [], _ACCEPT_TIMEOUT)
        if self._server.fileno() not in ready:
            return
        channel, _ = self._server.accept()
        with channel:
            try:
                _, fds, _, _ = socket.recv_fds(channel, 1, 1)
            except OSError as error:
                self.failure = f"receiving the seccomp listener: {error}"
                return
            if not fds:
                self.failure = "the sandbox sent no seccomp listener"
                return
            listener = fds[0]
            tracer = self._start_tracer(channel)
            if tracer is None:
                os.close(listener)  # no "K": the loader refuses to start the shell
                return
            channel.sendall(b"K")
        try:
            self._answer_all(listener, tracer)
        except (
            OSError
        ) as error:  # the listener closes below: every later exec fails (ENOSYS), never runs unjudged
            self.failure = f"the supervisor stopped: {error}"
        finally:
            os.close(listener)

    def _start_tracer(self, channel: socket.socket) -> subprocess.Popen[bytes] | None:
        """The tracer, holding the loader (the peer of ``channel``) before its shell starts; None: failed."""
        creds = channel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        loader_pid = struct.unpack("3i", creds)[0]
        try:
            tracer = subprocess.Popen(
                [sys.executable, "-I", "-S", TRACER_SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            self.failure = f"the exec tracer can't start: {error}"
            return None
        assert tracer.stdin is not None
        assert tracer.stdout is not None
        tracer.stdin.write(f"S {loader_pid}\n".encode())
        tracer.stdin.flush()
        answer = tracer.stdout.readline().decode(errors="replace").strip()
        if answer != "OK":
            self.failure = f"the exec tracer can't watch the command: {answer or 'it ended'}"
            tracer.kill()
            tracer.wait()
            return None
        self._tracer = tracer
        return tracer

    def _answer_all(self, listener: int, tracer: subprocess.Popen[bytes]) -> None:
        assert self._stop is not None
        assert tracer.stdout is not None
        poller = select.poll()
        poller.register(listener, select.POLLIN)
        poller.register(self._stop[0], select.POLLIN)
        poller.register(tracer.stdout, select.POLLIN)
        watching = 2  # the filter's listener and the tracer: both end when the last process has
        while watching:
            events = dict(poller.poll())
            if self._stop[0] in events:
                return
            started = time.thread_time()
            for fd, flags in events.items():
                if flags & select.POLLIN:
                    if fd == listener:
                        self._answer_one(listener)
                    elif not self._answer_traced(tracer):
                        poller.unregister(fd)
                        watching -= 1
                elif flags & (select.POLLHUP | select.POLLERR):
                    poller.unregister(fd)
                    watching -= 1
            self.cpu_seconds += time.thread_time() - started

    def _answer_traced(self, tracer: subprocess.Popen[bytes]) -> bool:
        """Judge the image a traced process has just become (the race-free check); False: tracer ended."""
        assert tracer.stdin is not None
        assert tracer.stdout is not None
        words = tracer.stdout.readline().split()
        if len(words) != 2 or words[0] != b"E":
            return False
        pid = int(words[1])
        self.checked += 1
        reason: str | None = None
        argv: tuple[str, ...] = ()
        target: int | None = None
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = tuple(os.fsdecode(word) for word in cmdline.read().split(b"\0")[:-1])
            image = os.readlink(f"/proc/{pid}/exe")
            target = _open_readable(f"/proc/{pid}/exe")
            reason = self.judge(
                ExecAttempt(image, argv, target, f"/proc/{pid}/root", f"/proc/{pid}/cwd", pid)
            )
        except OSError as error:
            reason = f"the sandbox could not read the program started to judge it ({error})"
        finally:
            self._record(target, argv, reason)
        try:
            tracer.stdin.write(b"C\n" if reason is None else b"K\n")
            tracer.stdin.flush()
        except OSError:
            return False
        return True

    def _answer_one(self, listener: int) -> None:
        buffer = bytearray(_NOTIF_SIZE)
        try:
            fcntl.ioctl(listener, _IOCTL_RECV, buffer, True)
        except OSError as error:
            if error.errno in (errno.ENOENT, errno.EINTR):
                return  # the caller died before we looked
            raise
        notif_id, pid, _flags, nr, _arch, _ip = struct.unpack_from("<QIIiIQ", buffer)
        args = struct.unpack_from("<6Q", buffer, 32)
        self.checked += 1
        if self.checked == 1:
            # The loader's own exec of the harness's shell: the only process under the filter yet.
            self._send(listener, struct.pack("<QqiI", notif_id, 0, 0, _FLAG_CONTINUE))
            return
        reason: str | None = None
        argv: tuple[str, ...] = ()
        target: int | None = None
        try:
            execveat = nr == _EXECVEAT
            dirfd = ctypes.c_int32(args[0] & 0xFFFFFFFF).value if execveat else _AT_FDCWD
            path_at, argv_at = (args[1], args[2]) if execveat else (args[0], args[1])
            with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
                mem = memory.fileno()
                path = os.fsdecode(_read_string(mem, path_at, [_ARG_LIMIT]))
                argv = _read_argv(mem, argv_at) if argv_at else ()
            target = _open_target(pid, dirfd, path, args[4] if execveat else 0)
            if not self._still_valid(listener, notif_id):
                return
            reason = self.judge(ExecAttempt(path, argv, target, f"/proc/{pid}/root", f"/proc/{pid}/cwd", pid))
        except (OSError, _Unreadable) as error:
            reason = f"the sandbox could not read the exec call to judge it ({error})"
        finally:
            self._record(target, argv, reason)
        if reason is not None:
            response = struct.pack("<QqiI", notif_id, 0, -errno.EPERM, 0)
        else:
            response = struct.pack("<QqiI", notif_id, 0, 0, _FLAG_CONTINUE)
        self._send(listener, response)

    def _record(self, target: int | None, argv: tuple[str, ...], reason: str | None) -> None:
        """Release the judged file and remember a refusal for the tool result."""
        if target is not None:
            os.close(target)
        if reason is not None:
            self.refusals.append(ExecRefusal(argv, reason))

    @staticmethod
    def _send(listener: int, response: bytes) -> None:
        try:
            fcntl.ioctl(listener, _IOCTL_SEND, bytearray(response), True)
        except OSError as error:
            if error.errno != errno.ENOENT:  # the caller died meanwhile
                raise

    @staticmethod
    def _still_valid(listener: int, notif_id: int) -> bool:
        try:
            fcntl.ioctl(listener, _IOCTL_ID_VALID, bytearray(struct.pack("<Q", notif_id)))
        except OSError:
            return False
        return True

"""Run outside the sandbox: stop every program the command starts after its exec, for the harness to judge (SBX-7).

Started by :class:`~reference_impl.sandbox._exec_guard.ExecGuard` as a script (``python -I -S
_exec_tracer.py``, standard library only), it reads ``S PID`` on stdin, seizes that
process with ``PTRACE_O_TRACEEXEC`` and the fork, vfork and clone options (its whole tree is
traced from then on; no syscall is traced) and ``PTRACE_O_EXITKILL`` (if this tracer dies, every
tracee dies with it: fail closed), and answers ``OK`` or ``ERR why``. Then, at each
``PTRACE_EVENT_EXEC`` stop, it writes ``E PID`` and waits for ``C`` (continue) or ``K`` (kill).

Why after the exec: the seccomp check reads the path and argv before the kernel reads them again,
so another thread, or a ``CLONE_VM`` sibling, can swap them in between. At the exec stop the
kernel has committed to the new image, every other thread of the process is gone, the new memory is
shared with no one and not one instruction of the program has run: ``/proc/PID/exe`` and
``/proc/PID/cmdline`` are what will run. A killed tracee never runs its first instruction.

A separate process because ``waitpid(-1)`` in the harness would reap its other children, and a
ptrace tracer is a thread: the harness's event loop can't be one.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["TRACER_SCRIPT", "main"]

TRACER_SCRIPT = os.path.abspath(__file__)
"""This file, as the script the harness starts beside each sandboxed command."""

_SEIZE, _CONT, _LISTEN = 0x4206, 7, 0x4208
_OPTIONS = 0x2 | 0x4 | 0x8 | 0x10 | (1 << 20)  # TRACEFORK|TRACEVFORK|TRACECLONE|TRACEEXEC|EXITKILL
_EVENT_EXEC, _EVENT_STOP = 4, 128
_WALL = 0x40000000
_STOPPING = frozenset({signal.SIGSTOP, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU})


def _ptrace(libc: ctypes.CDLL, request: int, pid: int, data: int = 0) -> int:
    result = int(libc.ptrace(ctypes.c_long(request), ctypes.c_long(pid), None, ctypes.c_void_p(data)))
    return 0 if result == 0 else -ctypes.get_errno()


def _trace(libc: ctypes.CDLL, root: int) -> None:
    """Serve the tree of ``root`` until no tracee is left."""
    first_exec = True
    while True:
        try:
            pid, status = os.waitpid(-1, _WALL)
        except ChildProcessError:
            return
        if not os.WIFSTOPPED(status):
            continue  # a tracee ended
        stop, event = os.WSTOPSIG(status), status >> 16
        if event == _EVENT_EXEC:
            if first_exec and pid == root:
                first_exec = False  # the loader becoming the harness's own shell
            else:
                sys.stdout.write(f"E {pid}\n")
                sys.stdout.flush()
                answer = sys.stdin.readline().strip()
                if answer != "C":  # "K", or the harness is gone: the image never runs
                    os.kill(pid, signal.SIGKILL)
                    continue
            _ptrace(libc, _CONT, pid)
        elif event == _EVENT_STOP:
            # A group-stop keeps the tracee stopped (LISTEN); a new tracee's first stop continues.
            if stop in _STOPPING and _ptrace(libc, _LISTEN, pid) == 0:
                continue
            _ptrace(libc, _CONT, pid)
        elif event:
            _ptrace(libc, _CONT, pid)  # fork, vfork, clone: the child is traced already
        else:
            _ptrace(libc, _CONT, pid, stop)  # a signal on its way: deliver it


def main() -> int:
    """Seize the process named on stdin, then serve its tree; 0 when it has ended."""
    libc = ctypes.CDLL(None, use_errno=True)
    words = sys.stdin.readline().split()
    if len(words) != 2 or words[0] != "S" or not words[1].isdigit():
        sys.stdout.write("ERR expected 'S PID'\n")
        return 2
    root = int(words[1])
    failed = _ptrace(libc, _SEIZE, root, _OPTIONS)
    if failed:
        sys.stdout.write(f"ERR PTRACE_SEIZE of {root}: {os.strerror(-failed)}\n")
        sys.stdout.flush()
        return 1
    sys.stdout.write("OK\n")
    sys.stdout.flush()
    _trace(libc, root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

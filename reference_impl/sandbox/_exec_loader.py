"""Run inside the sandbox, before the command's shell: put every ``execve`` under the harness's watch (SBX-7).

Started as a script (``python -I -S _exec_loader.py SOCKET SHELL ARG...``, standard library only),
it installs a seccomp filter that hands each ``execve`` / ``execveat`` of this process and all its
descendants to a listener (``SECCOMP_FILTER_FLAG_NEW_LISTENER``), sends the listener's descriptor to
the harness over the Unix socket ``SOCKET`` (outside the sandbox, where the command can't reach the
supervisor), closes its own copy and executes the shell. A filter can't be removed by the processes
under it; when the supervisor's copy is closed the watched calls fail (``ENOSYS``), so a dead
supervisor fails closed. Syscalls of another ABI (i386, x32), ``ptrace`` and
``process_vm_writev`` are refused: they would let a process run or rewrite an ``execve`` the
supervisor has already judged. The filter can't refuse the third way into another process's
memory, writing its ``/proc/PID/mem``: seccomp sees an ``open``'s path only as a pointer, and the
file has many spellings (``/proc/PID/task/TID/mem``, ``/proc/self/../PID/mem``). That one is shut
by the sandbox, which mounts ``/proc`` read-only whenever this loader runs
(:func:`~reference_impl.sandbox._runner.bwrap_argv`'s ``exec_checked``).
"""

from __future__ import annotations

import ctypes
import os
import platform
import socket
import sys

__all__ = ["ARCHITECTURES", "LOADER_SCRIPT", "PROBE", "filter_program", "install", "main"]

LOADER_SCRIPT = os.path.abspath(__file__)
"""This file, as the script the sandbox runs before the command's shell."""

ARCHITECTURES: dict[str, tuple[int, int, tuple[int, ...], tuple[int, ...]]] = {
    # machine: (AUDIT_ARCH, seccomp syscall, (execve, execveat), (ptrace, process_vm_writev))
    "x86_64": (0xC000003E, 317, (59, 322), (101, 311)),
    "aarch64": (0xC00000B7, 277, (221, 281), (117, 271)),
}
"""The machines the filter knows: their audit architecture and syscall numbers."""

_RET_ALLOW = 0x7FFF0000
_RET_USER_NOTIF = 0x7FC00000
_RET_EPERM = 0x00050000 | 1
_X32_BIT = 0x40000000
_LD_ABS_W, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_SET_MODE_FILTER, _FLAG_NEW_LISTENER, _PR_SET_NO_NEW_PRIVS = 1, 1 << 3, 38
_PR_SET_PTRACER, _PTRACER_ANY = 0x59616D61, ctypes.c_ulong(-1)


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def filter_program(machine: str) -> list[tuple[int, int, int, int]]:
    """The classic-BPF program (code, jt, jf, k) for ``machine``: exec calls notify, the rest pass."""
    arch, _, execs, refused = ARCHITECTURES[machine]
    program = [(_LD_ABS_W, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _RET_EPERM), (_LD_ABS_W, 0, 0, 0)]
    program.append((_JGE, 0, 1, _X32_BIT))
    program.append((_RET, 0, 0, _RET_EPERM))
    for number in execs:
        program += [(_JEQ, 0, 1, number), (_RET, 0, 0, _RET_USER_NOTIF)]
    for number in refused:
        program += [(_JEQ, 0, 1, number), (_RET, 0, 0, _RET_EPERM)]
    program.append((_RET, 0, 0, _RET_ALLOW))
    return program


def install(machine: str) -> int:
    """Install the filter on this process (inherited by everything it starts); returns the listener."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    program = filter_program(machine)
    array = (_SockFilter * len(program))(*(_SockFilter(*insn) for insn in program))
    fprog = _SockFprog(len(program), array)
    listener = int(
        libc.syscall(ARCHITECTURES[machine][1], _SET_MODE_FILTER, _FLAG_NEW_LISTENER, ctypes.byref(fprog))
    )
    if listener < 0:
        raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER)")
    return listener


PROBE = "--probe"
"""The loader's argument that only installs the filter and exits: 0 when it can, else 125 and why."""


def _why(error: BaseException) -> str:
    if isinstance(error, KeyError):
        return f"the seccomp filter knows no syscall numbers for this machine ({platform.machine()})"
    if isinstance(error, OSError) and error.errno:
        return f"{error.strerror} failed: {os.strerror(error.errno)}"
    return str(error)


def main(argv: list[str]) -> int:
    """``SOCKET SHELL ARG...``: install the filter, hand the listener over, become the shell.

    ``--probe``: install the filter in this process only, to learn whether the kernel allows it.
    """
    if argv[:1] == [PROBE]:
        try:
            os.close(install(platform.machine()))
        except (OSError, KeyError) as error:
            sys.stderr.write(f"{_why(error)}\n")
            return 125
        return 0
    socket_path, command = argv[0], argv[1:]
    try:
        listener = install(platform.machine())
        # Yama (ptrace_scope 1) lets only ancestors trace: the harness's tracer is none. The filter
        # refuses ptrace to everything in the sandbox, so this opens it to the tracer alone.
        ctypes.CDLL(None).prctl(_PR_SET_PTRACER, _PTRACER_ANY, 0, 0, 0)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.connect(socket_path)
            socket.send_fds(channel, [b"L"], [listener])
            # The supervisor answers once it watches: the shell's own execve must not come first.
            if channel.recv(1) != b"K":
                raise OSError("the harness's exec supervisor did not answer")
        os.close(listener)
    except (OSError, KeyError) as error:
        sys.stderr.write(f"sandbox: can't watch the programs the command starts: {_why(error)}\n")
        return 125
    os.execv(command[0], command)
    return 127  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

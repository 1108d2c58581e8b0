"""Under the exec check (SBX-7) no process of the command rewrites another by syscall, nor execs around the check.

A check of each exec only holds if what it judged is what runs: a process that could write into
another's memory (``process_vm_writev``, ``ptrace``, writing ``/proc/PID/mem`` however spelled) could
change an exec's path or argv after the judgement, or the program itself before it runs, and an exec
through another door (``execveat`` on a descriptor, the i386 ``int 0x80`` entry of a 64-bit process)
must meet the same check. Each test runs, with deny rules in force (``touch``, and ``mkdir marker*``,
which names a program by its arguments), attacks drawn from that catalogue, each from a process drawn
from the ways programs run code (the command's own process, a forked child, a thread, a grandchild),
and judges by what really happened: the victim's memory is as it was, the denied program left no
marker, the attacking call did not report success, a thread that attacked still ends. Every attack is
first run outside the sandbox, where it must succeed (the attack is real).
"""

from __future__ import annotations

import functools
import json
import platform
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._sandbox_runs import allowing_host, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat", "touch", "mkdir")]

PY = sys.executable
RULE = "Bash(touch:*)"
ARGV_RULE = "Bash(mkdir marker*)"
"""Denies ``mkdir marker0`` and allows ``mkdir unmarked0``: a rule the argv decides."""

_WHERE = ("process", "child", "thread", "grandchild")
"""Who attacks: the command's own process, a forked child, a thread (which then ends), a grandchild."""

_PROC_MEM = ("/proc/PID/mem", "/proc/PID/task/PID/mem", "/proc/self/../PID/mem")
"""The spellings of a child's memory file that a writer opens (PID: the child's)."""

_JUDGED_ARGV = tuple(f"judged argv through {way}" for way in ("/proc/PID/mem", "process_vm_writev"))
"""Start ``mkdir unmarked<N>`` (allowed), stop it once it has become mkdir, and rewrite its argv to
``mkdir marker<N>`` (denied) before it reads it: after the judgement, before the program's first use.
Each way a process writes another's memory is a way to do it."""

_ATTACKS = (
    "process_vm_writev",
    "ptrace",
    "fexecve",
    "i386 process_vm_writev",
    "i386 execve",
    *_PROC_MEM,
    *_JUDGED_ARGV,
)
"""What it does: write into a child's memory (a syscall, or its ``/proc`` memory file), trace it,
exec a denied program through a descriptor (``execveat``), process_vm_writev and execve through the
i386 entry (``int 0x80``), or rewrite the argv of a judged program to one a rule denies."""

_RUNS_DENIED = ("fexecve", "i386 execve", *_JUDGED_ARGV)
"""The attacks that would run a denied program (the rest rewrite a victim's memory)."""

Scenario = tuple[str, str]

# One JSON result file per attack: call<N> (what the attacking call returned), victim<N> (whether
# the victim's memory changed), ended<N> (a thread that attacked ended); touch leaves marker<N>.
_DRIVER = r"""
import ctypes, json, os, struct, sys, threading, time
scenarios = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
ORIGINAL, NEW = b"judged-argv", b"REWRITTEN!!"
TOUCH = b"/usr/bin/touch" if os.path.exists("/usr/bin/touch") else b"/bin/touch"
MKDIR = os.path.realpath("/usr/bin/mkdir" if os.path.exists("/usr/bin/mkdir") else "/bin/mkdir")
# A long library path the dynamic loader searches in vain: mkdir's start takes milliseconds.
SLOW_START = ":".join(f"/nonexistent/{i}" for i in range(3000))
# Below 4 GiB (MAP_32BIT), so the i386 entry can name it: data at +0, code at +2048.
low = libc.mmap(None, 4096, 7, 0x22 | 0x40, -1, 0)
I386 = low is not None and low not in (2**64 - 1, 2**32 - 1) and low < 2**32
def i386(number, *args):
    # push rbx; push rbp; mov eax..ebp, imm32; int 0x80; pop rbp; pop rbx; ret
    args = list(args) + [0] * (6 - len(args))
    code = b"\x53\x55" + b"\xb8" + struct.pack("<I", number)
    for op, value in zip(b"\xbb\xb9\xba\xbe\xbf\xbd", args):
        code += bytes([op]) + struct.pack("<I", value & 0xFFFFFFFF)
    code += b"\xcd\x80\x5d\x5b\xc3"
    ctypes.memmove(low + 2048, code, len(code))
    result = ctypes.CFUNCTYPE(ctypes.c_int)(low + 2048)()
    return (-1, -result) if -4096 < result < 0 else (result, 0)  # the raw entry returns -errno

victims = {}  # scenario -> the victim's pid and the pipe end whose close lets it check

def victim_of(n):
    # A forked child holding ORIGINAL at the low page; it checks it once its attacker is done.
    ctypes.memmove(low + 1024, ORIGINAL, len(ORIGINAL))
    ready, go = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go)
        os.read(ready, 1)
        same = ctypes.string_at(low + 1024, len(ORIGINAL)) == ORIGINAL
        open(f"victim{n}", "w").write(json.dumps("same" if same else "changed"))
        os._exit(0)
    os.close(ready)
    victims[n] = [pid, go]
    return pid, go

def write_mem(spelling, pid, address, data):
    # Open the child's memory file as spelled and write data at address: [bytes written, 0] or [-1, errno].
    try:
        fd = os.open(spelling.replace("PID", str(pid)), os.O_RDWR)
    except OSError as exc:
        return -1, exc.errno
    try:
        return os.pwrite(fd, data, address), 0
    except OSError as exc:
        return -1, exc.errno
    finally:
        os.close(fd)

def stopped(pid):
    # True: stopped (by SIGSTOP, or a tracer's stop) with no SIGSTOP still pending, so it runs nothing
    # now; None: it has ended.
    try:
        status = open(f"/proc/{pid}/status").read()
    except OSError:
        return None
    state = status.split("State:\t", 1)[1][0]
    pending = [int(line.split()[1], 16) for line in status.splitlines() if line.startswith(("SigPnd", "ShdPnd"))]
    return None if state in "ZX" else state in "tT" and not any(p & (1 << 18) for p in pending)

def rewrite_judged_argv(n, way):
    # mkdir unmarked<n> starts (judged, allowed); stopped before it reads its argv, it is given marker<n>.
    pid = os.fork()
    if pid == 0:
        os.execve(MKDIR, ["mkdir", f"unmarked{n}"], {"LD_LIBRARY_PATH": SLOW_START})
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            if os.readlink(f"/proc/{pid}/exe") == MKDIR:
                break
        except OSError:
            pass
    os.kill(pid, 19)  # SIGSTOP (a zombie takes it too)
    while stopped(pid) is False and time.monotonic() < end:
        time.sleep(0.0005)
    try:
        argv1 = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[45]) + len(b"mkdir\0")
    except (OSError, IndexError, ValueError):
        argv1 = 0  # it has ended: the write is still tried, and says what it meets
    data = f"marker{n}\0\0".encode()
    if way == "process_vm_writev":
        buffer = ctypes.create_string_buffer(data, len(data))
        local = (ctypes.c_uint64 * 2)(ctypes.addressof(buffer), len(data))
        remote = (ctypes.c_uint64 * 2)(argv1, len(data))
        result = libc.syscall(*map(ctypes.c_long, (311, pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0)))
        error = ctypes.get_errno()
    else:
        result, error = write_mem(way, pid, argv1, data)
    os.kill(pid, 18)  # SIGCONT
    open(f"call{n}", "w").write(json.dumps([result, error]))
    os.waitpid(pid, 0)

def attack(n, what):
    result, error = None, 0
    if what.startswith("judged argv through "):
        rewrite_judged_argv(n, what.rsplit(" ", 1)[1])
        return
    if what.endswith(("process_vm_writev", "/mem")) or what == "ptrace":
        pid, go = victim_of(n)
        ctypes.memmove(low + 1536, NEW, len(NEW))
        if what.endswith("/mem"):
            result, error = write_mem(what, pid, low + 1024, NEW)
        elif what == "process_vm_writev":
            local = (ctypes.c_uint64 * 2)(low + 1536, len(NEW))
            remote = (ctypes.c_uint64 * 2)(low + 1024, len(NEW))
            result = libc.syscall(*map(ctypes.c_long, (311, pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0)))
            error = ctypes.get_errno()
        elif what == "i386 process_vm_writev":
            ctypes.memmove(low, struct.pack("<4I", low + 1536, len(NEW), low + 1024, len(NEW)), 16)
            result, error = i386(348, pid, low, 1, low + 8, 1, 0)
        else:
            result = libc.syscall(*map(ctypes.c_long, (101, 0x4206, pid, 0, 0)))  # PTRACE_SEIZE
            error = ctypes.get_errno()
            if result == 0:
                word = struct.unpack("<q", NEW[:8])[0]
                libc.syscall(*map(ctypes.c_long, (101, 0x4207, pid, 0, 0)))  # PTRACE_INTERRUPT
                os.waitpid(pid, 0x40000000)
                libc.syscall(*map(ctypes.c_long, (101, 5, pid, low + 1024, word)))  # PTRACE_POKEDATA
                libc.syscall(*map(ctypes.c_long, (101, 17, pid, 0, 0)))  # PTRACE_DETACH
        open(f"call{n}", "w").write(json.dumps([result, error]))
        victims[n][1] = None
        os.close(go)
        os.waitpid(pid, 0)
        return
    pid = os.fork()
    if pid == 0:
        marker = f"marker{n}".encode()
        if what == "fexecve":
            fd = os.open(TOUCH, os.O_RDONLY)
            try:
                os.execve(fd, ["touch", marker.decode()], {})
            except OSError as exc:
                result, error = -1, exc.errno
        else:
            ctypes.memmove(low, TOUCH + b"\0", len(TOUCH) + 1)
            ctypes.memmove(low + 64, b"touch\0", 6)
            ctypes.memmove(low + 96, marker + b"\0", len(marker) + 1)
            ctypes.memmove(low + 128, struct.pack("<3I", low + 64, low + 96, 0), 12)
            ctypes.memmove(low + 144, struct.pack("<I", 0), 4)
            result, error = i386(11, low, low + 128, low + 144)
        open(f"call{n}", "w").write(json.dumps([result, error]))
        os._exit(0)
    os.waitpid(pid, 0)

for n, (where, what) in enumerate(scenarios):
    if what.startswith("i386") and not I386:
        open(f"call{n}", "w").write(json.dumps(["no i386", 0]))
        continue
    if where == "process":
        attack(n, what)
    elif where == "thread":
        worker = threading.Thread(target=attack, args=(n, what), daemon=True)
        worker.start()
        worker.join(10)
        # Python lets go of a thread before the kernel has: the thread is gone when the task is.
        end = time.monotonic() + 10
        while len(os.listdir("/proc/self/task")) > 1 and time.monotonic() < end:
            time.sleep(0.01)
        open(f"ended{n}", "w").write(json.dumps(len(os.listdir("/proc/self/task")) == 1))
        if n in victims and victims[n][1] is not None:  # a killed attacking thread: let its victim check
            os.close(victims[n][1])
            os.waitpid(victims[n][0], 0)
    else:
        pid = os.fork()
        if pid == 0:
            if where == "grandchild" and os.fork():
                os.wait()
            else:
                attack(n, what)
            os._exit(0)
        os.waitpid(pid, 0)
# A victim whose attacker was killed checks on its own (its pipe closed): wait for its answer.
for n, (where, what) in enumerate(scenarios):
    end = time.monotonic() + 5
    while what.endswith(("process_vm_writev", "ptrace", "/mem")) and not what.startswith("judged") and not os.path.exists(f"victim{n}"):
        if time.monotonic() > end:
            break
        time.sleep(0.01)
print("DONE", flush=True)
"""


@functools.cache
def _i386_entry() -> bool:
    """Whether this kernel runs i386 syscalls of a 64-bit process (``int 0x80``: IA32 emulation)."""
    if platform.machine() != "x86_64":
        return False
    code = _DRIVER.split("def victim_of", 1)[0] + "\nprint(I386 and i386(20)[0] == os.getpid())\n"
    try:
        done = subprocess.run(
            [PY, "-I", "-S", "-c", code, "[]"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == "True"


def _result(work: Path, name: str) -> Any:
    """What the driver wrote to ``name`` (JSON), or None when nothing did (its writer was killed)."""
    path = work / name
    return json.loads(path.read_text()) if path.exists() else None


def _command(drawn: list[Scenario]) -> list[str]:
    return [PY, "-I", "-S", "-c", _DRIVER, json.dumps(drawn)]


@st.composite
def scenarios(draw: st.DrawFn) -> list[Scenario]:
    """One to three attacks, each from a process started one of the ways programs start them."""
    return draw(
        st.lists(st.tuples(st.sampled_from(_WHERE), st.sampled_from(_ATTACKS)), min_size=1, max_size=3)
    )


_EVERY_WAY: list[Scenario] = [
    ("thread", "process_vm_writev"),
    ("grandchild", "i386 process_vm_writev"),
    ("thread", "fexecve"),
    ("child", "ptrace"),
    ("process", "i386 execve"),
]

_EVERY_SPELLING: list[Scenario] = [
    ("process", "/proc/PID/mem"),
    ("thread", "/proc/PID/task/PID/mem"),
    ("grandchild", "/proc/self/../PID/mem"),
    ("child", _JUDGED_ARGV[0]),
    ("thread", _JUDGED_ARGV[1]),
]


@pytest.mark.requirement("SBX-7", "MUST")
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=scenarios())
@example(drawn=_EVERY_WAY)
@example(drawn=_EVERY_SPELLING)
def test_no_process_rewrites_another_or_execs_around_the_check(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, drawn: list[Scenario]
) -> None:
    """SBX-7: under a deny rule, no process of the command rewrites another's memory or runs it.

    Property: for attacks (process_vm_writev, ptrace and writing /proc/PID/mem, /proc/PID/task/PID/mem
    or /proc/self/../PID/mem into a child, an exec of the denied program through a descriptor, i386
    process_vm_writev and execve through int 0x80, rewriting the argv of a judged, allowed mkdir (through /proc/PID/mem or process_vm_writev) to
    a denied one) from the command's process, a child, a thread or a grandchild, each of which
    succeeds outside the sandbox, in the sandbox the victim's memory stays as it was, the denied
    program leaves no marker, no attacking call reports success (it fails, or its caller is killed),
    a thread that attacked ends, and the tool result names the rule when an exec through a
    descriptor was refused.
    """
    if any(what.startswith("i386") for _, what in drawn) and not _i386_entry():
        drawn = [(where, what) for where, what in drawn if not what.startswith("i386")]
        if not drawn:
            pytest.skip("this kernel has no i386 entry for a 64-bit process (int 0x80)")
    control = tmp_path_factory.mktemp("tamper-outside")
    subprocess.run(_command(drawn), cwd=control, capture_output=True, timeout=60, check=False)
    for n, (where, what) in enumerate(drawn):
        if what in _RUNS_DENIED:
            require_control((control / f"marker{n}").exists(), f"{what} from {where} did not run outside")
        else:
            require_control(
                _result(control, f"victim{n}") == "changed",
                f"{what} from {where} did not rewrite its victim outside",
            )
    work = tmp_path_factory.mktemp("tamper")
    with_settings = sandbox_settings(deny=[RULE, ARGV_RULE])
    with_settings["permissions"]["defaultMode"] = "bypassPermissions"
    outcome = run(new_harness(), shlex.join(_command(drawn)), work, with_settings, host=allowing_host())
    for n, (where, what) in enumerate(drawn):
        case = f"{what} from {where} ({outcome.output!r})"
        call = _result(work, f"call{n}")
        assert not (work / f"marker{n}").exists(), f"the denied program ran: {case}"
        if call is not None:
            assert call[0] == -1, f"the attacking call reported success {call}: {case}"
        if what not in _RUNS_DENIED:
            victim = _result(work, f"victim{n}")
            assert victim == "same" or (victim is None and call is None), (
                f"the victim's memory was rewritten ({victim}): {case}"
            )
        elif what == "fexecve" and call is not None:  # the i386 entry is refused whatever it runs
            assert RULE in outcome.output, f"the result does not name the rule {RULE}: {case}"
        if where == "thread" and call is not None:
            assert _result(work, f"ended{n}") is True, f"the attacking thread did not end: {case}"

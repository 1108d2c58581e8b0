"""The exec tracer script on its own (SBX-7's second check): its control protocol, with real processes.

``reference_impl/sandbox/_exec_tracer.py`` runs as ``python -I -S`` beside each sandboxed command;
the conformance tests reach it only through the harness, which always speaks its protocol right and
never outlives it. These tests start it directly, seize a real process held before its first exec,
and check what the harness can't show: any answer but ``C`` (a ``K``, a malformed line, closed
input) kills the program before it runs; a tracer that dies takes every tracee with it
(``PTRACE_O_EXITKILL``: fail closed); a malformed ``S PID`` or a seize that fails is refused with
its reason; the tracer ends with status 0 once its tree has ended, and waits without polling.
"""

from __future__ import annotations

import errno
import functools
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_impl.sandbox._exec_tracer import TRACER_SCRIPT

PY = sys.executable
_LIMIT = 10.0

# A process held before its first exec (it reads a line first), then running ``sh -c SCRIPT``.
_HELD = "import os, sys; sys.stdin.readline(); os.execv('/bin/sh', ['sh', '-c', sys.argv[1]])"


def _tracer() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PY, "-I", "-S", TRACER_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )


def _line(process: subprocess.Popen[str], limit: float = _LIMIT) -> str:
    """The next line the process writes ("" at its end), failing after ``limit`` seconds."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], limit)
    assert ready, "the tracer wrote nothing in time"
    return process.stdout.readline()


def _send(process: subprocess.Popen[str], text: str) -> None:
    assert process.stdin is not None
    process.stdin.write(text)
    process.stdin.flush()


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _wait_until(check: Callable[[], bool], limit: float = _LIMIT) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.005)
    return False


@contextmanager
def _traced(script: str, cwd: Path) -> Iterator[tuple[subprocess.Popen[str], subprocess.Popen[str]]]:
    """A process seized by a fresh tracer (answered ``OK``), then released to run ``sh -c script``."""
    root = subprocess.Popen([PY, "-I", "-S", "-c", _HELD, script], stdin=subprocess.PIPE, text=True, cwd=cwd)
    tracer = _tracer()
    try:
        _send(tracer, f"S {root.pid}\n")
        answer = _line(tracer)
        if answer.startswith("ERR") and "Operation not permitted" in answer:
            pytest.skip(f"ptrace is not allowed here: {answer.strip()}")
        assert answer == "OK\n", answer
        _send(root, "go\n")
        yield root, tracer
    finally:
        # The tracer first: a killed tracee stays unreaped until its tracer has waited for it.
        for process in (tracer, root):
            if process.poll() is None:
                process.kill()
            process.wait()
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()


_ANSWERS = ("C", "K", "c", "", "CC", "C K", "OK", "EOF", "DIE")
"""What the harness's end does at an exec stop: a line (only ``C`` lets it run), closes, or kills the tracer."""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers=st.lists(st.sampled_from(_ANSWERS), min_size=1, max_size=3))
@example(answers=["C", "K", "C"])
@example(answers=["C", "EOF"])
@example(answers=["DIE"])
@example(answers=["C", "", "OK"])
def test_a_program_runs_only_when_its_exec_is_answered_C(
    tmp_path_factory: pytest.TempPathFactory, answers: list[str]
) -> None:
    """SBX-7: a program stopped at its exec runs only if the harness answers exactly ``C``.

    Property: for a command running ``touch M1; touch M2; exec touch M3`` and, at each exec stop, an
    answer among ``C``, ``K``, malformed lines, closed input (``EOF``) and a killed tracer (``DIE``),
    marker N exists iff every answer before N leaves the tracer alive with its input open and the
    Nth is ``C``; after ``DIE`` every tracee is dead (``PTRACE_O_EXITKILL``), after ``EOF`` every
    later exec is killed; the tracer ends (status 0) when the tree does.
    """
    work = tmp_path_factory.mktemp("tracer")
    expected: list[bool] = []
    with _traced("touch M1; touch M2; exec touch M3", work) as (root, tracer):
        closed = died = False
        for index in range(3):
            if died:
                break
            stop = _line(tracer)
            assert stop.startswith("E "), stop
            pid = int(stop.split()[1])
            answer = answers[index] if index < len(answers) else "C"
            if closed:
                expected.append(False)
                continue
            if answer == "EOF":
                assert tracer.stdin is not None
                tracer.stdin.close()
                closed = True
            elif answer == "DIE":
                tracer.kill()
                died = True
                assert _wait_until(functools.partial(_gone, pid)), "a tracee outlived its tracer"
                assert root.wait(_LIMIT) == -signal.SIGKILL, "the command outlived its tracer"
            else:
                _send(tracer, f"{answer}\n")
            expected.append(answer == "C")
        if not died:
            assert root.wait(_LIMIT) == (0 if expected[-1] else -signal.SIGKILL)
            assert tracer.wait(_LIMIT) == 0
            assert _line(tracer) == ""
    seen = [(work / f"M{index + 1}").exists() for index in range(len(expected))]
    assert seen == expected, f"answers {answers}: markers {seen}"
    assert not any((work / f"M{index + 1}").exists() for index in range(len(expected), 3))


def test_the_tracees_die_with_the_tracer_while_they_run(tmp_path: Path) -> None:
    """SBX-7: a tracer killed mid-command takes every tracee with it (fail closed), not only stopped ones."""
    with _traced("sleep 30 & sleep 30 & wait", tmp_path) as (root, tracer):
        pids = []
        for _ in range(2):
            stop = _line(tracer)
            assert stop.startswith("E "), stop
            pids.append(int(stop.split()[1]))
            _send(tracer, "C\n")
        assert _wait_until(lambda: all(_line_of(pid) for pid in pids)), "the sleeps did not start"
        tracer.kill()
        tracer.wait()
        assert root.wait(_LIMIT) == -signal.SIGKILL
        assert _wait_until(lambda: all(_gone(pid) for pid in pids)), "a tracee outlived its tracer"


def _line_of(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().startswith(b"sleep")
    except OSError:
        return False


_MALFORMED = st.one_of(
    st.sampled_from(["", "S", "S x", "S 12 13", "X 12", "A 12", "s 12", "SS 12", "S -12", "12", "S\t"]),
    st.tuples(st.sampled_from(["A", "R", "T", "Z", "a", "S1", ""]), st.integers(1, 99999)).map(
        lambda pair: f"{pair[0]} {pair[1]}"
    ),
)


@settings(max_examples=10, deadline=None)
@given(line=_MALFORMED)
def test_a_malformed_seize_line_is_refused(line: str) -> None:
    """SBX-7: anything but ``S PID`` is refused (``ERR expected 'S PID'``, status 2) and seizes nothing."""
    tracer = _tracer()
    out, _ = tracer.communicate(f"{line}\n", timeout=_LIMIT)
    assert out == "ERR expected 'S PID'\n", (line, out)
    assert tracer.returncode == 2


def test_closed_input_before_a_seize_is_refused() -> None:
    """SBX-7: no seize line at all (the harness gone) is refused like a malformed one."""
    tracer = _tracer()
    out, _ = tracer.communicate("", timeout=_LIMIT)
    assert (out, tracer.returncode) == ("ERR expected 'S PID'\n", 2)


def test_a_failed_seize_says_why(tmp_path: Path) -> None:
    """SBX-7: a seize the kernel refuses is answered ``ERR PTRACE_SEIZE of PID: reason`` (status 1).

    A process that has ended (ESRCH) and one another tracer holds already (EPERM).
    """
    ended = subprocess.Popen([PY, "-I", "-S", "-c", "pass"])
    ended.wait()
    tracer = _tracer()
    out, _ = tracer.communicate(f"S {ended.pid}\n", timeout=_LIMIT)
    assert out == f"ERR PTRACE_SEIZE of {ended.pid}: {os.strerror(errno.ESRCH)}\n"
    assert tracer.returncode == 1
    with _traced("sleep 30", tmp_path) as (root, first):
        second = _tracer()
        out, _ = second.communicate(f"S {root.pid}\n", timeout=_LIMIT)
        assert out == f"ERR PTRACE_SEIZE of {root.pid}: {os.strerror(errno.EPERM)}\n"
        assert second.returncode == 1
        assert first.poll() is None


def test_the_tracer_waits_without_polling(tmp_path: Path) -> None:
    """SBX-7: while its tree runs untroubled the tracer sleeps in ``waitpid`` (no busy loop), then ends with 0."""
    with _traced(f"exec {PY} -I -S -c 'import time; time.sleep(1)'", tmp_path) as (root, tracer):
        stop = _line(tracer)
        assert stop.startswith("E "), stop
        _send(tracer, "C\n")
        assert root.wait(_LIMIT) == 0
        _, status, usage = os.wait4(tracer.pid, 0)
        tracer.returncode = os.waitstatus_to_exitcode(status)
        assert tracer.returncode == 0
        assert usage.ru_utime + usage.ru_stime < 0.12, f"the tracer spent {usage} waiting for a sleep"

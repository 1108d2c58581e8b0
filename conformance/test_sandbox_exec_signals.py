"""Under the exec check (SBX-7) a command's processes still get their signals and job control.

A harness may watch the programs a command starts however it likes (the reference harness holds the
command's tree under ``ptrace``), but only their execs: each test runs, with a deny rule in force
(so the check is on) that names nothing the command starts, a program that starts processes in the
ways programs do (``fork``, ``posix_spawn``, a thread of a forked child, a grandchild), and checks
from inside what those processes saw: a signal reaches the handler they installed, a stop signal
stops them (they make no progress) until ``SIGCONT`` resumes them, and a signal with no handler ends
them. A check that swallowed a signal, let a stopped process run on, or never resumed it would
change what the command does.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._sandbox_runs import allowing_host, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

PY = sys.executable

_STARTS = ("fork", "posix_spawn", "thread", "grandchild")
"""How the watched process starts: forked, spawned (a new program), a thread of a forked child, forked twice."""

_HANDLED = ("SIGUSR1", "SIGUSR2", "SIGHUP", "SIGTERM")
_STOPS = ("SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU")
_ENDING = ("SIGTERM", "SIGUSR1", "SIGUSR2", "SIGHUP", "SIGALRM")

Scenario = tuple[str, str, str, str]
"""How the process starts, the signal it handles, the stop signal sent to it, the signal that ends it."""

# The watched process: its own process group (in the command's session, so the terminal stop
# signals stop it too), a handler that leaves a file, and a beat: a byte written every 2 ms.
# SIGSTOP can't be caught or ignored, so it needs no reset.
_CHILD = (
    f"DEFAULTED = {sorted({*_HANDLED, *_STOPS[1:], *_ENDING})!r}\n"
    + r"""
import os, signal, sys, threading, time
handled, beat, how = sys.argv[1:4]
os.setpgid(0, 0)
# Every signal at its default first: an ignored one is inherited through exec (nohup ignores SIGHUP),
# and the test's own process may have been started so.
for name in DEFAULTED:
    signal.signal(getattr(signal, name), signal.SIG_DFL)
signal.signal(getattr(signal, handled), lambda number, frame: open(beat + ".handled", "w").close())
def work():
    with open(beat, "ab", buffering=0) as out:
        while True:
            out.write(b".")
            time.sleep(0.002)
open(beat + ".pid", "w").write(str(os.getpid()))
if how == "thread":
    threading.Thread(target=work, daemon=True).start()
    while True:
        time.sleep(1)
work()
"""
)

# The command: starts each scenario's process, signals it and reports what it saw, one JSON line each.
_DRIVER = r"""
import json, os, signal, sys, time
PY, CHILD, scenarios = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

statuses = {}

def reaped(pid):
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        statuses[pid] = status
    return bool(done)

def wait_for(check, limit=3.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.002)
    return False

def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0

def stopped(pid):
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        states = [open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0] for t in tasks]
    except OSError:
        return False
    return all(state in "tT" for state in states)

def start(how, handled, beat):
    argv = [PY, "-I", "-S", "-c", CHILD, handled, beat, how]
    if how == "posix_spawn":
        return os.posix_spawn(PY, argv, dict(os.environ))
    pid = os.fork()
    if pid:
        return pid
    try:
        if how == "grandchild" and os.fork():
            _, status = os.wait()
            open(beat + ".status", "w").write(str(status))
        else:
            sys.argv = ["child", handled, beat, how]
            exec(CHILD, {"__name__": "__main__"})
    finally:
        os._exit(0)

for number, (how, handled, stop, ending) in enumerate(scenarios):
    beat = f"beat{number}"
    seen = {"how": how, "handled": handled, "stop": stop, "ending": ending}
    pid = start(how, handled, beat)
    seen["started"] = wait_for(lambda: size(beat) > 2 and size(beat + ".pid") > 0)
    worker = int(open(beat + ".pid").read()) if seen["started"] else pid
    os.kill(worker, getattr(signal, handled))
    seen["handled"] = wait_for(lambda: os.path.exists(beat + ".handled"))
    os.kill(worker, getattr(signal, stop))
    seen["stopped"] = wait_for(lambda: stopped(worker))
    before = size(beat)
    time.sleep(0.15)
    seen["held"] = size(beat) == before
    os.kill(worker, signal.SIGCONT)
    seen["resumed"] = wait_for(lambda: size(beat) > before + 2)
    os.kill(worker, getattr(signal, ending))
    if not wait_for(lambda: reaped(pid)):
        os.kill(worker, signal.SIGKILL)  # it did not end: don't wait for the call's timeout
        os.waitpid(pid, 0)
    status = int(open(beat + ".status").read()) if how == "grandchild" else statuses.get(pid, -1)
    seen["ended_by"] = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else status
    print("SCENARIO " + json.dumps(seen), flush=True)
"""


def _command(scenarios: list[Scenario]) -> str:
    return shlex.join([PY, "-I", "-S", "-c", _DRIVER, PY, _CHILD, json.dumps(scenarios)])


@st.composite
def scenarios(draw: st.DrawFn) -> list[Scenario]:
    """One or two processes, each started one way, with a handled, a stop and an ending signal."""
    drawn: list[Scenario] = []
    for _ in range(draw(st.integers(1, 2))):
        handled = draw(st.sampled_from(_HANDLED))
        ending = draw(st.sampled_from([name for name in _ENDING if name != handled]))
        drawn.append((draw(st.sampled_from(_STARTS)), handled, draw(st.sampled_from(_STOPS)), ending))
    return drawn


_EVERY_WAY: list[Scenario] = [
    ("fork", "SIGUSR1", "SIGSTOP", "SIGTERM"),
    ("posix_spawn", "SIGTERM", "SIGTSTP", "SIGUSR2"),
    ("thread", "SIGHUP", "SIGTTIN", "SIGALRM"),
    ("grandchild", "SIGUSR2", "SIGTTOU", "SIGHUP"),
]


@pytest.mark.requirement("SBX-7", "MUST")
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=scenarios())
@example(drawn=_EVERY_WAY)
def test_signals_and_job_control_reach_the_commands_processes(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, drawn: list[Scenario]
) -> None:
    """SBX-7: the exec check leaves a command's signals and job control as they are.

    Property: for processes started by fork, posix_spawn, a thread of a forked child or a grandchild,
    under a deny rule naming none of them, a signal they handle reaches the handler, a stop signal
    (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) stops them until SIGCONT resumes them, and a signal they don't
    handle ends them.
    """
    # The control: outside the harness the same processes must show it all (a suite started with a
    # signal ignored, as under nohup, can show nothing here: an error of the suite, not the harness's).
    control = tmp_path_factory.mktemp("signals-outside")
    shown = subprocess.run(
        _command(drawn), shell=True, cwd=control, capture_output=True, text=True, timeout=120, check=False
    )
    shown_reports = _reports(shown.stdout)
    require_control(
        len(shown_reports) == len(drawn), f"outside the sandbox: {shown.stdout!r} {shown.stderr!r}"
    )
    for scenario, report in zip(drawn, shown_reports, strict=True):
        require_control(
            report == _expected(scenario),
            f"outside the sandbox {scenario} showed {report}: {shown.stdout!r} {shown.stderr!r}",
        )
    work = tmp_path_factory.mktemp("signals")
    with_settings = sandbox_settings(deny=["Bash(touch:*)"])
    with_settings["permissions"]["defaultMode"] = "bypassPermissions"
    outcome = run(new_harness(), _command(drawn), work, with_settings, host=allowing_host())
    seen = _reports(outcome.output)
    assert len(seen) == len(drawn), f"the command did not finish every scenario: {outcome.output!r}"
    for scenario, report in zip(drawn, seen, strict=True):
        assert report == _expected(scenario), f"{', '.join(scenario)}: {report} ({outcome.output!r})"


def _reports(output: str) -> list[dict[str, Any]]:
    """What the driver saw of each scenario, in order."""
    return [json.loads(line.split(" ", 1)[1]) for line in output.splitlines() if line.startswith("SCENARIO ")]


def _expected(scenario: Scenario) -> dict[str, Any]:
    """What a scenario's process shows when its signals reach it as sent."""
    how, _handled, stop, ending = scenario
    return {
        "how": how,
        "handled": True,
        "stop": stop,
        "ending": ending,
        "started": True,
        "stopped": True,
        "held": True,
        "resumed": True,
        "ended_by": ending,
    }

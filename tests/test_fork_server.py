"""The fork server (``pytest_toolharness/processes/_forkserver.py``): ``python -m MODULE`` as a fresh process.

What a target started through it must still be: a process of its own, in a session and process group
of its own, with the requester's directory, environment, arguments and standard streams, ending as
the program ended (code or signal); killed with everything it started when the requester is killed
(``run_target``'s timeout), and its leftovers killed when it exits. Without a server, or when the
server refuses, the same command runs the module the plain way.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.processes import _launch

pytestmark = pytest.mark.skipif(not _launch._wanted(), reason="the fork server needs Linux (fork, send_fds)")

# Preloaded by the server and never imported by the probe: in sys.modules at start only when forked.
_MARKER = "colorsys"

_PROBE = """
import json, os, subprocess, sys, time
forked = "colorsys" in sys.modules
mode = sys.argv[1] if len(sys.argv) > 1 else "report"
if mode == "report":
    print(json.dumps({
        "forked": forked, "pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
        "cwd": os.getcwd(), "argv": sys.argv, "env": dict(os.environ), "path0": sys.path[0],
        "name": __name__, "stdin": sys.stdin.read(), "warnoptions": sys.warnoptions,
    }))
    print("to stderr", file=sys.stderr)
    sys.exit(int(os.environ.get("PROBE_EXIT", "0")))
if mode == "signal":
    os.kill(os.getpid(), int(sys.argv[2]))
    time.sleep(5)
if mode in ("linger", "hang"):
    child = subprocess.Popen(["sleep", "60"])
    with open(sys.argv[2], "w") as f:
        f.write(json.dumps({"pid": os.getpid(), "grandchild": child.pid, "forked": forked}))
    if mode == "hang":
        time.sleep(60)
"""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fork server of its own, which finds the probe module on its PYTHONPATH."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "probe.py").write_text(_PROBE, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(modules), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    started = _launch._start(tmp_path)
    assert started is not None, "the fork server did not start"
    yield started
    _launch._stop(started)
    assert started.process.poll() is not None, "the server outlived the end of its stdin"
    assert not os.path.exists(started.socket_path)


def _command(socket_path: str, *args: str) -> list[str]:
    return [sys.executable, "-I", "-S", str(_launch._SCRIPT), "run", socket_path, _MARKER, "probe", *args]


def _env(**extra: str) -> dict[str, str]:
    env = {name: os.environ[name] for name in _launch._SERVER_ENV if name in os.environ}
    return {**env, **extra}


def _run(
    command: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return True  # reaped between the two looks (or while its stat was read)
        if stat.split(") ", 1)[-1].startswith("Z"):
            time.sleep(0.02)  # a zombie whose parent has not reaped it yet
            continue
        time.sleep(0.02)
    return False


def test_a_forked_child_is_the_program_as_python_m_starts_it(server: Any, tmp_path: Path) -> None:
    """Own pid, session and group; the requester's cwd, env, argv, stdin, stdout and stderr; its exit code."""
    work = tmp_path / "work"
    work.mkdir()
    done = _run(_command(server.socket_path, "report", "x y"), work, _env(PROBE_EXIT="3", FOO="bar"), "input")
    assert done.returncode == 3, done.stderr
    report = _report(done)
    assert report["forked"] is True
    assert report["pid"] != server.process.pid
    assert report["sid"] == report["pid"] == report["pgid"]
    assert report["cwd"] == str(work)
    assert report["path0"] == str(work)
    assert report["argv"][1:] == ["report", "x y"]
    assert report["argv"][0].endswith("probe.py")
    assert report["name"] == "__main__"
    assert report["stdin"] == "input"
    assert report["env"] == _env(PROBE_EXIT="3", FOO="bar")
    assert done.stderr == "to stderr\n"


def test_a_child_killed_by_a_signal_ends_its_requester_by_the_same_signal(
    server: Any, tmp_path: Path
) -> None:
    done = _run(_command(server.socket_path, "signal", str(int(signal.SIGTERM))), tmp_path, _env())
    assert done.returncode == -signal.SIGTERM


def test_without_a_server_the_command_runs_the_module_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "probe.py").write_text(_PROBE, encoding="utf-8")
    env = _env(PYTHONPATH=str(modules), PROBE_EXIT="4")
    done = _run(_command(str(tmp_path / "no-such-socket"), "report", "a"), tmp_path, env, "in")
    assert done.returncode == 4, done.stderr
    report = _report(done)
    assert report["forked"] is False
    assert report["argv"][1:] == ["report", "a"]
    assert report["stdin"] == "in"


def test_other_python_variables_are_refused_and_run_plainly(server: Any, tmp_path: Path) -> None:
    """PYTHON* variables change the interpreter's start-up, which a forked child can't redo."""
    done = _run(_command(server.socket_path, "report"), tmp_path, _env(PYTHONWARNINGS="ignore::UserWarning"))
    assert done.returncode == 0, done.stderr
    report = _report(done)
    assert report["forked"] is False
    assert report["warnoptions"] == ["ignore::UserWarning"]


def test_killing_the_requester_kills_the_child_and_what_it_started(server: Any, tmp_path: Path) -> None:
    """As run_target kills a target's process group on timeout: the requester's group is the requester."""
    pids = tmp_path / "pids.json"
    requester = subprocess.Popen(
        _command(server.socket_path, "hang", str(pids)), cwd=tmp_path, env=_env(), start_new_session=True
    )
    deadline = time.monotonic() + 30
    while not pids.exists() or not pids.read_text():
        assert requester.poll() is None, "the requester ended before the probe started"
        assert time.monotonic() < deadline, "the probe never started"
        time.sleep(0.02)
    started = json.loads(pids.read_text())
    assert started["forked"] is True
    os.killpg(requester.pid, signal.SIGKILL)
    requester.wait(timeout=10)
    assert _gone(started["pid"]), "the forked child outlived its requester"
    assert _gone(started["grandchild"]), "what the child started outlived its requester"


def test_what_a_child_leaves_running_is_killed_when_it_exits(server: Any, tmp_path: Path) -> None:
    pids = tmp_path / "pids.json"
    done = _run(_command(server.socket_path, "linger", str(pids)), tmp_path, _env())
    assert done.returncode == 0, done.stderr
    started = json.loads(pids.read_text())
    assert started["forked"] is True
    assert _gone(started["grandchild"]), "the child's leftover process was not killed"


# Run as a script of its own (the server takes SIGCHLD and the wakeup descriptor of its process): one
# child that has ended and its requester that went away, ready in one batch of events, the child first.
_SAME_BATCH = """
import json, os, selectors, signal, socket, sys, time
sys.path.insert(0, sys.argv[2])
import _forkserver

server = _forkserver._Server(sys.argv[1])
killed = []
real_killpg = os.killpg
os.killpg = lambda pid, sig: (killed.append(pid), real_killpg(pid, sig))
pid = os.fork()
if pid == 0:
    os.setsid()
    os._exit(0)
requester, peer = socket.socketpair()
server.children[pid] = requester
server.selector.register(requester, selectors.EVENT_READ, pid)
peer.close()
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
ready = []
deadline = time.monotonic() + 10
while len(ready) < 3 and time.monotonic() < deadline:
    ready = server.selector.select(0.1)
order = {"child": 0, pid: 1, "parent": 2}
batch = sorted(ready, key=lambda event: order.get(event[0].data, 3))
server.selector.select = lambda timeout=None: batch
print(json.dumps({"ready": [str(key.data) for key, _ in batch], "loop": server.loop(),
                  "killed": killed, "pid": pid, "children": list(server.children)}))
"""


def test_a_child_reaped_and_its_requester_gone_in_one_batch_leave_the_server_serving(tmp_path: Path) -> None:
    """The server outlives a child's exit and its requester's going, seen in the same batch, child first.

    Every xdist worker dies with the server: the controller reported three workers "crashed" at once
    when the requester's event came after its child's had closed the connection. The child's group
    is killed once, while it is a zombie (its pid can't be another process's yet), never after.
    """
    script = tmp_path / "same_batch.py"
    script.write_text(_SAME_BATCH, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "socket"), str(_launch._SCRIPT.parent)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert not done.stderr, done.stderr
    assert done.returncode == 0
    outcome = json.loads(done.stdout)
    assert outcome["ready"] == ["child", str(outcome["pid"]), "parent"], "the batch was not the one meant"
    assert outcome["loop"] is None, "the server did not serve on until its stdin closed"
    assert outcome["killed"] == [outcome["pid"]], (
        "the child's group was killed other than once, before reaping"
    )
    assert outcome["children"] == []


@pytest.mark.parametrize("ignored", [False, True], ids=["default", "ignored"])
def test_a_child_takes_sigint_as_its_requester_had_it(server: Any, tmp_path: Path, ignored: bool) -> None:
    """A forked child handles SIGINT as a fresh interpreter started by its requester would.

    Ignored when the requester started with SIGINT ignored (a job in a shell's background), Python's
    KeyboardInterrupt otherwise, whatever the server's own start left it as.
    """
    code = (
        "import signal, sys; handler = signal.getsignal(signal.SIGINT); "
        "print('colorsys' in sys.modules, handler == signal.SIG_IGN, handler == signal.default_int_handler)"
    )
    done = subprocess.run(
        [*_python_command(server.socket_path), "-c", code],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignored else None,
    )
    assert done.returncode == 0, done.stderr
    forked, *handled = done.stdout.split()
    assert forked == "True", "the child was not forked by the server"
    assert handled == (["True", "False"] if ignored else ["False", "True"])


def test_python_module_command_is_plain_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_launch.FORK_SERVER_ENV, "0")
    assert _launch.python_module_command("m", ["a"]) == [sys.executable, "-m", "m", "a"]


def test_a_shared_server_that_is_gone_means_plain_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_launch.SOCKET_ENV, str(tmp_path / "gone"))
    assert _launch.python_module_command("m", ["a"], ["x"]) == [sys.executable, "-m", "m", "a"]


def test_prewarm_makes_the_tls_context_and_the_sdk_validators_before_a_fork() -> None:
    """What a fork server imports (reference_impl.prewarm) leaves a child nothing of either to make."""
    code = (
        "import anthropic.types as T\n"
        "from pydantic._internal._mock_val_ser import MockValSer\n"
        "assert isinstance(T.Message.__pydantic_validator__, MockValSer), 'built before the import'\n"
        "import reference_impl.prewarm\n"
        "from reference_impl.agent._cli import tls_context\n"
        "assert tls_context.cache_info().currsize == 1, 'no TLS context made'\n"
        "assert tls_context() is tls_context(), 'a second context'\n"
        "mocks = [n for n, m in vars(T).items() if isinstance(getattr(m, '__pydantic_validator__', None), MockValSer)]\n"
        "assert not mocks, mocks\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# What `python -c` is asked to run in the tests of the `python` mode (an xdist worker's command).
_CODE_PROBE = (
    "import json, os, sys; "
    "print(json.dumps({'forked': 'colorsys' in sys.modules, 'argv': sys.argv, 'path0': sys.path[0], "
    "'name': __name__, 'cwd': os.getcwd(), 'dont_write_bytecode': sys.dont_write_bytecode, "
    "'stdout_write_through': sys.stdout.write_through, 'pid': os.getpid(), 'prefix': sys.pycache_prefix, "
    "'doc': (sys.modules['colorsys'].__doc__ or '') if 'colorsys' in sys.modules else ''}), flush=True); "
    "sys.stdout.write('unflushed'); os._exit(int(os.environ.get('PROBE_EXIT', '0')))"
)


def _python_command(socket_path: str, preload: str = _MARKER) -> list[str]:
    return [sys.executable, "-I", "-S", str(_launch._SCRIPT), "python", socket_path, preload]


def test_python_c_runs_as_the_interpreter_runs_it(server: Any, tmp_path: Path) -> None:
    """``python -u -c CODE ARGS``, forked: argv, '' first on sys.path, ``__main__``, unbuffered, exit code."""
    done = _run(
        [*_python_command(server.socket_path), "-u", "-c", _CODE_PROBE, "a b"], tmp_path, _env(PROBE_EXIT="5")
    )
    assert done.returncode == 5, done.stderr
    line, _, rest = done.stdout.partition("\n")
    report = json.loads(line)
    assert report["forked"] is True
    assert report["argv"] == ["-c", "a b"]
    assert report["path0"] == ""
    assert report["name"] == "__main__"
    assert report["cwd"] == str(tmp_path)
    assert report["stdout_write_through"] is True
    assert rest == "unflushed", "-u: what was written reached the pipe before os._exit"


def test_python_c_honours_dont_write_bytecode_and_unbuffered_from_the_environment(
    server: Any, tmp_path: Path
) -> None:
    """PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED and PYTHONPYCACHEPREFIX don't make the server refuse: the child applies them."""
    prefix = str(tmp_path / "pycache")
    env = _env(PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1", PYTHONPYCACHEPREFIX=prefix)
    done = _run([*_python_command(server.socket_path), "-c", _CODE_PROBE], tmp_path, env)
    report = json.loads(done.stdout.partition("\n")[0])
    assert report["forked"] is True
    assert report["dont_write_bytecode"] is True
    assert report["stdout_write_through"] is True
    assert report["prefix"] == prefix
    plain = _run([*_python_command(server.socket_path), "-c", _CODE_PROBE], tmp_path, _env())
    assert json.loads(plain.stdout.partition("\n")[0])["dont_write_bytecode"] is False
    assert json.loads(plain.stdout.partition("\n")[0])["prefix"] is None


def test_preloaded_packages_say_pytest_did_not_rewrite_them(server: Any, tmp_path: Path) -> None:
    """A pytest run in the child would otherwise warn "already imported so cannot be rewritten"."""
    done = _run([*_python_command(server.socket_path), "-c", _CODE_PROBE], tmp_path, _env())
    assert "PYTEST_DONT_REWRITE" in json.loads(done.stdout.partition("\n")[0])["doc"]


def test_a_python_c_request_is_refused_once_other_modules_were_preloaded(server: Any, tmp_path: Path) -> None:
    """Exclusive: after a ``run`` request preloaded another module, a worker starts as a fresh interpreter."""
    first = _run([*_python_command(server.socket_path), "-c", _CODE_PROBE], tmp_path, _env())
    assert json.loads(first.stdout.partition("\n")[0])["forked"] is True
    other = [
        sys.executable,
        "-I",
        "-S",
        str(_launch._SCRIPT),
        "run",
        server.socket_path,
        "wave",
        "probe",
        "report",
    ]
    assert _report(_run(other, tmp_path, _env()))["forked"] is True
    again = _run(
        [*_python_command(server.socket_path), "-u", "-c", _CODE_PROBE, "x"], tmp_path, _env(PROBE_EXIT="2")
    )
    assert again.returncode == 2, again.stderr
    report = json.loads(again.stdout.partition("\n")[0])
    assert report["forked"] is False
    assert report["argv"] == ["-c", "x"]


def test_python_mode_passes_other_interpreter_arguments_to_a_plain_interpreter(
    server: Any, tmp_path: Path
) -> None:
    done = _run([*_python_command(server.socket_path), "-W", "ignore", "-c", _CODE_PROBE], tmp_path, _env())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.partition("\n")[0])["forked"] is False


_PRELOAD_PROBE = (
    "import gc, json, sys; "
    "print(json.dumps({'wave': 'wave' in sys.modules, 'colorsys': 'colorsys' in sys.modules, "
    "'frozen': gc.get_freeze_count()}))"
)


def test_a_server_imports_its_start_preload_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve SOCKET PRELOAD``: the modules are imported at start (a request naming none still has them),
    the imported heap is frozen before the fork, and a worker's exclusive request naming the same
    modules is forked, not refused."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "preload_probe.py").write_text(_PRELOAD_PROBE, encoding="utf-8")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(modules), os.environ.get("PYTHONPATH", "")) if p)
    )
    started = _launch._start(tmp_path, ["wave", _MARKER])
    assert started is not None, "the fork server did not start"
    try:
        command = [
            sys.executable,
            "-I",
            "-S",
            str(_launch._SCRIPT),
            "run",
            started.socket_path,
            "-",
            "preload_probe",
        ]
        bare = _run(command, tmp_path, _env())
        report = json.loads(bare.stdout)
        assert (report["wave"], report["colorsys"]) == (True, True), bare.stderr
        assert report["frozen"] > 0, "the server's imports were not frozen before the fork"
        same = _run(
            [*_python_command(started.socket_path, f"wave,{_MARKER}"), "-c", _CODE_PROBE], tmp_path, _env()
        )
        assert json.loads(same.stdout.partition("\n")[0])["forked"] is True, same.stderr
    finally:
        _launch._stop(started)


def test_a_start_preload_that_fails_is_reported_when_a_request_asks_for_it(tmp_path: Path) -> None:
    """A module that can't be imported at start doesn't stop the server; the request naming it runs plainly."""
    started = _launch._start(tmp_path, ["no_such_module_for_the_fork_server"])
    assert started is not None, "the fork server did not start"
    try:
        done = _run(
            [*_python_command(started.socket_path, "no_such_module_for_the_fork_server"), "-c", _CODE_PROBE],
            tmp_path,
            _env(),
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.partition("\n")[0])["forked"] is False
        assert started.process.poll() is None, "the server died of a failed start preload"
    finally:
        _launch._stop(started)


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The module's server state emptied for the test, and put back after it."""
    monkeypatch.delenv(_launch.SOCKET_ENV, raising=False)
    saved = dict(_launch._state)
    _launch._state.clear()
    yield _launch._state
    for server in {id(s): s for s in _launch._state.values() if s is not None}.values():
        _launch._stop(server)
    _launch._state.clear()
    _launch._state.update(saved)


def test_a_prestarted_server_nobody_shares_is_stopped_on_release(fresh_state: dict[str, Any]) -> None:
    _launch.prestart_fork_server(["colorsys"])
    server = fresh_state["server"]
    assert server is not None
    assert server.process.poll() is None
    _launch.release_prestarted_fork_server()
    assert server.process.poll() is not None, "the unshared server still runs"
    assert "server" not in fresh_state
    assert "prestarted" not in fresh_state
    _launch.release_prestarted_fork_server()  # nothing left to release


def test_a_prestarted_server_is_the_one_shared_and_release_keeps_it(
    fresh_state: dict[str, Any], tmp_path: Path
) -> None:
    _launch.prestart_fork_server(["colorsys"])
    server = fresh_state["server"]
    stop = _launch.share_fork_server(tmp_path, ["colorsys", "wave"])
    assert stop is not None
    assert os.environ[_launch.SOCKET_ENV] == server.socket_path
    _launch.release_prestarted_fork_server()
    assert server.process.poll() is None, "release stopped the shared server"
    stop()
    assert server.process.poll() is not None


@pytest.mark.parametrize(
    ("arg", "stops"),
    [
        ("-n", True),
        ("-n4", True),
        ("-nauto", True),
        ("--numprocesses=2", True),
        ("--collect-only", True),
        ("--co", True),
        ("--toolharness-isolation=none", True),
        ("no:xdist", True),
        ("toolharness_suite_path=suite", True),
        ("--color=yes", False),
        ("--confcutdir=x", False),
        ("--no-header", False),
        ("-q", False),
        ("--toolharness-conformance", False),
        ("name", False),
    ],
)
def test_the_prestart_guess_reads_options_that_mean_no_workers_of_its_own(arg: str, stops: bool) -> None:
    from pytest_toolharness._isolation import _stops_own_workers

    assert _stops_own_workers(arg) is stops

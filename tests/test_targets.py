"""Targets: command templates, built-in names, and running a harness process with a clean environment."""

from __future__ import annotations

import dataclasses
import json
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolharness.wire.scenarios._core import WireScenario
from pytest_toolharness.wire.targets._command import (
    CommandTarget,
    ReferenceTarget,
    TargetError,
    TargetInvocation,
    run_target,
)
from pytest_toolharness.wire.targets._profiles import resolve_target
from pytest_toolharness.wire.targets._wire_adapter import WireAdapter, WireRun


def invocation(tmp_path: Path, *, timeout: float = 30.0, prompt: str = "two words") -> TargetInvocation:
    return TargetInvocation(
        prompt=prompt,
        settings_path=tmp_path / "settings.json",
        mcp_config_path=tmp_path / "mcp.json",
        workdir=tmp_path,
        base_url="http://127.0.0.1:9",
        env={"ENABLE_TOOL_SEARCH": "false"},
        timeout=timeout,
    )


def python(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def test_command_template_fills_placeholders_inside_words(tmp_path: Path) -> None:
    target = CommandTarget(
        "harness -p {prompt} --settings={settings} --mcp {mcp_config} '{\"a\": 1}' {workdir}/x"
    )
    inv = invocation(tmp_path, prompt="say 'hi' {x}")
    assert target.command(inv) == [
        "harness",
        "-p",
        "say 'hi' {x}",
        f"--settings={tmp_path / 'settings.json'}",
        "--mcp",
        str(tmp_path / "mcp.json"),
        '{"a": 1}',
        f"{tmp_path}/x",
    ]


@pytest.mark.parametrize("template", ["", "   ", "harness 'unclosed"])
def test_bad_templates_are_refused(template: str) -> None:
    with pytest.raises(TargetError):
        resolve_target(template)


def test_builtin_names_resolve() -> None:
    assert isinstance(resolve_target("reference"), ReferenceTarget)
    assert resolve_target("claude-code").name == "claude-code"
    assert isinstance(resolve_target("my-harness -p {prompt}"), CommandTarget)


def test_reference_command_passes_the_files(tmp_path: Path) -> None:
    argv = ReferenceTarget().command(invocation(tmp_path))
    assert argv[0] == sys.executable
    module = argv.index("reference_impl")
    assert argv[1:module] in (["-m"], ["-I", "-S", *argv[3:module]])  # plain, or through the fork server
    assert argv[module + 1 :] == ReferenceTarget().arguments(invocation(tmp_path))
    assert argv[argv.index("-p") + 1] == "two words"
    assert argv[argv.index("--mcp-config") + 1] == str(tmp_path / "mcp.json")


def test_reference_command_through_another_entry_module(tmp_path: Path) -> None:
    """A harness built on reference_impl runs its own entry module, its arguments before the CLI's."""
    target = ReferenceTarget("my_harness.cli", ("--profile", "ci"))
    argv = target.command(invocation(tmp_path))
    module = argv.index("my_harness.cli")
    assert "reference_impl" not in argv[:module]
    assert argv[module + 1 :] == ["--profile", "ci", *target.arguments(invocation(tmp_path))]


def test_clean_environment_and_closed_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "real-secret")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/somewhere")
    code = "import json, os, sys; print(json.dumps({'env': dict(os.environ), 'stdin': sys.stdin.read()}))"
    outcome = run_target(CommandTarget(python(code)), invocation(tmp_path))
    assert outcome.exit_code == 0, outcome.stderr
    seen = json.loads(outcome.stdout)
    env = seen["env"]
    assert seen["stdin"] == ""
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["ANTHROPIC_API_KEY"] == "x"
    assert env["HOME"] == str(tmp_path / "home")
    assert env["ENABLE_TOOL_SEARCH"] == "false"
    assert env["TOOLHARNESS_PROMPT"] == "two words"
    assert "ANTHROPIC_AUTH_TOKEN" not in env
    assert "CLAUDE_CONFIG_DIR" not in env
    assert (tmp_path / "home").is_dir()


def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    # The child starts a grandchild that would outlive it; the group kill takes both.
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print(p.pid, flush=True); time.sleep(60)"
    )
    outcome = run_target(CommandTarget(python(code)), invocation(tmp_path, timeout=1.0))
    assert outcome.timed_out
    assert outcome.exit_code is None
    grandchild = int(outcome.stdout.split()[0])
    assert _dies(grandchild), f"the grandchild {grandchild} outlived the group kill"


def _file_size(path: Path) -> Callable[[], object]:
    return lambda: path.stat().st_size if path.exists() else 0


# Appends a line to beat.txt every 0.3 s for ``for`` seconds, then sleeps without progress.
_BEATS = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    open('beat.txt', 'a').write('.')\n    time.sleep(0.3)\ntime.sleep(60)\n"


@pytest.mark.parametrize(
    ("beats", "limit", "still_working"),
    [
        (1.5, 30.0, False),  # progress for 1.5 s, then idle: hung one timeout after the last beat
        (60.0, 3.0, True),  # progress all along: cut off at the hard limit, still working
    ],
)
def test_progress_moves_the_timeout_up_to_the_hard_limit(
    tmp_path: Path, beats: float, limit: float, still_working: bool
) -> None:
    script = tmp_path / "beats.py"
    script.write_text(_BEATS)
    inv = dataclasses.replace(
        invocation(tmp_path, timeout=1.0), progress=_file_size(tmp_path / "beat.txt"), limit=limit
    )
    outcome = run_target(CommandTarget(f"{shlex.quote(sys.executable)} {script} {beats}"), inv)
    assert outcome.timed_out
    assert outcome.still_working is still_working
    # Past the 1 s timeout either way: the beats kept it alive.
    assert outcome.duration > 1.4
    if still_working:
        assert outcome.duration < limit + 5.0  # cut off at the limit (generous for a loaded machine)
        assert outcome.idle < 1.0
    else:
        assert outcome.duration < beats + 1.0 + 5.0
        assert outcome.idle >= 1.0


def test_a_harness_that_finishes_while_progressing_is_not_cut_off(tmp_path: Path) -> None:
    code = "import time\nfor _ in range(8):\n    open('beat.txt', 'a').write('.'); time.sleep(0.3)\nprint('done')"
    inv = dataclasses.replace(
        invocation(tmp_path, timeout=1.0), progress=_file_size(tmp_path / "beat.txt"), limit=20.0
    )
    outcome = run_target(CommandTarget(python(code)), inv)
    assert (outcome.exit_code, outcome.timed_out, outcome.still_working) == (0, False, False)
    assert outcome.stdout.strip() == "done"


def _gone(pid: int) -> bool:
    try:
        return "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return True


def _dies(pid: int) -> bool:
    # SIGKILL is delivered asynchronously: on a busy machine the process may still show as running
    # for a moment. Wait for it (a bound on a wait for an event, not a timing check).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


def test_exit_status_and_stderr_are_kept(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('boom'); sys.exit(3)"
    outcome = run_target(CommandTarget(python(code)), invocation(tmp_path))
    assert (outcome.exit_code, outcome.stderr, outcome.timed_out) == (3, "boom", False)


def test_missing_program_is_a_start_error(tmp_path: Path) -> None:
    outcome = run_target(CommandTarget("/nonexistent/harness -p {prompt}"), invocation(tmp_path))
    assert outcome.exit_code is None
    assert outcome.start_error is not None
    assert "/nonexistent/harness" in outcome.start_error


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """The suite itself started with SIGINT ignored, as a job in a shell's background is."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


_SIGINT_OF_TARGET = "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"


def test_a_target_starts_with_sigint_as_from_a_terminal(tmp_path: Path, sigint_ignored: None) -> None:
    """A suite run with SIGINT ignored still starts its target with SIGINT's default action.

    Otherwise the target inherits the ignored SIGINT and can't be interrupted, and the interrupt
    scenarios (CONC-5) blame the harness for how the suite was started.
    """
    outcome = run_target(CommandTarget(python(_SIGINT_OF_TARGET)), invocation(tmp_path))
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.stdout.strip() == "False", "the target inherited the suite's ignored SIGINT"


def test_a_missing_program_is_a_start_error_with_sigint_ignored(tmp_path: Path, sigint_ignored: None) -> None:
    outcome = run_target(CommandTarget("/nonexistent/harness -p {prompt}"), invocation(tmp_path))
    assert outcome.start_error is not None
    assert "/nonexistent/harness" in outcome.start_error


def test_wire_harness_reports_a_harness_that_never_calls_the_api() -> None:
    adapter = WireAdapter(CommandTarget(python("print('hello')")), timeout=30)
    assert adapter.capabilities == frozenset({"wire"})
    run = adapter.new_harness().run_wire(WireScenario(name="nothing", prompt="hi", steps=()))
    assert isinstance(run, WireRun)
    failure = run.failure()
    assert failure is not None
    assert "never called the Messages API" in failure
    assert "hello" in failure
    verdict = run.verdict(["a check problem"])
    assert verdict is not None
    assert verdict.index("a check problem") < verdict.index("never called")


def test_wire_adapter_refuses_a_bad_timeout() -> None:
    with pytest.raises(ValueError, match="timeout"):
        WireAdapter(ReferenceTarget(), timeout=0)

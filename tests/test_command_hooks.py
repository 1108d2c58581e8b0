"""Command hooks as real subprocesses with Claude Code's protocol (HOOK-3, HOOK-4, EXEC-5); http, plugin and async hooks (HOOK-8)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.adapters import HookEndpoint, HookSpec, hook_command
from reference_impl import CommandHook, HookConfigError, HookMatcher, Hooks, hooks_from_settings
from reference_impl.hooks import (
    HookBaseInput,
    HookRunResult,
    HttpHook,
    PreToolUseOutcome,
    collect_background,
    hooks_from_plugin,
    run_command_hook,
    run_permission_request,
    run_post_tool_use,
    run_post_tool_use_failure,
    run_pre_tool_use,
)
from tests.test_hooks import decision


def script(tmp_path: Path, name: str, body: str) -> str:
    """Write a Python hook script and return the shell command that runs it."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, os, sys, time\n" + body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def exited(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie waiting for init to reap it counts as exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def dead(pid: int, within: float = 5.0) -> bool:
    """Whether ``pid`` exits within ``within`` seconds.

    A SIGKILL sent to a group is acted on when the process is next scheduled, so on a busy machine
    it can still show as sleeping just after ``killpg`` returns; the hooks under test sleep 30 s,
    so a few seconds' grace cannot hide a process that was never killed.
    """
    deadline = time.monotonic() + within
    while not exited(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def json_hook(tmp_path: Path, name: str, output: Any) -> CommandHook:
    return CommandHook(script(tmp_path, name, f"sys.stdin.read()\nprint(json.dumps({output!r}))\n"))


def base(tmp_path: Path) -> HookBaseInput:
    return HookBaseInput("sess-1", str(tmp_path / "t.jsonl"), str(tmp_path), "default")


def pre(
    tmp_path: Path, *hooks: CommandHook, tool: str = "Bash", matcher: str | None = "Bash"
) -> PreToolUseOutcome:
    registry = Hooks({"PreToolUse": [HookMatcher(matcher, list(hooks))]})
    return asyncio.run(
        run_pre_tool_use(
            registry, tool_name=tool, tool_input={"command": "ls"}, tool_use_id="toolu_1", base=base(tmp_path)
        )
    )


def test_stdin_carries_claude_code_fields(tmp_path: Path) -> None:
    dump = tmp_path / "input.json"
    hook = CommandHook(script(tmp_path, "dump", f"open({str(dump)!r}, 'w').write(sys.stdin.read())\n"))
    out = pre(tmp_path, hook)
    assert out.verdict is None
    assert out.errors == []
    seen = json.loads(dump.read_text())
    assert seen == {
        "session_id": "sess-1",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }


def test_env_and_cwd(tmp_path: Path) -> None:
    body = "sys.stdin.read()\nprint(os.getcwd() + '|' + os.environ['CLAUDE_PROJECT_DIR'], end='')\n"
    res = asyncio.run(run_command_hook(CommandHook(script(tmp_path, "env", body)), {}, cwd=tmp_path))
    assert res.exit_code == 0
    assert res.stdout == f"{os.path.realpath(tmp_path)}|{tmp_path}"


@pytest.mark.parametrize("behavior", ["allow", "deny", "ask"])
def test_exit0_json_decision(tmp_path: Path, behavior: str) -> None:
    out = pre(tmp_path, json_hook(tmp_path, "d", decision(behavior, "because")))
    assert out.verdict is not None
    assert out.verdict.behavior == behavior
    assert out.verdict.hook.endswith("d.py")
    if behavior == "deny":
        assert out.verdict.reason == "PreToolUse:Bash hook error: because"
    else:
        assert out.verdict.reason == "because"


def test_updated_input_and_additional_context(tmp_path: Path) -> None:
    hook = json_hook(
        tmp_path,
        "u",
        decision("allow", "ok", updatedInput={"command": "ls -la"}, additionalContext="note this"),
    )
    out = pre(tmp_path, hook)
    assert out.verdict is not None
    assert out.verdict.behavior == "allow"
    assert out.updated_input == {"command": "ls -la"}
    assert out.additional_contexts == ["note this"]


def test_exit2_blocks_with_stderr(tmp_path: Path) -> None:
    body = "sys.stdin.read()\nprint(json.dumps({'decision': 'approve'}))\nsys.stderr.write('no rm here\\n')\nsys.exit(2)\n"
    out = pre(tmp_path, CommandHook(script(tmp_path, "block", body)))
    # stdout JSON is ignored on exit 2; stderr is what the model sees.
    assert out.verdict is not None
    assert out.verdict.behavior == "deny"
    assert out.verdict.reason == "PreToolUse:Bash hook error: no rm here"
    assert out.blocking_errors == ["no rm here"]


@pytest.mark.parametrize("code", [1, 3])
def test_other_exit_codes_are_non_blocking(tmp_path: Path, code: int) -> None:
    body = f"sys.stdin.read()\nprint(json.dumps({decision('allow')!r}))\nsys.stderr.write('oops')\nsys.exit({code})\n"
    out = pre(tmp_path, CommandHook(script(tmp_path, f"exit{code}", body)))
    assert out.verdict is None  # even the allow on stdout is not honoured
    assert [(e.kind, e.message) for e in out.errors] == [("exit_code", f"hook exited with code {code}: oops")]


def test_signal_death(tmp_path: Path) -> None:
    body = "import signal\nsys.stdin.read()\nos.kill(os.getpid(), signal.SIGKILL)\n"
    out = pre(tmp_path, CommandHook(script(tmp_path, "sig", body)))
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["signal"]
    assert "signal 9" in out.errors[0].message


def test_timeout_kills_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    # The shell starts a grandchild (sleep) and waits; a timeout must take both down.
    hook = CommandHook(f"sleep 30 & echo $! > {shlex.quote(str(pidfile))}; wait", timeout=0.5)
    out = pre(tmp_path, hook)
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["timeout"]
    assert "0.5s" in out.errors[0].message
    assert dead(int(pidfile.read_text()))


def test_non_json_stdout_is_ignored(tmp_path: Path) -> None:
    out = pre(tmp_path, CommandHook("cat > /dev/null; echo formatted 3 files"))
    assert out.verdict is None
    assert out.errors == []


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        (decision("maybe"), "permissionDecision"),
        (decision("allow", updatedInput="rm -rf /"), "updatedInput must be an object"),
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "allow"}},
            "hookEventName",
        ),
        ({"decision": "yes"}, "decision must be"),
    ],
)
def test_invalid_json_shapes_are_errors_not_decisions(tmp_path: Path, output: Any, fragment: str) -> None:
    out = pre(tmp_path, json_hook(tmp_path, "bad", output))
    assert out.verdict is None
    assert out.updated_input is None
    assert [e.kind for e in out.errors] == ["invalid_output"]
    assert fragment in out.errors[0].message


def test_broken_json_and_non_object(tmp_path: Path) -> None:
    broken = CommandHook("cat >/dev/null; echo '{\"hookSpecificOutput\": '")
    array = CommandHook("cat >/dev/null; echo '[1]'")
    out = pre(tmp_path, broken, array)
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["invalid_output"]  # '[1]' is plain output, not JSON we read
    assert "not valid JSON" in out.errors[0].message


def test_huge_stdout(tmp_path: Path) -> None:
    body = "sys.stdin.read()\nsys.stdout.write('{' + 'x' * 3_000_000)\n"
    out = pre(tmp_path, CommandHook(script(tmp_path, "huge", body)))
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["output_too_large"]


def test_missing_executable(tmp_path: Path) -> None:
    out = pre(tmp_path, CommandHook(str(tmp_path / "no-such-hook")))
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["exit_code"]
    assert "127" in out.errors[0].message


def test_missing_cwd_is_a_spawn_error(tmp_path: Path) -> None:
    res = asyncio.run(run_command_hook(CommandHook("true"), {}, cwd=tmp_path / "gone"))
    assert res.spawn_error is not None
    assert res.exit_code is None


@pytest.mark.parametrize(("legacy", "behavior"), [("approve", "allow"), ("block", "deny")])
def test_legacy_decision(tmp_path: Path, legacy: str, behavior: str) -> None:
    out = pre(tmp_path, json_hook(tmp_path, "legacy", {"decision": legacy, "reason": "legacy says so"}))
    assert out.verdict is not None
    assert out.verdict.behavior == behavior
    assert out.verdict.reason.endswith("legacy says so")


def test_parallel_hooks_aggregate_in_declaration_order(tmp_path: Path) -> None:
    allow = json_hook(tmp_path, "a", decision("allow", updatedInput={"command": "x"}))
    deny = CommandHook("cat >/dev/null; echo denied >&2; exit 2")
    ask = json_hook(tmp_path, "k", decision("ask", "sure?"))
    out = pre(tmp_path, allow, ask, deny)
    assert out.verdict is not None
    assert out.verdict.behavior == "deny"
    assert out.updated_input is None


def test_post_tool_use_block_and_mcp_output_update(tmp_path: Path) -> None:
    output = {
        "decision": "block",
        "reason": "lint failed",
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "see lint",
            "updatedMCPToolOutput": {"content": [{"type": "text", "text": "redacted"}]},
        },
    }
    registry = Hooks({"PostToolUse": [HookMatcher("mcp__.*", [json_hook(tmp_path, "post", output)])]})
    out = asyncio.run(
        run_post_tool_use(
            registry,
            tool_name="mcp__srv__read",
            tool_input={},
            tool_use_id="toolu_2",
            tool_response={"content": [{"type": "text", "text": "secret"}]},
            base=base(tmp_path),
        )
    )
    assert out.block
    assert out.block_messages == ["PostToolUse:mcp__srv__read hook error: lint failed"]
    assert out.additional_contexts == ["see lint"]
    assert out.updated_mcp_tool_output is not None
    assert out.updated_mcp_tool_output.value == {"content": [{"type": "text", "text": "redacted"}]}


def test_post_tool_use_failure_gets_error_and_exit2(tmp_path: Path) -> None:
    dump = tmp_path / "failure.json"
    body = (
        f"open({str(dump)!r}, 'w').write(sys.stdin.read())\nsys.stderr.write('retry with -f')\nsys.exit(2)\n"
    )
    registry = Hooks(
        {"PostToolUseFailure": [HookMatcher(None, [CommandHook(script(tmp_path, "fail", body))])]}
    )
    out = asyncio.run(
        run_post_tool_use_failure(
            registry,
            tool_name="Bash",
            tool_input={"command": "x"},
            tool_use_id="t",
            error="boom",
            base=base(tmp_path),
        )
    )
    assert json.loads(dump.read_text())["error"] == "boom"
    assert out.block_messages == ["PostToolUseFailure:Bash hook error: retry with -f"]
    assert out.updated_mcp_tool_output is None


def test_permission_request_command_hook(tmp_path: Path) -> None:
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}},
        }
    }
    registry = Hooks({"PermissionRequest": [HookMatcher("", [json_hook(tmp_path, "perm", output)])]})
    out = asyncio.run(
        run_permission_request(
            registry,
            tool_name="Bash",
            tool_input={"command": "ls -R /"},
            tool_use_id="t",
            base=base(tmp_path),
        )
    )
    assert out.decision is not None
    assert out.decision.behavior == "allow"
    assert out.decision.updated_input == {"command": "ls"}


def test_cancellation_kills_the_hook(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    hook = CommandHook(f"sleep 30 & echo $! > {shlex.quote(str(pidfile))}; wait")

    async def main() -> None:
        task = asyncio.create_task(run_command_hook(hook, {}, cwd=tmp_path))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert dead(int(pidfile.read_text()))


# -- http hooks against a real local server, plugin hooks, async hooks (HOOK-8) -----------------


def _endpoint(status: int, body: str, delay: float = 0.0) -> HookEndpoint:
    """A real HTTP server on 127.0.0.1 answering every POST with ``status`` and ``body``."""
    return HookEndpoint(lambda _input: (status, body.encode()), delay=delay)


def _pre_with(tmp_path: Path, *hooks: Any) -> PreToolUseOutcome:
    registry = Hooks({"PreToolUse": [HookMatcher("Bash", list(hooks))]})
    return asyncio.run(
        run_pre_tool_use(
            registry,
            tool_name="Bash",
            tool_input={"command": "ls"},
            tool_use_id="toolu_1",
            base=base(tmp_path),
        )
    )


def test_http_hook_decides_like_a_command_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOOK-8: the input is POSTed as JSON; a 2xx JSON body is a decision; allowed env vars expand in headers."""
    monkeypatch.setenv("HOOK_TOKEN", "s3cret")
    monkeypatch.setenv("NOT_ALLOWED", "leak")
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "HTTP-SAYS-NO"}}  # fmt: skip
    with _endpoint(200, json.dumps(deny)) as endpoint:
        hook = HttpHook(
            endpoint.url,
            {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${NOT_ALLOWED}"},
            ("HOOK_TOKEN",),
            timeout=10,
        )
        out = _pre_with(tmp_path, hook)
    assert out.verdict is not None
    assert out.verdict.behavior == "deny"
    assert "HTTP-SAYS-NO" in out.verdict.reason
    (payload,) = endpoint.received
    (headers,) = endpoint.headers
    assert (payload["hook_event_name"], payload["tool_name"], payload["tool_input"]) == (
        "PreToolUse", "Bash", {"command": "ls"},
    )  # fmt: skip
    assert headers["Authorization"] == "Bearer s3cret"
    assert headers["X-Other"] == ""


@pytest.mark.parametrize("case", ["500", "refused", "timeout", "not json"])
def test_an_http_hook_that_fails_is_a_non_blocking_error(tmp_path: Path, case: str) -> None:
    """HOOK-8: a non-2xx answer, a refused connection or a timeout never decides; another hook still does."""
    ask = json_hook(tmp_path, "ask", decision("ask"))
    if case == "refused":
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        out = _pre_with(tmp_path, HttpHook(f"http://127.0.0.1:{port}/x", timeout=5), ask)
    else:
        status, body, delay = {
            "500": (500, "{}", 0.0),
            "timeout": (200, "{}", 3.0),
            "not json": (200, "{nope", 0.0),
        }[case]
        with _endpoint(status, body, delay) as endpoint:
            out = _pre_with(tmp_path, HttpHook(endpoint.url, timeout=1), ask)
    assert out.verdict is not None
    assert out.verdict.behavior == "ask"
    assert len(out.errors) == 1
    assert out.errors[0].kind in {"http", "timeout", "invalid_output"}


def test_http_hooks_are_read_from_settings(tmp_path: Path) -> None:
    """HOOK-8: ``{"type": "http"}`` entries are parsed (url, headers, allowedEnvVars, timeout) and run."""
    hooks = hooks_from_settings(
        {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/h", "timeout": 3,
                                          "headers": {"A": "b"}, "allowedEnvVars": ["X"]}]}]}},
        name="s.json",
    )  # fmt: skip
    ((entry, _),) = list(hooks.matching("Stop", ""))
    assert entry == HttpHook("http://127.0.0.1:1/h", {"A": "b"}, ("X",), 3.0)
    assert hooks.unsupported == []


def test_plugin_hooks_run_with_the_plugin_root(tmp_path: Path) -> None:
    """HOOK-8: ``hooks/hooks.json`` of a plugin is loaded; ``${CLAUDE_PLUGIN_ROOT}`` is the plugin's
    directory in the command and in the environment."""
    plugin = tmp_path / "my-plugin"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / "guard.py").write_text(
        "import json, os, sys\nsys.stdin.read()\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny',"
        " 'permissionDecisionReason': 'root=' + os.environ['CLAUDE_PLUGIN_ROOT']}}))\n"
    )
    command = f"{shlex.quote(sys.executable)} ${{CLAUDE_PLUGIN_ROOT}}/guard.py"
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"description": "a guard", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}]}]}})
    )  # fmt: skip
    hooks = hooks_from_plugin(plugin)
    ((entry, _),) = list(hooks.matching("PreToolUse", "Bash"))
    assert isinstance(entry, CommandHook)
    assert "${CLAUDE_PLUGIN_ROOT}" not in entry.command
    assert str(plugin.resolve()) in entry.command
    out = _pre_with(tmp_path, entry)
    assert out.verdict is not None
    assert out.verdict.behavior == "deny"
    assert f"root={plugin.resolve()}" in out.verdict.reason
    assert hooks_from_plugin(tmp_path / "no-hooks").events == {}
    (plugin / "hooks" / "hooks.json").write_text("{not json")
    with pytest.raises(HookConfigError, match=r"hooks\.json"):
        hooks_from_plugin(plugin)


def test_identical_hooks_of_two_plugins_are_both_kept(tmp_path: Path) -> None:
    """HOOK-8: two plugins whose hooks have the same command line keep both hooks (one per plugin root);
    the same command twice in one source runs once; the same command in two settings files is two hooks."""
    entry = {"type": "command", "command": "./check.sh"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry, entry]}]}}
    roots = []
    for name in ("first", "second"):
        plugin = tmp_path / name
        (plugin / "hooks").mkdir(parents=True)
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(settings))
        roots.append(hooks_from_plugin(plugin))
    both = roots[0].merged(roots[1])
    found = [hook for hook, _ in both.matching("PreToolUse", "Bash")]
    assert [getattr(h, "plugin_root", None) for h in found] == [
        str((tmp_path / "first").resolve()),
        str((tmp_path / "second").resolve()),
    ]
    user = hooks_from_settings(settings, name="~/.claude/settings.json")
    project = hooks_from_settings(settings, name=".claude/settings.json")
    assert len(list(user.matching("PreToolUse", "Bash"))) == 1
    assert len(list(user.merged(project).matching("PreToolUse", "Bash"))) == 2


def test_async_command_hooks_run_in_the_background_and_never_decide(tmp_path: Path) -> None:
    """HOOK-8: an ``async`` command hook starts and the event goes on without it; an exit 2 or a deny
    from it decides nothing; what it says is collected later."""
    slow = CommandHook(
        script(
            tmp_path,
            "slow",
            "sys.stdin.read()\ntime.sleep(0.5)\nprint(json.dumps({'systemMessage': 'LATER', "
            "'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny'}}))\n",
        ),
        run_async=True,
    )
    blocker = CommandHook(script(tmp_path, "blocker", "sys.stdin.read()\nsys.exit(2)\n"), run_async=True)
    registry = Hooks({"PreToolUse": [HookMatcher("Bash", [slow, blocker])]})

    async def main() -> tuple[PreToolUseOutcome, list[bool], list[Any]]:
        out = await run_pre_tool_use(
            registry, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t", base=base(tmp_path)
        )
        # Not a timer: the event must return while both hooks are still in flight (the slow one
        # sleeps half a second after it starts), whatever the machine's load.
        finished = [task.done() for _, task in registry.background]
        return out, finished, await collect_background(registry, wait=True)

    out, finished, done = asyncio.run(main())
    assert out.verdict is None
    assert out.errors == []
    assert finished == [False, False]
    assert [d.system_message for d in done] == ["LATER", None]
    assert done[1].error is not None
    assert registry.background == []


@pytest.mark.parametrize("active", [False, True])
def test_a_block_once_hook_program_honours_stop_hook_active(tmp_path: Path, active: bool) -> None:
    """HOOK-7: the suite's ``block_once`` command hook blocks a stop, and lets it happen once ``stop_hook_active``."""
    spec = HookSpec(event="Stop", outcome="block_once", reason="KEEP GOING")
    hook = CommandHook(hook_command(spec, tmp_path, 0))
    res = asyncio.run(
        run_command_hook(hook, {"hook_event_name": "Stop", "stop_hook_active": active}, cwd=tmp_path)
    )
    assert res.exit_code == 0, res.stderr
    assert (json.loads(res.stdout) if res.stdout.strip() else {}) == (
        {} if active else {"decision": "block", "reason": "KEEP GOING"}
    )


# -- run_command_hook's own result: what the runner reads and no requirement pins ------------------
# (tests/mutants/mutation-triage.toml: the `unspecified` survivors of reference_impl/hooks/_command.py)


def run(hook: CommandHook, cwd: Path, input_json: Any = None, **options: Any) -> HookRunResult:
    return asyncio.run(run_command_hook(hook, {} if input_json is None else input_json, cwd=cwd, **options))


@pytest.mark.parametrize("number", [signal.SIGHUP, signal.SIGKILL, signal.SIGTERM])
def test_a_hook_killed_by_a_signal_reports_the_signal_not_an_exit_code(tmp_path: Path, number: int) -> None:
    res = run(CommandHook(f"kill -{int(number)} $$"), tmp_path)
    assert (res.signal, res.exit_code, res.timed_out, res.spawn_error) == (number, None, False, None)


def write_bytes(stream: str, count: int) -> str:
    """A shell command writing ``count`` bytes ``x`` to ``stream`` (stdout or stderr) and nothing else."""
    code = f"import sys; sys.{stream}.write('x' * {count})"
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
@pytest.mark.parametrize(
    ("written", "limit", "kept"),
    [
        (2, 1, 1),  # the first read already passes the limit: its first byte is kept
        (2, 2, 2),
        (3, 2, 2),
        # The reference's own limit, pinned here: a 1 MB output is whole, one byte more is cut.
        (1_000_000, None, 1_000_000),
        (1_000_001, None, 1_000_000),
    ],
)
def test_each_stream_keeps_up_to_the_limit_and_says_when_it_cut(
    tmp_path: Path, stream: str, written: int, limit: int | None, kept: int
) -> None:
    options = {} if limit is None else {"max_output_bytes": limit}
    res = run(CommandHook(write_bytes(stream, written)), tmp_path, **options)
    assert res.exit_code == 0
    text, cut = (
        (res.stdout, res.stdout_truncated) if stream == "stdout" else (res.stderr, res.stderr_truncated)
    )
    assert text == "x" * kept
    assert cut is (written > kept)
    other_cut = res.stderr_truncated if stream == "stdout" else res.stdout_truncated
    assert other_cut is False


def test_a_hook_runs_six_hundred_seconds_unless_its_call_or_itself_says_otherwise(tmp_path: Path) -> None:
    # Claude Code's documented default for command hooks: 600 s (30 for prompt, 60 for agent hooks).
    assert run(CommandHook("true"), tmp_path).timeout == 600.0
    own = run(CommandHook("sleep 5", timeout=0.3), tmp_path)
    passed = run(CommandHook("sleep 5"), tmp_path, timeout=0.3)
    overridden = run(CommandHook("sleep 5", timeout=60), tmp_path, timeout=0.3)
    for res in (own, passed, overridden):
        assert (res.timed_out, res.timeout, res.exit_code, res.signal) == (True, 0.3, None, None)


@pytest.mark.parametrize("value", [object(), float("nan")], ids=["object", "nan"])
def test_input_that_is_not_json_is_reported_and_the_hook_never_starts(tmp_path: Path, value: object) -> None:
    marker = tmp_path / "ran"
    res = run(CommandHook(f"touch {shlex.quote(str(marker))}"), tmp_path, {"tool_input": {"x": value}})
    assert res.spawn_error is not None
    assert res.spawn_error.startswith("hook input is not JSON-serializable")
    assert res.exit_code is None
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash: hooks run under /bin/sh")
def test_hooks_run_under_bash(tmp_path: Path) -> None:
    res = run(CommandHook("[[ a == a ]] && echo bash"), tmp_path)
    assert (res.exit_code, res.stdout) == (0, "bash\n")


@pytest.mark.parametrize(
    ("command", "timeout"),
    [
        ("", None),
        ("   ", None),
        ("true", 0),
        ("true", 0.0),
        ("true", -1),
        ("true", -0.5),
        ("true", True),
        ("true", "5"),
    ],
)
def test_a_command_hook_needs_a_command_and_a_positive_timeout(command: str, timeout: Any) -> None:
    with pytest.raises(ValueError, match="command hook"):
        CommandHook(command, timeout)


def test_a_command_hook_and_its_result_are_values_named_by_the_command(tmp_path: Path) -> None:
    hook = CommandHook("echo hi", timeout=0.5)
    assert hook.label == "echo hi"
    assert hash(hook) == hash(CommandHook("echo hi", timeout=0.5))
    res = run(hook, tmp_path)
    assert hash(res) == hash(dataclasses.replace(res))
    with pytest.raises(dataclasses.FrozenInstanceError):
        hook.command = "rm -rf /"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.exit_code = 2  # type: ignore[misc]


def test_output_that_arrives_in_pieces_is_cut_at_the_limit(tmp_path: Path) -> None:
    # Two writes apart in time reach the reader as two pieces; however they arrive, the first 4 bytes are kept.
    code = "import sys, time; sys.stdout.write('a'); sys.stdout.flush(); time.sleep(0.2); sys.stdout.write('bcde')"
    res = run(
        CommandHook(f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"), tmp_path, max_output_bytes=4
    )
    assert (res.stdout, res.stdout_truncated) == ("abcd", True)

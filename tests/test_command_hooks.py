"""Command hooks as real subprocesses with Claude Code's protocol (HOOK-3, HOOK-4, EXEC-5)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from reference_impl import (
    CommandHook,
    HookBaseInput,
    HookMatcher,
    Hooks,
    PreToolUseOutcome,
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


def dead(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie waiting for init to reap it counts as exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


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

"""The bridge between Claude Code's hook protocol and the Gemini CLI's, run as the CLI runs it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.wire.targets._gemini_hooks import BRIDGE_SOURCE, gemini_hooks

_GEMINI_INPUT = {
    "hook_event_name": "BeforeTool",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "ls"},
}


def _bridge(
    tmp_path: Path, stdout: str, exit_code: int = 0, stderr: str = ""
) -> subprocess.CompletedProcess[str]:
    bridge = tmp_path / "bridge.py"
    bridge.write_text(BRIDGE_SOURCE, encoding="utf-8")
    seen = tmp_path / "seen.json"
    program = (
        f"import sys; open({str(seen)!r}, 'w').write(sys.stdin.read()); "
        f"sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit({exit_code})"
    )
    hook = f"{shlex.quote(sys.executable)} -c {shlex.quote(program)}"
    return subprocess.run(
        [sys.executable, str(bridge), hook],
        input=json.dumps(_GEMINI_INPUT),
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("claude", "gemini"),
    [
        (
            {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}},
            {"decision": "deny", "reason": "no"},
        ),
        ({"hookSpecificOutput": {"permissionDecision": "allow"}}, {"decision": "allow"}),
        (
            {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "pwd"}}},
            {"decision": "allow", "hookSpecificOutput": {"tool_input": {"command": "pwd"}}},
        ),
        ({"decision": "block", "reason": "bad"}, {"decision": "deny", "reason": "bad"}),
        (
            {"continue": False, "stopReason": "s", "hookSpecificOutput": {"additionalContext": "c"}},
            {"continue": False, "stopReason": "s", "hookSpecificOutput": {"additionalContext": "c"}},
        ),
    ],
)
def test_claude_decisions_become_gemini_decisions(
    tmp_path: Path, claude: dict[str, Any], gemini: dict[str, Any]
) -> None:
    done = _bridge(tmp_path, json.dumps(claude))
    assert done.returncode == 0
    assert json.loads(done.stdout) == gemini
    assert json.loads((tmp_path / "seen.json").read_text("utf-8"))["hook_event_name"] == "PreToolUse"


def test_an_ask_is_a_deny_headless(tmp_path: Path) -> None:
    done = _bridge(tmp_path, json.dumps({"hookSpecificOutput": {"permissionDecision": "ask"}}))
    assert json.loads(done.stdout)["decision"] == "deny"


@pytest.mark.parametrize(("stdout", "code"), [("not json at all", 0), ("", 2), ('{"x": 1', 1)])
def test_exit_codes_stderr_and_garbage_pass_through(tmp_path: Path, stdout: str, code: int) -> None:
    """The CLI's own handling of a block, an error or garbage is what the suite judges, so none is rewritten."""
    done = _bridge(tmp_path, stdout, exit_code=code, stderr="why")
    assert (done.returncode, done.stdout, done.stderr) == (code, stdout, "why")


def test_events_and_matchers(tmp_path: Path) -> None:
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "a|b", "hooks": [{"type": "command", "command": "x"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "y", "timeout": 5}]},
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "z"}]}],
        }
    }
    hooks = gemini_hooks(settings, tmp_path / "bridge.py")
    assert list(hooks) == ["BeforeTool"]
    first, every = hooks["BeforeTool"]
    assert first["matcher"] == "^(?:a|b)$"
    assert "matcher" not in every
    assert every["hooks"][0]["timeout"] == 5000
    assert shlex.split(every["hooks"][0]["command"])[-1] == "y"

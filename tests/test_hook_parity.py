"""Hook payload parity with the real Claude Code CLI (HOOK-6, issue 15).

The same recording command hook is configured, through the same settings.json, in ``claude -p`` (the
binary the ``claude-agent-sdk`` wheel ships, run offline with a fresh HOME against the scripted
Messages API on 127.0.0.1) and in ``python -m reference_impl -p``. Both answer the same scripted model:
a Bash call that succeeds, one that fails, then text. The hook appends the JSON it gets on stdin (and
``CLAUDE_PROJECT_DIR``) to a log; the test compares the two logs event by event, field by field: the
same keys in the same order, the same values, except the values that must differ between two sessions
(ids, the transcript path, durations), which are compared by type.

Offline, the CLI fires SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure,
Stop and SessionEnd for this script (PermissionRequest needs a prompt nobody answers in ``-p``;
Notification, PreCompact and SubagentStop have no moment in it).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.targets._claude_code import _OFFLINE_ENV, find_claude_binary

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
)
"""The events compared; each must be fired by both, in this order."""

BY_TYPE = frozenset({"session_id", "transcript_path", "prompt_id", "duration_ms"})
"""Fields whose values differ between two sessions by nature: compared by type only."""

CLI_ONLY = {
    "effort": "the model's reasoning-effort setting; the reference harness has no effort setting",
    "background_tasks": "Claude Code's background tasks (Stop); the reference harness has none",
    "session_crons": "Claude Code's scheduled session jobs (Stop); the reference harness has none",
}
"""Fields only the CLI sends, each for a feature the reference harness does not have."""

PROMPT = "hello there"

RECORDER = """\
import json, os, sys
payload = json.loads(sys.stdin.read())
payload["$env.CLAUDE_PROJECT_DIR"] = os.environ.get("CLAUDE_PROJECT_DIR")
with open(sys.argv[1], "a", encoding="utf-8") as log:
    log.write(json.dumps(payload) + "\\n")
"""


def _script() -> list[AssistantTurn]:
    return [
        AssistantTurn(
            [
                TextBlock("running"),
                ToolUseBlock(tool_use_id(1), "Bash", {"command": "echo hi", "description": "say hi"}),
            ]
        ),
        AssistantTurn([ToolUseBlock(tool_use_id(2), "Bash", {"command": "exit 3", "description": "fail"})]),
        AssistantTurn.text("done"),
    ]


def _settings(recorder: Path, log: Path) -> dict[str, Any]:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(recorder))} {shlex.quote(str(log))}"
    entry = [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
    return {"permissions": {"allow": ["Bash"]}, "hooks": dict.fromkeys(EVENTS, entry)}


def _run(argv: list[str], root: Path, name: str, extra_env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Run one harness against a fresh scripted server with the recording hook; its hook log."""
    recorder = root / "recorder.py"
    recorder.write_text(RECORDER, encoding="utf-8")
    log = root / f"{name}.jsonl"
    settings = root / f"{name}-settings.json"
    settings.write_text(json.dumps(_settings(recorder, log)), encoding="utf-8")
    project = root / "project"
    project.mkdir(exist_ok=True)
    home = root / f"{name}-home"
    home.mkdir()
    with ScriptedApiServer(_script()) as server:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "x",
            **extra_env,
        }
        done = subprocess.run(
            [*argv, "-p", PROMPT, "--output-format", "json", "--settings", str(settings)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, f"{name} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}"
        assert all(r.status == 200 for r in server.message_requests), name
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _first_of_each(payloads: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    first: dict[str, dict[str, Any]] = {}
    for payload in payloads:
        first.setdefault(str(payload.get("hook_event_name")), payload)
    return first


def _differences(event: str, cli: Mapping[str, Any], ours: Mapping[str, Any], where: str = "") -> list[str]:
    problems = []
    cli_keys = [k for k in cli if k not in CLI_ONLY]
    if list(ours) != cli_keys:
        problems.append(f"{event}{where}: keys {list(ours)} != Claude Code's {cli_keys}")
    for key in cli_keys:
        if key not in ours:
            continue
        mine, theirs = ours[key], cli[key]
        if key in BY_TYPE:
            if type(mine) is not type(theirs):
                problems.append(f"{event}{where}.{key}: {type(mine).__name__} != {type(theirs).__name__}")
        elif isinstance(theirs, Mapping) and isinstance(mine, Mapping):
            problems.extend(_differences(event, theirs, mine, f"{where}.{key}"))
        elif mine != theirs or type(mine) is not type(theirs):
            problems.append(f"{event}{where}.{key}: {mine!r} != Claude Code's {theirs!r}")
    return problems


@pytest.fixture(scope="module")
def payloads(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    binary = find_claude_binary()
    if binary is None:
        pytest.skip("no Claude Code binary (install the test extra: claude-agent-sdk)")
    root = tmp_path_factory.mktemp("hook-parity")
    cli = _run([str(binary)], root, "claude", _OFFLINE_ENV)
    ours = _run([sys.executable, "-m", "reference_impl"], root, "reference", {})
    return _first_of_each(cli), _first_of_each(ours)


def test_interop_the_cli_fires_every_compared_event_offline(
    payloads: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]],
) -> None:
    """Evidence for the event list: which events the CLI fired for this script, in order."""
    cli, ours = payloads
    assert list(cli) == list(EVENTS), f"Claude Code fired {list(cli)}"
    assert list(ours) == list(EVENTS), f"the reference harness fired {list(ours)}"


@pytest.mark.parametrize("event", EVENTS)
def test_interop_hook_payloads_match_claude_code(
    payloads: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]], event: str
) -> None:
    """HOOK-6: the reference harness's payload for ``event`` is Claude Code's, field by field."""
    cli, ours = payloads
    assert event in cli, f"Claude Code did not fire {event}"
    assert event in ours, f"the reference harness did not fire {event}"
    assert _differences(event, cli[event], ours[event]) == []

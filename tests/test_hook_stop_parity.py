"""``continue: false`` from a tool hook, in the real Claude Code CLI and in the reference harness (HOOK-5).

Evidence for what HOOK-5 means for PreToolUse, where the docs only say that ``continue: false`` "stops
processing" and differs from a deny: the same command hook, through the same settings.json, in
``claude -p`` (offline, fresh HOME, against the scripted Messages API on 127.0.0.1) and in
``python -m reference_impl -p``. The scripted model calls Bash twice in one turn (``touch first``,
``touch second``), then once more in the next turn (``touch third``); the hook answers
``{"continue": false, "stopReason": ...}`` for the call that touches ``first`` only.

What the CLI does (2.1.332), and the reference harness must do the same: both calls of the turn run
(a PreToolUse ``continue: false`` is not a deny), each tool_use is answered, and the loop stops there:
no further request, so ``third`` never runs. For PostToolUse the same.
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

STOP_REASON = "parity-stop-reason-91c4"

HOOK = f"""\
import json, sys
payload = json.loads(sys.stdin.read())
if "first" in payload.get("tool_input", {{}}).get("command", ""):
    sys.stdout.write(json.dumps({{"continue": False, "stopReason": {STOP_REASON!r}}}))
"""


def _script(root: Path) -> list[AssistantTurn]:
    def bash(n: int, marker: str) -> ToolUseBlock:
        return ToolUseBlock(
            tool_use_id(n), "Bash", {"command": f"touch {root / marker}", "description": marker}
        )

    return [
        AssistantTurn([TextBlock("two calls"), bash(1, "first"), bash(2, "second")]),
        AssistantTurn([bash(3, "third")]),
        AssistantTurn.text("done"),
    ]


def _run(argv: list[str], root: Path, event: str, extra_env: Mapping[str, str]) -> dict[str, Any]:
    """One harness, one scripted session: which markers exist, the requests, the JSON result."""
    root.mkdir(parents=True)
    hook = root / "hook.py"
    hook.write_text(HOOK, encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))}"
    settings = root / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash"]},
                "hooks": {event: [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]},
            }
        ),
        encoding="utf-8",
    )
    (root / "project").mkdir()
    (root / "home").mkdir()
    with ScriptedApiServer(_script(root)) as server:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(root / "home"),
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "x",
            **extra_env,
        }
        done = subprocess.run(
            [*argv, "-p", "go", "--output-format", "json", "--settings", str(settings)],
            cwd=root / "project",
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, f"{argv[0]} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}"
        mains = [json.loads(r.body) for r in server.message_requests if json.loads(r.body).get("tools")]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "ran": [m for m in ("first", "second", "third") if (root / m).exists()],
        "requests": len(mains),
        "result": result,
        "output": done.stdout,
    }


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_interop_continue_false_runs_the_turn_and_stops_like_claude_code(tmp_path: Path, event: str) -> None:
    """HOOK-5: a tool hook's ``continue: false`` lets the turn's calls run, then stops, in both harnesses."""
    binary = find_claude_binary()
    if binary is None:
        pytest.skip("no Claude Code binary (install the test extra: claude-agent-sdk)")
    cli = _run([str(binary)], tmp_path / "claude", event, _OFFLINE_ENV)
    ours = _run([sys.executable, "-m", "reference_impl"], tmp_path / "reference", event, {})
    # What Claude Code does: the whole turn runs, and nothing after it.
    assert cli["ran"] == ["first", "second"], cli["output"][-2000:]
    assert cli["requests"] == 1, cli["output"][-2000:]
    assert cli["result"].get("terminal_reason") == "hook_stopped", cli["result"]
    # The reference harness does the same.
    assert ours["ran"] == cli["ran"], ours["output"][-2000:]
    assert ours["requests"] == cli["requests"], ours["output"][-2000:]
    assert ours["result"].get("stop_reason") == "hook_stopped", ours["result"]
    assert any(STOP_REASON in m for m in ours["result"].get("hook_messages", [])), ours["result"]

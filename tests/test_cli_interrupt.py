"""``python -m reference_impl`` on SIGINT: the turn is interrupted, nothing new starts, the session goes on (CONC-5)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import AssistantTurn, ToolUseIds


def _wait_for(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("second", ["touch after", "mkdir after"])
def test_sigint_during_a_call_aborts_the_batch_and_starts_nothing_after(tmp_path: Path, second: str) -> None:
    """A SIGINT while the first of two serial shell calls runs: the second never starts, both get one error result.

    The session goes on with Claude Code's interruption note, so the next request carries the
    interrupted turn's results. Without its own handler the command left SIGINT to asyncio, which
    cancelled the main task: the process died with a traceback and no result was ever sent.
    """
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({"permissions": {"allow": ["Bash(sleep:*)", "Bash(touch:*)", "Bash(mkdir:*)"]}})
    )
    started = tmp_path / "started"
    ids = ToolUseIds()
    turns = [
        AssistantTurn(
            [
                ids.block("Bash", {"command": f"touch {started} && sleep 30"}),
                ids.block("Bash", {"command": second}),
            ]
        ),
        AssistantTurn.text("finished"),
    ]
    with ScriptedApiServer(turns) as server:
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "x",
            "HOME": str(tmp_path),
        }
        command = [sys.executable, "-m", "reference_impl", "-p", "go", "--output-format", "json"]
        command += ["--settings", str(settings), "--session-dir", str(tmp_path / "s")]
        process = subprocess.Popen(
            command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert _wait_for(started.exists, 60), "the first call never started"
            time.sleep(0.3)
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        requests = server.message_requests
    assert not (tmp_path / "after").exists(), f"{second!r} ran after the interrupt: {stderr}"
    assert process.returncode == 0, (process.returncode, stdout, stderr)
    assert json.loads(stdout)["result"] == "finished", stdout
    results = [b for b in requests[1].messages[-1]["content"] if b.get("type") == "tool_result"]
    asked = [block.id for block in turns[0].tool_uses]
    assert [b["tool_use_id"] for b in results] == asked, requests[1].messages[-1]
    assert all(b.get("is_error") for b in results), results

"""The Codex CLI (npm ``@openai/codex``) against the scripted Responses API: a real client's requests.

Codex speaks the Responses API over SSE (``store: false``, ``include: ["reasoning.encrypted_content"]``),
sends a ``namespace`` tool and mints its own item ids (``msg_…``, ``fco_…``): the scripted server must
take all of it as api.openai.com does, and its view must show the reasoning Codex sends back. Skipped
(saying so) when no ``codex`` binary is found: ``$TOOLHARNESS_CODEX_BIN``, else ``codex`` on PATH.
``toolharness check --target codex`` (``tests/test_wire_codex.py``, docs/interop-codex.md) drives the
same CLI through the wire scenarios.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_toolharness.wire import AssistantTurn, ScriptedApiServer, ThinkingBlock, ToolUseBlock
from pytest_toolharness.wire.checks import check_pairing, check_reasoning_replayed

CODEX = os.environ.get("TOOLHARNESS_CODEX_BIN") or shutil.which("codex")
pytestmark = pytest.mark.skipif(CODEX is None, reason="no codex binary ($TOOLHARNESS_CODEX_BIN or on PATH)")

TURN = AssistantTurn(
    (
        ThinkingBlock("run both", "ZW5jcnlwdGVkLTE="),
        ToolUseBlock("call_1", "exec_command", {"cmd": "echo hi"}),
        ToolUseBlock("call_2", "exec_command", {"cmd": "cat missing.txt"}),
    )
)


def test_codex_runs_a_batch_and_sends_its_reasoning_back(tmp_path: Path) -> None:
    """Codex's requests are accepted; the batch is answered and the reasoning goes back ahead of it (PAIR-8)."""
    home, work = tmp_path / "codex-home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    with ScriptedApiServer([TURN, AssistantTurn.text("done")]) as server:
        (home / "config.toml").write_text(
            'model = "gpt-5.1-codex"\nmodel_provider = "scripted"\n[model_providers.scripted]\n'
            f'name = "scripted"\nbase_url = "{server.base_url}/v1"\nwire_api = "responses"\n'
            'env_key = "SCRIPTED_API_KEY"\n',
            encoding="utf-8",
        )
        env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(home), "SCRIPTED_API_KEY": "x"}
        command = [str(CODEX), "exec", "--skip-git-repo-check", "-s", "danger-full-access", "Run the tools."]
        done = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=180, check=False
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr[-2000:]
    assert [(r.path, r.status) for r in requests] == [("/v1/responses", 200), ("/v1/responses", 200)]
    first, second = (r.json for r in requests)
    assert (first["store"], first["include"], first["stream"]) == (
        False,
        ["reasoning.encrypted_content"],
        True,
    )
    assert any(tool.get("type") == "namespace" for tool in first["tools"])
    kinds = [item.get("type") for item in second["input"][-5:]]
    assert kinds == [
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert check_pairing(requests) == []
    assert check_reasoning_replayed(requests) == []
